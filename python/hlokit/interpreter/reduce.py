"""Reductions of the reference interpreter: ``reduce``, ``reduce_window``, ``select_and_scatter``.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), sections "reduce", "reduce_window",
"select_and_scatter". Region bodies are run on whole arrays through :mod:`hlokit.interpreter.regions`.

``reduce`` applies ``body`` along ``dimensions`` as a binary tree whose in-order leaves are the input
elements with the init values interspersed; the spec leaves the tree implementation-defined. Ours never
calls the body once per element:

* a body that is one commutative op on its arguments (:func:`~hlokit.interpreter.regions.known_reduction`)
  whose numpy reduction computes exactly what the body computes
  (:data:`~hlokit.interpreter.regions.REDUCTION_UFUNCS`, on the numpy-native dtypes
  :data:`~hlokit.interpreter.values.NATIVE_DTYPES`) is one ``ufunc.reduce`` call;
* any other body is evaluated on whole array halves: a pairwise tree (``log2(K)`` calls of the body on
  arrays for K reduced elements), then one call combining the init values with the tree's root.

``reduce_window`` and ``select_and_scatter`` see every window of the padded operand as one strided view
(:func:`~hlokit.interpreter.data_movement.window_view`) and reduce it as ``reduce`` does.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.interpreter.arrays import pad, padding_pairs, scatter as scatter_op, window_view
from hlokit.interpreter.numerics import scalar_operator
from hlokit.interpreter.registry import OpImpl, prepared, register, with_kernel
from hlokit.interpreter.regions import (
    REDUCTION_UFUNCS,
    Body,
    block_arg_dtypes,
    call_body,
    is_elementwise_region,
    known_reduction,
    region_callable,
    returns_update,
)
from hlokit.interpreter.values import NATIVE_DTYPES, dtype_of

__all__ = ["reduce", "reduce_window", "select_and_scatter"]


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

    if known is not None and n == 1 and dtypes[0] in NATIVE_DTYPES and dtypes[0].kind in REDUCTION_UFUNCS[known][1]:
        ufunc = REDUCTION_UFUNCS[known][0]
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
        new = call_body(body, lhs + rhs, [(half,) + rest] * n, dtypes)
        if count % 2:
            new = [np.concatenate([a, v[2 * half :]], axis=0) for a, v in zip(new, vals)]
        vals = new
        count = half + count % 2
    root = [v.reshape(rest) for v in vals]
    results = call_body(body, init_b + root, [rest] * n, dtypes)
    return [np.array(r, order="C") for r in results]


def _dtype_or_none(t: ir.Type):
    """The numpy dtype of a ranked tensor type's elements; None for any other type, or for an element type the
    interpreter has no dtype for."""
    if not isinstance(t, ir.RankedTensorType):
        return None
    try:
        return dtype_of(t)
    except TypeError:
        return None


def _one_ufunc_kernel(known: str, dt: np.dtype, axes: tuple[int, ...]):
    """``kernel(x, init)``: what :func:`reduce` computes for one input whose body is the known reduction ``known``
    (``regions.known_reduction``) on the numpy-native dtype ``dt`` over ``axes``, as one ``ufunc.reduce`` (see
    the module doc). Every dimension reduced: the init value and the numpy scalar the reduction gives are
    combined by numpy's scalar arithmetic where it is exactly the ufunc's (numerics.scalar_operator), a NaN
    by the ufunc."""
    ufunc = REDUCTION_UFUNCS[known][0]
    scalar = scalar_operator(known.split(".")[-1], dt)
    asarray, ndarray = np.asarray, np.ndarray
    axis = axes[0] if len(axes) == 1 else axes

    def kernel(x, init):  # (floating-point warnings are off for the whole run: Interpreter.call)
        red = ufunc.reduce(x, axis=axis, dtype=dt)
        if scalar is not None and red.__class__ is not ndarray:
            out = scalar(init[()], red)
            if out == out:
                return asarray(out)
        return asarray(ufunc(init, red, dtype=dt))

    return kernel


def _prepare_reduce(op):
    operation = op.operation
    region = operation.regions[0]
    n = len(operation.operands) // 2
    dims = attributes.i64_array(operation, "dimensions")
    body_dtypes = block_arg_dtypes(region)[:n]
    known = known_reduction(region)
    dt = body_dtypes[0] if n == 1 else None
    # one numpy reduction computes the body exactly (see the module doc)
    native = known is not None and n == 1 and dt in NATIVE_DTYPES and dt.kind in REDUCTION_UFUNCS[known][1]
    axes = tuple(sorted({int(d) for d in dims}))
    kernel = _one_ufunc_kernel(known, dt, axes) if native else None

    if native and axes:
        x_type, init_type = (v.type for v in operation.operands)
        if _dtype_or_none(x_type) == dt and _dtype_or_none(init_type) == dt and x_type.has_static_shape \
                and 0 not in x_type.shape:
            # a static, non-empty operand whose element type is the body's (the verified types): the one-ufunc
            # form always runs, so it runs as a kernel step (see registry: no operand list, no op)
            return with_kernel(kernel, "_reduce_one_ufunc", isolated_regions=True)

    elementwise = is_elementwise_region(region)

    def general(op, operands, interp):
        return reduce(
            operands[:n], operands[n:], dims, region_callable(interp, region, elementwise), body_dtypes, known=known
        )

    if not native:  # (a known body reads only its arguments: the planner need not look into it)
        return OpImpl(general, isolated_regions=known is not None)

    def one_ufunc(op, operands, interp):  # the kernel, once the operands' run-time shapes allow it
        x, init = operands
        if x.dtype != dt or init.dtype != dt or x.size == 0 or not axes:
            return general(op, operands, interp)
        return [kernel(x, init)]

    return OpImpl(one_ufunc, isolated_regions=True)


@register("stablehlo.reduce")
@prepared(_prepare_reduce)
def _reduce(op, operands, interp):
    n = len(operands) // 2
    region = op.regions[0]
    dims = attributes.i64_array(op, "dimensions")
    body_dtypes = block_arg_dtypes(region)[:n]
    return reduce(
        operands[:n],
        operands[n:],
        dims,
        region_callable(interp, region),
        body_dtypes,
        known=known_reduction(region),
    )


# ----------------------------------------------------------------------------------------------------------
# reduce_window, select_and_scatter: windows as strided views of the padded operand
# ----------------------------------------------------------------------------------------------------------


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
        windows.append(window_view(padded, window_dimensions, window_strides, window_dilations))
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
    rank = operand.ndim
    ones = [1] * rank
    window_strides = list(window_strides) if window_strides is not None else ones
    padding = [list(p) for p in padding] if padding is not None else [[0, 0]] * rank
    low, high, zero = [p[0] for p in padding], [p[1] for p in padding], [0] * rank
    pv = pad(operand, np.zeros((), operand.dtype), low, high, zero)
    pvalid = pad(np.ones(operand.shape, np.bool_), np.array(False), low, high, zero)
    positions = np.arange(operand.size, dtype=np.int64).reshape(operand.shape)
    pindex = pad(positions, np.array(-1, np.int64), low, high, zero)
    win = [window_view(a, window_dimensions, window_strides, ones) for a in (pv, pvalid, pindex)]
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


@register("stablehlo.reduce_window")
def _reduce_window(op, operands, interp):
    n = len(operands) // 2
    region = op.regions[0]
    return reduce_window(
        operands[:n],
        operands[n:],
        attributes.i64_array(op, "window_dimensions"),
        attributes.i64_array(op, "window_strides", None),
        attributes.i64_array(op, "base_dilations", None),
        attributes.i64_array(op, "window_dilations", None),
        padding_pairs(attributes.i64_array(op, "padding", None)),
        region_callable(interp, region),
        block_arg_dtypes(region)[:n],
        known=known_reduction(region),
    )


@register("stablehlo.select_and_scatter")
def _select_and_scatter(op, operands, interp):
    select_region, scatter_region = op.regions[0], op.regions[1]
    known = "replace" if returns_update(scatter_region) else known_reduction(scatter_region)
    return [
        select_and_scatter(
            operands[0],
            operands[1],
            operands[2],
            attributes.i64_array(op, "window_dimensions"),
            attributes.i64_array(op, "window_strides", None),
            padding_pairs(attributes.i64_array(op, "padding", None)),
            region_callable(interp, select_region),
            region_callable(interp, scatter_region),
            known,
        )
    ]
