"""The op table of the hlokit interpreter: one adapter per op name (seed 002 "Interpreter design").

An *adapter* unpacks one MLIR op and calls the op's pure semantics function::

    @register("stablehlo.clamp")
    def _clamp(op: ir.OpView, operands: list[Value], interp: Interpreter) -> list[Value]:
        return [clamp(*operands)]

* ``op`` is the MLIR op (an ``ir.OpView``); ``operands`` are the runtime values of its operands
  (see :mod:`hlokit.interpreter.values`); ``interp`` is the running
  :class:`~hlokit.interpreter.evaluator.Interpreter` (for regions: ``interp.eval_region``, calls:
  ``interp.call``). The adapter returns the result values in order.
* Semantics functions (named after the spec op, taking the spec's operands and attributes as plain
  arrays / Python values) live beside the adapters in the family modules ``elementwise``,
  ``data_movement``, ``reduce``, ``control_flow``; they know nothing about MLIR.
* ``stablehlo.custom_call`` is dispatched on its ``call_target_name`` through
  :data:`CUSTOM_CALLS` (decorator :func:`register_custom_call`); the check forms
  (``@check.expect_*``) live in :mod:`hlokit.dialects.check`; any other target raises
  "unsupported custom_call @name".
* An adapter may carry a ``prepare(op) -> adapter`` attribute (decorator :func:`prepared`): the
  walker calls it once per op when it compiles a block and runs the returned adapter (which has the
  same signature) every time the op executes, so attributes are read once, not once per iteration.
* Adapters raise :class:`~hlokit.interpreter.evaluator.InterpreterError` (the walker adds the op's
  location when the error has none) for runtime errors the spec defines.

The attribute readers below (:func:`i64_array`, :func:`int_attr`, ...) are shared by all families.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from jaxlib.mlir import ir

if TYPE_CHECKING:  # pragma: no cover
    from hlokit.interpreter.evaluator import Interpreter
    from hlokit.interpreter.values import Value

__all__ = [
    "OPS",
    "CUSTOM_CALLS",
    "Adapter",
    "register",
    "register_custom_call",
    "prepared",
    "lookup",
    "i64_array",
    "bool_array",
    "int_attr",
    "float_attr",
    "str_attr",
    "enum_attr",
    "has_attr",
    "result_types",
]

Adapter = Callable[["ir.OpView", list, "Interpreter"], list]

#: op name (e.g. ``"stablehlo.add"``) -> adapter.
OPS: dict[str, Adapter] = {}

#: ``stablehlo.custom_call`` target name (e.g. ``"check.expect_close"``) -> adapter.
CUSTOM_CALLS: dict[str, Adapter] = {}


def register(*names: str) -> Callable[[Adapter], Adapter]:
    """Decorator: make the function the adapter of the op(s) ``names``.

    Raises ``ValueError`` when a name already has an adapter (two families must not both claim an op).
    """

    def deco(fn: Adapter) -> Adapter:
        for name in names:
            if name in OPS and OPS[name] is not fn:
                raise ValueError(f"interpreter op '{name}' registered twice ({OPS[name].__module__} and {fn.__module__})")
            OPS[name] = fn
        return fn

    return deco


def register_custom_call(*targets: str) -> Callable[[Adapter], Adapter]:
    """Decorator: make the function the adapter of ``stablehlo.custom_call @target`` for ``targets``."""

    def deco(fn: Adapter) -> Adapter:
        for name in targets:
            if name in CUSTOM_CALLS and CUSTOM_CALLS[name] is not fn:
                raise ValueError(f"custom_call target '{name}' registered twice")
            CUSTOM_CALLS[name] = fn
        return fn

    return deco


def prepared(prepare: Callable[["ir.OpView"], Adapter]) -> Callable[[Adapter], Adapter]:
    """Decorator: attach ``prepare`` (op -> specialized adapter) to an adapter (see module doc)."""

    def deco(fn: Adapter) -> Adapter:
        fn.prepare = prepare  # type: ignore[attr-defined]
        return fn

    return deco


def lookup(name: str) -> Adapter | None:
    """The adapter of op ``name``, or None."""
    return OPS.get(name)


# ------------------------------------------------------------------------------------------------
# attribute readers


def has_attr(op: ir.OpView, name: str) -> bool:
    return name in op.operation.attributes


def i64_array(op: ir.OpView, name: str, default: Sequence[int] | None = None) -> list[int]:
    """A ``DenseI64ArrayAttr`` / ``DenseIntElementsAttr`` / ``ArrayAttr`` of ints as a list."""
    a = _attr(op, name, default)
    if a is _ABSENT:
        return list(default)
    if isinstance(a, ir.DenseI64ArrayAttr):
        return list(ir.DenseI64ArrayAttr(a))
    if isinstance(a, ir.DenseIntElementsAttr):
        return [int(x) for x in ir.DenseIntElementsAttr(a)]
    if isinstance(a, ir.ArrayAttr):
        return [ir.IntegerAttr(x).value for x in ir.ArrayAttr(a)]
    raise TypeError(f"attribute '{name}' of '{op.operation.name}' is not an integer array: {a}")


def bool_array(op: ir.OpView, name: str, default: Sequence[bool] | None = None) -> list[bool]:
    """A ``DenseBoolArrayAttr`` (or i1 elements) as a list of bools."""
    a = _attr(op, name, default)
    if a is _ABSENT:
        return list(default)
    if isinstance(a, ir.DenseBoolArrayAttr):
        return [bool(x) for x in ir.DenseBoolArrayAttr(a)]
    if isinstance(a, ir.DenseIntElementsAttr):
        return [bool(x) for x in ir.DenseIntElementsAttr(a)]
    raise TypeError(f"attribute '{name}' of '{op.operation.name}' is not a bool array: {a}")


_ABSENT = object()


def _attr(op: ir.OpView, name: str, default):
    """The attribute ``name`` of ``op``; ``_ABSENT`` when absent with a default; KeyError otherwise."""
    attrs = op.operation.attributes
    if name in attrs:
        return attrs[name]
    if default is None:
        raise KeyError(f"'{op.operation.name}' has no attribute '{name}'")
    return _ABSENT


def int_attr(op: ir.OpView, name: str, default: int | None = None) -> int:
    """An ``IntegerAttr`` as a Python int (``default`` when absent)."""
    a = _attr(op, name, default)
    return default if a is _ABSENT else ir.IntegerAttr(a).value


def float_attr(op: ir.OpView, name: str, default: float | None = None) -> float:
    """A ``FloatAttr`` (or ``IntegerAttr``) as a Python float (``default`` when absent)."""
    a = _attr(op, name, default)
    if a is _ABSENT:
        return default
    if isinstance(a, ir.FloatAttr):
        return ir.FloatAttr(a).value
    return float(ir.IntegerAttr(a).value)


def str_attr(op: ir.OpView, name: str, default: str | None = None) -> str:
    """A ``StringAttr`` (or ``FlatSymbolRefAttr``) as a Python str (``default`` when absent)."""
    a = _attr(op, name, default)
    if a is _ABSENT:
        return default
    if isinstance(a, ir.StringAttr):
        return ir.StringAttr(a).value
    if isinstance(a, ir.FlatSymbolRefAttr):
        return ir.FlatSymbolRefAttr(a).value
    return str(a)


_ENUM_CACHE: dict = {}


def enum_attr(op: ir.OpView, name: str, default: str | None = None) -> str:
    """A StableHLO enum attribute's case, e.g. ``#stablehlo<comparison_direction GE>`` -> ``"GE"``
    (memoized per op: loops read it on every iteration)."""
    key = (op, name, default)
    hit = _ENUM_CACHE.get(key)
    if hit is None:
        if len(_ENUM_CACHE) > 4096:  # ops of old modules: do not keep them alive
            _ENUM_CACHE.clear()
        hit = _ENUM_CACHE[key] = _enum_attr(op, name, default)
    return hit


def _enum_attr(op: ir.OpView, name: str, default: str | None) -> str:
    attrs = op.operation.attributes
    if name not in attrs:
        if default is None:
            raise KeyError(f"'{op.operation.name}' has no attribute '{name}'")
        return default
    text = str(attrs[name])
    # "#stablehlo<comparison_direction GE>" / "#stablehlo<rng_algorithm THREE_FRY>"
    inner = text[text.find("<") + 1 : text.rfind(">")] if "<" in text else text
    return inner.split()[-1]


def result_types(op: ir.OpView) -> list[ir.Type]:
    """The MLIR types of ``op``'s results."""
    return [r.type for r in op.operation.results]
