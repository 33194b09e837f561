"""Cholesky factorization: LAPACK ``potrf`` as ``stablehlo.cholesky``, and ``stablehlo.cholesky`` expanded.

* :func:`build_potrf` -- the ``lapack_?potrf_ffi`` call as ``stablehlo.cholesky`` (StableHLO spec,
  "cholesky") plus LAPACK's conventions: the triangle LAPACK does not write keeps the input's values, and
  ``info`` is the 1-based index of the first diagonal entry of the factor that is not positive (NaN
  included; XLA fills a non-positive-definite input's factor with NaN, so ``info`` is non-zero exactly
  where LAPACK reports failure, though its value may differ from LAPACK's failing-minor order).
* :func:`build_cholesky` -- ``stablehlo.cholesky`` in core StableHLO (``--stablehlo-expand-cholesky``),
  after XLA's expander (openxla/xla ``xla/hlo/transforms/expanders/cholesky_expander.cc``,
  ``CholeskyUnblocked``): the left-looking column-by-column loop. At step ``j`` column ``j`` is updated by
  the columns already factored (one matrix-vector ``dot_general`` with the factor's row ``j``), the
  diagonal entry is ``sqrt`` of the updated ``A[j, j]`` (of its real part for complex types) and the
  column below it is divided by it; only column ``j`` is written. Every batch element whose factorization
  met a NaN ``sqrt`` (a non-positive pivot: not positive definite, or a NaN input) is returned filled with
  NaN (``NaN + 0i`` for complex types), as XLA does (``seen_error`` in ``BuildCholesky``); the triangle
  that is not computed is zero, as XLA returns it. ``lower = false`` factors the transpose and transposes
  the factor back, as XLA does. ``f16`` and ``bf16`` are computed in ``f32`` and rounded once at the end
  (XLA CPU evaluates their arithmetic in ``f32`` too); matrices of at most
  :data:`UNROLL_LIMIT` rows are unrolled. Run times: ``docs/lapack.md``.
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter, UnsupportedError
from hlokit.passes.lapack.matrix import (
    COMPUTE_TYPES, UNROLL_LIMIT, conj, dot, loop, reduce_with, transpose_minor,
)

__all__ = ["build_potrf", "build_cholesky"]


def build_potrf(e: Emitter, a: V, lower: bool) -> tuple[V, V]:
    """``potrf`` of ``a`` (``[*batch, n, n]``, f32/f64/complex): ``(factor, info)``.

    ``factor`` is ``stablehlo.cholesky`` (StableHLO spec, "cholesky") in the ``lower``/upper triangle
    and ``a`` in the other one (what LAPACK leaves there); ``info`` (i32 ``[*batch]``) is 0 when every
    diagonal entry of the factor is > 0, else the 1-based index of the first that is not (NaN included).
    """
    shape = a.shape
    rank, n = len(shape), shape[-1]
    chol = e.cholesky(a, lower)
    rows = e.iota(shape, rank - 2, "i32")
    cols = e.iota(shape, rank - 1, "i32")
    factor = e.select(e.compare("GE" if lower else "LE", rows, cols, "SIGNED"), chol, a)
    real = e.real(chol) if a.t in COMPLEX_TYPES else chol
    on_diagonal = e.compare("EQ", rows, cols, "SIGNED")
    positive = e.compare("GT", real, e.const(0.0, real), "FLOAT")  # false for NaN
    bad = e.and_(on_diagonal, e.not_(positive))
    big = n + 1
    index = e.select(bad, cols + 1, e.const(big, cols))
    first = reduce_with(e, reduce_with(e, index, rank - 1, big, "minimum"), rank - 2, big, "minimum")
    none = e.compare("EQ", first, e.const(big, first), "SIGNED")
    info = e.select(none, e.const(0, first), first)
    return factor, info


def _cholesky_lower(e: Emitter, a: V, unroll: bool) -> V:
    """Lower Cholesky factor of ``a`` (``[*batch, n, n]``, f32/f64/complex): see the module docstring."""
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[-1]
    is_complex = a.t in COMPLEX_TYPES
    col_shape = batch + [n, 1]
    full_dims = list(range(r + 2))

    def step(j: V, l: V, a: V, err: V) -> list[V]:
        z = e.scalar(0, "i32")
        # column j of A minus the contribution of the columns already factored (zero from column j on)
        row = e.dynamic_slice(l, [z] * r + [j, z], batch + [1, n])
        col = e.dynamic_slice(a, [z] * r + [z, j], col_shape) - dot(e, l, conj(e, row), r, r + 1, r + 1)
        d = e.dynamic_slice(col, [z] * r + [j, z], batch + [1, 1])
        if is_complex:
            root = e.sqrt(e.real(d))
            err = e.or_(err, e.isnan(root))
            root = e.complex(root, e.const(0.0, root))
        else:
            root = e.sqrt(d)
            err = e.or_(err, e.isnan(root))
        rows = e.iota(col_shape, r, "i32")
        jj = e.broadcast_in_dim(j, col_shape, [])
        root_col = e.broadcast_in_dim(root, col_shape, full_dims)
        c = e.select(e.compare("GT", rows, jj, "SIGNED"), col / root_col, e.const(0.0, col))
        c = e.select(e.compare("EQ", rows, jj, "SIGNED"), root_col, c)
        return [e.dynamic_update_slice(l, c, [z] * r + [z, j]), a, err]

    err0 = e.const(False, t="i1", shape=batch + [1, 1])
    w, _, err = loop(e, n, [e.const(0.0, a), a, err0], step, unroll)
    return e.select(e.broadcast_in_dim(err, shape, full_dims), e.const(float("nan"), w), w)


def build_cholesky(e: Emitter, a: V, lower: bool, unroll: bool | None = None) -> V:
    """``stablehlo.cholesky`` of ``a`` (``[*batch, n, n]``; f16, bf16, f32, f64, complex<f32/f64>).

    Returns the ``lower`` (else upper) triangular factor with zeros in the other triangle; only the
    ``lower`` (else upper) triangle of ``a`` is read. A batch element that is not positive definite (a
    non-positive or NaN pivot) comes back filled with NaN, as on XLA. ``unroll`` defaults to
    ``n <= UNROLL_LIMIT``. Raises :class:`UnsupportedError` for another element type.
    """
    if a.t not in COMPUTE_TYPES:
        raise UnsupportedError(f"cholesky of element type '{a.t}' (expected one of {', '.join(COMPUTE_TYPES)})")
    n = a.shape[-1]
    if 0 in a.shape:
        return a  # no element to compute
    unroll = n <= UNROLL_LIMIT if unroll is None else unroll
    x = e.convert(a, COMPUTE_TYPES[a.t])
    if not lower:
        x = transpose_minor(e, x)
    f = _cholesky_lower(e, x, unroll)
    if not lower:
        f = transpose_minor(e, f)
    return e.convert(f, a.t)
