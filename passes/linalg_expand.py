"""Shared code of the ``cholesky`` and ``triangular_solve`` expanders: loop builders and the pass driver.

Both expansions are written on hlokit's IR builder (:mod:`hlokit.passes.builder`) and reach core
StableHLO only: ``while`` loops whose bodies use ``dynamic_slice`` / ``dynamic_update_slice``,
``dot_general`` (precision ``HIGHEST``, as XLA's own expanders ask), elementwise ops, ``select`` and
``iota`` masks. The algorithms follow XLA's expanders (openxla/xla
``xla/hlo/transforms/expanders/cholesky_expander.cc`` and ``xla/service/triangular_solve_expander.cc``),
restated here:

* :func:`build_cholesky` — column-by-column Cholesky (the right-looking form of the Cholesky-Banachiewicz
  loop of ``CholeskyUnblocked``): at step ``j`` the diagonal entry is ``sqrt`` of the updated
  ``A[j, j]`` (of its real part for complex types), the column below it is divided by it and its outer
  product with itself (conjugated) is subtracted from the trailing matrix. Every batch element whose
  factorization met a NaN ``sqrt`` (a non-positive pivot: the matrix is not positive definite, or holds
  a NaN) is returned filled with NaN (``NaN + 0i`` for complex types), exactly as XLA does
  (``seen_error`` in ``BuildCholesky``); the triangle that is not computed is zero, as XLA returns it.
  ``lower = false`` factors the transpose and transposes the factor back, as XLA does.
* :func:`build_triangular_solve` — every attribute combination is first brought to ``M X = B`` with
  ``M`` lower or upper triangular (``op(a)`` on the left; ``op(a)^T`` with ``B^T`` on the right, whose
  solution is ``X^T``); the triangle that is not read and (``unit_diagonal``) the diagonal are masked
  off once. Up to ``BLOCK_THRESHOLD`` rows: substitution (``SolveDirectly`` in XLA's expander), step
  ``j`` computes ``X[j] = (B[j] - M[j, :] X) / M[j, j]`` with one ``dot_general`` while the unsolved
  rows of ``X`` are still zero. Larger: XLA's ``SolveByInvertingDiagonalBlocks`` (an upper triangular
  ``M`` is made lower by reversing its rows and columns): the diagonal blocks of ``BLOCK_SIZE`` rows are
  inverted together by one substitution loop batched over the blocks, then one loop over the blocks
  computes ``X_p = inv(M_pp) (B_p - M_p,<p X_<p)`` with two ``dot_general``; ``M`` is padded to whole
  blocks with an identity. A zero on the diagonal of ``a`` gives inf / NaN as on XLA (the spec leaves a
  singular ``a`` undefined).

Small static sizes are unrolled (the loop body is emitted once per index with constant indices); larger
ones are ``stablehlo.while`` loops over the index. ``f16`` and ``bf16`` are computed in ``f32`` and
rounded once at the end (XLA CPU evaluates their arithmetic in ``f32`` as well).

Measured on XLA CPU (jaxlib 0.10.2, one shared 2-core machine) on the programs of
``examples/lower_to_core/linalg`` (seeded normal inputs): median wall time of one call of the compiled
program through :mod:`hlokit.backend` (about 0.1-0.2 ms of it is call overhead), the program as written
(XLA runs its own expanders) against the program after both passes:

====================================  ==========  ==========
program                                native      expanded
====================================  ==========  ==========
cholesky f32 16x16                      0.23 ms     0.22 ms
cholesky f32 4x64x64 (upper)            2.3 ms      0.38 ms
cholesky f32 256x256                    15 ms       2.2 ms
cholesky f64 256x256                    32 ms       4.0 ms
triangular_solve f32 16x16              0.28 ms     0.27 ms
triangular_solve f64 8x64x64            0.86 ms     0.59 ms
triangular_solve f32 256x256            1.4 ms      1.3 ms
triangular_solve f32 4x256x256          2.0 ms      1.0 ms
cho_solve c64 2x64x64                   7.2 ms      0.81 ms
====================================  ==========  ==========

The first Cholesky form measured (right-looking: a rank-1 update of the whole matrix per column) took
75 ms at n = 256; the left-looking form above reads the factor once per column (a matrix-vector
``dot_general``) and writes one column. The first triangular solve (substitution at every size) took
1.4 ms at n = 256 and 9.5 ms with batch 4; blocking brought those to the numbers above. Unrolling
(``UNROLL_LIMIT``) gained nothing measurable at n = 4 .. 16 and compiled slower.
"""

