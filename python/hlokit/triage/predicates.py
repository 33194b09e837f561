"""Interestingness tests of the test-case reducer (:mod:`hlokit.triage.reduce`, ``hlokit-reduce``).

A test says whether a candidate program still shows the problem being reduced. As in LLVM's ``mlir-reduce``
(https://mlir.llvm.org/docs/Tools/MLIRReduce/) and C-Reduce, a user's test is a script that exits 0 on an
interesting file (:class:`ScriptTest`); the built-in tests need none:

* ``xla-crash`` (:func:`xla_crash`): XLA's compiler, or the compiled program's run, kills the process;
* ``engines-differ[=ULP]`` (:func:`engines_differ`): hlokit's interpreter and XLA give outputs that differ
  beyond a tolerance (:class:`hlokit.compare.Tolerance`), on seeded random inputs made for the candidate's own
  signature;
* ``error-matches=REGEX`` (:func:`error_matches`): the parser, the verifier, a pass (hlokit's preparation for
  XLA, or a given pipeline) or XLA reports an error whose message matches ``REGEX`` (``re.search``);
* ``pass-fails=PIPELINE`` (:func:`pass_fails`): the pass pipeline (``hlokit-opt --pass-pipeline`` syntax)
  fails, or crashes, on the candidate.

The built-ins run in hlokit's worker process (:func:`hlokit.core.run_contained`'s worker): XLA and upstream
passes are C++ that can abort or hang on a candidate, and a candidate may loop forever. Each test has a time
limit; a candidate that reaches it is not interesting.

A test is a callable ``test(module: ir.Module) -> bool``; :class:`Test` adds ``detail`` (why the last call
said what it said, for the reducer's error when the test is false on the input) and ``close()``.
"""

from __future__ import annotations

import faulthandler
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import worker
from hlokit.core import print_module
from hlokit.diagnostics import HlokitError

__all__ = ["Test", "ScriptTest", "ContainedTest", "order_dependent_reducers", "xla_crash", "engines_differ", "error_matches", "pass_fails",
           "from_until", "random_inputs", "DEFAULT_TIMEOUT", "UNTIL_KINDS"]

#: Seconds one test may take on one candidate (``hlokit-reduce --test-timeout``).
DEFAULT_TIMEOUT = 60.0
#: The built-in tests of ``--until``.
UNTIL_KINDS = ("xla-crash", "engines-differ", "error-matches", "pass-fails")


class Test:
    """Base of the reducer's tests: ``test(module) -> bool``; ``description`` names it, ``detail`` says why the
    last call answered as it did (an exit code, a signal, a timeout, a comparison), ``fatal`` is set when the
    test itself could not be run (a script that vanished): the reducer then stops with that error."""

    description = "test"

    def __init__(self) -> None:
        self.detail = ""
        self.fatal: str | None = None

    def text(self, module: ir.Module) -> str:
        """The text a candidate is tested as (and written as): MLIR's pretty form."""
        return print_module(module)

    def __call__(self, module: ir.Module) -> bool:
        return self.test_text(self.text(module))

    def test_text(self, text: str) -> bool:  # pragma: no cover - every test overrides it
        raise NotImplementedError

    def begin(self, module: ir.Module | None = None) -> None:
        """Forget what earlier calls learnt of an input: the next call tests a new input, ``module`` when given
        (the reducer calls this before testing its input)."""

    def precheck(self, module: ir.Module) -> bool:
        """A quick test in this process that a candidate must pass before the test itself runs (False: not
        interesting, without running the test). By default every candidate passes."""
        return True

    def close(self) -> None:
        """Release what the test holds (temporary files)."""


