"""hlokit reference interpreter: StableHLO semantics (seed 000) on whole numpy arrays.

Entry point: :func:`interpret` (``hlokit.interpret``). Architecture (seeds 002/003):

* :mod:`~hlokit.interpreter.values` — runtime values (numpy arrays for every element type, tokens,
  tuples) and conversions from/to MLIR attributes;
* :mod:`~hlokit.interpreter.registry` — the op table (one adapter per op name);
* :mod:`~hlokit.interpreter.evaluator` — the walker (:class:`Interpreter`) and
  :class:`InterpreterError`;
* op families, one module each: ``elementwise``, ``data_movement``, ``reduce``, ``control_flow``,
  plus the ``check`` and ``interpreter`` dialects (:mod:`hlokit.dialects.check`,
  :mod:`hlokit.dialects.interpreter`).
"""

from hlokit.interpreter import registry, values  # noqa: F401  (first: the families import them)
from hlokit.interpreter.evaluator import Interpreter, InterpreterError
from hlokit.interpreter import elementwise  # noqa: F401

# Families written by another helper at the same time: imported when present.
try:
    from hlokit.interpreter import data_movement  # noqa: F401
except ImportError as _err:  # pragma: no cover - only until the module exists
    if getattr(_err, "name", None) != "hlokit.interpreter.data_movement":
        raise
try:
    from hlokit.interpreter import reduce  # noqa: F401
except ImportError as _err:  # pragma: no cover
    if getattr(_err, "name", None) != "hlokit.interpreter.reduce":
        raise
try:
    from hlokit.interpreter import control_flow  # noqa: F401
except ImportError as _err:  # pragma: no cover
    if getattr(_err, "name", None) != "hlokit.interpreter.control_flow":
        raise

from hlokit.interpreter import custom_call  # noqa: F401,E402
from hlokit.interpreter import rng  # noqa: F401,E402
from hlokit.dialects import check as _check  # noqa: F401,E402  (registers check.* ops)
from hlokit.dialects import interpreter as _interpreter_dialect  # noqa: F401,E402
from hlokit.interpreter.api import interpret  # noqa: E402

__all__ = ["interpret", "Interpreter", "InterpreterError", "registry", "values"]
