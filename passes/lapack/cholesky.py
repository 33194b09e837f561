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
  the factor back, as XLA does. Beyond order :data:`CHOLESKY_UNBLOCKED` the blocked right-looking form
  (:func:`_cholesky_blocked`: the loop above on each diagonal block, a ``triangular_solve`` and a
  ``dot_general`` per block), which :func:`build_potrf` then uses too. ``f16`` and ``bf16`` are computed in
  ``f32`` and rounded once at the end
  (XLA CPU evaluates their arithmetic in ``f32`` too); matrices of at most
  :data:`UNROLL_LIMIT` rows are unrolled. Run times: ``docs/lapack.md``.
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, Emitter, Transpose, UnsupportedError, V
from hlokit.passes.lapack.matrix import (
    COMPUTE_TYPES, UNROLL_LIMIT, conj, dot, loop, reduce_with, transpose_minor,
)

__all__ = ["build_potrf", "build_cholesky", "cholesky_block_size"]


def build_potrf(e: Emitter, a: V, lower: bool) -> tuple[V, V]:
    """``potrf`` of ``a`` (``[*batch, n, n]``, f32/f64/complex): ``(factor, info)``.

    ``factor`` is ``stablehlo.cholesky`` (StableHLO spec, "cholesky"; beyond order
    :data:`CHOLESKY_UNBLOCKED` its blocked expansion, :func:`build_cholesky`: XLA CPU expands
    ``stablehlo.cholesky`` unblocked, 4-60 times slower) in the ``lower``/upper triangle
    and ``a`` in the other one (what LAPACK leaves there); ``info`` (i32 ``[*batch]``) is 0 when every
    diagonal entry of the factor is > 0, else the 1-based index of the first that is not (NaN included).
    """
    shape = a.shape
    rank, n = len(shape), shape[-1]
    if n > CHOLESKY_UNBLOCKED and 0 not in shape and a.t in ("f32", "f64", "complex<f32>", "complex<f64>"):
        chol = build_cholesky(e, a, lower)  # blocked (the expansion): XLA CPU's own is unblocked
    else:
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


#: Up to this order ``build_cholesky`` runs the unblocked left-looking loop (and ``build_potrf`` emits
#: ``stablehlo.cholesky``); beyond, the blocked right-looking form of :func:`_cholesky_blocked`.
CHOLESKY_UNBLOCKED = 16

#: The column block of the blocked form up to order 128 (beyond: twice it), and the number of loops it
#: runs in (over shrinking windows). Measured (f32, XLA CPU, ``benchmarks/linalg.py`` and a sweep): n = 64:
#: XLA's own ``stablehlo.cholesky`` 0.48 ms, blocked nb = 16 / 32: 0.12 / 0.11 ms; n = 256, 3 loops, nb =
#: 32 / 64 / 128: 1.15 / 1.01 / 1.43 ms (XLA's: 12-68 ms; LAPACK 0.33 ms).
CHOLESKY_BLOCK = 32
CHOLESKY_SEGMENTS = 3


def cholesky_block_size(n: int) -> int:
    """The column block of :func:`_cholesky_blocked` for order ``n``: :data:`CHOLESKY_BLOCK` up to 128,
    twice it beyond."""
    return CHOLESKY_BLOCK if n <= 128 else 2 * CHOLESKY_BLOCK


