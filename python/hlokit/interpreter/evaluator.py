"""The walker of the hlokit interpreter: bind SSA values, walk the ops in order, evaluate each op.

The walker follows the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md).

:class:`Interpreter` evaluates functions and regions of an ``ir.Module``: it binds block arguments to
runtime values (:mod:`hlokit.interpreter.values`), walks the block's ops in order, calls each op's
adapter from :data:`~hlokit.interpreter.registry.OPS` with the values of its operands, binds the
results, and returns the values of the terminator (``func.return`` / ``stablehlo.return``).

Regions are evaluated on whole arrays: an adapter such as ``reduce`` or ``map`` calls
:meth:`Interpreter.eval_region` once with array arguments of any shape, and the elementwise ops of
the body (written for 0-d tensors) broadcast over them.

Each block is compiled once into a plan (adapter, op, operand and result handles), so loops
(``while`` bodies) pay no MLIR-binding overhead per iteration beyond the dictionary of values.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any, Sequence, TextIO

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.diagnostics import HlokitError, LocatedError
from hlokit.interpreter import registry
from hlokit.interpreter.values import Token, UnsupportedTypeError, Value, matches_type, value_type_str

if TYPE_CHECKING:  # pragma: no cover
    from hlokit.interpreter.process import Process

__all__ = ["Interpreter", "InterpreterError"]


class InterpreterError(LocatedError):
    """A run-time failure of the interpreter: a failed ``check``, an argument that does not match the
    function signature, an unsupported op, or an error the StableHLO spec defines, located at the op.

    ``location`` is the ``ir.Location`` of the op (or None); ``str(err)`` is
    ``FILE:LINE:COL: error: message``.
    """


_TERMINATORS = frozenset({"func.return", "stablehlo.return", "sdy.return"})


def _unsupported(op, operands, interp):
    name = op.operation.name
    raise InterpreterError(f"unsupported op '{name}' in the interpreter", op.location)


class _Plan:
    """One block, compiled: its arguments, steps and terminator operands, with every SSA value
    replaced by a small integer (``ids``: SSA value -> int, shared by the interpreter), so the
    walker's scope is a dict of ints (hashing an ``ir.Value`` goes through the bindings)."""

    __slots__ = ("args", "steps", "returns")

    def __init__(self, block: ir.Block, ids: dict):
        def num(v):
            i = ids.get(v)
            if i is None:
                i = ids[v] = len(ids)
            return i

        self.args = tuple(num(a) for a in block.arguments)
        steps = []
        returns: tuple = ()
        ops = list(block.operations)
        for i, op in enumerate(ops):
            name = op.operation.name
            if name in _TERMINATORS and i == len(ops) - 1:
                returns = tuple(num(v) for v in op.operation.operands)
                break
            adapter = registry.OPS.get(name, _unsupported)
            for wrap in registry.WRAPPERS:  # e.g. quantized types: dequantize -> op -> quantize
                adapter = wrap(op, adapter)
            prepare = getattr(adapter, "prepare", None)
            if prepare is not None:  # an adapter may read its op's attributes once, at plan time
                try:
                    adapter = prepare(op)
                except Exception:  # reported when (if) the op runs
                    pass
            steps.append((
                adapter, op,
                tuple(num(v) for v in op.operation.operands),
                tuple(num(v) for v in op.operation.results),
            ))
        self.steps = steps
        self.returns = returns


