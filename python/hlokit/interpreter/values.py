"""Runtime values of the hlokit interpreter.

Follows the StableHLO spec (https://openxla.org/stablehlo/spec), sections "Types" and "Values", and the
tensor representation of the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md), with numpy arrays as tensors.

Representation (the interface every op family codes against):

* a tensor is a ``numpy.ndarray`` whose dtype encodes the StableHLO element type:

  ======================  ==============================================================
  StableHLO               numpy dtype
  ======================  ==============================================================
  ``i1``                  ``np.bool_``
  ``si8/16/32/64``        ``np.int8`` .. ``np.int64`` (MLIR spells them ``i8`` .. ``i64``)
  ``ui8/16/32/64``        ``np.uint8`` .. ``np.uint64``
  ``si2/si4, ui2/ui4``    ``ml_dtypes.int2/int4``, ``ml_dtypes.uint2/uint4``
  ``bf16, f16, f32, f64`` ``ml_dtypes.bfloat16``, ``np.float16/32/64``
  ``f8*``, ``f4E2M1FN``,  the ``ml_dtypes`` type of the same name
  ``f6E2M3FN/E3M2FN``
  ``complex<f32/f64>``    ``np.complex64`` / ``np.complex128``
  ======================  ==============================================================

  A 0-d tensor is a 0-d array (never a numpy scalar).
* a token is :data:`TOKEN`, the one instance of :class:`Token`;
* a tuple is a Python ``tuple`` of values.

Conversions: :func:`dtype_of` (MLIR type -> dtype), :func:`type_name` (dtype -> MLIR element type
name), :func:`to_array` (``DenseElementsAttr`` -> array, every element type, NaN payloads kept),
:func:`to_attr` (array -> ``DenseElementsAttr``), :func:`parse_dense` (``dense<...>`` text -> array),
:func:`format_value` (the text ``stablehlo-translate --interpret`` prints for a value).
"""

from __future__ import annotations

import math
import re
from typing import Any, Union

import numpy as np
from jaxlib.mlir import ir

import hlokit
import hlokit.dtypes as hdt  # (its ml_dtypes tables are read behind hdt.is_extension_dtype: built on first need)
from hlokit.dtypes import (  # one table of element types for the whole project
    UnsupportedTypeError,
    bit_width,
    dtype_of,
    element_type_name,
    type_name,
)
from hlokit.dtypes import type_str as tensor_type_str

__all__ = [
    "Token",
    "TOKEN",
    "UnsupportedTypeError",
    "Value",
    "dtype_of",
    "type_name",
    "element_type_name",
    "is_float",
    "is_complex",
    "is_integer",
    "is_unsigned",
    "bit_width",
    "to_array",
    "to_attr",
    "parse_dense",
    "dense_attribute",
    "format_value",
    "format_dense",
    "format_result",
    "matches_type",
    "value_type_str",
    "NATIVE_DTYPES",
    "from_dense_storage",
    "to_dense_storage",
]


class Token:
    """The StableHLO ``!stablehlo.token`` value (spec "Types", TokenType). Use :data:`TOKEN`."""

    _instance: "Token | None" = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "TOKEN"


#: The token value (all tokens are equal; they only order side effects).
TOKEN = Token()

#: A runtime value: a tensor (ndarray), a token, or a tuple of values.
Value = Union[np.ndarray, Token, tuple]

#: The numpy-native dtypes (bool, integers of 8..64 bits, f32, f64, complex64/128): numpy's ufuncs
#: and their ``reduce`` / ``at`` compute in the operand's own precision for these. float16 is left out:
#: numpy sums it in float32 and rounds once at the end, which is not a region body's semantics.
NATIVE_DTYPES: frozenset[np.dtype] = frozenset(
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
        np.float32, np.float64, np.complex64, np.complex128,
    )
)  # fmt: skip


def value_type_str(value: Value) -> str:
    """The MLIR type of a runtime value, e.g. ``tensor<2x3xf32>``, ``!stablehlo.token``, ``tuple<...>``
    (a tensor's spelling is :func:`hlokit.dtypes.type_str` of its shape and dtype)."""
    if isinstance(value, Token):
        return "!stablehlo.token"
    if isinstance(value, tuple):
        return "tuple<" + ", ".join(value_type_str(v) for v in value) + ">"
    return tensor_type_str(value.shape, value.dtype)


def is_complex(dtype) -> bool:
    """True for complex<f32> / complex<f64>."""
    return np.dtype(dtype).kind == "c"


