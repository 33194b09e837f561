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
  the factor back, as XLA does. Beyond order :data:`CHOLESKY_UNBLOCKED` blocked forms, which
  :func:`build_potrf` then uses too (LAPACK ``?potrf``; Golub & Van Loan, *Matrix Computations*, 4th ed.,
  §4.2.9): up to :data:`CHOLESKY_STATIC_MAX` the left-looking block columns with static shapes and no
  outer loop (:func:`_cholesky_static`); up to :data:`CHOLESKY_LEFT_MAX` left-looking panels of
  :data:`CHOLESKY_SMALL_PANEL` (up to order :data:`CHOLESKY_SMALL_PANEL_MAX`) or :data:`CHOLESKY_PANEL`
  columns, each factored by one ``stablehlo.while`` over its column blocks (:func:`_cholesky_left`);
  beyond, the right-looking loop of :func:`_cholesky_blocked`. In the first two the factor is written
  over the input block column by block column (``dynamic_update_slice``, in place on XLA: the rows a
  block update reads are one slice, and nothing is assembled at the end), and the diagonal blocks, cut
  into leaves of :data:`CHOLESKY_LEAF` columns (:func:`_chol_inv`), are factored and inverted together
  by Gaussian elimination on ``[A^H | I]`` (:func:`_leaf`: one fused elementwise kernel and one
  ``rsqrt`` per column), the rows below multiplied by that inverse (one ``dot_general``, as XLA's
  ``SolveByInvertingDiagonalBlocks`` does for its triangular solves): the sequential column steps touch
  only a ``leaf x 2 leaf`` block, everything else is matrix products. The NaN fill and ``potrf``'s
  ``info`` read the factor's diagonal (a strided slice: ``n`` elements), so the factor itself is read
  once, by the final elementwise pass. ``f16`` and ``bf16`` are computed in ``f32`` and rounded once at
  the end (XLA CPU evaluates their arithmetic in ``f32`` too); matrices of at most
  :data:`UNROLL_LIMIT` rows are unrolled. Run times: ``docs/lapack.md``.
"""

from __future__ import annotations

from typing import Callable

from hlokit.passes.builder import COMPLEX_TYPES, Emitter, Transpose, UnsupportedError, V
from hlokit.passes.lapack.matrix import (
    COMPUTE_TYPES, UNROLL_LIMIT, adjoint, conj, diagonal_slice, dot, identity_matrix, loop, reduce_with,
    transpose_minor,
)
from hlokit.passes.lapack.triangular_solve import small_dot

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
    dg = None
    if n > CHOLESKY_UNBLOCKED and 0 not in shape and a.t in ("f32", "f64", "complex<f32>", "complex<f64>"):
        chol, dg = _factor_and_diagonal(e, a, lower)  # blocked (the expansion): XLA CPU's own is unblocked
    else:
        chol = e.cholesky(a, lower)
    rows = e.iota(shape, rank - 2, "i32")
    cols = e.iota(shape, rank - 1, "i32")
    factor = e.select(e.compare("GE" if lower else "LE", rows, cols, "SIGNED"), chol, a)
    dg = diagonal_slice(e, chol) if dg is None else dg  # n entries: the factor itself is read by one pass
    real = e.real(dg) if a.t in COMPLEX_TYPES else dg
    bad = e.not_(e.compare("GT", real, e.const(0.0, real), "FLOAT"))  # true for NaN
    big = n + 1
    idx = e.iota(real.shape, rank - 2, "i32")
    first = reduce_with(e, e.select(bad, idx + 1, e.const(big, idx)), rank - 2, big, "minimum")
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

#: Orders ``CHOLESKY_UNBLOCKED < n <= CHOLESKY_STATIC_MAX``: :func:`_cholesky_static` (blocks of
#: ``CHOLESKY_STATIC_BLOCK`` columns); up to ``CHOLESKY_LEFT_MAX``: :func:`_cholesky_left` (panels of
#: ``CHOLESKY_SMALL_PANEL`` columns up to order ``CHOLESKY_SMALL_PANEL_MAX``, of ``CHOLESKY_PANEL``
#: beyond); beyond: :func:`_cholesky_blocked`. Diagonal blocks are factored in leaves of ``CHOLESKY_LEAF``
#: (static path) / ``CHOLESKY_PANEL_LEAF`` (panels) columns by :func:`_leaf`. Measured on a loaded 2-core
#: machine (XLA CPU, same-process interleaved A/B against single-thread LAPACK):
#: n = 256: the right-looking loop 2.4-3.4x, static blocks of 16 1.4-2.0x, with the ``[A^H | I]`` leaf,
#: the in-place factor and leaves of 8 (16: 15-25% slower; 4: slower; static blocks of 32: slower);
#: n = 512: panels of 64 8-12% faster than of 128 (and 2x their compile time, hence 128 beyond 512),
#: static blocks of 16 faster still but 4-5x the compile time. The run time of a leaf step grows with its
#: ``b x 2b`` elements (~2 ns each on XLA CPU: leaf 8 / 16 / 32 cost 0.3 / 1.1 / 3.8 us per column),
#: more than with its kernel count (two columns per step in one kernel: no faster). XLA's compile time
#: grows with the number of distinct kernels and loops, i.e. with the number of static blocks and leaves.
CHOLESKY_STATIC_MAX = 256
CHOLESKY_STATIC_BLOCK = 16
CHOLESKY_LEFT_MAX = 2048
CHOLESKY_PANEL = 128
CHOLESKY_SMALL_PANEL = 64
CHOLESKY_SMALL_PANEL_MAX = 512
CHOLESKY_LEAF = 8
CHOLESKY_PANEL_LEAF = 8


def cholesky_block_size(n: int) -> int:
    """The column block of :func:`_cholesky_blocked` for order ``n``: :data:`CHOLESKY_BLOCK` up to 128,
    twice it beyond."""
    return CHOLESKY_BLOCK if n <= 128 else 2 * CHOLESKY_BLOCK


def _cholesky_blocked(e: Emitter, a: V, nb: int, segments: int) -> V:
    """(Beyond :data:`CHOLESKY_LEFT_MAX`.) Lower Cholesky factor of ``a`` (``[*batch, n, n]``, lower triangle read) by the blocked right-looking
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
    return _nan_fill(e, x)


