"""Template instantiation, the second half of hlokit's IR-building layer (:mod:`hlokit.passes.builder`).

A template is a private ``func.func`` whose body is the expansion of one op signature, written by an
:class:`~hlokit.passes.builder.Emitter` and parsed once per context into a :class:`TemplateCache`. A pass
then replaces each op by a clone of its template's body (:func:`instantiate`,
:func:`instantiate_before`), gives the cloned ops the op's location (:func:`relocate`) and fills
placeholders with a region of the op (:func:`splice`). Every name here is also importable from
:mod:`hlokit.passes.builder`.
"""

from __future__ import annotations

from typing import Callable, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes

__all__ = [
    "UnsupportedError",
    "TemplateCache",
    "relocate",
    "instantiate",
    "instantiate_before",
    "find_ops",
    "splice",
    "replace_with_constant",
    "set_compare_type",
    "unrealized_cast",
]


class UnsupportedError(Exception):
    """A request the building layer (or an expansion written on it) does not handle; the message says which.

    A pass turns it into a located ``PassError`` before it changes anything."""


class TemplateCache:
    """Parsed templates of one ``ir.Context``, kept as private ``func.func`` ops in a scratch module.

    ``funcs`` maps a caller-chosen signature key to the parsed template; ``texts`` is free for callers
    that reuse one text for several keys (e.g. shape-independent texts with a ``$S`` placeholder).
    """

    def __init__(self, context: ir.Context):
        self.context = context
        with context, ir.Location.unknown(context):
            self.scratch = ir.Module.create()
        self.ip = ir.InsertionPoint(self.scratch.body)
        self.texts: dict[tuple, str] = {}
        self.funcs: dict[tuple, ir.Operation] = {}

    @classmethod
    def per_context(cls, caches: dict, context: ir.Context) -> "TemplateCache":
        """The cache of ``context`` kept in ``caches`` (``id(context)`` -> cache), made on first use; an
        entry left by a dead context whose id was reused is replaced."""
        entry = caches.get(id(context))
        if entry is None or entry.context is not context:
            entry = caches[id(context)] = cls(context)
        return entry

    @classmethod
    def of_pass(cls, owner, context: ir.Context) -> "TemplateCache":
        """The cache of ``context`` that the pass instance ``owner`` keeps (in ``owner._caches``; see
        :meth:`per_context`)."""
        return cls.per_context(owner.__dict__.setdefault("_caches", {}), context)

    def parse(self, key: tuple, text: str, what: str) -> ir.Operation:
        """Parse template ``text`` (from :meth:`hlokit.passes.builder.Emitter.text`), keep it under ``key``
        and return it; UnsupportedError (naming ``what``) when the text does not parse (a bug in an
        expansion)."""
        try:
            parsed = ir.Operation.parse(text, context=self.context)
        except ir.MLIRError as err:
            raise UnsupportedError(f"internal error: expansion of '{what}' does not parse: {err}") from None
        with self.context:
            self.scratch.body.append(parsed)
        self.funcs[key] = parsed
        return parsed


def find_ops(root: ir.Operation, names) -> list[ir.Operation]:
    """Every op under ``root`` (nested regions included, walk order) whose name is in ``names``."""
    found: list[ir.Operation] = []

    def collect(o):
        if o.name in names:
            found.append(o.operation)
        return ir.WalkResult.ADVANCE

    root.walk(collect)
    return found


