"""The IR-building layer (hlokit.passes.builder): each feature yields verified IR with the right result."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import hlokit
from hlokit.passes.builder import (
    ANY_SHAPE,
    ComparisonDirection,
    Emitter,
    Precision,
    UnsupportedError,
    fill_shape,
    float_literal,
    shape_prefix,
)


def _run(e: Emitter, args, results, inputs):
    """Parse the emitter's function as ``@main`` (verified), run it in hlokit's interpreter."""
    text = e.text("main", args, results).replace("func.func private @main", "func.func @main")
    module = hlokit.parse(text)
    hlokit.verify(module)
    return hlokit.interpret(module, [np.asarray(x) for x in inputs])


def test_shape_prefix_and_shapes_given_as_text_refused():
    assert shape_prefix([2, -1, 3]) == "2x?x3x" and shape_prefix(()) == "" and shape_prefix(ANY_SHAPE) == "$S"
    with pytest.raises(UnsupportedError, match="not the text '2x3x'"):
        Emitter().args([("2x3x", "f32")])


@pytest.mark.parametrize(
    "t, value, expect",
    [
        ("f32", 1.5, np.float32(1.5)),
        ("f64", -0.1, np.float64(-0.1)),
        ("f16", math.inf, np.float16(np.inf)),
        ("bf16", -math.inf, np.array(-np.inf, dtype=ml_dtypes.bfloat16)),
        ("i1", True, np.bool_(True)),
        ("ui8", 255, np.uint8(255)),
        ("i64", -7, np.int64(-7)),
        ("complex<f32>", 1 - 2j, np.complex64(1 - 2j)),
    ],
)
def test_constants_of_any_element_type(t, value, expect):
    e = Emitter()
    c = e.const(value, t=t, shape=(2,))
    (r,) = _run(e, [], [c], [])
    assert r.shape == (2,)
    np.testing.assert_array_equal(np.asarray(r), np.full((2,), expect))


def test_float_literals_of_small_floats_and_nan():
    assert float_literal(math.nan, "f32") == "0x7FC00000"
    assert float_literal(math.inf, "f8E5M2") == "0x7c"
    assert int(float_literal(math.nan, "f8E4M3FN"), 16) == 0x7F
    e = Emitter()
    c = e.const(math.nan, t="f8E4M3FN", shape=())
    d = e.const(2.0, t="f8E4M3FN", shape=())
    hlokit.verify(hlokit.parse(e.text("f", [], [c, d])))


def test_arithmetic_compare_select_and_constant_reuse():
    e = Emitter(loc="test.op")
    (x,) = e.args([((4,), "f32")])
    y = e.select(x.lt(0.0), -x, x * 2.0 + 1.0)
    text = e.text("main", [x], [y])
    assert text.count("dense<0.0") == 1 and 'loc("test.op")' in text
    (r,) = _run(e, [x], [y], [np.array([-1, 0, 1, 2], np.float32)])
    np.testing.assert_array_equal(r, [1, 1, 3, 5])


def test_shape_ops():
    e = Emitter()
    (x,) = e.args([((2, 3), "f32")])
    b = e.broadcast_in_dim(e.iota([3], 0, "f32"), [2, 3])  # trailing alignment
    s = x + b
    t = e.transpose(s, [1, 0])  # 3x2
    r = e.reshape(t, [6])
    c = e.concatenate([r, e.slice(r, [0], [4], [2])], 0)  # 8
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = _run(e, [x], [c], [xv])
    want = (xv + np.arange(3)).T.reshape(6)
    np.testing.assert_array_equal(out, np.concatenate([want, want[0:4:2]]))


def test_dot_general_and_reduce_with_a_callable_body():
    e = Emitter()
    a, b = e.args([((2, 3, 4), "f32"), ((2, 4, 5), "f32")])
    d = e.dot_general(a, b, [0], [0], [2], [1])  # 2x3x5
    assert d.shape == [2, 3, 5]
    (m,) = e.reduce([d], [e.scalar(-math.inf, "f32")], [2], lambda acc, v: e.maximum(acc, v))
    s = e.reduce_sum(d, [1, 2])
    rng = np.random.default_rng(0)
    av, bv = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    rm, rs = _run(e, [a, b], [m, s], [av, bv])
    ref = np.einsum("bik,bkj->bij", av, bv)
    np.testing.assert_allclose(rm, ref.max(axis=2), rtol=1e-5)
    np.testing.assert_allclose(rs, ref.sum(axis=(1, 2)), rtol=1e-4, atol=1e-5)


def test_sort_with_a_comparator():
    e = Emitter()
    (x,) = e.args([((5,), "f32")])
    idx = e.iota([5], 0, "i32")
    vals, inds = e.sort([x, idx], 0, lambda a, b, c, d: e.compare("GT", a, b, "TOTALORDER"))
    (rv, ri) = _run(e, [x], [vals, inds], [np.array([3, 1, 4, 1, 5], np.float32)])
    np.testing.assert_array_equal(rv, [5, 4, 3, 1, 1])
    np.testing.assert_array_equal(ri, [4, 2, 0, 1, 3])


def test_while_loop_with_dynamic_slice_and_update():
    """Reverse a vector: out[n-1-i] = x[i] for i in 0..n-1, loop-carried (i, out)."""
    n = 6
    e = Emitter()
    (x,) = e.args([((n,), "i32")])
    out0 = e.const(0, t="i32", shape=(n,))

    def cond(i, out):
        return i.lt(e.scalar(n, "i64"))

    def body(i, out):
        el = e.dynamic_slice(x, [i], [1])
        j = e.scalar(n - 1, "i64") - i
        return [i + 1, e.dynamic_update_slice(out, el, [j])]

    _, res = e.while_([e.scalar(0, "i64"), out0], cond, body)
    (r,) = _run(e, [x], [res], [np.arange(n, dtype=np.int32)])
    np.testing.assert_array_equal(r, np.arange(n)[::-1])


def test_dynamic_shapes():
    e = Emitter()
    (x,) = e.args([((2, -1), "f32")])
    shape = e.shape_of(x, [2, -1])
    one = e.dynamic_broadcast_in_dim(e.scalar(1.0, "f32"), shape, [2, -1], [])
    e.shape_tensor = shape
    y = x + one + 1.0  # the splat constant follows the runtime shape
    n = e.get_dimension_size(x, 1)
    ry, rn = _run(e, [x], [y, n], [np.zeros((2, 3), np.float32)])
    np.testing.assert_array_equal(np.asarray(ry), np.full((2, 3), 2.0))
    assert int(np.asarray(rn)) == 3


def test_splice_point_is_a_placeholder_custom_call():
    e = Emitter()
    (x,) = e.args([((3,), "f32")])
    (y,) = e.splice_point("__body", [x], [((3,), "f32")])
    text = e.text("f", [x], [y])
    assert 'call_target_name = "__body"' in text
    hlokit.verify(hlokit.parse(text))


def test_values_carry_shape_tuples_and_shape_independent_marker():
    e = Emitter()
    x, y = e.args([((2, -1), "f32"), (ANY_SHAPE, "bf16")])
    assert x.shape == [2, -1] and x.ty == "tensor<2x?xf32>"
    z = e.exponential(y) * 2.0  # elementwise ops keep the marker; the constant too
    assert z.ty == "tensor<$Sbf16>" and shape_prefix(ANY_SHAPE) == "$S"
    assert "dense<2.00000000000000000e+00> : tensor<$Sbf16>" in e.text("f", [y], [z])
    with pytest.raises(UnsupportedError, match="shape-independent"):
        y.shape
    with pytest.raises(UnsupportedError, match="shape-independent"):
        e.transpose(y, [0])


def test_elementwise_ops_by_spec_name_and_result_types():
    e = Emitter()
    z, i = e.args([((3,), "complex<f32>"), ((3,), "ui32")])
    assert e.abs(z).t == "f32" and e.real(z).t == "f32" and e.is_finite(e.real(z)).t == "i1"
    s = e.shift_right_logical(i, 1)  # a Python number becomes a splat of the other operand
    n = e.not_(e.and_(i, e.or_(i, e.xor(i, i))))
    text = e.text("f", [z, i], [s, n])
    for op in ("abs", "real", "is_finite", "shift_right_logical", "not", "and", "or", "xor"):
        assert f'"stablehlo.{op}"' in text
    assert e.elementwise("add", i, i).t == "ui32"
    with pytest.raises(UnsupportedError, match="not an elementwise StableHLO op"):
        e.elementwise("compare", i, i)
    hlokit.verify(hlokit.parse(text))


def test_compare_takes_enums_or_names_and_refuses_others():
    e = Emitter()
    x, y = e.args([((2,), "f32"), ((2,), "f32")])
    a = e.compare(ComparisonDirection.LT, x, y, "TOTALORDER")
    b = e.compare("GE", x, y)
    text = e.text("f", [x, y], [a, b])
    assert "comparison_direction = #stablehlo<comparison_direction LT>, " \
           "compare_type = #stablehlo<comparison_type TOTALORDER>" in text
    assert "comparison_direction = #stablehlo<comparison_direction GE>}" in text
    with pytest.raises(UnsupportedError, match="'LESS' is not a ComparisonDirection"):
        e.compare("LESS", x, y)
    with pytest.raises(UnsupportedError, match="not a ComparisonType"):
        e.compare("LT", x, y, "INTEGER")
    (ra, rb) = _run(e, [x, y], [a, b], [np.array([1, 3], np.float32), np.array([2, 2], np.float32)])
    np.testing.assert_array_equal(ra, [True, False])
    np.testing.assert_array_equal(rb, [False, True])


def test_pad_reverse_gather_and_dense_constant():
    e = Emitter()
    (x,) = e.args([((2, 3), "i32")])
    p = e.pad(x, e.scalar(-1, "i32"), [1, 0], [0, 2], [0, 1])  # 3 x 7
    assert p.shape == [3, 7]
    r = e.reverse(x, [1])
    idx = e.constant([2, 0], "i32")  # columns 2 and 0 of every row
    g = e.gather(x, idx, offset_dims=[0], collapsed_slice_dims=[1], start_index_map=[1], index_vector_dim=1,
                 slice_sizes=[2, 1])
    assert g.shape == [2, 2]
    xv = np.arange(6, dtype=np.int32).reshape(2, 3)
    rp, rr, rg = _run(e, [x], [p, r, g], [xv])
    want = np.full((3, 7), -1, np.int32)
    want[1:, 0:5:2] = xv
    np.testing.assert_array_equal(rp, want)
    np.testing.assert_array_equal(rr, xv[:, ::-1])
    np.testing.assert_array_equal(rg, xv[:, [2, 0]])


def test_dot_general_precision_cholesky_and_triangular_solve():
    e = Emitter()
    (a,) = e.args([((2, 2), "f64")])
    g = e.dot_general(a, a, [], [], [1], [1], precision=[Precision.HIGHEST, "DEFAULT"])  # a a^T
    c = e.cholesky(g, lower=True)
    s = e.triangular_solve(c, a, left_side=True, lower=True, unit_diagonal=False, transpose_a="NO_TRANSPOSE")
    text = e.text("f", [a], [c, s])
    assert "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]" in text
    assert "transpose_a = #stablehlo<transpose NO_TRANSPOSE>" in text
    with pytest.raises(UnsupportedError, match="not a Transpose"):
        e.triangular_solve(c, a, True, True, False, "N")
    av = np.array([[2.0, 0.0], [1.0, 3.0]])
    rc, rs = _run(e, [a], [c, s], [av])
    lower = np.linalg.cholesky(av @ av.T)
    np.testing.assert_allclose(np.tril(rc), lower, rtol=1e-12)
    np.testing.assert_allclose(rs, np.linalg.solve(lower, av), rtol=1e-12)


def test_custom_call_rng_bit_generator_and_all_reduce_attributes():
    e = Emitter()
    (x,) = e.args([((4,), "f32")])
    e.custom_call("check", [x], [], has_side_effect=True, api_version=2, strings={"error_message": 'say "no"'})
    state = e.constant([1, 2], "ui64")
    new_state, bits = e.rng_bit_generator(state, [3], "ui32", "THREE_FRY")
    (s,) = e.all_reduce([x], [[0]], lambda a, b: a + b)
    text = e.text("f", [x], [new_state, bits, s])
    assert ('call_target_name = "check", has_side_effect = true, api_version = 2 : i32, '
            'error_message = "say \\"no\\""') in text
    assert "rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>" in text and "tensor<3xui32>" in text
    assert "replica_groups = dense<[[0]]> : tensor<1x1xi64>" in text
    hlokit.verify(hlokit.parse(text))
    with pytest.raises(UnsupportedError, match="not a RngAlgorithm"):
        e.rng_bit_generator(state, [3], "ui32", "MT19937")


def test_dense_constants_are_not_shared_and_convert_with_a_shape():
    e = Emitter()
    (x,) = e.args([((-1,), "f32")])
    a, b = e.constant([3], "i32", shape=()), e.constant([3], "i32", shape=())
    assert a.n != b.n and a.shape == [] and e.constant([], "i64").shape == [0]
    assert e.convert(x, "f32") is x
    y = e.convert(x, "f32", shape=[2])  # a static shape refines the dynamic one: an op all the same
    text = e.text("f", [x], [a, b, y])
    assert "dense<3> : tensor<i32>" in text and "dense<> : tensor<0xi64>" in text
    assert '"stablehlo.convert"(%a0) : (tensor<?xf32>) -> tensor<2xf32>' in text


def test_a_shape_independent_template_filled_with_a_shape_parses():
    e = Emitter()
    (x,) = e.args([(ANY_SHAPE, "f32")])
    y = e.maximum(x, 0.0)
    text = fill_shape(e.text("f", [x], [y]), [2, 3])
    assert "$S" not in text and "tensor<2x3xf32>" in text
    hlokit.verify(hlokit.parse(text.replace("private ", "")))


def test_in_place_helpers_set_compare_type_and_replace_with_constant():
    from hlokit.passes.builder import find_ops, replace_with_constant, set_compare_type

    module = hlokit.parse(
        "func.func @f(%x: tensor<2xf32>) -> (tensor<2xi1>, tensor<2xf32>) {\n"
        "  %c = stablehlo.compare LT, %x, %x, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
        "  %n = stablehlo.negate %x : tensor<2xf32>\n"
        "  return %c, %n : tensor<2xi1>, tensor<2xf32>\n}")
    (cmp,) = find_ops(module.operation, {"stablehlo.compare"})
    set_compare_type(cmp, "FLOAT")
    (neg,) = find_ops(module.operation, {"stablehlo.negate"})
    with module.context:
        from jaxlib.mlir import ir
        replace_with_constant(neg, ir.DenseElementsAttr.get(np.array([1.0, 2.0], np.float32)))
    hlokit.verify(module)
    text = str(module)
    assert "FLOAT" in text and "TOTALORDER" not in text and "negate" not in text
    assert "stablehlo.constant dense<[1.000000e+00, 2.000000e+00]>" in text
