"""Symmetric tridiagonal eigensolver by divide and conquer (the route of LAPACK ``dstedc``).

:func:`tridiagonal_eigh` computes all eigenvalues and eigenvectors of a batch of real symmetric tridiagonal
matrices with Cuppen's divide and conquer (J. J. M. Cuppen, "A divide and conquer method for the symmetric
tridiagonal eigenproblem", Numer. Math. 36, 1981) in the form of LAPACK ``dstedc`` / ``dlaed0`` ..
``dlaed4`` (documentation at https://www.netlib.org/lapack/explore-html/) and the stable eigenvectors of
M. Gu and S. C. Eisenstat ("A divide-and-conquer algorithm for the symmetric tridiagonal eigenproblem",
SIAM J. Matrix Anal. Appl. 16, 1995). Written for XLA CPU, where every sequential step (a
``stablehlo.while`` iteration) costs microseconds: each merge level is done for all subproblems of the
level at once, the secular equations for all roots at once, the eigenvector update as one batched
``dot_general``.

Steps (the matrix scaled by its largest entry first, LAPACK ``dlascl``):

1. Pad the order to ``N = m0 2^L`` (:func:`plan_levels`) with decoupled diagonal entries :data:`PAD` that lie
   beyond every eigenvalue of every torn subproblem (Gershgorin: ``|lambda| <= 5`` after scaling) and are
   left out of the deflation tolerances; they are sliced off at the end.
2. Tear the matrix at every leaf boundary: the rank-one pieces ``rho v v^T`` with
   ``v = e_k + sign(beta) e_{k+1}``, ``rho = |beta|``, subtracted from the two diagonal entries.
3. Leaves of order ``m0`` (at most :data:`LEAF_MAX`, f32 :data:`LEAF_MAX_F32`) by the Jacobi method of
   :func:`hlokit.passes.lapack.jacobi.build_syevd` (``m0 = 1``: nothing to do).
4. ``L`` merge levels, each for all its subproblems of order ``m`` at once (:func:`_merge`):
   ``D + rho z z^T`` with ``z`` from the last row of the left child's eigenvectors and the first row of the
   right one's (``dlaed2`` normalisation ``||z|| = 1``); deflation of small ``rho |z_i|`` and of clusters
   of poles closer than ``dlaed2``'s tolerance ``8 eps max(|d|, rho |z|)`` (one Householder reflector per
   cluster in place of ``dlaed2``'s chain of Givens rotations, so no sequential scan); the secular equation
   ``1/rho + sum z_j^2 / (d_j - lambda) = 0`` for all roots at once by the two-pole rational iteration of
   ``dlaed4`` (each root kept relative to its nearer pole, safeguarded by a bracket and bisection, at most
   :data:`MAX_SECULAR_ITERATIONS` steps; :func:`_secular_roots`: each step's terms formed from vectors,
   summed in two passes (:data:`SECULAR_SUM_SPLIT`); in levels of order :data:`SECULAR_COMPACT_MIN` (f32
   :data:`SECULAR_COMPACT_MIN_F32`) and more, once few roots are left, only those are iterated, gathered with
   their poles); ``z`` recomputed from the roots (Gu & Eisenstat's Loewner formula) and the eigenvectors
   ``z_j / (d_j - lambda)`` normalised; the children's eigenvectors times these as one batched
   ``dot_general``. The level's three stable sorts (poles by deflation and value, cluster representatives
   first, back to the children's order) by ranks and gathers up to order :data:`RANK_SORT_MAX`
   (:func:`_rank_sort`).
   The levels of order up to :data:`GROUPED_BLOCK` but the top one run as a
   single ``while`` loop over levels (:func:`_merge_grouped`): blocks of that order, each holding its
   subproblems side by side, every sum, maximum, sort and secular root restricted to an entry's own
   subproblem by a mask, so that XLA compiles one level's code for them all.
5. Eigenvalues ascending with their vectors (the top level sorts its roots' data before it forms the
   eigenvector matrix, so the columns come in order; a single leaf is sorted and gathered), scaled back; a
   matrix with a NaN or infinite entry gets NaN eigenvalues and vectors.

Accuracy (tests/pytest/test_lapack_stedc.py): ``||T Z - Z W|| <= C n eps ||T||``,
``||Z^T Z - I|| <= C n eps``, eigenvalues within ``C n eps ||T||`` of LAPACK's.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import Emitter, V
from hlokit.passes.lapack import jacobi
from hlokit.passes.lapack.matrix import any_true, dot, finfo, reduce_with, shift_down, shift_up, slice_dim, splat

__all__ = ["LEAF_MAX", "LEAF_MAX_F32", "GROUPED_BLOCK", "PAD", "MAX_SECULAR_ITERATIONS", "RANK_SORT_MAX", "SECULAR_COMPACT",
           "SECULAR_COMPACT_MIN", "SECULAR_COMPACT_MIN_F32", "SECULAR_SUM_SPLIT",
           "SECULAR_POLE_STEP", "SECULAR_SWITCH_LAPACK", "tridiagonal_eigh", "plan_levels", "leaf_max", "merge_steps",
           "padded_leaves", "scaled_by_largest"]


#: Largest leaf order solved by Jacobi; the order is padded to ``m0 2^L`` with ``m0 <= LEAF_MAX`` (the
#: smallest such padded order, then the largest ``m0``: fewer merge levels, each a separate piece of code to
#: compile).
LEAF_MAX = 8

#: :data:`LEAF_MAX` of f32 matrices (complex<f32> ones reduce to them): leaves of order 4 and one merge level
#: more. Measured (XLA CPU, same process, interleaved, loaded machine): the f32 solver at n = 256 with
#: :data:`SECULAR_COMPACT_MIN_F32` 3.65 -> 3.36 and 3.30 -> 3.13 ms (best; p10 3.96 -> 3.51), its compile CPU
#: -3 % to +11 % over runs (the whole eigh's +0 to 6 %); at n = 512 unchanged (11.2 -> 11.7 ms best, 12.0 ->
#: 12.1 p10; compile +6 %); f64 (more Jacobi sweeps per leaf) gains nothing.
LEAF_MAX_F32 = 4

#: Diagonal value of the padding entries in the scaled matrix (every eigenvalue of a torn subproblem of the
#: scaled matrix is at most 5 in magnitude); entries with ``|d| >= PAD / 2`` are padding.
PAD = 16.0

#: Steps of the secular-equation iteration at most (each halves the bracket at least when the rational step
#: leaves it).
MAX_SECULAR_ITERATIONS = 64

#: The secular loop of a level runs on all roots until at most one in this many is left, then on those alone
#: (0: all roots to the end), in levels of subproblems of order at least :data:`SECULAR_COMPACT_MIN`.
SECULAR_COMPACT = 8

#: See :data:`SECULAR_COMPACT` (below it a step's cost is mostly fixed per-op overhead, not the terms).
#: Measured (XLA CPU, one process, interleaved; CPU ms, loaded machine): the solver alone at f64 n = 256
#: 6.5 -> 5.0 (compacting from order 128: 5.2), f32 n = 512 15.3 -> 13.5; f32 n = 256 (roots converge in
#: 3-4 steps, at most 6-9) unchanged.
SECULAR_COMPACT_MIN = 256

#: :data:`SECULAR_COMPACT_MIN` of f32 matrices: f32 roots converge in 3-4 steps, 9-10 at most, so at order 256
#: the compacted loop saves no time (3.65 / 3.70 ms) and costs about 2 s of compile CPU (16 %).
SECULAR_COMPACT_MIN_F32 = 512


#: Merge levels of subproblems of order up to this do their stable sorts by ranks (:func:`_rank_sort`: each
#: entry's rank counted by one ``m x m`` compare and a ``dot_general``, the permutation inverted the same way,
#: the operands gathered; the sort back to the children's order a gather by the first sort's ranks) in place
#: of ``stablehlo.sort``, whose XLA CPU kernel calls the comparator per comparison; 0: comparator sorts.
#: The same permutation either way (ties by position), so the same results. Measured (XLA CPU, same process,
#: interleaved, loaded machine): the solver alone at f32 n = 256 2.87 -> 2.31 ms best (ranks up to order 128
#: only: 2.43, 64: 2.63); the whole eigh f32 256 5.42 -> 4.84 ms, f64 256 8.64 -> 8.27, f32 512 19.5 -> 18.6
#: (ranks at order 512 too: the same); the solver alone at f64 512 16.3 -> 15.9 ms. A sort of 64 x 4 entries
#: (4 operands, two keys) costs ~28 us more than no sort, its ranks ~3 us. XLA compile CPU of the whole eigh
#: +0-10 % (f64 512: 18.5, 19.8 -> 19.7, 21.1 s).
RANK_SORT_MAX = 256


#: The secular step's sums over the ``m`` terms of each root run in two ``reduce`` ops: the terms as
#: ``[m / k, k]``, summed over ``m / k`` (``k`` partial sums side by side, which XLA CPU's reduce loop
#: vectorises), then over ``k`` (0, or ``m`` not a multiple of ``k`` larger than ``k``: one reduce over ``m``,
#: a scalar loop). Measured (XLA CPU, same process, interleaved, loaded machine): the solver alone at f32
#: n = 256 2.52 -> 1.82 ms best (k 8: 2.27, 32: 1.94), f64 4.02 -> 3.57 ms; a 256 x 256 micro-benchmark of the
#: four sums 129 -> 33 us. The summation order differs from one pass's (rounding, not accuracy).
SECULAR_SUM_SPLIT = 16

#: The secular step switches between the fixed weight and the middle way models as LAPACK ``dlaed4`` does:
#: where ``f`` at the new point kept the previous point's sign and ``|f|`` did not drop tenfold, effective for
#: the step from the new point (False: on ``|f|`` alone, effective one step later).
SECULAR_SWITCH_LAPACK = True

#: Where the secular step leaves the bracket, the root of the one-pole model (the origin pole's term with its
#: own weight, the rest of ``f`` constant) is taken when it lies inside, before bisection: a root within
#: ``eps |tau|`` of its origin pole (a small weight not deflated) is found in one step, not by halving.
#: With :data:`SECULAR_SWITCH_LAPACK`, the secular steps of all levels at order 256 (sytrd of a random
#: matrix) f32 38 -> 36, f64 46 -> 37 (the compacted top level 16 -> 7); same-process A/B (loaded machine):
#: the solver alone f64 256 3.91 -> 3.75 ms best, f64 512 11.1 -> 10.6 ms, the whole eigh f64 256 8.46 ->
#: 8.08 ms; f32 within noise. Both False: the previous program, byte for byte.
SECULAR_POLE_STEP = True


#: The merge levels of subproblems of order up to this (not the top level; at least two of them) run as one
#: ``while`` loop of :func:`_merge_grouped` (blocks of this order, each holding several subproblems side by
#: side, masks restricting every sum, sort and root to its subproblem) instead of one piece of code per level
#: (:func:`_merge`): XLA compiles one level's code instead of several (0: every level by :func:`_merge`).
#: Measured (XLA CPU, the whole eigh, same process, interleaved; loaded machine; compile CPU seconds, run time
#: p10): f32 n = 256 (leaves of 4: levels 8, 16, 32 folded) 21.7 -> 15.6 s, 5.83 -> 5.86 ms; f64 n = 256
#: (leaves of 8: levels 16, 32) 18.0 -> 16.2 s, 9.41 -> 9.45 ms; f64 n = 512 24.8 -> 20.3 s, 40.3 -> 41.5 ms.
#: Blocks of 64 fold one level more (f32 256: 12.5 s) but cost 3 % (f32) to 5-8 % (f64, the solver alone) of
#: the run time at n = 256: the lowest level's masked work is 8 (f64: 4) times its own.
GROUPED_BLOCK = 32


def _grouped_levels(m0: int, levels: int) -> int:
    """How many of the ``levels`` merge levels above leaves of order ``m0`` run in :func:`_merge_grouped`'s
    loop: those of order up to :data:`GROUPED_BLOCK`, the top level never, and none unless at least two."""
    if not GROUPED_BLOCK:
        return 0
    k = 0
    while k < levels - 1 and m0 * 2 ** (k + 1) <= GROUPED_BLOCK:
        k += 1
    return k if k >= 2 else 0


def plan_levels(n: int, leaf_max: int | None = None) -> tuple[int, int]:
    """``(m0, levels)``: the leaf order and the number of merge levels for order ``n`` (leaves of order at most
    ``leaf_max``, default :data:`LEAF_MAX`)."""
    best = None
    for m0 in range(1, (leaf_max or LEAF_MAX) + 1):
        levels = max(0, math.ceil(math.log2(n / m0))) if n > m0 else 0
        size = m0 * 2 ** levels
        if best is None or size <= best[0]:
            best = (size, m0, levels)
    return best[1], best[2]


def scaled_by_largest(e: Emitter, d: V, off: V) -> tuple[V, V, V, V]:
    """``(d / s, off / s, s, finite)`` for the ``[B, n]`` diagonal and ``[B, n - 1]`` off-diagonal of a
    tridiagonal or bidiagonal matrix (LAPACK ``dlascl`` before ``dstedc`` / ``dbdsdc``): ``s`` ``[B]`` its largest
    entry's magnitude (1 where that is 0 or where an entry is not finite), ``finite`` (i1 ``[B]``) no entry is
    NaN or infinite."""
    b, n = d.shape
    t = d.t
    scale = e.maximum(reduce_with(e, e.abs(d), 1, 0.0, "maximum"), reduce_with(e, e.abs(off), 1, 0.0, "maximum"))
    finite = e.and_(reduce_with(e, e.is_finite(d), 1, True, "and"), reduce_with(e, e.is_finite(off), 1, True, "and"))
    scale = e.select(e.and_(finite, e.compare("GT", scale, splat(e, 0, t, [b]), "FLOAT")), scale, splat(e, 1, t, [b]))
    return d / _bc(e, scale, [b, n], [0]), off / _bc(e, scale, [b, n - 1], [0]), scale, finite


def padded_leaves(e: Emitter, d: V, off: V, pad: float) -> tuple[int, int, V, V, V, V]:
    """The divide-and-conquer layout of the ``[B, n]`` diagonal ``d`` and ``[B, n - 1]`` off-diagonal ``off``
    (f32 or f64): ``(m0, levels, dp, op, pos, last)`` -- leaves of order ``m0`` under ``levels`` merge levels
    (:func:`plan_levels` with :func:`leaf_max`), ``dp`` ``[B, N]`` (``N = m0 2^levels``) ``d`` followed by
    ``pad``, ``op`` ``[B, N]`` ``off`` followed by zeros (``op[i]`` couples ``i`` and ``i + 1``: the padding is
    decoupled), ``pos`` the i32 positions and ``last`` (i1) where a leaf ends."""
    b, n = d.shape
    t = d.t
    m0, levels = plan_levels(n, leaf_max(t))
    nn = m0 * 2 ** levels
    dp = e.concatenate([d, splat(e, pad, t, [b, nn - n])], 1) if nn > n else d
    op = e.concatenate([off, splat(e, 0, t, [b, nn - n + 1])], 1)
    pos = e.iota([b, nn], 1, "i32")
    last = e.compare("EQ", e.remainder(pos + 1, splat(e, m0, "i32", [b, nn])), splat(e, 0, "i32", [b, nn]), "SIGNED")
    return m0, levels, dp, op, pos, last


def leaf_max(t: str) -> int:
    """:data:`LEAF_MAX` or :data:`LEAF_MAX_F32` for element type ``t``."""
    return LEAF_MAX_F32 if t == "f32" else LEAF_MAX


def _compact_min(t: str) -> int:
    """:data:`SECULAR_COMPACT_MIN` or :data:`SECULAR_COMPACT_MIN_F32` for element type ``t``."""
    return SECULAR_COMPACT_MIN_F32 if t == "f32" else SECULAR_COMPACT_MIN


def _bc(e: Emitter, x: V, shape, dims) -> V:
    return e.broadcast_in_dim(x, shape, dims)


def _sel(e: Emitter, p: V, x: V) -> V:
    """``x`` where ``p``, else 0."""
    return e.select(p, x, splat(e, 0, x.t, x.shape))


def _leaves(e: Emitter, dt: V, offp: V, m0: int) -> tuple[V, V]:
    """Eigenvalues ``[B, N/m0, m0]`` and vectors ``[B, N/m0, m0, m0]`` of the torn leaves."""
    b, nn = dt.shape
    t = dt.t
    k = nn // m0
    if m0 == 1:
        return e.reshape(dt, [b, k, 1]), splat(e, 1, t, [b, k, 1, 1])
    shape = [b, k, m0, m0]
    rows, cols = e.iota(shape, 2, "i32"), e.iota(shape, 3, "i32")
    dl = _bc(e, e.reshape(dt, [b, k, m0]), shape, [0, 1, 2])
    ol = e.reshape(offp, [b, k, m0])  # entry i couples i and i + 1 (the last one of a leaf: a tear)
    sub = _bc(e, ol, shape, [0, 1, 3])  # a[i + 1, i] = off[i]
    a = e.select(e.compare("EQ", rows, cols, "SIGNED"), dl,
                 _sel(e, e.compare("EQ", rows, cols + 1, "SIGNED"), sub))
    v, w, _ = jacobi.build_syevd(e, a, True)
    return w, v


def _order_key(e: Emitter, x: V) -> V:
    """An integer key (SIGNED compare) ordered as ``x``: i1 -> i32, integers as they are, f32 / f64 -> the
    same-width integer whose order is the ``TOTALORDER`` one (-NaN < -inf < ... < -0 < +0 < ... < NaN:
    the sign bit's complement applied to the other bits of a negative value)."""
    if x.t == "i1":
        return e.convert(x, "i32")
    bits = {"f32": ("i32", 31), "f64": ("i64", 63)}.get(x.t)
    if bits is None:
        return x
    it, sh = bits
    b = e.bitcast_convert(x, it)
    low = e.and_(e.shift_right_arithmetic(b, splat(e, sh, it, x.shape)), splat(e, (1 << sh) - 1, it, x.shape))
    return e.xor(b, low)


def _take_last(e: Emitter, arrays: list[V], perm: V) -> list[V]:
    """``x[..., perm]`` along the last dimension for each ``x`` of ``arrays``, all and ``perm`` (i32)
    ``[B, S, m]``: one flat gather each (XLA fuses it into its users; stacking the arrays into one gather was
    slower: the whole solver at f32 n = 256 2.37 -> 2.85 ms)."""
    b, s, m = perm.shape
    k = b * s * m
    flat = e.reshape(perm + e.iota([b, s, m], 1, "i32") * m + e.iota([b, s, m], 0, "i32") * (s * m), [k])
    return [e.reshape(_gather_rows(e, e.reshape(x, [k]), flat), [b, s, m]) for x in arrays]


def _rank_sort(e: Emitter, keys: list[V], arrays: list[V], group: V | None = None,
               start: V | None = None) -> tuple[list[V], V, V]:
    """The stable sort of ``arrays`` (each ``[B, S, m]``) along the last dimension by ``keys`` (lexicographic,
    ascending; floats in ``TOTALORDER``, i1 false first), ties by position: what ``stablehlo.sort`` with
    ``is_stable`` and that comparator gives, bit for bit. Returns ``(sorted arrays, rank, perm)`` (i32):
    ``rank_i`` the position entry ``i`` moves to, ``perm_r`` the entry that moves to ``r`` (``y[..., rank]``
    puts a sorted ``y`` back). Each entry's rank counts the entries before it (one fused ``m x m`` compare,
    summed by a ``dot_general`` with ones); ``perm`` is the rank's inverse (``perm_r = sum_i i [rank_i = r]``,
    the same way), the arrays gathered by it. The sums (at most ``m`` ones, indices below ``m``) are exact in
    f32 up to ``m = 2^24``. The ranking idea is a counting sort's (Knuth, TAOCP vol. 3, 5.2 "sorting by
    counting"), done for all pairs at once.

    With ``group`` (i1 ``[B, S, m, m]``, ``[.., i, j]``: entries ``i`` and ``j`` belong to the same run) and
    ``start`` (i32 ``[B, S, m]``: the position where each entry's run begins), each run of consecutive entries
    is sorted on its own, in place (:func:`_merge_grouped`)."""
    b, s, m = keys[0].shape
    mat = [b, s, m, m]
    rows, cols = e.iota(mat, 2, "i32"), e.iota(mat, 3, "i32")
    before = e.compare("LT", cols, rows, "SIGNED")  # [.., i, j]: entry j goes before entry i
    for k in reversed(keys):
        k = _order_key(e, k)
        ki, kj = _bc(e, k, mat, [0, 1, 2]), _bc(e, k, mat, [0, 1, 3])
        before = e.or_(e.compare("LT", kj, ki, "SIGNED"), e.and_(e.compare("EQ", kj, ki, "SIGNED"), before))
    if group is not None:
        before = e.and_(before, group)
    ones = splat(e, 1, "f32", [b, s, m])
    rank = e.convert(dot(e, e.convert(before, "f32"), ones, 2, 3, 2), "i32")
    if start is not None:
        rank = rank + start
    hit = e.compare("EQ", rows, _bc(e, rank, mat, [0, 1, 3]), "SIGNED")  # [.., r, i]: rank_i = r
    perm = e.convert(dot(e, e.convert(hit, "f32"), e.iota([b, s, m], 2, "f32"), 2, 3, 2), "i32")
    return _take_last(e, arrays, perm), rank, perm


def _gather_rows(e: Emitter, x: V, rows: V) -> V:
    """``x[rows]`` for ``x`` ``[R, *c]`` and ``rows`` i32 ``[K]``: ``[K, *c]``."""
    k = rows.shape[0]
    return e.gather(x, e.reshape(rows, [k, 1]), offset_dims=list(range(1, len(x.shape))), collapsed_slice_dims=[0],
                    start_index_map=[0], index_vector_dim=1, slice_sizes=[1] + x.shape[1:])


def _secular_roots(e: Emitter, d2: V, zeta2: V, act: V, last: V, d_next: V, gap2: V, rho_inv: V, first: V,
                   group: V | None = None) -> tuple[V, V]:
    """The roots of the secular equations ``1/rho + sum_j zeta2_j / (d_j - lambda) = 0`` of every subproblem
    (``[B, S, m]``: poles ``d2`` ascending among the ``act`` entries, weights ``zeta2``, ``last`` the largest
    active pole, ``d_next`` the next pole, ``gap2`` the distance to it (for the last root ``rho sum zeta2``),
    ``rho_inv`` the subproblem's ``1 / rho`` per entry, ``first`` (i1) where each subproblem begins). Returns ``(tau, org)``: root ``r`` is ``org_r + tau_r`` with ``org_r`` its nearer
    pole (``d2_r`` or ``d_next_r``), as LAPACK ``dlaed4`` keeps it.

    Each step evaluates ``f``, ``f'`` and its left part at the roots in variadic reduces (two:
    :data:`SECULAR_SUM_SPLIT`) whose terms are formed from vectors (no ``m x m`` array is carried), then
    takes ``dlaed4``'s rational step safeguarded by the bracket (outside it the one-pole model's root,
    :data:`SECULAR_POLE_STEP`, then bisection; the model switch :data:`SECULAR_SWITCH_LAPACK`); step 0
    evaluates at the midpoints between the poles and picks each root's origin from the sign of ``f`` there.
    Two ``stablehlo.while`` loops: all roots at once until at most ``1 /`` :data:`SECULAR_COMPACT` of them
    are left, then those alone (gathered with their subproblems' poles), so that the few slow roots do not
    cost whole-level steps.

    With ``group`` (0-d i32, dynamic) each row of ``m`` holds ``m / group`` independent subproblems of order
    ``group`` side by side: a root's sums run over its own subproblem's poles only (:func:`_merge_grouped`;
    the compacted loop is not used there)."""
    b, s, m = d2.shape
    t = d2.t
    eps = float(finfo(t).eps)
    vec = [b, s, m]
    # the two poles of the rational model: r and r + 1, for the last root r - 1 and r (dlaed4's choice)
    pk = e.select(last, shift_down(e, d2), d2)
    pk1 = e.select(last, d2, d_next)
    split = e.iota(vec, 2, "i32") - e.convert(last, "i32")
    single = e.and_(last, first)
    half = gap2 * 0.5
    zero_i = e.scalar(0, "i32")
    rowf = dict(d2=d2, dn=d_next, pk=pk, pk1=pk1, zn=shift_up(e, zeta2), zo=zeta2, half=half, gap2=gap2,
                rinv=rho_inv)
    rowb = dict(last=last, single=single)

    def make_body(mat, rd, bc_row, poles, rf, rb, split_):
        """The step for roots laid out as ``mat`` minus its reduced dimension ``rd`` (row data ``rf``, ``rb``;
        ``poles()`` returns ``d2``, ``zeta2``, ``act`` broadcast to ``mat``). The broadcasts and masks are
        built inside the loop body: a value of the enclosing scope used in the body becomes a loop operand
        that XLA materialises (an ``m x m`` array written once, then read by every step, ~10% slower
        solver at n = 256 than the broadcast fused into the step's reduce)."""
        rshape = rf["d2"].shape

        def f(x):
            return splat(e, x, t, rshape)

        def body(it, tau, lo, hi, conv, fprev, middle, left):
            last_, single_ = rb["last"], rb["single"]
            pd, pz, pa = poles()
            if group is not None:  # (the root's own subproblem: built in the body, as the broadcasts are)
                gm = e.broadcast_in_dim(group, mat, [])
                pa = e.and_(pa, e.compare("EQ", e.divide(e.iota(mat, rd - 1, "i32"), gm),
                                          e.divide(e.iota(mat, rd, "i32"), gm), "SIGNED"))
            leftmask = e.compare("LE", e.iota(mat, rd, "i32"), bc_row(split_), "SIGNED")
            org = e.select(left, rf["d2"], rf["dn"])
            # [r, j] = (d_j - org_r) - tau_r, formed inside the reduce's fusion (d_j - d_r first: exact)
            dd = e.select(pa, (pd - bc_row(org)) - bc_row(tau), splat(e, 1, t, mat))
            inv_dd = splat(e, 1, t, mat) / dd  # (one division an entry: z_j / dd and z_j / dd^2 from 1 / dd)
            tt = _sel(e, pa, pz * inv_dd)
            t2 = tt * inv_dd
            # variadic reduces over the terms: f - 1/rho, f', its left part, sum |terms|
            zero = e.scalar(0, t)
            terms = [tt, t2, _sel(e, leftmask, t2), e.abs(tt)]
            k = SECULAR_SUM_SPLIT
            if k and mat[rd] % k == 0 and mat[rd] > k:
                # [.., m] as [.., m/k, k]: sum over m/k first (k partial sums side by side), then over k
                terms = [e.reshape(x, mat[:rd] + [mat[rd] // k, k]) for x in terms]
                terms = e.reduce(terms, [zero] * 4, [rd],
                                 lambda a0, a1, a2, a3, b0, b1, b2, b3: [a0 + b0, a1 + b1, a2 + b2, a3 + b3])
            total, fp, dpsi, atot = e.reduce(
                terms, [zero] * 4, [rd],
                lambda a0, a1, a2, a3, b0, b1, b2, b3: [a0 + b0, a1 + b1, a2 + b2, a3 + b3])
            dphi = fp - dpsi
            fv = rf["rinv"] + total
            # step 0 (tau at the midpoint from d2): the root lies left of the midpoint where f >= 0 there;
            # else it is kept relative to the right pole, the bracket the half interval on its side
            first = e.broadcast_in_dim(e.compare("EQ", it, zero_i, "SIGNED"), rshape, [])
            left = e.select(first, e.or_(last_, e.compare("GE", fv, f(0), "FLOAT")), left)
            tau = e.select(e.and_(first, e.not_(left)), rf["half"] * -1.0, tau)
            lo = e.select(first, e.select(left, f(0), rf["half"] * -1.0), lo)
            hi = e.select(first, e.select(left, e.select(last_, rf["gap2"], rf["half"]), f(0)), hi)
            org = e.select(left, rf["d2"], rf["dn"])
            err = (atot * 8.0 + rf["rinv"] * 2.0 + e.abs(tau) * fp * 3.0) * eps
            done = e.compare("LE", e.abs(fv), err, "FLOAT")
            lo = e.select(e.compare("LT", fv, f(0), "FLOAT"), tau, lo)
            hi = e.select(e.compare("GT", fv, f(0), "FLOAT"), tau, hi)
            a_k, a_k1 = (rf["pk"] - org) - tau, (rf["pk1"] - org) - tau
            # interior roots: the fixed weight method of dlaed4 (the nearer pole keeps its own weight exactly,
            # the other one takes the rest of f'); the last root: the middle way (both poles take their sides)
            d_o = e.select(left, a_k, a_k1)
            d_x = e.select(left, a_k1, a_k)
            w_o = e.select(left, rf["zo"], rf["zn"])  # the weight of the origin pole
            fixed = fv - d_x * fp - (d_o - d_x) * (w_o / (d_o * d_o))
            if SECULAR_SWITCH_LAPACK:
                # dlaed4's switch, before this step: change the model where f kept its sign and |f| did not
                # drop tenfold since the previous point
                middle = e.xor(middle, e.and_(e.compare("GT", fv * fprev, f(0), "FLOAT"),
                                              e.compare("GT", e.abs(fv), e.abs(fprev) * 0.1, "FLOAT")))
            c = e.select(e.or_(last_, middle), fv - a_k * dpsi - a_k1 * dphi, fixed)
            if not SECULAR_SWITCH_LAPACK:
                # the switch as before: any sign, taking effect one step later
                middle = e.xor(middle, e.compare("GT", e.abs(fv), e.abs(fprev) * 0.1, "FLOAT"))
            qa = (a_k + a_k1) * fv - a_k * a_k1 * fp
            qb = a_k * a_k1 * fv
            disc = e.sqrt(e.abs(qa * qa - qb * c * 4.0))
            # interior roots: the model's root between its poles; the last root: the one beyond both
            eta_in = e.select(e.compare("LE", qa, f(0), "FLOAT"), (qa - disc) / (c * 2.0), (qb * 2.0) / (qa + disc))
            cl = e.abs(c)
            eta_last = e.select(e.compare("GE", qa, f(0), "FLOAT"), (qa + disc) / (cl * 2.0),
                                (qb * 2.0) / (qa - disc))
            eta_one = a_k1 + a_k1 * a_k1 * fp / (fv - a_k1 * fp)  # one pole: the model is exact
            tn = tau + e.select(last_, e.select(single_, eta_one, eta_last), eta_in)
            # the bracket is closed but for the origin pole (tau = 0): a root at a bracket end (e.g. exactly at
            # the midpoint between two poles) is reached by the rational step, not by slow bisection
            inside = e.and_(e.and_(e.compare("GE", tn, lo, "FLOAT"), e.compare("LE", tn, hi, "FLOAT")),
                            e.compare("NE", tn, f(0), "FLOAT"))
            fallback = (lo + hi) * 0.5
            if SECULAR_POLE_STEP:
                # a step outside the bracket: the root of the origin pole's term alone plus a constant (the
                # rest of f at tau), formed relative to the pole: it has no cancellation where the root is
                # within rounding of tau's distance to the pole (there tau + eta rounds to the pole)
                tp = w_o * tau / (fv * tau + w_o)
                fine = e.and_(e.and_(e.compare("GE", tp, lo, "FLOAT"), e.compare("LE", tp, hi, "FLOAT")),
                              e.compare("NE", tp, f(0), "FLOAT"))
                fallback = e.select(fine, tp, fallback)
            tn = e.select(inside, tn, fallback)
            width = hi - lo
            collapsed = e.compare("LE", width, e.maximum(e.abs(lo), e.abs(hi)) * (4 * eps), "FLOAT")
            tiny = e.compare("LE", e.abs(tn - tau), e.abs(tau) * (2 * eps), "FLOAT")
            keep = e.or_(conv, done)
            tau_out = e.select(keep, tau, tn)
            conv = e.or_(keep, e.or_(collapsed, tiny))
            return [it + e.scalar(1, "i32"), tau_out, lo, hi, conv, fv, middle, left]

        return body

    def pending(conv):
        return e.reduce_sum(e.convert(e.not_(conv), "i32"), list(range(len(conv.shape))))

    limit = e.scalar(MAX_SECULAR_ITERATIONS, "i32")
    total_roots = b * s * m
    keep_k = total_roots
    if SECULAR_COMPACT and m >= _compact_min(t) and group is None:
        keep_k = max(1, -(-total_roots // SECULAR_COMPACT))
    mat = [b, s, m, m]
    body1 = make_body(mat, 3, lambda x: _bc(e, x, mat, [0, 1, 2]),
                      lambda: [_bc(e, x, mat, [0, 1, 3]) for x in (d2, zeta2, act)], rowf, rowb, split)
    init = [zero_i, half, splat(e, 0, t, vec), splat(e, 0, t, vec), e.not_(act), splat(e, math.inf, t, vec),
            e.not_(act), e.or_(act, e.not_(act))]
    if keep_k >= total_roots:
        out = e.while_(init, lambda it, tau, lo, hi, conv, *_: e.and_(
            any_true(e, e.not_(conv)), e.compare("LT", it, limit, "SIGNED")), body1)
        return out[1], e.select(out[7], d2, d_next)
    out = e.while_(init, lambda it, tau, lo, hi, conv, *_: e.and_(
        e.compare("GT", pending(conv), e.scalar(keep_k, "i32"), "SIGNED"),
        e.compare("LT", it, limit, "SIGNED")), body1)
    it = out[0]
    state = [e.reshape(x, [total_roots]) for x in out[1:]]  # tau, lo, hi, conv, fprev, middle, left
    # the pending roots first (stable: by position), the first keep_k of them gathered with their rows' data
    flat_idx = e.iota([total_roots], 0, "i32")
    _, perm = e.sort([e.convert(state[3], "i32"), flat_idx], 0,
                     lambda a0, b0, a1, b1: e.or_(e.compare("LT", a0, b0, "SIGNED"),
                                                  e.and_(e.compare("EQ", a0, b0, "SIGNED"),
                                                         e.compare("LT", a1, b1, "SIGNED"))))
    pick = e.slice(perm, [0], [keep_k])
    fnames, bnames = list(rowf), list(rowb)
    fl = [e.reshape(rowf[k], [total_roots, 1]) for k in fnames] + [e.reshape(x, [total_roots, 1]) for x in
                                                                  (state[0], state[1], state[2], state[4])]
    bl = [e.reshape(e.convert(rowb[k], "i32"), [total_roots, 1]) for k in bnames] + [
        e.reshape(e.convert(x, "i32"), [total_roots, 1]) for x in (state[3], state[5], state[6])] + [
        e.reshape(split, [total_roots, 1])]
    gf = _gather_rows(e, e.concatenate(fl, 1), pick)
    gb = _gather_rows(e, e.concatenate(bl, 1), pick)

    def col(x, i, boolean=False):
        c = e.reshape(e.slice(x, [0, i], [keep_k, i + 1]), [keep_k])
        return e.compare("NE", c, splat(e, 0, "i32", [keep_k]), "SIGNED") if boolean else c

    rf2 = {k: col(gf, i) for i, k in enumerate(fnames)}
    rb2 = {k: col(gb, i, True) for i, k in enumerate(bnames)}
    nf, nb = len(fnames), len(bnames)
    sub = e.divide(pick, splat(e, m, "i32", [keep_k]))
    poles = _gather_rows(e, e.concatenate([e.reshape(d2, [b * s, 1, m]), e.reshape(zeta2, [b * s, 1, m]),
                                           e.reshape(e.convert(act, t), [b * s, 1, m])], 1), sub)
    mat2 = [keep_k, m]
    pd = e.reshape(e.slice(poles, [0, 0, 0], [keep_k, 1, m]), mat2)
    pz = e.reshape(e.slice(poles, [0, 1, 0], [keep_k, 2, m]), mat2)
    pa = e.compare("NE", e.reshape(e.slice(poles, [0, 2, 0], [keep_k, 3, m]), mat2), splat(e, 0, t, mat2), "FLOAT")
    body2 = make_body(mat2, 1, lambda x: _bc(e, x, mat2, [0]), lambda: [pd, pz, pa], rf2, rb2, col(gb, nb + 3))
    init2 = [it, col(gf, nf), col(gf, nf + 1), col(gf, nf + 2), col(gb, nb, True), col(gf, nf + 3),
             col(gb, nb + 1, True), col(gb, nb + 2, True)]
    out2 = e.while_(init2, lambda it, tau, lo, hi, conv, *_: e.and_(
        any_true(e, e.not_(conv)), e.compare("LT", it, limit, "SIGNED")), body2)
    # back in place: the sorted order with the first keep_k replaced, sorted back by position
    tau_s = _gather_rows(e, state[0], perm)
    left_s = _gather_rows(e, e.convert(state[6], "i32"), perm)
    tau_s = e.concatenate([out2[1], e.slice(tau_s, [keep_k], [total_roots])], 0)
    left_s = e.concatenate([e.convert(out2[7], "i32"), e.slice(left_s, [keep_k], [total_roots])], 0)
    _, tau_f, left_f = e.sort([perm, tau_s, left_s], 0, lambda a0, b0, *_: e.compare("LT", a0, b0, "SIGNED"))
    tau = e.reshape(tau_f, vec)
    left = e.compare("NE", e.reshape(left_f, vec), splat(e, 0, "i32", vec), "SIGNED")
    return tau, e.select(left, d2, d_next)


def _merge(e: Emitter, dch: V, qc: V, beta: V, ascending: bool = False) -> tuple[V, V]:
    """One merge level: ``dch`` ``[B, S, m]`` the children's eigenvalues (left child's then right one's),
    ``qc`` ``[B, S, 2, h, h]`` their eigenvectors, ``beta`` ``[B, S]`` the coupling torn off. Returns the
    eigenvalues ``[B, S, m]`` (unsorted; ascending when ``ascending``: the columns' data sorted before
    the eigenvector matrix is formed, so the top level needs no sort and gather of the whole matrix) and
    eigenvectors ``[B, S, m, m]`` of the subproblems (:func:`merge_steps`, then the children's eigenvectors
    times its matrix, one batched ``dot_general`` per child)."""
    b, s, m = dch.shape
    h = m // 2
    t = dch.t
    vec, two = [b, s, m], [b, s]
    s_ = [0, 1]
    zl = e.reshape(e.slice(qc, [0, 0, 0, h - 1, 0], [b, s, 1, h, h]), [b, s, h])
    zr = e.reshape(e.slice(qc, [0, 0, 1, 0, 0], [b, s, 2, 1, h]), [b, s, h])
    sgn = e.select(e.compare("GE", beta, splat(e, 0, t, two), "FLOAT"), splat(e, 1, t, two), splat(e, -1, t, two))
    z = e.concatenate([zl, zr * _bc(e, sgn, [b, s, h], s_)], 2) * (1 / math.sqrt(2.0))
    idx = e.iota(vec, 2, "i32")
    lam, mm = merge_steps(e, dch, z, _bc(e, e.abs(beta) * 2.0, vec, s_),
                           lambda x: _bc(e, e.reduce_sum(x, [2]), vec, s_),
                           lambda x: _bc(e, reduce_with(e, x, 2, 0.0, "maximum"), vec, s_),
                           e.compare("EQ", idx, splat(e, 0, "i32", vec), "SIGNED"),
                           e.compare("EQ", idx, splat(e, m - 1, "i32", vec), "SIGNED"), ascending=ascending)
    q = dot(e, qc, e.reshape(mm, [b, s, 2, h, m]), 3, 4, 3)
    return lam, e.reshape(q, [b, s, m, m])


def _merge_grouped(e: Emitter, dch: V, q: V, opb: V, h: V) -> tuple[V, V]:
    """One merge level of :func:`_merge` for subproblems of order ``m = 2 h`` (``h`` 0-d i32, dynamic) laid out
    ``M / m`` to a block: ``dch`` ``[B, S, M]`` the children's eigenvalues, ``q`` ``[B, S, M, M]`` their
    eigenvectors as one block-diagonal matrix per block (children of order ``h`` on the diagonal), ``opb``
    ``[B, S, M]`` the off-diagonal (entry ``k`` couples ``k`` and ``k + 1``; a subproblem's coupling sits at
    its children's boundary). Returns the eigenvalues ``[B, S, M]`` (unsorted) and the block-diagonal
    eigenvectors ``[B, S, M, M]`` of the subproblems.

    The same steps (:func:`merge_steps`), each restricted to an entry's own subproblem by a mask (sums,
    maxima, sorts, the secular roots); so one piece of code serves every level of order up to ``M``
    (:data:`GROUPED_BLOCK`) in a ``while`` loop, where :func:`_merge` has one per level (XLA compiles each:
    about 1.5-2 s a level on a 2-core machine)."""
    b, s, mb = dch.shape
    t = dch.t
    vec, mat = [b, s, mb], [b, s, mb, mb]
    p_, r_ = [0, 1, 2], [0, 1, 3]
    m = h + h
    pos = e.iota(vec, 2, "i32")
    mv, hv = e.broadcast_in_dim(m, vec, []), e.broadcast_in_dim(h, vec, [])
    start = e.divide(pos, mv) * mv  # where each entry's subproblem begins
    within = pos - start
    right = e.compare("GE", within, hv, "SIGNED")
    rows, cols = e.iota(mat, 2, "i32"), e.iota(mat, 3, "i32")
    mm_ = e.broadcast_in_dim(m, mat, [])
    group = e.compare("EQ", e.divide(rows, mm_), e.divide(cols, mm_), "SIGNED")  # [.., i, j]: same subproblem
    # each entry's coupling beta (at its subproblem's start + h - 1) and z (the left child's last row of q, the
    # right child's first row)
    bpos = start + hv - splat(e, 1, "i32", vec)
    beta = e.reduce_sum(_sel(e, e.compare("EQ", cols, _bc(e, bpos, mat, p_), "SIGNED"), _bc(e, opb, mat, r_)), [3])
    zrow = bpos + e.convert(right, "i32")
    z = e.reduce_sum(_sel(e, e.compare("EQ", rows, _bc(e, zrow, mat, r_), "SIGNED"), q), [2])
    sgn = e.select(e.compare("GE", beta, splat(e, 0, t, vec), "FLOAT"), splat(e, 1, t, vec), splat(e, -1, t, vec))
    z = e.select(right, z * sgn, z) * (1 / math.sqrt(2.0))
    lam, mm = merge_steps(e, dch, z, e.abs(beta) * 2.0,
                           lambda x: e.reduce_sum(_sel(e, group, _bc(e, x, mat, r_)), [3]),
                           lambda x: reduce_with(e, _sel(e, group, _bc(e, x, mat, r_)), 3, 0.0, "maximum"),
                           e.compare("EQ", within, splat(e, 0, "i32", vec), "SIGNED"),
                           e.compare("EQ", within, mv - splat(e, 1, "i32", vec), "SIGNED"),
                           group=group, start=start, order=m)
    return lam, dot(e, q, mm, 2, 3, 2)


def merge_steps(e: Emitter, dch: V, z: V, rho: V, gsum, gmax, first: V, last_m: V, ascending: bool = False,
                 group: V | None = None, start: V | None = None, order: V | None = None,
                 squared: bool = False) -> tuple[V, ...]:
    """What :func:`_merge` and :func:`_merge_grouped` share: from the children's eigenvalues ``dch`` and the
    normalised ``z`` (``[B, S, m]``), with each entry's subproblem's ``rho`` (``[B, S, m]``), ``gsum(x)`` /
    ``gmax(x)`` the sum / largest of ``x`` over each entry's subproblem (per entry), ``first`` / ``last_m``
    marking where subproblems begin and end: the deflation (``dlaed2``'s tolerance ``8 eps max(|d|, rho |z|)``,
    the padding left out), the two sorts, the secular roots and Gu & Eisenstat's vectors. Returns the eigenvalues (ascending with ``ascending``) and the ``[B, S, m, m]``
    matrix that the children's eigenvectors are multiplied by. ``group`` / ``start`` / ``order``: several
    subproblems (of order ``order``, 0-d i32) to a row, ``group`` the same-subproblem mask (``[.., i, j]``),
    ``start`` where each entry's subproblem begins (see :func:`_merge_grouped`). ``squared``: the poles are
    squared singular values ``s^2`` of a bidiagonal merge (``hlokit.passes.lapack.bidiagonal``): the tolerance
    is ``dlasd2``'s ``8 eps max(s, |z| sqrt(rho))`` on ``s`` and on the unnormalised ``z``, clusters are poles
    whose ``s`` (not ``s^2``) lie within it, and the columns' active mask ``[B, S, m]``, each row's cluster
    pole and each row's Gu-Eisenstat ``z`` with its sign (``[B, S, m]``, what its vector entries are formed
    with: ``x_rj = z_j / (pole_j - lambda_r)``, normalised; 0 for a deflated row) are returned third to fifth."""
    b, s, m = dch.shape
    t = dch.t
    vec, mat = [b, s, m], [b, s, m, m]
    p_, r_ = [0, 1, 2], [0, 1, 3]

    def f(x):
        return splat(e, x, t, vec)

    def fsum(x, dim=3):
        return e.reduce_sum(x, [dim])

    def masked(x):  # x restricted to pairs of one subproblem
        return x if group is None else e.and_(x, group)

    real = e.compare("LT", e.abs(dch), f(PAD / 2), "FLOAT")
    if squared:  # (on s and the unnormalised z: every s below sqrt(eps) would cluster on s^2)
        root = e.sqrt(rho)
        tol = e.maximum(gmax(_sel(e, real, e.sqrt(e.abs(dch)))), root * gmax(e.abs(z))) * (8 * float(finfo(t).eps))
        defl = e.compare("LE", root * e.abs(z), tol, "FLOAT")
    else:
        tol = e.maximum(gmax(_sel(e, real, e.abs(dch))), rho * gmax(e.abs(z))) * (8 * float(finfo(t).eps))
        defl = e.compare("LE", rho * e.abs(z), tol, "FLOAT")
    # NaN: every entry deflated (the result is replaced by NaN at the end)
    defl = e.or_(defl, e.compare("NE", dch, dch, "FLOAT"))
    idx = e.iota(vec, 2, "i32")
    i32 = e.convert(defl, "i32")
    ranked = m <= RANK_SORT_MAX

    def comparator_sort(arrays: list[V]) -> list[V]:
        """The stable sort of ``arrays`` by their first two (lexicographic; the second in total order), each
        subproblem on its own."""
        lead = [] if start is None else [start]

        def before(*ab):
            keys = list(zip(ab[0::2], ab[1::2]))[:len(lead) + 2]
            kinds = ["SIGNED"] * (len(keys) - 1) + ["TOTALORDER"]
            (a, b_), kind = keys[-1], kinds[-1]
            out = e.compare("LT", a, b_, kind)
            for (a, b_), kind in zip(reversed(keys[:-1]), reversed(kinds[:-1])):
                out = e.or_(e.compare("LT", a, b_, kind), e.and_(e.compare("EQ", a, b_, kind), out))
            return out

        return e.sort(lead + arrays, 2, before)[len(lead):]

    # -- sort 1: the undeflated entries first, each part by d ------------------------------------------
    if ranked:
        (k1, d1, z1), rank1, idx1 = _rank_sort(e, [i32, dch], [i32, dch, z], group, start)
    else:
        k1, d1, z1, idx1 = comparator_sort([i32, dch, z, idx])
    defl1 = e.compare("NE", k1, splat(e, 0, "i32", vec), "SIGNED")
    nd1 = e.not_(defl1)
    if squared:  # clusters on s = sqrt(s^2)
        s1 = e.sqrt(e.abs(d1))
        gap = s1 - shift_down(e, s1)
    else:
        gap = d1 - shift_down(e, d1)
    newc = e.or_(e.or_(first, defl1), e.compare("GT", gap, tol, "FLOAT"))
    upper = e.convert(e.compare("LE", e.iota([m, m], 0, "i32"), e.iota([m, m], 1, "i32"), "SIGNED"), t)
    # cumulative sum: cluster ids 1, 2, ... (a subproblem's first entry starts a cluster: ids never span two)
    cid = e.dot_general(e.convert(newc, t), upper, [], [], [2], [0])
    last_in = e.or_(last_m, e.compare("NE", shift_up(e, e.convert(newc, t)), f(0), "FLOAT"))
    rep1 = e.and_(last_in, nd1)
    same1 = e.compare("EQ", _bc(e, cid, mat, p_), _bc(e, cid, mat, r_), "FLOAT")
    nrm2 = fsum(_sel(e, same1, _bc(e, _sel(e, nd1, z1 * z1), mat, r_)))
    nrm = e.sqrt(nrm2)
    u1 = _sel(e, nd1, z1 / e.select(e.compare("GT", nrm, f(0), "FLOAT"), nrm, f(1)))
    urep = fsum(_sel(e, e.and_(same1, _bc(e, rep1, mat, r_)), _bc(e, u1, mat, r_)))
    sigma = e.select(e.compare("GE", urep, f(0), "FLOAT"), f(-1), f(1))
    v1 = u1 - _sel(e, rep1, sigma)
    uabs = e.abs(urep)
    zeta2 = _sel(e, rep1, nrm2)

    # -- sort 2: the cluster representatives (the reduced problem) first, by d --------------------------
    krep = e.convert(e.not_(rep1), "i32")
    if ranked:
        (k2, d2, zeta2, cid2, v2, uabs2, idx2), _, _ = _rank_sort(
            e, [krep, d1], [krep, d1, zeta2, cid, v1, uabs, idx1], group, start)
    else:
        k2, d2, zeta2, cid2, v2, uabs2, idx2 = comparator_sort([krep, d1, zeta2, cid, v1, uabs, idx1])
    act = e.compare("EQ", k2, splat(e, 0, "i32", vec), "SIGNED")
    act_next = e.and_(e.compare("NE", shift_up(e, e.convert(act, "i32")), splat(e, 0, "i32", vec), "SIGNED"),
                      e.not_(last_m))
    last = e.and_(act, e.not_(act_next))
    d_next = shift_up(e, d2)
    rho_inv = 1.0 / rho
    gap2 = e.select(last, rho * gsum(zeta2), d_next - d2)
    gap2 = e.select(act, gap2, f(1))
    act_c = _bc(e, act, mat, r_)
    dcol = _bc(e, d2, mat, r_)
    tau, org = _secular_roots(e, d2, zeta2, act, last, d_next, gap2, rho_inv, first, group=order)
    delta = dcol - _bc(e, org, mat, p_)

    # -- Gu & Eisenstat: z from the roots (Loewner), so the vectors are orthogonal -----------------------
    lam_minus_d = _bc(e, tau, mat, p_) - delta  # [r, j] = lambda_r - d_j
    shifted = e.concatenate([splat(e, 1, t, [b, s, 1, m]), e.slice(lam_minus_d, [0, 0, 0, 0], [b, s, m - 1, m])], 2)
    if group is not None:  # (a subproblem's first row: 1, as row 0 is)
        shifted = e.select(_bc(e, first, mat, p_), splat(e, 1, t, mat), shifted)
    rows, cols = e.iota(mat, 2, "i32"), e.iota(mat, 3, "i32")
    num = e.select(e.compare("LT", rows, cols, "SIGNED"), lam_minus_d, shifted)
    dpole = _bc(e, d2, mat, p_) - dcol
    act_r = _bc(e, act, mat, p_)
    valid = masked(e.and_(e.and_(act_r, act_c), e.compare("NE", rows, cols, "SIGNED")))
    ratio = e.select(valid, num / e.select(valid, dpole, splat(e, 1, t, mat)), splat(e, 1, t, mat))
    prod = reduce_with(e, ratio, 2, 1.0, "multiply")
    alast = fsum(_sel(e, masked(_bc(e, last, mat, p_)), lam_minus_d), 2)
    zhat = _sel(e, act, e.sqrt(e.abs(alast * rho_inv * prod)))

    # -- the eigenvectors, rows in the children's order ---------------------------------------------------
    if ranked:  # back by the first sort's ranks
        uo, ndo, cido, vo = _take_last(e, [u1, e.convert(nd1, t), cid, v1], rank1)
    else:
        _, uo, ndo, cido, vo = e.sort([idx1, u1, e.convert(nd1, t), cid, v1], 2,
                                      lambda a, b_, *_: e.compare("LT", a, b_, "SIGNED"))
    same = e.compare("EQ", _bc(e, cido, mat, p_), _bc(e, cid2, mat, r_), "FLOAT")
    rep_of = e.and_(same, act_c)
    drep = fsum(_sel(e, rep_of, dcol))
    zh = fsum(_sel(e, rep_of, _bc(e, zhat, mat, r_)))
    lam = e.select(act, org + tau, d2)
    if ascending:
        top = [lam, org, tau, e.convert(act, "i32"), cid2, v2, uabs2, idx2]
        if ranked:
            (lam, org, tau, act_i, cid2, v2, uabs2, idx2), _, _ = _rank_sort(e, [lam], top)
        else:
            lam, org, tau, act_i, cid2, v2, uabs2, idx2 = e.sort(
                top, 2, lambda a, b_, *_: e.compare("LT", a, b_, "TOTALORDER"))
        act_c = _bc(e, e.compare("NE", act_i, splat(e, 0, "i32", vec), "SIGNED"), mat, r_)
        same = e.compare("EQ", _bc(e, cido, mat, p_), _bc(e, cid2, mat, r_), "FLOAT")
    den = (_bc(e, drep, mat, p_) - _bc(e, org, mat, r_)) - _bc(e, tau, mat, r_)
    live = masked(e.and_(_bc(e, e.compare("NE", ndo, f(0), "FLOAT"), mat, p_), act_c))
    x = _sel(e, live, _bc(e, zh * uo, mat, p_) / e.select(live, den, splat(e, 1, t, mat)))
    norm = e.sqrt(fsum(x * x, 2))
    x = x * _bc(e, f(1) / e.select(e.compare("GT", norm, f(0), "FLOAT"), norm, f(1)), mat, r_)  # (m divisions, not m^2)
    eye = e.compare("EQ", rows, _bc(e, idx2, mat, r_), "SIGNED")
    hh = e.select(eye, splat(e, 1, t, mat), splat(e, 0, t, mat)) - _sel(
        e, same, _bc(e, vo, mat, p_) * _bc(e, v2 / (uabs2 + 1.0), mat, r_))
    out = e.select(act_c, x, hh)
    if squared:
        act_v = e.compare("NE", act_i, splat(e, 0, "i32", vec), "SIGNED") if ascending else act
        return lam, out, act_v, drep, zh * uo
    return lam, out


def _block_diagonal(e: Emitter, q: V, mb: int) -> V:
    """The leaves' eigenvectors ``q`` ``[B, K, m0, m0]`` as block-diagonal ``[B, K m0 / mb, mb, mb]`` matrices."""
    b, k, m0, _ = q.shape
    g, s = mb // m0, k * m0 // mb
    big = [b, s, g, m0, g, m0]
    q6 = _bc(e, e.reshape(q, [b, s, g, m0, m0]), big, [0, 1, 2, 3, 5])
    diag = e.compare("EQ", e.iota(big, 2, "i32"), e.iota(big, 4, "i32"), "SIGNED")
    return e.reshape(_sel(e, diag, q6), [b, s, mb, mb])


def tridiagonal_eigh(e: Emitter, d: V, off: V) -> tuple[V, V]:
    """Eigenvalues and eigenvectors of the symmetric tridiagonal matrices with diagonal ``d`` ``[*b, n]`` and
    off-diagonal ``off`` ``[*b, n-1]`` (real, f32 or f64, ``n >= 1``, static shapes).

    Returns ``(w, z)``: ``w`` ``[*b, n]`` ascending, ``z`` ``[*b, n, n]`` with orthonormal columns,
    ``T z[..., :, i] = w[..., i] z[..., :, i]``; NaN ``w`` and ``z`` for a matrix with a NaN or infinite
    entry. Cuppen's divide and conquer with Gu & Eisenstat's eigenvectors (LAPACK ``dstedc``; see the
    module docstring). Accuracy: residual ``||T Z - Z W||`` and ``||Z^T Z - I||`` a small multiple of
    ``n eps ||T||`` and ``n eps``. Every loop is bounded.
    """
    shape = d.shape
    batch, n = shape[:-1], shape[-1]
    t = d.t
    bsz = 1
    for x in batch:
        bsz *= x
    d = e.reshape(d, [bsz, n])
    if n == 1:
        bad = e.not_(e.is_finite(d))
        w = e.select(bad, splat(e, math.nan, t, [bsz, 1]), d)
        z = e.select(e.reshape(bad, [bsz, 1, 1]), splat(e, math.nan, t, [bsz, 1, 1]), splat(e, 1, t, [bsz, 1, 1]))
        return e.reshape(w, batch + [1]), e.reshape(z, batch + [1, 1])
    ds, os_, scale, finite = scaled_by_largest(e, d, e.reshape(off, [bsz, n - 1]))
    m0, levels, dp, op, pos, tear = padded_leaves(e, ds, os_, PAD)
    nn = m0 * 2 ** levels
    cut = _sel(e, tear, e.abs(op))
    dt = dp - cut - shift_down(e, cut)
    lam, q = _leaves(e, dt, _sel(e, e.not_(tear), op), m0)
    grouped = _grouped_levels(m0, levels)
    if grouped:  # the levels of order up to GROUPED_BLOCK in one loop (_merge_grouped)
        mb = m0 * 2 ** grouped
        s0 = nn // mb
        lam, q = e.reshape(lam, [bsz, s0, mb]), _block_diagonal(e, q, mb)
        opb = e.reshape(op, [bsz, s0, mb])
        # (the loop counts its trips; h doubles beside it: XLA CPU's trip-count analysis aborts on a loop
        # whose compared variable is updated by anything but a constant step)
        out = e.while_([e.scalar(0, "i32"), e.scalar(m0, "i32"), lam, q],
                       lambda i, *_: e.compare("LT", i, e.scalar(grouped, "i32"), "SIGNED"),
                       lambda i, h, lam_, q_: [i + e.scalar(1, "i32"), h + h, *_merge_grouped(e, lam_, q_, opb, h)])
        lam, q = out[2], out[3]
    for level in range(grouped, levels):
        h = m0 * 2 ** level
        m, s = 2 * h, nn // (2 * h)
        beta = e.reshape(slice_dim(e, e.reshape(op, [bsz, s, m]), 2, h - 1, h), [bsz, s])
        lam, q = _merge(e, e.reshape(lam, [bsz, s, m]), e.reshape(q, [bsz, s, 2, h, h]), beta,
                        ascending=level == levels - 1)
    lam = e.reshape(lam, [bsz, nn])
    q = e.reshape(q, [bsz, nn, nn])
    if levels:
        # the top level's columns come ascending; the padding (eigenvalue PAD, beyond all others) last
        ws, z = e.slice(lam, [0, 0], [bsz, n]), e.slice(q, [0, 0, 0], [bsz, n, n])
    else:
        # one leaf: sort the values with their positions, then gather the columns (a sort of the whole
        # matrix is several times slower on XLA CPU)
        ws, perm = e.sort([lam, e.iota([bsz, nn], 1, "i32")], 1,
                          lambda a, b_, *_: e.compare("LT", a, b_, "TOTALORDER"))
        rows = e.slice(perm, [0, 0], [bsz, n]) + e.iota([bsz, n], 0, "i32") * nn  # rows of q^T, flattened
        qt = e.reshape(e.transpose(q, [0, 2, 1]), [bsz * nn, nn])
        picked = e.gather(qt, e.reshape(rows, [bsz * n, 1]), offset_dims=[1], collapsed_slice_dims=[0],
                          start_index_map=[0], index_vector_dim=1, slice_sizes=[1, nn])
        z = e.transpose(e.reshape(e.slice(picked, [0, 0], [bsz * n, n]), [bsz, n, n]), [0, 2, 1])
        ws = e.slice(ws, [0, 0], [bsz, n])
    w = ws * _bc(e, scale, [bsz, n], [0])
    w = e.select(_bc(e, finite, [bsz, n], [0]), w, splat(e, math.nan, t, [bsz, n]))
    z = e.select(_bc(e, finite, [bsz, n, n], [0]), z, splat(e, math.nan, t, [bsz, n, n]))
    return e.reshape(w, batch + [n]), e.reshape(z, batch + [n, n])
