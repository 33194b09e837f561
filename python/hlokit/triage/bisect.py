"""Numerical bisection of a pass pipeline: which pass changes a program's results, and at which op.

``hlokit-opt IN.mlir <passes> --check-numerics[=interpreter|xla]`` and :func:`bisect` run the input program
once on one engine (hlokit's interpreter, or XLA CPU through jaxlib), then split the pipeline into its leaf
passes (hlokit's Python passes and upstream C++ passes alike; named pipelines expanded, each pass kept at the
op anchor it is nested under: ``func.func(canonicalize)``) and run them one at a time, running the module on
the same inputs after each and comparing its outputs with the first run's (:func:`hlokit.compare.compare`).

The first pass whose outputs depart is located further: the module before that pass and the one after it are
both run by the interpreter with an ``interpreter.probe`` after every op result (:mod:`hlokit.interpreter.probes`:
the ops of function bodies and of ``while`` / ``if`` / ``case`` regions), and the probed values of the module
after the pass are matched to the module before by location (the source position a pass keeps on the ops it
leaves or rewrites) and type; the first one, in execution order, whose value departs is named. The IR before
and after the pass is written to a directory.

Default tolerance (none given, :func:`check_output`): integers and booleans must be equal; a float (or complex)
element may differ by :data:`DEFAULT_MAX_ULP` units in the last place of itself or of its output's largest
magnitude (a pass that only reorders the same arithmetic, or XLA lowering an op another way, moves results by
an ULP or two, which cancellation can make many ULPs of a small element). ``--max-ulp N`` or ``--rtol X --atol Y`` replace it
for every output (:class:`hlokit.compare.Tolerance`: with ``--max-ulp`` integers may differ by N).

The idea follows XLA's practice of finding the HLO pass that changes results by disabling passes one at a time
(``--xla_disable_hlo_passes``, https://openxla.org/xla/flags_guidance) and mlir-opt's
``--mlir-print-ir-after-all``; here each pass's result is run and compared instead.
"""

from __future__ import annotations

import csv
import dataclasses
import difflib
import os
import tempfile
import types as _types
from typing import Callable, Sequence

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit import dtypes
from hlokit.compare import Comparison, Tolerance, compare, element_kind, ulp_distance
from hlokit.diagnostics import Diagnostic, HlokitError, location_position
from hlokit.passes.pipeline import (PipelineElement, build_pass_manager, leaf_steps, parse_pipeline,
                                    run_pass_manager)

__all__ = ["BisectResult", "OpDeparture", "Step", "DEFAULT_MAX_ULP", "ENGINES", "bisect", "leaf_passes",
           "tolerance_from_options", "seeded_inputs", "check_output",
           "check_options", "check_pipeline"]

#: The ULP distance floats may have by default (integers and booleans: exact).
DEFAULT_MAX_ULP = 4
#: The engines a pipeline's results are checked on.
ENGINES = ("interpreter", "xla")
#: Ops whose regions are probed too (their regions run as program code, not as per-element bodies).
_CONTROL_FLOW = frozenset({"stablehlo.while", "stablehlo.if", "stablehlo.case"})


@dataclasses.dataclass
class Step:
    """One leaf pass of a pipeline: ``label`` as it reads in a pipeline (``func.func(canonicalize)``) and
    the elements that build it alone (:func:`hlokit.passes.pipeline.build_pass_manager`)."""

    label: str
    elements: list[PipelineElement]
    implicit_nesting: bool


@dataclasses.dataclass
class OpDeparture:
    """The first op of a pass's result whose value departs from the module before the pass.

    ``name``: the op's name after the pass; ``location``: its location (``file``, ``line``, ``col`` when it
    names a source position); ``result``: which result of the op; ``original``: the name of the op before the
    pass it was matched to (by location and type); ``iteration``: the how-manieth execution of the op (inside
    a loop or a function called more than once); ``comparison``: its value against the original's."""

    name: str
    location: str
    file: str | None
    line: int
    col: int
    result: int
    original: str
    iteration: int
    comparison: Comparison

    def describe(self) -> str:
        where = f" (iteration {self.iteration})" if self.iteration else ""
        was = "" if self.original == self.name else f", was '{self.original}'"
        return (f"first departing op: '{self.name}' result {self.result}{where}{was}: "
                f"{self.comparison.describe()}")


