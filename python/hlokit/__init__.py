"""hlokit: a StableHLO/CHLO compiler toolchain in Python on the MLIR bindings shipped in jaxlib.

Public entry points:

* :func:`make_context`, :func:`parse`, :func:`parse_file`, :func:`print_module` (``hlokit.core``)
* :func:`hlokit.backend.compile` — compile a module with XLA and run it on numpy arrays
* :mod:`hlokit.passes` — the Python pass registry and the textual pipeline builder
* :func:`interpret` — the reference interpreter (``hlokit.interpreter``), :class:`InterpreterError`
* :func:`prepare` — bring a parsed program to what an engine (XLA, the interpreter) runs (``hlokit.passes.prepare``)
* :func:`reduce` — shrink a program while a test still holds (``hlokit.triage.reduce``, ``hlokit-reduce``)
* :func:`bisect` — the first pass of a pipeline that changes a program's results (``hlokit.triage.bisect``)
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

# The check dialect registers its text pre-processor with hlokit.core (custom syntax -> generic form) at import:
# every hlokit.parse reads check ops. (hlokit.core itself imports nothing above it.)
import hlokit.dialects.check  # noqa: E402,F401

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
    "prepare",
    "reduce",
    "ReduceResult",
    "bisect",
    "BisectResult",
]


def __getattr__(name):
    """Lazy access to :func:`hlokit.interpret`, :class:`hlokit.InterpreterError`, :func:`hlokit.prepare` and
    :func:`hlokit.reduce` (the interpreter package, the reducer, are imported on first use)."""
    if name in ("interpret", "InterpreterError"):
        from hlokit import interpreter

        value = globals()[name] = getattr(interpreter, name)  # later reads skip this function
        return value
    if name == "prepare":  # hlokit.passes.prepare.prepare; the interpreter says which ops it runs at import
        from hlokit import interpreter  # noqa: F401
        from hlokit.passes.prepare import prepare

        value = globals()[name] = prepare
        return value
    if name in ("reduce", "ReduceResult"):  # the test-case reducer (hlokit.triage.reduce)
        from hlokit.triage import reduce as reducer

        value = globals()[name] = getattr(reducer, name)
        return value
    if name in ("bisect", "BisectResult"):  # numerical bisection of a pipeline (hlokit.triage.bisect)
        from hlokit.triage import bisect as bisection

        value = globals()[name] = getattr(bisection, name)
        return value
    raise AttributeError(f"module 'hlokit' has no attribute '{name}'")
