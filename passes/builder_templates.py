"""Template instantiation, the second half of hlokit's IR-building layer (:mod:`hlokit.passes.builder`).

A template is a private ``func.func`` whose body is the expansion of one op signature, written by an
:class:`~hlokit.passes.builder.Emitter` and parsed once per context into a :class:`TemplateCache`. A pass
then replaces each op by a clone of its template's body (:func:`instantiate`,
:func:`instantiate_before`), gives the cloned ops the op's location (:func:`relocate`) and fills
placeholders with a region of the op (:func:`splice`). Every name here but :func:`single_rewriter` (a
helper of :class:`~hlokit.passes.template_pass.TemplatePass`) and :func:`before_maker` (of
``shape-legalize-to-stablehlo``) is also importable from :mod:`hlokit.passes.builder`.

Speed: the clones of one template share a :class:`_Layout` (kept in the :class:`TemplateCache`), and the
ops of a clone are reached with one pre-order walk (:func:`body_ops`), which hands out plain
``ir.Operation`` objects: iterating ``block.operations`` would build each op's OpView subclass, a lookup
per op (0.86 against 0.50 us per ``stablehlo`` op).
Every Python binding call costs about 0.3 to 1 microsecond, so the layout also says when fewer calls do:
a body of one op without regions is created anew with ``ir.Operation.create`` (name, attributes and
result types read once per template); a body of 2 to :data:`REPLAY_MAX_OPS` ops without regions is
created op by op by :func:`instantiate_before` (no clone, walk or move); a body of one op with regions
that read none of the template's arguments is cloned alone, straight before the op. Each writes the same
ops, operands, types and locations as the clone of the whole body (``tests/pytest/test_pass_speed_paths.py``).
"""

from __future__ import annotations

