"""Reductions of the reference interpreter, and the helpers that run region bodies on whole arrays.

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
