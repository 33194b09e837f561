"""The hlokit core: an MLIR context with every dialect real programs carry, parsing, verifying, printing.

Built on the MLIR Python bindings that ship inside jaxlib (``jaxlib.mlir``); no LLVM build of our own.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import re
import signal
import sys
import tempfile
import time
import warnings
import weakref
from typing import Callable, Union

import numpy as np
from jaxlib.mlir import ir, passmanager
from jaxlib.mlir._mlir_libs import _chlo, _jax_mlir_ext, _stablehlo
from jaxlib.mlir.dialects import sdy  # not _mlir_libs._sdy first: see make_context

from hlokit.diagnostics import (
    Diagnostic,
    ParseError,
    VerifyError,
    diagnostics_from_mlir_error,
)

__all__ = [
    "DIALECTS",
    "MAX_NESTING",
    "bytecode_time_limit",
    "check_bytecode",
    "ContainedError",
    "run_contained",
    "check_nesting",
    "make_context",
    "parse",
    "parse_module_op",
    "parse_file",
    "load",
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
        _jax_mlir_ext.register_dialects(_REGISTRY)
    return _REGISTRY


def make_context(*, allow_unregistered_dialects: bool = False, threading: bool = False) -> ir.Context:
    """Return a new ``ir.Context`` with every dialect of :data:`DIALECTS` registered and loaded.

    builtin, func, shape, tensor, arith, math, scf, cf come from jaxlib's upstream-dialect registry;
    stablehlo, vhlo, chlo, sdy and the StableHLO ``interpreter`` dialect from jaxlib's extensions.
    The ``check`` dialect has no C++ registration in jaxlib; :mod:`hlokit.dialects.check` handles it.

    ``threading`` enables MLIR's multi-threaded pass execution (off by default: hlokit's Python
    passes run under the GIL, and the tools run on small machines).
    """
    ctx = ir.Context()
    ctx.append_dialect_registry(_registry())
    _stablehlo.register_dialect(ctx)
    _stablehlo.register_interpreter_dialect(ctx)
    _chlo.register_dialect(ctx)
    # Importing the extension _sdy before jaxlib.mlir.dialects.sdy makes the extension import that module
    # half-way through its own initialisation (jaxlib 0.11), which leaves jax's dialect module without the
    # attribute classes its lowerings need (sdy.DimMappingAttr, used by every LAPACK custom call).
    sdy.register_dialect(ctx)
    for name in DIALECTS:
        ctx.dialects[name]  # loads it
    ctx.allow_unregistered_dialects = allow_unregistered_dialects
    ctx.enable_multithreading(threading)
    _load_quant_dialect(ctx)
    return ctx


def _load_quant_dialect(ctx: ir.Context) -> None:
    """Load MLIR's ``quant`` dialect (StableHLO's quantized element types ``!quant.uniform<...>``).

    jaxlib registers no ``quant`` dialect of its own; the VHLO -> StableHLO legalization declares it as a
    dependent dialect, so scheduling that pass on an empty module loads it (nothing is rewritten)."""
    _stablehlo.register_stablehlo_passes()
    with ctx, ir.Location.unknown():
        passmanager.PassManager.parse("builtin.module(vhlo-legalize-to-stablehlo)").run(ir.Module.create().operation)


_MULTI_TOP = "source must contain a single top-level operation"
_TOP_LEVEL_START = re.compile(r"^\s*(?:[%\w\"]|\^)")


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
) -> ir.Module:
    """Parse MLIR text or bytecode into an ``ir.Module`` and verify it.

    Several top-level ops are wrapped in an implicit ``builtin.module`` (as mlir-opt does); one
    top-level ``builtin.module`` keeps its name and attributes. Locations in the IR and in errors name
    ``source_name``; ``line_offset`` shifts line numbers (used for ``--split-input-file`` chunks, so
    errors name lines of the whole file).

    Raises :class:`ParseError` (located) when the text does not parse, :class:`VerifyError` when it does
    not verify (unless ``verify_after_parse`` is false).
    """
    ctx = context or _current_context()
    is_bytecode = isinstance(source, (bytes, bytearray)) and bytes(source[:4]) == b"ML\xefR"
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
    source, text_dialects = _rewrite_text_dialects(source)
    user_allows_unregistered = ctx.allow_unregistered_dialects and ctx not in _TEXT_DIALECT_CONTEXTS
    if text_dialects and not user_allows_unregistered:
        # check ops are unregistered ops to MLIR: the context must accept them from now on (the
        # verifier and passes see them too); every other unregistered op is still refused below.
        ctx.allow_unregistered_dialects = True
        _TEXT_DIALECT_CONTEXTS.add(ctx)
    if is_bytecode:
        with ctx, ir.Location.unknown(ctx):
            check_bytecode(bytes(source), source_name=source_name,
                           allow_unregistered_dialects=ctx.allow_unregistered_dialects)
            try:
                module = ir.Module.parse(bytes(source), ctx)
            except ir.MLIRError as err:
                raise ParseError(diagnostics_from_mlir_error(err), file=source_name) from None
            except (ValueError, MemoryError, OverflowError) as err:
                raise ParseError(f"the MLIR parser gave up on this input: {err}", file=source_name) from None
        return _verified(module, source_name, verify_after_parse)
    op = _parse_top_level(source, ctx, source_name)
    # MLIR's parser verifies what it parsed: a whole builtin.module needs no second verification once
    # its ops are moved into the new module (a lone op is verified again, inside its module)
    verified = op.name == "builtin.module"
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
    """Parse MLIR text that holds one ``builtin.module`` and return that op as MLIR parsed and verified it,
    without :func:`parse`'s move of its contents into a new ``ir.Module`` (a reader that only walks the
    module saves that copy). Text of another form (no ``module``, several top-level ops) comes back as
    :func:`parse`'s ``ir.Module``. For text without the ``check`` dialect's ops (whose syntax :func:`parse`
    rewrites first); nesting is checked as :func:`parse` does. Raises :class:`ParseError` /
    :class:`VerifyError` as :func:`parse`."""
    if only_comments(text):
        return parse(text, context=context, source_name=source_name)
    check_nesting(text, source_name=source_name)
    check_conv_dimension_numbers(text, source_name=source_name)
    op = _parse_top_level(text, context, source_name)
    if op.name == "builtin.module":
        return op
    module = _to_module(op, ir.Location.file(source_name, 1, 1, 1, 1, context))
    return _verified(module, source_name, True)


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

_NOT_BRACKETS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->')
_BRACKET_DELTA = np.zeros(256, np.int8)
_BRACKET_DELTA[list(b"([{<")] = 1
_BRACKET_DELTA[list(b")]}>")] = -1


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
    bytecode is first read, walked, verified and printed (generic and custom forms) in a forked child process
    (copy-on-write: no re-import, a few milliseconds plus the read itself); only when the child
    finishes is it read in this process. ``timeout`` (seconds) defaults to :func:`bytecode_time_limit`.
    Where ``os.fork`` does not exist (Windows) the check is skipped.
    """
    if not hasattr(os, "fork"):
        return
    limit = timeout if timeout is not None else bytecode_time_limit(len(data))
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "process is multi-threaded": the child only reads
        pid = os.fork()
    if pid == 0:  # child: never returns into the caller's code
        status = 0
        try:
            os.close(read_end)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)  # the reader's own abort text is replaced by our diagnostic
            ctx = make_context(allow_unregistered_dialects=allow_unregistered_dialects)
            try:
                module = ir.Module.parse(data, ctx)
            except ir.MLIRError as err:
                # an ordinary parse error: its diagnostics go to the parent, which never reads this input
                found = diagnostics_from_mlir_error(err)
                payload = json.dumps([dataclasses.asdict(d) for d in found]).encode()
                if len(payload) > 60000:  # stay inside the pipe's buffer: the parent reads after exit
                    first = dataclasses.replace(found[0], message=found[0].message[:2000], notes=[])
                    payload = json.dumps([dataclasses.asdict(first)]).encode()
                os.write(write_end, payload)
                status = 3
            else:
                module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
                try:
                    verified = module.operation.verify()
                except ir.MLIRError:
                    verified = False
                if verified:  # the tools print verified IR in its custom form: its printers run here first
                    module.operation.get_asm(enable_debug_info=True, assume_verified=True)
                    module.operation.get_asm(assume_verified=True)
                del module  # destroy it here: a corrupt module's double free shows in the child
            ctx = None
            gc.collect()
        except BaseException as err:  # noqa: BLE001 - reported to the parent as text
            os.write(write_end, str(err).encode("utf-8", "replace")[:2000])
            status = 4
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        waited, status = _wait_child(pid, limit)
        message = _read_all(read_end) if waited else b""
    finally:
        os.close(read_end)
    what = "corrupt MLIR bytecode"
    if not waited:
        raise ParseError(Diagnostic("error", f"{what}: the bytecode reader did not finish within {limit:.0f} s",
                                    file=source_name))
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        raise ParseError(Diagnostic("error", f"{what}: reading or printing it crashed (signal {sig})",
                                    file=source_name))
    code = os.WEXITSTATUS(status)
    if code == 3:
        raise ParseError([_diagnostic_from_dict(d) for d in json.loads(message)], file=source_name)
    if code != 0:
        raise ParseError(Diagnostic("error", f"{what}: {message.decode('utf-8', 'replace')}", file=source_name))


