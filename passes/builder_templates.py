"""Template instantiation, the second half of hlokit's IR-building layer (:mod:`hlokit.passes.builder`).

A template is a private ``func.func`` whose body is the expansion of one op signature, written by an
:class:`~hlokit.passes.builder.Emitter` and parsed once per context into a :class:`TemplateCache`. A pass
then replaces each op by a clone of its template's body (:func:`instantiate`,
:func:`instantiate_before`), gives the cloned ops the op's location (:func:`relocate`) and fills
placeholders with a region of the op (:func:`splice`). Every name here is also importable from
:mod:`hlokit.passes.builder`.

Speed: the clones of one template share a :class:`_Layout` (kept in the :class:`TemplateCache`), and the
ops of a clone are reached with one pre-order walk (:func:`body_ops`), which hands out plain
``ir.Operation`` objects: iterating ``block.operations`` would build each op's OpView subclass, a lookup
per op (a failed import per op for a dialect without Python module, such as ``shape`` or ``tensor``).
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
    "body_ops",
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
        #: id(template) -> (template, what its clones share), see :func:`instantiate`.
        self.layouts: dict[int, tuple] = {}

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


_ADVANCE, _SKIP, _PRE_ORDER = ir.WalkResult.ADVANCE, ir.WalkResult.SKIP, ir.WalkOrder.PRE_ORDER


def body_ops(op: ir.Operation) -> list[ir.Operation]:
    """The ops directly inside ``op``'s regions (every block of every region, in order; ops nested
    deeper are not entered), as plain ``ir.Operation`` objects.

    Iterating ``block.operations`` gives each op as its OpView subclass, which costs a lookup per op
    (and, for a dialect without a Python module such as ``shape`` or ``tensor``, a failed import per op);
    a pre-order walk that skips the nested regions hands out the plain operations at a fraction of it."""
    out: list[ir.Operation] = []
    started = False

    def visit(o):
        nonlocal started
        if not started:  # ``op`` itself, first in pre-order
            started = True
            return _ADVANCE
        out.append(o)
        return _SKIP

    op.walk(visit, _PRE_ORDER)
    return out


class _Layout:
    """What every clone of one template shares: the pre-order positions of its top-level ops among all
    its ops (``top``), whether it has arguments (``args``), per returned value whether an op of the body
    (not an argument) makes it and its type (``made``, ``types``), and for a body of one op without
    regions whose operands are arguments and whose results are returned (``single``: the op, the argument
    of each operand, the result of each returned value) what lets :func:`instantiate` clone that op alone,
    straight before the op it replaces."""

    __slots__ = ("top", "args", "made", "types", "single")

    def __init__(self, template: ir.Operation):
        top_level = body_ops(template)
        everything: list[ir.Operation] = []

        def visit(o):
            everything.append(o)
            return _ADVANCE

        template.walk(visit, _PRE_ORDER)
        everything = everything[1:]  # (the func itself)
        self.top = []
        k = 0
        for o in everything:  # the top-level ops keep their order among all ops in pre-order
            hit = k < len(top_level) and o == top_level[k]
            self.top.append(hit)
            k += hit
        args = list(template.regions[0].blocks[0].arguments)
        self.args = len(args) > 0
        returned = list(top_level[-1].operands)
        self.made = [isinstance(v, ir.OpResult) for v in returned]
        self.types = [v.type for v in returned]
        # One op without regions, on the arguments only, returning its results: cloned on its own.
        self.single = None
        if len(top_level) == 2 and not len(top_level[0].regions):
            only = top_level[0]
            operand_args = [next((i for i, a in enumerate(args) if a == v), None) for v in only.operands]
            results = list(only.results)
            result_index = [next((i for i, r in enumerate(results) if r == v), None) for v in returned]
            if None not in operand_args and None not in result_index:
                self.single = (only, operand_args, result_index)


def _layout(cache: TemplateCache, template: ir.Operation) -> _Layout:
    """The layout of ``template``, computed on first use and kept in ``cache``."""
    hit = cache.layouts.get(id(template))
    if hit is None or hit[0] is not template:  # (the entry holds the template: its id is not reused)
        hit = cache.layouts[id(template)] = (template, _Layout(template))
    return hit[1]


def _cloned_body(cache: TemplateCache, template: ir.Operation, loc: ir.Location | None,
                 nested_loc: ir.Location | None, prepare) -> tuple[ir.Operation, list[ir.Operation], _Layout | None]:
    """A clone of ``template`` in the scratch module and its top-level ops (the ``func.return`` last);
    the top-level ops take ``loc`` and, with ``nested_loc``, every op takes it. Returns the clone, its
    top-level ops and the template's :class:`_Layout` (None after ``prepare``, which may change the
    body)."""
    clone = template.clone(ip=cache.ip)
    if prepare is not None:
        prepare(clone)
        if nested_loc is not None:
            relocate(clone, nested_loc)
        ops = body_ops(clone)
        if loc is not None:
            for inner in ops[:-1]:
                inner.location = loc
        return clone, ops, None
    layout = _layout(cache, template)
    ops: list[ir.Operation] = []
    if nested_loc is not None:
        top = layout.top
        i = -1

        def visit(o):
            nonlocal i
            if i >= 0:
                o.location = nested_loc
                if top[i]:
                    ops.append(o)
            i += 1
            return _ADVANCE
    else:
        started = False

        def visit(o):
            nonlocal started
            if not started:
                started = True
                return _ADVANCE
            if loc is not None:
                o.location = loc
            ops.append(o)
            return _SKIP

    clone.walk(visit, _PRE_ORDER)
    return clone, ops, layout


def instantiate(cache: TemplateCache, template: ir.Operation, op: ir.Operation,
                prepare: Callable[[ir.Operation], None] | None = None, *, relocate_nested: bool = False) -> None:
    """Replace ``op`` by a clone of ``template``'s body: the template's arguments become ``op``'s
    operands, the values its ``func.return`` returns replace ``op``'s results; the top-level ops of the
    body take ``op``'s location (as MLIR's rewrites do), and with ``relocate_nested`` the ops nested in
    their regions too (:func:`relocate`). ``prepare(clone)`` runs on the clone first (e.g.
    :func:`splice`). Erases ``op``.

    The Python work per op is one clone, one walk over the clone's top-level ops (over all its ops with
    ``relocate_nested``) and one ``move_before`` per top-level op: what the clones of one template share
    (which values the body returns) is computed once per template (:class:`TemplateCache`)."""
    loc = op.location
    if prepare is None:
        layout = _layout(cache, template)
        if layout.single is not None:
            only, operand_args, result_index = layout.single
            new = only.clone(ip=ir.InsertionPoint(op))
            new.location = loc
            given, operands = op.operands, new.operands
            for j, a in enumerate(operand_args):
                operands[j] = given[a]
            made = new.results
            for res, k, vt in zip(op.results, result_index, layout.types):
                val = made[k]
                t = res.type
                if vt != t:
                    val.set_type(t)
                res.replace_all_uses_with(val)
            op.erase()
            return
    clone, body, layout = _cloned_body(cache, template, loc, loc if relocate_nested else None, prepare)
    if layout is None or layout.args:
        for arg, operand in zip(clone.regions[0].blocks[0].arguments, op.operands):
            arg.replace_all_uses_with(operand)
    for inner in body[:-1]:
        inner.move_before(op)
    returned = body[-1].operands
    if layout is None:  # (after ``prepare``: which returned values the body makes, and their types)
        made = [isinstance(v, ir.OpResult) and any(v.owner == o for o in body[:-1]) for v in returned]
        types = [v.type for v in returned]
    else:
        made, types = layout.made, layout.types
    for res, val, own, vt in zip(op.results, returned, made, types):
        if own:
            t = res.type
            if vt != t:
                # Templates are written on plain shapes: give the value that replaces a result the result's
                # exact type back (a ``#stablehlo.bounds<...>`` encoding of a bounded dynamic dimension).
                val.set_type(t)
        res.replace_all_uses_with(val)
    op.erase()
    clone.erase()


def instantiate_before(cache: TemplateCache, template: ir.Operation, before: ir.Operation,
                       operands: Sequence[ir.Value]) -> list[ir.Value]:
    """Clone ``template``'s body before ``before`` with its arguments bound to ``operands`` and return
    the values its ``func.return`` returns (``before`` is left as it is; the top-level ops take its
    location). For passes that rewire results themselves (value-to-value lowerings)."""
    layout = _layout(cache, template)
    if layout.single is not None:
        only, operand_args, result_index = layout.single
        new = only.clone(ip=ir.InsertionPoint(before))
        new.location = before.location
        mine = new.operands
        for j, a in enumerate(operand_args):
            mine[j] = operands[a]
        made = new.results
        return [made[k] for k in result_index]
    clone, body, layout = _cloned_body(cache, template, before.location, None, None)
    if layout.args:
        for arg, operand in zip(clone.regions[0].blocks[0].arguments, operands):
            arg.replace_all_uses_with(operand)
    for inner in body[:-1]:
        inner.move_before(before)
    out = list(body[-1].operands)
    clone.erase()
    return out


def relocate(clone: ir.Operation, loc: ir.Location) -> None:
    """Give every op of a cloned template (a ``func.func``; nested ops included) the location ``loc``,
    so that errors and debug info point at the op the template replaces."""
    started = False

    def visit(o):
        nonlocal started
        if started:
            o.location = loc
        started = True
        return _ADVANCE

    clone.walk(visit, _PRE_ORDER)


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
