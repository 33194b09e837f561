"""What every IR reduction of :mod:`hlokit.triage.reductions` shares: the exception, the protocol, and the
walks, symbol tables and rewrites (function types, calls, dead ops) the reductions are written with.

Ops are numbered by a pre-order walk of the module (an op before the ops of its regions, blocks and ops in
text order): the same number names the same op in a module and in any clone of it, so a reduction's sites
are plain ints or tuples of ints and strings. Reductions apply a set of sites in *reverse* walk order (an
op's nested ops before the op, a consumer in the same block before its producers), so that each site's
rewrite leaves the ops of the sites still to come in place.
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable, Protocol, Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.dtypes import dtype_of

__all__ = [
    "ReductionNotApplicable",
    "Reduction",
    "in_context",
    "all_ops",
    "ops_at",
    "is_removable",
    "erase_dead",
    "mark",
    "sweep_marked",
    "functions",
    "named_attributes",
    "symbol_references",
    "enclosing_function",
    "function_type",
    "set_function_type",
    "rebuild_call",
    "static_tensor",
    "element_dtype",
]


class ReductionNotApplicable(Exception):
    """A reduction cannot be applied at the sites it was given (the driver skips the candidate)."""


class Reduction(Protocol):
    """One kind of IR reduction (see :mod:`hlokit.triage.reductions` for the contract)."""

    name: str

    def sites(self, module: ir.Module) -> list:
        """Candidate places in ``module``, deterministic order, plain values."""
        ...

    def apply(self, module: ir.Module, sites: Sequence) -> None:
        """Rewrite ``module`` in place at ``sites``; may raise :class:`ReductionNotApplicable`."""
        ...


def in_context(method: Callable) -> Callable:
    """Run a reduction's ``sites(module)`` / ``apply(module, sites)`` inside ``module``'s context and an
    unknown default location (the bindings need both to build types, attributes and ops)."""

    @functools.wraps(method)
    def run(self, module, *args):
        with module.context, ir.Location.unknown():
            return method(self, module, *args)

    return run


def all_ops(module: ir.Module) -> list[ir.Operation]:
    """Every op nested in ``module`` (the module op itself excluded), in pre-order: an op, then the ops of its
    regions (regions, blocks and ops in text order)."""
    out: list[ir.Operation] = []

    def visit(op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    out.append(inner)
                    visit(inner)

    visit(module.operation)
    return out


def ops_at(module: ir.Module, indices: Iterable[int]) -> dict[int, ir.Operation]:
    """The ops of :func:`all_ops` at ``indices`` (as a dict); an index out of range raises
    :class:`ReductionNotApplicable` (a site of another module)."""
    ops = all_ops(module)
    out = {}
    for i in indices:
        if not isinstance(i, int) or not 0 <= i < len(ops):
            raise ReductionNotApplicable(f"no op #{i} in this module")
        out[i] = ops[i]
    return out


#: Ops with an effect besides their results (StableHLO spec: infeed, outfeed, send, recv; side-effecting custom
#: calls are recognised by their attribute): never erased, even when their results are unused.
_EFFECTS = frozenset({"stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv",
                      "mhlo.infeed", "mhlo.outfeed", "mhlo.send", "mhlo.recv"})


def _has_effect(op: ir.Operation) -> bool:
    name = op.name
    if name in _EFFECTS:
        return True
    if name.endswith(".custom_call") and "has_side_effect" in op.attributes:
        return str(op.attributes["has_side_effect"]) == "true"
    return not name.startswith(("stablehlo.", "chlo.", "mhlo.", "func.call", "shape.", "arith.", "tensor.",
                                "sdy.", "builtin.unrealized_conversion_cast"))


def is_removable(op: ir.Operation) -> bool:
    """Whether ``op`` may be erased once its results are unused: it has results (terminators and ops that exist
    for an effect have none), is not a function, and neither it nor an op nested in it has an effect beside
    its results (``infeed`` / ``outfeed`` / ``send`` / ``recv``, a ``custom_call`` with ``has_side_effect``,
    an op of a dialect not known here)."""
    if not len(op.results) or op.name == "func.func":
        return False
    bad = []

    def visit(inner):
        if _has_effect(inner.operation):
            bad.append(inner)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return not bad


def _unused(op: ir.Operation) -> bool:
    return all(not list(r.uses) for r in op.results)


def erase_dead(ops: Sequence[ir.Operation]) -> int:
    """Erase those of ``ops`` (given in walk order) that are removable and whose results are unused, the last
    first (a consumer before its producers). Returns how many were erased."""
    n = 0
    for op in reversed(ops):
        if is_removable(op) and _unused(op):
            op.erase()
            n += 1
    return n


#: A discardable attribute that marks, during one ``apply``, the ops :func:`sweep_marked` erases once dead.
_MARK = "hlokit.reduce.maybe_dead"


def mark(op: ir.Operation) -> None:
    """Mark ``op`` for :func:`sweep_marked` (an op whose results a reduction stopped using)."""
    op.attributes[_MARK] = ir.UnitAttr.get()


def sweep_marked(module: ir.Module, *, cascade: bool = False) -> int:
    """Erase the marked ops that are dead (unused results, :func:`is_removable`) and unmark the rest; with
    ``cascade``, also the producers of their operands that became dead, transitively (one reverse pre-order
    pass: a producer comes before its users in that order). Returns how many ops were erased.

    The reductions sweep without cascading: a dead producer stays for ``erase-unused-ops`` to try, so that a
    test like "still contains op X" can keep X once its consumers are gone."""
    n = 0
    for op in reversed(all_ops(module)):
        if _MARK not in op.attributes:
            continue
        del op.attributes[_MARK]
        if not (is_removable(op) and _unused(op)):
            continue
        if cascade:
            for v in op.operands:
                owner = v.owner
                if not isinstance(owner, ir.Block) and owner.operation.name != "func.func":
                    mark(owner.operation)
        op.erase()
        n += 1
    return n


def functions(module: ir.Module) -> dict[str, ir.Operation]:
    """The module's top-level ``func.func`` ops by symbol name, in text order."""
    out = {}
    for op in module.body.operations:
        if op.operation.name == "func.func":
            out[ir.StringAttr(op.attributes["sym_name"]).value] = op.operation
    return out


