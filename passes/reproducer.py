"""Crash and failure reproducers, as mlir-opt writes and reads them.

When a pass fails (a located :class:`~hlokit.diagnostics.PassError` from a Python pass, a Python exception
inside a pass, an upstream C++ pass's failure), :func:`run_with_reproducer` writes a file that reproduces
the failure: the IR and, after it, the pipeline in the file-metadata form MLIR's pass manager writes
(``mlir/lib/Pass/PassCrashRecovery.cpp`` in llvm/llvm-project: ``appendReproducer`` attaches the
``mlir_reproducer`` resource printer; the "Crash and Failure Reproduction" section of MLIR's
``docs/PassManagement.md``)::

    module {
      ...
    }

    {-#
      external_resources: {
        mlir_reproducer: {
          pipeline: "builtin.module(func.func(canonicalize),stablehlo-legalize-lapack-custom-calls{strict=true})",
          disable_threading: true,
          verify_each: true
        }
      }
    #-}

The global reproducer holds the IR before the pipeline and the whole pipeline (as mlir-opt's); the local
one (``local=True``, ``--mlir-pass-pipeline-local-reproducer``) the IR just before the failing pass and a
pipeline of that pass alone, under its op anchors. jaxlib's ``PassManager`` has no crash-reproducer hook
(``enable_crash_reproducer`` is not bound in jaxlib 0.10.2) and would not see inside hlokit's Python passes
anyway, so hlokit's runner does it: the pipeline runs as usual (its diagnostics are the ones reported); when
it fails, its leaf passes are replayed one by one on a copy of the IR taken before the run, to find the
failing pass and the IR just before it.

:func:`read_reproducer` reads the ``mlir_reproducer`` entry back (``hlokit-opt --run-reproducer``), and the
text pre-processor ``mlir-reproducer`` (registered at import, applied by every :func:`hlokit.parse`) blanks
that entry out so that parsing a reproducer does not warn about an unknown external resource.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from jaxlib.mlir import ir

from hlokit.core import register_text_preprocessor
from hlokit.diagnostics import Diagnostic, HlokitError, ParseError, PassError, location_position
from hlokit.passes.pipeline import (PipelineElement, PipelineError, build_pass_manager, leaf_steps, parse_pipeline,
                                    run_pass_manager)
from hlokit.passes.registry import get_pass, get_pipeline

__all__ = ["ReproducerConfig", "read_reproducer", "strip_reproducer", "reproducer_text", "explicit_pipeline",
           "leaf_steps", "run_with_reproducer", "run_pipeline_with_reproducer", "reproducer_pipeline", "RESOURCE_KEY"]

#: The external-resource key MLIR's pass manager writes its reproducer configuration under.
RESOURCE_KEY = "mlir_reproducer"


@dataclasses.dataclass
class ReproducerConfig:
    """What a reproducer's ``mlir_reproducer`` entry holds: the ``pipeline`` (MLIR's textual pipeline syntax,
    ``builtin.module(...)``), ``disable_threading`` and ``verify_each`` (verify the IR after every pass);
    ``line`` / ``col``: where the pipeline string stands in the file (1-based), for errors about it."""

    pipeline: str
    disable_threading: bool = False
    verify_each: bool = True
    line: int = 0
    col: int = 0


# -- the file-metadata block -----------------------------------------------------------------------------------

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|\{-#|#-\}|[{}:,]|[A-Za-z_][\w.$-]*|\S')


def _escape(text: str) -> str:
    """``text`` as an MLIR string literal's body (llvm::printEscapedString: ``\\`` doubled, ``"`` and
    non-printable characters as two hex digits)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"' or not ch.isprintable() or ord(ch) > 126:
            out.extend(f"\\{b:02X}" for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return "".join(out)


def _unescape(body: str) -> str:
    """The value of an MLIR string literal's body (``\\\\``, ``\\"``, ``\\n``, ``\\t``, ``\\XX`` hex)."""
    raw = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "\\\"'":
                raw += nxt.encode()
                i += 2
                continue
            if nxt in "nt":
                raw += b"\n" if nxt == "n" else b"\t"
                i += 2
                continue
            if re.fullmatch(r"[0-9A-Fa-f]{2}", body[i + 1:i + 3]):
                raw.append(int(body[i + 1:i + 3], 16))
                i += 3
                continue
        raw += ch.encode("utf-8")
        i += 1
    return raw.decode("utf-8", "replace")


@dataclasses.dataclass
class _Entry:
    """One ``key: value`` of the metadata dictionary: the key's offset, the value (a dict of entries, or
    the scalar token's text) and the value's offset; ``start`` / ``end``: the entry's span in the text."""

    key: str
    key_at: int
    value: "dict[str, _Entry] | str"
    value_at: int
    start: int
    end: int


class _MetadataError(Exception):
    def __init__(self, at: int, message: str):
        super().__init__(message)
        self.at = at


def _metadata_blocks(text: str) -> list[list[re.Match]]:
    """The tokens of every ``{-# ... #-}`` block of ``text`` (strings and ``//`` comments skipped over)."""
    blocks, current = [], None
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if current is None:
            if tok == "{-#":
                current = []
            continue
        if tok == "#-}":
            blocks.append(current)
            current = None
        elif not tok.startswith("//"):
            current.append(m)
    if current is not None:
        blocks.append(current)
    return blocks


def _parse_dict(tokens: list[re.Match], i: int, closing: str | None) -> tuple[dict[str, _Entry], int]:
    """Entries ``key: value`` separated by commas, up to ``closing`` (``}``) or the end; returns (entries,
    index after the closing token). Raises :class:`_MetadataError` at a malformed place."""
    entries: dict[str, _Entry] = {}
    end_at = tokens[-1].end() if tokens else 0
    while True:
        if i >= len(tokens):
            if closing:
                raise _MetadataError(end_at, f"expected '{closing}' to close the dictionary")
            return entries, i
        if closing and tokens[i].group() == closing:
            return entries, i + 1
        key = tokens[i]
        if not re.fullmatch(r'[A-Za-z_][\w.$-]*|"(?:[^"\\\n]|\\.)*"', key.group()):
            raise _MetadataError(key.start(), f"expected a key, found '{key.group()}'")
        if i + 1 >= len(tokens) or tokens[i + 1].group() != ":":
            raise _MetadataError(key.end(), f"expected ':' after '{key.group()}'")
        if i + 2 >= len(tokens):
            raise _MetadataError(tokens[i + 1].end(), f"expected a value for '{key.group()}'")
        val = tokens[i + 2]
        if val.group() == "{":
            value, i = _parse_dict(tokens, i + 3, "}")
            end = tokens[i - 1].end()
        else:
            value, i, end = val.group(), i + 3, val.end()
        name = key.group().strip('"')
        entries[name] = _Entry(name, key.start(), value, val.start(), key.start(), end)
        if i < len(tokens) and tokens[i].group() == ",":
            i += 1
        elif i < len(tokens) and not (closing and tokens[i].group() == closing):
            raise _MetadataError(tokens[i].start(), f"expected ',' or '}}' after the value of '{name}'")


def _find_reproducer(text: str) -> tuple[_Entry, list[re.Match]] | None:
    """The ``external_resources.mlir_reproducer`` entry of ``text``'s file metadata (and the tokens of its
    block), or None. Raises :class:`_MetadataError` for a malformed block that names it."""
    if RESOURCE_KEY not in text:
        return None
    for tokens in _metadata_blocks(text):
        if not any(t.group() == RESOURCE_KEY for t in tokens):
            continue
        top, _ = _parse_dict(tokens, 0, None)
        ext = top.get("external_resources")
        if ext is not None and isinstance(ext.value, dict) and RESOURCE_KEY in ext.value:
            return ext.value[RESOURCE_KEY], tokens
    return None


def _position(text: str, at: int) -> tuple[int, int]:
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def read_reproducer(text: str, *, source_name: str = "-", line_offset: int = 0) -> ReproducerConfig:
    """Read the ``mlir_reproducer`` entry of a reproducer's ``external_resources`` (keys ``pipeline``, a
    string; ``disable_threading`` and ``verify_each``, ``true`` / ``false``; the keys MLIR's
    ``PassReproducerOptions::attachResourceParser`` reads).

    Raises :class:`~hlokit.diagnostics.ParseError` (``FILE:LINE:COL: error: ...``; ``line_offset`` lines
    before ``text`` in the file) when the text has no such entry, it is malformed, has an unknown key, a value
    of the wrong kind or no pipeline.
    """
    def error(at: int | None, message: str) -> ParseError:
        if at is None:
            return ParseError(message, file=source_name)
        line, col = _position(text, at)
        return ParseError(Diagnostic("error", message, source_name, line + line_offset, col))

    try:
        found = _find_reproducer(text)
    except _MetadataError as exc:
        raise error(exc.at, f"malformed file metadata: {exc}") from None
    if found is None:
        raise error(None, "no reproducer here: the file has no '{-# external_resources: { mlir_reproducer: "
                    "{ pipeline: \"...\" } } #-}' entry")
    entry, _ = found
    if not isinstance(entry.value, dict):
        raise error(entry.value_at, f"'{RESOURCE_KEY}' must be a dictionary")
    config = ReproducerConfig(pipeline="")
    for key, item in entry.value.items():
        if key == "pipeline":
            value = item.value
            if not isinstance(value, str) or not value.startswith('"'):
                raise error(item.value_at, "expected a string for the reproducer's 'pipeline'")
            config.pipeline = _unescape(value[1:-1])
            config.line, config.col = _position(text, item.value_at)
            config.line += line_offset
        elif key in ("disable_threading", "verify_each"):
            if item.value not in ("true", "false"):
                raise error(item.value_at, f"expected 'true' or 'false' for the reproducer's '{key}'")
            setattr(config, key, item.value == "true")
        else:
            raise error(item.key_at, f"unknown '{RESOURCE_KEY}' resource key '{key}'")
    if not config.pipeline.strip():
        raise error(entry.key_at, f"'{RESOURCE_KEY}' has no pipeline (its 'pipeline' entry is missing or empty)")
    return config


def strip_reproducer(text: str, problems: list) -> str:
    """The ``mlir-reproducer`` text pre-processor: ``text`` with its ``mlir_reproducer`` external resource
    (and the comma that separated it from a neighbour) blanked out, every line kept where it was, so that
    jaxlib's parser does not warn "ignoring unknown external resources". A malformed metadata block is left
    to MLIR's parser to report (its position is added to ``problems``)."""
    try:
        found = _find_reproducer(text)
    except _MetadataError as exc:
        problems.append((*_position(text, exc.at), f"malformed file metadata: {exc}"))
        return text
    if found is None:
        return text
    entry, tokens = found
    start, end = entry.start, entry.end
    after = [t for t in tokens if t.start() >= end]
    before = [t for t in tokens if t.end() <= start]
    if after and after[0].group() == ",":
        end = after[0].end()
    elif before and before[-1].group() == ",":
        start = before[-1].start()
    blank = re.sub(r"[^\n]", " ", text[start:end])
    return text[:start] + blank + text[end:]


register_text_preprocessor("mlir-reproducer", strip_reproducer, order=0)


def reproducer_text(ir_text: str, pipeline: str, *, disable_threading: bool = True,
                    verify_each: bool = True) -> str:
    """A reproducer: ``ir_text`` (printed IR) followed by the ``mlir_reproducer`` resource, in one
    ``{-# ... #-}`` block with the IR's own resources (``dialect_resources``) when it has some, as MLIR's
    printer merges them."""
    entry = (f"    {RESOURCE_KEY}: {{\n      pipeline: \"{_escape(pipeline)}\",\n"
             f"      disable_threading: {str(disable_threading).lower()},\n"
             f"      verify_each: {str(verify_each).lower()}\n    }}")
    body = ir_text.rstrip("\n")
    if body.endswith("#-}"):
        head = body[:-3].rstrip()
        return f"{head},\n  external_resources: {{\n{entry}\n  }}\n#-}}\n"
    return f"{body}\n\n{{-#\n  external_resources: {{\n{entry}\n  }}\n#-}}\n"


# -- pipelines -------------------------------------------------------------------------------------------------

def _runs_at_root(el: PipelineElement, context: ir.Context) -> bool:
    try:
        build_pass_manager([el], context=context)
    except PipelineError:
        return False
    return True


def explicit_pipeline(elements: Sequence[PipelineElement], *, context: ir.Context, implicit_nesting: bool = False,
                      root: str = "builtin.module") -> str:
    """``elements`` as one textual pipeline anchored on ``root`` (``builtin.module(...)``). With
    ``implicit_nesting`` (pass flags), an upstream pass that only runs on functions is written under
    ``func.func(...)``, consecutive ones sharing it, as mlir-opt nests flags; the text then runs the same
    passes without implicit nesting."""
    els = list(elements)
    if len(els) == 1 and els[0].name == root and els[0].children is not None:
        return els[0].text()
    out: list[PipelineElement] = []
    nested_here: set[int] = set()  # indices in out of the func.func(...) this function added
    for el in els:
        if (implicit_nesting and el.children is None and get_pass(el.name) is None
                and get_pipeline(el.name) is None and not _runs_at_root(el, context)):
            if out and len(out) - 1 in nested_here:
                out[-1].children.append(el)
                continue
            nested_here.add(len(out))
            out.append(PipelineElement("func.func", children=[el]))
            continue
        out.append(el)
    return f"{root}({','.join(e.text() for e in out)})"


def _nested(path: Sequence[str], el: PipelineElement) -> PipelineElement:
    for name in reversed(path):
        el = PipelineElement(name, children=[el])
    return el


# -- running with a reproducer ---------------------------------------------------------------------------------

def _replay(before: ir.Operation, steps, context: ir.Context, implicit_nesting: bool):
    """Run ``steps`` one by one on ``before`` (changed in place) until one fails: (its index, a clone of the
    IR just before it), or None when every step succeeds. Diagnostics of the replay are swallowed."""
    handle = context.attach_diagnostic_handler(lambda diag: True)
    try:
        for k, (path, el) in enumerate(steps):
            pm = build_pass_manager([_nested(path, el)], context=context, implicit_nesting=implicit_nesting)
            snapshot = before.clone()
            try:
                run_pass_manager(pm, before)
            except PassError:
                return k, snapshot
            finally:
                del pm
            snapshot.erase()
    finally:
        handle.detach()
    return None


def _pass_label(path: Sequence[str], el: PipelineElement) -> str:
    cls = get_pass(el.name)
    name = cls.__name__ if cls is not None else el.name
    return f"`{name}` on '{path[-1] if path else 'builtin.module'}' operation"


def run_with_reproducer(pm, op: ir.Operation, elements: Sequence[PipelineElement], path: str, *,
                        local: bool = False, implicit_nesting: bool = False, source_name: str | None = None,
                        debug_info: bool = False, verify_each: bool = True) -> None:
    """Run ``pm`` (built from ``elements`` by :func:`~hlokit.passes.pipeline.build_pass_manager`) on ``op``
    like :func:`~hlokit.passes.pipeline.run_pass_manager`; when a pass fails, write a reproducer to ``path``
    (global, or with ``local`` narrowed to the failing pass) before raising.

    The :class:`~hlokit.diagnostics.PassError` raised carries the pass's own diagnostics followed by, as
    mlir-opt words it, ``error: Failures have been detected while processing an MLIR pass pipeline`` with
    the note ``Pipeline failed while executing [`PASS` on 'OP' operation]: reproducer generated at `PATH```
    (a Python pass is named by its class, an upstream one by its flag). Nothing is written when the pipeline
    succeeds. ``debug_info``: print locations in the reproducer (``--mlir-print-debuginfo``).
    """
    context = op.context
    before = op.clone()
    try:
        try:
            run_pass_manager(pm, op, source_name=source_name)
            return
        except PassError as err:
            failure = err
        steps = leaf_steps(elements)
        start = before.clone()
        replayed = _replay(start, steps, context, implicit_nesting)
        start.erase()
        if replayed is not None and local:
            k, snapshot = replayed
            step_path, el = steps[k]
            pipeline = explicit_pipeline([_nested(step_path, el)], context=context, implicit_nesting=implicit_nesting)
            ir_op, label = snapshot, _pass_label(step_path, el)
        else:
            pipeline = explicit_pipeline(elements, context=context, implicit_nesting=implicit_nesting)
            ir_op = before
            label = f"[{_pass_label(*steps[replayed[0]])}]" if replayed is not None else "[the pipeline]"
            if replayed is not None:
                replayed[1].erase()
        text = reproducer_text(ir_op.get_asm(enable_debug_info=debug_info, assume_verified=True), pipeline,
                               verify_each=verify_each)
        if ir_op is not before:
            ir_op.erase()
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            where = f"reproducer generated at `{path}`"
        except OSError as exc:
            where = f"failed to create output stream: Failed to create reproducer stream: {exc.strerror or exc}"
        file, line, col = location_position(op.location)
        file = file or source_name
        note = Diagnostic("note", f"Pipeline failed while executing {label}: {where}", file, line, col)
        summary = Diagnostic("error", "Failures have been detected while processing an MLIR pass pipeline", file,
                             line, col, [note])
        raise PassError([*failure.diagnostics, summary]) from None
    finally:
        before.erase()


def run_pipeline_with_reproducer(module: ir.Module | ir.Operation, pipeline: str, path: str, *, local: bool = False,
                                 source_name: str | None = None) -> None:
    """:func:`hlokit.passes.pipeline.run_pipeline` (``pipeline`` in MLIR's textual syntax, run on ``module`` in
    place) with a reproducer written to ``path`` when a pass fails (:func:`run_with_reproducer`).

    Raises :class:`~hlokit.passes.pipeline.PipelineError` for a bad pipeline and
    :class:`~hlokit.diagnostics.PassError` when a pass fails."""
    op = module.operation
    elements = parse_pipeline(pipeline)
    pm = build_pass_manager(elements, context=op.context)
    run_with_reproducer(pm, op, elements, path, local=local, source_name=source_name)


def reproducer_pipeline(text: str | bytes, *, context: ir.Context, source_name: str = "-",
                        line_offset: int = 0) -> tuple[list[PipelineElement], ReproducerConfig]:
    """The pipeline a reproducer holds (``hlokit-opt --run-reproducer``): its parsed elements, checked by
    building them once in ``context``, and the entry it came from.

    Raises :class:`~hlokit.diagnostics.ParseError` as :func:`read_reproducer` does (and for bytecode, which
    carries no reproducer here), and :class:`~hlokit.passes.pipeline.PipelineError` located at the pipeline
    string when it names an unknown pass or is malformed.
    """
    if not isinstance(text, str):
        raise ParseError("--run-reproducer: the input is bytecode; a reproducer is MLIR text", file=source_name)
    config = read_reproducer(text, source_name=source_name, line_offset=line_offset)
    try:
        elements = parse_pipeline(config.pipeline)
        build_pass_manager(elements, context=context)
    except HlokitError as err:
        message = err.diagnostics[0].message if err.diagnostics else str(err)
        raise PipelineError(Diagnostic("error", f"the reproducer's {message}", source_name, config.line,
                                       config.col)) from None
    return elements, config
