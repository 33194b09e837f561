"""hlokit reference interpreter: StableHLO semantics (https://openxla.org/stablehlo/spec) on whole numpy arrays.

Entry point: :func:`interpret` (``hlokit.interpret``). The split into runtime values, an op table and
pure semantics functions follows the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md); ``docs/interpreter.md`` describes
hlokit's layout. Core modules:

* :mod:`~hlokit.interpreter.values` — runtime values (numpy arrays for every element type, tokens,
  tuples) and conversions from/to MLIR attributes;
* :mod:`~hlokit.interpreter.registry` — the op table (one adapter per op name, ``@register``);
* :mod:`~hlokit.interpreter.evaluator` — the walker (:class:`Interpreter`) and :class:`InterpreterError`;
* :mod:`~hlokit.interpreter.regions` — region bodies as functions on whole arrays;
* :mod:`~hlokit.interpreter.process` — :class:`~hlokit.interpreter.process.ProcessGrid` and
  :class:`~hlokit.interpreter.process.Process` (parallel execution);
* :mod:`~hlokit.interpreter.api` — loading a program and :func:`interpret`.

Op families, one module each, imported below by name (a renamed or broken family fails here, at import):
``elementwise``, ``data_movement``, ``reduce``, ``linalg``, ``convolution``, ``fft``, ``control_flow``,
``custom_call``, ``rng``, ``collectives``, ``quantization``, and the ``check`` and ``interpreter`` dialects (:mod:`hlokit.dialects.check`,
:mod:`hlokit.dialects.interpreter`). A new family is one module whose adapters carry ``@register`` plus
its name in the list below.
"""

from hlokit.interpreter import registry, values
from hlokit.interpreter.evaluator import Interpreter, InterpreterError

# The op families: importing a module registers its adapters.
from hlokit.interpreter import (  # noqa: F401
    collectives,
    control_flow,
    convolution,
    custom_call,
    data_movement,
    elementwise,
    fft,
    linalg,
    quantization,
    reduce,
    rng,
)
from hlokit.dialects import check as check_dialect  # noqa: F401  (registers check.* ops)
from hlokit.dialects import interpreter as interpreter_dialect  # noqa: F401  (interpreter.* ops)
from hlokit.interpreter.api import interpret

__all__ = ["interpret", "Interpreter", "InterpreterError", "registry", "values"]