class ScriptTest(Test):
    """``SCRIPT [ARG...] CANDIDATE.mlir`` exits 0: the candidate is interesting (mlir-reduce's ``--test`` /
    ``--test-arg``). The script runs in a session of its own, with stdin closed; past ``timeout`` seconds its
    whole process group is killed and the candidate is not interesting.

    Raises :class:`~hlokit.diagnostics.HlokitError` when ``script`` does not exist or is not executable (a name
    without ``/`` is looked up on ``PATH``)."""

    def __init__(self, script: str, args: Sequence[str] = (), *, timeout: float = DEFAULT_TIMEOUT):
        super().__init__()
        found = script if os.sep in script else (shutil.which(script) or script)
        if not os.path.exists(found):
            raise HlokitError(f"--test: the test script '{script}' does not exist")
        if os.path.isdir(found) or not os.access(found, os.X_OK):
            raise HlokitError(f"--test: the test script '{script}' is not executable (chmod +x it, or give "
                              "--test=python3 --test-arg=SCRIPT.py)")
        self.script = os.path.abspath(found)
        self.args = list(args)
        self.timeout = timeout
        self.description = f"the test script '{script}'"
        self._dir = tempfile.mkdtemp(prefix="hlokit-reduce-")
        self.path = os.path.join(self._dir, "candidate.mlir")

    def test_text(self, text: str) -> bool:
        with open(self.path, "w") as f:
            f.write(text)
        try:
            proc = subprocess.Popen([self.script, *self.args, self.path], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        except OSError as err:
            self.fatal = f"cannot run the test script '{self.script}': {err.strerror}"
            self.detail = self.fatal
            return False
        try:
            _, err = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.communicate()
            self.detail = f"it did not finish within {self.timeout:g} s"
            return False
        code = proc.returncode
        tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
        said = f" (stderr: {' | '.join(tail)})" if tail else ""
        if code < 0:
            self.detail = f"it crashed (signal {-code}){said}"
        else:
            self.detail = f"it exited with {code}{said}"
        return code == 0

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


class ContainedTest(Test):
    """A built-in test run by :func:`check_job` in hlokit's worker process (see the module docstring)."""

    def __init__(self, kind: str, description: str, *, timeout: float = DEFAULT_TIMEOUT, **options):
        super().__init__()
        self.kind = kind
        self.description = description
        self.timeout = timeout
        self.options = options
        self._input_order_dependent: bool | None = None
        self._input_kind: str | None = None

    def begin(self, module: ir.Module | None = None) -> None:
        self._input_order_dependent = None
        self._input_kind = None
        if module is not None and self.kind == "engines-differ":
            self._input_order_dependent = bool(order_dependent_reducers(module))

    def precheck(self, module: ir.Module) -> bool:
        if self.kind == "engines-differ" and self._input_order_dependent is False:
            return not order_dependent_reducers(module)
        return True

    def test_text(self, text: str) -> bool:
        try:
            answer = worker.run_job("hlokit.triage.predicates:check_job", text.encode(),
                                    options={"kind": self.kind, **self.options}, timeout=self.timeout)
        except worker.WorkerTimeout:
            self.detail = f"the check did not finish within {self.timeout:g} s"
            return False
        except worker.WorkerCrashed as err:
            self.detail = f"the process crashed ({err})" if err.signal else f"the process exited ({err})"
            if self.kind == "xla-crash":
                return bool(err.signal)
            if self.kind == "pass-fails":
                return True
            if self.kind == "error-matches":
                return re.search(self.options["regex"], f"crashed ({err})") is not None
            return False
        except (worker.JobFailed, worker.JobDiagnostics) as err:
            self.detail = f"the check failed: {err}"
            return False
        verdict = json.loads(answer)
        self.detail = verdict["detail"]
        if self.kind == "engines-differ":
            # a reducer body that depends on the order of reduction makes the engines differ by right (the
            # spec leaves the order open): interesting only when the input had such a body itself
            loose = verdict.get("order_dependent", [])
            if self._input_kind is None:
                if self._input_order_dependent is None:
                    self._input_order_dependent = bool(loose)
                self._input_kind = verdict.get("kind")
            elif loose and not self._input_order_dependent:
                self.detail = f"{loose[0]} has a body whose result depends on the order of reduction"
                return False
            elif verdict["holds"] and verdict.get("kind") != self._input_kind:
                # a reduction that overflows to infinity or NaN differs by accumulation order: another bug
                self.detail += f" (a deviation of another kind than the input's: {self._input_kind})"
                return False
        return bool(verdict["holds"])


def xla_crash(*, timeout: float = DEFAULT_TIMEOUT, seed: int = 0) -> ContainedTest:
    """XLA's compiler, or a run of the compiled program on seeded inputs, kills the process (a signal)."""
    return ContainedTest("xla-crash", "--until=xla-crash", timeout=timeout, seed=seed)


def engines_differ(max_ulp: float | None = None, *, rtol: float | None = None, atol: float | None = None,
                   seed: int = 0, timeout: float = DEFAULT_TIMEOUT) -> ContainedTest:
    """The interpreter's and XLA's outputs differ beyond the tolerance (:func:`hlokit.compare.compare`; no
    bound given: its default per element type) on inputs :func:`random_inputs` makes with ``seed``. A candidate
    that either engine cannot run is not interesting.

    Against slipping to another bug (C-Reduce's "slippage"): a candidate is interesting only when its worst
    element differs in the same way as the input's (:attr:`hlokit.compare.Comparison.kind`, and whether both
    values are finite: a reduction that overflows to infinity differs by accumulation order), and, when the
    input had none, only without a reducer body whose result depends on the order of reduction
    (:func:`order_dependent_reducers`). The first call of the test, the reducer's test of its input, sets
    what the input was."""
    return ContainedTest("engines-differ", "--until=engines-differ", timeout=timeout, seed=seed,
                         max_ulp=max_ulp, rtol=rtol, atol=atol)


def error_matches(regex: str, *, pipeline: str | None = None, seed: int = 0,
                  timeout: float = DEFAULT_TIMEOUT) -> ContainedTest:
    """The first error of: parsing, verifying, ``pipeline`` (when given), hlokit's preparation for XLA, XLA's
    compile, XLA's run on seeded inputs, matches ``regex`` (``re.search``). Raises
    :class:`~hlokit.diagnostics.HlokitError` for a regex that does not compile."""
    try:
        re.compile(regex)
    except re.error as err:
        raise HlokitError(f"--until=error-matches: bad regular expression '{regex}': {err}") from None
    return ContainedTest("error-matches", f"--until=error-matches={regex}", timeout=timeout, regex=regex,
                         pipeline=pipeline, seed=seed)


def pass_fails(pipeline: str, *, timeout: float = DEFAULT_TIMEOUT) -> ContainedTest:
    """The pass pipeline fails (a pass error) or crashes on the candidate. Raises
    :class:`~hlokit.diagnostics.HlokitError` for a pipeline that does not parse."""
    from hlokit.core import make_context
    from hlokit.passes.pipeline import build_pass_manager, parse_pipeline

    # PipelineError (an HlokitError) for a bad pipeline or an unknown pass, before any candidate
    build_pass_manager(parse_pipeline(pipeline), context=make_context())
    return ContainedTest("pass-fails", f"--until=pass-fails={pipeline}", timeout=timeout, pipeline=pipeline)


def from_until(spec: str, *, rtol: float | None = None, atol: float | None = None, seed: int = 0,
               pipeline: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> ContainedTest:
    """The built-in test ``--until=SPEC`` names (``xla-crash``, ``engines-differ[=ULP]``,
    ``error-matches=REGEX``, ``pass-fails=PIPELINE``). Raises :class:`~hlokit.diagnostics.HlokitError` for an
    unknown kind or a bad value."""
    kind, eq, value = spec.partition("=")
    if kind == "xla-crash" and not eq:
        return xla_crash(timeout=timeout, seed=seed)
    if kind == "engines-differ":
        ulp = None
        if eq:
            try:
                ulp = float(value)
            except ValueError:
                ulp = -1.0
            if not ulp >= 0:
                raise HlokitError(f"--until=engines-differ={value}: expected a number of ULPs >= 0")
        return engines_differ(ulp, rtol=rtol, atol=atol, seed=seed, timeout=timeout)
    if kind == "error-matches" and value:
        return error_matches(value, pipeline=pipeline, seed=seed, timeout=timeout)
    if kind == "pass-fails" and value:
        return pass_fails(value, timeout=timeout)
    raise HlokitError(f"--until={spec}: expected one of xla-crash, engines-differ[=ULP], error-matches=REGEX, "
                      "pass-fails=PIPELINE")


def random_inputs(specs, seed: int) -> list[np.ndarray]:
    """Seeded random arrays for argument specs (:class:`hlokit.backend.TensorSpec`), as ``hlokit-run`` makes
    them: standard normal floats (real and imaginary parts), integers in [-10, 10] ([0, 10] unsigned; the
    range of 2- and 4-bit types), random booleans. The same seed and specs give the same arrays; a new argument
    appended to a signature leaves the arrays of the others as they were."""
    rng = np.random.default_rng(seed)
    out = []
    small = {"int2": (-2, 2), "int4": (-8, 8), "uint2": (0, 4), "uint4": (0, 16)}
    for spec in specs:
        dt, shape = np.dtype(spec.dtype), spec.shape
        if dt == np.bool_:
            out.append(rng.integers(0, 2, size=shape).astype(np.bool_))
        elif np.issubdtype(dt, np.complexfloating):
            out.append((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt))
        elif dt.name in small:
            out.append(rng.integers(*small[dt.name], size=shape).astype(dt))
        elif dt.kind in "iu":
            out.append(rng.integers(0 if dt.kind == "u" else -10, 11, size=shape).astype(dt))
        else:
            out.append(rng.standard_normal(shape).astype(dt))
    return out


# ---- the worker's side ---------------------------------------------------------------------------------------

def _verdict(holds: bool, detail: str) -> bytes:
    return json.dumps({"holds": holds, "detail": detail}).encode()


def _message(err: Exception) -> str:
    return err.render() if isinstance(err, HlokitError) else f"{type(err).__name__}: {err}"


def _xla_run(module: ir.Module, seed: int) -> list:
    """Prepare a copy of ``module`` for XLA, compile it, run it on seeded inputs; the outputs."""
    import hlokit
    from hlokit import backend

    prepared = hlokit.prepare(module, engine="xla", copy=True)
    exe = backend.compile(prepared.module)
    return exe(*random_inputs(exe.in_specs, seed))


def check_job(payload: bytes, *, kind: str, seed: int = 0, max_ulp=None, rtol=None, atol=None, regex=None,
              pipeline=None) -> bytes:
    """Run one built-in test on the candidate text ``payload`` (in the worker process) and return its verdict as
    JSON ``{"holds": bool, "detail": str}``. A crash of the process is the caller's to read (``xla-crash``)."""
    import hlokit

    # the crash must happen here, not in a trial compile of XLA's own (hlokit.backend.compile's guard)
    os.environ["HLOKIT_TRIAL_COMPILE"] = "1"
    faulthandler.disable()  # (a worker forked from a process with faulthandler on would dump a crash's stack)
    text = payload.decode()
    ctx = hlokit.make_context()
    if kind == "error-matches":
        try:
            module = hlokit.parse(text, context=ctx, source_name="candidate.mlir")
            if pipeline:
                from hlokit.passes.pipeline import run_pipeline

                run_pipeline(module, pipeline, source_name="candidate.mlir")
            _xla_run(module, seed)
        except Exception as err:  # noqa: BLE001 - every stage's message is the test's matter
            message = _message(err)
            return _verdict(re.search(regex, message) is not None, f"the error was: {message}")
        return _verdict(False, "no stage reported an error")
    module = hlokit.parse(text, context=ctx, source_name="candidate.mlir")
    if kind == "pass-fails":
        from hlokit.passes.pipeline import run_pipeline

        try:
            run_pipeline(module, pipeline, source_name="candidate.mlir")
        except HlokitError as err:
            return _verdict(True, f"the pipeline failed: {_message(err)}")
        return _verdict(False, f"the pipeline '{pipeline}' succeeded")
    if kind == "xla-crash":
        try:
            _xla_run(module, seed)
        except Exception as err:  # noqa: BLE001 - an ordinary error is not a crash
            return _verdict(False, f"XLA reported an error, it did not crash: {_message(err)}")
        return _verdict(False, "XLA compiled and ran the program")
    if kind == "engines-differ":
        return _engines_differ(module, seed, max_ulp, rtol, atol)
    raise ValueError(f"unknown test kind {kind!r}")


#: Ops whose body combines elements in an order the spec leaves open.
_REDUCERS = frozenset({"stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.scatter", "stablehlo.all_reduce",
                       "stablehlo.reduce_scatter", "stablehlo.select_and_scatter"})
#: Bodies whose result does not depend on that order: one of these ops of the body's two arguments.
_ORDER_FREE = frozenset({"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
                         "stablehlo.and", "stablehlo.or", "stablehlo.xor"})


def order_dependent_reducers(module: ir.Module) -> list[str]:
    """The reduction ops of ``module`` (``reduce``, ``reduce_window``, ``scatter``, ...; one operand) whose body
    is not one commutative, associative op (``add``, ``multiply``, ``maximum``, ...) of its two arguments, as
    ``"stablehlo.reduce at LOC"``: their results depend on the order of reduction, which the StableHLO spec
    leaves to the implementation ("reduce": "the order of the computations is implementation-defined")."""
    found: list[str] = []

    def body_is_order_free(region) -> bool:
        block = region.blocks[0]
        ops = [op.operation for op in block.operations]
        args = list(block.arguments)
        if len(args) != 2 or len(ops) != 2 or ops[0].name not in _ORDER_FREE:
            return False
        operands = list(ops[0].operands)
        return (len(operands) == 2 and {id_of(v) for v in operands} == {id_of(a) for a in args}
                and list(ops[1].operands) and id_of(ops[1].operands[0]) == id_of(ops[0].results[0]))

    def id_of(value) -> str:
        return value.get_name()

    def visit(op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    if child.name in _REDUCERS and child.regions and len(child.results) == 1:
                        body = child.regions[-1] if child.name != "stablehlo.select_and_scatter" else child.regions[1]
                        if not body_is_order_free(body):
                            found.append(f"{child.name} at {child.location}")
                    visit(child)

    visit(module.operation)
    return found


def _engines_differ(module: ir.Module, seed: int, max_ulp, rtol, atol) -> bytes:
    verdict = json.loads(_engines_compare(module, seed, max_ulp, rtol, atol))
    verdict["order_dependent"] = order_dependent_reducers(module)
    return json.dumps(verdict).encode()


def _finite(value) -> bool:
    try:
        return bool(np.all(np.isfinite(np.asarray(value, dtype=np.complex128))))
    except (TypeError, ValueError):
        return True


def _engines_compare(module: ir.Module, seed: int, max_ulp, rtol, atol) -> bytes:
    import hlokit
    from hlokit.compare import Tolerance, compare

    try:
        prepared = hlokit.prepare(module, engine="xla", copy=True)
        from hlokit import backend

        exe = backend.compile(prepared.module)
        inputs = random_inputs(exe.in_specs, seed)
        got = exe(*inputs)
    except Exception as err:  # noqa: BLE001 - a candidate XLA cannot run is not interesting
        return _verdict(False, f"XLA cannot run it: {_message(err)}")
    try:
        want = hlokit.interpret(module, inputs)
    except Exception as err:  # noqa: BLE001
        return _verdict(False, f"the interpreter cannot run it: {_message(err)}")
    tolerance = Tolerance(max_ulp, rtol, atol)
    for i, (w, g) in enumerate(zip(want, got)):
        try:
            c = compare(np.asarray(g), np.asarray(w), tolerance)
        except Exception as err:  # noqa: BLE001 - e.g. a tuple or token result: not compared
            return _verdict(False, f"output {i} cannot be compared: {err}")
        if not c.ok:
            finite = _finite(c.actual) and _finite(c.expected)
            kind = f"{c.kind}, {'finite' if finite else 'non-finite'} values"
            return json.dumps({"holds": True, "detail": f"output {i} differs: {c.describe()}",
                               "kind": kind}).encode()
    return _verdict(False, f"the engines agree on all {len(want)} output(s) ({tolerance.describe()})")