from operator import itemgetter
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
    "before_maker",
    "body_rewriter",
    "find_ops",
    "body_ops",
    "single_rewriter",
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
        #: id(template) -> (template, its :func:`before_maker`).
        self.makers: dict[int, tuple] = {}

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

    Iterating ``block.operations`` gives each op as its OpView subclass, which costs a lookup per op (for a
    dialect without a Python module, such as ``shape``, only the first op's lookup fails: ``hlokit.core``);
    a pre-order walk that skips the nested regions hands out the plain operations for less (0.50 against
    0.86 us per ``stablehlo`` op)."""
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

    __slots__ = ("top", "args", "made", "types", "single", "create", "held", "replay")

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
        self.create = None
        self.held = None
        self.replay = _replay_program(top_level, args, returned)
        if len(top_level) == 2 and len(top_level[0].regions):
            # One op with regions whose nested ops use none of the template's arguments (values of its own
            # regions only): cloned on its own, regions and all, straight before the op it replaces.
            only = top_level[0]
            operand_args = [next((i for i, a in enumerate(args) if a == v), None) for v in only.operands]
            results = list(only.results)
            result_index = [next((i for i, r in enumerate(results) if r == v), None) for v in returned]
            inner = [o for o, t in zip(everything[1:], self.top[1:]) if not t]  # (pre-order: nested in ``only``)
            if (None not in operand_args and None not in result_index
                    and not any(v == a for o in inner for v in o.operands for a in args)):
                self.held = (only, operand_args, result_index)
        if len(top_level) == 2 and not len(top_level[0].regions):
            only = top_level[0]
            operand_args = [next((i for i, a in enumerate(args) if a == v), None) for v in only.operands]
            results = list(only.results)
            result_index = [next((i for i, r in enumerate(results) if r == v), None) for v in returned]
            if None not in operand_args and None not in result_index:
                self.single = (only, operand_args, result_index)
                # What creates the op anew (one binding call, cheaper than a clone and its operand updates):
                # its name, attributes and result types, and whether the returned values are its results in
                # order (then the replaced op's result types are the new op's).
                self.create = (only.name, _attributes_of(only), [r.type for r in results],
                               result_index == list(range(len(results))))


#: Largest body (ops besides the ``func.return``) that :func:`instantiate_before` creates op by op instead
#: of cloning the template: each created op is one binding call, where a clone costs a walk, a location and a
#: move per op on top of the clone.
REPLAY_MAX_OPS = 8


def _replay_program(top_level: list[ir.Operation], args: list, returned: list) -> tuple | None:
    """For a body of 2 to :data:`REPLAY_MAX_OPS` ops without regions: per op ``(name, attributes, result
    types, operand refs)`` and the refs of the returned values, a ref being ``(0, i)`` (argument ``i``) or
    ``(1, j, k)`` (result ``k`` of op ``j``). None for any other body."""
    body = top_level[:-1]
    if not 2 <= len(body) <= REPLAY_MAX_OPS or any(len(o.regions) for o in body):
        return None
    known = [(a, (0, i)) for i, a in enumerate(args)]

    def ref(v):
        return next((r for w, r in known if w == v), None)

    program = []
    for j, o in enumerate(body):
        refs = [ref(v) for v in o.operands]
        if None in refs:
            return None
        results = list(o.results)
        program.append((o.name, _attributes_of(o), [r.type for r in results], refs))
        known += [(r, (1, j, k)) for k, r in enumerate(results)]
    out = [ref(v) for v in returned]
    return None if None in out else (program, out)


def _attributes_of(op: ir.Operation) -> dict[str, ir.Attribute]:
    """Every attribute of ``op`` by name (inherent ones included)."""
    attrs = op.attributes
    if hasattr(attrs, "items"):
        return dict(attrs.items())
    return {a.name: a.attr for a in map(attrs.__getitem__, range(len(attrs)))}  # (bindings without items())


def _layout(cache: TemplateCache, template: ir.Operation) -> _Layout:
    """The layout of ``template``, computed on first use and kept in ``cache``."""
    hit = cache.layouts.get(id(template))
    if hit is None or hit[0] is not template:  # (the entry holds the template: its id is not reused)
        hit = cache.layouts[id(template)] = (template, _Layout(template))
    return hit[1]


def single_rewriter(cache: TemplateCache, template: ir.Operation,
                    result_types: Sequence[ir.Type]) -> Callable[[ir.Operation], None] | None:
    """For a template whose body is one op without regions, over the template's arguments, returning that
    op's results in order: ``rewrite(op)``, which does what :func:`instantiate` does to an op whose results
    have ``result_types`` (the op created anew before ``op`` at its location, with those result types; its
    operands taken from ``op``'s by index; ``op``'s results replaced, ``op`` erased), with what the ops of
    one signature share (name, attributes, types, operand map) bound once. None for any other template."""
    layout = _layout(cache, template)
    if layout.single is None or not layout.create[3]:
        return None
    operand_args = layout.single[1]
    name, attrs = layout.create[:2]
    types = list(result_types)
    n = len(types)
    in_order = operand_args == list(range(len(operand_args)))  # (the op's operands as they are: one list call)

    def rewrite(op: ir.Operation) -> None:
        given = op.operands
        operands = list(given) if in_order and len(given) == len(operand_args) else [given[a] for a in operand_args]
        new = ir.Operation.create(name, results=types, operands=operands, attributes=attrs, loc=op.location,
                                  ip=ir.InsertionPoint(op))
        if n == 1:
            op.result.replace_all_uses_with(new.result)
        else:
            made, results = new.results, op.results
            for i in range(n):
                results[i].replace_all_uses_with(made[i])
        op.erase()

    return rewrite


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


def _replace_results(op: ir.Operation, made, result_index: Sequence[int], types: Sequence[ir.Type] | None) -> None:
    """Replace ``op``'s result ``j`` by ``made[result_index[j]]`` and erase ``op``; where ``types`` (the
    template's result types) differs from ``op``'s own, the new value takes ``op``'s type (a bounded
    dimension's encoding kept). ``types`` None: ``made`` already has ``op``'s types."""
    for j, (res, k) in enumerate(zip(op.results, result_index)):
        val = made[k]
        if types is not None:
            t = res.type
            if types[j] != t:
                val.set_type(t)
        res.replace_all_uses_with(val)
    op.erase()


def instantiate(cache: TemplateCache, template: ir.Operation, op: ir.Operation,
                prepare: Callable[[ir.Operation], None] | None = None, *, relocate_nested: bool = False) -> None:
    """Replace ``op`` by a clone of ``template``'s body: the template's arguments become ``op``'s
    operands, the values its ``func.return`` returns replace ``op``'s results; the top-level ops of the
    body take ``op``'s location (as MLIR's rewrites do), and with ``relocate_nested`` the ops nested in
    their regions too (:func:`relocate`). ``prepare(clone)`` runs on the clone first (e.g.
    :func:`splice`). Erases ``op``.

    The Python work per op is one clone, one walk over the clone's top-level ops (over all its ops with
    ``relocate_nested``) and one ``move_before`` per top-level op: what the clones of one template share
    (which values the body returns) is computed once per template (:class:`TemplateCache`). A body of one
    op is created anew instead, or (with regions that read no argument) cloned alone (module docstring)."""
    loc = op.location
    if prepare is None:
        layout = _layout(cache, template)
        if layout.single is not None:
            _, operand_args, result_index = layout.single
            name, attrs, types, in_order = layout.create
            given, results = op.operands, op.results
            if in_order:  # (the op's own result types: a bounded dimension's encoding kept)
                types = results.types
            made = ir.Operation.create(name, results=types, operands=[given[a] for a in operand_args],
                                       attributes=attrs, loc=loc, ip=ir.InsertionPoint(op)).results
            _replace_results(op, made, result_index, None if in_order else layout.types)
            return
        if layout.held is not None:
            only, operand_args, result_index = layout.held
            given = op.operands
            new = _clone_alone(only, [given[a] for a in operand_args], ir.InsertionPoint(op), loc, relocate_nested)
            _replace_results(op, new.results, result_index, layout.types)
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
    location). For passes that rewire results themselves (value-to-value lowerings). The template's
    :func:`before_maker` does it (a small body created op by op, a larger one cloned and moved)."""
    return before_maker(cache, template)(operands, before)