@dataclasses.dataclass
class BisectResult:
    """What :func:`bisect` found.

    ``passes``: the leaf passes (labels) in order; ``checked``: how many ran and were checked; ``failed_pass``
    / ``pass_index`` (1-based): the first pass whose results depart (None: none did); ``output``: the first
    departing output (None where the module no longer runs: ``error`` says why, ``error_at`` where: file, line,
    column); ``comparison``: that
    output against the reference; ``op``: the first departing op (None when it could not be located:
    ``op_note`` says why); ``directory``, ``before_path``, ``after_path``: where the IR before and after the
    pass was written; ``module``: the module after the last pass run; ``reference``: the input program's
    outputs; ``inputs``; ``engine``; ``tolerance``: the bounds in words."""

    passes: list[str]
    checked: int
    engine: str
    tolerance: str
    inputs: list[np.ndarray]
    reference: list[np.ndarray]
    module: ir.Module
    failed_pass: str | None = None
    pass_index: int | None = None
    output: int | None = None
    comparison: Comparison | None = None
    error: str | None = None
    error_at: tuple[str | None, int, int] = (None, 0, 0)
    op: OpDeparture | None = None
    op_note: str | None = None
    directory: str | None = None
    before_path: str | None = None
    after_path: str | None = None

    @property
    def departed(self) -> bool:
        """Whether a pass changed the results."""
        return self.failed_pass is not None

    def diagnostic(self, source_name: str | None = None) -> Diagnostic:
        """The located error of a departure (at the first departing op where it names a source position,
        else at ``source_name``), with notes: the worst element, the op, the directory. ValueError when
        nothing departed."""
        if not self.departed:
            raise ValueError("no pass changed the results")
        what = f"pass '{self.failed_pass}' ({self.pass_index} of {len(self.passes)})"
        if self.error is not None:
            message = f"--check-numerics: after {what} the module no longer runs on {self.engine}: {self.error}"
        else:
            c = self.comparison
            message = (f"--check-numerics: {what} changes output {self.output} on {self.engine} beyond "
                       f"{self.tolerance}: {c.describe()}")
        file, line, col = (self.op.file, self.op.line, self.op.col) if self.op is not None else self.error_at
        d = Diagnostic("error", message, file or source_name, line, col)
        if self.op is not None:
            d.notes.append(Diagnostic("note", self.op.describe(), file or source_name, line, col))
        elif self.op_note:
            d.notes.append(Diagnostic("note", self.op_note, source_name))
        if self.directory:
            d.notes.append(Diagnostic("note", f"IR before and after the pass: {self.before_path}, {self.after_path}",
                                      source_name))
        return d


def tolerance_from_options(max_ulp=None, rtol=None, atol=None) -> Tolerance | None:
    """The :class:`~hlokit.compare.Tolerance` of ``--max-ulp N`` or ``--rtol X --atol Y`` (None: none given,
    the default of the module docstring). Raises HlokitError (``error: --max-ulp: ...``) for a negative or
    non-finite bound, or ``--max-ulp`` given with ``--rtol`` / ``--atol``."""
    for flag, value in (("--max-ulp", max_ulp), ("--rtol", rtol), ("--atol", atol)):
        if value is not None and not (np.isfinite(value) and value >= 0):
            raise HlokitError(f"{flag}: expected a finite number >= 0, got {value}")
    if max_ulp is not None and (rtol is not None or atol is not None):
        raise HlokitError("--max-ulp cannot be combined with --rtol / --atol: give one kind of bound")
    if max_ulp is None and rtol is None and atol is None:
        return None
    return Tolerance(max_ulp=max_ulp, rtol=rtol, atol=atol)