def _nan_fill(e: Emitter, x: V) -> V:
    """``x`` (``[*batch, n, n]``) with every batch element that has a NaN on its diagonal filled with NaN
    (a factorization that met a NaN ``sqrt``: XLA's ``seen_error``)."""
    r = len(x.shape) - 2
    dg = diagonal_slice(e, x)
    bad = reduce_with(e, e.compare("NE", dg, dg, "FLOAT"), r, False, "or")
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


def build_cholesky(e: Emitter, a: V, lower: bool, unroll: bool | None = None, static_max: int | None = None) -> V:
    """``stablehlo.cholesky`` of ``a`` (``[*batch, n, n]``; f16, bf16, f32, f64, complex<f32/f64>).

    Returns the ``lower`` (else upper) triangular factor with zeros in the other triangle; only the
    ``lower`` (else upper) triangle of ``a`` is read. A batch element that is not positive definite (a
    non-positive or NaN pivot) comes back filled with NaN, as on XLA. ``unroll`` defaults to
    ``n <= UNROLL_LIMIT``. Beyond order :data:`CHOLESKY_UNBLOCKED` the blocked forms of the module
    docstring (the triangle not computed then zeroed by a ``select``); accuracy: Higham's bound
    ``||L L^H - A|| <= c n eps ||A||`` (*Accuracy and Stability of Numerical Algorithms*, 2nd ed., Thm
    10.3), the products by inverted diagonal blocks adding their condition numbers as in XLA's own
    blocked solves. ``static_max`` (default :data:`CHOLESKY_STATIC_MAX`): the largest order of the loop-free
    form (a caller that favours compile time passes a smaller one). Raises :class:`UnsupportedError` for
    another element type.
    """
    return _factor_and_diagonal(e, a, lower, unroll, static_max)[0]


