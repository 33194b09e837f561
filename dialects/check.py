"""The StableHLO ``check`` dialect's syntax (upstream: ``stablehlo/tests/CheckOps.td`` in
https://github.com/openxla/stablehlo).

jaxlib registers no ``check`` dialect; its custom syntax is rewritten to generic form by
:mod:`hlokit.dialects.check_syntax` (re-exported here: :func:`to_generic`, :data:`OPS`,
:func:`split_top_level`, :class:`CheckSyntaxError`). The ops' semantics (what passes and what fails) live in
the interpreter, :mod:`hlokit.interpreter.check_ops`; this module defines syntax only and imports nothing
of the interpreter.
"""

from __future__ import annotations

from hlokit.core import register_text_preprocessor
from hlokit.dialects.check_syntax import OPS, CheckSyntaxError, split_top_level, to_generic

__all__ = ["OPS", "CheckSyntaxError", "split_top_level", "to_generic"]

# hlokit.parse rewrites the custom syntax of check ops to generic form before MLIR's parser sees the text, and lets
# the (unregistered) check ops through (``import hlokit`` imports this module).
register_text_preprocessor("check", to_generic, order=10, unregistered=("check.",))