def _symbols_in(attr: ir.Attribute, into: list[str]) -> None:
    if isinstance(attr, ir.FlatSymbolRefAttr):
        into.append(attr.value)
    elif isinstance(attr, ir.ArrayAttr):
        for a in attr:
            _symbols_in(a, into)
    elif isinstance(attr, ir.DictAttr):
        for i in range(len(attr)):
            _symbols_in(attr[i].attr, into)
    elif "@" in str(attr) and not isinstance(attr, (ir.StringAttr, ir.DenseElementsAttr)):
        text = str(attr)  # a symbol inside a dialect attribute (e.g. called computations)
        i = text.find("@")
        while i >= 0:
            j = i + 1
            while j < len(text) and (text[j].isalnum() or text[j] in "_.$-"):
                j += 1
            into.append(text[i + 1:j].strip('"'))
            i = text.find("@", j)


def named_attributes(op: ir.Operation) -> list:
    """The ``NamedAttribute`` s of ``op`` (by index: iterating ``op.attributes`` gives names in some
    versions of the bindings, named attributes in others)."""
    attrs = op.attributes
    return [attrs[i] for i in range(len(attrs))]


def symbol_references(module: ir.Module) -> dict[str, list[ir.Operation]]:
    """For every symbol name referenced by an attribute of an op of ``module`` (``func.call``'s ``callee``,
    ``custom_call``'s ``called_computations``, a symbol inside any dialect attribute), the referencing ops."""
    refs: dict[str, list[ir.Operation]] = {}
    for op in all_ops(module):
        if op.name == "func.func":
            continue
        names: list[str] = []
        for named in named_attributes(op):
            _symbols_in(named.attr, names)
        for name in names:
            refs.setdefault(name, []).append(op)
    return refs


def enclosing_function(op: ir.Operation) -> ir.Operation | None:
    """The ``func.func`` around ``op`` (None at module level)."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent


def function_type(func: ir.Operation) -> ir.FunctionType:
    """The ``function_type`` of the ``func.func`` ``func``."""
    return ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)


def set_function_type(func: ir.Operation, inputs: Sequence[ir.Type], results: Sequence[ir.Type], *,
                      keep_args: Sequence[int] | None = None, keep_results: Sequence[int] | None = None,
                      added_args: int = 0) -> None:
    """Set ``func``'s ``function_type`` and keep its ``arg_attrs`` / ``res_attrs`` in step: the entries at
    ``keep_args`` / ``keep_results`` (old indices, in order) are kept, ``added_args`` empty ones appended."""
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(inputs), list(results)))
    for key, keep, added in (("arg_attrs", keep_args, added_args), ("res_attrs", keep_results, 0)):
        if key not in func.attributes:
            continue
        old = list(ir.ArrayAttr(func.attributes[key]))
        new = [old[i] for i in keep] if keep is not None else old
        new += [ir.DictAttr.get({}) for _ in range(added)]
        if all(len(ir.DictAttr(a)) == 0 for a in new):
            del func.attributes[key]
        else:
            func.attributes[key] = ir.ArrayAttr.get(new)


def rebuild_call(call: ir.Operation, keep_operands: Sequence[int], keep_results: Sequence[int]) -> ir.Operation:
    """Replace the ``func.call`` ``call`` by one with only the operands and results at the given indices (the
    dropped results must be unused); returns the new call."""
    operands = list(call.operands)
    results = list(call.results)
    attrs = {named.name: named.attr for named in named_attributes(call)}
    new = ir.Operation.create("func.call", results=[results[i].type for i in keep_results],
                              operands=[operands[i] for i in keep_operands], attributes=attrs,
                              loc=call.location, ip=ir.InsertionPoint(call))
    for j, i in enumerate(keep_results):
        results[i].replace_all_uses_with(new.results[j])
    call.erase()
    return new


def static_tensor(t: ir.Type) -> ir.RankedTensorType | None:
    """``t`` as a ranked tensor type of static shape without encoding, else None."""
    if not isinstance(t, ir.RankedTensorType):
        try:
            t = ir.RankedTensorType(t)
        except (ValueError, TypeError):
            return None
    if not t.has_static_shape or t.encoding is not None:
        return None
    return t


def element_dtype(t: ir.RankedTensorType) -> np.dtype | None:
    """The numpy dtype of ``t``'s element type (hlokit.dtypes), None for types a constant cannot hold here
    (quantized, tokens, ...)."""
    elem = t.element_type
    if str(elem).startswith("!"):
        return None
    try:
        return dtype_of(elem)
    except (TypeError, ValueError, KeyError):
        return None
