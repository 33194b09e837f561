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

import dataclasses
import os
import traceback
from typing import Iterable, Sequence

from jaxlib.mlir import ir, passmanager
from jaxlib.mlir._mlir_libs import _stablehlo

from hlokit.diagnostics import HlokitError, PassError, diagnostics_from_mlir_error
from hlokit.passes.registry import Pass, get_pass, parse_options

__all__ = ["PipelineElement", "parse_pipeline", "build_pass_manager", "run_pipeline", "PipelineError"]


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


def parse_pipeline(text: str) -> list[PipelineElement]:
    """Parse MLIR's textual pipeline syntax into a list of :class:`PipelineElement` trees."""
    pos = 0
    n = len(text)

    def error(msg: str) -> PipelineError:
        return PipelineError(f"invalid pass pipeline '{text}': {msg} at position {pos}")

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
        nonlocal pos
        skip_ws()
        start = pos
        while pos < n and (text[pos].isalnum() or text[pos] in "-_."):
            pos += 1
        name = text[start:pos]
        if not name:
            raise error("expected a pass or op name")
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
            pos += 1
            el.children = parse_list(")")
            skip_ws()
            if pos >= n or text[pos] != ")":
                raise error("expected ')'")
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
    """Run a Python pass on its anchor ops at ``path`` below ``root`` (walking to the anchor)."""
    anchor = instance.anchor
    for target in _anchor_targets(root, path):
        if anchor in ("any", target.name):
            instance.run_on_operation(target)
            continue
        found: list[ir.Operation] = []

        def collect(op, found=found):
            if op.name == anchor:
                found.append(op)
                return ir.WalkResult.SKIP
            return ir.WalkResult.ADVANCE

        target.walk(collect)
        for op in found:
            instance.run_on_operation(op)


def _python_pass_callback(instance: Pass, path: Sequence[str]):
    def run(op, pass_):
        try:
            _run_python_pass(instance, op.operation, path)
        except PassError as err:
            loc = err.location if err.location is not None else op.location
            for d in err.diagnostics:
                loc.emit_error(d.message)
            pass_.signal_pass_failure()
        except Exception as exc:  # a bug in a pass: report it located, never crash the tool
            detail = "".join(traceback.format_exception(exc)) if os.environ.get("HLOKIT_TRACEBACK") else ""
            op.location.emit_error(
                f"internal error in pass '{instance.argument}': {type(exc).__name__}: {exc}" + (f"\n{detail}" if detail else "")
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
) -> passmanager.PassManager:
    """Build one ``PassManager`` (anchored on ``root``) from pipeline elements.

    ``implicit_nesting`` (for passes given as command-line flags) nests an upstream pass restricted to
    ``func.func`` under ``func.func(...)``, as mlir-opt does. Raises :class:`PipelineError` for an
    unknown pass or a bad option.
    """
    steps: list[tuple[tuple[str, ...], object]] = []

    def flatten(els: Iterable[PipelineElement], path: tuple[str, ...]):
        for el in els:
            if el.children is not None:
                flatten(el.children, path + (el.name,))
                continue
            cls = get_pass(el.name)
            if cls is not None:
                try:
                    steps.append((path, cls(**parse_options(cls, el.options))))
                except ValueError as exc:
                    raise PipelineError(str(exc)) from None
            else:
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
                pm.add(
                    _python_pass_callback(step, path),
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
            _add_upstream(pm, path, group, implicit_nesting)
            i = j
    return pm


def _add_upstream(pm, path, group: list[str], implicit_nesting: bool) -> None:
    text = _nest(path, ",".join(group))
    try:
        pm.add(text)
        return
    except ValueError as exc:
        first_error = exc
    if implicit_nesting and not path:
        try:
            pm.add(f"func.func({','.join(group)})")
            return
        except ValueError:
            pass
    msg = str(first_error).replace("MLIR Textual PassPipeline Parser:1:1: error: ", "").split("\n")[0]
    raise PipelineError(f"invalid pass pipeline '{text}': {msg.strip()}") from None


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