def is_float(dtype) -> bool:
    """True for every floating-point element type (numpy's and ml_dtypes')."""
    dt = np.dtype(dtype)
    return dt.kind == "f" or (dt.kind == "V" and dt in _ml_floats())


_ML_FLOATS: list = []  # [the set], made by _ml_floats() on first use


def _ml_floats() -> set[np.dtype]:
    """The float element types that ml_dtypes adds to numpy (bf16, the 4/6/8-bit floats), from hlokit.dtypes'
    table (read on first use: it imports ml_dtypes)."""
    if not _ML_FLOATS:
        _ML_FLOATS.append({np.dtype(e.dtype) for e in hdt.ELEMENT_TYPES.values()
                           if e.kind == "float" and np.dtype(e.dtype).isbuiltin == 2})
    return _ML_FLOATS[0]


def is_unsigned(dtype) -> bool:
    """True for the unsigned integer types (ui2 .. ui64), not for i1."""
    dt = np.dtype(dtype)
    return dt.kind == "u" or (dt.isbuiltin == 2 and dt in hdt.SUB_BYTE_UINTS)


def is_integer(dtype) -> bool:
    """True for signed and unsigned integers (not for i1)."""
    dt = np.dtype(dtype)
    return dt.kind in "iu" or (dt.isbuiltin == 2 and (dt in hdt.SUB_BYTE_INTS or dt in hdt.SUB_BYTE_UINTS))


def matches_type(value: Value, t: ir.Type) -> bool:
    """Whether a runtime value has MLIR type ``t`` (dynamic dims match any size)."""
    if isinstance(value, Token):
        return str(t) == "!stablehlo.token"
    if isinstance(value, tuple):
        if not str(t).startswith("tuple<"):
            return False
        tt = ir.TupleType(t)
        return tt.num_types == len(value) and all(
            matches_type(v, tt.get_type(i)) for i, v in enumerate(value)
        )
    if not isinstance(value, np.ndarray) or not isinstance(t, ir.RankedTensorType):
        return False
    rt = t if t.__class__ is ir.RankedTensorType else ir.RankedTensorType(t)  # (most types come downcast)
    try:
        if dtype_of(rt) != value.dtype:
            return False
    except TypeError:
        return False
    shape = rt.shape  # (a dynamic dimension reads as ShapedType.get_dynamic_size())
    if len(shape) != value.ndim:
        return False
    return all(d == n or d == _DYNAMIC for d, n in zip(shape, value.shape))


_DYNAMIC = ir.ShapedType.get_dynamic_size()


# ------------------------------------------------------------------------------------------------
# DenseElementsAttr <-> ndarray


