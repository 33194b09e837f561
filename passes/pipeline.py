"""Textual pass pipelines that mix hlokit's Python passes with upstream C++ passes from jaxlib.

``builtin.module(func.func(canonicalize,stablehlo-legalize-dot-to-dot-general),inline)`` is parsed
here, not by MLIR: every name found in hlokit's registry (:mod:`hlokit.passes.registry`) becomes a
Python pass; the others are handed to MLIR's own pipeline parser. So when hlokit has a pass with the
same flag as an upstream one (``chlo-legalize-to-stablehlo``, ...), hlokit's runs.

MLIR's bindings only accept op-agnostic Python passes at the top level of a ``PassManager`` (nesting a
restricted Python pass aborts the process), so a Python pass at ``func.func(...)`` depth is added at
the top and walks to the ``func.func`` ops itself; runs of consecutive upstream passes keep their
nesting. The result is one ``PassManager``: IR printing, timing and verification after every pass
apply to Python and C++ passes alike.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import re
import sys
import tempfile
import traceback
from typing import Iterable, Sequence

from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import stablehlo as _stablehlo

from hlokit.diagnostics import HlokitError, PassError, diagnostics_from_mlir_error
from hlokit.passes.registry import Pass, get_pass, get_pipeline, parse_options

__all__ = ["PipelineElement", "parse_pipeline", "build_pass_manager", "run_pipeline", "PipelineError", "leaf_steps"]


# Make StableHLO's upstream passes (stablehlo-refine-shapes, stablehlo-legalize-to-vhlo, ...) known to
# MLIR's pipeline parser. Names that hlokit also registers resolve to hlokit's Python passes above them.
_stablehlo.register_stablehlo_passes()


class PipelineError(HlokitError):
    """The pipeline text is malformed or names an unknown pass / option."""


@dataclasses.dataclass
class PipelineElement:
    """One element of a textual pipeline: ``name{options}`` or an op anchor ``name(children)``."""

    name: str
    options: str = ""
    children: list["PipelineElement"] | None = None

    def text(self) -> str:
        s = self.name + (f"{{{self.options}}}" if self.options else "")
        if self.children is not None:
            s += "(" + ",".join(c.text() for c in self.children) + ")"
        return s


# Deepest op-anchor nesting ``a(b(c(...)))`` accepted; real pipelines nest two or three levels.
MAX_PIPELINE_DEPTH = 64


def _shown(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_pipeline(text: str) -> list[PipelineElement]:
    """Parse MLIR's textual pipeline syntax into a list of :class:`PipelineElement` trees.

    Raises :class:`PipelineError` (``invalid pass pipeline '...': <reason> at position N``) for text that
    is malformed or nests op anchors deeper than :data:`MAX_PIPELINE_DEPTH`.
    """
    pos = 0
    n = len(text)
    depth = 0

    def error(msg: str) -> PipelineError:
        return PipelineError(f"invalid pass pipeline '{_shown(text)}': {msg} at position {pos}")

    def skip_ws():
        nonlocal pos
        while pos < n and text[pos].isspace():
            pos += 1

    def parse_list(closing: str | None) -> list[PipelineElement]:
        nonlocal pos
        elements = []
        skip_ws()
        if closing and pos < n and text[pos] == closing:
            return elements
        while True:
            elements.append(parse_element())
            skip_ws()
            if pos < n and text[pos] == ",":
                pos += 1
                continue
            return elements

    def parse_element() -> PipelineElement:
        nonlocal pos, depth
        skip_ws()
        start = pos
        while pos < n and (text[pos].isalnum() or text[pos] in "-_."):
            pos += 1
        name = text[start:pos]
        if not name:
            found = f"'{text[pos]}'" if pos < n else "the end of the text"
            raise error(f"expected a pass or op name, found {found}")
        el = PipelineElement(name)
        skip_ws()
        if pos < n and text[pos] == "{":
            depth, start = 0, pos
            quote = None
            while pos < n:
                c = text[pos]
                if quote:
                    quote = None if c == quote else quote
                elif c in "\"'":
                    quote = c
                elif c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                    if depth == 0:
                        break
                pos += 1
            if pos >= n:
                raise error("unbalanced '{'")
            el.options = text[start + 1 : pos].strip()
            pos += 1
            skip_ws()
        if pos < n and text[pos] == "(":
            if depth >= MAX_PIPELINE_DEPTH:
                raise error(f"op anchors nested more than {MAX_PIPELINE_DEPTH} deep")
            depth += 1
            pos += 1
            el.children = parse_list(")")
            depth -= 1
            skip_ws()
            if pos >= n or text[pos] != ")":
                found = f"'{text[pos]}'" if pos < n else "the end of the text"
                raise error(f"expected ',' or ')' after '{name}(...', found {found}")
            pos += 1
        return el

    elements = parse_list(None)
    skip_ws()
    if pos != n:
        raise error(f"unexpected '{text[pos]}'")
    return elements


def _nest(path: Sequence[str], body: str) -> str:
    for name in reversed(path):
        body = f"{name}({body})"
    return body


def _anchor_targets(root: ir.Operation, path: Sequence[str]) -> list[ir.Operation]:
    """The ops a nested pipeline at ``path`` (e.g. ``("func.func",)``) runs on, below ``root``."""
    ops = [root]
    for name in path:
        nxt = []
        for op in ops:
            for region in op.regions:
                for block in region.blocks:
                    for child in block.operations:
                        if name == "any" or child.operation.name == name:
                            nxt.append(child.operation)
        ops = nxt
    return ops


def _run_python_pass(instance: Pass, root: ir.Operation, path: Sequence[str]) -> None:
    """Run a Python pass on its anchor ops at ``path`` below ``root`` (walking to the anchor), with Python's cyclic
    garbage collector paused (the state found is given back, also when the pass fails): a pass allocates a few
    binding handles and plan entries per op and the full collections a growing heap triggers cost ~15 % of a
    legalization of 20k ops (issue 40); the garbage of the pass is collected after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        _find_and_run(instance, root, path)
    finally:
        if enabled:
            gc.enable()


