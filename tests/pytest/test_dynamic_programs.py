"""Programs that keep dynamic shapes: the spec's dynamic ops and jax's shape-polymorphic custom calls on the
concrete values (interpreter), and the same programs refined to their inputs' shapes (passes/refine.py: the
custom calls become static ops, stablehlo-canonicalize-dynamism the dynamic ops) on XLA and the interpreter,
against numpy, JAX's export back-compatibility data and ``Exported.call``."""

from __future__ import annotations

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
import jax_back_compat
from hlokit import backend
from hlokit.interpreter import InterpreterError
from hlokit.passes.refine import refine_arguments, static_custom_calls

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export, lax  # noqa: E402

from hlokit.tools import hlokit_run  # noqa: E402

# ----------------------------------------------------------------------------------------------------------
# the spec's dynamic ops: shape operands computed from the dynamic argument's size


def _program(arg_type: str, result_type: str, body: str) -> str:
    return (f"func.func @main(%x: {arg_type}) -> {result_type} {{\n"
            f"  %d = stablehlo.get_dimension_size %x, dim = 0 : ({arg_type}) -> tensor<i32>\n"
            "  %n = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>\n"
            + body + f"  return %r : {result_type}\n}}\n")


def _pad(x, value, low, high, interior):
    """numpy ``pad`` of a 1-D array (spec "pad"; negative low / high cut)."""
    n = x.shape[0]
    z = np.full((n - 1) * (interior + 1) + 1 if n else 0, value, x.dtype)
    z[::interior + 1] = x
    z = np.concatenate([np.full(max(low, 0), value, x.dtype), z[max(-low, 0):]])
    return z[:len(z) + high] if high < 0 else np.concatenate([z, np.full(high, value, x.dtype)])


DYNAMIC_OPS = {
    "dynamic_reshape": (_program("tensor<?x4xf32>", "tensor<?x2xf32>", """\
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %m = stablehlo.multiply %n, %c2 : tensor<1xi32>
  %s = stablehlo.concatenate %m, %c2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x2xf32>
"""), (3, 4), lambda x: x.reshape(-1, 2)),
    "dynamic_broadcast_in_dim": (_program("tensor<?xf32>", "tensor<3x?xf32>", """\
  %c3 = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %c3, %n, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] : (tensor<?xf32>, tensor<2xi32>) -> tensor<3x?xf32>
"""), (5,), lambda x: np.broadcast_to(x, (3, x.shape[0]))),
    "real_dynamic_slice": (_program("tensor<?xf32>", "tensor<?xf32>", """\
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %r = stablehlo.real_dynamic_slice %x, %c1, %n, %c2 : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
"""), (7,), lambda x: x[1::2]),
    "dynamic_iota": (_program("tensor<?xf32>", "tensor<?x2xi32>", """\
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %s = stablehlo.concatenate %n, %c2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi32>) -> tensor<?x2xi32>
"""), (4,), lambda x: np.broadcast_to(np.arange(x.shape[0], dtype=np.int32)[:, None], (x.shape[0], 2))),
    "dynamic_pad": (_program("tensor<?xf32>", "tensor<?xf32>", """\
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %m1 = stablehlo.constant dense<-1> : tensor<1xi32>
  %lo = stablehlo.subtract %n, %c1 : tensor<1xi32>
  %v = stablehlo.constant dense<-5.0> : tensor<f32>
  %r = stablehlo.dynamic_pad %x, %v, %lo, %m1, %c1 : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
"""), (3,), lambda x: _pad(x, np.float32(-5), x.shape[0] - 1, -1, 1)),
    "dynamic_gather": (_program("tensor<?x?xf32>", "tensor<2x?xf32>", """\
  %e = stablehlo.get_dimension_size %x, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %m = stablehlo.reshape %e : (tensor<i32>) -> tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %s = stablehlo.concatenate %c1, %m, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %i = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %r = "stablehlo.dynamic_gather"(%x, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<?x?xf32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x?xf32>
"""), (3, 5), lambda x: x[[2, 0], :]),
    "dynamic_conv": (_program("tensor<?x1x1xf32>", "tensor<?x1x1xf32>", """\
  %w = stablehlo.constant dense<[[[1.0]], [[2.0]], [[4.0]]]> : tensor<3x1x1xf32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %hi = stablehlo.subtract %n, %n : tensor<1xi32>
  %p0 = stablehlo.concatenate %c1, %hi, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %p = stablehlo.reshape %p0 : (tensor<2xi32>) -> tensor<1x2xi32>
  %r = "stablehlo.dynamic_conv"(%x, %w, %p) {dimension_numbers = #stablehlo.conv<[0, b, f]x[0, i, o]->[0, b, f]>, window_strides = array<i64: 1>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<?x1x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi32>) -> tensor<?x1x1xf32>
"""), (6, 1, 1), lambda x: np.correlate(np.concatenate([[0], x[:, 0, 0]]), [1.0, 2.0, 4.0], "valid")
        .astype(np.float32)[:, None, None]),
}