def from_dense_storage(raw: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Reinterpret MLIR's dense storage (one byte per i1 and sub-byte integer element, sign- or
    zero-extended; the element's own bytes otherwise) as an array of ``dtype``."""
    if dtype == np.bool_:
        return raw.view(np.uint8) != 0
    if dtype.isbuiltin == 2:  # (an ml_dtypes type: its tables are built on first need)
        if dtype in hdt.SUB_BYTE_INTS:
            return raw.view(np.int8).astype(dtype)
        if dtype in hdt.SUB_BYTE_UINTS:
            return raw.view(np.uint8).astype(dtype)
    return raw.view(dtype)


def to_dense_storage(value: np.ndarray) -> bytes:
    """The bytes of ``value`` in MLIR's dense storage layout (the inverse of :func:`from_dense_storage`):
    row-major, one byte per i1 and sub-byte integer element, the element's own bytes otherwise."""
    a = np.asarray(value, order="C")
    if a.dtype == np.bool_:
        return a.astype(np.uint8).tobytes()
    if a.dtype.isbuiltin == 2:
        if a.dtype in hdt.SUB_BYTE_INTS:
            return a.astype(np.int8).tobytes()
        if a.dtype in hdt.SUB_BYTE_UINTS:
            return a.astype(np.uint8).tobytes()
    return a.tobytes()


def to_array(attr: ir.Attribute, t: ir.Type | None = None) -> np.ndarray:
    """A ``DenseElementsAttr`` as an ndarray of ``t``'s shape and element dtype (every element type).

    Uses the attribute's buffer where the bindings expose one; otherwise reads its text (hex form
    or literal list), so NaN payloads and signed zeros survive. A splat of more than one element comes
    back as a read-only broadcast view of its one element (``numpy.broadcast_to``): no memory per
    element, and runtime values are never written in place. Without ``t``, an attribute that is not such a
    splat, that has elements and whose buffer has one of :data:`_BUFFER_DTYPES` is that buffer, read once
    (JAX's scalar constants, literal arrays: no read of its type).
    """
    if t is None:
        try:
            if not attr.is_splat or len(attr) == 1:  # (a splat of many elements: a broadcast view, below)
                arr = np.array(attr)
                if arr.size and arr.dtype in _BUFFER_DTYPES:  # (an empty one's buffer says nothing of its type)
                    return arr
        except (TypeError, ValueError, AttributeError):  # (no buffer, or not a DenseElementsAttr)
            pass
    t = t if t is not None else attr.type
    shaped = ir.ShapedType(t)
    dtype = dtype_of(t)  # (cached: dtypes.dtype_of)
    shape = tuple(shaped.shape)
    if len(shape) and math.prod(shape) > 1:
        one = _splat_element(attr, shaped)
        if one is not None:
            return np.broadcast_to(one, shape)
    try:
        arr = np.array(attr, copy=True)
    except (TypeError, ValueError, RuntimeError):
        return parse_dense(str(attr), dtype, shape)
    if arr.dtype.kind == "O":  # no buffer for this element type: read the text
        return parse_dense(str(attr), dtype, shape)
    if arr.dtype != dtype:
        if arr.dtype.itemsize == dtype.itemsize and dtype != np.bool_:
            arr = arr.view(dtype)
        else:
            arr = arr.astype(dtype)
    if arr.shape != shape:
        if arr.size == 0 or int(np.prod(shape, dtype=np.int64)) == 0:
            arr = np.zeros(shape, dtype=dtype)
        elif arr.size == int(np.prod(shape, dtype=np.int64)):
            arr = arr.reshape(shape)
        else:
            arr = np.broadcast_to(arr.reshape(()) if arr.size == 1 else arr, shape).copy()
    return arr


#: The dtypes in which the bindings' buffer of a ``DenseElementsAttr`` holds its elements exactly as the element
#: type's dtype, in the tensor's shape (i1 as bool, signless / signed / unsigned integers, f16 / f32 / f64); the
#: bindings have no buffer for the other element types (sub-byte integers, bf16, f8, complex, ...): TypeError.
_BUFFER_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64))


def _splat_element(attr: ir.Attribute, shaped: ir.ShapedType) -> np.ndarray | None:
    """The one element of a splat ``DenseElementsAttr`` as a 0-d array (read through a one-element
    splat of the same element type, so by the same conversion as any other attribute); None when
    ``attr`` is not a splat."""
    try:
        if not isinstance(attr, ir.DenseElementsAttr):
            return None
        dense = attr
        if not dense.is_splat:
            return None
        with attr.context, ir.Location.unknown():
            one = ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], shaped.element_type), dense.get_splat_value())
    except (TypeError, ValueError, RuntimeError):
        return None
    return to_array(one)


_OWN_CONTEXT: list = []


def _context() -> ir.Context:
    """The current MLIR context, or a private one (for conversions outside any ``with ctx``)."""
    try:
        return ir.Context.current
    except (ValueError, RuntimeError):
        pass
    if not _OWN_CONTEXT:
        _OWN_CONTEXT.append(hlokit.make_context())
    return _OWN_CONTEXT[0]


def to_attr(array: np.ndarray, t: ir.Type | None = None) -> ir.DenseElementsAttr:
    """An ndarray as a ``DenseElementsAttr`` of type ``t`` (default: from the array's dtype/shape)."""
    array = np.asarray(array, order="C")
    ctx = t.context if t is not None else _context()
    with ctx:
        return _to_attr(array, t)


def _to_attr(array: np.ndarray, t: ir.Type | None) -> ir.DenseElementsAttr:
    elem = ir.Type.parse(type_name(array.dtype))
    if t is not None:
        elem = ir.ShapedType(t).element_type
    dt = array.dtype
    if dt == np.bool_:
        return ir.DenseElementsAttr.get(array.astype(np.bool_), type=elem, shape=list(array.shape))
    if dt.isbuiltin == 2 and dt in hdt.SUB_BYTE_INTS:
        data = array.astype(np.int8)
    elif dt.isbuiltin == 2 and dt in hdt.SUB_BYTE_UINTS:
        data = array.astype(np.uint8)
    elif dt.kind == "V" or (dt.isbuiltin == 2 and dt in _ml_floats()):
        data = array.view({1: np.uint8, 2: np.uint16}[dt.itemsize])
    else:
        data = array
    return ir.DenseElementsAttr.get(data, type=elem, shape=list(array.shape))