def _find_and_run(instance: Pass, root: ir.Operation, path: Sequence[str]) -> None:
    """:func:`_run_python_pass`'s walk to the anchor ops and the pass's run on them."""
    anchor = instance.anchor
    found: list[ir.Operation] = []  # every anchor op first, then the pass on all of them (Pass.run_on_anchors)

    def collect(op):
        if op.name == anchor:
            found.append(op)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    for target in _anchor_targets(root, path):
        if anchor in ("any", target.name):
            found.append(target)
        else:
            target.walk(collect, ir.WalkOrder.PRE_ORDER)  # (pre-order: SKIP leaves an anchor's body unvisited)
    if found:
        instance.run_on_anchors(found)


def _python_pass_callback(instance: Pass, path: Sequence[str], observer=None):
    def run(op, pass_):
        try:
            with observer.running(instance, op.operation) if observer else contextlib.nullcontext():
                _run_python_pass(instance, op.operation, path)
        except PassError as err:
            loc = err.location if err.location is not None else op.location
            for d in err.diagnostics:
                loc.emit_error(d.message)
            pass_.signal_pass_failure()
        except Exception as exc:  # a bug in a pass: report it located, never crash the tool
            detail = "".join(traceback.format_exception(exc)) if os.environ.get("HLOKIT_TRACEBACK") else ""
            what = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, RuntimeError) and "Traceback (most recent call last)" in str(exc):
                # raised inside a callback of the bindings (e.g. Operation.walk), which wrap it in a RuntimeError
                # whose message is the whole traceback: its last line names the exception
                what = str(exc).strip().splitlines()[-1]
            from hlokit.passes.plugins import raised_at  # a plugin's pass: where in the plugin it raised

            where = raised_at(exc, instance.argument)
            what += f" (raised at {where})" if where else ""
            op.location.emit_error(
                f"internal error in pass '{instance.argument}': {what}" + (f"\n{detail}" if detail else "")
            )
            pass_.signal_pass_failure()

    run.__name__ = type(instance).__name__
    return run


