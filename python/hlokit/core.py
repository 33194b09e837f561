"""The hlokit core: an MLIR context with every dialect real programs carry, parsing, verifying, printing.

Built on the MLIR Python bindings that ship inside jaxlib (``jaxlib.mlir``); no LLVM build of our own.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib.abc
import importlib.machinery
import os
import re
import sys
import weakref
from typing import Callable, Sequence, Union

import numpy as np
from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import builtin as _builtin
from jaxlib.mlir.dialects import chlo as _chlo
from jaxlib.mlir.dialects import func as _func
from jaxlib.mlir.dialects import sdy  # not _mlir_libs._sdy first: see make_context
from jaxlib.mlir.dialects import stablehlo as _stablehlo

from hlokit.diagnostics import (
    Diagnostic,
    HlokitError,
    ParseError,
    VerifyError,
    diagnostics_from_mlir_error,
)
from hlokit import exported
from hlokit.jax_private import JaxInternalMoved, append_dialect_search_prefix, register_upstream_dialects

# The bindings import a dialect's Python module (its op classes) the first time an op of that dialect is handed to
# Python (a walk, a block's ops): every program has func.func and builtin.module, so their modules (about 2 ms)
# load here with the others, not inside the first parse-and-walk of a process (issue 40, item 5).
_PRELOADED_DIALECT_MODULES = (_builtin, _func)


class _NoOpClasses(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves an empty module for every name under :data:`_NO_OP_CLASSES` (a search prefix of the bindings).

    Handing an op to Python (iterating a block's ops, a value's ``owner``) makes the bindings import its dialect's
    Python module (``jaxlib.mlir.dialects.<namespace>``) to find its op class, and they remember only a success:
    for a dialect jaxlib ships no module for (shape, tensor, vhlo, interpreter, quant; the ``check`` dialect and
    other unregistered ones) every op paid a failed import, ~25-50 us against ~2 us. With this prefix after
    jaxlib's, the failed lookup happens once per dialect: the empty module counts as loaded and the ops come as
    plain ``OpView`` s, as before. Dialects with a module in jaxlib find it first, as before."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == _NO_OP_CLASSES or fullname.startswith(_NO_OP_CLASSES + "."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname == _NO_OP_CLASSES)
        return None

    def create_module(self, spec):
        return None  # (the default module object)

    def exec_module(self, module):
        if module.__name__ == _NO_OP_CLASSES:
            module.__path__ = []


#: The package of :class:`_NoOpClasses`' empty dialect modules (it exists only through that finder).
_NO_OP_CLASSES = "hlokit._no_op_classes"
if not any(isinstance(f, _NoOpClasses) for f in sys.meta_path):
    sys.meta_path.append(_NoOpClasses())
try:
    append_dialect_search_prefix(_NO_OP_CLASSES)
except JaxInternalMoved:  # (a jaxlib whose bindings moved their globals: every op of such a dialect is slower)
    pass

__all__ = [
    "DIALECTS",
    "MAX_NESTING",
    "bytecode_time_limit",
    "check_bytecode",
    "deserialize_portable_artifact",
    "portable_artifact_version",
    "ContainedError",
    "run_contained",
    "check_nesting",
    "make_context",
    "load_dialects",
    "parse",
    "parse_module_op",
    "parse_file",
    "load",
    "read_program",
    "register_text_preprocessor",
    "text_preprocessors",
    "TextPreprocessor",
    "verify",
    "print_module",
    "split_input",
    "Program",
]

#: Dialects loaded into every hlokit context (the ones JAX-, TF- and PyTorch-exported StableHLO carries).
DIALECTS = (
    "builtin",
    "func",
    "stablehlo",
    "chlo",
    "shape",
    "tensor",
    "arith",
    "math",
    "scf",
    "cf",
    "vhlo",
    "sdy",
    "interpreter",
)

Program = Union[str, bytes, os.PathLike, ir.Module]

_REGISTRY: ir.DialectRegistry | None = None
#: Contexts in which hlokit (not the user) allowed unregistered ops, to accept the check dialect.
_TEXT_DIALECT_CONTEXTS: "weakref.WeakSet[ir.Context]" = weakref.WeakSet()


def _registry() -> ir.DialectRegistry:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = ir.DialectRegistry()
        register_upstream_dialects(_REGISTRY)
    return _REGISTRY


# Built at import, with the dialects' modules above: every make_context needs it, and building it (jaxlib's
# extension that registers the upstream dialects included) costs about 0.5 ms of a process's first context.
_registry()


def make_context(*, allow_unregistered_dialects: bool = False, threading: bool = False,
                 load: bool = True) -> ir.Context:
    """Return a new ``ir.Context`` with every dialect of :data:`DIALECTS` registered and loaded.

    builtin, func, shape, tensor, arith, math, scf, cf come from jaxlib's upstream-dialect registry;
    stablehlo, vhlo, chlo, sdy and the StableHLO ``interpreter`` dialect from jaxlib's extensions.
    The ``check`` dialect has no C++ registration in jaxlib; :mod:`hlokit.dialects.check` handles it.

    ``threading`` enables MLIR's multi-threaded pass execution (off by default: hlokit's Python
    passes run under the GIL, and the tools run on small machines).

    ``load=False`` (for a caller that only parses text in it, such as the interpreter's shared context): the
    dialects but ``stablehlo`` are registered, not loaded; MLIR's parser loads each one when the text first uses
    it, and ``quant`` (``!quant.uniform`` types) is not loaded. Such a context costs a fifth to a third as much
    to make; :func:`load_dialects` makes it a full one (before building IR in it, e.g. running passes).
    """
    ctx = ir.Context()
    ctx.append_dialect_registry(_registry())
    _stablehlo.register_dialect(ctx)
    lazy = {} if load else {"load": False}  # (load=False: the parser loads these when a text first uses them)
    _stablehlo.register_interpreter_dialect(ctx, **lazy)
    _chlo.register_dialect(ctx, **lazy)
    # Importing the extension _sdy before jaxlib.mlir.dialects.sdy makes the extension import that module
    # half-way through its own initialisation (jaxlib 0.11), which leaves jax's dialect module without the
    # attribute classes its lowerings need (sdy.DimMappingAttr, used by every LAPACK custom call).
    sdy.register_dialect(ctx, **lazy)
    ctx.allow_unregistered_dialects = allow_unregistered_dialects
    ctx.enable_multithreading(threading)
    if load:
        load_dialects(ctx)
    return ctx


def load_dialects(ctx: ir.Context) -> None:
    """Load every dialect of :data:`DIALECTS` and ``quant`` into ``ctx`` (a :func:`make_context` context; what
    ``make_context(load=False)`` leaves for later). Cheap when they are loaded already."""
    for name in DIALECTS:
        ctx.get_dialect_descriptor(name)  # loads it (ctx.dialects[name] also imports the dialect's Python module)
    if not ctx.is_registered_operation("quant.qcast"):
        _load_quant_dialect(ctx)


def _load_quant_dialect(ctx: ir.Context) -> None:
    """Load MLIR's ``quant`` dialect (StableHLO's quantized element types ``!quant.uniform<...>``).

    jaxlib registers no ``quant`` dialect of its own; the VHLO -> StableHLO legalization declares it as a
    dependent dialect, so scheduling that pass on an empty module loads it (nothing is rewritten)."""
    _stablehlo.register_stablehlo_passes()
    with ctx, ir.Location.unknown():
        passmanager.PassManager.parse("builtin.module(vhlo-legalize-to-stablehlo)").run(ir.Module.create().operation)


_MULTI_TOP = "source must contain a single top-level operation"


def _wrap_in_module(text: str) -> str:
    """Wrap several top-level ops in ``module { ... }`` without moving any line.

    ``module {`` goes on the blank line just before the first op when there is one (a chunk of
    ``--split-input-file`` always has one), otherwise in front of the first op's line.
    """
    lines = text.split("\n")
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith("//") or s.startswith("#") or s.startswith("!"):
            continue
        if i > 0 and not lines[i - 1].strip():
            lines[i - 1] = "module {"
        else:
            lines[i] = "module { " + line
        break
    return "\n".join(lines) + "\n}"


def _to_module(op: ir.Operation, loc: ir.Location) -> ir.Module:
    """Turn a parsed top-level op into an ``ir.Module`` (a builtin.module keeps its attributes)."""
    if op.name == "builtin.module":
        module = ir.Module.create(loc=op.location)
        for name in list(op.attributes):
            module.operation.attributes[name] = op.attributes[name]
        body = module.body
        for inner in list(op.regions[0].blocks[0].operations):
            body.append(inner.operation)
        op.erase()
        return module
    module = ir.Module.create(loc=loc)
    module.body.append(op)
    return module


def parse(
    source: str | bytes,
    *,
    context: ir.Context | None = None,
    source_name: str = "-",
    line_offset: int = 0,
    verify_after_parse: bool = True,
    preprocessors: Sequence[str] | None = None,
    strict_preprocessing: bool = False,
    module_op: bool = False,
) -> ir.Module | ir.Operation:
    """Parse MLIR text or bytecode into an ``ir.Module`` and verify it: hlokit's one parse entry point
    (:func:`parse_file`, :func:`load` and the interpreter's loader call it).

    Several top-level ops are wrapped in an implicit ``builtin.module`` (as mlir-opt does); one
    top-level ``builtin.module`` keeps its name and attributes. Locations in the IR and in errors name
    ``source_name``; ``line_offset`` shifts line numbers (used for ``--split-input-file`` chunks, so
    errors name lines of the whole file).

    Text goes through the registered text pre-processors first (:func:`register_text_preprocessor`; in their
    order): ``preprocessors`` names the ones to apply (default: those registered ``by_default``, e.g. the
    ``check`` dialect's syntax); with ``strict_preprocessing``, what a pre-processor could not read is a located
    :class:`ParseError` (else the text is left for MLIR's parser to report). Ops of a pre-processor's
    ``unregistered`` prefixes may stay unregistered; every other unregistered op is refused unless the
    context allows unregistered dialects. ``module_op``: return a parsed ``builtin.module`` op itself, as MLIR
    parsed and verified it, without the move of its contents into a new ``ir.Module`` (a reader that only walks
    the module saves that copy); other text still comes back as an ``ir.Module``.

    Bytes of JAX's serialized ``Exported`` (``jax.export.Exported.serialize()``, recognised by content) are
    read through :mod:`hlokit.exported`: the module it holds, with what the container carries written onto it.

    Raises :class:`ParseError` (located) when the text does not parse, :class:`VerifyError` when it does
    not verify (unless ``verify_after_parse`` is false).
    """
    ctx = context or _current_context()
    is_bytecode = isinstance(source, (bytes, bytearray)) and bytes(source[:4]) == b"ML\xefR"
    if not is_bytecode and exported.is_container(source):  # jax.export's serialized Exported (hlokit.exported)
        container = exported.read_container(source, source_name=source_name)
        module = parse(container.module, context=ctx, source_name=source_name, verify_after_parse=verify_after_parse)
        exported.annotate(module, container, source_name=source_name)
        return module
    if isinstance(source, (bytes, bytearray)) and not is_bytecode:
        try:
            source = bytes(source).decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError("input is neither UTF-8 text nor MLIR bytecode", file=source_name)
    if isinstance(source, str) and only_comments(source):
        return ir.Module.create(loc=ir.Location.file(source_name, line_offset + 1, 1, context=ctx))  # only comments
    if isinstance(source, str) and line_offset:
        source = "\n" * line_offset + source
    if isinstance(source, str):
        check_nesting(source, source_name=source_name)
        check_conv_dimension_numbers(source, source_name=source_name)
    source, text_dialects = _preprocess(source, preprocessors, strict_preprocessing, source_name)
    user_allows_unregistered = ctx.allow_unregistered_dialects and ctx not in _TEXT_DIALECT_CONTEXTS
    if text_dialects and not user_allows_unregistered:
        # check ops are unregistered ops to MLIR: the context must accept them from now on (the
        # verifier and passes see them too); every other unregistered op is still refused below.
        ctx.allow_unregistered_dialects = True
        _TEXT_DIALECT_CONTEXTS.add(ctx)
    if is_bytecode:
        data = bytes(source)
        with ctx, ir.Location.unknown(ctx):
            if portable_artifact_version(data) is not None:  # VHLO, as serialize_portable_artifact writes it
                module = deserialize_portable_artifact(data, ctx, source_name=source_name)
                return _verified(module, source_name, verify_after_parse)
            check_bytecode(data, source_name=source_name,
                           allow_unregistered_dialects=ctx.allow_unregistered_dialects)
            try:
                module = ir.Module.parse(data, ctx)
            except ir.MLIRError as err:
                raise ParseError(diagnostics_from_mlir_error(err), file=source_name) from None
            except (ValueError, MemoryError, OverflowError) as err:
                raise ParseError(f"the MLIR parser gave up on this input: {err}", file=source_name) from None
            if _is_vhlo(module):  # VHLO bytecode from another producer: read it as an artifact
                del module
                module = deserialize_portable_artifact(data, ctx, source_name=source_name)
        return _verified(module, source_name, verify_after_parse)
    op = _parse_top_level(source, ctx, source_name)
    # MLIR's parser verifies what it parsed: a whole builtin.module needs no second verification once
    # its ops are moved into the new module (a lone op is verified again, inside its module)
    verified = op.name == "builtin.module"
    if verified and module_op and ctx not in _TEXT_DIALECT_CONTEXTS:
        return op
    module = _to_module(op, ir.Location.file(source_name, 1, 1, 1, 1, ctx))
    if ctx in _TEXT_DIALECT_CONTEXTS:
        _check_registered(module, text_dialects, source_name)
    return module if verified else _verified(module, source_name, verify_after_parse)


def _parse_top_level(source: str, ctx: ir.Context, source_name: str) -> ir.Operation:
    """MLIR's parse of ``source`` (text whose nesting :func:`check_nesting` accepted) in ``ctx``: its one
    top-level op, or a ``builtin.module`` around several (:func:`_wrap_in_module`). MLIR verifies the ops
    it parses. Raises :class:`ParseError` (located) when the text does not parse."""
    with ctx, ir.Location.unknown(ctx):
        try:
            try:
                return ir.Operation.parse(source, source_name=source_name, context=ctx).operation
            except ir.MLIRError as err:
                if _MULTI_TOP not in str(err):
                    raise
                return ir.Operation.parse(_wrap_in_module(source), source_name=source_name, context=ctx).operation
        except ir.MLIRError as err:
            raise ParseError(diagnostics_from_mlir_error(err), file=source_name) from None
        except (ValueError, MemoryError, OverflowError) as err:
            # MLIR's parser can fail outside its diagnostics, e.g. a dimension of 2**32 makes an
            # llvm::SmallVector refuse to grow ("SmallVector unable to grow ..."): still a parse error.
            raise ParseError(f"the MLIR parser gave up on this input: {err}", file=source_name) from None


def parse_module_op(text: str, *, context: ir.Context, source_name: str = "-") -> ir.Operation | ir.Module:
    """:func:`parse` with ``module_op=True``: text that holds one ``builtin.module`` comes back as that op, as
    MLIR parsed and verified it (no copy into a new ``ir.Module``); text of another form as an ``ir.Module``."""
    return parse(text, context=context, source_name=source_name, module_op=True)


#: The first line of MLIR text that holds something other than whitespace and a ``//`` comment.
_CODE_LINE = re.compile(r"^[ \t\r\f\v]*(?!//)\S", re.M)


def only_comments(text: str) -> bool:
    """Whether ``text`` holds nothing but whitespace and ``//`` comments (it parses to an empty module).
    Stops at the first line of code, so a real program costs almost nothing."""
    return _CODE_LINE.search(text) is None


def _current_context() -> ir.Context:
    """The context of the enclosing ``with ctx:`` block, or a new :func:`make_context` outside one."""
    try:
        current = ir.Context.current
    except ValueError:  # some binding versions raise instead of returning None
        current = None
    return current if current is not None else make_context()


#: Deepest bracket nesting (``( [ { <`` together) accepted in MLIR text. MLIR's parser is recursive:
#: nested regions crashed the process between 2,000 and 2,500 levels (about 4,000 brackets), nested
#: array attributes between 6,000 and 12,000, on the 8 MiB main-thread stack (jaxlib 0.10.2). Real
#: programs nest a few dozen levels deep.
MAX_NESTING = 512

# (a string literal written as an unrolled loop: the same matches as ``"(?:[^"\\\n]|\\.)*"``, twice as fast)
_NOT_BRACKETS = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|->')
_BRACKET_DELTA = np.zeros(256, np.int8)
_BRACKET_DELTA[list(b"([{<")] = 1
_BRACKET_DELTA[list(b")]}>")] = -1
_BRACKET_CODES = bytes((_BRACKET_DELTA.astype(np.uint8) + (np.arange(256) == 0x22) * 2).astype(np.uint8))


#: A convolution's dimension numbers in their custom form, ``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` (the
#: ``stablehlo.convolution`` op and the ``#stablehlo.conv<...>`` attribute).
_CONV_DIMS = re.compile(r"\[([^\[\]]*)\]\s*x\s*\[([^\[\]]*)\]\s*->\s*\[([^\[\]]*)\]")
_INTEGER = re.compile(r"\d+")


def check_conv_dimension_numbers(text: str, *, source_name: str = "-") -> None:
    """Raise :class:`ParseError` at a spatial dimension of a convolution's dimension numbers (``[b, 0, 1, f]x[0,
    1, i, o]->[b, 0, 1, f]``) larger than the text is long: no tensor type written in the text has that many
    dimensions, and MLIR's parser, which lists the spatial dimensions left out, takes memory and time in
    proportion to the largest one (17 GB and 33 s for 2147483647 with jaxlib 0.10.2). Smaller ones are left to
    MLIR's parser and verifier. Texts without an ``x`` or a ``->`` are not scanned further."""
    if "x" not in text or "->" not in text:
        return
    limit = len(text)
    for m in _CONV_DIMS.finditer(text):
        for group in (1, 2, 3):
            for n in _INTEGER.finditer(m.group(group)):
                if len(n.group()) > 9 or int(n.group()) > limit:
                    raise _error_at(text, m.start(group) + n.start(), source_name,
                                    f"convolution dimension numbers: spatial dimension {n.group()} is out of range "
                                    f"(no tensor type in this {limit}-character input has that many dimensions)")


def _error_at(text: str | bytes, at: int, source_name: str, message: str) -> ParseError:
    """A :class:`ParseError` located at offset ``at`` of ``text`` (line and column from 1; for bytes, the column
    counts bytes)."""
    newline = "\n" if isinstance(text, str) else b"\n"
    line = text.count(newline, 0, at) + 1
    col = at - (text.rfind(newline, 0, at) + 1) + 1
    return ParseError(Diagnostic("error", message, file=source_name, line=line, col=col))


def _deepest_simple(data: bytes) -> int | None:
    """The deepest bracket nesting of ``data`` as :func:`check_nesting` counts it, computed on the bracket and
    quote bytes alone (a ``bytes.translate`` and a few numpy passes, no regular expression), or None for text
    this shortcut does not read: text with a ``//`` comment or a backslash escape, or a ``"`` that does not close
    a string on its own line."""
    if b"//" in data or b"\\" in data:
        return None
    raw = np.frombuffer(data, np.uint8)
    codes = np.frombuffer(data.translate(_BRACKET_CODES), np.int8)  # +1 opening, -1 closing, 2 quote, else 0
    at = np.flatnonzero(codes)
    kind = codes[at]
    is_quote = kind == 2
    quotes = at[is_quote]
    if quotes.size % 2:
        return None
    if quotes.size:
        newlines = np.flatnonzero(raw == 0x0A)
        if (np.searchsorted(newlines, quotes[0::2]) != np.searchsorted(newlines, quotes[1::2])).any():
            return None
    # a bracket counts unless it is inside a string (an odd number of quotes before it) or the ``>`` of ``->``
    arrow = (raw[at] == 0x3E) & (raw[at - 1] == 0x2D) & (at > 0)
    counted = ~is_quote & ~arrow & (np.cumsum(is_quote, dtype=np.int32) % 2 == 0)
    return int(np.cumsum(kind[counted], dtype=np.int32).max(initial=0))


def _deepest_stripped(data: bytes) -> int:
    """The deepest bracket nesting of ``data`` with strings, comments and ``->`` cut out (a substitution without a
    Python call per match; cutting them changes offsets, not the depth at any bracket): any text."""
    stripped = _NOT_BRACKETS.sub(b"", data)
    return int(np.cumsum(_BRACKET_DELTA[np.frombuffer(stripped, np.uint8)], dtype=np.int32).max(initial=0))


def check_nesting(text: str, *, source_name: str = "-", limit: int = MAX_NESTING) -> None:
    """Raise :class:`ParseError` at the first bracket nested more than ``limit`` deep in ``text``.

    MLIR's parser recurses once per nesting level and crashes the process (stack overflow) on deep
    enough input, so text is checked before it reaches the parser. Brackets inside string literals
    and ``//`` comments, and the ``>`` of ``->``, do not count. Cost: one pass over the bytes in numpy
    (about 10 ms per MB); texts with no more than ``limit`` opening brackets in all are not scanned.
    """
    if len(text) <= limit or text.count("(") + text.count("[") + text.count("{") + text.count("<") <= limit:
        return
    data = text.encode("utf-8")
    # First the deepest level only (the located scan below only runs on text that is too deep): on the brackets
    # alone where the text allows it, else on the text with strings, comments and ``->`` cut out.
    deepest = _deepest_simple(data)
    if (_deepest_stripped(data) if deepest is None else deepest) <= limit:
        return
    masked = _NOT_BRACKETS.sub(lambda m: b" " * len(m.group()), data)
    depth = np.cumsum(_BRACKET_DELTA[np.frombuffer(masked, np.uint8)], dtype=np.int32)
    over = np.flatnonzero(depth > limit)
    if over.size == 0:
        return
    raise _error_at(data, int(over[0]), source_name, f"brackets nested more than {limit} levels deep: MLIR's "
                    "recursive parser would overflow its stack on such input")


def bytecode_time_limit(nbytes: int) -> float:
    """Seconds a reader of ``nbytes`` of MLIR bytecode (a module, a StableHLO portable artifact) runs before
    the input counts as one it never finishes: 10 s plus 1 s per MiB (real bytecode reads at many MiB per
    second; a corrupt varint can make MLIR's reader spin for minutes on a 1 KiB file)."""
    return 10.0 + nbytes / 2**20


def check_bytecode(data: bytes, *, source_name: str = "-", timeout: float | None = None,
                   allow_unregistered_dialects: bool = True) -> None:
    """Raise :class:`ParseError` when MLIR's bytecode reader would crash or hang on ``data``, read in a context
    that accepts unregistered dialects or not (``allow_unregistered_dialects``: as the context that reads it
    next does, so that the same paths of the reader run; a corrupt op name that is not UTF-8 aborts the process
    only where it is refused).

    jaxlib's bytecode reader aborts the process on some corrupt input (an op or attribute name that is
    not UTF-8 throws inside the bindings: ``terminate called ... str_from_cstr_and_size()``) and can
    spin forever on others, and a module that reads and verifies can still crash a custom printer. So the
    bytecode is first read, walked, verified and printed (generic and custom forms) in hlokit's worker process
    (:mod:`hlokit.worker`: started once, never forked from this one; a few milliseconds plus the read itself per
    call); only when it finishes there is it read in this process. The error names the crash's signal, the time
    limit, or the reader's own diagnostics. ``timeout`` (seconds) defaults to :func:`bytecode_time_limit`.
    """
    from hlokit import worker  # (subprocess, json, threading: imported when bytecode is first read)

    limit = timeout if timeout is not None else bytecode_time_limit(len(data))
    what = "corrupt MLIR bytecode"
    try:
        worker.run_job("hlokit.core:read_bytecode_job", data, timeout=limit,
                       options={"allow_unregistered_dialects": allow_unregistered_dialects})
    except worker.WorkerTimeout:
        raise ParseError(Diagnostic("error", f"{what}: the bytecode reader did not finish within {limit:.0f} s",
                                    file=source_name)) from None
    except worker.WorkerCrashed as err:
        raise ParseError(Diagnostic("error", f"{what}: reading or printing it crashed ({err})",
                                    file=source_name)) from None
    except worker.JobDiagnostics as err:
        raise ParseError(err.diagnostics, file=source_name) from None
    except worker.JobFailed as err:
        raise ParseError(Diagnostic("error", f"{what}: {err}", file=source_name)) from None


def read_bytecode_job(data: bytes, allow_unregistered_dialects: bool) -> bytes:
    """The work of :func:`check_bytecode`, run in the worker process: read ``data`` in a fresh context, print it in
    generic form, verify it and, when it verifies, print it in custom form (with and without locations), then
    destroy it (a corrupt module's double free shows there). Raises :class:`ParseError` with the reader's
    diagnostics when ``data`` does not read."""
    ctx = make_context(allow_unregistered_dialects=allow_unregistered_dialects)
    try:
        module = ir.Module.parse(data, ctx)
    except ir.MLIRError as err:
        raise ParseError(diagnostics_from_mlir_error(err)) from None
    module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    try:
        verified = module.operation.verify()
    except ir.MLIRError:
        verified = False
    if verified:  # the tools print verified IR in its custom form: its printers run here first
        module.operation.get_asm(enable_debug_info=True, assume_verified=True)
        module.operation.get_asm(assume_verified=True)
    del module, ctx
    gc.collect()
    return b""


#: The producer string StableHLO's portable-artifact writer puts in the bytecode header ("StableHLO_v1.17.0").
_PORTABLE_PRODUCER = re.compile(rb"StableHLO_v(\d+)\.(\d+)\.(\d+)")
_ARTIFACT = "cannot deserialize the StableHLO portable artifact"


def _bytecode_producer(data: bytes) -> bytes | None:
    """The producer string of MLIR bytecode's header (magic ``ML\\xefR``, the format version as a prefix varint,
    then the producer, NUL-terminated; MLIR bytecode format, https://mlir.llvm.org/docs/BytecodeFormat/), or
    None when ``data`` has no readable header."""
    if not data.startswith(b"ML\xefR") or len(data) < 6:
        return None
    first = data[4]
    width = 9 if first == 0 else (first & -first).bit_length()  # bytes of the varint: trailing zeros + 1
    start = 4 + width
    end = data.find(b"\x00", start, start + 256)
    return data[start:end] if end >= 0 else None


def portable_artifact_version(data: bytes) -> str | None:
    """The StableHLO version ``"X.Y.Z"`` a portable artifact (VHLO bytecode written by StableHLO's
    ``serialize_portable_artifact``: ``hlokit-translate --serialize``, ``jax.export``'s
    ``Exported.mlir_module_serialized``) names in its bytecode header's producer string (``StableHLO_vX.Y.Z``),
    or None for other input (text, bytecode of another producer)."""
    producer = _bytecode_producer(data)
    m = _PORTABLE_PRODUCER.fullmatch(producer) if producer is not None else None
    return b".".join(m.groups()).decode() if m else None


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def _is_vhlo(module: ir.Module) -> bool:
    """Whether the top level of ``module`` holds VHLO ops (a portable artifact's ``vhlo.func_v1``)."""
    return any(op.operation.name.startswith("vhlo.") for op in module.body.operations)


def deserialize_portable_artifact(data: bytes, context: ir.Context, *, source_name: str = "-") -> ir.Module:
    """A StableHLO portable artifact (VHLO bytecode) -> the StableHLO module it holds, in ``context``.

    Read with StableHLO's public ``deserialize_portable_artifact`` (``jaxlib.mlir.dialects.stablehlo``; the
    compatibility guarantees: StableHLO compatibility RFC, https://github.com/openxla/stablehlo/blob/main/rfcs/
    20220912-compatibility.md), first in hlokit's worker process (:func:`run_contained`: the reader can abort
    or spin on a corrupt artifact), then here. The module is not verified here (:func:`parse` does).

    Raises :class:`ParseError` (``source_name: error: ...``) when ``data`` is not MLIR bytecode, when the
    artifact's version (:func:`portable_artifact_version`) is newer than jaxlib's StableHLO
    (``stablehlo.get_current_version()``; both versions named), or when it does not read (the reader's
    diagnostics, a crash's signal, or the time limit :func:`bytecode_time_limit`).
    """
    if not data.startswith(b"ML\xefR"):
        raise ParseError(f"{_ARTIFACT}: the input is not MLIR bytecode "
                         "(write one with hlokit-translate --serialize --target=...)", file=source_name)
    version = portable_artifact_version(data)
    current = _stablehlo.get_current_version()
    if version is not None and _version_key(version) > _version_key(current):
        raise ParseError(f"{_ARTIFACT}: it was written by StableHLO {version}, newer than the StableHLO {current} "
                         f"of this jaxlib; serialize it again with --target={current} or older (jax.export: "
                         "an older jax), or upgrade jaxlib", file=source_name)
    try:
        run_contained("hlokit.core:deserialize_portable_job", data, what=_ARTIFACT, source_name=source_name,
                      timeout=bytecode_time_limit(len(data)))
    except ContainedError as err:
        raise ParseError(f"{_ARTIFACT}: {err}", file=source_name) from None
    try:
        return _read_portable(data, context)
    except ValueError as err:
        raise ParseError(f"{_ARTIFACT}: {err}", file=source_name) from None


def deserialize_portable_job(data: bytes) -> bytes:
    """The contained work of :func:`deserialize_portable_artifact` (a job of :func:`run_contained`, run in the
    worker process): deserialize ``data`` in a fresh context, print it (generic form), verify it and, when it
    verifies, print it in custom form. Raises ``ValueError`` with the reader's diagnostics when it does not read."""
    ctx = make_context()
    module = _read_portable(data, ctx)
    module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    try:
        verified = module.operation.verify()
    except ir.MLIRError:  # reported by the caller's own verification
        verified = False
    if verified:
        module.operation.get_asm(enable_debug_info=True, assume_verified=True)
    del module, ctx
    gc.collect()
    return b""


def _read_portable(data: bytes, context: ir.Context) -> ir.Module:
    """``stablehlo.deserialize_portable_artifact`` with the reader's diagnostics folded into one ``ValueError``."""
    reasons: list[str] = []

    def collect(diag) -> bool:  # the reader's diagnostics join the error instead of going to stderr
        try:
            if diag.severity == ir.DiagnosticSeverity.ERROR:
                reasons.append(str(diag.message))
        except Exception:  # noqa: BLE001 - a message that is not UTF-8 (corrupt names in the artifact)
            reasons.append("a diagnostic whose text is not valid UTF-8")
        return True

    handler = context.attach_diagnostic_handler(collect)
    try:
        return _stablehlo.deserialize_portable_artifact(context, data)
    except Exception as exc:  # noqa: BLE001 - the binding raises a bare Exception / MLIRError
        raise ValueError("; ".join(dict.fromkeys(reasons + [str(exc)]))) from None
    finally:
        handler.detach()


class ContainedError(Exception):
    """A job run by :func:`run_contained` raised: ``str(err)`` is its message."""


def run_contained(job: str, payload: bytes = b"", *, what: str, source_name: str = "-", timeout: float = 60.0,
                  options: dict | None = None) -> bytes:
    """Run ``job`` on ``payload`` in hlokit's worker process and return the bytes it returns.

    ``job`` names a module-level function of an hlokit module, ``"hlokit.module:function"``, called as
    ``function(payload, **options)`` (``options``: JSON values; see :mod:`hlokit.worker`). For upstream C++ that
    can abort (``Check failed``, ``LLVM ERROR``) or hang on user input: a crash or a timeout of the worker becomes
    a :class:`ParseError` ``"{what}: crashed on this input (signal N)"`` / ``"{what}: did not finish within N
    s"``; an exception raised by the job comes back as :class:`ContainedError` with its message (an
    :class:`~hlokit.diagnostics.HlokitError`'s rendered diagnostics).
    """
    from hlokit import worker  # (imported on first use: most processes never start the worker)

    try:
        return worker.run_job(job, payload, options=options, timeout=timeout)
    except worker.WorkerTimeout:
        raise ParseError(Diagnostic("error", f"{what}: did not finish within {timeout:.0f} s",
                                    file=source_name)) from None
    except worker.WorkerCrashed as err:
        message = f"crashed on this input ({err})" if err.signal else f"failed ({err})"
        raise ParseError(Diagnostic("error", f"{what}: {message}", file=source_name)) from None
    except worker.JobDiagnostics as err:
        raise ContainedError(HlokitError(err.diagnostics, file=err.default_file).render()) from None
    except worker.JobFailed as err:
        raise ContainedError(str(err)) from None


@dataclasses.dataclass(frozen=True)
class TextPreprocessor:
    """A rewrite of MLIR text that :func:`parse` applies before MLIR's parser sees the text.

    ``rewrite(text, problems)`` returns the text (the same lines: diagnostics keep their positions) and appends a
    ``(line, col, message)`` to the list ``problems`` for each statement it could not read (it leaves those
    alone). Pre-processors run in ascending ``order`` (then registration order). ``unregistered``: op-name
    prefixes of ops its output may hold that no dialect registers; they are accepted when the rewritten text
    names one in generic form (``"prefix...``). ``by_default``: applied by every :func:`parse` (else only when a
    caller names it).
    """

    name: str
    rewrite: Callable[[str, list], str]
    order: int = 0
    unregistered: tuple[str, ...] = ()
    by_default: bool = True


_PREPROCESSORS: dict[str, TextPreprocessor] = {}


def register_text_preprocessor(name: str, rewrite: Callable[[str, list], str], *, order: int = 0,
                               unregistered: Sequence[str] = (), by_default: bool = True) -> TextPreprocessor:
    """Register a :class:`TextPreprocessor` under ``name`` (registering a name again replaces it). Modules above
    the core register theirs at import: the ``check`` dialect's custom syntax (``hlokit.dialects.check``,
    order 10, by default) and the interpreter's names for StableHLO ops newer than jaxlib's
    (``hlokit.interpreter.collectives``, order 20, on request)."""
    entry = TextPreprocessor(name, rewrite, order, tuple(unregistered), by_default)
    _PREPROCESSORS[name] = entry
    return entry


def text_preprocessors() -> list[TextPreprocessor]:
    """The registered text pre-processors, in the order :func:`parse` applies them."""
    entries = list(_PREPROCESSORS.values())
    return sorted(entries, key=lambda e: (e.order, entries.index(e)))


def _preprocess(source: str | bytes, names: Sequence[str] | None, strict: bool,
                source_name: str) -> tuple[str | bytes, tuple[str, ...]]:
    """Apply the text pre-processors (all ``by_default`` ones, or those ``names`` lists) to ``source``: the text
    and the op-name prefixes that may then stay unregistered. Raises :class:`ParseError` (with ``strict``) at
    what a pre-processor could not read."""
    if not isinstance(source, str):
        return source, ()
    if names is not None:
        unknown = [n for n in names if n not in _PREPROCESSORS]
        if unknown:
            raise ValueError(f"unknown text pre-processor(s) {unknown}; registered: {sorted(_PREPROCESSORS)}")
    allowed: list[str] = []
    problems: list = []
    for entry in text_preprocessors():
        if (entry.by_default if names is None else entry.name in names):
            source = entry.rewrite(source, problems)
            allowed += [p for p in entry.unregistered if f'"{p}' in source]
    if strict and problems:
        raise ParseError([Diagnostic("error", msg, source_name, line, col) for line, col, msg in problems])
    return source, tuple(allowed)


def _check_registered(module: ir.Module, allowed: tuple[str, ...], source_name: str) -> None:
    """ParseError at the first unregistered op whose name does not start with one of ``allowed``."""
    bad: list[Diagnostic] = []

    def visit(op):
        name = op.name
        if not op.context.is_registered_operation(name) and not name.startswith(allowed):
            from hlokit.diagnostics import location_position

            file, line, col = location_position(op.location)
            bad.append(
                Diagnostic(
                    "error",
                    f"operation '{name}' belongs to an unregistered dialect; if this is intended, "
                    "use --allow-unregistered-dialect",
                    file or source_name,
                    line,
                    col,
                )
            )
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if bad:
        raise ParseError(bad)


def _verified(module: ir.Module, source_name: str, enabled: bool) -> ir.Module:
    if enabled:
        verify(module, source_name=source_name)
    return module


def verify(module: ir.Module | ir.Operation, *, source_name: str | None = None) -> None:
    """Run every op's verifier; raise :class:`VerifyError` with the located diagnostics on failure."""
    op = module.operation
    try:
        op.verify()
    except ir.MLIRError as err:
        raise VerifyError(diagnostics_from_mlir_error(err), file=source_name) from None


def read_source(path: str | os.PathLike) -> bytes:
    """Read a file (``-`` is standard input) as bytes; :class:`ParseError` if it cannot be read."""
    path = os.fspath(path)
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise ParseError(
            Diagnostic("error", f"could not open input file: {err.strerror}", file=path)
        ) from None


def parse_file(path: str | os.PathLike, *, context: ir.Context | None = None) -> ir.Module:
    """Parse an MLIR file (text or bytecode; ``-`` reads standard input). See :func:`parse`."""
    path = os.fspath(path)
    name = "<stdin>" if path == "-" else path
    return parse(read_source(path), context=context, source_name=name)


def read_program(program: str | bytes | os.PathLike, *, source_name: str | None = None,
                 default_name: str = "-") -> tuple[str | bytes, str]:
    """A program given as a path, MLIR text or bytes: (its text or bytes, the name its locations and errors get).

    A ``str`` is taken as a path when it names an existing file and holds no newline; otherwise as MLIR text.
    A path's name is the path (``-`` reads standard input, named ``<stdin>``); text's is ``default_name``;
    ``source_name`` overrides both. Raises :class:`ParseError` when a file cannot be read."""
    if isinstance(program, os.PathLike) or (
        isinstance(program, str) and "\n" not in program and os.path.isfile(program)
    ):
        path = os.fspath(program)
        return read_source(path), source_name or ("<stdin>" if path == "-" else path)
    return program, source_name or default_name


def load(program: Program, *, context: ir.Context | None = None, source_name: str | None = None,
         **parse_options) -> ir.Module:
    """Accept a program as an ``ir.Module``, MLIR text, bytecode, or a path (see :func:`read_program`), and
    return a module (an ``ir.Module`` comes back as it is). ``parse_options`` go to :func:`parse`."""
    if isinstance(program, ir.Module):
        return program
    source, name = read_program(program, source_name=source_name)
    return parse(source, context=context, source_name=name, **parse_options)


def print_module(
    module: ir.Module | ir.Operation,
    *,
    generic: bool = False,
    debug_info: bool = False,
    pretty_debug_info: bool = False,
    large_elements_limit: int | None = None,
    assume_verified: bool = False,
    large_resource_limit: int | None = None,
    local_scope: bool = False,
    skip_regions: bool = False,
    name_loc_as_prefix: bool = False,
) -> str:
    """Print IR as text: pretty form (default) or generic form, optionally with locations.

    ``assume_verified`` skips MLIR's verification before printing: pass it only for IR that was just
    verified (after parsing or a pass manager run), never for IR under construction. The rest are MLIR's
    ``OpPrintingFlags`` (mlir-opt's ``--mlir-elide-elementsattrs-if-larger``, ``--mlir-elide-resource-strings-if-larger``
    (bytes), ``--mlir-print-local-scope``, ``--mlir-print-skip-regions``, ``--mlir-use-nameloc-as-prefix``); only
    those set are handed to the bindings.
    """
    extra = {k: v for k, v in (("use_local_scope", local_scope), ("skip_regions", skip_regions),
                               ("use_name_loc_as_prefix", name_loc_as_prefix)) if v}
    if large_resource_limit is not None:  # (0 is a limit: every resource elided)
        extra["large_resource_limit"] = large_resource_limit
    return module.operation.get_asm(
        enable_debug_info=debug_info,
        pretty_debug_info=pretty_debug_info,
        print_generic_op_form=generic,
        large_elements_limit=large_elements_limit,
        assume_verified=assume_verified,
        **extra,
    )


SPLIT_MARKER = "// -----"


def split_input(text: str) -> list[tuple[str, int]]:
    """Split text at every ``// -----`` (``--split-input-file``): a list of (chunk, lines before it).

    As in mlir-opt, the marker splits wherever it stands (upstream suites rely on ``// // -----``
    splitting too); the rest of the marker's line starts the next chunk. The second item is the
    number of newlines before the chunk in the whole file, to pass as ``line_offset`` to :func:`parse`,
    so diagnostics name lines of the whole file.
    """
    chunks = []
    start = 0
    while True:
        found = text.find(SPLIT_MARKER, start)
        end = len(text) if found < 0 else found
        chunks.append((text[start:end], text.count("\n", 0, start)))
        if found < 0:
            return chunks
        start = found + len(SPLIT_MARKER)