def _refined(text: str, *shapes_and_types) -> ir.Module:
    """``text`` parsed and refined to the argument types ``(shape, element type)``."""
    module = hlokit.parse(text)
    with module.context, ir.Location.unknown():
        types = [ir.RankedTensorType.get(list(s), t()) for s, t in shapes_and_types]
        refine_arguments(module, types)
    return module


@pytest.mark.parametrize("name", sorted(DYNAMIC_OPS))
def test_dynamic_op_on_concrete_values_and_refined_on_xla(name):
    text, shape, reference = DYNAMIC_OPS[name]
    x = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)
    want = reference(x)
    # the interpreter, as given: the op's kernel reads the shape operands at run time
    dyn = hlokit.interpret(text.replace("@main", "@dyn"), [x], function="dyn")[0]
    np.testing.assert_array_equal(dyn, want)
    assert dyn.shape == want.shape and dyn.dtype == want.dtype
    # refined to the input's shape: the op is static (canonicalize-dynamism), XLA and the interpreter agree
    module = _refined(text, (shape, ir.F32Type.get))
    refined = str(module)
    assert f"stablehlo.{name}" not in refined and "?" not in refined, refined
    np.testing.assert_array_equal(np.asarray(backend.compile(module)(x)[0]), want)
    np.testing.assert_array_equal(hlokit.interpret(text, [x])[0], want)


def test_wrong_shape_operand_is_a_located_error():
    text = DYNAMIC_OPS["dynamic_broadcast_in_dim"][0].replace("tensor<3x?xf32>", "tensor<4x?xf32>") \
        .replace("dense<3> : tensor<1xi32>", "dense<4> : tensor<1xi32>").replace("%c3", "%c4")
    x = np.ones(5, np.float32)
    assert hlokit.interpret(text.replace("@main", "@dyn"), [x], function="dyn")[0].shape == (4, 5)
    bad = text.replace("dense<4> : tensor<1xi32>", "dense<2> : tensor<1xi32>").replace("@main", "@dyn")
    with pytest.raises(InterpreterError, match=r"output_dimensions \[2, 5\] does not match the result type"):
        hlokit.interpret(bad, [x], function="dyn")


def test_real_dynamic_slice_outside_the_operand_is_a_located_error():
    x = np.arange(5, dtype=np.float32)
    head = hlokit.interpret(DATA_DEPENDENT, [x, np.int32(5)])[0]
    np.testing.assert_array_equal(head, x)
    text = DATA_DEPENDENT.replace("@stablehlo.dynamic_top_k(%x, %k)", "@stablehlo.dynamic_top_k(%x, %zero_k)").replace(
        "  %top:2", "  %zero_k = stablehlo.constant dense<0> : tensor<i32>\n  %top:2")
    with pytest.raises(InterpreterError, match=r":6:\d+: error: 'stablehlo.real_dynamic_slice' start \[0\], limit \[6\]"):
        hlokit.interpret(text, [x, np.int32(6)])