from __future__ import annotations

from typing import Callable

from jaxlib.mlir import ir

from hlokit.passes.builder import (
    COMPLEX_TYPES,
    V,
    Emitter,
    TemplateCache,
    UnsupportedError,
    find_ops,
    instantiate_all,
    shape_prefix,
)
from hlokit.passes.registry import Pass, fail

__all__ = [
    "COMPUTE_TYPES",
    "ExpandPass",
    "BLOCK_SIZE",
    "BLOCK_THRESHOLD",
    "UNROLL_LIMIT",
    "build_cholesky",
    "build_triangular_solve",
    "conj",
    "dot",
    "loop",
    "transpose_minor",
]

#: Element type -> the type the expansion computes in (narrow floats are widened to f32).
COMPUTE_TYPES = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64",
                 "complex<f32>": "complex<f32>", "complex<f64>": "complex<f64>"}

#: Matrices of at most this many rows are unrolled; larger ones become a ``stablehlo.while``. Measured on
#: XLA CPU (f32, batch 8, n = 4 .. 16): unrolled bodies ran no faster than the loop (both within the
#: noise of one ~0.1-0.3 ms call) and compiled 1.5 to 6 times slower, so only the one- and two-step
#: loops are unrolled.
UNROLL_LIMIT = 2

#: Triangular solves with more rows than this are blocked (:func:`_blocked_lower`) in blocks of
#: ``BLOCK_SIZE`` rows; smaller ones are one substitution loop.
BLOCK_THRESHOLD = 32
BLOCK_SIZE = 16


def dot(e: Emitter, lhs: V, rhs: V, batch: int, lhs_contract: int, rhs_contract: int) -> V:
    """``dot_general`` of ``lhs`` and ``rhs`` sharing their ``batch`` leading dimensions, contracting
    ``lhs_contract`` with ``rhs_contract``; precision ``HIGHEST`` on both operands (what XLA's
    expanders ask, so that TPUs do not round f32 operands to bf16)."""
    ls, rs = lhs.shape, rhs.shape
    bd = list(range(batch))
    lf = [ls[d] for d in range(len(ls)) if d >= batch and d != lhs_contract]
    rf = [rs[d] for d in range(len(rs)) if d >= batch and d != rhs_contract]
    shape = ls[:batch] + lf + rf
    ints = ", ".join(str(d) for d in bd)
    dims = (f"#stablehlo.dot<lhs_batching_dimensions = [{ints}], rhs_batching_dimensions = [{ints}], "
            f"lhs_contracting_dimensions = [{lhs_contract}], rhs_contracting_dimensions = [{rhs_contract}]>")
    prec = "[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]"
    (r,) = e.op("stablehlo.dot_general", [lhs, rhs], [(shape_prefix(shape), lhs.t)],
                f"dot_dimension_numbers = {dims}, precision_config = {prec}")
    return r


def conj(e: Emitter, x: V) -> V:
    """Complex conjugate (``complex(real, -imag)``); ``x`` itself for real types."""
    if x.t not in COMPLEX_TYPES:
        return x
    return e.complex(e.real(x), -e.imag(x))


def transpose_minor(e: Emitter, x: V) -> V:
    """Swap the two minor (matrix) dimensions of ``x``."""
    r = len(x.shape)
    return e.transpose(x, list(range(r - 2)) + [r - 1, r - 2])


