"""Reductions of the reference interpreter, and the helpers that run region bodies on whole arrays.

Ops: ``reduce``, ``reduce_window``, ``select_and_scatter``, ``dot_general`` (and the deprecated ``dot``),
``convolution``, ``dynamic_conv``, ``fft``, ``triangular_solve`` (seed 000, sections of the same names):
everything that sums or selects over a window or a contraction.

``reduce`` (seed 000, section "reduce") applies ``body`` along ``dimensions`` as a binary tree whose
in-order leaves are the input elements with the init values interspersed; the tree is implementation
defined. Ours never calls the body once per element:

* a body that is one commutative op on its arguments (``add``, ``multiply``, ``maximum``, ``minimum``,
  ``and``, ``or``, ``xor``) whose numpy reduction computes exactly what the body computes (integers and
  booleans for all of them; f32/f64/complex for add/multiply, which numpy reduces in the operand's
  precision) is one ``ufunc.reduce`` call;
* any other body is evaluated on whole array halves: a pairwise tree (``log2(K)`` calls of the body on
  arrays for K reduced elements), then one call combining the init values with the tree's root.

Region bodies are run on whole arrays (:func:`region_callable`) when every op in them is elementwise
(a body of 0-d ops then runs the same on arrays of any shape); otherwise the body is called once per
element (correct but slow, only for bodies with shape-dependent ops).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.interpreter.values import dtype_of
from hlokit.interpreter.registry import register

__all__ = [
    "reduce",
    "reduce_window",
    "select_and_scatter",
    "dot_general",
    "convolution",
    "fft",
    "triangular_solve",
    "Body",
    "ELEMENTWISE_OPS",
    "is_elementwise_region",
    "region_callable",
    "known_reduction",
    "vectorize_body",
]

#: A region as a function: takes the block arguments' values, returns the terminator's operand values.
Body = Callable[..., Sequence[np.ndarray]]

#: Ops that compute elementwise on same-shaped (or 0-d, broadcast) operands: a region made of them can be
#: evaluated on whole arrays instead of 0-d tensors.
ELEMENTWISE_OPS = frozenset(
    "stablehlo." + n
    for n in (
        "abs add and atan2 cbrt ceil clamp compare complex constant convert cosine count_leading_zeros "
        "divide exponential exponential_minus_one floor imag is_finite log log_plus_one logistic maximum "
        "minimum multiply negate not or popcnt power real reduce_precision remainder round_nearest_afz "
        "round_nearest_even rsqrt select shift_left shift_right_arithmetic shift_right_logical sign sine "
        "sqrt subtract tan tanh xor return optimization_barrier"
    ).split()
) | frozenset({"func.return"})

#: Single-op bodies and the numpy reduction that computes them exactly, per dtype kind (see module doc).
_UFUNCS = {
    "stablehlo.add": (np.add, "biufc"),
    "stablehlo.multiply": (np.multiply, "biufc"),
    "stablehlo.maximum": (np.maximum, "biu"),
    "stablehlo.minimum": (np.minimum, "biu"),
    "stablehlo.and": (np.bitwise_and, "biu"),
    "stablehlo.or": (np.bitwise_or, "biu"),
    "stablehlo.xor": (np.bitwise_xor, "biu"),
}
#: Numpy-native dtypes whose ufunc reductions round in the operand's own precision. float16 is left out:
#: numpy sums it in float32 and rounds once at the end, which is not the body's semantics.
_NATIVE = frozenset(
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
        np.float32, np.float64, np.complex64, np.complex128,
    )
)


def is_elementwise_region(region: ir.Region) -> bool:
    """True when ``region`` has one block made only of :data:`ELEMENTWISE_OPS` (``bitcast_convert``
    counts when it keeps the bit width, so it cannot change the rank)."""
    if len(region.blocks) != 1:
        return False
    for op in region.blocks[0].operations:
        name = op.operation.name
        if name in ELEMENTWISE_OPS:
            continue
        if name == "stablehlo.bitcast_convert":
            src = ir.ShapedType(op.operands[0].type)
            dst = ir.ShapedType(op.results[0].type)
            if src.rank == dst.rank:
                continue
        return False
    return True


def known_reduction(region: ir.Region) -> str | None:
    """The op name when ``region`` is ``%r = OP %arg0, %arg1; return %r`` (either operand order) for one
    of add/multiply/maximum/minimum/and/or/xor; ``None`` otherwise."""
    if len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    ops = list(block.operations)
    if len(ops) != 2 or len(block.arguments) != 2:
        return None
    op, ret = ops
    name = op.operation.name
    if name not in _UFUNCS or ret.operation.name not in ("stablehlo.return", "func.return"):
        return None
    args = list(block.arguments)
    operands = list(op.operands)
    if len(operands) != 2 or not (
        (operands[0] == args[0] and operands[1] == args[1]) or (operands[0] == args[1] and operands[1] == args[0])
    ):
        return None
    if len(ret.operands) != 1 or ret.operands[0] != op.results[0]:
        return None
    return name


def vectorize_body(body: Body, num_results: int) -> Body:
    """Wrap a body that only accepts 0-d tensors so it runs on arrays: one call per element position of
    the broadcast arguments, results stacked back (the slow path for non-elementwise regions)."""

    def run(*args: np.ndarray) -> list[np.ndarray]:
        arrays = [np.asarray(a) for a in args]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        if shape == ():
            return list(body(*arrays))
        flat = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
        size = int(np.prod(shape))
        outs: list[np.ndarray] | None = None
        for k in range(size):
            res = body(*(f[k].reshape(()) if isinstance(f[k], np.ndarray) else np.asarray(f[k], f.dtype) for f in flat))
            if outs is None:
                outs = [np.empty(size, dtype=np.asarray(r).dtype) for r in res]
            for o, r in zip(outs, res):
                o[k] = np.asarray(r).reshape(())
        if outs is None:  # empty arrays: learn the result dtypes from one call on zeros
            res = body(*(np.zeros((), a.dtype) for a in arrays))
            outs = [np.empty(0, dtype=np.asarray(r).dtype) for r in res]
        return [o.reshape(shape) for o in outs]

    return run


def region_callable(interp, region: ir.Region) -> Body:
    """``region`` as a function of its block arguments evaluated on whole arrays: through
    ``interp.eval_region`` directly when the region is elementwise (:func:`is_elementwise_region`),
    one call per element otherwise."""

    def body(*args: np.ndarray) -> list[np.ndarray]:
        return list(interp.eval_region(region, list(args)))

    if is_elementwise_region(region):
        return body
    num_results = len(list(region.blocks[0].operations)[-1].operands)
    return vectorize_body(body, num_results)


def _call(body: Body, args: Sequence[np.ndarray], shapes: Sequence[tuple[int, ...]], dtypes) -> list[np.ndarray]:
    """Call ``body`` and bring its results to the expected shapes and dtypes (a body may return a
    0-d constant that does not depend on its arguments)."""
    outs = list(body(*args))
    fixed = []
    for o, shape, dt in zip(outs, shapes, dtypes):
        o = np.asarray(o)
        if o.dtype != dt:
            o = o.astype(dt)
        if o.shape != tuple(shape):
            o = np.broadcast_to(o, shape)
        fixed.append(o)
    return fixed


def reduce(
    inputs: Sequence[np.ndarray],
    init_values: Sequence[np.ndarray],
    dimensions: Sequence[int],
    body: Body,
    body_dtypes: Sequence[np.dtype] | None = None,
    known: str | None = None,
) -> list[np.ndarray]:
    """Spec ``reduce`` (variadic): ``results...[j] = reduce(inputs...[j with dimensions inserted])``.

    ``inputs``: N arrays of one shape; ``init_values``: N 0-d arrays; ``dimensions``: distinct dims to
    reduce; ``body(lhs_0..lhs_{N-1}, rhs_0..rhs_{N-1}) -> N values`` (evaluated on whole arrays);
    ``body_dtypes``: the body's element types ``E_i`` (inputs and init values are first converted to them,
    ``is_promotable`` guarantees it widens); ``known``: the op name when the body is a single
    add/multiply/maximum/minimum/and/or/xor (:func:`known_reduction`), enabling one ``ufunc.reduce``.
    Results have the input shape without ``dimensions`` and dtypes ``body_dtypes``.
    """
    n = len(inputs)
    dtypes = [np.dtype(d) for d in body_dtypes] if body_dtypes is not None else [x.dtype for x in inputs]
    inputs = [x if x.dtype == d else x.astype(d) for x, d in zip(inputs, dtypes)]
    inits = [np.asarray(v).reshape(()) for v in init_values]
    inits = [v if v.dtype == d else v.astype(d) for v, d in zip(inits, dtypes)]
    dims = sorted({int(d) for d in dimensions})
    shape = inputs[0].shape
    kept = [d for d in range(len(shape)) if d not in dims]
    rest = tuple(shape[d] for d in kept)
    count = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    init_b = [np.broadcast_to(v, rest) for v in inits]

    if count == 0:
        return [np.array(v, copy=True) for v in init_b]

    if known is not None and n == 1 and dtypes[0] in _NATIVE and dtypes[0].kind in _UFUNCS[known][1]:
        ufunc = _UFUNCS[known][0]
        with np.errstate(all="ignore"):
            red = ufunc.reduce(inputs[0], axis=tuple(dims), dtype=dtypes[0]) if dims else inputs[0]
            combined = ufunc(inits[0], red, dtype=dtypes[0])
        return [np.array(np.broadcast_to(np.asarray(combined, dtypes[0]), rest), order="C")]

    # Reduced dimensions first, flattened into one axis of length `count`: halves are contiguous slices.
    order = dims + kept
    vals = [np.reshape(np.transpose(x, order), (count,) + rest) for x in inputs]
    while count > 1:
        half = count // 2
        lhs = [v[:half] for v in vals]
        rhs = [v[half : 2 * half] for v in vals]
        new = _call(body, lhs + rhs, [(half,) + rest] * n, dtypes)
        if count % 2:
            new = [np.concatenate([a, v[2 * half :]], axis=0) for a, v in zip(new, vals)]
        vals = new
        count = half + count % 2
    root = [v.reshape(rest) for v in vals]
    results = _call(body, init_b + root, [rest] * n, dtypes)
    return [np.array(r, order="C") for r in results]


def _block_arg_dtypes(region: ir.Region) -> list[np.dtype]:
    return [dtype_of(a.type) for a in region.blocks[0].arguments]


@register("stablehlo.reduce")
def _reduce(op, operands, interp):
    n = len(operands) // 2
    region = op.regions[0]
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    body_dtypes = _block_arg_dtypes(region)[:n]
    return reduce(
        operands[:n],
        operands[n:],
        dims,
        region_callable(interp, region),
        body_dtypes,
        known=known_reduction(region),
    )


# ----------------------------------------------------------------------------------------------------------
# dot_general: a sum of products over the contracting dimensions
# ----------------------------------------------------------------------------------------------------------


def _dot_compute_dtype(lhs: np.dtype, rhs: np.dtype, result: np.dtype) -> np.dtype:
    """The dtype products and sums are computed in.

    * bool, integer, f32, f64 and complex results: the result type (operands are converted to it, so
      integers wrap modulo the result's width); f64 when a float operand is wider than an f32 result;
    * the small float types (f16, bf16, f8, f6, f4): f32, rounded once to the result type (as XLA's
      CPU backend accumulates them); sub-byte integer results: int64, wrapped by the final conversion.
    """
    result = np.dtype(result)
    if result in _NATIVE:
        if result.kind == "f" and max(np.dtype(lhs).itemsize, np.dtype(rhs).itemsize) > result.itemsize:
            return np.dtype(np.float64)
        return result
    if result.kind == "f" or result.kind == "V" and "float" in result.name:
        return np.dtype(np.float32)
    return np.dtype(np.int64)


def dot_general(
    lhs: np.ndarray,
    rhs: np.ndarray,
    lhs_batching_dimensions: Sequence[int],
    rhs_batching_dimensions: Sequence[int],
    lhs_contracting_dimensions: Sequence[int],
    rhs_contracting_dimensions: Sequence[int],
    result_dtype: np.dtype,
) -> np.ndarray:
    """Spec ``dot_general``: ``result[batch..., lhs_free..., rhs_free...] = sum over the contracting
    indices of lhs * rhs``.

    Result dimensions: the batching dimensions (in ``lhs_batching_dimensions`` order), then lhs's
    remaining dimensions, then rhs's, in order. Computed as one batched ``matmul`` in
    :func:`_dot_compute_dtype` and converted to ``result_dtype`` (precision_config and algorithm do
    not change the result here). Booleans: OR of ANDs; integers wrap modulo the result's width.
    """
    lb, rb = [int(d) for d in lhs_batching_dimensions], [int(d) for d in rhs_batching_dimensions]
    lc, rc = [int(d) for d in lhs_contracting_dimensions], [int(d) for d in rhs_contracting_dimensions]
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    batch_shape = [lhs.shape[d] for d in lb]
    lf_shape, rf_shape = [lhs.shape[d] for d in lf], [rhs.shape[d] for d in rf]
    b = int(np.prod(batch_shape, dtype=np.int64))
    m = int(np.prod(lf_shape, dtype=np.int64))
    n = int(np.prod(rf_shape, dtype=np.int64))
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    ct = _dot_compute_dtype(lhs.dtype, rhs.dtype, result_dtype)
    left = np.transpose(lhs, lb + lf + lc).astype(ct).reshape(b, m, k)
    right = np.transpose(rhs, rb + rc + rf).astype(ct).reshape(b, k, n)
    with np.errstate(all="ignore"):
        out = np.matmul(left, right)
    return out.reshape(batch_shape + lf_shape + rf_shape).astype(result_dtype)


@register("stablehlo.dot_general")
def _dot_general(op, operands, interp):
    from jaxlib.mlir.dialects import stablehlo as _shlo

    dn = _shlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    return [
        dot_general(
            operands[0],
            operands[1],
            list(dn.lhs_batching_dimensions),
            list(dn.rhs_batching_dimensions),
            list(dn.lhs_contracting_dimensions),
            list(dn.rhs_contracting_dimensions),
            dtype_of(op.results[0].type),
        )
    ]


@register("stablehlo.dot")
def _dot(op, operands, interp):
    """Deprecated ``dot`` (seed 003: dot -> dot_general): contracts lhs's last with rhs's first dim."""
    lhs, rhs = operands
    return [dot_general(lhs, rhs, [], [], [lhs.ndim - 1], [0], dtype_of(op.results[0].type))]


# ----------------------------------------------------------------------------------------------------------
# reduce_window, select_and_scatter: windows as strided views of the padded operand
# ----------------------------------------------------------------------------------------------------------


def _windows(
    padded: np.ndarray, window_dimensions: Sequence[int], window_strides: Sequence[int], window_dilations: Sequence[int]
) -> np.ndarray:
    """A read-only view of shape ``result_shape + window_dimensions``: ``view[i..., w...] =
    padded[i * window_strides + w * window_dilations]`` (all windows of the spec's ``slice``)."""
    rank = padded.ndim
    span = [(int(w) - 1) * int(d) + 1 for w, d in zip(window_dimensions, window_dilations)]
    out = [max((p - s) // int(st) + 1, 0) if p >= s else 0 for p, s, st in zip(padded.shape, span, window_strides)]
    if 0 in out or 0 in [int(w) for w in window_dimensions]:
        return np.zeros(out + [int(w) for w in window_dimensions], padded.dtype)
    strides = padded.strides
    return np.lib.stride_tricks.as_strided(
        padded,
        shape=tuple(out) + tuple(int(w) for w in window_dimensions),
        strides=tuple(s * int(st) for s, st in zip(strides, window_strides))
        + tuple(s * int(d) for s, d in zip(strides, window_dilations)),
        writeable=False,
    )


def reduce_window(
    inputs: Sequence[np.ndarray],
    init_values: Sequence[np.ndarray],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None,
    base_dilations: Sequence[int] | None,
    window_dilations: Sequence[int] | None,
    padding: Sequence[Sequence[int]] | None,
    body: Body,
    body_dtypes: Sequence[np.dtype] | None = None,
    known: str | None = None,
) -> list[np.ndarray]:
    """Spec ``reduce_window``: ``results...[i] = reduce(windows, init_values, axes, body)`` with
    ``padded = pad(inputs..., init_values..., padding[:, 0], padding[:, 1], base_dilations - 1)`` and
    ``windows = slice(padded, i * window_strides, i * window_strides + (window_dimensions - 1) *
    window_dilations + 1, window_dilations)``.

    Strides/dilations default to 1 and padding to 0 (``None``); every window of every output position
    is one strided view, reduced at once by :func:`reduce` (same body paths and dtypes).
    """
    from hlokit.interpreter.data_movement import pad

    rank = inputs[0].ndim
    ones = [1] * rank
    window_strides = list(window_strides) if window_strides is not None else ones
    base_dilations = list(base_dilations) if base_dilations is not None else ones
    window_dilations = list(window_dilations) if window_dilations is not None else ones
    padding = [list(p) for p in padding] if padding is not None else [[0, 0]] * rank
    windows = []
    for x, init in zip(inputs, init_values):
        padded = pad(
            x,
            np.asarray(init).astype(x.dtype),
            [p[0] for p in padding],
            [p[1] for p in padding],
            [int(b) - 1 for b in base_dilations],
        )
        windows.append(_windows(padded, window_dimensions, window_strides, window_dilations))
    axes = list(range(rank, 2 * rank))
    return reduce(windows, init_values, axes, body, body_dtypes, known)


def select_and_scatter(
    operand: np.ndarray,
    source: np.ndarray,
    init_value: np.ndarray,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None,
    padding: Sequence[Sequence[int]] | None,
    select: Body,
    scatter: Body,
    known_scatter: str | None = None,
) -> np.ndarray:
    """Spec ``select_and_scatter``: in each window of the padded ``operand`` (one per ``source``
    element) the element chosen by ``select(a, b)`` (true: keep ``a``) over the window in order, without
    an init value, receives ``source``'s element; ``result[i] = reduce(source values sent to i,
    init_value, scatter)`` (``init_value`` where nothing was sent).

    Padding elements are never selected; a window with no operand element (only padding, spec #731)
    sends nothing. The selection is a pairwise tree over adjacent window elements (the left element
    is always the earlier one, so ties resolve as a left-to-right scan does); the scatter runs as
    :func:`hlokit.interpreter.data_movement.scatter` does.
    """
    from hlokit.interpreter.data_movement import pad
    from hlokit.interpreter.data_movement import scatter as scatter_op

    rank = operand.ndim
    ones = [1] * rank
    window_strides = list(window_strides) if window_strides is not None else ones
    padding = [list(p) for p in padding] if padding is not None else [[0, 0]] * rank
    low, high, zero = [p[0] for p in padding], [p[1] for p in padding], [0] * rank
    pv = pad(operand, np.zeros((), operand.dtype), low, high, zero)
    pvalid = pad(np.ones(operand.shape, np.bool_), np.array(False), low, high, zero)
    positions = np.arange(operand.size, dtype=np.int64).reshape(operand.shape)
    pindex = pad(positions, np.array(-1, np.int64), low, high, zero)
    win = [_windows(a, window_dimensions, window_strides, ones) for a in (pv, pvalid, pindex)]
    out_shape = win[0].shape[:rank]
    k = int(np.prod(win[0].shape[rank:], dtype=np.int64))
    vals, valid, idx = (np.reshape(w, out_shape + (k,)) for w in win)
    while vals.shape[-1] > 1:
        m = vals.shape[-1]
        h = m // 2
        lv, rv = vals[..., 0 : 2 * h : 2], vals[..., 1 : 2 * h : 2]
        lok, rok = valid[..., 0 : 2 * h : 2], valid[..., 1 : 2 * h : 2]
        keep_left = np.broadcast_to(np.asarray(select(lv, rv)[0]).astype(np.bool_), lv.shape)
        take_left = lok & (~rok | keep_left)
        nv = np.where(take_left, lv, rv)
        ni = np.where(take_left, idx[..., 0 : 2 * h : 2], idx[..., 1 : 2 * h : 2])
        nok = lok | rok
        if m % 2:
            nv = np.concatenate([nv, vals[..., 2 * h :]], axis=-1)
            ni = np.concatenate([ni, idx[..., 2 * h :]], axis=-1)
            nok = np.concatenate([nok, valid[..., 2 * h :]], axis=-1)
        vals, idx, valid = nv, ni, nok
    selected = idx[..., 0] if k else np.full(out_shape, -1, np.int64)
    if k == 0:
        valid = np.zeros(out_shape + (1,), np.bool_)
    sent = valid[..., 0].reshape(-1)
    targets = selected.reshape(-1)[sent]
    values = source.reshape(-1)[sent]
    result = np.full(operand.size, np.asarray(init_value).reshape(()), operand.dtype)
    (flat,) = scatter_op(
        [result],
        targets.reshape(-1, 1),
        [values],
        [],
        [0],
        [],
        [],
        [0],
        1,
        scatter,
        None,
        known_scatter,
    )
    return flat.reshape(operand.shape)


def _padding_attr(op) -> list[list[int]] | None:
    if "padding" not in op.attributes:
        return None
    flat = [int(x) for x in ir.DenseIntElementsAttr(op.attributes["padding"])]
    return [flat[i : i + 2] for i in range(0, len(flat), 2)]


def _opt_i64(op, name):
    from hlokit.interpreter.registry import i64_array

    return i64_array(op, name) if name in op.attributes else None


@register("stablehlo.reduce_window")
def _reduce_window(op, operands, interp):
    from hlokit.interpreter.registry import i64_array

    n = len(operands) // 2
    region = op.regions[0]
    return reduce_window(
        operands[:n],
        operands[n:],
        i64_array(op, "window_dimensions"),
        _opt_i64(op, "window_strides"),
        _opt_i64(op, "base_dilations"),
        _opt_i64(op, "window_dilations"),
        _padding_attr(op),
        region_callable(interp, region),
        _block_arg_dtypes(region)[:n],
        known=known_reduction(region),
    )


@register("stablehlo.select_and_scatter")
def _select_and_scatter(op, operands, interp):
    from hlokit.interpreter.data_movement import _returns_update
    from hlokit.interpreter.registry import i64_array

    select_region, scatter_region = op.regions[0], op.regions[1]
    known = "replace" if _returns_update(scatter_region) else known_reduction(scatter_region)
    return [
        select_and_scatter(
            operands[0],
            operands[1],
            operands[2],
            i64_array(op, "window_dimensions"),
            _opt_i64(op, "window_strides"),
            _padding_attr(op),
            region_callable(interp, select_region),
            region_callable(interp, scatter_region),
            known,
        )
    ]


# ----------------------------------------------------------------------------------------------------------
# convolution: dilated, padded windows as one strided view, contracted with the kernel by matmul
# ----------------------------------------------------------------------------------------------------------


def convolution(
    lhs: np.ndarray,
    rhs: np.ndarray,
    window_strides: Sequence[int] | None,
    padding: Sequence[Sequence[int]] | None,
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    window_reversal: Sequence[bool] | None,
    input_batch_dimension: int,
    input_feature_dimension: int,
    input_spatial_dimensions: Sequence[int],
    kernel_input_feature_dimension: int,
    kernel_output_feature_dimension: int,
    kernel_spatial_dimensions: Sequence[int],
    output_batch_dimension: int,
    output_feature_dimension: int,
    output_spatial_dimensions: Sequence[int],
    feature_group_count: int,
    batch_group_count: int,
    result_dtype: np.dtype,
) -> np.ndarray:
    """Spec ``convolution``: dot products of windows of ``lhs`` (padded with ``padding``, dilated by
    ``lhs_dilation``, stepped by ``window_strides``) with ``rhs`` (dilated by ``rhs_dilation``, spatial
    dims reversed where ``window_reversal``), per feature group and batch group.

    Shapes follow the dimension numbers; the result has ``result_dtype`` (computed as dot_general is,
    see :func:`_dot_compute_dtype`). Strides/dilations default to 1, padding to 0 (``None``).
    """
    ns = len(input_spatial_dimensions)
    ones = [1] * ns
    window_strides = list(window_strides) if window_strides is not None else ones
    lhs_dilation = list(lhs_dilation) if lhs_dilation is not None else ones
    rhs_dilation = list(rhs_dilation) if rhs_dilation is not None else ones
    padding = [list(p) for p in padding] if padding is not None else [[0, 0]] * ns
    ct = _dot_compute_dtype(lhs.dtype, rhs.dtype, result_dtype)
    x = np.transpose(lhs, [input_batch_dimension, input_feature_dimension, *input_spatial_dimensions]).astype(ct)
    k = np.transpose(
        rhs, [kernel_output_feature_dimension, kernel_input_feature_dimension, *kernel_spatial_dimensions]
    ).astype(ct)
    if window_reversal is not None and any(window_reversal):
        k = np.flip(k, axis=tuple(2 + i for i, r in enumerate(window_reversal) if r))
    from hlokit.interpreter.data_movement import pad

    zero = np.zeros((), ct)
    low = [0, 0] + [p[0] for p in padding]
    high = [0, 0] + [p[1] for p in padding]
    x = pad(x, zero, low, high, [0, 0] + [d - 1 for d in lhs_dilation])
    k = pad(k, zero, [0] * (ns + 2), [0] * (ns + 2), [0, 0] + [d - 1 for d in rhs_dilation])
    n, c = x.shape[:2]
    o, cg = k.shape[:2]
    ksp = k.shape[2:]
    g, bg = int(feature_group_count), int(batch_group_count)
    win = _windows(x, [n, c, *ksp], [1, 1, *window_strides], [1] * (ns + 2))  # (1, 1, S..., n, c, K...)
    out_sp = win.shape[2 : 2 + ns]
    s = int(np.prod(out_sp, dtype=np.int64))
    kk = int(np.prod(ksp, dtype=np.int64))
    win = win.reshape((s, n, c, kk))
    nb, og = n // bg, o // (g * bg)
    # windows -> (bg, g, nb * s, cg * kk); kernel -> (bg, g, cg * kk, og)
    w = win.reshape(s, bg, nb, g, cg, kk).transpose(1, 3, 2, 0, 4, 5).reshape(bg, g, nb * s, cg * kk)
    kern = k.reshape(bg, g, og, cg, kk).transpose(0, 1, 3, 4, 2).reshape(bg, g, cg * kk, og)
    with np.errstate(all="ignore"):
        res = np.matmul(w, kern)  # (bg, g, nb * s, og)
    res = res.reshape(bg, g, nb, *out_sp, og)
    # output feature index = (b * g + gi) * og + oi, batch = nb
    res = np.moveaxis(res, -1, 2)  # (bg, g, og, nb, S...)
    res = res.reshape(bg * g * og, nb, *out_sp).swapaxes(0, 1)  # (nb, o, S...)
    destination = [output_batch_dimension, output_feature_dimension, *output_spatial_dimensions]
    res = np.moveaxis(res, list(range(ns + 2)), destination)
    return np.array(res.astype(result_dtype), order="C")


@register("stablehlo.convolution")
def _convolution(op, operands, interp):
    from jaxlib.mlir.dialects import stablehlo as _shlo

    from hlokit.interpreter.registry import bool_array, int_attr

    dn = _shlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    reversal = bool_array(op, "window_reversal") if "window_reversal" in op.attributes else None
    return [
        convolution(
            operands[0],
            operands[1],
            _opt_i64(op, "window_strides"),
            _padding_attr(op),
            _opt_i64(op, "lhs_dilation"),
            _opt_i64(op, "rhs_dilation"),
            reversal,
            dn.input_batch_dimension,
            dn.input_feature_dimension,
            list(dn.input_spatial_dimensions),
            dn.kernel_input_feature_dimension,
            dn.kernel_output_feature_dimension,
            list(dn.kernel_spatial_dimensions),
            dn.output_batch_dimension,
            dn.output_feature_dimension,
            list(dn.output_spatial_dimensions),
            int_attr(op, "feature_group_count", 1),
            int_attr(op, "batch_group_count", 1),
            dtype_of(op.results[0].type),
        )
    ]


@register("stablehlo.dynamic_conv")
def _dynamic_conv(op, operands, interp):
    """Spec ``dynamic_conv``: ``convolution`` with its ``padding`` read from the third operand."""
    from jaxlib.mlir.dialects import stablehlo as _shlo

    from hlokit.interpreter.registry import bool_array, int_attr

    dn = _shlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    flat = [int(v) for v in np.asarray(operands[2]).reshape(-1)]
    padding = [flat[i : i + 2] for i in range(0, len(flat), 2)]
    reversal = bool_array(op, "window_reversal") if "window_reversal" in op.attributes else None
    return [
        convolution(
            operands[0], operands[1], _opt_i64(op, "window_strides"), padding, _opt_i64(op, "lhs_dilation"),
            _opt_i64(op, "rhs_dilation"), reversal, dn.input_batch_dimension, dn.input_feature_dimension,
            list(dn.input_spatial_dimensions), dn.kernel_input_feature_dimension,
            dn.kernel_output_feature_dimension, list(dn.kernel_spatial_dimensions), dn.output_batch_dimension,
            dn.output_feature_dimension, list(dn.output_spatial_dimensions),
            int_attr(op, "feature_group_count", 1), int_attr(op, "batch_group_count", 1),
            dtype_of(op.results[0].type),
        )
    ]  # fmt: skip


# ----------------------------------------------------------------------------------------------------------
# fft, triangular_solve (numpy's FFT and LAPACK solve in double precision, rounded to the result type)
# ----------------------------------------------------------------------------------------------------------


def fft(operand: np.ndarray, fft_type: str, fft_length: Sequence[int], result_dtype: np.dtype) -> np.ndarray:
    """Spec ``fft`` over the last ``L = size(fft_length)`` dimensions (1 <= L <= 3):
    ``FFT`` (complex forward), ``IFFT`` (complex inverse, scaled by 1/N), ``RFFT`` (real forward,
    keeping the ``n/2 + 1`` non-redundant outputs of the last dimension) and ``IRFFT`` (its inverse,
    producing ``fft_length`` real outputs). Computed in complex128/float64, rounded to ``result_dtype``."""
    axes = tuple(range(operand.ndim - len(fft_length), operand.ndim))
    s = [int(n) for n in fft_length]
    if fft_type == "FFT":
        out = np.fft.fftn(operand.astype(np.complex128), s=s, axes=axes)
    elif fft_type == "IFFT":
        out = np.fft.ifftn(operand.astype(np.complex128), s=s, axes=axes)
    elif fft_type == "RFFT":
        out = np.fft.rfftn(operand.astype(np.float64), s=s, axes=axes)
    elif fft_type == "IRFFT":
        out = np.fft.irfftn(operand.astype(np.complex128), s=s, axes=axes)
    else:
        raise ValueError(f"unknown fft_type {fft_type}")
    return np.array(out.astype(result_dtype), order="C")


def triangular_solve(
    a: np.ndarray, b: np.ndarray, left_side: bool, lower: bool, unit_diagonal: bool, transpose_a: str
) -> np.ndarray:
    """Spec ``triangular_solve``: batched solutions ``x`` of ``op(a) x = b`` (``left_side``) or
    ``x op(a) = b``, reading only ``a``'s lower (``lower``) or upper triangle, with ones on the diagonal
    when ``unit_diagonal``; ``op`` is the identity, ``TRANSPOSE`` or ``ADJOINT``. ``a``: (..., M, M);
    ``b``: (..., M, N) or (..., N, M). Solved in double precision, rounded to ``b``'s dtype.

    Raises :class:`~hlokit.interpreter.evaluator.InterpreterError` when the triangle is singular (a zero
    diagonal element; the spec leaves that undefined)."""
    wide = np.complex128 if a.dtype.kind == "c" or b.dtype.kind == "c" else np.float64
    t = np.tril(a.astype(wide)) if lower else np.triu(a.astype(wide))
    if unit_diagonal:
        idx = np.arange(t.shape[-1])
        t[..., idx, idx] = 1
    if transpose_a == "TRANSPOSE":
        t = np.swapaxes(t, -1, -2)
    elif transpose_a == "ADJOINT":
        t = np.conj(np.swapaxes(t, -1, -2))
    rhs = b.astype(wide)
    from hlokit.interpreter.evaluator import InterpreterError

    if np.any(np.diagonal(t, axis1=-2, axis2=-1) == 0):
        raise InterpreterError("triangular_solve: a has a zero on its diagonal (the system is singular)")
    with np.errstate(all="ignore"):
        if left_side:
            x = np.linalg.solve(t, rhs) if rhs.shape[-1] else rhs
        elif rhs.shape[-2]:  # x t = b  <=>  t^T x^T = b^T
            x = np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2), np.swapaxes(rhs, -1, -2)), -1, -2)
        else:
            x = rhs
    return np.array(x.astype(b.dtype), order="C")


@register("stablehlo.fft")
def _fft(op, operands, interp):
    from hlokit.interpreter.registry import enum_attr, i64_array

    return [fft(operands[0], enum_attr(op, "fft_type"), i64_array(op, "fft_length"), dtype_of(op.results[0].type))]


@register("stablehlo.triangular_solve")
def _triangular_solve(op, operands, interp):
    from hlokit.interpreter.registry import enum_attr

    flag = lambda name: bool(ir.BoolAttr(op.attributes[name]).value)  # noqa: E731
    return [
        triangular_solve(
            operands[0], operands[1], flag("left_side"), flag("lower"), flag("unit_diagonal"),
            enum_attr(op, "transpose_a"),
        )
    ]  # fmt: skip