def _tolerance_for(dtype, tolerance: Tolerance | None) -> Tolerance:
    """The bound a value of ``dtype`` is compared under: ``tolerance`` when given; else exact for integers and
    booleans, :data:`DEFAULT_MAX_ULP` ULPs for floats (the per-element part of :func:`check_output`'s default)."""
    if tolerance is not None:
        return tolerance
    if element_kind(dtype) in ("float", "complex"):
        return Tolerance(max_ulp=DEFAULT_MAX_ULP)
    return Tolerance(max_ulp=0)


def check_output(actual, reference, tolerance: Tolerance | None = None) -> Comparison:
    """Compare one output (arrays of one shape and dtype) with its reference: under ``tolerance`` when given
    (:func:`hlokit.compare.compare`); else the default: integers and booleans exactly, and each float (or
    complex) element within :data:`DEFAULT_MAX_ULP` ULPs of the reference element *or* within as many ULPs of
    the output's largest finite magnitude (``|diff| <= N * eps * max|reference|``), so that a small element
    left by cancellation is judged on the output's scale (NaN positions must match in either case). The
    result is :func:`~hlokit.compare.compare`'s; on a float departure under the default, the comparison
    against that absolute bound (its worst element, the largest difference, is one that fails both tests)."""
    actual, reference = np.asarray(actual), np.asarray(reference)
    first = compare(actual, reference, _tolerance_for(reference.dtype, tolerance))
    if (first.ok or tolerance is not None or first.kind in ("shape", "nan")
            or element_kind(reference.dtype) not in ("float", "complex")):
        return first
    eps = float(ml_dtypes.finfo(np.empty(0, reference.dtype).real.dtype).eps)
    bound = DEFAULT_MAX_ULP * eps * first.scale
    units = ulp_distance(actual, reference)
    with np.errstate(invalid="ignore", over="ignore"):
        absdiff = np.abs(actual.astype(np.complex128 if np.iscomplexobj(actual) else np.float64)
                         - reference.astype(np.complex128 if np.iscomplexobj(reference) else np.float64))
        bad = (units > DEFAULT_MAX_ULP) & ~(absdiff <= bound)
    if not bad.any():
        first.ok = True
        return first
    return compare(actual, reference, Tolerance(atol=bound))


def _describe_tolerance(tolerance: Tolerance | None) -> str:
    if tolerance is None:
        return (f"the default tolerance (floats {DEFAULT_MAX_ULP} ULPs of the element or of the output's largest "
                "magnitude, integers exact)")
    return tolerance.describe()


# -- the pipeline's leaf passes --------------------------------------------------------------------------------

def _nest(path: Sequence[str], leaf: PipelineElement) -> PipelineElement:
    for name in reversed(path):
        leaf = PipelineElement(name, children=[leaf])
    return leaf


def leaf_passes(pipeline: str | Sequence[PipelineElement], *, implicit_nesting: bool = False,
                root: str = "builtin.module") -> list[Step]:
    """Split ``pipeline`` (MLIR's textual pipeline syntax, or parsed elements) into its leaf passes in order,
    each nested under its op anchors; named pipelines (:func:`hlokit.passes.registry.register_pipeline`) are
    expanded. ``implicit_nesting``: as for pass flags (an upstream pass restricted to functions is nested for
    you). Raises :class:`~hlokit.passes.pipeline.PipelineError` for malformed text or a pipeline that
    includes itself (unknown passes and bad options are reported when a step is built)."""
    elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline)
    steps: list[Step] = []
    for path, el in leaf_steps(elements, root):
        nested = _nest(path, el)
        steps.append(Step(nested.text(), [nested], implicit_nesting and not path))
    return steps


# -- running a module -----------------------------------------------------------------------------------------

def _copy(module: ir.Module, text: str | None = None) -> ir.Module:
    """A copy of ``module`` (or ``text``, printed from a module) in its context, with its locations."""
    ctx = module.context
    if text is None:
        text = module.operation.get_asm(enable_debug_info=True)
    name = location_position(module.operation.location)[0] or "-"
    saved = ctx.allow_unregistered_dialects
    ctx.allow_unregistered_dialects = True
    try:
        return hlokit.parse(text, context=ctx, source_name=name)
    finally:
        ctx.allow_unregistered_dialects = saved


