"""``syevd`` / ``heevd`` by the tridiagonal route of ``passes/lapack/spectral.py`` (blocked ``?sytrd``, divide
and conquer, ``?ormtr``) against jaxlib's LAPACK on XLA CPU, with the bounds of
``test_lapack_decompositions.py``.

``EIGH_TRIDIAGONAL_MIN`` and the block / leaf sizes are lowered so that order 11 .. 13 matrices run the
route with several ``?sytrd`` blocks and several divide-and-conquer levels.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hlokit import backend
from hlokit.passes.lapack import spectral, stedc, tridiagonal_blocked

from test_lapack_blocked import _legalize, _run
from test_lapack_decompositions import check, export


@pytest.fixture
def tridiagonal_route(monkeypatch):
    monkeypatch.setattr(spectral, "EIGH_TRIDIAGONAL_MIN", 4)
    monkeypatch.setattr(tridiagonal_blocked, "SYTRD_BLOCK", 4)
    monkeypatch.setattr(tridiagonal_blocked, "SYTRD_UNBLOCKED", 4)
    monkeypatch.setattr(tridiagonal_blocked, "ORMTR_BLOCK", 4)
    monkeypatch.setattr(stedc, "LEAF_MAX", 2)
    monkeypatch.setattr(stedc, "LEAF_MAX_F32", 2)


@pytest.mark.parametrize("name, dtype", [("eigh", "float32"), ("eigh", "complex128"), ("eigvalsh", "float64"),
                                         pytest.param("eigh", "complex64", marks=pytest.mark.slow),
                                         pytest.param("eigh", "float64", marks=pytest.mark.slow)])
def test_tridiagonal_route_equals_lapack(tridiagonal_route, name, dtype):
    legal = _run(name, dtype, (2, 3), 11)
    assert "stablehlo.sort" in legal  # the Jacobi leaves sort their eigenvalues (the merges rank theirs)


def test_tridiagonal_route_reads_the_upper_triangle(tridiagonal_route):
    # jnp.linalg.eigh(UPLO="U") calls syevd with uplo = 'U': only the upper triangle may be read.
    fn = lambda a: jnp.linalg.eigh(a, UPLO="U", symmetrize_input=False)  # noqa: E731
    with jax.enable_x64(True):
        text = jax.jit(fn).lower(jax.ShapeDtypeStruct((13, 13), "complex128")).as_text()
    (a,) = export.inputs("eigh", "complex128", (), 13, cond=100.0, seed=4)
    garbage = np.tril(np.full((13, 13), 7.0 + 3.0j), -1)
    got = backend.compile(_legalize(text))(a + garbage)
    check("eigh", "complex128", [np.triu(a) + np.conj(np.triu(a, 1)).T], got, backend.compile(text)(a + garbage))


def test_tridiagonal_route_singular_and_nan(tridiagonal_route):
    text = export.lower("eigh", "float64", (3,), 12)
    args = export.inputs("eigh", "float64", (3,), 12, cond=10.0, singular=True, seed=3)
    got = backend.compile(_legalize(text))(*args)
    check("eigh", "float64", args, got, backend.compile(text)(*args))
    (a,) = args
    a[1, 2, 0] = a[1, 0, 2] = np.nan
    v, w = (np.asarray(x) for x in backend.compile(_legalize(text))(a))
    assert np.isnan(w[1]).all() and not np.isnan(w[[0, 2]]).any() and not np.isnan(v[[0, 2]]).any()


def test_values_only_skips_the_back_transformation(tridiagonal_route):
    # jobz = 'N' (mode = 78; JAX 0.10's eigvalsh asks 'V' and drops the vectors): no ?ormtr in the program,
    # the same eigenvalues.
    text = export.lower("eigvalsh", "float32", (), 13)
    assert "mode = 86 : ui8" in text
    values_only = text.replace("mode = 86 : ui8", "mode = 78 : ui8")
    vals, vecs = _legalize(values_only), _legalize(text)
    assert vals.count("stablehlo.dot_general") < vecs.count("stablehlo.dot_general")
    args = export.inputs("eigvalsh", "float32", (), 13, cond=100.0, seed=2)
    np.testing.assert_array_equal(np.asarray(backend.compile(vals)(*args)[0]),
                                  np.asarray(backend.compile(vecs)(*args)[0]))
