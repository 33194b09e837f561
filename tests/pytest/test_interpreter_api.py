"""hlokit.interpret, the check/interpreter dialects and ``hlokit-translate --interpret``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import hlokit
from hlokit.dialects.check import to_generic
from hlokit.interpreter.check_ops import ulp_distance
from hlokit.interpreter import InterpreterError
from hlokit.interpreter.values import (
    TOKEN,
    dtype_of,
    format_dense,
    format_value,
    parse_dense,
    to_array,
    to_attr,
)

ADD = """
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}
"""


def test_interpret_text_path_and_module(tmp_path):
    a = np.array([1, 2], np.int32)
    b = np.array([10, 20], np.int32)
    (r,) = hlokit.interpret(ADD, [a, b])
    assert r.dtype == np.int32 and r.tolist() == [11, 22]
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    assert hlokit.interpret(str(path), [a, b])[0].tolist() == [11, 22]
    assert hlokit.interpret(path, [a, b])[0].tolist() == [11, 22]
    module = hlokit.parse(ADD, context=hlokit.make_context())
    assert hlokit.interpret(module, [a, b])[0].tolist() == [11, 22]


def test_interpret_is_exported_lazily():
    assert "interpret" in hlokit.__all__ and "InterpreterError" in hlokit.__all__
    assert issubclass(hlokit.InterpreterError, hlokit.HlokitError)


def test_argument_mismatch_is_a_located_error():
    with pytest.raises(InterpreterError) as e:
        hlokit.interpret(ADD, [np.array([1, 2], np.int64), np.array([1, 2], np.int32)])
    assert "argument #0" in str(e.value) and "tensor<2xi64>" in str(e.value)
    assert ":2:" in str(e.value)  # the function's line
    with pytest.raises(InterpreterError, match="takes 2 arguments, got 1"):
        hlokit.interpret(ADD, [np.array([1, 2], np.int32)])
    with pytest.raises(InterpreterError, match="cannot pass a str"):
        hlokit.interpret(ADD, ["x", "y"])


def test_failed_check_raises_at_the_check_line():
    prog = textwrap.dedent(
        """\
        func.func @main() {
          %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
          check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi32>
          func.return
        }
        """
    )
    with pytest.raises(InterpreterError) as e:
        hlokit.interpret(prog)
    d = e.value.diagnostics[0]
    assert (d.line, d.col) == (3, 3)
    assert "check.expect_eq_const failed" in d.message and "element [1] is 2, expected 3" in d.message


def test_unknown_function_and_single_function_default():
    one = ADD.replace("@main", "@f")
    a = np.array([1, 2], np.int32)
    assert hlokit.interpret(one, [a, a])[0].tolist() == [2, 4]
    with pytest.raises(InterpreterError, match="function '@g' not found"):
        hlokit.interpret(one, [a, a], function="g")


def test_unsupported_custom_call_is_reported():
    prog = """
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.custom_call @my_kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    with pytest.raises(InterpreterError, match="unsupported custom_call @my_kernel"):
        hlokit.interpret(prog, [np.zeros(2, np.float32)])


def test_custom_call_check_forms():
    prog = """
    func.func @main(%a: tensor<2xf32>) {
      %e = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %n = stablehlo.constant dense<[1.0000001, 2.0000002]> : tensor<2xf32>
      %f = stablehlo.constant dense<[1.0005, 2.0]> : tensor<2xf32>
      stablehlo.custom_call @check.expect_eq(%a, %e) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      stablehlo.custom_call @check.expect_close(%a, %n) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      stablehlo.custom_call @check.expect_almost_eq(%a, %f) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      return
    }"""
    hlokit.interpret(prog, [np.array([1, 2], np.float32)])
    with pytest.raises(InterpreterError, match="check.expect_eq failed"):
        hlokit.interpret(prog, [np.array([1, 2.5], np.float32)])
    far = prog.replace("1.0000001, 2.0000002", "1.0001, 2.0")
    with pytest.raises(InterpreterError, match="check.expect_close failed"):
        hlokit.interpret(far, [np.array([1, 2], np.float32)])