def _cholesky_blocked(e: Emitter, a: V, nb: int, segments: int) -> V:
    """Lower Cholesky factor of ``a`` (``[*batch, n, n]``, lower triangle read) by the blocked right-looking
    algorithm (LAPACK ``?potrf``; Golub & Van Loan, *Matrix Computations*, 4th ed., §4.2.9): per block of
    ``nb`` columns the diagonal block by the unblocked loop (:func:`_cholesky_lower`), the column block below
    it by one ``triangular_solve`` (``L21 = A21 L11^-H``) and the trailing matrix by one ``dot_general``
    (``A22 - L21 L21^H``). The order is padded to a multiple of ``nb`` with the identity; the blocks run in
    ``segments`` ``stablehlo.while`` loops of fixed shapes, each on the trailing window where it starts.
    The entries above the diagonal are not zeroed (the caller selects the triangle); a batch element
    whose factorization met a NaN ``sqrt`` is filled with NaN, as :func:`_cholesky_lower`."""
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[-1]
    count = -(-n // nb)
    big_n = count * nb
    t = a.t
    x = a
    if big_n > n:  # identity padding: its factor is the identity, it couples with nothing
        x = e.pad(a, e.scalar(0, t), [0] * (r + 2), [0] * r + [big_n - n, big_n - n])
        eye = e.compare("EQ", e.iota(x.shape, r, "i32"), e.iota(x.shape, r + 1, "i32"), "SIGNED")
        pad = e.compare("GE", e.iota(x.shape, r, "i32"), e.const(n, t="i32", shape=x.shape), "SIGNED")
        x = e.select(e.and_(eye, pad), e.const(1.0, t=t, shape=x.shape), x)
    zero_i = e.scalar(0, "i32")
    z = [zero_i] * r
    cuts = [round(i * count / max(1, min(segments, count))) for i in range(min(segments, count) + 1)]
    for first, last in zip(cuts, cuts[1:]):
        if last <= first:
            continue
        big = first * nb
        w = big_n - big
        win = e.slice(x, [0] * r + [big, big], batch + [big_n, big_n])

        def body(blk: V, wv: V, w=w) -> list[V]:
            j0 = blk * e.scalar(nb, "i32")
            j1 = j0 + e.scalar(nb, "i32")
            a11 = e.dynamic_slice(wv, z + [j0, j0], batch + [nb, nb])
            l11 = _cholesky_lower(e, a11, False)
            col = e.dynamic_slice(wv, z + [zero_i, j0], batch + [w, nb])
            l21 = e.triangular_solve(l11, col, left_side=False, lower=True, unit_diagonal=False,
                                     transpose_a=Transpose.ADJOINT)
            rows = e.iota(batch + [w, nb], r, "i32")
            below = e.compare("GE", rows, e.broadcast_in_dim(j1, batch + [w, nb], []), "SIGNED")
            l21 = e.select(below, l21, e.const(0.0, t=t, shape=batch + [w, nb]))
            wv = wv - dot(e, l21, conj(e, l21), r, r + 1, r + 1)
            col = e.dynamic_update_slice(l21, l11, z + [j0, zero_i])
            return [blk + e.scalar(1, "i32"), e.dynamic_update_slice(wv, col, z + [zero_i, j0])]

        out = e.while_([e.scalar(first - first, "i32"), win],
                       lambda blk, _, c=last - first: e.compare("LT", blk, e.scalar(c, "i32"), "SIGNED"), body)
        win = out[1]
        if big:
            bottom = e.concatenate([e.slice(x, [0] * r + [big, 0], batch + [big_n, big]), win], r + 1)
            x = e.concatenate([e.slice(x, [0] * (r + 2), batch + [big, big_n]), bottom], r)
        else:
            x = win
    if big_n > n:
        x = e.slice(x, [0] * (r + 2), batch + [n, n])
    rows, cols = e.iota(x.shape, r, "i32"), e.iota(x.shape, r + 1, "i32")
    on_diag = e.compare("EQ", rows, cols, "SIGNED")
    nan = e.compare("NE", x, x, "FLOAT")
    bad = reduce_with(e, e.and_(on_diag, nan), [r, r + 1], False, "or")
    return e.select(e.broadcast_in_dim(bad, x.shape, list(range(r))), e.const(float("nan"), x), x)


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
    ``n <= UNROLL_LIMIT``. Beyond order :data:`CHOLESKY_UNBLOCKED` the blocked form
    (:func:`_cholesky_blocked`; the triangle not computed then zeroed by a ``select``). Raises :class:`UnsupportedError` for another element type.
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
    if n > CHOLESKY_UNBLOCKED:
        f = _cholesky_blocked(e, x, cholesky_block_size(n), CHOLESKY_SEGMENTS)
        r = len(x.shape) - 2
        keep = e.compare("GE", e.iota(x.shape, r, "i32"), e.iota(x.shape, r + 1, "i32"), "SIGNED")
        f = e.select(keep, f, e.const(0.0, f))
    else:
        f = _cholesky_lower(e, x, unroll)
    if not lower:
        f = transpose_minor(e, f)
    return e.convert(f, a.t)