def build_pass_manager(
    elements: Iterable[PipelineElement],
    *,
    context: ir.Context,
    implicit_nesting: bool = False,
    root: str = "builtin.module",
    observer=None,
) -> passmanager.PassManager:
    """Build one ``PassManager`` (anchored on ``root``) from pipeline elements.

    A registered named pipeline (:func:`hlokit.passes.registry.register_pipeline`) is expanded in place,
    at the anchor it appears at. ``implicit_nesting`` (for passes given as command-line flags) nests an
    upstream pass restricted to ``func.func`` under ``func.func(...)`` and leaves module-level ones at
    the top, pass by pass, as mlir-opt does (``--stablehlo-refine-shapes
    --stablehlo-check-shape-assertions --symbol-dce``). ``observer`` (e.g.
    :class:`hlokit.passes.instrument.PassStatistics`) is told of every Python pass added
    (``observer.added(instance)``), wraps its runs (``with observer.running(instance, op)``) and sees the
    upstream pipeline texts added (through ``observer.recording(pm)``, a stand-in for ``pm.add``).
    Raises :class:`PipelineError` for an unknown pass or a bad option.
    """
    steps: list[tuple[tuple[str, ...], object]] = []

    def flatten(els: Iterable[PipelineElement], path: tuple[str, ...], expanding: tuple[str, ...] = ()):
        for el in els:
            if el.children is not None:
                flatten(el.children, path + (el.name,), expanding)
                continue
            named = get_pipeline(el.name)
            if named is not None:
                if el.options:
                    raise PipelineError(f"pipeline '{el.name}' takes no options")
                if el.name in expanding:
                    raise PipelineError(f"pipeline '{el.name}' includes itself")
                flatten(parse_pipeline(named.text), path, expanding + (el.name,))
                continue
            cls = get_pass(el.name)
            if cls is not None:
                try:
                    steps.append((path, cls(**parse_options(cls, el.options))))
                except ValueError as exc:
                    raise PipelineError(str(exc)) from None
            else:
                _check_nested_pipelines(el, context)
                steps.append((path, el.text()))

    for el in elements:
        if el.children is not None and el.name == root:
            flatten(el.children, ())
        else:
            flatten([el], ())

    with context:
        pm = passmanager.PassManager(root)
        i = 0
        while i < len(steps):
            path, step = steps[i]
            if isinstance(step, Pass):
                if observer is not None:
                    observer.added(step)
                pm.add(
                    _python_pass_callback(step, path, observer),
                    name=type(step).__name__,
                    argument=step.argument,
                    description=step.summary,
                )
                i += 1
                continue
            group = [step]
            j = i + 1
            while j < len(steps) and steps[j][0] == path and isinstance(steps[j][1], str):
                group.append(steps[j][1])
                j += 1
            _add_upstream(pm if observer is None else observer.recording(pm), path, group, implicit_nesting, root)
            i = j
    return pm


@contextlib.contextmanager
def captured_stderr(into: list[str]):
    """Collect what is written to file descriptor 2 while the body runs (where MLIR's ``llvm::errs()`` writes:
    LLVM's option parser reports bad values there, IR dumps and pass statistics go there) into ``into``."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            into.append(tmp.read().decode("utf-8", "replace"))


def _mlir_reason(exc: Exception | None, captured: str) -> str:
    """The first meaningful line of an MLIR pipeline-parser failure (from the exception or stderr)."""
    lines = [l.strip() for l in (captured + "\n" + (str(exc) if exc else "")).splitlines()]
    for line in lines:
        line = re.sub(r"^MLIR Textual PassPipeline Parser:\d+:\d+: error: ", "", line)
        line = re.sub(r"^<Pass-Options-Parser>: ", "", line).lstrip(": ").strip()
        if line and not line.startswith("failed to add"):
            return line
    return "rejected by MLIR's pass pipeline parser"


_NESTED_PIPELINE_OPTION = re.compile(r"(?:^|\s)default-pipeline=")


def _nested_pipeline_value(options: str, start: int) -> str:
    """The value of a pipeline-valued option starting at ``start`` (up to whitespace outside brackets)."""
    depth, i = 0, start
    while i < len(options):
        c = options[i]
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c.isspace() and depth <= 0:
            break
        i += 1
    return options[start:i]


def _check_nested_pipelines(el: PipelineElement, context: ir.Context) -> None:
    """Parse pipeline-valued options (``inline{default-pipeline=...}``) now: MLIR parses them only when
    the pass runs, prints a bad one to stderr and goes on as if it were valid."""
    step = el.text()
    for m in _NESTED_PIPELINE_OPTION.finditer(el.options):
        value = _nested_pipeline_value(el.options, m.end()).strip("'\"")
        if not value:
            continue
        if value.count("(") != value.count(")") or value.count("{") != value.count("}"):
            raise PipelineError(f"invalid pass pipeline '{_shown(step)}': default-pipeline '{value}' has unbalanced brackets")
        captured: list[str] = []
        try:
            with captured_stderr(captured):
                passmanager.PassManager.parse(f"builtin.module(func.func({value}))", context=context)
        except ValueError as exc:
            raise PipelineError(
                f"invalid pass pipeline '{_shown(step)}': default-pipeline '{value}': {_mlir_reason(exc, captured[0])}"
            ) from None


def _parses(text: str) -> bool:
    """``text`` (a whole pipeline, ``root(...)``) is accepted by MLIR's parser in the current context."""
    try:
        with captured_stderr([]):
            passmanager.PassManager.parse(text)
    except ValueError:
        return False
    return True