def test_check_custom_syntax_rewrite_keeps_lines():
    text = textwrap.dedent(
        """\
        %r = stablehlo.constant dense<1.0> : tensor<2xf32>
          check.expect_almost_eq_const %r, dense<[1.0,
                                                  1.0]> : tensor<2xf32> {tolerance = 0.1 : f64}
          check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
          check.expect_almost_eq %a, %b, tolerance = 1 : tensor<f64>
          check.expect_serialized_eq %3, probe_id = "p", iter = 2 : tensor<3xi1>
        """
    )
    out = to_generic(text)
    assert out.count("\n") == text.count("\n")
    lines = out.splitlines()
    assert lines[1].strip().startswith('"check.expect_almost_eq_const"(%r) {value = dense<[1.0,')
    assert "tolerance = 0.1 : f64} : (tensor<2xf32>) -> ()" in lines[2]
    assert lines[3].strip() == '"check.expect_close"(%a, %b) {max_ulp_difference = 3 : i64} : (tensor<f16>, tensor<f16>) -> ()'
    assert "tolerance = 1.0 : f64" in lines[4]
    assert '{probe_id = "p", iter = 2 : i64}' in lines[5]


def test_almost_eq_tolerance_and_nan():
    prog = """
    func.func @main() {
      %0 = stablehlo.constant dense<[5.0, 0x7FC00000]> : tensor<2xf32>
      check.expect_almost_eq_const %0, dense<[5.05, 0x7FC00000]> : tensor<2xf32> {tolerance = 0.1 : f64}
      func.return
    }"""
    hlokit.interpret(prog)
    with pytest.raises(InterpreterError, match="expect_almost_eq_const failed"):
        hlokit.interpret(prog.replace(" {tolerance = 0.1 : f64}", ""))  # default 1e-4


def test_tokens_and_tuples_cross_the_api():
    prog = """
    func.func @main(%t: !stablehlo.token, %x: tuple<tensor<i32>, tensor<2xf32>>) -> (!stablehlo.token, tensor<2xf32>) {
      %0 = stablehlo.get_tuple_element %x[1] : (tuple<tensor<i32>, tensor<2xf32>>) -> tensor<2xf32>
      return %t, %0 : !stablehlo.token, tensor<2xf32>
    }"""
    tok, r = hlokit.interpret(prog, [TOKEN, (np.array(3, np.int32), np.array([1, 2], np.float32))])
    assert tok is TOKEN and r.tolist() == [1.0, 2.0]


def test_region_body_runs_on_whole_arrays():
    prog = """
    func.func @main(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<1000xf32> {
      %0 = "stablehlo.map"(%a, %b) ({
        ^bb0(%x: tensor<f32>, %y: tensor<f32>):
          %c = stablehlo.constant dense<2.0> : tensor<f32>
          %m = stablehlo.multiply %x, %c : tensor<f32>
          %s = stablehlo.add %m, %y : tensor<f32>
          stablehlo.return %s : tensor<f32>
      }) {dimensions = array<i64: 0>} : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
      return %0 : tensor<1000xf32>
    }"""
    from hlokit.interpreter import registry

    calls = []
    original = registry.OPS["stablehlo.multiply"]
    registry.OPS["stablehlo.multiply"] = registry.OpImpl(lambda op, v, i: calls.append(v[0].shape) or original.run(op, v, i))
    try:
        a = np.arange(1000, dtype=np.float32)
        (r,) = hlokit.interpret(prog, [a, np.ones(1000, np.float32)])
    finally:
        registry.OPS["stablehlo.multiply"] = original
    assert np.array_equal(r, 2 * a + 1)
    assert calls == [(1000,)]  # one call on the whole array, not one per element


