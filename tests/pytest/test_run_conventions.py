"""hlokit-run's conventions from iree-run-module and XLA's run_hlo_module (issue 39, item 4): --input in its
inline / positional / named forms, --list-devices, --benchmark, --print-outputs, --output as a directory or a
pattern of .npy files, and progress shown only on a terminal."""

from __future__ import annotations

import functools
import io
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from hlokit.tools import hlokit_run, run_io

ADD = """func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}
"""

MIXED = """func.func @main(%p: tensor<3xi1>, %i: tensor<2xi8>, %c: tensor<2xcomplex<f32>>, %u: tensor<ui8>)
    -> (tensor<3xi1>, tensor<2xi8>, tensor<2xcomplex<f32>>, tensor<ui8>) {
  %0 = stablehlo.not %p : tensor<3xi1>
  %1 = stablehlo.negate %i : tensor<2xi8>
  %2 = stablehlo.add %c, %c : tensor<2xcomplex<f32>>
  func.return %0, %1, %2, %u : tensor<3xi1>, tensor<2xi8>, tensor<2xcomplex<f32>>, tensor<ui8>
}
"""

IOTA = """func.func @main() -> tensor<50x40xf32> {
  %0 = stablehlo.iota dim = 1 : tensor<50x40xf32>
  func.return %0 : tensor<50x40xf32>
}
"""


def run(capsys, *argv):
    code = hlokit_run.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture()
def add(tmp_path):
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    return path


def test_inline_inputs_values_and_splat(add, tmp_path, capsys):
    code, out, err = run(capsys, add, "--input", "2x2xf32=1,2,3,4", "--input", "2x2xf32=10", "--output",
                         f"{tmp_path / 'out'}/")
    assert code == 0, err
    assert "inputs: 2x2xf32=1,2,3,4 2x2xf32=10" in out
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "output_0.npy"), [[11, 12], [13, 14]])
    # iree-run-module's spellings: spaces, brackets
    code, out, err = run(capsys, add, "--input", "2x2xf32=[1 2][3 4]", "--input", "arg_1=2x2xf32=[0.5, 0.5, 0.5, 0.5]",
                         "--output", tmp_path / "o_{}.npy")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o_0.npy"), [[1.5, 2.5], [3.5, 4.5]])


def test_inline_booleans_ints_complex_unsigned(tmp_path, capsys):
    prog = tmp_path / "mixed.mlir"
    prog.write_text(MIXED)
    code, out, err = run(capsys, prog, "--input", "3xi1=true,false,1", "--input", "2xi8=-128,0x7f",
                         "--input", "2xc64=1+2j,-3", "--input", "ui8=255", "--output", f"{tmp_path / 'd'}/")
    assert code == 0, err
    outs = [np.load(tmp_path / "d" / f"output_{i}.npy") for i in range(4)]
    np.testing.assert_array_equal(outs[0], [False, True, False])
    np.testing.assert_array_equal(outs[1], np.array([-128, -127], np.int8))  # (-(-128) wraps)
    np.testing.assert_array_equal(outs[2], np.array([2 + 4j, -6], np.complex64))
    assert outs[3].dtype == np.uint8 and outs[3] == 255
    # MLIR's complex spelling too
    code, _, err = run(capsys, prog, "--input", "3xi1=0", "--input", "2xi8=1", "--input", "2xcomplex<f32>=1",
                       "--input", "ui8=0")
    assert code == 0, err


@pytest.mark.parametrize("argv, message", [
    (["--input", "2x2xf32=1,2,3"], "--input 2x2xf32=1,2,3: tensor<2x2xf32> takes 4 value(s) (or one, splatted), got 3"),
    (["--input", "2x2xf32=1,x,3,4"], "not a value of tensor<2x2xf32>: could not convert string to float: 'x'"),
    (["--input", "2x2xi32=1"], "--input 2x2xi32=1: arg_0: the program takes element type float32"),
    (["--input", "4xf32=1"], "arg_0: the program takes shape (2, 2) (tensor<2x2xf32>) but tensor<4xf32> gives (4,)"),
    (["--input", "2x2xf32=1", "--input", "2x2xf32=1", "--input", "2x2xf32=1"],
     "positional input for arg_2, but the program takes 2 argument(s)"),
    (["--input", "arg_1=2x2xf32=1", "--input", "2x2xf32=1"], "positional input for arg_2"),
    (["--input", "arg_0=2x2xf32=1", "--input", "arg_0=2x2xf32=2"], "argument arg_0 is given twice"),
    (["--input", "nonsense"], "--input: expected NAME=FILE.npy or one of"),
    (["--input", "arg_9=2x2xf32=1"], "--input arg_9: no such argument; the program takes 2 argument(s): "
                                     "arg_0 (tensor<2x2xf32>), arg_1 (tensor<2x2xf32>)"),
])
def test_bad_inline_inputs_are_located_and_write_nothing(add, tmp_path, capsys, argv, message):
    out = tmp_path / "out.npz"
    code, _, err = run(capsys, add, *argv, "--output", out)
    assert code == 1 and message in err, err
    assert "Traceback" not in err and not out.exists()


