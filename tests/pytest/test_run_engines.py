"""hlokit-run --engine interpreter|xla|both: the differential run of hlokit's interpreter against XLA."""

from __future__ import annotations

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from hlokit.tools import hlokit_run
from hlokit.tools.hlokit_run import difference

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")

INT_PROGRAM = """func.func @main(%a: tensor<4x3xi32>, %b: tensor<3xi32>) -> (tensor<4x3xi32>, tensor<i32>) {
  %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xi32>) -> tensor<4x3xi32>
  %1 = stablehlo.multiply %a, %0 : tensor<4x3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xi32>, tensor<i32>) -> tensor<i32>
  return %1, %2 : tensor<4x3xi32>, tensor<i32>
}
"""


def test_both_engines_agree_exactly_on_an_integer_program(tmp_path, capsys):
    src = tmp_path / "p.mlir"
    src.write_text(INT_PROGRAM)
    out = tmp_path / "out.npz"
    assert hlokit_run.main([str(src), "--engine", "both", "--max-ulp", "0", "--output", str(out)]) == 0
    text = capsys.readouterr().out
    assert "engine: both" in text
    assert text.count("interpreter vs XLA: max 0 ULP, max |diff| 0") == 2
    assert "interpreter " in text.splitlines()[-1]  # the time line names the interpreter's time
    assert out.exists()


def test_interpreter_engine_writes_the_interpreters_results(tmp_path, capsys):
    src = tmp_path / "p.mlir"
    src.write_text(INT_PROGRAM)
    a = np.arange(12, dtype=np.int32).reshape(4, 3)
    b = np.array([1, -2, 3], np.int32)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg_0=a, arg_1=b)
    out = tmp_path / "out.npz"
    assert hlokit_run.main([str(src), "--engine", "interpreter", "--inputs", str(inputs), "--output", str(out)]) == 0
    text = capsys.readouterr().out
    assert "compile" not in text and "interpreter" in text  # XLA is not involved
    got = np.load(out)
    np.testing.assert_array_equal(got["output_0"], a * b)
    assert int(got["output_1"]) == int((a * b).sum())