def test_values_round_trip_every_element_type(ctx):
    from jaxlib.mlir import ir

    cases = {
        "i1": [True, False], "i2": [1, -2], "i4": [7, -8], "ui4": [15, 0], "ui2": [3, 1],
        "i8": [-128, 127], "ui64": [2**64 - 1, 0], "bf16": [1.5, -0.0], "f16": [65504.0, 1e-3],
        "f8E4M3FN": [448.0, -0.5], "f8E5M2": [57344.0, 1.0], "f8E4M3FNUZ": [1.0, 2.0],
        "f8E5M2FNUZ": [1.0, 2.0], "f8E4M3B11FNUZ": [1.0, 2.0], "f8E4M3": [1.0, 2.0],
        "f8E3M4": [1.0, 2.0], "f8E8M0FNU": [1.0, 4.0], "f4E2M1FN": [6.0, -0.5],
        "f6E2M3FN": [7.5, 1.0], "f6E3M2FN": [28.0, -1.0], "f32": [1.0, -2.0], "f64": [0.1, 3.0],
    }
    with ctx, ir.Location.unknown():
        for name, vals in cases.items():
            dt = dtype_of(name)
            arr = np.array(vals).astype(dt)
            attr = to_attr(arr)
            assert str(attr).endswith(f"tensor<2x{name}>"), (name, str(attr))
            back = to_array(attr)
            assert back.dtype == dt and back.tobytes() == arr.tobytes(), name
            assert parse_dense(str(attr), dt, (2,)).tobytes() == arr.tobytes(), name


def test_parse_dense_keeps_nan_payloads_and_complex():
    a = parse_dense("dense<[0x7FC00001, -0.000000e+00]>", np.dtype(np.float32), (2,))
    assert a.view(np.uint32).tolist() == [0x7FC00001, 0x80000000]
    c = parse_dense("dense<[(1.0, 2.0), (3.0, -4.0)]>", np.dtype(np.complex64), (2,))
    assert c.tolist() == [1 + 2j, 3 - 4j]
    h = parse_dense('dense<"0x0100000002000000">', np.dtype(np.int32), (2,))
    assert h.tolist() == [1, 2]


def test_printing_formats():
    assert format_value(np.array(1, np.uint8)) == "tensor<ui8> {1}"
    assert format_value(np.array([[1, 2], [3, 4]], np.int8)) == "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}"
    assert format_dense(np.array([1.0, 2.0], np.float32)) == "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>"
    assert format_dense(np.full(4, 3.14 + 1j, np.complex64)) == "dense<(3.140000e+00,1.000000e+00)> : tensor<4xcomplex<f32>>"


def test_ulp_distance():
    one = np.array([1.0], np.float32)
    nxt = np.nextafter(one, np.float32(2))
    assert ulp_distance(one, nxt).tolist() == [1]
    assert ulp_distance(np.array([0.0], np.float32), np.array([-0.0], np.float32)).tolist() == [0]
    tiny = np.array([np.float32(1e-45)])
    assert ulp_distance(tiny, -tiny).tolist() == [2]


def test_probe_and_expect_serialized_eq(tmp_path):
    prog = """
    func.func @main() {
      %0 = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xbf16>
      %1 = interpreter.probe %0, probe_id = "p/1" : tensor<2xbf16>
      check.expect_serialized_eq %1, probe_id = "p/1" : tensor<2xbf16>
      func.return
    }"""
    hlokit.interpret(prog, probe_dir=str(tmp_path))
    assert (tmp_path / "p_1_0.bin").read_bytes() == np.array([1.5, -2.0], ml_dtypes.bfloat16).tobytes()
    assert "p/1,tensor<2xbf16>," in (tmp_path / "index.csv").read_text()
    with pytest.raises(InterpreterError, match="probe directory"):
        hlokit.interpret(prog)


def test_interpreter_print(capsys):
    import io

    out = io.StringIO()
    prog = """
    func.func @main() {
      %0 = stablehlo.iota dim = 0 : tensor<3xi32>
      interpreter.print %0 : tensor<3xi32>
      func.return
    }"""
    hlokit.interpret(prog, out=out)
    assert out.getvalue() == "%0 = tensor<3xi32> {\n  [0, 1, 2]\n}\n"


def test_unregistered_ops_are_errors_unless_check():
    prog = """
    func.func @main() {
      "foo.bar"() : () -> ()
      func.return
    }"""
    with pytest.raises(hlokit.HlokitError, match="'foo.bar' op is unregistered"):
        hlokit.interpret(prog)


def _translate(*args, input_text=None):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run(
        [sys.executable, "-c", "from hlokit.tools.hlokit_translate import main; raise SystemExit(main())", *args],
        capture_output=True, text=True, input=input_text, env=env, timeout=120,
    )