class ContainedError(Exception):
    """A function run by :func:`run_contained` raised: ``str(err)`` is its message."""


def run_contained(fn: Callable[[], bytes], *, what: str, source_name: str = "-", timeout: float = 60.0) -> bytes:
    """Run ``fn`` (returning bytes) in a forked child and return its result here.

    For upstream C++ that can abort (``Check failed``, ``LLVM ERROR``) or hang on user input: a crash
    or a timeout of the child becomes a :class:`ParseError` ``"{what}: ... crashed (signal N)"`` /
    ``"did not finish within N s"``; an exception raised by ``fn`` comes back as
    :class:`ContainedError` with its message. The result travels through a temporary file (any size).
    Where ``os.fork`` does not exist, ``fn`` runs in this process.
    """
    if not hasattr(os, "fork"):
        return fn()
    with tempfile.TemporaryDirectory(prefix="hlokit-") as tmp:
        out = os.path.join(tmp, "result")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # child: never returns into the caller's code
            status = 0
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 2)  # the C++ abort text is replaced by our diagnostic
                try:
                    data = fn()
                except Exception as err:  # noqa: BLE001 - reported to the parent as text
                    data = str(err).encode("utf-8", "replace")
                    status = 4
                with open(out, "wb") as f:
                    f.write(data)
            except BaseException:  # noqa: BLE001
                status = 5
            finally:
                os._exit(status)
        waited, status = _wait_child(pid, timeout)
        if not waited:
            raise ParseError(Diagnostic("error", f"{what}: did not finish within {timeout:.0f} s", file=source_name))
        if os.WIFSIGNALED(status):
            raise ParseError(Diagnostic("error", f"{what}: crashed on this input (signal {os.WTERMSIG(status)})",
                                        file=source_name))
        code = os.WEXITSTATUS(status)
        data = open(out, "rb").read() if os.path.exists(out) else b""
        if code == 4:
            raise ContainedError(data.decode("utf-8", "replace"))
        if code != 0:
            raise ParseError(Diagnostic("error", f"{what}: failed (exit {code})", file=source_name))
        return data


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _diagnostic_from_dict(d: dict) -> Diagnostic:
    notes = [_diagnostic_from_dict(n) for n in d.pop("notes", [])]
    return Diagnostic(**d, notes=notes)