def loop(e: Emitter, count: int, carry: list[V], step: Callable[..., list[V]], unroll: bool) -> list[V]:
    """Run ``step(i, *carry) -> carry`` for ``i`` = 0 .. ``count - 1`` (``i`` a 0-d i32 value): unrolled
    with constant indices when ``unroll``, else as a ``stablehlo.while`` carrying ``(i, *carry)``."""
    if unroll:
        for i in range(count):
            carry = step(e.scalar(i, "i32"), *carry)
        return carry
    out = e.while_loop(
        [e.scalar(0, "i32"), *carry],
        lambda i, *_: e.cmp("LT", i, e.scalar(count, "i32"), "SIGNED"),
        lambda i, *c: [i + e.scalar(1, "i32"), *step(i, *c)],
    )
    return out[1:]


def _masks(e: Emitter, shape: list[int]) -> tuple[V, V]:
    """Row and column index (``iota``) of a matrix-shaped value, dimensions -2 and -1."""
    r = len(shape)
    return e.iota(shape, r - 2, "i32"), e.iota(shape, r - 1, "i32")


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
            err = e.lor(err, e.isnan(root))
            root = e.complex(root, e.const(0.0, root))
        else:
            root = e.sqrt(d)
            err = e.lor(err, e.isnan(root))
        rows = e.iota(col_shape, r, "i32")
        jj = e.broadcast_in_dim(j, col_shape, [])
        root_col = e.broadcast_in_dim(root, col_shape, full_dims)
        c = e.select(e.cmp("GT", rows, jj, "SIGNED"), col / root_col, e.const(0.0, col))
        c = e.select(e.cmp("EQ", rows, jj, "SIGNED"), root_col, c)
        return [e.dynamic_update_slice(l, c, [z] * r + [z, j]), a, err]

    err0 = e.const(False, t="i1", s=shape_prefix(batch + [1, 1]))
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


def _substitute(e: Emitter, m: V, b: V, lower: bool, unit: bool, unroll: bool) -> V:
    """``X`` with ``M X = B`` for ``M`` (``[*batch, n, n]``) lower or upper triangular, ``B``
    ``[*batch, n, k]``: forward (lower) or backward (upper) substitution, one row per step."""
    shape = m.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[-1]
    k = b.shape[-1]
    full_dims = list(range(r + 2))
    rows, cols = _masks(e, shape)
    strict = e.cmp("GT" if lower else "LT", rows, cols, "SIGNED")
    ms = e.select(strict, m, e.const(0.0, m))
    invariants = [ms, b]
    if not unit:
        on_diag = e.select(e.cmp("EQ", rows, cols, "SIGNED"), m, e.const(0.0, m))
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


def _reverse(e: Emitter, x: V, dims: list[int]) -> V:
    """``x`` reversed along ``dims`` (``stablehlo.reverse``; negative dims count from the end)."""
    r = len(x.shape)
    ds = ", ".join(str(d % r) for d in dims)
    (y,) = e.op("stablehlo.reverse", [x], [(x.s, x.t)], f"dimensions = array<i64: {ds}>")
    return y


