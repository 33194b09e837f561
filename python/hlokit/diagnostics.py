"""Located diagnostics and the error types of hlokit.

Every error hlokit reports to a user is a :class:`Diagnostic` with a source position, rendered the way
``mlir-opt`` renders them::

    FILE:LINE:COL: error: message
    FILE:LINE:COL: note: a note attached to it

The conversion from MLIR's own diagnostics (``ir.Diagnostic`` / ``ir.MLIRError``) lives here, in one
place, so the tools, the pass manager and the backend all print the same way.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from jaxlib.mlir import ir

__all__ = [
    "Diagnostic",
    "HlokitError",
    "ParseError",
    "VerifyError",
    "PassError",
    "LocatedError",
    "location_position",
    "diagnostics_from_mlir_error",
    "diagnostic_from_mlir",
]


@dataclasses.dataclass
class Diagnostic:
    """One diagnostic: severity (``error``, ``warning``, ``note``, ``remark``), position and message.

    ``file`` is ``None`` and ``line``/``col`` are 0 when the position is unknown; ``notes`` are
    diagnostics of severity ``note`` attached to this one.
    """

    severity: str
    message: str
    file: str | None = None
    line: int = 0
    col: int = 0
    notes: list["Diagnostic"] = dataclasses.field(default_factory=list)

    def render(self, default_file: str | None = None) -> str:
        """Render as ``FILE:LINE:COL: severity: message`` followed by its notes, one per line."""
        file = self.file if self.file not in (None, "", "-") else default_file
        if file is not None and self.line:
            prefix = f"{file}:{self.line}:{self.col}: "
        elif file is not None:
            prefix = f"{file}: "
        else:
            prefix = ""
        lines = [f"{prefix}{self.severity}: {self.message}"]
        lines += [n.render(default_file) for n in self.notes]
        return "\n".join(lines)


class HlokitError(Exception):
    """Base error of hlokit: carries one or more located :class:`Diagnostic`.

    ``str(err)`` is the rendered diagnostics, so a tool prints it as is and exits 1.
    """

    def __init__(self, diagnostics: Diagnostic | str | Sequence[Diagnostic], *, file: str | None = None):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic("error", diagnostics, file=file)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        self.default_file = file
        super().__init__(self.render())

    def render(self, default_file: str | None = None) -> str:
        return "\n".join(d.render(default_file or self.default_file) for d in self.diagnostics)

    def __str__(self) -> str:
        return self.render()


class ParseError(HlokitError):
    """The input is not valid MLIR text / bytecode (or not readable)."""


class VerifyError(HlokitError):
    """The IR parsed but does not verify (an op's verifier failed)."""


class LocatedError(HlokitError):
    """An error located at an op: a message and the op's ``ir.Location`` (or ready diagnostics).

    ``str(err)`` is ``FILE:LINE:COL: error: message``. Base of :class:`PassError` and the
    interpreter's ``InterpreterError``.
    """

    def __init__(self, message: str | Sequence[Diagnostic], location: ir.Location | None = None):
        if isinstance(message, str):
            file, line, col = location_position(location) if location is not None else (None, 0, 0)
            message = [Diagnostic("error", message, file, line, col)]
        super().__init__(message)
        self.location = location

    @property
    def message(self) -> str:
        return self.diagnostics[0].message if self.diagnostics else ""

    def locate(self, location: ir.Location) -> "LocatedError":
        """The same error located at ``location`` when it has no position yet (else itself)."""
        if self.location is None and self.diagnostics and not self.diagnostics[0].line:
            return type(self)(self.message, location)
        return self


class PassError(LocatedError):
    """A pass failed; raised by Python passes with the failing op's location."""


_FILE_POS = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


def location_position(loc: ir.Location | None) -> tuple[str | None, int, int]:
    """The (file, line, col) a location points at; ``(None, 0, 0)`` when it names no file position.

    Name, call-site and fused locations are looked through: the first file position inside wins
    (a call site's callee, as MLIR's own diagnostic printer does).
    """
    if loc is None:
        return None, 0, 0
    m = _FILE_POS.search(str(loc))
    if not m:
        return None, 0, 0
    return m.group(1), int(m.group(2)), int(m.group(3))


_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


def diagnostic_from_mlir(diag) -> Diagnostic:
    """Convert an ``ir.Diagnostic`` (or the ``DiagnosticInfo`` an ``MLIRError`` carries)."""
    file, line, col = location_position(diag.location)
    return Diagnostic(
        _SEVERITY.get(diag.severity, "error"),
        diag.message,
        file,
        line,
        col,
        [diagnostic_from_mlir(n) for n in diag.notes],
    )


def diagnostics_from_mlir_error(err: ir.MLIRError) -> list[Diagnostic]:
    """The located diagnostics inside an ``MLIRError`` (or one unlocated error with its message)."""
    diags = [diagnostic_from_mlir(d) for d in err.error_diagnostics]
    return diags or [Diagnostic("error", err.message)]