def _factor_and_diagonal(e: Emitter, a: V, lower: bool, unroll: bool | None = None,
                         static_max: int | None = None) -> tuple[V, V | None]:
    """:func:`build_cholesky`'s factor and, on the static and panel paths, its diagonal ``[*batch, n]``
    (NaN-filled with it; read before the triangle ``select`` by a strided slice, so that the factor
    itself is read by one elementwise pass; None on the other paths)."""
    if a.t not in COMPUTE_TYPES:
        raise UnsupportedError(f"cholesky of element type '{a.t}' (expected one of {', '.join(COMPUTE_TYPES)})")
    n = a.shape[-1]
    if 0 in a.shape:
        return a, None  # no element to compute
    unroll = n <= UNROLL_LIMIT if unroll is None else unroll
    x = e.convert(a, COMPUTE_TYPES[a.t])
    if not lower:
        x = transpose_minor(e, x)
    dg = None
    if n > CHOLESKY_UNBLOCKED:
        if n <= (CHOLESKY_STATIC_MAX if static_max is None else static_max):
            f, dg = _cholesky_static(e, x, CHOLESKY_STATIC_BLOCK, CHOLESKY_LEAF)
        elif n <= CHOLESKY_LEFT_MAX:
            panel = CHOLESKY_SMALL_PANEL if n <= CHOLESKY_SMALL_PANEL_MAX else CHOLESKY_PANEL
            f, dg = _cholesky_left(e, x, panel, CHOLESKY_PANEL_LEAF)
        else:
            f = _cholesky_blocked(e, x, cholesky_block_size(n), CHOLESKY_SEGMENTS)
        r = len(x.shape) - 2
        keep = e.compare("GE", e.iota(x.shape, r, "i32"), e.iota(x.shape, r + 1, "i32"), "SIGNED")
        f = e.select(keep, f, e.const(0.0, f))
        if dg is None:
            f = _nan_fill(e, f)  # a NaN-filled element is NaN in both triangles
        else:
            bad = reduce_with(e, e.compare("NE", dg, dg, "FLOAT"), r, False, "or")
            f = e.select(e.broadcast_in_dim(bad, f.shape, list(range(r))), e.const(float("nan"), f), f)
            dg = e.select(e.broadcast_in_dim(bad, dg.shape, list(range(r))), e.const(float("nan"), dg), dg)
    else:
        f = _cholesky_lower(e, x, unroll)
    if not lower:
        f = transpose_minor(e, f)
    return e.convert(f, a.t), None if dg is None else e.convert(dg, a.t)


# -- blocked forms built from small diagonal blocks ---------------------------------------------------

def _leaf(e: Emitter, a: V, r: int) -> tuple[V, V]:
    """``(L, L^-1)`` of a small block ``a`` ``[*batch, b, b]`` (lower triangle read) by Gaussian
    elimination without pivoting on ``M = [A^H | I]`` (the upper triangle of ``A^H`` kept, the rest
    zero; LAPACK ``?potf2``'s upper form): a ``stablehlo.while`` of ``b`` steps, step ``j`` one fused
    elementwise kernel (and one scalar kernel, ``rsqrt`` of the pivot ``d = Re M[j, j]``) that subtracts
    ``f_i row_j`` from each row ``i > j`` with the multipliers ``f_i = conj(M[j, i]) / d`` read from row
    ``j`` (the Hermitian Schur complement's upper triangle) and divides row ``j`` by ``sqrt(d)`` (its
    diagonal entry ``sqrt(d)``; 0 for ``d = 0``, as LAPACK leaves it, not ``0 * inf``). Row ``j`` is
    then final: ``M`` ends as ``[L^H | L^-1]`` (``A = L_u D L_u^H``: ``D^-1/2 U = L^H`` and
    ``D^-1/2 L_u^-1 = L^-1``). A negative or NaN pivot gives NaN on the diagonal (the caller fills the
    element); the lower part of the left half is never read."""
    batch, b, t = a.shape[:r], a.shape[-1], a.t
    zi = e.scalar(0, "i32")
    z = [zi] * r
    full = list(range(r + 2))
    bd = list(range(r))
    shp = batch + [b, b]
    mshape = batch + [b, 2 * b]
    upper = e.compare("LE", e.iota(shp, r, "i32"), e.iota(shp, r + 1, "i32"), "SIGNED")
    m0 = e.concatenate([e.select(upper, adjoint(e, a), e.const(0.0, a)), identity_matrix(e, shp, t)], r + 1)
    cplx = t in COMPLEX_TYPES

    def as_t(v: V) -> V:  # a real value as element type t
        return e.complex(v, e.const(0.0, v)) if cplx else v

    def step(j: V, m: V) -> list[V]:
        mrows, mcols = e.iota(mshape, r, "i32"), e.iota(mshape, r + 1, "i32")  # in the body: not carried
        row = e.dynamic_slice(m, z + [j, zi], batch + [1, 2 * b])
        d = e.dynamic_slice(row, z + [zi, j], batch + [1, 1])
        rs = e.broadcast_in_dim(e.rsqrt(e.real(d) if cplx else d), mshape, full)
        rowb = e.broadcast_in_dim(e.reshape(row, batch + [2 * b]), mshape, bd + [r + 1])
        f = conj(e, e.reshape(e.slice(row, [0] * (r + 2), batch + [1, b]), batch + [b]))  # conj(M[j, i])
        below = m - e.broadcast_in_dim(f, mshape, bd + [r]) * as_t(rs * rs) * rowb
        dre = e.real(rowb) if cplx else rowb  # the pivot d in column j
        root = e.select(e.compare("EQ", dre, e.const(0.0, dre), "FLOAT"), dre, dre * rs)
        jj = e.broadcast_in_dim(j, mshape, [])
        pivot_row = e.select(e.compare("EQ", mcols, jj, "SIGNED"), as_t(root), rowb * as_t(rs))
        m = e.select(e.compare("GT", mrows, jj, "SIGNED"), below, m)
        return [e.select(e.compare("EQ", mrows, jj, "SIGNED"), pivot_row, m)]

    (m,) = loop(e, b, [m0], step, False)
    left = e.slice(m, [0] * (r + 2), shp)
    return adjoint(e, e.select(upper, left, e.const(0.0, left))), e.slice(m, [0] * r + [0, b], mshape)


