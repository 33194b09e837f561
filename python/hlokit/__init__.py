"""hlokit: a StableHLO/CHLO compiler toolchain in Python on the MLIR bindings shipped in jaxlib.

Public entry points:

* :func:`make_context`, :func:`parse`, :func:`parse_file`, :func:`print_module` (``hlokit.core``)
* :func:`hlokit.backend.compile` — compile a module with XLA and run it on numpy arrays
* :mod:`hlokit.passes` — the Python pass registry and the textual pipeline builder
* :func:`interpret` — the reference interpreter (``hlokit.interpreter``), :class:`InterpreterError`
* :mod:`hlokit.analysis` — HLO indexing maps (XLA indexing analysis, https://openxla.org/xla/indexing)
"""

import os as _os

# XLA's C++ runtime logs INFO lines (device counts) to stderr at start-up; keep stderr for diagnostics.
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

from hlokit.core import (  # noqa: E402
    DIALECTS,
    load,
    make_context,
    parse,
    parse_file,
    print_module,
    split_input,
    verify,
)
from hlokit.diagnostics import Diagnostic, HlokitError, ParseError, PassError, VerifyError

__version__ = "0.1.0"

__all__ = [
    "DIALECTS",
    "Diagnostic",
    "HlokitError",
    "ParseError",
    "PassError",
    "VerifyError",
    "load",
    "make_context",
    "parse",
    "parse_file",
    "print_module",
    "split_input",
    "verify",
    "interpret",
    "InterpreterError",
]


def __getattr__(name):
    """Lazy access to :func:`hlokit.interpret` and :class:`hlokit.InterpreterError` (the interpreter
    package is imported on first use)."""
    if name in ("interpret", "InterpreterError"):
        from hlokit import interpreter

        value = globals()[name] = getattr(interpreter, name)  # later reads skip this function
        return value
    raise AttributeError(f"module 'hlokit' has no attribute '{name}'")
