"""Triangular solve: LAPACK ``trsm`` as ``stablehlo.triangular_solve``, and that op expanded.

* :func:`build_trsm` -- the ``lapack_?trsm_ffi`` call (alpha 1) as one ``stablehlo.triangular_solve``
  (StableHLO spec, "triangular_solve") up to order :data:`TRSM_NATIVE_MAX`, beyond as its expansion
  (:func:`build_triangular_solve`; XLA CPU's own is 2-7x LAPACK at n = 256-512).
* :func:`build_triangular_solve` -- ``stablehlo.triangular_solve`` in core StableHLO
  (``--stablehlo-expand-triangular-solve``), after XLA's expander (openxla/xla
  ``xla/service/triangular_solve_expander.cc``): every attribute combination is first brought to
  ``M X = B`` with ``M`` lower or upper triangular (``op(a)`` on the left; ``op(a)^T`` with ``B^T`` on the
  right, whose solution is ``X^T``); the triangle that is not read and (``unit_diagonal``) the diagonal are
  masked off once. Up to :data:`BLOCK_THRESHOLD` rows: substitution (``SolveDirectly``), step ``j``
  computes ``X[j] = (B[j] - M[j, :] X) / M[j, j]`` with one ``dot_general`` while the unsolved rows of
  ``X`` are still zero. Larger: ``SolveByInvertingDiagonalBlocks`` (an upper triangular ``M`` is made lower
  by reversing its rows and columns): the diagonal blocks of :data:`BLOCK_SIZE` rows are inverted together
  by recursion on halves (:func:`invert_lower`: batched products, no loop), then
  ``X_p = inv(M_pp) (B_p - M_p,<p X_<p)`` for each block: unrolled with static shapes up to
  :data:`STATIC_MAX` rows (:func:`_static_lower`), one ``stablehlo.while`` beyond
  (:func:`_blocked_lower`); ``M`` is padded to whole blocks with an identity. Products small enough
  (:data:`SMALL_DOT`) are a broadcast multiply and a ``reduce`` rather than a ``dot_general``
  (:func:`small_dot`). A zero on the diagonal of ``a`` gives inf / NaN as on XLA (the spec leaves a
  singular ``a`` undefined). ``f16`` / ``bf16`` are computed in ``f32``. Run times: ``docs/lapack.md``.
* Accuracy: the normwise backward error of substitution (Higham, *Accuracy and Stability of Numerical
  Algorithms*, 2nd ed., Thm 8.5) times the condition numbers of the inverted diagonal blocks (Du Croz
  and Higham, IMA J. Numer. Anal. 12, 1992), as XLA's own blocked solve.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import Emitter, Transpose, UnsupportedError, V
from hlokit.passes.lapack.matrix import (
    COMPUTE_TYPES, UNROLL_LIMIT, conj, dot, loop, reverse, transpose_minor,
)

__all__ = ["build_trsm", "BLOCK_THRESHOLD", "BLOCK_SIZE", "build_triangular_solve", "invert_lower", "small_dot"]


#: LAPACK ``trans`` letter -> StableHLO ``transpose_a``.
_TRANSPOSE_A = {"N": Transpose.NO_TRANSPOSE, "T": Transpose.TRANSPOSE, "C": Transpose.ADJOINT}


def build_trsm(e: Emitter, a: V, b: V, side: str, uplo: str, trans: str, diag: str) -> V:
    """``trsm`` with alpha 1: ``x`` with ``op(a) x = b`` (side 'L') or ``x op(a) = b`` (side 'R').

    ``op`` is identity, transpose or conjugate transpose for ``trans`` 'N', 'T', 'C'; ``a`` is lower
    (``uplo`` 'L') or upper triangular, with an implicit unit diagonal for ``diag`` 'U'. One
    ``stablehlo.triangular_solve`` (StableHLO spec, "triangular_solve") up to order
    :data:`TRSM_NATIVE_MAX`, its expansion :func:`build_triangular_solve` beyond (f32, f64, complex);
    ``x`` has ``b``'s type.
    """
    n = a.shape[-1]
    if n > TRSM_NATIVE_MAX and 0 not in b.shape and a.t in ("f32", "f64", "complex<f32>", "complex<f64>"):
        return build_triangular_solve(e, a, b, side == "L", uplo == "L", _TRANSPOSE_A[trans], diag == "U")
    return e.triangular_solve(a, b, left_side=side == "L", lower=uplo == "L", unit_diagonal=diag == "U",
                              transpose_a=_TRANSPOSE_A[trans])


#: ``build_trsm`` emits ``stablehlo.triangular_solve`` up to this order, its expansion
#: (:func:`build_triangular_solve`) beyond: XLA CPU's own (its expander with blocks of 128 and a
#: substitution loop per block) is 2-7x single-thread LAPACK at n = 256-512, the expansion 0.7-1.2x.
TRSM_NATIVE_MAX = 32


#: Triangular solves with more rows than this are blocked, in blocks of ``BLOCK_SIZE`` rows; smaller ones
#: are one substitution loop (:func:`_substitute`).
BLOCK_THRESHOLD = 32
BLOCK_SIZE = 32

#: Up to this order the blocked solve is loop-free (:func:`_static_lower`); beyond, one
#: ``stablehlo.while`` over the blocks (:func:`_blocked_lower`), whose compile time does not grow with
#: the order. Measured (XLA CPU, loaded 2-core machine, k = 2 right-hand sides, against single-thread
#: LAPACK): n = 256 f32 / f64: loop-free 1.16 / 1.16x, the loop 1.62 / 1.62x, XLA's own 4.3 / 7.2x;
#: n = 512: the loop 0.85 / 0.91x, loop-free 0.65 / 0.98x at 1.6x its compile time.
STATIC_MAX = 256


def _masks(e: Emitter, shape: list[int]) -> tuple[V, V]:
    """Row and column index (``iota``) of a matrix-shaped value, dimensions -2 and -1."""
    r = len(shape)
    return e.iota(shape, r - 2, "i32"), e.iota(shape, r - 1, "i32")


def _substitute(e: Emitter, m: V, b: V, lower: bool, unit: bool, unroll: bool) -> V:
    """``X`` with ``M X = B`` for ``M`` (``[*batch, n, n]``) lower or upper triangular, ``B``
    ``[*batch, n, k]``: forward (lower) or backward (upper) substitution, one row per step."""
    shape = m.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[-1]
    k = b.shape[-1]
    full_dims = list(range(r + 2))
    rows, cols = _masks(e, shape)
    strict = e.compare("GT" if lower else "LT", rows, cols, "SIGNED")
    ms = e.select(strict, m, e.const(0.0, m))
    invariants = [ms, b]
    if not unit:
        on_diag = e.select(e.compare("EQ", rows, cols, "SIGNED"), m, e.const(0.0, m))
        invariants.append(e.reshape(e.reduce_sum(on_diag, [r + 1]), batch + [n, 1]))

    def step(i: V, x: V, ms: V, b: V, *diag: V) -> list[V]:
        z = e.scalar(0, "i32")
        j = i if lower else e.scalar(n - 1, "i32") - i
        row = e.dynamic_slice(ms, [z] * r + [j, z], batch + [1, n])
        s = dot(e, row, x, r, r + 1, r)  # [*batch, 1, k]
        xj = e.dynamic_slice(b, [z] * r + [j, z], batch + [1, k]) - s
        if diag:
            dj = e.dynamic_slice(diag[0], [z] * r + [j, z], batch + [1, 1])
            xj = xj / e.broadcast_in_dim(dj, batch + [1, k], full_dims)
        return [e.dynamic_update_slice(x, xj, [z] * r + [j, z]), ms, b, *diag]

    x, *_ = loop(e, n, [e.const(0.0, b), *invariants], step, unroll)
    return x


def _pad_minor(e: Emitter, x: V, rows: int, cols: int) -> V:
    """``x`` with ``rows`` zero rows and ``cols`` zero columns appended (``stablehlo.pad``)."""
    r = len(x.shape)
    return e.pad(x, e.scalar(0.0, x.t), [0] * r, [0] * (r - 2) + [rows, cols])


def _blocked_lower(e: Emitter, m: V, b: V, unit: bool, block: int) -> V:
    """``X`` with ``M X = B``, ``M`` lower triangular, by blocks of ``block`` rows (XLA's
    ``SolveByInvertingDiagonalBlocks``): the diagonal blocks are inverted together by
    :func:`invert_lower` (no loop), then a ``while`` over the blocks computes
    ``X_p = inv(M_pp) (B_p - M_p,:p X_:p)`` with two ``dot_general`` (the blocks right of ``p`` masked to
    zero once). ``M`` is padded to a multiple of ``block`` with an identity, ``B`` with zero rows."""
    shape = m.shape
    r = len(shape) - 2
    batch, n, k = shape[:r], shape[-1], b.shape[-1]
    nb = -(-n // block)
    big = nb * block
    if big != n:
        m = _pad_minor(e, m, big - n, big - n)
        b = _pad_minor(e, b, big - n, 0)
        rows, cols = _masks(e, batch + [big, big])
        pad_diag = e.and_(e.compare("EQ", rows, cols, "SIGNED"), e.compare("GE", rows, e.const(n, rows), "SIGNED"))
        m = e.select(pad_diag, e.const(1.0, m), m)
    rows, cols = _masks(e, batch + [big, big])
    row_block = rows / e.const(block, rows)
    col_block = cols / e.const(block, cols)
    diag = _diagonal_blocks(e, m, block)  # [*batch, nb, block, block]
    drows, dcols = _masks(e, diag.shape)
    inv = invert_lower(e, e.select(e.compare("GT" if unit else "GE", drows, dcols, "SIGNED"), diag,
                                   e.const(0.0, diag)), unit)
    # the blocks left of the diagonal block, row by row: X rows not solved yet are zero anyway
    left = e.select(e.compare("LT", col_block, row_block, "SIGNED"), m, e.const(0.0, m))

    def step(p: V, x: V, left: V, b: V, inv: V) -> list[V]:
        z = e.scalar(0, "i32")
        start = p * e.scalar(block, "i32")
        panel = e.dynamic_slice(left, [z] * r + [start, z], batch + [block, big])
        rhs = e.dynamic_slice(b, [z] * r + [start, z], batch + [block, k]) - dot(e, panel, x, r, r + 1, r)
        ip = e.reshape(e.dynamic_slice(inv, [z] * r + [p, z, z], batch + [1, block, block]), batch + [block, block])
        xp = dot(e, ip, rhs, r, r + 1, r)
        return [e.dynamic_update_slice(x, xp, [z] * r + [start, z]), left, b, inv]

    x, *_ = loop(e, nb, [e.const(0.0, b), left, b, inv], step, unroll=False)
    if big != n:
        x = e.slice(x, [0] * (r + 2), batch + [n, k])
    return x


def _diagonal_blocks(e: Emitter, m: V, block: int) -> V:
    """The ``count`` diagonal blocks of ``m`` (``[*batch, count * block, count * block]``) as
    ``[*batch, count, block, block]`` (static slices, one ``concatenate``)."""
    r = len(m.shape) - 2
    batch, n = m.shape[:r], m.shape[-1]
    z = [0] * r
    parts = [e.reshape(e.slice(m, z + [p, p], batch + [p + block, p + block]), batch + [1, block, block])
             for p in range(0, n, block)]
    return e.concatenate(parts, r) if len(parts) > 1 else parts[0]


#: Products ``x @ y`` whose broadcast product has at most this many elements (batch included) are a
#: broadcast multiply and a ``reduce`` (one fused loop on XLA CPU) rather than ``dot_general`` (a
#: library call, several microseconds even when tiny).
SMALL_DOT = 4096


def small_dot(e: Emitter, x: V, y: V) -> V:
    """``x @ y`` for ``x`` ``[*batch, m, k]``, ``y`` ``[*batch, k, q]``: ``dot_general``, or a broadcast
    multiply summed over ``k`` when that product has at most :data:`SMALL_DOT` elements."""
    r = len(x.shape) - 2
    batch, m, k, q = x.shape[:r], x.shape[-2], x.shape[-1], y.shape[-1]
    if math.prod(batch + [m, k, q]) > SMALL_DOT:
        return dot(e, x, y, r, r + 1, r)
    bd = list(range(r))
    full = batch + [m, k, q]
    return e.reduce_sum(e.broadcast_in_dim(x, full, bd + [r, r + 1]) * e.broadcast_in_dim(y, full, bd + [r + 1, r + 2]),
                        [r + 1])


def invert_lower(e: Emitter, t: V, unit: bool) -> V:
    """Inverses of the lower triangular matrices ``t`` ``[*batch, s, s]`` (only the lower triangle read;
    with ``unit`` the diagonal taken as ones) by recursion on halves, the two halves of every matrix
    inverted together as one batch: ``inv([[A, 0], [C, D]]) = [[A^-1, 0], [-D^-1 C A^-1, D^-1]]``
    (the block form of Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §14.2; Du Croz
    and Higham, "Stability of methods for matrix inversion", IMA J. Numer. Anal. 12, 1992): ``log2 s``
    levels of two batched products (:func:`small_dot`), no loop. A zero diagonal entry gives inf / NaN."""
    r = len(t.shape) - 2
    batch, s = t.shape[:r], t.shape[-1]
    flat = e.reshape(t, [math.prod(batch), s, s])
    return e.reshape(_invert_lower3(e, flat, unit), t.shape)


def _invert_lower3(e: Emitter, t: V, unit: bool) -> V:
    """:func:`invert_lower` of ``t`` ``[count, s, s]``."""
    count, s = t.shape[0], t.shape[-1]
    if s == 1:
        return e.const(1.0, t) if unit else e.const(1.0, t) / t
    h = (s + 1) // 2
    a = e.slice(t, [0, 0, 0], [count, h, h])
    c = e.slice(t, [0, h, 0], [count, s, h])
    d = e.slice(t, [0, h, h], [count, s, s])
    if s - h == h:  # both halves in one call, stacked along the batch
        both = _invert_lower3(e, e.concatenate([a, d], 0), unit)
        ai, di = e.slice(both, [0, 0, 0], [count, h, h]), e.slice(both, [count, 0, 0], [2 * count, h, h])
    else:
        ai, di = _invert_lower3(e, a, unit), _invert_lower3(e, d, unit)
    ci = -small_dot(e, di, small_dot(e, c, ai))
    zeros = e.const(0.0, t=t.t, shape=[count, h, s - h])
    return e.concatenate([e.concatenate([ai, zeros], 2), e.concatenate([ci, di], 2)], 1)


def _static_lower(e: Emitter, m: V, b: V, unit: bool, block: int) -> V:
    """``X`` with ``M X = B``, ``M`` lower triangular ``[*batch, n, n]``, by blocks of ``block`` rows with
    static shapes and no loop: the diagonal blocks masked to their lower triangle and inverted together
    (:func:`invert_lower`), then for each block ``X_p = inv(M_pp) (B_p - M_p,<p X_<p)`` with two
    ``dot_general`` (the substitution of XLA's ``SolveByInvertingDiagonalBlocks``, unrolled). ``M`` is
    padded to whole blocks with an identity."""
    shape = m.shape
    r = len(shape) - 2
    batch, n, k = shape[:r], shape[-1], b.shape[-1]
    z = [0] * r
    count = -(-n // block)
    big = count * block
    if big != n:
        m = _pad_minor(e, m, big - n, big - n)
        b = _pad_minor(e, b, big - n, 0)
    diag = _diagonal_blocks(e, m, block)  # [*batch, count, block, block]
    rows, cols = _masks(e, diag.shape)
    keep = e.compare("GT" if unit else "GE", rows, cols, "SIGNED")
    if big != n:  # the padding's diagonal: ones
        pos = rows + e.broadcast_in_dim(e.iota([count], 0, "i32") * e.const(block, t="i32", shape=[count]),
                                        diag.shape, [r])
        pad = e.and_(e.compare("EQ", rows, cols, "SIGNED"), e.compare("GE", pos, e.const(n, pos), "SIGNED"))
        diag = e.select(pad, e.const(1.0, diag), diag)
    inv = invert_lower(e, e.select(keep, diag, e.const(0.0, diag)), unit)
    xs = []
    for p in range(count):
        lo = p * block
        rhs = e.slice(b, z + [lo, 0], batch + [lo + block, k])
        if p:
            panel = e.slice(m, z + [lo, 0], batch + [lo + block, lo])
            done = e.concatenate(xs, r) if len(xs) > 1 else xs[0]
            rhs = rhs - small_dot(e, panel, done)
        ip = e.reshape(e.slice(inv, z + [p, 0, 0], batch + [p + 1, block, block]), batch + [block, block])
        xs.append(small_dot(e, ip, rhs))
    x = e.concatenate(xs, r) if count > 1 else xs[0]
    return e.slice(x, [0] * (r + 2), batch + [n, k]) if big != n else x


def build_triangular_solve(e: Emitter, a: V, b: V, left_side: bool, lower: bool, transpose_a: str,
                           unit_diagonal: bool, unroll: bool | None = None) -> V:
    """``stablehlo.triangular_solve``: ``x`` with ``op(a) x = b`` (``left_side``) or ``x op(a) = b``.

    ``a``: ``[*batch, n, n]``, lower or upper triangular (only that triangle is read; with
    ``unit_diagonal`` the diagonal is taken as ones and not read); ``b``: ``[*batch, n, k]`` (left) or
    ``[*batch, k, n]`` (right); ``op`` is identity, transpose or conjugate transpose for
    ``transpose_a`` ``NO_TRANSPOSE``, ``TRANSPOSE``, ``ADJOINT``. Element types f16, bf16, f32, f64,
    complex<f32/f64>. ``unroll`` defaults to ``n <= UNROLL_LIMIT``. Raises :class:`UnsupportedError`
    for another element type or transpose_a.
    """
    if a.t not in COMPUTE_TYPES:
        raise UnsupportedError(
            f"triangular_solve of element type '{a.t}' (expected one of {', '.join(COMPUTE_TYPES)})")
    if transpose_a not in _TRANSPOSE_A.values():
        raise UnsupportedError(f"triangular_solve with transpose_a {transpose_a}")
    n = a.shape[-1]
    if 0 in b.shape:
        return b  # no element to compute
    unroll = n <= UNROLL_LIMIT if unroll is None else unroll
    ct = COMPUTE_TYPES[a.t]
    m, rhs = e.convert(a, ct), e.convert(b, ct)
    # op(a) on the left; op(a)^T on the right (x op(a) = b  <=>  op(a)^T x^T = b^T)
    flip = (transpose_a != "NO_TRANSPOSE") == left_side
    if flip:
        m = transpose_minor(e, m)
    if transpose_a == "ADJOINT":
        m = conj(e, m)
    if not left_side:
        rhs = transpose_minor(e, rhs)
    lower = lower != flip
    if n > BLOCK_THRESHOLD:
        if not lower:  # reversing rows and columns makes an upper triangular matrix lower triangular
            m, rhs = reverse(e, m, [-2, -1]), reverse(e, rhs, [-2])
        if n <= STATIC_MAX:
            x = _static_lower(e, m, rhs, unit_diagonal, BLOCK_SIZE)
        else:
            x = _blocked_lower(e, m, rhs, unit_diagonal, BLOCK_SIZE)
        if not lower:
            x = reverse(e, x, [-2])
    else:
        x = _substitute(e, m, rhs, lower, unit_diagonal, unroll)
    if not left_side:
        x = transpose_minor(e, x)
    return e.convert(x, b.t)