DATA_DEPENDENT = """
func.func @main(%x: tensor<?xf32>, %k: tensor<i32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xi32>) {
  %zero = stablehlo.constant dense<0> : tensor<1xi32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %limit = stablehlo.reshape %k : (tensor<i32>) -> tensor<1xi32>
  %head = stablehlo.real_dynamic_slice %x, %zero, %limit, %one : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %top:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) {api_version = 2 : i32} : (tensor<?xf32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)
  return %head, %top#0, %top#1 : tensor<?xf32>, tensor<?xf32>, tensor<?xi32>
}
"""


def test_shapes_refinement_cannot_make_static_run_on_the_concrete_values():
    """@main's results depend on an argument's value: refinement gives the arguments their shapes and leaves
    the results dynamic (the top_k call stays); the interpreter runs it."""
    module = _refined(DATA_DEPENDENT, ((5,), ir.F32Type.get), ((), lambda: ir.IntegerType.get_signless(32)))
    assert "@stablehlo.dynamic_top_k" in str(module)
    x = np.array([3.0, -1.0, 7.0, 7.0, 0.5], np.float32)
    head, values, indices = hlokit.interpret(DATA_DEPENDENT, [x, np.int32(3)])
    np.testing.assert_array_equal(head, x[:3])
    np.testing.assert_array_equal(values, [7.0, 7.0, 3.0])
    np.testing.assert_array_equal(indices, np.array([2, 3, 0], np.int32))
    top_k_only = DATA_DEPENDENT.replace("%limit, %one", "%one, %one")
    with pytest.raises(InterpreterError, match=r":7:\d+: error: 'stablehlo.dynamic_top_k': k = 6 outside \[0, 5\]"):
        hlokit.interpret(top_k_only, [x, np.int32(6)])


def test_top_k_orders_nan_first_and_keeps_ties_in_order():
    """chlo.top_k's order (XLA TopK: descending total order, stable), as the static lowering computes it."""
    x = np.array([[1.0, np.nan, -0.0, 0.0, np.inf, 1.0]], np.float32)
    text = """
func.func @main(%x: tensor<1x6xf32>, %k: tensor<i32>) -> (tensor<1x?xf32>, tensor<1x?xi32>) {
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<1x6xf32>, tensor<i32>) -> (tensor<1x?xf32>, tensor<1x?xi32>)
  return %r#0, %r#1 : tensor<1x?xf32>, tensor<1x?xi32>
}
"""
    values, indices = hlokit.interpret(text, [x, np.int32(6)])
    np.testing.assert_array_equal(indices, [[1, 4, 0, 5, 3, 2]])
    static = hlokit.parse(text.replace("%k: tensor<i32>", "%k: tensor<i32>").replace(
        "stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k)", "chlo.top_k(%x, k = 6)").replace(
        " : (tensor<1x6xf32>, tensor<i32>) -> (tensor<1x?xf32>, tensor<1x?xi32>)",
        " : tensor<1x6xf32> -> (tensor<1x6xf32>, tensor<1x6xi32>)").replace("tensor<1x?", "tensor<1x6"))
    want = backend.compile(static)(x, np.int32(6))
    np.testing.assert_array_equal(indices, np.asarray(want[1]))
    np.testing.assert_array_equal(values.view(np.int32), np.asarray(want[0]).view(np.int32))


def test_static_custom_calls_leaves_calls_with_computed_shapes():
    module = hlokit.parse(DATA_DEPENDENT)
    with module.context, ir.Location.unknown():
        assert static_custom_calls(module) == 0
    assert "@stablehlo.dynamic_top_k" in str(module)


REDUCE_WINDOW = """
func.func @main(%x: tensor<5x4xf32>, %y: tensor<5x4xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {
  %init = stablehlo.constant dense<-1.5> : tensor<f32>
  %iinit = stablehlo.constant dense<0> : tensor<i32>
  %dims = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %strides = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  %base = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  %window = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %pad = stablehlo.constant dense<[[1, 2], [-1, 3]]> : tensor<2x2xi32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %y, %init, %iinit, %dims, %strides, %base, %window, %pad) {called_computations = [@body]} : (tensor<5x4xf32>, tensor<5x4xi32>, tensor<f32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xi32>
}
func.func private @body(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %m = stablehlo.maximum %a, %c : tensor<f32>
  %s = stablehlo.subtract %b, %d : tensor<i32>
  return %m, %s : tensor<f32>, tensor<i32>
}
"""


