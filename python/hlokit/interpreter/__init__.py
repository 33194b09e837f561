"""hlokit reference interpreter: StableHLO semantics (https://openxla.org/stablehlo/spec) on whole numpy arrays.

Entry point: :func:`interpret` (``hlokit.interpret``). The split into runtime values, an op table and
pure semantics functions follows the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md); ``docs/interpreter.md`` describes
hlokit's layout. Core modules:

* :mod:`~hlokit.interpreter.values` — runtime values (numpy arrays for every element type, tokens,
  tuples) and conversions from/to MLIR attributes;
* :mod:`~hlokit.interpreter.errors` — :class:`InterpreterError` and the located errors of the executors;
* :mod:`~hlokit.interpreter.registry` — the op table (one :class:`~hlokit.interpreter.registry.OpImpl` per op
  name, ``@register``);
* :mod:`~hlokit.interpreter.arrays`, :mod:`~hlokit.interpreter.numerics` — array and element-type helpers several
  families share (families do not import each other);
* :mod:`~hlokit.interpreter.evaluator` — :class:`Interpreter` and the plain walker;
* :mod:`~hlokit.interpreter.compiled` — the compiled executor (planner and code generator);
* :mod:`~hlokit.interpreter.regions` — region bodies as functions on whole arrays;
* :mod:`~hlokit.interpreter.process` — :class:`~hlokit.interpreter.process.ProcessGrid` and
  :class:`~hlokit.interpreter.process.Process` (parallel execution);
* :mod:`~hlokit.interpreter.api` — loading a program and :func:`interpret`.

Op families, one module each, imported below by name (a renamed or broken family fails here, at import):
``elementwise``, ``data_movement``, ``reduce``, ``linalg``, ``convolution``, ``fft``, ``control_flow``,
``custom_call``, ``rng``, ``collectives``, ``quantization``, ``dynamic_ops`` (jax's shape-polymorphic custom calls), and the semantics of the ``check`` and
``interpreter`` dialects (``check_ops``, ``probe_ops``; :mod:`hlokit.dialects` defines their syntax only). A
new family is one module whose adapters carry ``@register`` plus its name in the list below.
"""

from hlokit.interpreter import registry, values
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.evaluator import Interpreter

# The op families: importing a module registers its adapters.
from hlokit.interpreter import (  # noqa: F401
    check_ops,
    collectives,
    control_flow,
    convolution,
    custom_call,
    data_movement,
    dynamic_ops,
    elementwise,
    fft,
    linalg,
    probe_ops,
    quantization,
    reduce,
    rng,
)
from hlokit.interpreter.api import interpret

__all__ = ["interpret", "Interpreter", "InterpreterError", "registry", "values"]