def _clone_before(cache: TemplateCache, template: ir.Operation, before: ir.Operation,
                  operands: Sequence[ir.Value]) -> list[ir.Value]:
    """:func:`instantiate_before` by a clone of the whole template: its body moved before ``before``, the
    arguments bound to ``operands``; the values its ``func.return`` returns."""
    clone, body, layout = _cloned_body(cache, template, before.location, None, None)
    if layout.args:
        for arg, operand in zip(clone.regions[0].blocks[0].arguments, operands):
            arg.replace_all_uses_with(operand)
    for inner in body[:-1]:
        inner.move_before(before)
    out = list(body[-1].operands)
    clone.erase()
    return out


def _flat_replay(program: tuple, n_args: int) -> tuple[list, list[int]]:
    """A :func:`_replay_program` of a template of ``n_args`` arguments with every value reference flattened
    to one index into a list that holds the ``n_args`` operands first, then each created op's results in
    order: per op ``(name, attributes, result types, operand indices, number of results)``, and the indices
    of the returned values."""
    ops, out = program
    start, base = [], n_args  # the flat index of each op's first result
    for _, _, types, _ in ops:
        start.append(base)
        base += len(types)

    def flat(r):
        return r[1] if r[0] == 0 else start[r[1]] + r[2]

    return ([(name, attrs or None, types, [flat(r) for r in refs], len(types)) for name, attrs, types, refs in ops],
            [flat(r) for r in out])


def before_maker(cache: TemplateCache, template: ir.Operation) -> Callable[[Sequence[ir.Value], ir.Operation],
                                                                            Sequence[ir.Value]]:
    """``make(operands, before)``: :func:`instantiate_before` of ``template`` (its ops with ``operands``, at
    ``before``'s location, before ``before``; the values its ``func.return`` returns) with what every instance
    shares bound once: a body of one op or of up to :data:`REPLAY_MAX_OPS` ops without regions is created op
    by op (one binding call per created op), another is cloned and moved. Kept in ``cache`` per template."""
    hit = cache.makers.get(id(template))
    if hit is not None and hit[0] is template:
        return hit[1]
    layout = _layout(cache, template)
    create, InsertionPoint = ir.Operation.create, ir.InsertionPoint
    if layout.single is not None:
        _, operand_args, result_index = layout.single
        name, attrs, types, _ = layout.create
        attrs = attrs or None  # (no dictionary to convert per op)
        same_operands = operand_args == list(range(len(operand_args)))
        if result_index == [0] and len(types) == 1:
            def make(operands, before):
                ops = operands if same_operands and len(operands) == len(operand_args) else [
                    operands[a] for a in operand_args]
                return [create(name, results=types, operands=ops, attributes=attrs, loc=before.location,
                               ip=InsertionPoint(before)).result]
        else:
            def make(operands, before):
                made = create(name, results=types, operands=[operands[a] for a in operand_args], attributes=attrs,
                              loc=before.location, ip=InsertionPoint(before)).results
                return [made[k] for k in result_index]
    elif layout.replay is not None:
        n_args = len(template.regions[0].blocks[0].arguments)
        program, out = _flat_replay(layout.replay, n_args)

        # (each op's operands picked without a comprehension: one index, or an itemgetter of several)
        steps = [(name, attrs, types, len(refs) == 1, refs[0] if len(refs) == 1 else itemgetter(*refs) if refs else
                  (lambda vals: ()), n) for name, attrs, types, refs, n in program]
        pick_out = itemgetter(*out) if len(out) > 1 else None

        def make(operands, before):
            loc, ip = before.location, InsertionPoint(before)
            vals = list(operands) if len(operands) == n_args else [operands[i] for i in range(n_args)]
            for name, attrs, types, one, pick, n in steps:
                new = create(name, results=types, operands=[vals[pick]] if one else pick(vals), attributes=attrs,
                             loc=loc, ip=ip)
                if n == 1:
                    vals.append(new.result)
                elif n:
                    vals.extend(new.results)
            return list(pick_out(vals)) if pick_out is not None else [vals[i] for i in out]
    else:
        def make(operands, before):
            return _clone_before(cache, template, before, operands)
    cache.makers[id(template)] = (template, make)
    return make