def _pad_minor(e: Emitter, x: V, rows: int, cols: int) -> V:
    """``x`` with ``rows`` zero rows and ``cols`` zero columns appended (``stablehlo.pad``)."""
    shape = x.shape
    r = len(shape)
    high = [0] * (r - 2) + [rows, cols]
    out = shape[:-2] + [shape[-2] + rows, shape[-1] + cols]
    zero = ", ".join("0" for _ in range(r))
    (y,) = e.op("stablehlo.pad", [x, e.scalar(0.0, x.t)], [(shape_prefix(out), x.t)],
                f"edge_padding_low = array<i64: {zero}>, edge_padding_high = array<i64: {', '.join(map(str, high))}>, "
                f"interior_padding = array<i64: {zero}>")
    return y


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
        pad_diag = e.land(e.cmp("EQ", rows, cols, "SIGNED"), e.cmp("GE", rows, e.const(n, rows), "SIGNED"))
        m = e.select(pad_diag, e.const(1.0, m), m)
    rows, cols = _masks(e, batch + [big, big])
    # the diagonal blocks [*batch, nb, block, block]: mask the others, then sum the column blocks away
    row_block = rows / e.const(block, rows)
    col_block = cols / e.const(block, cols)
    same = e.cmp("EQ", row_block, col_block, "SIGNED")
    blocks = e.reshape(e.select(same, m, e.const(0.0, m)), batch + [nb, block, nb, block])
    diag = e.reduce_sum(blocks, [r + 2])  # [*batch, nb, block, block]
    eye = e.select(e.cmp("EQ", *_masks(e, batch + [nb, block, block]), "SIGNED"),
                   e.const(1.0, t=m.t, s=shape_prefix(batch + [nb, block, block])),
                   e.const(0.0, t=m.t, s=shape_prefix(batch + [nb, block, block])))
    inv = _substitute(e, diag, eye, True, unit, unroll=False)
    # the blocks left of the diagonal block, row by row: X rows not solved yet are zero anyway
    left = e.select(e.cmp("LT", col_block, row_block, "SIGNED"), m, e.const(0.0, m))

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


_TRANSPOSES = ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")


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
    if transpose_a not in _TRANSPOSES:
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
            m, rhs = _reverse(e, m, [-2, -1]), _reverse(e, rhs, [-2])
        x = _blocked_lower(e, m, rhs, unit_diagonal, BLOCK_SIZE)
        if not lower:
            x = _reverse(e, x, [-2])
    else:
        x = _substitute(e, m, rhs, lower, unit_diagonal, unroll)
    if not left_side:
        x = transpose_minor(e, x)
    return e.convert(x, b.t)


# -- the pass driver -----------------------------------------------------------------------------------


class ExpandPass(Pass):
    """A pass that replaces every op named :attr:`op_name` by a template built by :meth:`build`.

    Every op is checked and its template built (one per signature: operand types and :meth:`config`)
    before the first rewrite, so a refused op (dynamic or unranked shapes, an unsupported element type)
    leaves the function unchanged and fails with a located error.
    """

    anchor = "func.func"
    op_name = ""

    def config(self, op) -> tuple:
        """The attributes that select the expansion (part of the template key)."""
        raise NotImplementedError

    def build(self, e: Emitter, args: list[V], config: tuple) -> V:
        """Write the expansion of one op on ``e`` over its operands ``args``; returns the result."""
        raise NotImplementedError

    def _cache(self, context: ir.Context) -> TemplateCache:
        return TemplateCache.of_pass(self, context)

    def _template(self, cache: TemplateCache, op) -> ir.Operation:
        short = self.op_name.split(".")[-1]
        types = []
        for v in list(op.operands) + list(op.results):
            t = v.type
            if not isinstance(t, ir.RankedTensorType) or not ir.RankedTensorType(t).has_static_shape:
                raise fail(f"'{self.op_name}' with a dynamic or unranked shape ({t}) cannot be expanded "
                           f"(static shapes only)", op)
        for v in op.operands:
            t = ir.RankedTensorType(v.type)
            types.append((shape_prefix(t.shape), str(t.element_type)))
        config = self.config(op)
        key = (tuple(types), config)
        fn = cache.funcs.get(key)
        if fn is not None:
            return fn
        e = Emitter()
        args = e.args(types)
        try:
            result = self.build(e, args, config)
            if result.ty != str(op.results[0].type):  # pragma: no cover - guarded by the builders
                raise fail(f"internal: result type {result.ty} != {op.results[0].type}", op)
            text = e.text(f"{short}_{len(cache.funcs)}", args, [result])
            return cache.parse(key, text, self.op_name)
        except UnsupportedError as err:
            raise fail(str(err), op) from None

    def run_on_operation(self, func_op: ir.Operation) -> None:
        found = find_ops(func_op, (self.op_name,))
        if not found:
            return
        cache = self._cache(func_op.context)
        # every op checked and its template built before any rewrite
        instantiate_all(cache, [(o, self._template(cache, o)) for o in found])
