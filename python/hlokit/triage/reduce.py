"""The test-case reducer's driver: shrink a program while a test still holds (``hlokit.reduce``, ``hlokit-reduce``).

The conventions are LLVM's ``mlir-reduce`` (https://mlir.llvm.org/docs/Tools/MLIRReduce/): a *test* says
whether a candidate is still interesting (:mod:`hlokit.triage.predicates`); the reducer only ever keeps a
candidate the test holds on, so the program it ends with shows the problem the input showed. The rewrites it
tries are the reductions of :mod:`hlokit.triage.reductions` (each names its ``sites`` in a module and
``apply``-s itself at some of them to a fresh copy).

The search is greedy, to a fixpoint, with delta debugging's chunking (Zeller and Hildebrandt, "Simplifying and
Isolating Failure-Inducing Input", IEEE TSE 2002): for each reduction in :data:`REDUCTIONS` order, try all its
sites at once, then halves, quarters, ... down to single sites; an accepted candidate becomes the current
program, the reduction's sites are recomputed on it and the next chunk, from the same position, is twice as
large (a success suggests its neighbours go too; the chunk never exceeds the sites left). While the sites
split into 3 to 8 chunks and no chunk is accepted, the complements are tried too (all sites but one chunk:
delta debugging's "reduce to complement", for when one site the test needs spoils every large chunk). After each round of all reductions, upstream's
``canonicalize`` and ``cse`` run on a copy (through :func:`hlokit.passes.pipeline.run_pipeline`), kept when
the test holds on it. Rounds repeat until one accepts nothing (or a budget, ``max_time`` / ``max_tests``, is
spent: the result is then the smallest program found so far, which the test held on).

A candidate is kept only when it verifies, passes the test's quick ``precheck`` (when the test has one: e.g.
``engines-differ`` refuses order-dependent reducer bodies in this process, before compiling anything), the test
holds on it, and it is *smaller* than the current program:
fewer ops other than constants, or as many and fewer ops, or as many and a shorter text (the measure strictly
decreases, so the search ends). The ops counted (:func:`count_ops`) are those inside functions but the
terminators (``func.return``, ``stablehlo.return``, ...). Each distinct candidate text is tested once (a
cache); everything is deterministic but the budgets' time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import time
from typing import Callable, Sequence

from jaxlib.mlir import ir

from hlokit.core import load, print_module
from hlokit.diagnostics import HlokitError

__all__ = ["reduce", "ReduceResult", "ReduceError", "count_ops", "CLEANUP_PIPELINE"]

#: What runs between rounds (upstream passes, through hlokit's pipeline runner).
CLEANUP_PIPELINE = "canonicalize,cse"
#: Complements (all sites but one chunk) are tried while the sites split into at most this many chunks.
_MAX_COMPLEMENTS = 8
_NOT_COUNTED = frozenset({"builtin.module", "func.func"})
_CONSTANTS = frozenset({"stablehlo.constant", "arith.constant", "chlo.constant"})


class ReduceError(HlokitError):
    """The reducer cannot start or finish: the test does not hold on the input, the test cannot be run, the
    test is not deterministic."""


@dataclasses.dataclass
class ReduceResult:
    """What :func:`reduce` returns.

    ``module``: the reduced program (a new ``ir.Module`` in the input's context; the test held on it);
    ``text``: its text as the test saw it (MLIR's pretty form); ``ops_before`` / ``ops_after``:
    :func:`count_ops` of the input and of the result; ``tests``: how many times the test ran (the input and the
    final confirmation included, cached candidates not); ``seconds``: wall time; ``accepted``: candidates kept,
    ``by_reduction``: how many of them each reduction (and ``"canonicalize,cse"``) gave; ``rounds``: rounds
    run; ``stopped``: ``None`` at a fixpoint, else the budget that ended the search (``"max-time"``,
    ``"max-tests"``); ``rejected``: candidates dropped before the test (the reduction did not apply, raised, or
    the result did not verify)."""

    module: ir.Module
    text: str
    ops_before: int
    ops_after: int
    tests: int
    seconds: float
    accepted: int = 0
    by_reduction: dict = dataclasses.field(default_factory=dict)
    rounds: int = 0
    stopped: str | None = None
    rejected: int = 0

    def summary(self) -> str:
        """One line: ``ops A -> B, T tests, S s`` (and the budget that stopped it)."""
        why = f", stopped by {self.stopped}" if self.stopped else ""
        return (f"{self.ops_before} -> {self.ops_after} ops, {self.tests} tests, {self.seconds:.1f} s, "
                f"{self.rounds} round(s){why}")


def count_ops(module: ir.Module | ir.Operation) -> int:
    """The ops of ``module`` the reducer counts: every op nested in it but ``builtin.module``, ``func.func``
    and block terminators without results (``func.return``, ``stablehlo.return``, ...)."""
    return _counts(module)[0]


def _counts(module) -> tuple[int, int]:
    """(ops counted, of them constants)."""
    counted = constants = 0

    def visit(op: ir.Operation) -> None:
        nonlocal counted, constants
        for region in op.regions:
            for block in region.blocks:
                ops = list(block.operations)
                for i, child in enumerate(ops):
                    child = child.operation
                    name = child.name
                    terminal = i == len(ops) - 1 and len(child.results) == 0 and name.endswith("return")
                    if name not in _NOT_COUNTED and not terminal:
                        counted += 1
                        constants += name in _CONSTANTS
                    visit(child)

    visit(module.operation)
    return counted, constants


class _Budget(Exception):
    """A budget is spent (internal)."""


def _measure(module: ir.Module, text: str) -> tuple[int, int, int]:
    counted, constants = _counts(module)
    return counted - constants, counted, len(text)


class _Reducer:
    def __init__(self, module: ir.Module, predicate, *, max_time, max_tests, progress, reductions, cleanup):
        self.context = module.context
        self.predicate = predicate
        self.max_time = max_time
        self.max_tests = max_tests
        self.progress = progress
        self.reductions = reductions
        self.cleanup = cleanup
        self.start = time.monotonic()
        self.tests = 0
        self.accepted = 0
        self.rejected = 0
        self.rounds = 0
        self.by_reduction: dict[str, int] = {}
        self.cache: dict[bytes, bool] = {}
        self.current = self._clone(module)
        self.text = print_module(self.current)
        self.measure = _measure(self.current, self.text)
        self.ops_before = self.measure[1]
        self.stage = "input"
        self._last_progress = 0.0

    # -- copies and tests ------------------------------------------------------------------------------------
    def _clone(self, module: ir.Module) -> ir.Module:
        text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        return ir.Module.parse(text, self.context)

    def _run_test(self, module: ir.Module, text: str, *, use_cache: bool = True) -> bool:
        key = hashlib.sha256(text.encode()).digest()
        if use_cache and key in self.cache:
            return self.cache[key]
        if self.stage != "input":  # the input is always tested
            self._check_budget()
        self.tests += 1
        if hasattr(self.predicate, "test_text"):
            holds = bool(self.predicate.test_text(text))
        else:
            try:
                holds = bool(self.predicate(module))
            except Exception as err:  # a user's predicate raising on a candidate: not interesting
                if self.stage == "input":
                    raise ReduceError(f"the predicate raised {type(err).__name__} on the input: {err}") from None
                holds = False
        fatal = getattr(self.predicate, "fatal", None)
        if fatal:
            raise ReduceError(fatal)
        self.cache[key] = holds
        return holds

    def _check_budget(self) -> None:
        if self.max_tests is not None and self.tests >= self.max_tests:
            raise _Budget("max-tests")
        if self.max_time is not None and time.monotonic() - self.start >= self.max_time:
            raise _Budget("max-time")

    def _offer(self, candidate: ir.Module, why: str) -> bool:
        """Keep ``candidate`` when it verifies, is smaller and the test holds on it."""
        try:
            if not candidate.operation.verify():
                self.rejected += 1
                return False
            text = print_module(candidate, assume_verified=True)
        except Exception:  # noqa: BLE001 - ir.MLIRError: it does not verify
            self.rejected += 1
            return False
        measure = _measure(candidate, text)
        if measure >= self.measure:
            return False
        if hasattr(self.predicate, "precheck") and not self.predicate.precheck(candidate):
            self.rejected += 1
            return False
        if not self._run_test(candidate, text):
            return False
        self.current, self.text, self.measure = candidate, text, measure
        self.accepted += 1
        self.by_reduction[why] = self.by_reduction.get(why, 0) + 1
        self._report()
        return True

    def _report(self, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        if not force and now - self._last_progress < 1.0:
            return
        self._last_progress = now
        self.progress(f"{self.measure[1]} ops left (from {self.ops_before}), {self.tests} tests, "
                      f"{now - self.start:.1f} s [round {self.rounds}, {self.stage}]")

    # -- the search ------------------------------------------------------------------------------------------
    def _try(self, reduction, sites: Sequence) -> bool:
        from hlokit.triage import reductions as lib

        if self.max_time is not None and time.monotonic() - self.start >= self.max_time:
            raise _Budget("max-time")
        candidate = self._clone(self.current)
        try:
            reduction.apply(candidate, list(sites))
        except lib.ReductionNotApplicable:
            self.rejected += 1
            return False
        except Exception:  # noqa: BLE001 - a reduction that cannot handle this program: skip the candidate
            self.rejected += 1
            return False
        return self._offer(candidate, reduction.name)

    def _sites(self, reduction) -> list:
        try:
            return list(reduction.sites(self.current))
        except Exception:  # noqa: BLE001 - a reduction that cannot read this program offers nothing
            return []

    def _with(self, reduction) -> bool:
        """ddmin-style chunking of one reduction's sites; whether anything was accepted."""
        self.stage = reduction.name
        changed = False
        sites = self._sites(reduction)
        chunk = len(sites)
        while chunk >= 1 and sites:
            progressed = False
            i = 0
            while i < len(sites):
                if self._try(reduction, sites[i:i + chunk]):
                    changed = progressed = True
                    sites = self._sites(reduction)  # the sites after the accepted ones move down to i
                    # a success suggests the sites around are removable too: try twice as many next
                    chunk = max(1, min(chunk * 2, len(sites) - i))
                    continue
                i += chunk
            if not progressed and sites and 3 <= -(-len(sites) // chunk) <= _MAX_COMPLEMENTS:
                # delta debugging's complements: every site but one chunk (one site the test needs, say the
                # op that shows the bug, spoils every large chunk that holds it)
                for i in range(0, len(sites), chunk):
                    rest = sites[:i] + sites[i + chunk:]
                    if self._try(reduction, rest):
                        changed = progressed = True
                        sites = self._sites(reduction)
                        break
                if progressed:
                    chunk = len(sites)  # start again on what is left
                    continue
            chunk //= 2
        return changed

    def _clean(self) -> bool:
        from hlokit.passes.pipeline import run_pipeline

        if not self.cleanup:
            return False
        self.stage = self.cleanup
        candidate = self._clone(self.current)
        try:
            run_pipeline(candidate, self.cleanup)
        except Exception:  # noqa: BLE001 - a pass that fails on this program: no clean-up this round
            return False
        return self._offer(candidate, self.cleanup)

    def run(self) -> str | None:
        if hasattr(self.predicate, "begin"):
            self.predicate.begin(self.current)
        if not self._run_test(self.current, self.text):
            detail = getattr(self.predicate, "detail", "")
            what = getattr(self.predicate, "description", "the predicate")
            raise ReduceError(f"{what} does not hold on the input" + (f": {detail}" if detail else "")
                              + "; nothing to reduce")
        stopped = None
        try:
            while True:
                self.rounds += 1
                changed = False
                for reduction in self.reductions:
                    changed |= self._with(reduction)
                changed |= self._clean()
                if not changed:
                    break
        except _Budget as budget:
            stopped = str(budget)
        self.stage = "done"
        self._report(force=True)
        return stopped


def reduce(module, predicate: Callable[[ir.Module], bool], *, max_time: float | None = None,
           max_tests: int | None = None, progress: Callable[[str], None] | None = None,
           reductions: Sequence | None = None, cleanup: str | None = CLEANUP_PIPELINE,
           source_name: str | None = None) -> ReduceResult:
    """Shrink ``module`` while ``predicate`` holds (see the module docstring for the search).

    ``module``: an ``ir.Module`` (never changed: the reducer works on copies), MLIR text, bytecode or a path.
    ``predicate``: ``predicate(candidate: ir.Module) -> bool``, True when the candidate is still interesting;
    one of :mod:`hlokit.triage.predicates`' tests (a script, ``xla-crash``, ``engines-differ``, ...) or any
    callable. A callable that raises on a candidate counts as False there. ``max_time`` (seconds) /
    ``max_tests``: budgets; when one is spent the search stops with the smallest program found so far.
    ``progress``: called with a progress line (ops left, tests run, elapsed time) at most once a second and at
    the end. ``reductions``: the reductions to try, in order (default
    :data:`hlokit.triage.reductions.REDUCTIONS`); ``cleanup``: the pipeline run between rounds (None: none).

    Returns a :class:`ReduceResult`. Raises :class:`ReduceError` when the predicate does not hold on the input
    (or raises there), when a test cannot be run any more, or when the predicate does not hold again on the
    result (a test that is not deterministic); :class:`~hlokit.diagnostics.HlokitError` for a program that
    does not parse or verify.
    """
    if reductions is None:
        from hlokit.triage.reductions import REDUCTIONS

        reductions = REDUCTIONS
    if max_tests is not None and max_tests < 1:
        raise ReduceError("max_tests: expected at least 1 (the input itself is tested first)")
    if max_time is not None and not max_time > 0:
        raise ReduceError("max_time: expected a number of seconds > 0")
    module = load(module, source_name=source_name)
    reducer = _Reducer(module, predicate, max_time=max_time, max_tests=max_tests, progress=progress,
                       reductions=tuple(reductions), cleanup=cleanup)
    stopped = reducer.run()
    if reducer.accepted:  # confirm: the result is written only when the test holds on it
        reducer.max_tests = reducer.max_time = None
        if not reducer._run_test(reducer.current, reducer.text, use_cache=False):
            raise ReduceError("the test held on the reduced program once and not when run again: the test is "
                              "not deterministic; nothing written")
    return ReduceResult(module=reducer.current, text=reducer.text, ops_before=reducer.ops_before,
                        ops_after=reducer.measure[1], tests=reducer.tests,
                        seconds=time.monotonic() - reducer.start, accepted=reducer.accepted,
                        by_reduction=dict(reducer.by_reduction), rounds=reducer.rounds, stopped=stopped,
                        rejected=reducer.rejected)


def stderr_progress(name: str = "hlokit-reduce") -> Callable[[str], None]:
    """A progress callback writing ``name: LINE`` to stderr (rewriting one line on a terminal)."""
    tty = sys.stderr.isatty()

    def show(line: str) -> None:
        if tty:
            sys.stderr.write(f"\r\x1b[K{name}: {line}")
            if line.endswith(", done]"):
                sys.stderr.write("\n")
        else:
            sys.stderr.write(f"{name}: {line}\n")
        sys.stderr.flush()

    return show
