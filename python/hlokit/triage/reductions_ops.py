"""Op-level reductions: erase dead ops, replace an op's result (by an operand, a splat constant or a new
argument of its function) and simplify constants.

Sites name ops by their index in :func:`~hlokit.triage.reductions_base.all_ops` (pre-order); applying a set
of sites resolves every index first, then rewrites the sites in reverse walk order, and erases the rewritten
ops left dead last (consumers before producers), so any subset of a module's sites is well defined. Their
producers left dead stay: ``erase-unused-ops`` removes them (as a chain), and a test such as "still contains
op X" can keep X once its consumers are gone.
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
    enclosing_function,
    erase_dead,
    function_type,
    in_context,
    is_removable,
    mark,
    ops_at,
    set_function_type,
    static_tensor,
    sweep_marked,
    symbol_references,
)

__all__ = ["EraseUnusedOps", "ReplaceWithOperand", "ReplaceWithConstant", "ReplaceWithArgument",
           "SimplifyConstants", "REDUCER_OPS", "in_reducer_body", "replaceable", "sorted_sites", "has_uses"]


def has_uses(value: ir.Value) -> bool:
    """Whether anything uses ``value``."""
    return bool(list(value.uses))


def replace_result(op: ir.Operation, r: int, value: ir.Value, mismatch: str) -> bool:
    """Replace every use of ``op``'s result ``r`` by ``value`` and mark ``op`` for :func:`sweep_marked`; True
    when the result had uses. Raises :class:`ReductionNotApplicable` (``mismatch``) when ``value`` is not of
    the result's type."""
    res = op.results[r]
    if value.type != res.type:
        raise ReductionNotApplicable(mismatch)
    if not has_uses(res):
        return False
    res.replace_all_uses_with(value)
    mark(op)
    return True


def sorted_sites(sites: Sequence, arity: int, last: type = int) -> list[tuple]:
    """``sites`` as tuples of ``arity`` ints (an int alone for arity 1; the last of type ``last``), checked,
    sorted, deduplicated; a malformed site raises :class:`ReductionNotApplicable`."""
    out = set()
    for s in sites:
        t = (s,) if arity == 1 and not isinstance(s, (tuple, list)) else s
        if not isinstance(t, (tuple, list)):
            raise ReductionNotApplicable(f"malformed site {s!r}")
        t = tuple(t)
        if len(t) != arity or not all(isinstance(x, int) for x in t[:-1]) or not isinstance(t[-1], last):
            raise ReductionNotApplicable(f"malformed site {s!r}")
        out.add(t)
    return sorted(out)


class EraseUnusedOps:
    """``erase-unused-ops``: erase ops whose results are unused, or used only by ops erased with them (dead
    chains), and that have no effect besides their results (:func:`is_removable`; terminators have no results
    and are never sites). Site: the op's walk index. An op of a chosen chain whose consumer is not chosen
    stays (the rest of the set is still applied)."""

    name = "erase-unused-ops"

    @in_context
    def sites(self, module: ir.Module) -> list:
        ops = all_ops(module)
        index = {op: i for i, op in enumerate(ops)}
        dead: set[int] = set()
        for i in range(len(ops) - 1, -1, -1):  # consumers come after producers in a block (and nested ops)
            op = ops[i]
            if not is_removable(op):
                continue
            ok = True
            for r in op.results:
                for use in r.uses:
                    owner = use.owner
                    owner = owner.operation if hasattr(owner, "operation") else owner
                    j = index.get(owner)
                    if j is None or j not in dead or _inside(owner, op):
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                dead.add(i)
        return sorted(dead)

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        chosen = ops_at(module, [s[0] for s in sorted_sites(sites, 1)])
        if not erase_dead([chosen[i] for i in sorted(chosen)]):
            raise ReductionNotApplicable("no chosen op is unused")


