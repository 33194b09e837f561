"""hlokit: a StableHLO/CHLO compiler toolchain in Python on the MLIR bindings shipped in jaxlib.

Public entry points:

* :func:`make_context`, :func:`parse`, :func:`parse_file`, :func:`print_module` (``hlokit.core``)
* :func:`hlokit.backend.compile` — compile a module with XLA and run it on numpy arrays
* :mod:`hlokit.passes` — the Python pass registry and the textual pipeline builder
"""

from hlokit.core import (
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
]