#: The literal elements of a dense attribute's text (compiled on first use: ``re.compile`` caches it).
_TOKEN_PATTERN = (
    r"\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)"  # complex (re, im)
    r"|(true|false)"
    r"|(0x[0-9A-Fa-f]+)"
    r"|([-+]?(?:inf|nan|[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?))"
)


def _scalar(tok: str, dtype: np.dtype):
    """One literal element of ``dtype`` (hex literals of floats are bit patterns, as in MLIR)."""
    if tok.startswith(("0x", "0X")):
        bits = int(tok, 16)
        if is_float(dtype):
            storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
            return np.array(bits, dtype=storage).view(dtype)[()]
        return bits
    if tok in ("true", "false"):
        return tok == "true"
    return float(tok) if (is_float(dtype) or any(c in tok for c in ".eEin")) else int(tok)


def parse_dense(text: str, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Parse the body of a ``dense<...>`` attribute (text, with or without ``dense<``/type) to an array.

    Accepts nested lists, splats, ``true/false``, hex integers (bit patterns for floats), complex
    ``(re, im)`` pairs and the hex-string form ``"0x..."`` MLIR prints for large attributes.
    Raises ``ValueError`` when the element count does not fit ``shape``.
    """
    dtype = np.dtype(dtype)
    body = text.strip()
    if body.startswith("dense<"):
        depth = 0
        for i, c in enumerate(body):
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
                if depth == 0:
                    body = body[len("dense<") : i]
                    break
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return np.zeros(shape, dtype=dtype)
    m = re.fullmatch(r'\s*"0x([0-9A-Fa-f]*)"\s*', body)
    if m:
        raw = np.frombuffer(bytes.fromhex(m.group(1)), dtype=np.uint8)
        itemsize = 1 if dtype.itemsize == 1 or dtype == np.bool_ else dtype.itemsize
        storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.complex128}
        if dtype.kind == "c":
            arr = raw.view(dtype)
        else:
            arr = from_dense_storage(raw.view(storage[itemsize]), dtype)
        if arr.size == 1 and size != 1:
            arr = np.broadcast_to(arr.reshape(()), shape)
        return np.array(arr.reshape(shape), dtype=dtype)
    values: list[Any] = []
    for mm in re.compile(_TOKEN_PATTERN).finditer(body):
        if mm.group(1) is not None:
            part = np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64)
            values.append(complex(float(_scalar(mm.group(1), part)), float(_scalar(mm.group(2), part))))
        else:
            values.append(_scalar(mm.group(0), dtype))
    if len(values) == 1 and size != 1:
        values = values * size
    if len(values) != size:
        raise ValueError(f"dense literal has {len(values)} elements, the type needs {size}")
    if is_float(dtype):
        out = np.empty(size, dtype=dtype)
        for i, v in enumerate(values):
            if isinstance(v, (np.generic,)) and v.dtype == dtype:
                out[i] = v
            else:
                out[i] = np.array(float(v), dtype=np.float64).astype(dtype)
        return out.reshape(shape)
    if dtype == np.bool_:
        return np.array([bool(v) for v in values], dtype=np.bool_).reshape(shape)
    if dtype.kind == "c":
        return np.array(values, dtype=dtype).reshape(shape)
    bits = bit_width(dtype)
    wrapped = []
    for v in values:  # hex literals are two's complement bit patterns
        v = int(v)
        if not is_unsigned(dtype) and v >= 1 << (bits - 1):
            v -= 1 << bits
        wrapped.append(v)
    return np.array(wrapped, dtype=np.int64 if not is_unsigned(dtype) else np.uint64).astype(dtype).reshape(shape)


def dense_attribute(op: ir.Operation | ir.OpView, name: str) -> np.ndarray:
    """Read the dense-elements attribute ``name`` of ``op`` as an array (any element type).

    The Python bindings cannot return some attributes (``complex`` elements raise ``TypeError``);
    those are read from the op's generic text. Raises ``KeyError`` when the attribute is absent.
    """
    operation = op.operation
    try:
        attr = operation.attributes[name]
    except TypeError:
        attr = None
    if attr is not None:
        return to_array(attr)
    text = operation.get_asm(print_generic_op_form=True, large_elements_limit=None, skip_regions=True)
    m = re.search(r"[{,]\s*" + re.escape(name) + r"\s*=\s*dense<", text)
    if not m:
        raise KeyError(name)
    start = m.end() - len("dense<")
    depth = 0
    i = start
    in_str = False
    while i < len(text):
        c = text[i]
        if c == '"':
            in_str = not in_str
        elif not in_str and c == "<":
            depth += 1
        elif not in_str and c == ">":
            depth -= 1
            if depth == 0:
                break
        i += 1
    lit = text[start : i + 1]
    rest = text[i + 1 :]
    tm = re.match(r"\s*:\s*", rest)
    j = tm.end()
    depth = 0
    for k in range(j, len(rest)):
        if rest[k] == "<":
            depth += 1
        elif rest[k] == ">":
            depth -= 1
            if depth == 0:
                break
    t = ir.Type.parse(rest[j : k + 1], context=operation.context)
    shaped = ir.ShapedType(t)
    return parse_dense(lit, dtype_of(shaped.element_type), tuple(shaped.shape))


# ------------------------------------------------------------------------------------------------
# Printing (stablehlo-translate --interpret output)


def _format_float(x) -> str:
    f = float(x)
    if np.isnan(f):
        return "nan" if not np.signbit(f) else "-nan"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    return f"{f:e}"


def _format_element(x, dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return "true" if x else "false"
    if dtype.kind == "c":
        return f"[{_format_float(x.real)}, {_format_float(x.imag)}]"
    if is_float(dtype):
        return _format_float(x)
    return str(int(x))


def _format_nested(arr: np.ndarray, indent: int) -> list[str]:
    pad = "  " * indent
    if arr.ndim == 1:
        return [pad + "[" + ", ".join(_format_element(x, arr.dtype) for x in arr) + "]"]
    if arr.shape[0] == 0:
        return [pad + "[]"]
    lines = [pad + "["]
    for i in range(arr.shape[0]):
        sub = _format_nested(arr[i], indent + 1)
        if i + 1 < arr.shape[0]:
            sub[-1] += ","
        lines += sub
    lines.append(pad + "]")
    return lines


def format_value(value: Value) -> str:
    """A value printed the way ``stablehlo-translate --interpret`` prints results::

        tensor<2x2xi8> {
          [
            [1, 2],
            [3, 4]
          ]
        }

    0-d tensors print as ``tensor<ui8> {1}``; complex elements as ``[re, im]``.
    """
    if isinstance(value, Token):
        return "!stablehlo.token"
    if isinstance(value, tuple):
        return "tuple(\n" + ",\n".join(format_value(v) for v in value) + "\n)"
    head = value_type_str(value)
    if value.ndim == 0:
        return f"{head} {{{_format_element(value[()], value.dtype)}}}"
    if value.shape[0] == 0:
        return f"{head} {{\n  []\n}}"
    return head + " {\n" + "\n".join(_format_nested(value, 1)) + "\n}"


def format_dense(value: Value) -> str:
    """A value as its ``dense<...> : tensor<...>`` attribute text (``--interpreter-print-dense``)."""
    if not isinstance(value, np.ndarray):
        return format_value(value)
    head = value_type_str(value)
    if value.size == 0:
        return f"dense<> : {head}"
    if value.dtype.kind != "c":
        try:
            return str(to_attr(value))
        except Exception:  # fall back to our own printer
            pass
    flat = np.ascontiguousarray(value).reshape(-1)  # a splat constant is a broadcast view

    def elem(x):
        if value.dtype.kind == "c":
            return f"({_format_float(x.real)},{_format_float(x.imag)})"
        return _format_element(x, value.dtype)

    if np.all(flat.view(np.uint8).reshape(flat.size, -1) == flat[:1].view(np.uint8).reshape(1, -1)):
        return f"dense<{elem(flat[0])}> : {head}"

    def nested(a):
        if a.ndim == 0:
            return elem(a[()])
        return "[" + ", ".join(nested(a[i]) for i in range(a.shape[0])) + "]"

    return f"dense<{nested(value)}> : {head}"


def format_result(value: Value, t: ir.Type, *, dense: bool = False) -> str:
    """A result printed like :func:`~hlokit.interpreter.values.format_value` (``dense``:
    :func:`~hlokit.interpreter.values.format_dense`), except that a quantized tensor shows its declared
    type (``tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>``) with its storage values."""
    text = format_dense(value) if dense else format_value(value)
    if not isinstance(value, np.ndarray):
        return text
    declared = str(t)
    if "!quant." not in declared:  # (hlokit.quant, imported below, reads only such types)
        return text
    from hlokit.quant import quantized_type

    try:
        q = quantized_type(t)
    except UnsupportedTypeError:
        q = None
    if q is None:
        return text
    plain = value_type_str(value)
    if dense:
        head, sep, _ = text.rpartition(" : ")
        return f"{head}{sep}{declared}" if sep else text
    if text.startswith(plain):
        return declared + text[len(plain):]
    return text