def _wait_child(pid: int, limit: float) -> tuple[bool, int]:
    """Wait up to ``limit`` seconds for child ``pid``; kill it after that. (finished?, wait status)."""
    deadline = time.monotonic() + limit
    pause = 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return True, status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return False, 0
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _rewrite_text_dialects(source: str | bytes) -> tuple[str | bytes, tuple[str, ...]]:
    """Rewrite ops of dialects jaxlib does not register (``check``) to generic form.

    Returns the text and the op-name prefixes that may then stay unregistered. See
    :func:`hlokit.dialects.check.to_generic`; lines and columns of other ops do not move.
    """
    if isinstance(source, str) and "check." in source:
        from hlokit.dialects.check import to_generic

        rewritten = to_generic(source)
        if rewritten != source or '"check.' in source:
            return rewritten, ("check.",)
    return source, ()


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


def load(program: Program, *, context: ir.Context | None = None) -> ir.Module:
    """Accept a program as an ``ir.Module``, MLIR text, bytecode, or a path, and return a module.

    A ``str`` is taken as a path when it names an existing file and holds no newline; otherwise as
    MLIR text.
    """
    if isinstance(program, ir.Module):
        return program
    if isinstance(program, os.PathLike) or (
        isinstance(program, str) and "\n" not in program and os.path.isfile(program)
    ):
        return parse_file(program, context=context)
    return parse(program, context=context)


def print_module(
    module: ir.Module | ir.Operation,
    *,
    generic: bool = False,
    debug_info: bool = False,
    pretty_debug_info: bool = False,
    large_elements_limit: int | None = None,
    assume_verified: bool = False,
) -> str:
    """Print IR as text: pretty form (default) or generic form, optionally with locations.

    ``assume_verified`` skips MLIR's verification before printing: pass it only for IR that was just
    verified (after parsing or a pass manager run), never for IR under construction.
    """
    return module.operation.get_asm(
        enable_debug_info=debug_info,
        pretty_debug_info=pretty_debug_info,
        print_generic_op_form=generic,
        large_elements_limit=large_elements_limit,
        assume_verified=assume_verified,
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