def run_module(module: ir.Module, inputs: Sequence[np.ndarray], engine: str, *, probe_dir: str | None = None,
               function: str = "main") -> list[np.ndarray]:
    """Run ``function`` of ``module`` (left unchanged) on ``inputs`` with ``engine`` (``"interpreter"``, or
    ``"xla"``: XLA CPU), prepared for it as usual (:func:`hlokit.prepare`). Raises
    :class:`~hlokit.diagnostics.HlokitError` (located) where the program does not prepare, compile or run."""
    if engine == "interpreter":
        return [np.asarray(r) for r in hlokit.interpret(_copy(module), list(inputs), function=function,
                                                         probe_dir=probe_dir)]
    from hlokit import backend

    prepared = hlokit.prepare(module, engine="xla", copy=True)
    exe = backend.compile(prepared.module, function=function)
    return [np.asarray(r) for r in exe(*inputs)]


def seeded_inputs(module: ir.Module, seed: int = 0, function: str = "main") -> list[np.ndarray]:
    """Seeded random arguments of ``function``'s signature, as ``hlokit-run --seed`` makes them: standard normal
    floats, integers in [-10, 10] (unsigned [0, 10]; 2- and 4-bit types over their range), random booleans.
    Raises HlokitError for a signature without static tensor shapes."""
    from hlokit.backend import signature

    specs, _ = signature(module, function)
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        dt = np.dtype(spec.dtype)
        small = {"int2": (-2, 2), "int4": (-8, 8), "uint2": (0, 4), "uint4": (0, 16)}
        if dt == np.bool_:
            a = rng.integers(0, 2, size=spec.shape).astype(np.bool_)
        elif np.issubdtype(dt, np.complexfloating):
            a = (rng.standard_normal(spec.shape) + 1j * rng.standard_normal(spec.shape)).astype(dt)
        elif dt.name in small:
            a = rng.integers(*small[dt.name], size=spec.shape).astype(dt)
        elif dt.kind in "iu":
            a = rng.integers(0 if dt.kind == "u" else -10, 11, size=spec.shape).astype(dt)
        else:
            a = rng.standard_normal(spec.shape).astype(dt)
        out.append(a)
    return out


def _resolve_inputs(module: ir.Module, inputs, seed: int, function: str) -> list[np.ndarray]:
    from hlokit.backend import signature

    if inputs is None:
        return seeded_inputs(module, seed, function)
    if callable(inputs):
        return list(inputs(signature(module, function)[0]))
    if isinstance(inputs, dict):
        n = len(signature(module, function)[0])
        missing = [f"arg_{i}" for i in range(n) if f"arg_{i}" not in inputs]
        if missing:
            raise HlokitError(f"--check-numerics: missing input(s) {', '.join(missing)}; @{function} takes {n}")
        return [np.asarray(inputs[f"arg_{i}"]) for i in range(n)]
    return [np.asarray(a) for a in inputs]


# -- locating the first departing op --------------------------------------------------------------------------

@dataclasses.dataclass
class _Probe:
    id: str
    key: tuple[str, str]  # (location, type)
    op: str
    result: int
    location: ir.Location
    like: np.ndarray


def _instrument(module: ir.Module) -> dict[str, _Probe]:
    """Insert ``interpreter.probe`` after every static tensor result of the ops of function bodies (and of
    control-flow regions) of ``module``, in place; returns the probes by id, in block order."""
    probes: dict[str, _Probe] = {}

    def block_ops(block):
        ops = list(block.operations)
        for i, op in enumerate(ops):
            op = op.operation
            if op.name in _CONTROL_FLOW:
                for region in op.regions:
                    for b in region.blocks:
                        block_ops(b)
            if i + 1 >= len(ops) or op.name == "interpreter.probe":
                continue
            for k, r in enumerate(op.results):
                t = r.type
                if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
                    continue
                try:
                    like = np.empty(t.shape, dtypes.dtype_of(t.element_type))
                except Exception:  # (a quantized or otherwise unmapped element type: not probed)
                    continue
                pid = f"p{len(probes)}"
                probe = ir.Operation.create("interpreter.probe", results=[t], operands=[r],
                                            attributes={"probe_id": ir.StringAttr.get(pid)},
                                            loc=op.location, ip=ir.InsertionPoint(ops[i + 1]))
                r.replace_all_uses_except(probe.result, probe)
                probes[pid] = _Probe(pid, (str(op.location), str(t)), op.name, k, op.location, like)

    with module.context:
        for fn in module.body.operations:
            if fn.operation.name == "func.func":
                for region in fn.operation.regions:
                    for b in region.blocks:
                        block_ops(b)
    return probes


