"""The planner's walk of ``--shape-legalize-to-stablehlo``, batched per op signature
(:mod:`hlokit.passes.shape_legalize_to_stablehlo`).

Shape computations repeat: a program with dynamic shapes computes the same ``shape.broadcast`` of the same
ranks, the same ``tensor.extract`` at the same constant index, the same ``arith`` on ``index`` over and over.
What the planner decides for such an op (its step: which template, on which of its operands, the lowered
forms of its results) is a function of what its handler reads: the op's name, its operands' types, the
lowered forms the planner gave its operands (constant values included), its result types and whether an
operand is a non-index scalar constant or a ``shape.with_shape`` result. :func:`walk_ops` reads that
signature (a few binding calls), runs the handler on the first op of a signature and replays its outcome on
every later one; what a handler decides from an attribute or from region contents, or with side effects
beyond its op's step and results (constants, witnesses, ``shape.with_shape``, ``shape.assuming``), is not
replayed: those ops always run their handler. A handler that refuses an op raises before anything is
recorded, so a replayed signature is one whose checks passed.

Speed (issue 40, item 1): replaying costs the signature's reads and one dictionary look-up, about half of
what running a handler and building its template key costs.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from jaxlib.mlir import ir

from hlokit.passes.shape_escapes import MAY_MAKE_SHAPE_VALUES, has_shape_typed, result_types
from hlokit.passes.shape_rewriter import Step

__all__ = ["walk_ops", "NOT_LOWERED"]

#: The lowered form of an operand the planner has none for (a data tensor, a function argument).
NOT_LOWERED = object()
_NOTHING = ("nothing",)  # the outcome of an op that the handler leaves as it is
_UNREPLAYABLE = ("unreplayable",)  # a signature whose outcome is not a replayable one step (run the handler)
_new_step = tuple.__new__


def _signature(p, name: str, operands: list[ir.Value], results: list[ir.Value]) -> tuple:
    """What the handlers of ``name`` read of an op (see the module docstring): one flat tuple, spelled out
    for the usual one or two operands and one result (a comprehension costs more than the reads)."""
    low_get = p.low.get
    consts, value_of = p.scalar_consts, p.value_of
    if len(results) == 1 and not consts and not value_of:
        if len(operands) == 2:
            a, b = operands
            return (name, a.type, b.type, low_get(a, NOT_LOWERED), low_get(b, NOT_LOWERED), results[0].type)
        if len(operands) == 1:
            a = operands[0]
            return (name, a.type, low_get(a, NOT_LOWERED), results[0].type)
    return (name, tuple([v.type for v in operands]), tuple([low_get(v, NOT_LOWERED) for v in operands]),
            tuple([r.type for r in results]), tuple([v in consts for v in operands]) if consts else (),
            tuple([v in value_of for v in operands]) if value_of else ())


def _outcome(p, op: ir.Operation, operands: list[ir.Value], results: list[ir.Value], first: int):
    """The replayable outcome of the handler that just ran on ``op`` (its steps from ``first`` on), or None:
    ``(kind, where, template, make, patch, lazy, lows, with_results)``, ``where`` the positions of the step's
    arguments among the operands (None: all of them, in order), ``lows`` the results' lowered forms."""
    made = p.steps[first:]
    if not made:
        return None if any(r in p.low for r in results) else _NOTHING
    if len(made) != 1 or made[0].op is not op:
        return None
    step = made[0]
    where = []
    for a in step.args:  # (each argument is one of the op's operands: its position)
        for i, v in enumerate(operands):
            if v == a:
                where.append(i)
                break
        else:
            return None
    lows = tuple([p.low.get(r, NOT_LOWERED) for r in results])
    return (step.kind, None if where == list(range(len(operands))) else tuple(where), step.template, step.make,
            step.patch, step.lazy, lows, step.results is not None)


def _operands(op: ir.Operation) -> list[ir.Value]:
    """``list(op.operands)``, one or two of them read by index (a fifth cheaper than the list's iterator)."""
    xs = op.operands
    n = len(xs)
    if n == 2:
        return [xs[0], xs[1]]
    return [xs[0]] if n == 1 else list(xs)


def walk_ops(p, ops: Sequence[ir.Operation], handlers: Mapping[str, Callable], replayable: frozenset) -> None:
    """Plan every op of ``ops`` (one region's, in order) on planner ``p``: ops named in ``replayable`` by
    their signature's recorded outcome (the handler, or ``p.visit``, on a signature's first op), the others
    by their handler or ``p.visit``; the witness check after each. Sets ``p.shape_typed`` when an op that
    may make a ``!shape.*`` value (:data:`~hlokit.passes.shape_escapes.MAY_MAKE_SHAPE_VALUES`) does."""
    get = handlers.get
    low, steps, outcomes = p.low, p.steps, p.outcomes
    for op in ops:
        name = op.name
        handler = get(name)
        if name in replayable:
            operands = _operands(op)
            try:
                results = [op.result]
            except Exception:  # (not exactly one result: a ValueError in jaxlib 0.10)
                results = list(op.results)
            key = _signature(p, name, operands, results)
            hit = outcomes.get(key)
            if hit is None or hit is _UNREPLAYABLE:
                first, state = len(steps), (p.has_none, len(p.scalar_consts), len(p.value_of))
                if handler is None:
                    p.visit(op)  # (checks the witnesses itself)
                else:
                    p.name = name
                    handler(p, op)
                    if p.has_none:
                        p.check_witnesses(op, name)
                if hit is None:
                    same = state == (p.has_none, len(p.scalar_consts), len(p.value_of))
                    hit = _outcome(p, op, operands, results, first) if same else None
                    outcomes[key] = _UNREPLAYABLE if hit is None else hit
            elif hit is _NOTHING:
                if p.has_none:
                    p.check_witnesses(op, name)
            else:
                kind, where, template, make, patch, lazy, lows, with_results = hit
                for r, lo in zip(results, lows):
                    if lo is not NOT_LOWERED:
                        low[r] = lo
                steps.append(_new_step(Step, (op, kind, operands if where is None else [operands[i] for i in where],
                                              template, make, patch, lazy, results if with_results else None)))
                if p.has_none:
                    p.check_witnesses(op, name)
                continue  # (the signature's first op, in this planner, set p.shape_typed for its result types)
        elif handler is None:
            p.visit(op)
        else:
            p.name = name
            handler(p, op)
            if p.has_none:
                p.check_witnesses(op, name)
        if not p.shape_typed and name.startswith(MAY_MAKE_SHAPE_VALUES):
            p.shape_typed = has_shape_typed(result_types(op))
