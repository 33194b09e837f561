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
* :func:`block_arg_dtypes`: the element types of a region's block arguments;
* :func:`comparator_keys`: a ``sort`` comparator that is a lexicographic order on elementwise keys of
  its operands (what ``jax.lax.sort`` emits), as the list of those keys.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes, opsets
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
    "SortKey",
    "comparator_keys",
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
    op of :data:`REDUCTION_UFUNCS` on tensors of integer, float or complex elements; ``None`` otherwise
    (a quantized body rounds at every step: StableHLO spec, ``add`` on quantized tensors)."""
    blocks = region.blocks
    if len(blocks) != 1:
        return None
    block = blocks[0]
    ops = block.operations
    args = block.arguments
    if len(ops) != 2 or len(args) != 2:
        return None
    op, ret = ops[0].operation, ops[1].operation
    name = op.name
    if name not in REDUCTION_UFUNCS or ret.name not in _TERMINATORS:
        return None
    a0, a1 = args
    t = a0.type
    if not isinstance(t, ir.ShapedType):
        return None
    if not isinstance((t if t.__class__ is ir.RankedTensorType else ir.ShapedType(t)).element_type,
                      _PLAIN_ELEMENT_TYPES):  # (the bindings hand out most types downcast already)
        return None
    operands = op.operands
    if len(operands) != 2:
        return None
    o0, o1 = operands
    if not ((o0 == a0 and o1 == a1) or (o0 == a1 and o1 == a0)):
        return None
    returned = ret.operands
    if len(returned) != 1 or returned[0] != op.results[0]:
        return None
    return name


#: Element types whose reduction a single numpy ufunc may compute (quantized types are plain ``ir.Type``).
_PLAIN_ELEMENT_TYPES = (ir.IntegerType, ir.FloatType, ir.ComplexType)


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


# ------------------------------------------------------------------------------------------------
# sort comparators as keys


class SortKey(NamedTuple):
    """One key of a lexicographic comparator: ``value`` is the SSA value of the region computing the
    key of the left-hand element (from its block argument ``2 * operand`` alone); elements order by
    ``compare LT`` of ``comparison_type`` on the keys, reversed when ``descending``."""

    value: ir.Value
    operand: int
    comparison_type: str
    descending: bool


def _op_of(v: ir.Value):
    """The operation defining ``v`` (None for a block argument)."""
    owner = v.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _compare(v: ir.Value):
    """``(direction, type, lhs, rhs)`` when ``v`` is the result of a ``stablehlo.compare``."""
    op = _op_of(v)
    if op is None or op.name != "stablehlo.compare":
        return None
    dt = dtype_of(op.operands[0].type)
    default = "FLOAT" if dt.kind in "fc" or (dt.kind == "V" and "float" in dt.name) else (
        "UNSIGNED" if dt.kind in "ub" or dt.name.startswith("uint") else "SIGNED"
    )
    return (
        attributes.enum_value(op, "comparison_direction"),
        attributes.enum_value(op, "compare_type", default),
        op.operands[0],
        op.operands[1],
    )


def _binary(v: ir.Value, name: str):
    op = _op_of(v)
    if op is None or op.name != name or len(op.operands) != 2:
        return None
    return op.operands[0], op.operands[1]


def _same_function(x: ir.Value, y: ir.Value, ax: ir.Value, ay: ir.Value, args: list) -> bool:
    """Whether ``x`` computes from ``ax`` what ``y`` computes from ``ay`` (the same ops and attributes,
    constants and result indices), using no other block argument."""
    if x == ax or y == ay or x in args or y in args:
        return x == ax and y == ay
    ox, oy = _op_of(x), _op_of(y)
    if ox is None or oy is None or ox.name != oy.name or len(ox.regions) or len(oy.regions):
        return False
    if ir.OpResult(x).result_number != ir.OpResult(y).result_number or len(ox.operands) != len(oy.operands):
        return False
    if {k: str(ox.attributes[k]) for k in ox.attributes} != {k: str(oy.attributes[k]) for k in oy.attributes}:
        return False
    if [str(r.type) for r in ox.results] != [str(r.type) for r in oy.results]:
        return False
    return all(_same_function(p, q, ax, ay, args) for p, q in zip(ox.operands, oy.operands))


def comparator_keys(region: ir.Region) -> list[SortKey] | None:
    """The keys of a ``sort`` comparator that orders lexicographically on elementwise keys, else None.

    Recognised form (``jax.lax.sort``'s comparator over ``num_keys`` keys): the result is
    ``LT(k0(l), k0(r))``, or ``OR(LT(k0(l), k0(r)), AND(EQ(k0(l), k0(r)), REST))`` where ``REST`` is the
    same form over the next keys; ``k(l)`` is an elementwise function of one operand's left-hand block
    argument and ``k(r)`` the same function of its right-hand one; ``LT`` and ``EQ`` of a key have the
    same comparison type; ``GT`` (or ``LT`` with the sides swapped) orders that key descending. Such a
    comparator is the lexicographic order of the keys, so a ``sort`` may compute the keys once on
    whole arrays (the region's own ops) and sort by them.
    """
    if not is_elementwise_region(region):
        return None
    block = region.blocks[0]
    ops = list(block.operations)
    if not ops or ops[-1].operation.name not in _TERMINATORS or len(ops[-1].operands) != 1:
        return None
    args = list(block.arguments)
    if len(args) % 2:
        return None

    def key_of(cmp) -> SortKey | None:
        direction, ctype, x, y = cmp
        descending = direction == "GT"  # GT(k(l), k(r)): l before r when its key is larger
        for i in range(len(args) // 2):
            lhs, rhs = args[2 * i], args[2 * i + 1]
            if _same_function(x, y, lhs, rhs, args):
                return SortKey(x, i, ctype, descending)
            if _same_function(x, y, rhs, lhs, args):  # the sides swapped: the order reverses
                return SortKey(y, i, ctype, not descending)
        return None

    keys: list[SortKey] = []
    v = ops[-1].operands[0]
    for _ in range(64):
        cmp = _compare(v)
        if cmp is not None:
            if cmp[0] not in ("LT", "GT"):
                return None
            key = key_of(cmp)
            return keys + [key] if key is not None else None
        either = _binary(v, "stablehlo.or")
        if either is None:
            return None
        for lt_v, rest_v in (either, either[::-1]):
            lt = _compare(lt_v)
            both = _binary(rest_v, "stablehlo.and")
            if lt is None or both is None or lt[0] not in ("LT", "GT"):
                continue
            for eq_v, nxt in (both, both[::-1]):
                eq = _compare(eq_v)
                if eq is None or eq[0] != "EQ" or eq[1] != lt[1] or {eq[2], eq[3]} != {lt[2], lt[3]}:
                    continue
                key = key_of(lt)
                if key is None:
                    return None
                keys.append(key)
                v = nxt
                break
            else:
                continue
            break
        else:
            return None
    return None
