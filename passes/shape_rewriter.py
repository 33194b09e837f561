"""The rewrite half of ``--shape-legalize-to-stablehlo`` (:mod:`hlokit.passes.shape_legalize_to_stablehlo`).

The pass's planner checks every op of a function and records one :class:`Step` per op it lowers (each
template built and parsed, nothing changed yet); :class:`Rewriter` then carries the plan out: it inlines the
``shape.assuming`` regions, writes each template's ops before the op they replace
(:func:`~hlokit.passes.builder_templates.before_maker`: one ``Operation.create`` per written op), maps
every original shape value to its lowered value (``builtin.unrealized_conversion_cast`` where a value
comes from outside the lowered computation or is still used by an op the pass does not lower, as in MLIR's
dialect conversion), patches the shape operands of StableHLO ops and erases the lowered ops, last first.

Speed (issue 40, item 1): the planner hands over what it already read from the bindings (each op's
results, each template's maker), so the rewrite reads no op twice; a constant is made where it is first
needed (``lazy``), and only a result that is still used after its users were rewritten costs a cast.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from jaxlib.mlir import ir

from hlokit.diagnostics import PassError
from hlokit.passes.builder import body_ops, unrealized_cast
from hlokit.passes.shape_escapes import index_typed

__all__ = ["Step", "Rewriter", "step_results"]


class Step(NamedTuple):
    """One planned rewrite: ``kind`` is ``template`` (``make(args' lowered values, op)`` writes the clone of
    ``template`` before ``op``: :func:`~hlokit.passes.builder_templates.before_maker`), ``alias`` (results
    are ``args``' values), ``erase``, ``assuming`` (inline) or ``patch`` (operands ``patch`` of a StableHLO
    op get their lowered values). ``results``: ``op``'s results, read once by the planner (None: read by
    the rewriter). ``lazy``: a constant, made where a rewritten op first needs it. (A named tuple: one is
    made per planned op, which the planner's hot path does with ``tuple.__new__`` and the rewriter unpacks
    in one step.)"""

    op: ir.Operation
    kind: str
    args: Sequence[ir.Value] = ()
    template: ir.Operation | None = None
    make: Callable | None = None
    patch: tuple[int, ...] = ()
    lazy: bool = False
    results: Sequence[ir.Value] | None = None


class Rewriter:
    """Carries out the steps of a planner of :mod:`hlokit.passes.shape_legalize_to_stablehlo` (its ``steps``,
    ``low``, ``is_data`` and ``lowered``) on the function it planned."""

    def __init__(self, planner, context: ir.Context):
        self.p = planner
        self.context = context
        self.new: dict[ir.Value, ir.Value] = {}  # original value -> lowered value
        self.replaced: dict[ir.Value, ir.Value] = {}  # shape.assuming result -> the value it yields
        self.lazy: dict[ir.Value, Step] = {}  # results of constant templates not made yet
        self.block_casts: dict[ir.Block, ir.Operation] = {}  # last cast of a block argument per block

    def value(self, v: ir.Value, user: ir.Operation) -> ir.Value:
        """The lowered value of original ``v`` (a cast of it where it comes from outside)."""
        replaced = self.replaced
        while replaced and v in replaced:  # a result of an inlined shape.assuming
            v = replaced[v]
        hit = self.new.get(v)
        if hit is not None:
            return hit
        step = self.lazy.pop(v, None)
        if step is not None:  # a constant, made where it is first needed (at its own op)
            for r, out in zip(step_results(step), step.make([], step.op)):
                self.new[r] = out
            return self.new[v]
        if self.p.is_data(v):
            self.new[v] = v  # (a data tensor is its own lowered value: asked once)
            return v
        lo = self.p.lowered(v, user)
        with self.context:
            to = ir.Type.parse(lo.ty)
            owner = v.owner
            if isinstance(owner, ir.Block):
                last = self.block_casts.get(owner)
                ip = ir.InsertionPoint.after(last) if last is not None else ir.InsertionPoint.at_block_begin(owner)
                first = next(iter(owner.operations), None)
                loc = first.location if first is not None else user.location
            else:
                ip = ir.InsertionPoint.after(owner)
                loc = owner.location
            out = unrealized_cast(v, to, ip, loc)
            if isinstance(owner, ir.Block):
                self.block_casts[owner] = out.owner
        self.new[v] = out
        return out

    def run(self) -> None:
        """Inline the ``shape.assuming`` regions, write every step's ops and values in plan order, then
        rewire the results still used and erase the lowered ops (last first)."""
        steps = self.p.steps
        for step in steps:  # inline the assuming regions first (their ops are planned in order)
            if step.kind == "assuming":
                op = step.op
                body = body_ops(op)
                for inner in body[:-1]:
                    inner.move_before(op)
                for r, v in zip(op.results, body[-1].operands):
                    r.replace_all_uses_with(v)
                    self.replaced[r] = v
        new, lazy, value = self.new, self.lazy, self.value
        get = new.get
        for step in steps:
            op, kind, args, _, make, patch, is_lazy, rs = step
            if is_lazy:
                for r in rs:
                    lazy[r] = step
            elif kind == "template":  # (a Value is never false; one or two arguments without a comprehension)
                n = len(args)
                if n == 1:
                    a = args[0]
                    outs = make([get(a) or value(a, op)], op)
                elif n == 2:
                    a, b = args
                    outs = make([get(a) or value(a, op), get(b) or value(b, op)], op)
                else:
                    outs = make([get(a) or value(a, op) for a in args], op)
                for r, v in zip(rs, outs):
                    new[r] = v
            elif kind == "alias":
                a = args[0]
                x = get(a)
                new[step_results(step)[0]] = value(a, op) if x is None else x
            elif kind == "patch":
                operands = op.operands
                for i in patch:
                    operands[i] = value(operands[i], op)
        for step in reversed(steps):
            op, kind, _, _, _, _, _, rs = step
            if kind == "patch":
                continue
            keep = False
            for r in (rs if rs is not None else step_results(step)):
                for _ in r.uses:  # (still used: by an op this pass does not rewrite)
                    break
                else:
                    continue
                v = get(r)
                if v is None and r in lazy:
                    if not index_typed(r.type):  # a scalar constant only other ops use: kept
                        keep = True
                        continue
                    v = value(r, op)
                if v is None:  # only witnesses lack a lowered value: the planner refused other users
                    raise PassError(f"internal error: '{op.name}' result still used", op.location)
                if v.type != r.type:
                    with self.context:
                        v = unrealized_cast(v, r.type, ir.InsertionPoint(op), op.location)
                r.replace_all_uses_with(v)
            if not keep:
                op.erase()


def step_results(step: Step) -> Sequence[ir.Value]:
    """The results of ``step``'s op (as the planner read them, or read now)."""
    rs = step.results
    return list(step.op.results) if rs is None else rs
