"""The interpreter of hlokit: :class:`Interpreter` (functions, regions, frames) and its plain walker.

The walker follows the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md).

:class:`Interpreter` evaluates functions and regions of an ``ir.Module`` through an *executor*:

* :class:`PlainWalker` (``executor="plain"``): binds block arguments to runtime values
  (:mod:`hlokit.interpreter.values`), walks the block's ops in order, calls each op's adapter (the ``run`` of its
  :class:`~hlokit.interpreter.registry.OpImpl`) with the values of its operands, binds the results, and returns
  the values of the terminator (``func.return`` / ``stablehlo.return``). Nothing else: no plans, no folding, no
  kernels, no generated code. It is the reference the compiled executor is tested against.
* :class:`~hlokit.interpreter.compiled.CompiledExecutor` (``executor="compiled"``, the default): the same
  semantics, planned once per block, walked as steps and compiled to Python (see that module).

The environment variable ``HLOKIT_INTERPRETER_EXECUTOR`` (``plain`` or ``compiled``) picks the executor of every
interpreter made without an ``executor`` argument (``hlokit.interpret``, ``hlokit-translate --interpret``,
``hlokit-run --engine interpreter``).

Regions are evaluated on whole arrays: an adapter such as ``reduce`` or ``map`` calls
:meth:`Interpreter.eval_region` once with array arguments of any shape, and the elementwise ops of
the body (written for 0-d tensors) broadcast over them.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from typing import TYPE_CHECKING, Callable, Sequence, TextIO

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.interpreter import registry
from hlokit.interpreter.compiled import CompiledExecutor, single_block
from hlokit.interpreter.errors import InterpreterError, NeedsLegalization, ResultCountError, reraise
from hlokit.interpreter.registry import TERMINATORS
from hlokit.interpreter.values import Token, Value, matches_type, value_type_str

if TYPE_CHECKING:  # pragma: no cover
    from hlokit.interpreter.process import Process

__all__ = ["EXECUTOR_ENV", "Interpreter", "InterpreterError", "NeedsLegalization", "PlainWalker", "check_arguments"]

#: The environment variable that picks the executor of an :class:`Interpreter` made without ``executor``.
EXECUTOR_ENV = "HLOKIT_INTERPRETER_EXECUTOR"


class PlainWalker:
    """The reference executor: each block's ops walked in order, each op's adapter (``OpImpl.run`` of the op's
    implementation after the interpreter's wrappers and its ``prepare``, which reads the op once and holds its
    state, e.g. an ``rng``'s counter) called on the values of its operands: no kernels, specializations,
    plan-time constants or generated code. Values live in the frame of their function
    call (``interp.frames[-1]``: SSA value -> runtime value) until the call returns; a nested region reads and
    writes the frame of its op. A ``while`` never switches to compiled code (:attr:`compile_after` is
    unbounded). Each block's ops and implementations are read once and kept (a loop body runs many times).
    With a ``legalization_check``, every op of the module is checked before the first op runs."""

    #: the name ``Interpreter(executor=...)`` gives it
    name = "plain"
    #: a ``while`` runs every iteration through :meth:`loop_functions`
    compile_after = sys.maxsize

    def __init__(self):
        self.blocks: dict[ir.Block, tuple] = {}
        self.checked = False

    def call(self, interp, region: ir.Region, args: Sequence[Value]) -> list[Value]:
        """Run a function's body ``region`` on ``args`` in a new frame of ``interp``."""
        if not self.checked and interp.legalization_check is not None:
            self._check(interp)
        block = single_block(region)
        frames = interp.frames
        frames.append({})
        try:
            return self.walk(interp, block, args, frames[-1])
        finally:
            frames.pop()

    def region_function(self, interp, region: ir.Region) -> Callable[..., list[Value]]:
        """See :meth:`Interpreter.region_function`."""
        block = single_block(region)
        env = interp.frame()

        def run(*args):
            return self.walk(interp, block, args, env)

        return run

    def loop_functions(self, interp, regions: Sequence[ir.Region], nargs: int) -> list:
        """See :meth:`Interpreter.loop_functions`."""
        env = interp.frame()
        fns = []
        for region in regions:
            block = single_block(region)
            if len(block.arguments) != nargs:
                raise InterpreterError(f"region expects {len(block.arguments)} arguments, got {nargs}",
                                       region.owner.location)
            fns.append(functools.partial(self._walk_list, interp, block, env))
        return fns

    def compiled_loop(self, interp, cond, body, limit_error):  # pragma: no cover - never asked (compile_after)
        """Not available: the plain walker generates no code."""
        raise InterpreterError("the plain walker compiles no loops", cond.owner.location)

    def eval_region_values(self, interp, region: ir.Region, args: Sequence[Value],
                           values: Sequence[ir.Value]) -> list[Value]:
        """See :meth:`Interpreter.eval_region_values`."""
        env = interp.frame()
        self.walk(interp, single_block(region), args, env)
        return [env[v] for v in values]

    def _walk_list(self, interp, block: ir.Block, env: dict, args: list) -> list[Value]:
        return self.walk(interp, block, args, env)

    def walk(self, interp, block: ir.Block, args: Sequence[Value], env: dict) -> list[Value]:
        """Run ``block`` on ``args``: bind its arguments in ``env``, run each op's adapter in order, bind its
        results, return the terminator's operands' values. Errors are located at the op that raised them."""
        ops, nargs, terminator = self._block(interp, block)
        if len(args) != nargs:
            raise InterpreterError(f"region expects {nargs} arguments, got {len(args)}", block.owner.location)
        env.update(zip(block.arguments, args))
        for op, operation, run in ops:
            try:
                operands = [env[v] for v in operation.operands]
            except KeyError:
                raise InterpreterError(f"'{operation.name}' uses a value that has no runtime value",
                                       op.location) from None
            try:
                results = run(op, operands, interp)
                if len(results) != len(operation.results):
                    raise ResultCountError(len(results))
            except BaseException as err:
                reraise(err, op)
            env.update(zip(operation.results, results))
        if terminator is None:
            return []
        try:
            return [env[v] for v in terminator.operands]
        except KeyError:
            raise InterpreterError("a region uses a value that has no runtime value", None) from None

    def _block(self, interp, block: ir.Block) -> tuple:
        """``(ops, number of arguments, terminator)`` of ``block``: ``ops`` holds ``(op, operation, adapter)``
        per op that is not the terminator."""
        known = self.blocks.get(block)
        if known is None:
            wrappers = interp.wrappers
            ops, terminator = [], None
            for op in block.operations:
                operation = op.operation
                if operation.name in TERMINATORS:
                    terminator = operation
                    continue
                impl = registry.impl_of(op, wrappers)
                if impl.prepare is not None:  # (what it reads of its op, read once; its state, e.g. an rng's counter)
                    try:
                        impl = impl.prepare(op)
                    except Exception:  # (reported when, if, the op runs)
                        pass
                ops.append((op, operation, impl.run))
            known = self.blocks[block] = (ops, len(block.arguments), terminator)
        return known

    def _check(self, interp) -> None:
        """Raise :class:`NeedsLegalization` at the first op of the module that ``interp.legalization_check``
        accepts."""
        check = interp.legalization_check

        def visit(operation) -> None:
            for region in operation.regions:
                for block in region.blocks:
                    for op in block.operations:
                        inner = op.operation
                        if check(inner.name, inner):
                            raise NeedsLegalization(inner.name)
                        visit(inner)

        visit(interp.module.operation)
        self.checked = True


#: executor name -> its class
EXECUTORS = {"plain": PlainWalker, "compiled": CompiledExecutor}


class Interpreter:
    """Evaluates the functions of one ``ir.Module`` (or of the ``builtin.module`` op it holds).

    ``probe_dir``: where ``interpreter.probe`` writes its files (None: probes pass values through).
    ``out``: the stream ``interpreter.print`` writes to. ``print_lock`` serialises prints of
    parallel processes (``interpreter.run_parallel``). ``source_text``: the MLIR text ``module`` was
    parsed from, when there is one (the executors then skip the wrappers, e.g. of quantized types, that the
    program cannot need). ``executor``: ``"compiled"`` (:class:`~hlokit.interpreter.compiled.CompiledExecutor`)
    or ``"plain"`` (:class:`PlainWalker`); None: the environment variable :data:`EXECUTOR_ENV`, else
    ``"compiled"``; ``ValueError`` for another name.
    """

    def __init__(
        self,
        module: ir.Module,
        *,
        probe_dir: str | None = None,
        out: TextIO | None = None,
        print_dense: bool = False,
        max_steps: int | None = None,
        source_text: str | None = None,
        legalization_check: Callable[[str, ir.Operation], bool] | None = None,
        executor: str | None = None,
    ):
        #: the module: an ``ir.Module``, or the ``builtin.module`` op MLIR parsed (api: text run at once)
        self.module = module
        body = module.body if isinstance(module, ir.Module) else module.regions[0].blocks[0]
        #: the plan-time wrappers this module needs (``source_text``: the text it was parsed from, if any,
        #: lets the planner leave out wrappers of types the program never names; registry.wrappers_for)
        self.wrappers = registry.wrappers_for(source_text)
        #: the most iterations one ``stablehlo.while`` may run (None: no limit); beyond it the loop is an
        #: InterpreterError at the op, so a loop that never ends does not hang the caller.
        self.max_loop_iterations = max_steps
        self.probe_dir = probe_dir
        self.out = out if out is not None else sys.stdout
        self.print_dense = print_dense
        self.print_lock = threading.Lock()
        self.functions: dict[str, ir.OpView] = {}
        for op in body.operations:
            if op.operation.name == "func.func":
                self.functions[attributes.str_value(op, "sym_name")] = op
        if executor is None:
            executor = os.environ.get(EXECUTOR_ENV) or "compiled"
        if executor not in EXECUTORS:
            raise ValueError(f"unknown interpreter executor {executor!r} (expected one of {', '.join(EXECUTORS)})")
        #: what runs the blocks: :class:`PlainWalker` or :class:`~hlokit.interpreter.compiled.CompiledExecutor`
        #: (shared by the forks of this interpreter)
        self.executor = EXECUTORS[executor]()
        #: per running function call, the values its nested regions read (the executor's frame)
        self.frames: list[dict] = []
        #: this interpreter's :class:`~hlokit.interpreter.process.Process` while it runs as one process of
        #: a grid (``interpreter.run_parallel``); None for a plain run.
        self.process: Process | None = None
        #: probe_id -> number of times it was probed (``interpreter.probe`` / ``expect_serialized_eq``).
        self.probe_counts: dict[str, int] = {}
        self.probe_lock = threading.Lock()
        #: ``check(op name, op)``, true for an op that one of hlokit's legalization passes must rewrite first:
        #: the planner raises :class:`NeedsLegalization` at such an op, before anything runs (a caller that
        #: has not looked for them: hlokit.interpret of an ``ir.Module``); None: the module is ready.
        self.legalization_check = legalization_check

    # --------------------------------------------------------------------------------------------

    def fork(self) -> "Interpreter":
        """A new interpreter over the same module sharing plans, probes and output (one per thread)."""
        child = Interpreter.__new__(Interpreter)
        child.__dict__.update(self.__dict__)
        child.frames = []
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
        if not self.frames:  # the outermost call: numpy's floating-point warnings off (the spec defines the values)
            with np.errstate(all="ignore"):
                return self.executor.call(self, region, args)
        return self.executor.call(self, region, args)

    def eval_region(self, region: ir.Region, args: Sequence[Value]) -> list[Value]:
        """Evaluate ``region`` (one block) with its block arguments bound to ``args``.

        Values defined above the region are visible (same scope as the enclosing op); returns the
        values of the terminator's operands (``stablehlo.return`` / ``func.return``).
        """
        return self.region_function(region)(*args)

    def region_function(self, region: ir.Region) -> Callable[..., list[Value]]:
        """``region`` (one block) as a function ``f(*args) -> results`` in the current scope: what
        :meth:`eval_region` does, with the region's plan looked up once (loops call it per iteration)."""
        return self.executor.region_function(self, region)

    def loop_functions(self, *regions: ir.Region, nargs: int) -> list[Callable[[list[Value]], list[Value]]]:
        """Each of ``regions`` as a function of the *list* of its block arguments' values in the current scope,
        for a loop that calls them with ``nargs`` values every iteration: the number of arguments is checked
        here, once, not per call."""
        return self.executor.loop_functions(self, regions, nargs)

    @property
    def compile_after(self) -> int:
        """How many iterations a ``while`` runs through :meth:`loop_functions` before :meth:`compiled_loop` (the
        compiled executor: how many times a block runs step by step before it runs as compiled Python; the plain
        walker: never)."""
        return self.executor.compile_after

    def compiled_loop(self, cond: ir.Region, body: ir.Region,
                      limit_error: Callable[[int], BaseException]) -> Callable[..., list[Value]]:
        """The ``while`` loop of the regions ``cond`` and ``body`` (one block each, whose :meth:`loop_functions` have
        run) compiled as one function ``run(interp, values, limit) -> values`` (the compiled executor's): from
        the loop-carried ``values`` it runs ``body`` while ``cond`` is true, in the current scope of ``interp`` (this
        interpreter or a fork of it), and returns the carried values; after ``limit`` runs of the body (None: no
        limit) a true condition raises ``limit_error(limit)``. Errors are located at the op that raised them."""
        return self.executor.compiled_loop(self, cond, body, limit_error)

    def frame(self) -> dict:
        """The current scope's frame (the values nested regions read), made when none is open yet."""
        if not self.frames:
            self.frames.append({})
        return self.frames[-1]

    def eval_region_values(self, region: ir.Region, args: Sequence[Value], values: Sequence[ir.Value]) -> list[Value]:
        """Evaluate ``region`` like :meth:`eval_region` but return the runtime values of the SSA values
        ``values`` of its block (arguments or results of its ops) instead of the terminator's operands."""
        return self.executor.eval_region_values(self, region, args, values)


def check_arguments(func: ir.OpView, args: Sequence[Value]) -> None:
    """Raise :class:`InterpreterError` (at the function) unless ``args`` match ``func``'s signature."""
    ft = attributes.type_value(func, "function_type")
    inputs = (ft if ft.__class__ is ir.FunctionType else ir.FunctionType(ft)).inputs  # (most come downcast)
    if len(args) != len(inputs):
        raise InterpreterError(
            f"function '@{attributes.str_value(func, 'sym_name')}' takes {len(inputs)} arguments, got {len(args)}",
            func.location,
        )
    for i, (a, t) in enumerate(zip(args, inputs)):
        if not matches_type(a, t):
            got = value_type_str(a) if isinstance(a, (np.ndarray, tuple, Token)) else type(a).__name__
            raise InterpreterError(
                f"argument #{i} of function '@{attributes.str_value(func, 'sym_name')}' has type {got}, "
                f"the signature expects {t}",
                func.location,
            )

