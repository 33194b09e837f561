"""One typed reader for MLIR attributes, used by every pass, the interpreter, the analyses and the backend.

Every function takes an op (``ir.Operation`` or ``ir.OpView``) and an attribute name and returns a plain
Python value, reading the attribute through the bindings' attribute classes (``ir.DenseI64ArrayAttr``,
``ir.IntegerAttr``, the StableHLO / CHLO enum attribute classes, ...), never by parsing printed IR.

* ``default``: when the attribute is absent, the default is returned; without a default (the sentinel
  :data:`REQUIRED`) an absent attribute raises :class:`AttributeReadError`.
* An attribute of an unexpected kind raises :class:`AttributeReadError` too. It subclasses ``KeyError``
  and ``TypeError`` so callers that already handle those keep working; callers that report to a user
  wrap it in their own located error (``PassError``, ``InterpreterError``, ``IndexingError``).

Readers: :func:`has`, :func:`int_value`, :func:`float_value`, :func:`bool_value`, :func:`str_value`,
:func:`i64_array`, :func:`i32_array`, :func:`bool_array`, :func:`enum_value`,
:func:`type_value`. :func:`int_array_of` reads an attribute value that is already in hand.
"""

from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo as _chlo
from jaxlib.mlir.dialects import stablehlo as _stablehlo

__all__ = [
    "AttributeReadError",
    "REQUIRED",
    "has",
    "get",
    "int_value",
    "float_value",
    "bool_value",
    "str_value",
    "i64_array",
    "i32_array",
    "bool_array",
    "int_array_of",
    "enum_value",
    "enum_of",
    "type_value",
]


class AttributeReadError(KeyError, TypeError):
    """An attribute is missing or not of the kind asked for (the message names op and attribute)."""

    def __str__(self) -> str:  # KeyError would print the repr of its argument
        return str(self.args[0]) if self.args else ""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Default meaning "the attribute must be present".
REQUIRED: Any = _Required()


def _op(op) -> ir.Operation:
    return getattr(op, "operation", op)


def has(op, name: str) -> bool:
    """True when ``op`` carries the attribute ``name``."""
    return name in _op(op).attributes


def get(op, name: str, default: Any = REQUIRED) -> ir.Attribute | Any:
    """The raw ``ir.Attribute`` ``name`` of ``op`` (``default`` when absent; AttributeReadError without one)."""
    a = _op(op).attributes.get(name, _ABSENT)  # (one read of the bindings, present or not)
    if a is not _ABSENT:
        return a
    if default is REQUIRED:
        raise AttributeReadError(f"'{_op(op).name}' has no attribute '{name}'")
    return default


def _bad(op, name: str, attr: ir.Attribute, what: str) -> AttributeReadError:
    return AttributeReadError(f"attribute '{name}' of '{_op(op).name}' is not {what}: {attr}")


def int_value(op, name: str, default: Any = REQUIRED) -> int:
    """An ``IntegerAttr`` (any width, signless / signed / unsigned) as a Python int."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        return _absent(op, name, default)
    if isinstance(a, ir.IntegerAttr):
        return ir.IntegerAttr(a).value
    if isinstance(a, ir.BoolAttr):
        return int(ir.BoolAttr(a).value)
    raise _bad(op, name, a, "an integer")


def float_value(op, name: str, default: Any = REQUIRED) -> float:
    """A ``FloatAttr`` (or ``IntegerAttr``) as a Python float."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        return _absent(op, name, default)
    if isinstance(a, ir.FloatAttr):
        return ir.FloatAttr(a).value
    if isinstance(a, ir.IntegerAttr):
        return float(ir.IntegerAttr(a).value)
    raise _bad(op, name, a, "a float")


def bool_value(op, name: str, default: Any = False) -> bool:
    """A ``BoolAttr`` (or unit attribute: present means true) as a Python bool; absent -> ``default``."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        return _absent(op, name, default)
    if isinstance(a, ir.BoolAttr):
        return bool(ir.BoolAttr(a).value)
    if isinstance(a, ir.UnitAttr):
        return True
    if isinstance(a, ir.IntegerAttr):
        return bool(ir.IntegerAttr(a).value)
    raise _bad(op, name, a, "a bool")


def str_value(op, name: str, default: Any = REQUIRED) -> str:
    """A ``StringAttr`` or ``FlatSymbolRefAttr`` as a Python str."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        return _absent(op, name, default)
    if isinstance(a, ir.StringAttr):
        return (a if a.__class__ is ir.StringAttr else ir.StringAttr(a)).value  # (most come downcast already)
    if isinstance(a, ir.FlatSymbolRefAttr):
        return ir.FlatSymbolRefAttr(a).value
    raise _bad(op, name, a, "a string")


_DENSE_INT_ARRAYS = (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr, ir.DenseBoolArrayAttr, ir.DenseIntElementsAttr)