def _inside(op: ir.Operation, ancestor: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parent.parent
    return False


#: Ops whose region is a reducer / comparator (StableHLO spec: reduce, reduce_window, scatter,
#: select_and_scatter, sort, all_reduce, reduce_scatter): rewriting inside it mostly makes an order-dependent or
#: meaningless body (a test comparing engines then sees a different problem), so the replace-* reductions leave
#: those bodies alone and only replace whole ops.
REDUCER_OPS = frozenset(f"{d}.{n}" for d in ("stablehlo", "mhlo") for n in (
    "reduce", "reduce_window", "scatter", "select_and_scatter", "sort", "all_reduce", "reduce_scatter"))


def in_reducer_body(op: ir.Operation) -> bool:
    """Whether ``op`` is nested in the body of an op of :data:`REDUCER_OPS` (in its function)."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in REDUCER_OPS:
            return True
        parent = parent.parent
    return False


def replaceable(op: ir.Operation) -> bool:
    """Ops whose results the replace-* reductions may replace (not functions, not module-level ops, not ops
    in the body of a reducer or comparator)."""
    return op.name not in ("func.func", "stablehlo.constant") and op.parent is not None \
        and op.parent.name != "builtin.module" and not in_reducer_body(op)


class ReplaceWithOperand:
    """``replace-with-operand``: replace every use of an op's result by one of the op's operands of the same
    type (the operand dominates every use of the result), then erase the op if it is dead (its producers
    left dead stay for ``erase-unused-ops``). Site: ``(op index, result index, operand index)``. Two sites
    of one result: the first in order wins."""

    name = "replace-with-operand"

    @in_context
    def sites(self, module: ir.Module) -> list:
        out = []
        for i, op in enumerate(all_ops(module)):
            if not replaceable(op):
                continue
            operands = list(op.operands)
            for r, res in enumerate(op.results):
                if not has_uses(res):
                    continue
                for k, v in enumerate(operands):
                    if v.type == res.type and v != res:
                        out.append((i, r, k))
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        sites = sorted_sites(sites, 3)
        ops = ops_at(module, {s[0] for s in sites})
        done = set()
        changed = False
        for i, r, k in sorted(sites, key=lambda s: (-s[0], s[1], s[2])):
            op = ops[i]
            if (i, r) in done:
                continue
            if r >= len(op.results) or k >= len(op.operands):
                raise ReductionNotApplicable(f"no result {r} / operand {k} of op #{i}")
            changed |= replace_result(op, r, op.operands[k], f"operand {k} of op #{i} is not of its result's type")
            done.add((i, r))
        if not changed:
            raise ReductionNotApplicable("nothing to replace")
        sweep_marked(module)


def splat_attr(t: ir.RankedTensorType, value: float) -> ir.DenseElementsAttr | None:
    """A splat ``DenseElementsAttr`` of type ``t`` holding ``value`` (0 or 1: i1 false / true, 1 + 0j for
    complex) in ``t``'s element type (every element type of hlokit.dtypes); None where ``t`` cannot hold a
    constant here (quantized, not static)."""
    dt = element_dtype(t)
    if dt is None:
        return None
    one = np.full((), value).astype(dt)
    try:
        attr = to_attr(one, ir.RankedTensorType.get([], t.element_type))
        element = attr.get_splat_value()
        if isinstance(element, ir.ArrayAttr):  # complex: no element attribute to splat; the whole array
            return to_attr(np.full(t.shape, one), t)
        return ir.DenseElementsAttr.get_splat(t, element)
    except (TypeError, ValueError, RuntimeError):
        return None


def _constant_before(op: ir.Operation, attr: ir.Attribute, t: ir.Type) -> ir.Value:
    new = ir.Operation.create("stablehlo.constant", results=[t], attributes={"value": attr},
                              loc=op.location, ip=ir.InsertionPoint(op))
    return new.results[0]


class ReplaceWithConstant:
    """``replace-with-zero`` / ``replace-with-one``: replace every use of an op's result (a static tensor) by
    a splat ``stablehlo.constant`` of its type (StableHLO spec, "constant") inserted before the op, then erase
    the op if it is dead. Site: ``(op index, result index)``. Constants themselves are no sites
    (``simplify-constants`` handles them)."""

    def __init__(self, value: int):
        self.value = value
        self.name = {0: "replace-with-zero", 1: "replace-with-one"}[value]

    @in_context
    def sites(self, module: ir.Module) -> list:
        out = []
        for i, op in enumerate(all_ops(module)):
            if not replaceable(op):
                continue
            for r, res in enumerate(op.results):
                t = static_tensor(res.type)
                if t is not None and has_uses(res) and element_dtype(t) is not None:
                    out.append((i, r))
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        sites = sorted_sites(sites, 2)
        ops = ops_at(module, {s[0] for s in sites})
        changed = False
        for i, r in reversed(sites):
            op = ops[i]
            if r >= len(op.results):
                raise ReductionNotApplicable(f"no result {r} of op #{i}")
            res = op.results[r]
            t = static_tensor(res.type)
            attr = splat_attr(t, self.value) if t is not None else None
            if attr is None:
                raise ReductionNotApplicable(f"result {r} of op #{i} cannot be a constant")
            if has_uses(res):
                res.replace_all_uses_with(_constant_before(op, attr, res.type))
                mark(op)
                changed = True
        if not changed:
            raise ReductionNotApplicable("nothing to replace")
        sweep_marked(module)


def _uncalled(module: ir.Module) -> set[str]:
    """Names of the functions nothing refers to (``@main``, functions of a library)."""
    refs = symbol_references(module)
    out = set()
    for op in module.body.operations:
        if op.operation.name == "func.func":
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if name not in refs:
                out.add(name)
    return out


def _captures_reach(op: ir.Operation, func: ir.Operation) -> bool:
    """Whether a value of ``func``'s entry block may be used at ``op``: every op between them is a StableHLO /
    CHLO op (whose regions may use values from above), not an op isolated from above such as Shardy's
    ``sdy.manual_computation``."""
    parent = op.parent
    while parent is not None and parent != func:
        if not parent.name.startswith(("stablehlo.", "chlo.", "mhlo.")):
            return False
        parent = parent.parent
    return True


class ReplaceWithArgument:
    """``replace-with-argument``: replace every use of an op's result by a new last argument of the function
    around it (its entry block gets the argument, ``function_type`` and ``arg_attrs`` follow), then erase the
    op if it is dead. Only in functions nothing calls (``@main``): a called function would need a value at
    each call. Site: ``(op index, result index)``; a set of sites adds arguments in reverse walk order."""

    name = "replace-with-argument"

    @in_context
    def sites(self, module: ir.Module) -> list:
        free = _uncalled(module)
        out = []
        for i, op in enumerate(all_ops(module)):
            if not replaceable(op):
                continue
            func = enclosing_function(op)
            if func is None or ir.StringAttr(func.attributes["sym_name"]).value not in free:
                continue
            if len(func.regions[0].blocks) != 1 or not _captures_reach(op, func):
                continue
            for r, res in enumerate(op.results):
                if has_uses(res) and not str(res.type).startswith("!stablehlo.token"):
                    out.append((i, r))
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        sites = sorted_sites(sites, 2)
        ops = ops_at(module, {s[0] for s in sites})
        free = _uncalled(module)
        changed = False
        for i, r in reversed(sites):
            op = ops[i]
            func = enclosing_function(op)
            if func is None or ir.StringAttr(func.attributes["sym_name"]).value not in free \
                    or r >= len(op.results):
                raise ReductionNotApplicable(f"result {r} of op #{i} is not in an uncalled function")
            res = op.results[r]
            if not has_uses(res):
                continue
            block = func.regions[0].blocks[0]
            ft = function_type(func)
            arg = block.add_argument(res.type, op.location)
            res.replace_all_uses_with(arg)
            n = len(ft.inputs)
            set_function_type(func, [*ft.inputs, res.type], ft.results, keep_args=range(n), added_args=1)
            mark(op)
            changed = True
        if not changed:
            raise ReductionNotApplicable("nothing to replace")
        sweep_marked(module)


class SimplifyConstants:
    """``simplify-constants``: a non-splat ``stablehlo.constant`` becomes the splat of its first element
    (``"splat"``), or keeps the first half of its distinct values (in order of first appearance) and takes
    the first value everywhere else (``"fewer-values"``, for constants of 3 or more distinct values). Site:
    ``(op index, mode)``; one site per constant is applied (``"splat"`` first)."""

    name = "simplify-constants"

    @in_context
    def sites(self, module: ir.Module) -> list:
        out = []
        for i, op in enumerate(all_ops(module)):
            arr = _constant_array(op)
            if arr is None or arr.size < 2:
                continue
            flat = arr.reshape(-1)
            distinct = _distinct(flat)
            if len(distinct) > 1:
                out.append((i, "splat"))
            if len(distinct) > 2:
                out.append((i, "fewer-values"))
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        sites = sorted_sites(sites, 2, last=str)
        ops = ops_at(module, {s[0] for s in sites})
        done = set()
        for i, mode in sorted(sites, key=lambda s: (s[0], s[1] != "splat")):
            if i in done:
                continue
            done.add(i)
            op = ops[i]
            arr = _constant_array(op)
            if arr is None or mode not in ("splat", "fewer-values"):
                raise ReductionNotApplicable(f"op #{i} is no constant to simplify ({mode})")
            flat = np.array(arr).reshape(-1)
            if mode == "splat":
                new = np.broadcast_to(flat[:1].reshape(()), arr.shape)
            else:
                distinct = _distinct(flat)
                keep = distinct[:max(1, len(distinct) // 2)]
                mask = np.zeros(flat.shape, dtype=bool)
                bits = _bits(flat)
                for k in keep:
                    mask |= bits == k
                flat = flat.copy()
                flat[~mask] = flat[0]
                new = flat.reshape(arr.shape)
            t = op.results[0].type
            try:
                attr = to_attr(np.ascontiguousarray(new), t)
            except (TypeError, ValueError, RuntimeError) as exc:
                raise ReductionNotApplicable(f"op #{i}: {exc}") from None
            op.attributes["value"] = attr


def _constant_array(op: ir.Operation) -> np.ndarray | None:
    """The value of a ``stablehlo.constant`` of static tensor type with a dense value, else None."""
    if op.name != "stablehlo.constant":
        return None
    t = static_tensor(op.results[0].type)
    if t is None or element_dtype(t) is None:
        return None
    try:
        arr = dense_attribute(op, "value")  # (complex elements: the bindings cannot return the attribute)
    except (KeyError, TypeError, ValueError, RuntimeError):
        return None
    return arr if tuple(arr.shape) == tuple(t.shape) else None


def _bits(flat: np.ndarray) -> np.ndarray:
    """The elements' bit patterns (so NaNs and signed zeros compare as they are stored)."""
    if flat.dtype == np.bool_:
        return flat.astype(np.uint8)
    size = flat.dtype.itemsize
    if size in (1, 2, 4, 8):
        return flat.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    return flat.view(np.uint64).reshape(flat.shape[0], -1)[:, 0] ^ flat.view(np.uint64).reshape(flat.shape[0], -1)[:, 1]


def _distinct(flat: np.ndarray) -> list:
    """The distinct bit patterns of ``flat`` in order of first appearance."""
    bits = _bits(np.ascontiguousarray(flat))
    _, first = np.unique(bits, return_index=True)
    return [bits[j] for j in sorted(first)]
