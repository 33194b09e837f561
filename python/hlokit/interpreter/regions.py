"""Region bodies as Python functions on whole arrays, shared by every op family that takes a region.

A region of ``reduce``, ``reduce_window``, ``select_and_scatter``, ``scatter``, ``sort`` (and ``map``)
is written for 0-d tensors (StableHLO spec https://openxla.org/stablehlo/spec, section of each op).
The interpreter runs it on whole arrays instead, following the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md) only in spirit: the spec leaves the
order of the body's applications implementation-defined, so the families may batch them.

* :func:`region_callable`: the region as ``body(*arrays) -> list of arrays``; directly through
  ``interp.eval_region`` when :func:`is_elementwise_region` (a body of elementwise ops written for 0-d
  operands then runs unchanged on arrays of any shape), one call per element otherwise
  (:func:`vectorize_body`, correct but slow, only for bodies with shape-dependent ops);
* :func:`known_reduction`: the op name of a body that is a single commutative op of
  :data:`REDUCTION_UFUNCS` on its two arguments, so a family can use one numpy ``ufunc.reduce``;
* :func:`returns_update`: a scatter-style body that returns its second half of arguments unchanged;
* :func:`call_body`: call a body and bring its results to the expected shapes and dtypes;
* :func:`block_arg_dtypes`: the element types of a region's block arguments.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import opsets
from hlokit.interpreter.values import dtype_of

__all__ = [
    "Body",
    "ELEMENTWISE_REGION_OPS",
    "REDUCTION_UFUNCS",
    "is_elementwise_region",
    "known_reduction",
    "returns_update",
    "vectorize_body",
    "region_callable",
    "call_body",
    "block_arg_dtypes",
]

#: A region as a function: takes the block arguments' values, returns the terminator's operand values.
Body = Callable[..., Sequence[np.ndarray]]

#: Ops a region may contain and still run on whole arrays: the spec's elementwise ops
#: (:data:`hlokit.opsets.ELEMENTWISE`), plus ``constant`` (a 0-d constant broadcasts), the identity
#: ``optimization_barrier`` and the terminators.
ELEMENTWISE_REGION_OPS: frozenset[str] = opsets.ELEMENTWISE | frozenset(
    {"stablehlo.constant", "stablehlo.optimization_barrier", "stablehlo.return", "func.return"}
)

#: Single-op bodies and the numpy reduction that computes what the body computes, with the dtype kinds
#: (``numpy.dtype.kind``) for which a family may use it: integers and booleans for all of them; floats
#: and complex for add/multiply only, which numpy reduces in the operand's own precision.
REDUCTION_UFUNCS: dict[str, tuple[np.ufunc, str]] = {
    "stablehlo.add": (np.add, "biufc"),
    "stablehlo.multiply": (np.multiply, "biufc"),
    "stablehlo.maximum": (np.maximum, "biu"),
    "stablehlo.minimum": (np.minimum, "biu"),
    "stablehlo.and": (np.bitwise_and, "biu"),
    "stablehlo.or": (np.bitwise_or, "biu"),
    "stablehlo.xor": (np.bitwise_xor, "biu"),
}

_TERMINATORS = ("stablehlo.return", "func.return")


def is_elementwise_region(region: ir.Region) -> bool:
    """True when ``region`` has one block made only of :data:`ELEMENTWISE_REGION_OPS`
    (``bitcast_convert`` counts when it keeps the rank, i.e. the bit width)."""
    if len(region.blocks) != 1:
        return False
    for op in region.blocks[0].operations:
        name = op.operation.name
        if name in ELEMENTWISE_REGION_OPS:
            continue
        if name == "stablehlo.bitcast_convert":
            src = ir.ShapedType(op.operands[0].type)
            dst = ir.ShapedType(op.results[0].type)
            if src.rank == dst.rank:
                continue
        return False
    return True


def known_reduction(region: ir.Region) -> str | None:
    """The op name when ``region`` is ``%r = OP %arg0, %arg1; return %r`` (either operand order) for an
    op of :data:`REDUCTION_UFUNCS`; ``None`` otherwise."""
    if len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    ops = list(block.operations)
    if len(ops) != 2 or len(block.arguments) != 2:
        return None
    op, ret = ops
    name = op.operation.name
    if name not in REDUCTION_UFUNCS or ret.operation.name not in _TERMINATORS:
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


def returns_update(region: ir.Region) -> bool:
    """True when the region is ``return %arg{N}, ..., %arg{2N-1}`` for ``2N`` block arguments: a
    ``scatter`` / ``select_and_scatter`` body whose updates replace the values."""
    block = region.blocks[0]
    ops = list(block.operations)
    if len(ops) != 1:
        return False
    args = list(block.arguments)
    n = len(args) // 2
    return len(ops[0].operands) == n and all(ops[0].operands[i] == args[n + i] for i in range(n))


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


def region_callable(interp, region: ir.Region, elementwise: bool | None = None) -> Body:
    """``region`` as a function of its block arguments evaluated on whole arrays: through
    ``interp.region_function`` directly when the region is elementwise (:func:`is_elementwise_region`),
    one call per element otherwise (:func:`vectorize_body`). ``elementwise``: that test's result when
    the caller already has it (an adapter's ``prepare`` computes it once per op)."""
    run = interp.region_function(region)

    def body(*args: np.ndarray) -> list[np.ndarray]:
        return list(run(*args))

    if elementwise is None:
        elementwise = is_elementwise_region(region)
    if elementwise:
        return body
    num_results = len(list(region.blocks[0].operations)[-1].operands)
    return vectorize_body(body, num_results)


def call_body(body: Body, args: Sequence[np.ndarray], shapes: Sequence[tuple[int, ...]], dtypes) -> list[np.ndarray]:
    """Call ``body`` and bring its results to the expected ``shapes`` and ``dtypes`` (a body may return
    a 0-d constant that does not depend on its arguments)."""
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


def block_arg_dtypes(region: ir.Region) -> list[np.dtype]:
    """The numpy dtypes of the arguments of ``region``'s first block."""
    return [dtype_of(a.type) for a in region.blocks[0].arguments]
