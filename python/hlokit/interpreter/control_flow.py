"""Control flow and modularity ops of the reference interpreter.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), the section of each op's name; ``func.call``
follows the MLIR ``func`` dialect.

Ops: ``func.call`` (``func.return`` is the terminator the evaluator reads), ``stablehlo.if``, ``case``
(an out-of-range index runs the last branch), ``while``, ``optimization_barrier``, ``after_all``,
``composite`` (runs its ``decomposition`` function), ``tuple``, ``get_tuple_element``, and the deprecated
``create_token`` (XLA's ``CreateToken``, which StableHLO replaces by ``after_all`` with no operands). ``custom_call`` is dispatched on its target by
:mod:`hlokit.interpreter.custom_call` (an unknown target is an ``InterpreterError``
"unsupported custom_call @name").

Regions are given to the semantics functions as Python callables (``branch() -> list of values``,
``cond(values) -> [0-d bool]``, ``body(values) -> list of values``); the adapters build them from the op's
regions with ``interp.eval_region``. Values are numpy arrays, :class:`~hlokit.interpreter.values.Token`
and Python tuples.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.registry import OpImpl, prepared, register
from hlokit.interpreter.values import TOKEN, Token, Value

__all__ = [
    "if_",
    "case",
    "while_",
    "optimization_barrier",
    "after_all",
    "tuple_",
    "get_tuple_element",
]

Branch = Callable[[], Sequence[Value]]


def if_(pred: np.ndarray, true_branch: Branch, false_branch: Branch) -> list[Value]:
    """Spec ``if``: the results of ``true_branch()`` when the 0-d i1 ``pred`` is true, else of
    ``false_branch()``; only the chosen branch runs."""
    return list(true_branch() if bool(np.asarray(pred)) else false_branch())


def case(index: np.ndarray, branches: Sequence[Branch]) -> list[Value]:
    """Spec ``case``: the results of ``branches[index]()`` for the 0-d si32 ``index``; an index outside
    ``[0, size(branches))`` runs the last branch. Only the chosen branch runs."""
    i = int(np.asarray(index))
    if i < 0 or i >= len(branches):
        i = len(branches) - 1
    return list(branches[i]())


class LoopLimitError(Exception):
    """A ``while`` ran ``limit`` iterations and its condition was still true."""

    def __init__(self, limit: int):
        super().__init__(limit)
        self.limit = limit


def while_(
    operand: Sequence[Value],
    cond: Callable[[list[Value]], Sequence[Value]],
    body: Callable[[list[Value]], Sequence[Value]],
    max_iterations: int | None = None,
    *,
    compiled: Callable[[], Callable[[list[Value], int | None], Sequence[Value]]] | None = None,
    compile_after: int = 0,
) -> list[Value]:
    """Spec ``while``: ``results = operand``; while ``cond(results)[0]`` (a 0-d i1) is true,
    ``results = body(results)`` (the regions take the list of their arguments' values). Runs the body
    zero or more times. The spec leaves an infinite loop undefined (TBD); with ``max_iterations`` the loop
    raises :class:`LoopLimitError` after that many runs of the body instead of never returning.

    ``compiled``: a function that makes the same loop as one function ``run(results, limit) -> results`` (the
    interpreter's two regions compiled together, :meth:`~hlokit.interpreter.evaluator.Interpreter.compiled_loop`;
    ``limit``: what is left of ``max_iterations``). The first ``compile_after`` iterations run through ``cond``
    and ``body``, the rest in ``run``; ``compiled`` is called only when the loop gets that far."""
    results = list(operand)
    if compiled is not None:
        n = 0
        while n < compile_after and cond(results)[0]:
            if max_iterations is not None and n >= max_iterations:
                raise LoopLimitError(max_iterations)
            results = body(results)
            n += 1
        if n < compile_after:  # (the condition was false)
            return list(results)
        try:
            return list(compiled()(results, None if max_iterations is None else max_iterations - n))
        except LoopLimitError:  # (raised with what was left of the limit)
            raise LoopLimitError(max_iterations) from None
    if max_iterations is None:  # (no count to keep)
        while cond(results)[0]:  # (a 0-d bool array is true or false)
            results = body(results)
        return list(results)
    n = 0
    while cond(results)[0]:
        if n >= max_iterations:
            raise LoopLimitError(max_iterations)
        results = body(results)
        n += 1
    return list(results)


def optimization_barrier(operand: Sequence[Value]) -> list[Value]:
    """Spec ``optimization_barrier``: the identity on its operands (tensors, tokens, tuples)."""
    return list(operand)


def after_all(inputs: Sequence[Token]) -> Token:
    """Spec ``after_all``: a token after all ``inputs`` tokens (which the sequential interpreter has
    already produced); it does nothing else."""
    return TOKEN


def tuple_(val: Sequence[Value]) -> tuple:
    """Spec ``tuple``: the Python tuple of ``val``."""
    return tuple(val)


def get_tuple_element(operand: tuple, index: int) -> Value:
    """Spec ``get_tuple_element``: ``operand[index]``."""
    return operand[int(index)]


# ----------------------------------------------------------------------------------------------------------
# Adapters
# ----------------------------------------------------------------------------------------------------------


def _branch(interp, region: ir.Region) -> Branch:
    return lambda: interp.eval_region(region, [])


@register("func.call")
def _call(op, operands, interp):
    return list(interp.call(attributes.str_value(op, "callee"), list(operands)))


@register("stablehlo.composite")
def _composite(op, operands, interp):
    return list(interp.call(attributes.str_value(op, "decomposition"), list(operands)))


@register("stablehlo.if")
def _if(op, operands, interp):
    return if_(operands[0], _branch(interp, op.regions[0]), _branch(interp, op.regions[1]))


@register("stablehlo.case")
def _case(op, operands, interp):
    return case(operands[0], [_branch(interp, r) for r in op.regions])


def _prepare_while(op):
    loop = None  # the op's loop compiled as one function, once it has run COMPILE_AFTER iterations

    def adapter(op, operands, interp):
        regions = op.regions
        limit = interp.max_loop_iterations
        try:
            if loop is not None:  # (an earlier run compiled it: the whole loop runs compiled)
                return loop(interp, list(operands), limit)

            def compiled():
                nonlocal loop
                if loop is None:  # (another process of a grid, sharing the plan, may have compiled it meanwhile)
                    loop = interp.compiled_loop(regions[0], regions[1], LoopLimitError)
                return functools.partial(loop, interp)

            return while_(operands, *interp.loop_functions(regions[0], regions[1], nargs=len(operands)), limit,
                          compiled=compiled, compile_after=interp.compile_after)
        except LoopLimitError as err:
            raise InterpreterError(
                f"'stablehlo.while' ran {err.limit} iterations and its condition is still true "
                "(the limit is --max-steps / interpret(max_steps=...))", op.location) from None

    return OpImpl(adapter)


@register("stablehlo.while")
@prepared(_prepare_while)
def _while(op, operands, interp):
    return _prepare_while(op).run(op, operands, interp)


@register("stablehlo.optimization_barrier")
def _optimization_barrier(op, operands, interp):
    return optimization_barrier(operands)


@register("stablehlo.after_all")
def _after_all(op, operands, interp):
    return [after_all(operands)]


@register("stablehlo.create_token")
def _create_token(op, operands, interp):
    return [after_all([])]


@register("stablehlo.tuple")
def _tuple(op, operands, interp):
    return [tuple_(operands)]


@register("stablehlo.get_tuple_element")
def _get_tuple_element(op, operands, interp):
    return [get_tuple_element(operands[0], attributes.int_value(op, "index"))]