class Interpreter:
    """Evaluates the functions of one ``ir.Module``.

    ``probe_dir``: where ``interpreter.probe`` writes its files (None: probes pass values through).
    ``out``: the stream ``interpreter.print`` writes to. ``print_lock`` serialises prints of
    parallel processes (``interpreter.run_parallel``).
    """

    def __init__(
        self,
        module: ir.Module,
        *,
        probe_dir: str | None = None,
        out: TextIO | None = None,
        print_dense: bool = False,
        max_steps: int | None = None,
    ):
        self.module = module
        #: the most iterations one ``stablehlo.while`` may run (None: no limit); beyond it the loop is an
        #: InterpreterError at the op, so a loop that never ends does not hang the caller.
        self.max_loop_iterations = max_steps
        self.probe_dir = probe_dir
        self.out = out if out is not None else sys.stdout
        self.print_dense = print_dense
        self.print_lock = threading.Lock()
        self.functions: dict[str, ir.OpView] = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.functions[attributes.str_value(op, "sym_name")] = op
        self._plans: dict[Any, _Plan] = {}
        self._ids: dict[ir.Value, int] = {}
        self._plan_lock = threading.Lock()
        self._frames: list[dict] = []
        #: this interpreter's :class:`~hlokit.interpreter.process.Process` while it runs as one process of
        #: a grid (``interpreter.run_parallel``); None for a plain run.
        self.process: Process | None = None
        #: probe_id -> number of times it was probed (``interpreter.probe`` / ``expect_serialized_eq``).
        self.probe_counts: dict[str, int] = {}
        self.probe_lock = threading.Lock()

    # --------------------------------------------------------------------------------------------

    def fork(self) -> "Interpreter":
        """A new interpreter over the same module sharing plans, probes and output (one per thread)."""
        child = Interpreter.__new__(Interpreter)
        child.__dict__.update(self.__dict__)
        child._frames = []
        child.process = None
        return child

    def function(self, name: str) -> ir.OpView:
        """The ``func.func`` named ``name``; :class:`InterpreterError` when there is none."""
        try:
            return self.functions[name]
        except KeyError:
            raise InterpreterError(f"function '@{name}' not found in the module", self.module.operation.location) from None

    def call(self, name: str, args: Sequence[Value], *, check_args: bool = True) -> list[Value]:
        """Evaluate function ``@name`` on ``args`` (a new scope), returning its results.

        Raises :class:`InterpreterError` when the arguments do not match the signature.
        """
        func = self.function(name)
        region = func.operation.regions[0]
        if not region.blocks:
            raise InterpreterError(f"function '@{name}' has no body", func.location)
        if check_args:
            check_arguments(func, args)
        self._frames.append({})
        try:
            return self._eval_block(region.blocks[0], args)
        finally:
            self._frames.pop()

    def eval_region(self, region: ir.Region, args: Sequence[Value]) -> list[Value]:
        """Evaluate ``region`` (one block) with its block arguments bound to ``args``.

        Values defined above the region are visible (same scope as the enclosing op); returns the
        values of the terminator's operands (``stablehlo.return`` / ``func.return``).
        """
        plan = self._plans.get(region)
        if plan is None:
            blocks = region.blocks
            if len(blocks) != 1:
                raise InterpreterError("the interpreter supports regions of exactly one block", region.owner.location)
            plan = self._plans[region] = self._plan(blocks[0])
        if not self._frames:
            self._frames.append({})
        return self._run(plan, args, region)

    def lookup(self, value: ir.Value) -> Value:
        """The runtime value bound to an SSA value in the current scope."""
        return self._frames[-1][self._ids[value]]

    # --------------------------------------------------------------------------------------------

    def _plan(self, block: ir.Block) -> _Plan:
        plan = self._plans.get(block)
        if plan is None:
            with self._plan_lock:
                plan = self._plans[block] = _Plan(block, self._ids)
        return plan

    def _eval_block(self, block: ir.Block, args: Sequence[Value]) -> list[Value]:
        return self._run(self._plan(block), args, block.region)

    def _run(self, plan: _Plan, args: Sequence[Value], region: ir.Region) -> list[Value]:
        env = self._frames[-1]
        if len(args) != len(plan.args):
            raise InterpreterError(
                f"region expects {len(plan.args)} arguments, got {len(args)}", region.owner.location
            )
        for a, v in zip(plan.args, args):
            env[a] = v
        for adapter, op, operands, results in plan.steps:
            try:
                values = [env[v] for v in operands]
                outs = adapter(op, values, self)
            except InterpreterError as err:
                raise err.locate(op.location) from None
            except HlokitError:
                raise
            except KeyError as err:
                if isinstance(err.args[0] if err.args else None, int):
                    raise InterpreterError(f"'{op.operation.name}' uses a value that has no runtime value", op.location) from None
                raise InterpreterError(f"'{op.operation.name}': internal error: KeyError: {err}", op.location) from None
            except UnsupportedTypeError as err:
                raise InterpreterError(f"'{op.operation.name}': {err}", op.location) from None
            except RecursionError:
                raise InterpreterError(f"'{op.operation.name}': recursion too deep", op.location) from None
            except MemoryError as err:  # numpy refuses before allocating: "Unable to allocate 3.55 PiB ..."
                raise InterpreterError(f"'{op.operation.name}': out of memory: {err}", op.location) from None
            except Exception as err:  # numpy errors etc.: located, never a traceback
                raise InterpreterError(
                    f"'{op.operation.name}': internal error: {type(err).__name__}: {err}", op.location
                ) from err
            if len(outs) != len(results):
                raise InterpreterError(
                    f"'{op.operation.name}': interpreter produced {len(outs)} results, the op has {len(results)}",
                    op.location,
                )
            for r, v in zip(results, outs):
                env[r] = v
        return [env[v] for v in plan.returns]


def check_arguments(func: ir.OpView, args: Sequence[Value]) -> None:
    """Raise :class:`InterpreterError` (at the function) unless ``args`` match ``func``'s signature."""
    ftype = ir.FunctionType(attributes.type_value(func, "function_type"))
    name = attributes.str_value(func, "sym_name")
    inputs = ftype.inputs
    if len(args) != len(inputs):
        raise InterpreterError(
            f"function '@{name}' takes {len(inputs)} arguments, got {len(args)}", func.location
        )
    for i, (a, t) in enumerate(zip(args, inputs)):
        if not matches_type(a, t):
            got = value_type_str(a) if isinstance(a, (np.ndarray, tuple, Token)) else type(a).__name__
            raise InterpreterError(
                f"argument #{i} of function '@{name}' has type {got}, the signature expects {t}",
                func.location,
            )
