"""The interpreter's ``stablehlo.cholesky`` (StableHLO spec, "cholesky") against XLA CPU, and the
interpreter's automatic LAPACK legalization (``hlokit.interpreter.api.prepare_module``)."""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
from hlokit import backend

from conftest import REPO

_CHOLESKY = """
func.func @main(%a: tensor<3x4x4x{t}>) -> tensor<3x4x4x{t}> {{
  %0 = "stablehlo.cholesky"(%a) {{lower = {lower}}} : (tensor<3x4x4x{t}>) -> tensor<3x4x4x{t}>
  return %0 : tensor<3x4x4x{t}>
}}
"""
_TYPES = {"float32": "f32", "float64": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>"}


@pytest.mark.parametrize("lower", ["true", "false"])
@pytest.mark.parametrize("dtype", list(_TYPES))
def test_cholesky_matches_xla(dtype, lower):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 4))
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal((3, 4, 4))
    a = x @ np.conj(np.swapaxes(x, -1, -2)) + 0.5 * np.eye(4)
    spd = a.copy()  # the Hermitian matrices elements 0 and 2 read
    a[1] -= 20 * np.eye(4)          # not positive definite: NaN, as XLA
    if lower == "true":  # only the read triangle matters: make the other one disagree
        a[2, 0, 3] += 100.0
    else:
        a[2, 3, 0] += 100.0
    a = a.astype(dtype)
    text = _CHOLESKY.format(t=_TYPES[dtype], lower=lower)
    want = backend.compile(text)(a)[0]
    got = np.asarray(hlokit.interpret(text, [a])[0])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[1]).all()
    eps = np.finfo(np.dtype(dtype)).eps
    ok = [0, 2]
    cond = float(np.max(np.linalg.cond(spd[ok])))
    assert np.max(np.abs(got[ok] - want[ok])) <= 8 * 4 * eps * cond * np.max(np.abs(want[ok]))


def test_interpreter_runs_examples_cholesky():
    # examples/cholesky.mlir carries lapack_spotrf_ffi: the interpreter legalizes it and runs the result.
    text = (REPO / "examples" / "cholesky.mlir").read_text()
    assert "lapack_spotrf_ffi" in text
    x = np.random.default_rng(1).standard_normal((16, 16)).astype(np.float32)
    want = backend.compile(text)(x)[0]
    got = np.asarray(hlokit.interpret(text, [x])[0])
    assert np.max(np.abs(got - want)) <= 1e-4 * np.max(np.abs(want))