def instantiate(cache: TemplateCache, template: ir.Operation, op: ir.Operation,
                prepare: Callable[[ir.Operation], None] | None = None) -> None:
    """Replace ``op`` by a clone of ``template``'s body: the template's arguments become ``op``'s
    operands, the values its ``func.return`` returns replace ``op``'s results; the top-level ops of the
    body take ``op``'s location (as MLIR's rewrites do). ``prepare(clone)`` runs on the clone first
    (e.g. :func:`splice`). Erases ``op``."""
    clone = template.clone(ip=cache.ip)
    if prepare is not None:
        prepare(clone)
    block = clone.regions[0].blocks[0]
    for arg, operand in zip(block.arguments, op.operands):
        arg.replace_all_uses_with(operand)
    body = list(block.operations)
    loc = op.location
    for inner in body[:-1]:
        inner.location = loc
        inner.move_before(op)
    for res, val in zip(op.results, body[-1].operands):
        if val.type != res.type and isinstance(val, ir.OpResult) and any(val.owner == o.operation for o in body[:-1]):
            # Templates are written on plain shapes: give the value that replaces a result the result's
            # exact type back (a ``#stablehlo.bounds<...>`` encoding of a bounded dynamic dimension).
            val.set_type(res.type)
        res.replace_all_uses_with(val)
    op.erase()
    clone.erase()


def instantiate_before(cache: TemplateCache, template: ir.Operation, before: ir.Operation,
                       operands: Sequence[ir.Value]) -> list[ir.Value]:
    """Clone ``template``'s body before ``before`` with its arguments bound to ``operands`` and return
    the values its ``func.return`` returns (``before`` is left as it is; the top-level ops take its
    location). For passes that rewire results themselves (value-to-value lowerings)."""
    clone = template.clone(ip=cache.ip)
    block = clone.regions[0].blocks[0]
    for arg, operand in zip(block.arguments, operands):
        arg.replace_all_uses_with(operand)
    body = list(block.operations)
    loc = before.location
    for inner in body[:-1]:
        inner.location = loc
        inner.move_before(before)
    out = list(body[-1].operands)
    clone.erase()
    return out


def relocate(clone: ir.Operation, loc: ir.Location) -> None:
    """Give every op of a cloned template (a ``func.func``; nested ops included) the location ``loc``,
    so that errors and debug info point at the op the template replaces."""

    def visit(o):
        o.location = loc
        return ir.WalkResult.ADVANCE

    for inner in clone.regions[0].blocks[0].operations:
        inner.operation.walk(visit)


def splice(root: ir.Operation, callee: str, block: ir.Block) -> None:
    """Replace the placeholder ``stablehlo.custom_call @callee`` under ``root`` (written by
    :meth:`hlokit.passes.builder.Emitter.splice_point`) by the ops of ``block``: the block's arguments become the call's
    operands, the values its terminator returns replace the call's results."""
    found = []

    def visit(o):
        if o.name == "stablehlo.custom_call" and attributes.str_value(o, "call_target_name") == callee:
            found.append(o.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    for call in found:
        for arg, operand in zip(block.arguments, call.operands):
            arg.replace_all_uses_with(operand)
        ops = list(block.operations)
        for inner in ops[:-1]:
            inner.move_before(call)
        for res, val in zip(call.results, ops[-1].operands):
            res.replace_all_uses_with(val)
        call.erase()


def replace_with_constant(op: ir.Operation, value: ir.Attribute) -> None:
    """Replace the one-result ``op`` by ``stablehlo.constant {value}`` (StableHLO spec, "constant") of
    ``op``'s result type, at ``op``'s location, and erase ``op``: for a rewrite that needs no template."""
    with ir.InsertionPoint(op), op.location:
        new = ir.Operation.create("stablehlo.constant", results=[op.results[0].type], attributes={"value": value})
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()


def set_compare_type(op: ir.Operation, compare_type: str) -> None:
    """Set the ``compare_type`` (``"FLOAT"``, ``"TOTALORDER"``, ``"SIGNED"``, ``"UNSIGNED"``; StableHLO spec,
    "compare") of the ``stablehlo.compare`` ``op`` in place."""
    op.attributes["compare_type"] = stablehlo.ComparisonTypeAttr.get(compare_type, op.context)


def unrealized_cast(value: ir.Value, to: ir.Type, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    """``builtin.unrealized_conversion_cast`` of ``value`` to type ``to`` at ``ip`` (MLIR's placeholder
    for a value whose type a partial conversion changes; removed once both sides are converted)."""
    op = ir.Operation.create("builtin.unrealized_conversion_cast", results=[to], operands=[value], loc=loc, ip=ip)
    return op.results[0]
