"""Plumbing shared by hlokit-opt, hlokit-translate and hlokit-run (and translate modes in ``translate_*.py``).

* :func:`tool_main` — runs a tool's body; every :class:`~hlokit.diagnostics.HlokitError` becomes its
  rendered ``FILE:LINE:COL: error: message`` lines on stderr and exit code 1; an unexpected exception
  becomes a one-line internal error (set ``HLOKIT_TRACEBACK=1`` to see the traceback), never a traceback.
* :func:`write_output` — ``-o FILE`` is written only on success, atomically.
* :func:`add_version_argument` — ``--version`` (hlokit's, jaxlib's and StableHLO's versions, as LLVM tools print theirs).
* :func:`process_chunks` — ``--split-input-file`` (``// -----``) and ``--verify-diagnostics``
  (``// expected-error @+1 {{...}}``) for any per-chunk function.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import re
import sys
import tempfile
from typing import Callable, Sequence


from jaxlib.mlir import ir

from hlokit.core import read_source, split_input
from hlokit.diagnostics import Diagnostic, HlokitError, diagnostic_from_mlir

__all__ = [
    "tool_main",
    "add_version_argument",
    "llvm_style_flags",
    "version_text",
    "write_output",
    "finish",
    "check_output_path",
    "read_text",
    "process_chunks",
]


def tool_main(name: str, body: Callable[[Sequence[str]], int], argv: Sequence[str] | None = None) -> int:
    """Run ``body(argv)`` as tool ``name`` and return its exit code (errors -> messages + 1).

    Called as a console script (``argv`` None: a process of its own), the objects alive before and after the run
    (the imported modules of numpy, jaxlib and hlokit, then the run's) are moved to the garbage collector's
    permanent generation (``gc.freeze``): the collections during the run and the one at interpreter exit no longer
    walk them (about 0.1 s of a 0.5 s ``hlokit-opt`` process, issue 40). Called in-process with ``argv`` (tests),
    the collector is left alone."""
    console = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if console:
        gc.freeze()
    try:
        return _run_tool(name, body, argv)
    finally:
        if console:
            gc.freeze()


def _run_tool(name: str, body: Callable[[Sequence[str]], int], argv: list[str]) -> int:
    """:func:`tool_main`'s run of ``body(argv)``: every failure becomes a message on stderr and an exit code."""
    try:
        return body(argv)
    except HlokitError as err:
        sys.stdout.flush()
        print(err.render(err.default_file or name), file=sys.stderr)  # no file: the tool name prefixes it
        return 1
    except SystemExit as exc:
        # argparse reports a bad command line as "usage: ...\nTOOL: error: ..." and exit code 2;
        # every other bad input of hlokit exits 1.
        return 1 if exc.code == 2 else exc.code
    except RecursionError:
        if os.environ.get("HLOKIT_TRACEBACK"):
            raise
        sys.stdout.flush()
        print(f"{name}: error: the input is nested too deeply to be processed", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # never show a user a traceback
        if os.environ.get("HLOKIT_TRACEBACK"):
            raise
        sys.stdout.flush()
        print(f"{name}: error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def version_text(tool: str) -> str:
    """What ``TOOL --version`` prints: the tool with hlokit's version, then jaxlib's (whose MLIR, StableHLO and XLA
    hlokit runs on) and the StableHLO versions of the portable artifacts it writes (current) and reads back to
    (minimum), e.g. ``hlokit-opt (hlokit 0.1.0)\n  jaxlib 0.10.2, StableHLO 1.17.0 (portable artifacts from
    0.9.0)``."""
    import jaxlib
    from jaxlib.mlir.dialects import stablehlo

    from hlokit import __version__
    return (f"{tool} (hlokit {__version__})\n  jaxlib {jaxlib.__version__}, StableHLO {stablehlo.get_current_version()}"
            f" (portable artifacts from {stablehlo.get_minimum_version()})")


class _VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` and exit 0 (the text made only when asked for)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text(parser.prog))
        parser.exit()


def add_version_argument(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` the ``--version`` flag of LLVM / MLIR tools (``-version`` too): print :func:`version_text`
    of the parser's ``prog`` on stdout, exit 0."""
    parser.add_argument("--version", "-version", action=_VersionAction,
                        help="print hlokit's, jaxlib's and StableHLO's versions and exit")


def llvm_style_flags(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``argv`` with every single-dash spelling of one of ``parser``'s long options (``-pass-pipeline=...``,
    ``-mlir-print-ir-after-all``, ``-emit-bytecode``) written with two dashes: LLVM's command-line library, and
    so mlir-opt / stablehlo-opt / stablehlo-translate, take either. Single-letter options (``-o``), ``-``
    (stdin), ``--`` and what follows it, and unknown names (hlokit-opt's pass flags) are left as they are."""
    out = []
    for i, arg in enumerate(argv):
        if arg == "--":
            return out + list(argv[i:])
        if len(arg) > 2 and arg[0] == "-" and arg[1] != "-" and arg[1].isalpha():
            name = "-" + arg.partition("=")[0]
            if name in parser._option_string_actions:
                arg = "-" + arg
        out.append(arg)
    return out


def write_output(path: str | None, data: str | bytes) -> None:
    """Write ``data`` to ``path`` (``-`` or None: stdout) atomically: the file appears only complete."""
    if path in (None, "-"):
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
            sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".hlokit-", suffix=".tmp")
    except OSError as err:
        raise HlokitError(f"cannot open output file '{path}': {err.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except OSError as err:
        os.unlink(tmp)
        raise HlokitError(f"cannot write output file '{path}': {err.strerror}") from None


def check_output_path(path: str | None, option: str = "-o") -> None:
    """Refuse an output path whose directory does not exist (or is a file) before any work is done.

    Raises :class:`~hlokit.diagnostics.HlokitError` naming ``option`` and the path.
    """
    if path in (None, "-"):
        return
    if os.path.isdir(path):
        raise HlokitError(f"{option}: cannot write '{path}': it is a directory")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise HlokitError(f"{option}: cannot write '{path}': directory '{os.path.dirname(path) or '.'}' does not exist")


def finish(path: str | None, ok: bool, output: str | bytes) -> int:
    """End a chunked run: write ``output`` to ``path`` only when every chunk succeeded (stdout always
    shows what succeeded) and return the exit code (0, or 1 after any error)."""
    if ok or path in (None, "-"):
        write_output(path, output)
    return 0 if ok else 1


def read_text(path: str) -> str:
    """Read an input file (``-``: stdin) as text; bytecode inputs are returned as latin-1-free bytes.

    Raises :class:`~hlokit.diagnostics.ParseError` when the file cannot be opened.
    """
    data = read_source(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data  # type: ignore[return-value]  # bytecode: handled by hlokit.parse


def source_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


# ----------------------------------------------------------------------------------------------
# --verify-diagnostics


_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(-re)?\s*(?:@([+-]\d+|above|below))?\s*\{\{(.*)\}\}"
)


@dataclasses.dataclass
class Expectation:
    severity: str
    line: int
    text: str
    regex: bool
    src_line: int
    col: int
    matched: bool = False

    def matches(self, d: Diagnostic) -> bool:
        if d.severity != self.severity or d.line != self.line:
            return False
        if self.regex:
            pattern = "".join(
                p if i % 2 else re.escape(p) for i, p in enumerate(re.split(r"\{\{(.*?)\}\}", self.text))
            )
            return re.search(pattern, d.message) is not None
        return self.text in d.message


def parse_expectations(text: str, line_offset: int) -> list[Expectation]:
    """Collect ``expected-*`` annotations of a chunk (line numbers are whole-file, 1-based)."""
    out = []
    for i, line in enumerate(text.split("\n")):
        lineno = line_offset + i + 1
        for m in _EXPECTED.finditer(line):
            sev, re_, where, msg = m.groups()
            target = lineno
            if where and where[0] in "+-":
                target = lineno + int(where)
            elif where == "above":
                target = lineno - 1
            elif where == "below":
                target = lineno + 1
            out.append(Expectation(sev, target, msg, bool(re_), lineno, m.start() + 1))
    return out


def check_expectations(
    expectations: list[Expectation], diags: list[Diagnostic], file: str
) -> list[Diagnostic]:
    """Match emitted diagnostics against expectations; return the mismatch errors (empty: success)."""
    problems: list[Diagnostic] = []
    flat: list[Diagnostic] = []
    for d in diags:
        flat.append(d)
        flat.extend(n for n in d.notes if not n.message.startswith("see current operation"))
    for d in flat:
        exp = next((e for e in expectations if not e.matched and e.matches(d)), None)
        if exp is None:
            exp = next((e for e in expectations if e.matches(d)), None)
        if exp is not None:
            exp.matched = True
        elif d.severity != "note":
            problems.append(
                Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.file or file, d.line, d.col)
            )
    for e in expectations:
        if not e.matched:
            problems.append(
                Diagnostic("error", f'expected {e.severity} "{e.text}" was not produced', file, e.src_line, e.col)
            )
    return problems


# ----------------------------------------------------------------------------------------------
# per-chunk processing


def process_chunks(
    path: str,
    fn: Callable[[str | bytes, int, str], str | bytes],
    *,
    split: bool,
    verify_diagnostics: bool,
    context: ir.Context,
    separator: str = "// -----\n",
) -> tuple[bool, str | bytes]:
    """Run ``fn(chunk_text, line_offset, source_name)`` on the input (split on ``// -----`` if asked).

    Returns ``(ok, joined output)``. Errors of a chunk are printed to stderr (located) and processing
    goes on with the next chunk, as mlir-opt does. With ``verify_diagnostics``, the diagnostics of
    each chunk are matched against its ``expected-*`` annotations instead; only mismatches are errors.
    """
    data = read_text(path)
    name = source_name(path)
    chunks = split_input(data) if split and isinstance(data, str) else [(data, 0)]
    outputs: list[str | bytes] = []
    ok = True
    for text, offset in chunks:
        emitted: list[Diagnostic] = []

        def handler(diag, emitted=emitted):
            if diag.severity != ir.DiagnosticSeverity.ERROR:
                emitted.append(diagnostic_from_mlir(diag))
                return True
            return False

        handle = context.attach_diagnostic_handler(handler)
        try:
            out = fn(text, offset, name)
            if out is not None:
                outputs.append(out)
        except HlokitError as err:
            if verify_diagnostics:
                emitted.extend(err.diagnostics)
            else:
                sys.stdout.flush()
                print(err.render(name), file=sys.stderr)
                ok = False
        finally:
            handle.detach()
        if verify_diagnostics:
            expectations = parse_expectations(text, offset) if isinstance(text, str) else []
            problems = check_expectations(expectations, emitted, name)
            if problems:
                ok = False
                sys.stdout.flush()
                print("\n".join(p.render(name) for p in problems), file=sys.stderr)
        elif emitted:
            print("\n".join(d.render(name) for d in emitted), file=sys.stderr)
    if outputs and all(isinstance(o, bytes) for o in outputs):
        return ok, b"".join(outputs)  # type: ignore[arg-type]
    return ok, separator.join(o if isinstance(o, str) else o.decode("latin-1") for o in outputs)