def test_dynamic_reduce_window_strides_dilations_padding_match_xla():
    """Strides, base and window dilations, negative and positive padding; a max (any schedule) and a
    subtraction from 0 (the schedule: init, then the window in row-major order, as XLA CPU folds; XLA CPU
    skips the padding elements, which the spec pads with the init value: with 0, ``a - 0 = a`` either way)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = rng.integers(-50, 50, (5, 4)).astype(np.int32)
    got = hlokit.interpret(REDUCE_WINDOW, [x, y])  # as given: @main has static arguments
    module = _refined(REDUCE_WINDOW, ((5, 4), ir.F32Type.get), ((5, 4), lambda: ir.IntegerType.get_signless(32)))
    assert "dynamic_reduce_window" not in str(module) and "stablehlo.reduce_window" in str(module)
    want = [np.asarray(v) for v in backend.compile(module)(x, y)]
    assert got[0].shape == (6, 2)  # padded 12 x 6; windows 2 (stride 2) x 3 dilated by 2 (span 5)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


# ----------------------------------------------------------------------------------------------------------
# JAX's back-compatibility data: modules jax exported with these custom calls, with the outputs recorded


def _case_files(tmp_path, case):
    path = tmp_path / "case.mlirbc"
    path.write_bytes(case.serialized)
    np.savez(tmp_path / "in.npz", **{f"arg_{i}": a for i, a in enumerate(case.inputs)})
    np.savez(tmp_path / "exp.npz", **{f"output_{i}": a for i, a in enumerate(case.expected)})
    return str(path), str(tmp_path / "in.npz"), str(tmp_path / "exp.npz")


@pytest.mark.parametrize("stem", ["stablehlo_dynamic_top_k", "stablehlo_dynamic_approx_top_k",
                                  "stablehlo_dynamic_rng_bit_generator", "tpu_stablehlo_dynamic_reduce_window"])
def test_back_compat_cases_on_both_engines(stem, tmp_path, capsys):
    for case in jax_back_compat.load(stem):
        if case.name.endswith("data_variadic_2023_06_17"):
            continue  # (its reducer is not associative: test_variadic_reduce_window)
        module, inputs, expected = _case_files(tmp_path, case)
        for engine in ("xla", "interpreter"):
            rc = hlokit_run.main([module, "--inputs", inputs, "--engine", engine, "--expected", expected])
            out, err = capsys.readouterr()
            assert rc == 0, f"{case.name} on {engine}: {err}"
            assert "refined @main" in out
        # the interpreter on the program as given: the custom calls' own kernels
        got = hlokit.interpret(case.text.replace("@main(", "@as_given("), list(case.inputs), function="as_given")
        for g, e in zip(got, case.expected):
            np.testing.assert_array_equal(g, e, err_msg=case.name)


def test_variadic_reduce_window():
    """jax's variadic ``reduce_window`` (f32 add, i32 subtract; window (2, b), b = 3). The spec leaves the
    schedule to the implementation, init values included ("an implementation-defined amount of
    init_values"): the recorded TPU output_0 is each window's sum + 9 (the init value 1 nine times); XLA CPU
    and hlokit fold init then the elements in order: sum + 1, and output_1 = 2 - sum."""
    (case,) = [c for c in jax_back_compat.load("tpu_stablehlo_dynamic_reduce_window") if "variadic" in c.name]
    x, y = case.inputs
    sums = np.array([[x[i:i + 2, j:j + 3].sum() for j in range(2)] for i in range(2)], np.float32)
    ysums = np.array([[y[i:i + 2, j:j + 3].sum() for j in range(2)] for i in range(2)], np.int32)
    np.testing.assert_array_equal(case.expected[0], sums + 9)
    module = _refined(case.text, (x.shape, ir.F32Type.get), (y.shape, lambda: ir.IntegerType.get_signless(32)))
    xla = [np.asarray(v) for v in backend.compile(module)(x, y)]
    np.testing.assert_array_equal(xla[0], sums + 1)
    np.testing.assert_array_equal(xla[1], 2 - ysums)
    np.testing.assert_array_equal(hlokit.interpret(case.text, [x, y])[0], sums + 1)
    as_given = hlokit.interpret(case.text.replace("@main(", "@as_given("), [x, y], function="as_given")
    np.testing.assert_array_equal(as_given[0], sums + 1)
    np.testing.assert_array_equal(as_given[1], 2 - ysums)


def test_shape_assertion_fails_with_jax_message_in_a_program_run_as_given():
    (case,) = jax_back_compat.load("stablehlo_dynamic_approx_top_k")
    text = case.text.replace("@main(", "@as_given(")
    with pytest.raises(InterpreterError, match=r"Expected value >= 1 for dimension variable 'b'.*'b' = -1 .*\(= 3\)"):
        hlokit.interpret(text, [np.ones(3, np.float32)], function="as_given")


# ----------------------------------------------------------------------------------------------------------
# jax.export with symbolic shapes, run by hlokit-run on inputs of concrete shapes


def _reduce_window(x):  # a cumulative sum: window and padding in the symbolic size
    return lax.reduce_window(x, 0.0, lax.add, (x.shape[0], 1), (1, 1), ((x.shape[0] - 1, 0), (0, 0)))


def _top_k(x):
    return lax.top_k(x, x.shape[1] - 1)


def _approx_max_k(x):  # shape b + 4, k = b
    return lax.approx_max_k(x, x.shape[0] - 4)


def _random_bits(key, x):  # jax.random with the rng_bit_generator implementation
    return jax.random.bits(jax.random.wrap_key_data(key, impl="unsafe_rbg"), (2 * x.shape[0], 3))


def _reshape(x):
    return jnp.reshape(x, (-1, 2)) * 2.0


def _s(spec, dtype=np.float32):
    return jax.ShapeDtypeStruct(export.symbolic_shape(spec), dtype)


EXPORTS = {
    "reduce_window": (_reduce_window, [_s("b, 4")], lambda r: [np.arange(20, dtype=np.float32).reshape(5, 4)]),
    "top_k": (_top_k, [_s("3, b")], lambda r: [r.standard_normal((3, 6)).astype(np.float32)]),
    "approx_max_k": (_approx_max_k, [_s("b + 4")], lambda r: [r.standard_normal(11).astype(np.float32)]),
    "random_bits": (_random_bits, [jax.ShapeDtypeStruct((4,), np.uint32), _s("b, 2")],
                    lambda r: [np.array([1, 2, 3, 4], np.uint32), np.zeros((5, 2), np.float32)]),
    "reshape": (_reshape, [_s("b, 4")], lambda r: [r.standard_normal((3, 4)).astype(np.float32)]),
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_symbolic_export_runs_like_jax(name, tmp_path, capsys):
    fn, specs, make = EXPORTS[name]
    exported = export.export(jax.jit(fn))(*specs)
    path = tmp_path / "f.mlir"
    path.write_text(exported.mlir_module())
    args = make(np.random.default_rng(0))
    np.savez(tmp_path / "in.npz", **{f"arg_{i}": a for i, a in enumerate(args)})
    want = exported.call(*args)
    want = [np.asarray(w) for w in (want if isinstance(want, (list, tuple)) else [want])]
    for engine in ("xla", "interpreter"):
        out_npz = tmp_path / f"{engine}.npz"
        rc = hlokit_run.main([str(path), "--inputs", str(tmp_path / "in.npz"), "--engine", engine,
                              "--output", str(out_npz)])
        out, err = capsys.readouterr()
        assert rc == 0, f"{engine}: {err}"
        got = np.load(out_npz)
        for i, w in enumerate(want):
            np.testing.assert_array_equal(got[f"output_{i}"], w, err_msg=f"{name} output {i} on {engine}")