def _chol_inv(e: Emitter, a: V, r: int, leaf: int, need_inv: bool) -> tuple[V, V | None]:
    """``(L, L^-1)`` of ``a`` ``[*batch, s, s]`` (lower triangle read) by recursion on halves (Gustavson,
    "Recursion leads to automatic variable blocking for dense linear-algebra algorithms", IBM J. Res.
    Dev. 41, 1997; Toledo, SIAM J. Matrix Anal. Appl. 18, 1997): ``L11`` and its inverse,
    ``L21 = A21 L11^-H``, ``L22`` of ``A22 - L21 L21^H``, and ``(L^-1)21 = -L22^-1 L21 L11^-1`` (products by
    :func:`~hlokit.passes.lapack.triangular_solve.small_dot`); blocks of at most ``leaf`` columns by
    :func:`_leaf`. The inverse is ``None`` unless ``need_inv`` (or ``s <= leaf``)."""
    s = a.shape[-1]
    if s <= leaf:
        return _leaf(e, a, r)
    batch, t = a.shape[:r], a.t
    z = [0] * r
    h = min(s - 1, leaf * -(-(-(-s // leaf)) // 2))  # half the leaves, rounded up
    m = s - h
    a11 = e.slice(a, z + [0, 0], batch + [h, h])
    a21 = e.slice(a, z + [h, 0], batch + [s, h])
    a22 = e.slice(a, z + [h, h], batch + [s, s])
    l11, i11 = _chol_inv(e, a11, r, leaf, True)
    l21 = small_dot(e, a21, adjoint(e, i11))
    l22, i22 = _chol_inv(e, a22 - small_dot(e, l21, adjoint(e, l21)), r, leaf, need_inv)
    zeros = e.const(0.0, t=t, shape=batch + [h, m])
    lo = e.concatenate([e.concatenate([l11, zeros], r + 1), e.concatenate([l21, l22], r + 1)], r)
    inv = None
    if need_inv:
        i21 = -small_dot(e, i22, small_dot(e, l21, i11))
        inv = e.concatenate([e.concatenate([i11, zeros], r + 1), e.concatenate([i21, i22], r + 1)], r)
    return lo, inv


def _panel_factor(e: Emitter, p: V, r: int, leaf: int) -> V:
    """Cholesky factor of a block column ``p`` ``[*batch, m, w]`` (its top ``w`` rows the diagonal block,
    lower triangle read; ``w`` a multiple of ``leaf``) already updated by the columns left of it: a
    ``stablehlo.while`` over its ``w / leaf`` column blocks, left-looking: block ``q`` is updated by one
    ``dot_general`` with the columns factored so far, its ``leaf x leaf`` diagonal block factored and
    inverted by :func:`_leaf`, the rows below multiplied by that inverse (one ``dot_general``)."""
    batch, m, w, t = p.shape[:r], p.shape[-2], p.shape[-1], p.t
    zi = e.scalar(0, "i32")
    z = [zi] * r
    rows = e.iota(batch + [m, leaf], r, "i32")

    def step(q: V, lp: V) -> list[V]:
        c0 = q * e.scalar(leaf, "i32")
        qc = e.dynamic_slice(p, z + [zi, c0], batch + [m, leaf])
        qc = qc - dot(e, lp, conj(e, e.dynamic_slice(lp, z + [c0, zi], batch + [leaf, w])), r, r + 1, r + 1)
        ld, idd = _leaf(e, e.dynamic_slice(qc, z + [c0, zi], batch + [leaf, leaf]), r)
        lq = dot(e, qc, conj(e, idd), r, r + 1, r + 1)
        lq = e.select(e.compare("LT", rows, e.broadcast_in_dim(c0, rows.shape, []), "SIGNED"), e.const(0.0, lq), lq)
        lq = e.dynamic_update_slice(lq, ld, z + [c0, zi])
        return [e.dynamic_update_slice(lp, lq, z + [zi, c0])]

    (lp,) = loop(e, w // leaf, [e.const(0.0, t=t, shape=batch + [m, w])], step, False)
    return lp


def _cholesky_left(e: Emitter, a: V, nb: int, leaf: int) -> tuple[V, V]:
    """Lower Cholesky factor of ``a`` ``[*batch, n, n]`` (lower triangle read; the upper triangle of the
    result is not zeroed) and its diagonal ``[*batch, n]`` by the blocked left-looking algorithm of
    :func:`_left_looking`, block columns of ``nb`` columns factored by :func:`_panel_factor` (one
    ``stablehlo.while``). The order is padded to a multiple of
    ``leaf`` with the identity. A NaN pivot leaves NaN on the diagonal (the caller fills the element)."""
    nb = max(leaf, nb // leaf * leaf)  # whole leaves per panel
    shape = a.shape
    r = len(shape) - 2
    batch, n0, t = shape[:r], shape[-1], a.t
    n = -(-n0 // leaf) * leaf
    if n > n0:  # identity padding: its factor is the identity, it couples with nothing
        a = e.pad(a, e.scalar(0, t), [0] * (r + 2), [0] * r + [n - n0, n - n0])
        eye = e.compare("EQ", e.iota(a.shape, r, "i32"), e.iota(a.shape, r + 1, "i32"), "SIGNED")
        pad = e.compare("GE", e.iota(a.shape, r, "i32"), e.const(n0, t="i32", shape=a.shape), "SIGNED")
        a = e.select(e.and_(eye, pad), e.const(1.0, t=t, shape=a.shape), a)

    def factor(panel: V, w: int, last: bool) -> V:
        return _panel_factor(e, panel, r, leaf)

    x, dg = _left_looking(e, a, nb, factor)
    if n > n0:
        x = e.slice(x, [0] * (r + 2), batch + [n0, n0])
        dg = e.slice(dg, [0] * (r + 1), batch + [n0])
    return x, dg


def _left_looking(e: Emitter, a: V, nb: int, factor: Callable[[V, int, bool], V]) -> tuple[V, V]:
    """The static loop of the left-looking blocked Cholesky on ``a`` ``[*batch, n, n]``: block column ``p``
    (``nb`` columns, the last one narrower) updated by one ``dot_general`` with the rows of the block
    columns already factored (from its diagonal block down: ``n^3 / 3`` multiply-adds in all, as LAPACK),
    then ``factor(panel, w, last) -> column`` (``last``: the last block column). The factor is written
    over ``a`` block column by block column (``dynamic_update_slice``, in place on XLA), so the rows the
    next update reads are one slice of it and the result needs no assembly. Returns ``(factor, its
    diagonal [*batch, n])``; above each diagonal block the factor keeps ``a``'s entries."""
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[-1]
    z = [0] * r
    zi = e.scalar(0, "i32")
    x = a
    j0 = 0
    while j0 < n:
        j1 = min(n, j0 + nb)
        w = j1 - j0
        panel = e.slice(x, z + [j0, j0], batch + [n, j1])
        if j0:
            below = e.slice(x, z + [j0, 0], batch + [n, j0])
            rowblk = e.slice(x, z + [j0, 0], batch + [j1, j0])
            panel = panel - dot(e, below, conj(e, rowblk), r, r + 1, r + 1)
        col = factor(panel, w, j1 >= n)
        x = e.dynamic_update_slice(x, col, [zi] * r + [e.scalar(j0, "i32"), e.scalar(j0, "i32")])
        j0 = j1
    return x, diagonal_slice(e, x)


def _cholesky_static(e: Emitter, a: V, nb: int, leaf: int) -> tuple[V, V]:
    """Lower Cholesky factor of ``a`` ``[*batch, n, n]`` (lower triangle read; the upper triangle of the
    result is not zeroed) and its diagonal ``[*batch, n]``: blocked left-looking (:func:`_left_looking`)
    with static shapes and no outer loop. Block column ``p`` (``nb`` columns, the last one narrower) has
    its diagonal block factored and inverted by :func:`_chol_inv`, the rows below multiplied by that
    inverse. A NaN pivot leaves NaN on the diagonal (the caller fills the element)."""
    shape = a.shape
    r = len(shape) - 2
    batch = shape[:r]
    z = [0] * r

    def factor(panel: V, w: int, last: bool) -> V:
        l11, i11 = _chol_inv(e, e.slice(panel, z + [0, 0], batch + [w, w]), r, leaf, not last)
        if last:
            return l11
        l21 = small_dot(e, e.slice(panel, z + [w, 0], batch + [panel.shape[r], w]), adjoint(e, i11))
        return e.concatenate([l11, l21], r)

    return _left_looking(e, a, nb, factor)