def _self_contained(op: ir.Operation) -> bool:
    """Every op nested in ``op``'s regions uses only values defined inside ``op`` (its blocks' arguments and
    its nested ops' results): a clone of ``op`` alone reads nothing of the template around it."""
    nested: list[ir.Operation] = []

    def visit(o):
        nested.append(o)
        return _ADVANCE

    op.walk(visit, _PRE_ORDER)
    defined = set()
    for o in nested:
        for region in o.regions:
            for block in region.blocks:
                defined.update(block.arguments)
        if o is not nested[0]:
            defined.update(o.results)
    return all(v in defined for o in nested[1:] for v in o.operands)


def body_rewriter(cache: TemplateCache, template: ir.Operation, *,
                  relocate_nested: bool = False) -> Callable[[ir.Operation], None] | None:
    """For a template of 2 to :data:`REPLAY_MAX_OPS` top-level ops whose ops with regions read only values of
    their own regions inside them: ``rewrite(op)``, which does what :func:`instantiate` does to ``op`` (same
    ops, operands, attributes, types and locations, ``op``'s results replaced and ``op`` erased), each op
    without regions created anew and each op with regions cloned alone (its operands then set), instead of
    a clone of the whole template, a walk and a move per op. None for any other template (a one-op body:
    :func:`single_rewriter` or :func:`instantiate`'s own paths). The template's arguments are ``op``'s
    operands in order."""
    layout = _layout(cache, template)
    if layout.single is not None or layout.held is not None:
        return None
    top_level = body_ops(template)
    body = top_level[:-1]
    if not 2 <= len(body) <= REPLAY_MAX_OPS:
        return None
    known = [(a, i) for i, a in enumerate(template.regions[0].blocks[0].arguments)]  # value -> index into vals

    def ref(v):
        return next((i for w, i in known if w == v), None)

    program = []
    for o in body:
        refs = [ref(v) for v in o.operands]
        results = list(o.results)
        if None in refs or (len(o.regions) and not _self_contained(o)):
            return None
        program.append((o, refs, len(results)) if len(o.regions) else
                       (o.name, _attributes_of(o) or None, [r.type for r in results], refs, len(results)))
        known += [(r, len(known) + k) for k, r in enumerate(results)]
    out = [ref(v) for v in top_level[-1].operands]
    if None in out:
        return None
    made, types = layout.made, layout.types
    create, InsertionPoint = ir.Operation.create, ir.InsertionPoint

    def rewrite(op: ir.Operation) -> None:
        loc, ip = op.location, InsertionPoint(op)
        vals = list(op.operands)
        for step in program:
            if len(step) == 3:  # an op with regions: cloned alone, its operands set
                held, refs, n = step
                new = _clone_alone(held, [vals[r] for r in refs], ip, loc, relocate_nested)
            else:
                name, attrs, result_types, refs, n = step
                new = create(name, results=result_types, operands=[vals[r] for r in refs], attributes=attrs,
                             loc=loc, ip=ip)
            if n == 1:
                vals.append(new.result)
            elif n:
                vals.extend(new.results)
        for res, i, own, vt in zip(op.results, out, made, types):
            val = vals[i]
            if own:  # (as instantiate: a value the body makes takes the result's exact type back)
                t = res.type
                if vt != t:
                    val.set_type(t)
            res.replace_all_uses_with(val)
        op.erase()

    return rewrite


def _clone_alone(held: ir.Operation, operands: list, ip: ir.InsertionPoint, loc: ir.Location,
                 relocate_nested: bool) -> ir.Operation:
    """A clone of the template op ``held`` (with its regions) at ``ip``, its operands set to ``operands`` (in
    order) and its location ``loc`` (every nested op's too with ``relocate_nested``)."""
    new = held.clone(ip=ip)
    slots = new.operands
    for j, v in enumerate(operands):
        slots[j] = v
    if relocate_nested:
        relocate(new, loc, include_root=True)
    else:
        new.location = loc
    return new


def relocate(clone: ir.Operation, loc: ir.Location, *, include_root: bool = False) -> None:
    """Give every op of a cloned template (a ``func.func``; nested ops included) the location ``loc``,
    so that errors and debug info point at the op the template replaces (``include_root``: ``clone`` too,
    for a cloned op rather than a function)."""
    started = include_root

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