def _probed_run(module: ir.Module, inputs, directory: str) -> tuple[dict[str, _Probe], list[tuple[str, int]]]:
    """Run an instrumented copy of ``module``; returns its probes and the (id, iteration) written, in order."""
    copy = _copy(module)
    probes = _instrument(copy)
    os.makedirs(directory, exist_ok=True)
    hlokit.interpret(copy, list(inputs), probe_dir=directory)
    order, counts = [], {}
    index = os.path.join(directory, "index.csv")
    if os.path.exists(index):
        with open(index, newline="") as f:
            for row in csv.reader(f):
                if row:
                    it = counts.get(row[0], 0)
                    counts[row[0]] = it + 1
                    order.append((row[0], it))
    return probes, order


def _read(directory: str, probe: _Probe, iteration: int) -> np.ndarray:
    from hlokit.interpreter.probes import read_probe

    return read_probe(_types.SimpleNamespace(probe_dir=directory), probe.id, iteration, probe.like)


def _match(before: dict[str, _Probe], after: dict[str, _Probe]) -> dict[str, str]:
    """Pair the probes of the module after a pass with those before it: by (location, type); where several
    share a key, their op names are aligned in block order (:class:`difflib.SequenceMatcher`): ops left as
    they were pair in order, and a run of ops before the pass replaced by a run after it pairs its last op
    with the last op of the new run (a rewrite's final op keeps the original's location and replaces its
    value: ``exponential`` -> ``constant, multiply, power``)."""
    groups_b: dict[tuple, list[str]] = {}
    groups_a: dict[tuple, list[str]] = {}
    for p in before.values():
        groups_b.setdefault(p.key, []).append(p.id)
    for p in after.values():
        groups_a.setdefault(p.key, []).append(p.id)
    pairs = {}
    for key, ids_a in groups_a.items():
        ids_b = groups_b.get(key)
        if not ids_b:
            continue
        names_b = [before[i].op for i in ids_b]
        names_a = [after[i].op for i in ids_a]
        matcher = difflib.SequenceMatcher(None, names_b, names_a, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                pairs.update(zip(ids_a[j1:j2], ids_b[i1:i2]))
            elif tag == "replace":
                pairs[ids_a[j2 - 1]] = ids_b[i2 - 1]
    return pairs


def locate_op(before: ir.Module, after: ir.Module, inputs, tolerance: Tolerance | None,
              directory: str) -> tuple[OpDeparture | None, str | None]:
    """The first op of ``after`` whose probed value departs from its match in ``before`` (both run by the
    interpreter on ``inputs``; see the module docstring), or None with the reason."""
    try:
        probes_b, _ = _probed_run(before, inputs, os.path.join(directory, "probes-before"))
        probes_a, order = _probed_run(after, inputs, os.path.join(directory, "probes-after"))
    except HlokitError as err:
        return None, f"the probed modules do not run on the interpreter: {err.diagnostics[0].message}"
    except Exception as exc:  # (locating is best effort: the departure itself is reported all the same)
        return None, f"the departing op could not be located: {type(exc).__name__}: {exc}"
    return _first_departure(probes_b, probes_a, order, tolerance, directory)


def _first_departure(probes_b, probes_a, order, tolerance, directory) -> tuple[OpDeparture | None, str | None]:
    """The first probe written by the run after the pass (``order``) whose value departs from its match."""
    pairs = _match(probes_b, probes_a)
    for pid, it in order:
        if pid not in pairs:
            continue
        pa, pb = probes_a[pid], probes_b[pairs[pid]]
        try:
            va = _read(os.path.join(directory, "probes-after"), pa, it)
            vb = _read(os.path.join(directory, "probes-before"), pb, it)
        except HlokitError:
            continue  # (the original ran fewer times: not comparable)
        c = check_output(va, vb, tolerance)
        if not c.ok:
            file, line, col = location_position(pa.location)
            return OpDeparture(pa.op, str(pa.location), file, line, col, pa.result, pb.op, it, c), None
    if not pairs:
        return None, "no op of the pass's result kept an original op's location, so none could be matched"
    return None, ("no op of the pass's result that kept an original op's location departs on the interpreter "
                  f"({len(pairs)} matched)")


# -- the bisection --------------------------------------------------------------------------------------------

def _prefixed(err: HlokitError, prefix: str) -> HlokitError:
    return HlokitError([dataclasses.replace(d, message=prefix + d.message) for d in err.diagnostics],
                       file=err.default_file)


def bisect(module: ir.Module, pipeline, inputs=None, *, engine: str = "interpreter",
           tolerance: Tolerance | None = None, seed: int = 0, directory: str | None = None,
           implicit_nesting: bool = False, in_place: bool = False, function: str = "main",
           source_name: str | None = None, configure: Callable | None = None) -> BisectResult:
    """Run ``pipeline`` on ``module`` one leaf pass at a time, checking ``function``'s results on ``engine``
    after each (see the module docstring); stop at the first pass whose results depart.

    ``pipeline``: MLIR's textual pipeline syntax (``builtin.module(func.func(canonicalize),cse)``) or
    :class:`~hlokit.passes.pipeline.PipelineElement` lists (``implicit_nesting`` as for pass flags).
    ``inputs``: the arguments (a list of arrays, a dict ``arg_<i>`` -> array, a function of the argument
    :class:`~hlokit.backend.TensorSpec` list returning arrays) or None: :func:`seeded_inputs` of ``seed``.
    ``engine``: ``"interpreter"`` or ``"xla"``. ``tolerance``: None for the default. ``directory``: where the IR
    before and after a departing pass is written (``NN-before.mlir``, ``NN-after.mlir``; default a new temporary
    directory, made only on a departure). ``in_place``: run the passes on ``module`` itself (else on a copy).
    ``configure``: called with each pass manager before it runs (IR printing, timing).

    Returns a :class:`BisectResult`. Raises :class:`~hlokit.passes.pipeline.PipelineError` for a bad pipeline
    (before anything runs), :class:`~hlokit.diagnostics.PassError` when a pass fails, HlokitError (located)
    when the input program does not run on ``engine`` or the inputs do not fit it, ValueError for an unknown
    engine."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine '{engine}' (expected one of {', '.join(ENGINES)})")
    name = source_name or location_position(module.operation.location)[0] or "-"
    steps = leaf_passes(pipeline, implicit_nesting=implicit_nesting)
    ctx = module.context
    for s in steps:  # every step built once first: a bad pipeline is reported before anything runs
        build_pass_manager(s.elements, context=ctx, implicit_nesting=s.implicit_nesting)
    if not in_place:
        module = _copy(module)
    try:
        args = _resolve_inputs(module, inputs, seed, function)
    except HlokitError as err:
        if err.default_file or any(d.file for d in err.diagnostics):
            raise  # (an inputs file's own error)
        raise _prefixed(err, "--check-numerics: ") from None
    try:
        reference = run_module(module, args, engine, function=function)
    except HlokitError as err:
        raise _prefixed(err, f"--check-numerics: the input program does not run on {engine}: ") from None
    result = BisectResult([s.label for s in steps], 0, engine, _describe_tolerance(tolerance), args, reference,
                          module)
    for k, step in enumerate(steps, 1):
        before_text = module.operation.get_asm(enable_debug_info=True)
        pm = build_pass_manager(step.elements, context=ctx, implicit_nesting=step.implicit_nesting)
        if configure is not None:
            configure(pm)
        run_pass_manager(pm, module.operation, source_name=name)
        del pm
        result.checked = k
        try:
            outs = run_module(module, args, engine, function=function)
        except HlokitError as err:
            first = err.diagnostics[0] if err.diagnostics else Diagnostic("error", str(err))
            result.error, result.error_at = first.message, (first.file, first.line, first.col)
            outs = None
        if outs is not None:
            if len(outs) != len(reference):
                result.error = f"it returns {len(outs)} result(s), the input {len(reference)}"
            else:
                for i, (o, r) in enumerate(zip(outs, reference)):
                    c = check_output(o, r, tolerance)
                    if not c.ok:
                        result.output, result.comparison = i, c
                        break
        if result.error is None and result.output is None:
            continue
        result.failed_pass, result.pass_index = step.label, k
        directory = directory or tempfile.mkdtemp(prefix="hlokit-check-numerics-")
        os.makedirs(directory, exist_ok=True)
        result.directory = directory
        result.before_path = os.path.join(directory, f"{k:02d}-before.mlir")
        result.after_path = os.path.join(directory, f"{k:02d}-after.mlir")
        with open(result.before_path, "w") as f:
            f.write(f"// hlokit-opt --check-numerics: the IR before pass {k}, '{step.label}'\n{before_text}")
        with open(result.after_path, "w") as f:
            f.write(f"// hlokit-opt --check-numerics: the IR after pass {k}, '{step.label}'\n"
                    + module.operation.get_asm(enable_debug_info=True))
        if result.error is None:  # (the probes' files go to a directory removed afterwards)
            with tempfile.TemporaryDirectory(prefix="hlokit-probes-") as probes:
                result.op, result.op_note = locate_op(_copy(module, before_text), module, args, tolerance, probes)
        break
    return result


# -- hlokit-opt --check-numerics ------------------------------------------------------------------------------

def check_options(engine: str | None, *, max_ulp=None, rtol=None, atol=None, inputs: str | None = None,
                  seed: int | None = None, directory: str | None = None) -> Tolerance | None:
    """Check ``hlokit-opt``'s ``--check-numerics[=ENGINE]`` options before any input is read; returns the
    tolerance (None: the default). Raises HlokitError (``error: --check-numerics: ...``) for an unknown
    engine, a bad bound (:func:`tolerance_from_options`), a negative ``--seed``, ``--inputs`` with ``--seed``, a
    ``--check-numerics-dir`` that is a file, or any of these options without ``--check-numerics``."""
    if engine is None:
        given = [flag for flag, v in (("--max-ulp", max_ulp), ("--rtol", rtol), ("--atol", atol),
                                      ("--inputs", inputs), ("--seed", seed), ("--check-numerics-dir", directory))
                 if v is not None]
        if given:
            raise HlokitError(f"{', '.join(given)}: only used with --check-numerics, which is not given")
        return None
    if engine not in ENGINES:
        raise HlokitError(f"--check-numerics: unknown engine '{engine}' (expected {' or '.join(ENGINES)})")
    if seed is not None and seed < 0:
        raise HlokitError(f"--seed: expected an integer >= 0, got {seed}")
    if seed is not None and inputs is not None:
        raise HlokitError("--inputs and --seed cannot be combined: the inputs come from the file or are seeded")
    if directory is not None and os.path.exists(directory) and not os.path.isdir(directory):
        raise HlokitError("--check-numerics-dir: exists and is not a directory", file=directory)
    return tolerance_from_options(max_ulp, rtol, atol)


def check_pipeline(module: ir.Module, pipeline, *, engine: str, tolerance: Tolerance | None = None, inputs=None,
                   seed: int | None = None, directory: str | None = None, implicit_nesting: bool = False,
                   source_name: str | None = None, configure: Callable | None = None) -> BisectResult:
    """``hlokit-opt --check-numerics``: :func:`bisect` in place on ``module``; returns the result when no pass
    changed the results (``module`` then holds the pipeline's result) and raises HlokitError with the located
    diagnostic of :meth:`BisectResult.diagnostic` when one did (and as :func:`bisect` raises)."""
    result = bisect(module, pipeline, inputs, engine=engine, tolerance=tolerance, seed=seed or 0,
                    directory=directory, implicit_nesting=implicit_nesting, in_place=True,
                    source_name=source_name, configure=configure)
    if result.departed:
        raise HlokitError(result.diagnostic(source_name), file=source_name)
    return result