def int_array_of(a: ir.Attribute) -> list[int] | None:
    """The ints of ``DenseI64ArrayAttr`` / ``DenseI32ArrayAttr`` / ``DenseBoolArrayAttr`` / integer
    ``DenseElementsAttr`` / ``ArrayAttr`` of ``IntegerAttr``; None for any other attribute."""
    for cls in _DENSE_INT_ARRAYS:
        if isinstance(a, cls):
            # indexed, not iterated: the bindings' iteration ends in an IndexError, which costs more than the reads
            if a.__class__ is not cls:  # (the bindings hand most attributes out as their own class already)
                a = cls(a)
            return [int(a[i]) for i in range(len(a))]
    if isinstance(a, ir.ArrayAttr):
        out = []
        for x in ir.ArrayAttr(a):
            if not isinstance(x, ir.IntegerAttr):
                return None
            out.append(ir.IntegerAttr(x).value)
        return out
    return None


def i64_array(op, name: str, default: Any = REQUIRED) -> list[int]:
    """An integer array attribute (``array<i64: ...>``, ``dense<...> : tensor<Nxi64>``, ``[1, 2]``) as ints."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        d = _absent(op, name, default)
        return d if d is None else list(d)
    out = int_array_of(a)
    if out is None:
        raise _bad(op, name, a, "an integer array")
    return out


#: ``array<i32: ...>`` (e.g. ``operandSegmentSizes``) reads the same way.
i32_array = i64_array


def bool_array(op, name: str, default: Any = REQUIRED) -> list[bool]:
    """A ``DenseBoolArrayAttr`` (or i1 ``DenseElementsAttr``) as a list of bools."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        d = _absent(op, name, default)
        return d if d is None else list(d)
    if isinstance(a, (ir.DenseBoolArrayAttr, ir.DenseIntElementsAttr)):
        return [bool(x) for x in int_array_of(a)]
    raise _bad(op, name, a, "a bool array")


#: The enum attribute classes of the StableHLO and CHLO bindings; each has ``.value`` (the case name).
_ENUM_CLASSES = (
    _stablehlo.ComparisonDirectionAttr,
    _stablehlo.ComparisonTypeAttr,
    _stablehlo.PrecisionAttr,
    _stablehlo.FftTypeAttr,
    _stablehlo.TransposeAttr,
    _stablehlo.RngAlgorithmAttr,
    _stablehlo.RngDistributionAttr,
    _stablehlo.ResultAccuracyModeAttr,
    _chlo.ComparisonDirectionAttr,
    _chlo.ComparisonTypeAttr,
    _chlo.PrecisionAttr,
)

_ENUM_CACHE: dict[str, str] = {}


#: enum_of's answers by attribute (a dict look-up by the uniqued attribute's pointer: no printing), for the
#: attributes of one context at a time (``_ENUM_BY_ATTR_CONTEXT``): an attribute of another context starts a new
#: table, so the table keeps at most one context alive (and no attribute of another context can equal a key).
_ENUM_BY_ATTR: dict = {}
_ENUM_BY_ATTR_CONTEXT = None


def enum_of(a: ir.Attribute) -> str | None:
    """The case name of a StableHLO / CHLO enum attribute (``#stablehlo<comparison_direction GE>`` ->
    ``"GE"``); None when ``a`` is no such attribute. Memoized on the attribute (and its text), so loops and
    programs that read the same enum again pay one dictionary look-up."""
    global _ENUM_BY_ATTR, _ENUM_BY_ATTR_CONTEXT
    hit = _ENUM_BY_ATTR.get(a)
    if hit is not None:
        return hit
    value = _enum_by_text(a)
    if value is not None:
        ctx = a.context
        if ctx is not _ENUM_BY_ATTR_CONTEXT or len(_ENUM_BY_ATTR) >= 1024:
            _ENUM_BY_ATTR, _ENUM_BY_ATTR_CONTEXT = {}, ctx
        _ENUM_BY_ATTR[a] = value
    return value


def _enum_by_text(a: ir.Attribute) -> str | None:
    key = str(a)
    hit = _ENUM_CACHE.get(key)
    if hit is not None:
        return hit
    for cls in _ENUM_CLASSES:
        if cls.isinstance(a):
            value = cls(a).value
            if len(_ENUM_CACHE) > 4096:
                _ENUM_CACHE.clear()
            _ENUM_CACHE[key] = value
            return value
    return None


def enum_value(op, name: str, default: Any = REQUIRED) -> str:
    """A StableHLO / CHLO enum attribute's case name as a str (``"GE"``, ``"THREE_FRY"``, ``"ADJOINT"``)."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        return _absent(op, name, default)
    value = enum_of(a)
    if value is None:
        raise _bad(op, name, a, "a StableHLO or CHLO enum")
    return value


def type_value(op, name: str, default: Any = REQUIRED) -> ir.Type:
    """A ``TypeAttr`` (e.g. ``function_type``) as an ``ir.Type``."""
    a = get(op, name, _ABSENT)
    if a is _ABSENT:
        return _absent(op, name, default)
    if isinstance(a, ir.TypeAttr):
        return (a if a.__class__ is ir.TypeAttr else ir.TypeAttr(a)).value  # (most come downcast already)
    raise _bad(op, name, a, "a type")


_ABSENT = object()


def _absent(op, name: str, default: Any) -> Any:
    if default is REQUIRED:
        raise AttributeReadError(f"'{_op(op).name}' has no attribute '{name}'")
    return default

