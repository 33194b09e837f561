"""hlokit-run --rtol / --atol / --max-ulp with --engine both, and --expected OUT.npz (issue 37, item 5)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from hlokit.tools import hlokit_run

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
MLP = os.path.join(EXAMPLES, "mlp.mlir")
EIGH = os.path.join(EXAMPLES, "linalg", "eigh_f32_4x4.mlir")


def run(capsys, *argv):
    code = hlokit_run.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_rtol_and_atol_gate_the_engines_on_a_network(tmp_path, capsys):
    out = tmp_path / "out.npz"
    # the MLP's logits (scale ~1600) differ by hundreds of ULP on some elements, ~5e-7 of the scale
    code, text, _ = run(capsys, MLP, "--engine", "both", "--max-ulp", "0", "--output", out)
    assert code == 1 and not out.exists()
    code, text, _ = run(capsys, MLP, "--engine", "both", "--rtol", "1e-5", "--output", out)
    assert code == 0 and out.exists()
    assert "max rel" in text and "within --rtol 1e-05" in text
    out.unlink()
    code, text, err = run(capsys, MLP, "--engine", "both", "--rtol", "1e-9", "--output", out)
    assert code == 1 and not out.exists()
    assert "error: --engine both: the interpreter and XLA differ by more than --rtol 1e-09: output_0" in err
    assert "a real difference" in err
    assert run(capsys, MLP, "--engine", "both", "--atol", "0.1")[0] == 0
    code, _, err = run(capsys, MLP, "--engine", "both", "--atol", "1e-9", "--rtol", "1e-9")
    assert code == 1 and "--rtol 1e-09, --atol 1e-09" in err


def test_eigh_sign_flip_is_named_and_passes(capsys):
    code, text, _ = run(capsys, EIGH, "--engine", "both", "--rtol", "1e-5")
    assert code == 0
    line = next(ln for ln in text.splitlines() if ln.startswith("output_1"))
    report = text.split(line, 1)[1].splitlines()[1]
    assert "sign flip of" in report and "(columns)" in report and "calls syevd" in report, report
    # a bound the normalised vectors do not meet still fails, and names the flip
    code, _, err = run(capsys, EIGH, "--engine", "both", "--max-ulp", "0")
    assert code == 1 and "sign flip" in err and "still beyond --max-ulp 0" in err


def test_expected_passes_and_fails_naming_the_worst_element(tmp_path, capsys):
    rec = tmp_path / "rec.npz"
    assert run(capsys, MLP, "--output", rec)[0] == 0
    code, text, _ = run(capsys, MLP, "--expected", rec)
    assert code == 0 and "XLA vs expected: ok: max 0 ULP" in text
    # both engines against the XLA recording: the interpreter is within the default float tolerance
    code, text, _ = run(capsys, MLP, "--engine", "both", "--expected", rec)
    assert code == 0 and "interpreter vs expected: ok" in text and "XLA vs expected: ok" in text
    # one changed element
    ref = np.load(rec)["output_0"].copy()
    ref[3, 4] += 1.0
    bad = tmp_path / "bad.npz"
    np.savez(bad, output_0=ref)
    out = tmp_path / "out.npz"
    code, text, err = run(capsys, MLP, "--expected", bad, "--output", out)
    assert code == 1 and not out.exists()
    assert "XLA vs expected: MISMATCH" in text
    assert "mlp.mlir: error: --expected" in err and "output_0 of XLA: worst element [3, 4]:" in err
    assert "ULP" in err and "|diff| 1" in err and "rel" in err
    # a loose enough bound accepts it; integers or floats, the same options apply
    assert run(capsys, MLP, "--expected", bad, "--atol", "1.5")[0] == 0
    code, _, err = run(capsys, MLP, "--engine", "interpreter", "--expected", bad)
    assert code == 1 and "output_0 of interpreter" in err


def test_expected_eigenvectors_up_to_sign(tmp_path, capsys):
    rec = tmp_path / "rec.npz"
    assert run(capsys, EIGH, "--output", rec)[0] == 0  # LAPACK's vectors
    code, text, _ = run(capsys, EIGH, "--engine", "interpreter", "--expected", rec, "--rtol", "1e-5")
    assert code == 0, text
    assert "interpreter vs expected: ok" in text


@pytest.mark.parametrize("content,message", [
    ({}, "--expected: missing output(s) output_0 (tensor<64x10xf32>)"),
    ({"output_0": np.zeros((64, 10), np.float32), "output_1": np.zeros(1)}, "unexpected output(s) output_1"),
    ({"output_0": np.zeros((10, 64), np.float32)}, "output output_0: the program gives shape (64, 10)"),
    ({"output_0": np.zeros((64, 10), np.float64)}, "output output_0: the program gives element type float32"),
])
def test_bad_expected_files_are_clear_errors(tmp_path, capsys, content, message):
    bad = tmp_path / "e.npz"
    np.savez(bad, **content)
    out = tmp_path / "out.npz"
    code, _, err = run(capsys, MLP, "--expected", bad, "--output", out)
    assert code == 1 and message in err and f"{bad}: error:" in err and not out.exists()
    assert "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    (["--rtol", "1e-3"], "--rtol compares the engines: use it with --engine both (or compare with recorded outputs"),
    (["--atol", "1e-3"], "--atol compares the engines"),
    (["--engine", "both", "--rtol", "-1"], "--rtol: expected a number >= 0, with --engine both or --expected"),
    (["--expected", "x.npz", "--atol", "nan"], "--atol: expected a number >= 0"),
    (["--expected", "/nonexistent/e.npz"], "/nonexistent/e.npz: error: --expected: no such file"),
])
def test_tolerance_option_errors(capsys, argv, message):
    code, _, err = run(capsys, MLP, *argv)
    assert code == 1 and message in err


def test_help_states_the_rule(capsys):
    with pytest.raises(SystemExit):
        hlokit_run.parse_arguments(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Every bound given must hold" in text and "max|reference|" in text and "16 epsilons" in text


@pytest.mark.parametrize("engine", ["xla", "interpreter"])
@pytest.mark.parametrize("stem,key", [("cuda_eigh_cusolver_syev", "f32"), ("rocm_eigh_hipsolver_syev", "f64_syevj")])
def test_expected_eigenvectors_of_a_repeated_eigenvalue(capsys, tmp_path, stem, key, engine):
    """JAX's eigh back-compat programs take a rank-2 matrix: its null space has a basis that cuSOLVER and
    hlokit's expansion pick differently. --expected matches those vectors as a group (the eigenvalues output
    says which are equal) and reports it; the other vectors up to a sign."""
    import jax_back_compat

    case = next(c for c in jax_back_compat.load(stem) if c.name.endswith(key))
    program = tmp_path / "eigh.mlirbc"
    program.write_bytes(case.serialized)
    expected = tmp_path / "expected.npz"
    np.savez(expected, **{f"output_{i}": a for i, a in enumerate(case.expected)})
    code, out, err = run(capsys, str(program), "--engine", engine, "--expected", str(expected),
                         "--rtol", "1e-3", "--atol", "1e-4")
    assert code == 0, err
    assert "matched as groups of vectors of equal eigen- / singular values" in out
