"""Hermitian eigendecomposition and SVD: LAPACK ``syevd`` / ``heevd`` and ``gesdd`` / ``gesvd``, each by the
algorithm that is fastest at its size on XLA.

* :func:`build_syevd` -- up to order :data:`EIGH_TRIDIAGONAL_MIN` the Jacobi methods of
  :mod:`hlokit.passes.lapack.jacobi`; beyond, LAPACK's own route (``?syevd``): the blocked Householder
  reduction to real symmetric tridiagonal form ``Q^H A Q = T`` (``?sytrd`` / ``?hetrd``,
  :mod:`hlokit.passes.lapack.tridiagonal`), Cuppen's divide and conquer on ``T``
  (:mod:`hlokit.passes.lapack.stedc`), and the back-transformation ``V = Q Z`` (``?ormtr``).
* :func:`build_gesdd` -- up to :data:`SVD_POLAR_MIN` columns (``min(m, n)``) one-sided Jacobi; beyond,
  LAPACK's own route (``?gesdd``, :data:`SVD_ROUTE`): the blocked reduction to bidiagonal form, the bidiagonal
  divide and conquer and the two back-transformations (:func:`hlokit.passes.lapack.bidiagonal.bidiagonal_svd_tall`);
  or the QDWH-SVD of :mod:`hlokit.passes.lapack.polar` (polar factor, then :func:`build_syevd`'s route on the
  Hermitian factor).

Sources: LAPACK's ``dsyevd`` / ``zheevd`` and ``dgesdd`` documentation; Golub & Van Loan, *Matrix
Computations*, 4th ed., §8.3 (tridiagonalisation), §8.4.4 (divide and conquer) and §8.6 (the SVD); Nakatsukasa &
Higham, SIAM J. Sci. Comput. 35(3), 2013 (QDWH-SVD). Vectors may differ from LAPACK's by a sign or phase each.
"""

from __future__ import annotations

from hlokit.passes.builder import Emitter, V
from hlokit.passes.lapack import jacobi
from hlokit.passes.lapack.bidiagonal import bidiagonal_svd_tall
from hlokit.passes.lapack.matrix import adjoint, to_elem
from hlokit.passes.lapack.polar import polar_svd
from hlokit.passes.lapack.stedc import tridiagonal_eigh
from hlokit.passes.lapack.tridiagonal import apply_sytrd_q, sytrd_for_eigh

__all__ = ["EIGH_TRIDIAGONAL_MIN", "SVD_POLAR_MIN", "SVD_ROUTE", "build_syevd", "build_gesdd", "hermitian_eigh"]

#: eigh of larger order than this reduces to tridiagonal form; up to it, Jacobi.
EIGH_TRIDIAGONAL_MIN = 64

#: SVDs of more columns (``min(m, n)``) than this take :data:`SVD_ROUTE`; up to it, one-sided Jacobi.
SVD_POLAR_MIN = 64

#: The route of SVDs beyond :data:`SVD_POLAR_MIN` columns: ``"bidiagonal"`` (LAPACK's: ``?gebrd``, the
#: bidiagonal divide and conquer, ``?ormbr``) or ``"polar"`` (the QDWH-SVD). Same-process A/B on XLA CPU against
#: single-threaded LAPACK ``?gesdd`` (p10 of 40 runs, n = 256; docs/lapack.md, eighth round): f32 condition 10
#: 2.12x -> 1.60x, condition 1e6 3.97x -> 1.86x; f64 2.29x -> 1.38x and 3.86x -> 1.49x; the same residual,
#: orthogonality and singular-value errors (within 25 eps), the same compile time.
SVD_ROUTE = "bidiagonal"


def _tridiagonal_route(e: Emitter, lower_of: V, vectors: bool) -> tuple[V | None, V]:
    """``(v, w)`` of the Hermitian matrix whose lower triangle is ``lower_of``'s (``[*b, n, n]``; the
    diagonal's imaginary part ignored): ``?sytrd`` (lower), divide and conquer, ``v = Q Z`` (None when
    not ``vectors``)."""
    packed, tau, d, off = sytrd_for_eigh(e, lower_of)
    w, z = tridiagonal_eigh(e, d, off)
    if not vectors:
        return None, w
    return apply_sytrd_q(e, packed, tau, to_elem(e, z, lower_of.t), lower=True), w


def hermitian_eigh(e: Emitter, h: V) -> tuple[V, V]:
    """``(v, w)`` of the Hermitian ``h`` (``[*b, n, n]``, both triangles set): ``w`` ascending real
    ``[*b, n]``, ``v`` its orthonormal eigenvectors in the columns; the algorithm of :func:`build_syevd`."""
    if h.shape[-1] > EIGH_TRIDIAGONAL_MIN:
        v, w = _tridiagonal_route(e, h, True)
        return v, w
    v, w, _ = jacobi.build_syevd(e, h, True)
    return v, w


def build_syevd(e: Emitter, a: V, lower: bool, vectors: bool = True) -> list[V]:
    """``syevd`` / ``heevd`` of ``a`` (``[*b, n, n]``; f32, f64, complex<f32>, complex<f64>; the ``lower`` or
    upper triangle read): ``[v, w, info]`` -- ``w`` ``[*b, n]`` real ascending, ``v`` ``[*b, n, n]`` the
    eigenvectors in its columns (when not ``vectors``, LAPACK's ``jobz = 'N'``: ``a`` itself, which JAX
    does not read), ``info`` i32 ``[*b]`` 1 where ``w`` has a NaN, else 0.

    Beyond order :data:`EIGH_TRIDIAGONAL_MIN` the tridiagonal route (module docstring): the upper triangle
    is read as the lower one of ``a^H``. Eigenvalues within ``C n eps ||A||_2``, vectors within
    ``C n eps ||A||_2 / gap`` (LAPACK's bounds; ``tests/pytest/test_lapack_decompositions.py``).
    """
    if a.shape[-1] <= EIGH_TRIDIAGONAL_MIN:
        return jacobi.build_syevd(e, a, lower)
    v, w = _tridiagonal_route(e, a if lower else adjoint(e, a), vectors)
    return [a if v is None else v, w, jacobi.nan_info(e, w)]


def _polar_svd_tall(e: Emitter, a: V, mode: str) -> tuple[V, V | None, V | None]:
    return polar_svd(e, a, hermitian_eigh, mode)


def build_gesdd(e: Emitter, a: V, mode: str, result_shapes: list[list[int]]) -> list[V]:
    """``gesdd`` / ``gesvd`` of ``a`` (``[*b, m, n]``, ``mode`` 'A' / 'S' / 'N'): ``[a, s, u, vt, info]`` as
    :func:`hlokit.passes.lapack.jacobi.build_gesdd` returns them; beyond :data:`SVD_POLAR_MIN` columns
    (``min(m, n)``) computed by :data:`SVD_ROUTE` (:func:`hlokit.passes.lapack.bidiagonal.bidiagonal_svd_tall`
    or the QDWH-SVD, :func:`hlokit.passes.lapack.polar.polar_svd`)."""
    if min(a.shape[-2:]) <= SVD_POLAR_MIN:
        return jacobi.build_gesdd(e, a, mode, result_shapes)
    route = bidiagonal_svd_tall if SVD_ROUTE == "bidiagonal" else _polar_svd_tall
    return jacobi.build_gesdd(e, a, mode, result_shapes, svd_tall=route)