def test_inline_integer_out_of_range(tmp_path, capsys):
    prog = tmp_path / "mixed.mlir"
    prog.write_text(MIXED)
    code, _, err = run(capsys, prog, "--input", "3xi1=2")
    assert code == 1 and "'2' is not a boolean (true, false, 1, 0)" in err
    code, _, err = run(capsys, prog, "--input", "3xi1=1", "--input", "2xi8=128")
    assert code == 1 and "128 is outside the range of i8 [-128, 127]" in err


def test_positional_and_named_files(add, tmp_path, capsys):
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", 10 * x)
    np.savez(tmp_path / "in.npz", arg_0=x)
    cases = [
        ["--input", f"@{tmp_path / 'x.npy'}", "--input", f"@{tmp_path / 'y.npy'}"],
        ["--input", f"arg_1=@{tmp_path / 'y.npy'}", "--input", f"arg_0={tmp_path / 'x.npy'}"],
        ["--inputs", tmp_path / "in.npz", "--input", f"arg_1=@{tmp_path / 'y.npy'}"],
        ["--input", f"@{tmp_path / 'x.npy'}", "--input", "2x2xf32=0,10,20,30"],
    ]
    for argv in cases:
        out = tmp_path / "out.npz"
        code, _, err = run(capsys, add, *argv, "--output", out)
        assert code == 0, (argv, err)
        np.testing.assert_array_equal(np.load(out)["output_0"], 11 * x)
    # positional after --inputs's argument: given twice
    code, _, err = run(capsys, add, "--inputs", tmp_path / "in.npz", "--input", f"@{tmp_path / 'y.npy'}")
    assert code == 1 and "argument arg_0 is given twice (by --input and --inputs" in err
    code, _, err = run(capsys, add, "--input", f"@{tmp_path / 'nope.npy'}")
    assert code == 1 and f"{tmp_path / 'nope.npy'}: error: --input @{tmp_path / 'nope.npy'}: no such file" in err


def test_symbolic_argument_refined_from_inline_input(tmp_path, capsys):
    prog = tmp_path / "dyn.mlir"
    prog.write_text("""func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %a, %a : tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
""")
    code, out, err = run(capsys, prog, "--input", "3xf32=1,2,3", "--output", tmp_path / "r_{}.npy")
    assert code == 0, err
    assert "refined @main" in out and "tensor<3xf32>" in out
    np.testing.assert_array_equal(np.load(tmp_path / "r_0.npy"), [2, 4, 6])


def test_print_outputs_elides_past_n(tmp_path, capsys):
    prog = tmp_path / "iota.mlir"
    prog.write_text(IOTA)
    code, out, _ = run(capsys, prog, "--print-outputs=10")
    assert code == 0 and "..." in out and "[ 0.,  1.,  2., ..., 37., 38., 39.]" in out
    code, out, _ = run(capsys, prog, "--print-outputs=5000")
    assert code == 0 and "..." not in out and out.count("39.") == 50
    code, out, _ = run(capsys, prog, "--print-outputs")  # default: 1000 elements, this one has 2000
    assert code == 0 and "..." in out
    code, out, _ = run(capsys, prog)
    assert "[ 0.," not in out
    code, _, err = run(capsys, prog, "--print-outputs=-1")
    assert code == 1 and "--print-outputs: expected a number of elements >= 0, got -1" in err


def test_format_values_bf16_and_bool():
    import ml_dtypes

    assert "1.5" in run_io.format_values(np.array([1.5, 2], dtype=ml_dtypes.bfloat16), 10)
    assert run_io.format_values(np.array([True, False]), 10).strip() == "[ True, False]"


def test_benchmark_both_engines(add, capsys):
    code, out, err = run(capsys, add, "--benchmark=3", "--engine", "both")
    assert code == 0, err
    assert "benchmark: 1 warm-up run, then 3 timed run(s) per engine; XLA compile" in out
    lines = out.splitlines()
    xla = next(line for line in lines if line.startswith("  XLA: "))
    interp = next(line for line in lines if line.startswith("  interpreter: "))
    for line in (xla, interp):
        t = [float(v) for v in line.split("min ")[1].replace(" ms", "").replace("median ", "").replace("p90 ", "").split(", ")]
        assert t[0] <= t[1] <= t[2]
    assert "run " in out and "(median of 3)" in out
    code, out, _ = run(capsys, add, "--benchmark")
    assert code == 0 and "then 10 timed run(s)" in out
    code, out, _ = run(capsys, "--benchmark", "2", add)  # N as the next argument; PROGRAM after a bare flag
    assert code == 0 and "then 2 timed run(s)" in out
    code, out, _ = run(capsys, "--print-outputs", add)
    assert code == 0 and "[[" in out
    code, _, err = run(capsys, add, "--benchmark=0")
    assert code == 1 and "--benchmark: expected a positive number of timed runs, got 0" in err
    code, _, err = run(capsys, add, "--benchmark", "--repeat", "3")
    assert code == 1 and "drop --repeat" in err


