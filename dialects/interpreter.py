"""The StableHLO ``interpreter`` dialect's op names (upstream: ``stablehlo/reference/InterpreterOps.td`` in
https://github.com/openxla/stablehlo).

jaxlib registers these ops and their custom syntax in C++, so hlokit defines no syntax for them; their
semantics live in the interpreter (:mod:`hlokit.interpreter.probe_ops`).
"""

from __future__ import annotations

__all__ = ["OPS"]

#: The ops of the dialect: ``probe`` (record a value), ``print`` (write it), ``run_parallel`` (run functions
#: as a grid of processes).
OPS: frozenset[str] = frozenset({"interpreter.probe", "interpreter.print", "interpreter.run_parallel"})