def test_translate_interpret_args_and_errors(tmp_path):
    f = tmp_path / "add.mlir"
    f.write_text(ADD)
    p = _translate(str(f), "--interpret", "--args=[dense<1> : tensor<2xi32>, dense<[2, 3]> : tensor<2xi32>]")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "tensor<2xi32> {\n  [3, 4]\n}\n"
    p = _translate(str(f), "--interpret", "--interpreter-print-dense", "--args=[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]")
    assert p.stdout.strip() == "dense<3> : tensor<2xi32>"
    p = _translate(str(f), "--interpret", "--args=not_array")
    assert p.returncode == 1 and "expectected array attribute string for args" in p.stderr
    p = _translate(str(f), "--interpret", "--args=[4.0 : f32]")
    assert p.returncode == 1 and "expected dense elements attribute for args elements" in p.stderr
    p = _translate(str(f), "--interpret", "--args=[dense<1> : tensor<2xi64>, dense<2> : tensor<2xi32>]")
    assert p.returncode == 1 and f"{f}:2:" in p.stderr and "argument #0" in p.stderr
    assert "Traceback" not in p.stderr


def test_translate_failed_check_exits_1_and_goes_on(tmp_path):
    f = tmp_path / "checks.mlir"
    f.write_text(
        "func.func @a() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
        "  check.expect_eq_const %0, dense<2> : tensor<i32>\n  func.return\n}\n"
        "// -----\n"
        "func.func @b() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
        "  check.expect_eq_const %0, dense<1> : tensor<i32>\n  interpreter.print %0 : tensor<i32>\n  func.return\n}\n"
    )
    p = _translate(str(f), "--interpret", "-split-input-file")
    assert p.returncode == 1
    assert f"{f}:3:3: error: check.expect_eq_const failed" in p.stderr
    assert "%0 = tensor<i32> {1}" in p.stdout  # the second chunk still ran


def test_a_result_larger_than_memory_is_a_located_out_of_memory_error():
    # 3.6 PiB: refused before numpy allocates (where the kernel overcommits memory, numpy's own allocation of
    # 36 TiB succeeded on a GPU machine and filling it killed the process)
    text = """func.func @main(%a: tensor<f32>) -> tensor<100000x100000x100000xf32> {
  %c = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<100000x100000x100000xf32>
  return %c : tensor<100000x100000x100000xf32>
}"""
    with pytest.raises(hlokit.interpreter.InterpreterError) as exc:
        hlokit.interpret(text, [np.float32(1)])
    assert "out of memory: its results need 3.725e+06 GiB, more than this machine's" in str(exc.value)
    assert ":2:" in str(exc.value)


def test_a_result_just_over_physical_memory_is_refused_before_allocating():
    # a result a little over the machine's memory, well inside the address space: refused with the guard's
    # message (not numpy's), where the kernel would grant the allocation too
    from hlokit.interpreter.registry import MEMORY_LIMIT

    n = MEMORY_LIMIT // 4 + 1  # f32 elements
    text = f"""func.func @main(%a: tensor<f32>) -> tensor<{n}xf32> {{
  %c = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<{n}xf32>
  return %c : tensor<{n}xf32>
}}"""
    with pytest.raises(hlokit.interpreter.InterpreterError) as exc:
        hlokit.interpret(text, [np.float32(1)])
    assert "out of memory: its results need" in str(exc.value) and ":2:" in str(exc.value)
    small = """func.func @main(%a: tensor<f32>) -> tensor<1000xf32> {
  %c = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<1000xf32>
  return %c : tensor<1000xf32>
}"""
    assert hlokit.interpret(small, [np.float32(2)])[0].shape == (1000,)


def test_one_array_for_args_is_a_clear_error():
    """``hlokit.interpret(program, x)`` instead of ``[x]``: a TypeError saying so (numpy's ambiguous truth value
    error before)."""
    import numpy as np

    import hlokit
    text = ("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
    with pytest.raises(TypeError, match=r"one entry per function argument \(e.g. \[x\]\), not a single ndarray"):
        hlokit.interpret(text, np.ones(4, np.float32))
    with pytest.raises(TypeError, match="not a single float"):
        hlokit.interpret(text, 1.0)
    (out,) = hlokit.interpret(text, [np.ones(4, np.float32)])
    assert out.tolist() == [2.0] * 4
