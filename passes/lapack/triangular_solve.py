"""Triangular solve: LAPACK ``trsm`` as ``stablehlo.triangular_solve``, and that op expanded.

* :func:`build_trsm` -- the ``lapack_?trsm_ffi`` call (alpha 1) as one ``stablehlo.triangular_solve``
  (StableHLO spec, "triangular_solve").
* :func:`build_triangular_solve` -- ``stablehlo.triangular_solve`` in core StableHLO
  (``--stablehlo-expand-triangular-solve``), after XLA's expander (openxla/xla
  ``xla/service/triangular_solve_expander.cc``): every attribute combination is first brought to
  ``M X = B`` with ``M`` lower or upper triangular (``op(a)`` on the left; ``op(a)^T`` with ``B^T`` on the
  right, whose solution is ``X^T``); the triangle that is not read and (``unit_diagonal``) the diagonal are
  masked off once. Up to :data:`BLOCK_THRESHOLD` rows: substitution (``SolveDirectly``), step ``j``
  computes ``X[j] = (B[j] - M[j, :] X) / M[j, j]`` with one ``dot_general`` while the unsolved rows of
  ``X`` are still zero. Larger: ``SolveByInvertingDiagonalBlocks`` (an upper triangular ``M`` is made lower
  by reversing its rows and columns): the diagonal blocks of :data:`BLOCK_SIZE` rows are inverted together
  by one substitution loop batched over the blocks, then one loop over the blocks computes
  ``X_p = inv(M_pp) (B_p - M_p,<p X_<p)`` with two ``dot_general``; ``M`` is padded to whole blocks with
  an identity. A zero on the diagonal of ``a`` gives inf / NaN as on XLA (the spec leaves a singular
  ``a`` undefined). ``f16`` / ``bf16`` are computed in ``f32``. Run times: ``docs/lapack.md``.
"""

from __future__ import annotations

from hlokit.passes.builder import Emitter, Transpose, UnsupportedError, V
from hlokit.passes.lapack.matrix import (
    COMPUTE_TYPES, UNROLL_LIMIT, conj, dot, loop, reverse, transpose_minor,
)

__all__ = ["build_trsm", "BLOCK_THRESHOLD", "BLOCK_SIZE", "build_triangular_solve"]


#: LAPACK ``trans`` letter -> StableHLO ``transpose_a``.
_TRANSPOSE_A = {"N": Transpose.NO_TRANSPOSE, "T": Transpose.TRANSPOSE, "C": Transpose.ADJOINT}


def build_trsm(e: Emitter, a: V, b: V, side: str, uplo: str, trans: str, diag: str) -> V:
    """``trsm`` with alpha 1: ``x`` with ``op(a) x = b`` (side 'L') or ``x op(a) = b`` (side 'R').

    ``op`` is identity, transpose or conjugate transpose for ``trans`` 'N', 'T', 'C'; ``a`` is lower
    (``uplo`` 'L') or upper triangular, with an implicit unit diagonal for ``diag`` 'U'. One
    ``stablehlo.triangular_solve`` (StableHLO spec, "triangular_solve"); ``x`` has ``b``'s type.
    """
    return e.triangular_solve(a, b, left_side=side == "L", lower=uplo == "L", unit_diagonal=diag == "U",
                              transpose_a=_TRANSPOSE_A[trans])


#: Triangular solves with more rows than this are blocked (:func:`_blocked_lower`) in blocks of
#: ``BLOCK_SIZE`` rows; smaller ones are one substitution loop.
BLOCK_THRESHOLD = 32
BLOCK_SIZE = 16


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
    ``SolveByInvertingDiagonalBlocks``): the diagonal blocks are inverted together by one substitution
    loop (``block`` steps, batched over the blocks), then a ``while`` over the blocks computes
    ``X_p = inv(M_pp) (B_p - M_p,:p X_:p)`` with two ``dot_general``. ``M`` is padded to a multiple of
    ``block`` with an identity, ``B`` with zero rows."""
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
    # the diagonal blocks [*batch, nb, block, block]: mask the others, then sum the column blocks away
    row_block = rows / e.const(block, rows)
    col_block = cols / e.const(block, cols)
    same = e.compare("EQ", row_block, col_block, "SIGNED")
    blocks = e.reshape(e.select(same, m, e.const(0.0, m)), batch + [nb, block, nb, block])
    diag = e.reduce_sum(blocks, [r + 2])  # [*batch, nb, block, block]
    eye = e.select(e.compare("EQ", *_masks(e, batch + [nb, block, block]), "SIGNED"),
                   e.const(1.0, t=m.t, shape=batch + [nb, block, block]),
                   e.const(0.0, t=m.t, shape=batch + [nb, block, block]))
    inv = _substitute(e, diag, eye, True, unit, unroll=False)
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
        x = _blocked_lower(e, m, rhs, unit_diagonal, BLOCK_SIZE)
        if not lower:
            x = reverse(e, x, [-2])
    else:
        x = _substitute(e, m, rhs, lower, unit_diagonal, unroll)
    if not left_side:
        x = transpose_minor(e, x)
    return e.convert(x, b.t)