def _implicitly_nested(group: Sequence[str], root: str) -> list[str] | None:
    """Nest each upstream pass of ``group`` (top-level pipeline texts, in order) as mlir-opt nests pass
    flags: a pass that runs on ``root`` stays there, one restricted to ``func.func`` goes into a
    ``func.func(...)`` shared with its function-level neighbours. Returns the runs to add in order (e.g.
    ``["stablehlo-refine-shapes", "func.func(stablehlo-check-shape-assertions)", "symbol-dce"]``), or
    None when a pass fits neither anchor (the caller reports MLIR's reason). Needs a current context."""
    runs: list[tuple[str | None, list[str]]] = []
    for step in group:
        if _parses(f"{root}({step})"):
            nest = None
        elif _parses(f"{root}(func.func({step}))"):
            nest = "func.func"
        else:
            return None
        if runs and runs[-1][0] == nest:
            runs[-1][1].append(step)
        else:
            runs.append((nest, [step]))
    return [",".join(steps) if nest is None else f"{nest}({','.join(steps)})" for nest, steps in runs]


def _add_upstream(pm, path, group: list[str], implicit_nesting: bool, root: str) -> None:
    """Add a run of upstream passes at ``path`` to ``pm`` (anchored on ``root``), whole or not at all:
    ``PassManager.add`` adds the passes before a rejected one, so the text is checked first."""
    text = _nest(path, ",".join(group))
    if _parses(f"{root}({text})"):
        with captured_stderr([]):
            pm.add(text)
        return
    if implicit_nesting and not path:
        runs = _implicitly_nested(group, root)
        if runs is not None:
            for run in runs:
                with captured_stderr([]):
                    pm.add(run)
            return
    captured: list[str] = []
    try:  # MLIR's own reason, as pm.add words it (the pass manager is dropped with the error)
        with captured_stderr(captured):
            pm.add(text)
        return
    except ValueError as exc:
        first_error = exc
    msg = _mlir_reason(first_error, captured[0] if captured else "")
    raise PipelineError(f"invalid pass pipeline '{_shown(text)}': {msg}") from None


def run_pipeline(module: ir.Module | ir.Operation, pipeline: str, *, source_name: str | None = None) -> None:
    """Parse ``pipeline`` and run it on ``module`` in place.

    Raises :class:`PipelineError` for a bad pipeline and :class:`~hlokit.diagnostics.PassError` (with
    the located diagnostics) when a pass fails.
    """
    op = module.operation
    pm = build_pass_manager(parse_pipeline(pipeline), context=op.context)
    run_pass_manager(pm, op, source_name=source_name)


def run_pass_manager(pm: passmanager.PassManager, op: ir.Operation, *, source_name: str | None = None) -> None:
    """Run ``pm`` on ``op``; failures become :class:`~hlokit.diagnostics.PassError`."""
    try:
        pm.run(op)
    except ir.MLIRError as err:
        raise PassError(diagnostics_from_mlir_error(err)) from None


def leaf_steps(elements: Sequence[PipelineElement], root: str = "builtin.module") -> list[tuple[tuple[str, ...],
                                                                                            PipelineElement]]:
    """The leaf passes of a pipeline in order, named pipelines expanded: ``(op-anchor path, pass element)``
    pairs, e.g. ``(("func.func",), canonicalize)``. Raises :class:`~hlokit.passes.pipeline.PipelineError`
    for a named pipeline that includes itself."""
    steps: list[tuple[tuple[str, ...], PipelineElement]] = []

    def walk(els, path: tuple[str, ...], expanding: tuple[str, ...]):
        for el in els:
            if el.children is not None:
                walk(el.children, path + (el.name,), expanding)
                continue
            named = get_pipeline(el.name)
            if named is not None and not el.options:
                if el.name in expanding:
                    raise PipelineError(f"pipeline '{el.name}' includes itself")
                walk(parse_pipeline(named.text), path, expanding + (el.name,))
                continue
            steps.append((path, el))

    for el in elements:
        walk(el.children if el.children is not None and el.name == root else [el], (), ())
    return steps