def test_benchmark_counts_runs(add, monkeypatch, capsys):
    """N timed runs after one warm-up: the interpreter is called N + 1 times."""
    calls = []
    original = hlokit_run.interpret_global

    def counting(*a, **k):
        calls.append(1)
        return original(*a, **k)

    monkeypatch.setattr(hlokit_run, "interpret_global", counting)
    code, out, err = run(capsys, add, "--engine", "interpreter", "--benchmark=4")
    assert code == 0, err
    assert len(calls) == 5 and "interpreter: min " in out and "  XLA: " not in out


def _subprocess(*argv, env=None):
    return subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", *map(str, argv)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu", **(env or {})})


def test_list_devices_without_program():
    proc = _subprocess("--list-devices", "--devices", "3")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("platform: cpu  devices: 3")
    assert len(lines) == 4 and all("kind: cpu" in ln and "memory: " in ln and "GiB" in ln for ln in lines[1:])
    assert proc.stderr == ""
    proc = _subprocess("--list-devices", "--platform", "rocm")
    assert proc.returncode == 1 and "error: platform 'rocm' is not available" in proc.stderr
    proc = _subprocess()
    assert proc.returncode == 1 and "no PROGRAM given (only --list-devices runs without one)" in proc.stderr


def test_benchmark_per_device_times():
    proc = _subprocess(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "dp_mlp_2.mlir"),
                       "--benchmark=2")
    assert proc.returncode == 0, proc.stderr
    per_device = [ln for ln in proc.stdout.splitlines() if ln.startswith("  XLA ") and "dispatch to results" in ln]
    assert len(per_device) == 2 and all("min " in ln and "p90 " in ln for ln in per_device)
    assert proc.stderr == ""  # not a terminal: no progress


def test_output_directory_and_pattern(add, tmp_path, capsys):
    existing = tmp_path / "existing"
    existing.mkdir()
    code, _, err = run(capsys, add, "--output", existing)
    assert code == 0, err
    assert (existing / "output_0.npy").is_file()
    code, _, err = run(capsys, add, "--output", f"{tmp_path / 'nodir' / 'sub'}/")
    assert code == 1 and "--output: cannot write" in err and "does not exist" in err
    code, _, err = run(capsys, add, "--output", tmp_path / "nodir" / "o_{}.npy")
    assert code == 1 and "does not exist" in err
    # nothing written on failure (--expected mismatch)
    np.savez(tmp_path / "wrong.npz", output_0=np.full((2, 2), 99, np.float32))
    code, _, err = run(capsys, add, "--expected", tmp_path / "wrong.npz", "--output", f"{tmp_path / 'fresh'}/")
    assert code == 1 and "MISMATCH" not in err and not (tmp_path / "fresh").exists()


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_only_on_a_terminal():
    tty, pipe = _Tty(), io.StringIO()
    for stream in (tty, pipe):
        with run_io.Progress("compiling @main", stream=stream, after=0.05, interval=0.05) as p:
            time.sleep(0.2)
            p.update("run 2/3")
            time.sleep(0.15)
    assert "hlokit-run: compiling @main..." in tty.getvalue() and "hlokit-run: run 2/3..." in tty.getvalue()
    assert tty.getvalue().endswith("\r\033[K")  # the line is cleared at the end
    assert pipe.getvalue() == ""
    quick = _Tty()
    with run_io.Progress("fast", stream=quick, after=1.0):
        pass
    assert quick.getvalue() == ""  # short work shows nothing


def test_names_reexported_from_hlokit_run():
    for name in ("random_input", "load_inputs", "load_expected", "summarize", "parse_input_options",
                 "load_single_inputs", "check_memory"):
        assert getattr(hlokit_run, name) is getattr(run_io, name)


def test_progress_on_a_terminal_through_the_tool(add, monkeypatch, capsys):
    """The tool's long steps report through Progress to stderr when it is a terminal (here a fake one, and no
    wait before showing, so that a fast machine shows it too); with stderr a pipe nothing shows
    (test_benchmark_per_device_times)."""
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    monkeypatch.setattr(hlokit_run, "Progress", functools.partial(run_io.Progress, after=0.0, interval=0.001))
    assert hlokit_run.main([str(add), "--engine", "both", "--benchmark=3"]) == 0
    shown = tty.getvalue()
    assert "hlokit-run: starting XLA (cpu)..." in shown and "hlokit-run: compiling @main with XLA (cpu)..." in shown
    assert "hlokit-run: running on XLA..." in shown
    assert "hlokit-run: interpreting @main" in shown and shown.endswith("\r\033[K")
    capsys.readouterr()
