"""Value-level reductions: replace an op's result by an earlier value of the same type, and fold a broadcast of
a constant into one constant.

Sites name ops by their index in :func:`~hlokit.triage.reductions_base.all_ops` (pre-order), as the op-level
reductions of :mod:`hlokit.triage.reductions_ops` do; a set of sites is applied in reverse walk order and the
ops left dead are erased last (their producers stay for ``erase-unused-ops``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.interpreter.values import dense_attribute, to_attr

from hlokit.triage.reductions_base import (
    ReductionNotApplicable,
    all_ops,
    element_dtype,
    in_context,
    mark,
    ops_at,
    static_tensor,
    sweep_marked,
)
from hlokit.triage.reductions_ops import (REDUCER_OPS, has_uses, in_reducer_body, replace_result, replaceable,
                                          sorted_sites)

__all__ = ["ReplaceWithEarlier", "FoldBroadcastConstant"]

#: How many earlier values (the nearest first) each result is offered.
_EARLIER_PER_RESULT = 2


class ReplaceWithEarlier:
    """``replace-with-earlier``: replace every use of an op's result by a value of the same type defined
    earlier in the op's block (an argument of the block or a result of an op before it: it dominates every
    use of the result, MLIR's dominance rule for SSACFG regions), then erase the op if it is dead. Unlike
    ``replace-with-operand`` this skips whole chains (``broadcast(broadcast(reduce(x)))`` -> ``x``). Each
    result is offered the :data:`_EARLIER_PER_RESULT` nearest such values that are not its op's operands.
    Site: ``(op index, result index, producer op index, producer result index)``, the producer index ``-1``
    for an argument of the block (its index last). Two sites of one result: the nearer value wins."""

    name = "replace-with-earlier"

    @in_context
    def sites(self, module: ir.Module) -> list:
        ops = all_ops(module)
        index = {op: i for i, op in enumerate(ops)}
        out = []
        for holder in [module.operation, *ops]:
            if holder.name in REDUCER_OPS or in_reducer_body(holder):
                continue  # nothing in a reducer's body is replaceable
            for region in holder.regions:
                for block in region.blocks:
                    earlier = [((-1, a), arg) for a, arg in enumerate(block.arguments)]
                    for op in block.operations:
                        op = op.operation
                        i = index[op]
                        if replaceable(op):
                            own = list(op.operands)
                            for r, res in enumerate(op.results):
                                if not has_uses(res):
                                    continue
                                picked = 0
                                for key, v in reversed(earlier):
                                    if v.type == res.type and not any(v == o for o in own):
                                        out.append((i, r, *key))
                                        picked += 1
                                        if picked == _EARLIER_PER_RESULT:
                                            break
                        earlier.extend(((i, k), res) for k, res in enumerate(op.results))
        return sorted(out, key=lambda s: s[:2])  # per result: the nearest value first

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        sites = sorted_sites(sites, 4)
        ops = ops_at(module, {s[0] for s in sites} | {s[2] for s in sites if s[2] >= 0})
        done = set()
        changed = False
        for i, r, j, k in sorted(sites, key=lambda s: (-s[0], s[1], -s[2], s[3])):
            if (i, r) in done:
                continue
            op = ops[i]
            if r >= len(op.results):
                raise ReductionNotApplicable(f"no result {r} of op #{i}")
            block = _parent_block(op)
            if j < 0:
                if block is None or k >= len(block.arguments):
                    raise ReductionNotApplicable(f"no block argument {k} before op #{i}")
                v = block.arguments[k]
            else:
                producer = ops[j]
                if j >= i or k >= len(producer.results) or producer.parent != op.parent:
                    raise ReductionNotApplicable(f"op #{j} does not dominate op #{i}")
                v = producer.results[k]
            changed |= replace_result(op, r, v, f"the value for op #{i} result {r} is not of its type")
            done.add((i, r))
        if not changed:
            raise ReductionNotApplicable("nothing to replace")
        sweep_marked(module)


def _parent_block(op: ir.Operation) -> ir.Block | None:
    """The block holding ``op`` (found through its parent's regions), None at module level."""
    parent = op.parent
    if parent is None or parent.name == "builtin.module":
        return None
    for region in parent.regions:
        for block in region.blocks:
            for inner in block.operations:
                if inner.operation == op:
                    return block
    return None


_BROADCASTS = frozenset({"stablehlo.broadcast_in_dim", "stablehlo.broadcast"})


#: A non-splat constant is folded into a broadcast's result only up to this many elements (the text grows).
_MAX_FOLDED_ELEMENTS = 4096


def _folded(op: ir.Operation) -> ir.DenseElementsAttr | None:
    """The value of a broadcast ``op`` (``broadcast_in_dim`` / ``broadcast``) of a ``stablehlo.constant`` as
    one attribute of the broadcast's type (StableHLO spec, "broadcast_in_dim": result element ``i`` is the
    operand's element at ``i`` restricted to ``broadcast_dimensions``, size-1 dimensions repeated), else None
    (not such a broadcast, a non-splat result over :data:`_MAX_FOLDED_ELEMENTS`, an element type the
    interpreter's values cannot write)."""
    t = static_tensor(op.results[0].type) if op.name in _BROADCASTS and len(op.results) == 1 else None
    if t is None or len(op.operands) != 1:
        return None
    owner = op.operands[0].owner
    if isinstance(owner, ir.Block) or owner.operation.name != "stablehlo.constant":
        return None
    try:
        attr = ir.DenseElementsAttr(owner.operation.attributes["value"])
        if attr.is_splat:
            return ir.DenseElementsAttr.get_splat(t, attr.get_splat_value())
        if int(np.prod(t.shape)) > _MAX_FOLDED_ELEMENTS or element_dtype(t) is None:
            return None
        arr = np.asarray(dense_attribute(owner.operation, "value"))
        if op.name == "stablehlo.broadcast_in_dim":
            dims = [int(d) for d in op.attributes["broadcast_dimensions"]]
            shape = [1] * len(t.shape)
            for d, n in zip(dims, arr.shape):
                shape[d] = n
            arr = arr.reshape(shape)
        return to_attr(np.ascontiguousarray(np.broadcast_to(arr, tuple(t.shape))), t)
    except (ValueError, TypeError, KeyError, RuntimeError):
        return None


class FoldBroadcastConstant:
    """``fold-broadcast-constant``: a ``broadcast_in_dim`` / ``broadcast`` of a ``stablehlo.constant`` becomes
    one constant of the broadcast's type (:func:`_folded`; a splat stays a splat, so ``broadcast_in_dim`` of a
    scalar constant becomes a splat constant). Site: the broadcast's walk index."""

    name = "fold-broadcast-constant"

    @in_context
    def sites(self, module: ir.Module) -> list:
        return [i for i, op in enumerate(all_ops(module)) if _folded(op) is not None]

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        sites = sorted_sites(sites, 1)
        ops = ops_at(module, [s[0] for s in sites])
        changed = False
        for (i,) in reversed(sites):
            op = ops[i]
            value = _folded(op)
            if value is None:
                raise ReductionNotApplicable(f"op #{i} is no broadcast of a constant to fold")
            t = op.results[0].type
            new = ir.Operation.create("stablehlo.constant", results=[t], attributes={"value": value},
                                      loc=op.location, ip=ir.InsertionPoint(op))
            op.results[0].replace_all_uses_with(new.results[0])
            mark(op)
            changed = True
        if not changed:
            raise ReductionNotApplicable("nothing to fold")
        sweep_marked(module)