def test_the_interpreter_engine_never_imports_jax(tmp_path):
    """``hlokit-run --engine interpreter`` (and ``import hlokit.backend``, its signature reading) run without
    importing jax: the XLA part of the backend loads on first use of ``backend.compile`` & co., which imports it."""
    src = tmp_path / "p.mlir"
    src.write_text(INT_PROGRAM)
    code = (
        "import sys\n"
        "from hlokit.tools import hlokit_run\n"
        "from hlokit import backend\n"
        f"assert hlokit_run.main([{str(src)!r}, '--engine', 'interpreter']) == 0\n"
        "assert 'compile' in dir(backend) and 'Executable' in dir(backend)\n"
        "assert 'jax' not in sys.modules, 'the interpreter engine imported jax'\n"
        "backend.compile\n"
        "assert 'jax' in sys.modules\n"
        "print('ok')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr[-2000:]


def test_max_ulp_fails_the_run_and_keeps_the_output_unwritten(tmp_path, capsys):
    """hlokit's CHLO expansions (lgamma, digamma, ...) are not XLA's: the engines differ by more than 0 ULP."""
    out = tmp_path / "out.npz"
    prog = os.path.join(EXAMPLES, "special_functions.mlir")
    assert hlokit_run.main([prog, "--engine", "both", "--max-ulp", "0", "--output", str(out)]) == 1
    captured = capsys.readouterr()
    assert "special_functions.mlir: error: --engine both: the interpreter and XLA differ by more than --max-ulp 0: output_" in captured.err
    assert "ULP" in captured.out
    assert not out.exists()
    # a bound both engines meet passes
    assert hlokit_run.main([prog, "--engine", "both", "--max-ulp", "1e9"]) == 0


@pytest.mark.parametrize("argv,message", [
    (["--max-ulp", "3"], "--max-ulp compares the engines: use it with --engine both"),
    (["--engine", "both", "--max-ulp", "-1"], "--max-ulp: expected a number >= 0, with --engine both"),
    (["--engine", "interpreter", "--max-steps", "-2"], "--max-steps: expected a number of iterations >= 0"),
    (["--engine", "both", "--num-processes", "2", "--coordinator", "127.0.0.1:1"], "the interpreter runs in one process"),
])
def test_engine_option_errors(tmp_path, capsys, argv, message):
    src = tmp_path / "p.mlir"
    src.write_text(INT_PROGRAM)
    assert hlokit_run.main([str(src), *argv]) == 1
    assert message in capsys.readouterr().err


def test_interpreter_loop_limit_is_a_located_error(tmp_path, capsys):
    src = tmp_path / "loop.mlir"
    src.write_text("""func.func @main() -> tensor<i32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.while(%i = %c) : tensor<i32>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      stablehlo.return %i : tensor<i32>
    }
  return %0 : tensor<i32>
}
""")
    assert hlokit_run.main([str(src), "--engine", "interpreter", "--max-steps", "50"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:3:" in err and "error:" in err and "50" in err


def test_difference_units():
    f = np.array([1.0, np.nan, -0.0, 2.0], np.float32)
    g = np.array([np.nextafter(np.float32(1), np.float32(2)), np.nan, 0.0, 2.0], np.float32)
    d = difference(f, g)
    assert d.max_ulp == 1 and d.worst == (0,)
    assert d.max_abs == pytest.approx(2.0**-23)
    d = difference(np.array([1.0, np.nan]), np.array([1.0, 3.0]))
    assert d.max_ulp == 2.0**64 and d.max_abs == np.inf and d.worst == (1,)
    d = difference(np.array([[5, -7]], np.int8), np.array([[5, 9]], np.int8))
    assert (d.max_ulp, d.max_abs, d.worst) == (16, 16, (0, 1))
    assert difference(np.array([True, False]), np.array([True, True])).max_ulp == 1
    big = np.array([2**63 - 1], np.int64)
    assert difference(big, big).max_ulp == 0
    c = np.array([1 + 1j], np.complex64)
    assert difference(c, c).max_ulp == 0
    m = difference(np.zeros((2, 2), np.float32), np.zeros(4, np.float32))
    assert m.shape_mismatch and m.max_ulp == np.inf
    assert difference(np.zeros(0, np.float32), np.zeros(0, np.float32)).worst is None



@pytest.mark.parametrize("dtype", [np.float32, np.float64, ml_dtypes.bfloat16, np.complex64])
def test_difference_marks_a_subnormal_against_zero(dtype):
    tiny = float(ml_dtypes.finfo(np.empty(0, dtype).real.dtype).tiny)
    ours = np.array([1.0, tiny / 4, 2.0], dtype)  # what IEEE gives; XLA CPU flushes it to zero
    xla = np.array([1.0, 0.0, 2.0], dtype)
    d = difference(ours, xla)
    assert d.worst == (1,) and d.subnormal and "flushes subnormals" in d.describe()
    assert not difference(ours, ours).subnormal
    assert not difference(np.array([1.0, 3.0], dtype), np.array([1.0, 2.0], dtype)).subnormal
    assert not difference(np.array([-0.0], dtype), np.array([0.0], dtype)).subnormal


@pytest.mark.parametrize("example, note", [("svd_qr_f32_4x4.mlir", "computes gesvd by its own algorithms"),
                                           ("eigh_c64_4x4.mlir", "computes heevd by its own algorithms"),
                                           ("eig_f64_4x4.mlir", "the eigenvalues of geev may come in another order"),
                                           ("qr_f32_4x4.mlir", None)])
def test_vectors_up_to_a_phase_are_noted(example, note, capsys):
    # Eigen- and singular vectors from the interpreter's expansions may differ from LAPACK's by a sign / phase
    # each (geev: the order too): --engine both says so (only for those routines; QR follows LAPACK's conventions).
    assert hlokit_run.main([os.path.join(EXAMPLES, "linalg", example), "--engine", "both"]) == 0
    text = capsys.readouterr().out
    if note is None:
        assert "note:" not in text
    else:
        assert note in text and "sign (complex: a phase)" in text


BF16_PROGRAM = """func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {{
  %0 = stablehlo.convert %x : (tensor<4096xf32>) -> tensor<4096x{t}>
  %1 = stablehlo.multiply %0, %0 : tensor<4096x{t}>
  %2 = stablehlo.add %1, %0 : tensor<4096x{t}>
  %3 = stablehlo.convert %2 : (tensor<4096x{t}>) -> tensor<4096xf32>
  return %3 : tensor<4096xf32>
}}
"""


@pytest.mark.parametrize("t, noted", [("bf16", True), ("f16", True), ("f32", False)])
def test_narrow_float_excess_precision_is_noted(tmp_path, capsys, t, noted):
    # XLA CPU computes a fused chain of bf16 / f16 ops in f32 and rounds once; the interpreter rounds each op
    # (the spec): --engine both says why their results differ (jaxlib 0.10.2: most of 4096 differ here).
    src = tmp_path / "p.mlir"
    src.write_text(BF16_PROGRAM.format(t=t))
    assert hlokit_run.main([str(src), "--engine", "both"]) == 0
    text = capsys.readouterr().out
    assert ("excess precision" in text) == noted
    if noted:
        assert f"about an ULP of {t}" in text
    assert hlokit_run.narrow_float_arithmetic(_parse(BF16_PROGRAM.format(t=t))) == ([t] if noted else [])


def _parse(text: str):
    import hlokit
    return hlokit.parse(text, context=hlokit.make_context())


def test_per_device_times_are_reported_for_multi_device_programs(capsys):
    prog = os.path.join(EXAMPLES, "dp_mlp_2.mlir")
    if not os.path.exists(prog):
        pytest.skip("example missing")
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", prog, "--repeat", "3"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("per-device run time")]
    assert len(line) == 1 and line[0].count(" ms") == 2


@pytest.mark.parametrize("name", ["collectives_4", "pmap_all_reduce_4", "replicas_all_reduce"])
def test_spmd_programs_agree_on_the_interpreters_process_grid(name):
    """--engine both on sharded / multi-replica programs: XLA on several host devices against the
    interpreter's process grid, bit for bit (integer programs)."""
    prog = os.path.join(EXAMPLES, f"{name}.mlir")
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", prog, "--engine", "both", "--max-ulp", "0"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if "interpreter vs XLA" in ln]
    assert lines and all("max 0 ULP" in ln for ln in lines)
    assert "devices:" in proc.stdout
