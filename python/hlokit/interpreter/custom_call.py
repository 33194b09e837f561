"""``stablehlo.custom_call`` in the interpreter (StableHLO spec "custom_call"): dispatch on the target.

The spec leaves a custom call's semantics to the implementation; the interpreter knows the targets
registered in :data:`~hlokit.interpreter.registry.CUSTOM_CALLS` (the ``@check.expect_*`` forms of
:mod:`hlokit.interpreter.check_ops`) and reports any other target as an error at the op.
"""

from __future__ import annotations

from hlokit import attributes
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.registry import CUSTOM_CALLS, register

__all__ = ["custom_call"]


@register("stablehlo.custom_call")
def custom_call(op, operands, interp):
    """Run the adapter registered for ``call_target_name``; :class:`InterpreterError` otherwise."""
    target = attributes.str_value(op, "call_target_name")
    adapter = CUSTOM_CALLS.get(target)
    if adapter is None:
        raise InterpreterError(f"unsupported custom_call @{target} in the interpreter", op.location)
    return adapter(op, operands, interp)
