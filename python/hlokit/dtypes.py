"""Element types: the one table of StableHLO element types in hlokit, and the mapping to numpy dtypes.

StableHLO element types (StableHLO spec https://openxla.org/stablehlo/spec, section "Types"): i1 -> ``bool``;
si/ui 2..64 (signless ``iN`` is signed) -> ``int*/uint*`` (``ml_dtypes.int2/int4/uint2/uint4`` for 2 and 4 bits);
bf16, f16, f32, f64, the f8 family, f4E2M1FN, f6E2M3FN, f6E3M2FN -> numpy / ml_dtypes floats; complex<f32/f64> ->
complex64/128. :data:`ELEMENT_TYPES` holds, for each one, its spelling, bit width, numpy type, kind, NaN and
infinity bit patterns and ordering facts (the formats of the small floats: ml_dtypes' README and the OCP 8-bit
floating point specification, https://www.opencompute.org/documents/ocp-8-bit-floating-point-specification-ofp8-
revision-1-0-2023-12-01-pdf-1; the ``FN`` suffix: finite, NaN but no infinity; ``UZ``: unsigned zero, the bits of
-0 are the NaN; ``U`` (E8M0FNU): no sign bit). Every other table of element types in hlokit (the pass builder's,
the rng passes', the interpreter's) is derived from it. Used by the XLA backend, the passes and the interpreter.

``ml_dtypes`` (about 5 ms to import) is imported on first need, not with this module: the rows of numpy's own
types (``i1``, 8- to 64-bit integers, ``f16``, ``f32``, ``f64``, complex) are built at import, and
:data:`ELEMENT_TYPES`, :data:`DTYPES`, :data:`SUB_BYTE_INTS` and :data:`SUB_BYTE_UINTS` (module attributes read
through ``__getattr__``) the first time they are read, as are :func:`dtype_of`'s answers for a bf16 / sub-byte /
small-float spelling and :func:`type_name` / :func:`bit_width` of a dtype outside numpy's own (an ``ml_dtypes``
dtype exists only once ``ml_dtypes`` is imported). :func:`is_extension_dtype` is the cheap test a hot path runs
before it reads a table of ``ml_dtypes`` types.
"""

from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

import numpy as np
from jaxlib.mlir import ir

__all__ = [
    "DTYPES",
    "ELEMENT_TYPES",
    "ElementType",
    "NATIVE_ELEMENT_TYPES",
    "SUB_BYTE_INTS",
    "SUB_BYTE_UINTS",
    "UnsupportedTypeError",
    "bit_width",
    "dtype_of",
    "element_type_name",
    "element_type_of",
    "element_types",
    "is_extension_dtype",
    "type_name",
    "type_str",
]


class UnsupportedTypeError(TypeError):
    """A type with no numpy representation here (quantized types, index, tokens, tuples, ...)."""


class ElementType(NamedTuple):
    """One StableHLO element type (an immutable record: a ``NamedTuple``, which costs a tenth of a frozen dataclass
    to make at import).

    ``name``: MLIR's spelling (``"f8E4M3FN"``; signed integers also as signless ``iN``). ``bits``: the width of the
    StableHLO type (not numpy's storage: ``i1`` 1, ``f6E2M3FN`` 6). ``dtype``: the numpy / ml_dtypes type holding
    its values. ``kind``: ``"bool"``, ``"signed"``, ``"unsigned"``, ``"float"`` or ``"complex"``. ``nan``,
    ``pos_inf``, ``neg_inf``: the bit patterns (as unsigned integers of ``bits`` bits) of the quiet NaN that
    numpy / ml_dtypes make from ``float("nan")`` and of +-infinity, None where the type has none. Floats also carry
    ``exponent_bits`` and ``mantissa_bits`` (explicit ones), ``sign_magnitude`` (the top bit is a sign and the
    other bits order the magnitudes, with a -0: false for the FNUZ types, whose -0 bits are the NaN, and for
    E8M0FNU, which has no sign) and ``unsigned_zero`` (no -0).
    """

    name: str
    bits: int
    dtype: np.dtype
    kind: str
    nan: int | None = None
    pos_inf: int | None = None
    neg_inf: int | None = None
    exponent_bits: int = 0
    mantissa_bits: int = 0
    sign_magnitude: bool = False
    unsigned_zero: bool = False

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """Signed or unsigned integers (not ``i1``)."""
        return self.kind in ("signed", "unsigned")

    @property
    def has_nan(self) -> bool:
        return self.nan is not None

    @property
    def has_infinity(self) -> bool:
        return self.pos_inf is not None

    @property
    def finite_only(self) -> bool:
        """A float type with neither NaN nor infinity (f4E2M1FN, f6E2M3FN, f6E3M2FN)."""
        return self.kind == "float" and self.nan is None and self.pos_inf is None

    @property
    def storage_ordered(self) -> bool:
        """A float whose sign is the top bit of numpy's storage and whose bits order as IEEE's totalOrder (a
        sign-magnitude type as wide as its storage): comparable as the signed integers of the same width."""
        return self.kind == "float" and self.sign_magnitude and self.bits == self.dtype.itemsize * 8


class _Extension(NamedTuple):
    """A row of an ``ml_dtypes`` type: its spelling, kind and bit width (known without ``ml_dtypes``), and
    ``make(ml_dtypes)`` -> its :class:`ElementType`."""

    name: str
    make: Callable[[Any], ElementType]
    kind: str
    bits: int


def _int(name: str, bits: int, dtype, kind: str):
    """A row: an :class:`ElementType`; for an ``ml_dtypes`` type (``dtype`` its name, a str), an :class:`_Extension`."""
    if isinstance(dtype, str):
        return _Extension(name, lambda ml: ElementType(name, bits, np.dtype(_ml_type(ml, dtype)), kind), kind, bits)
    return ElementType(name, bits, np.dtype(dtype), kind)


def _float(name: str, dtype, e: int, m: int, nan: int | None, inf: int | None, *, sign_magnitude: bool = True,
           unsigned_zero: bool = False, has_sign: bool = True):
    bits = has_sign + e + m
    neg_inf = None if inf is None else inf | 1 << (bits - 1)
    if isinstance(dtype, str):
        return _Extension(name, lambda ml: ElementType(name, bits, np.dtype(getattr(ml, dtype)), "float", nan, inf,
                                                       neg_inf, e, m, sign_magnitude, unsigned_zero), "float", bits)
    return ElementType(name, bits, np.dtype(dtype), "float", nan, inf, neg_inf, e, m, sign_magnitude, unsigned_zero)


def _ml_type(ml, name: str):
    """``ml_dtypes.<name>``; ``uint1``, which older ml_dtypes lack, as ``np.bool_``."""
    return getattr(ml, name) if name != "uint1" or hasattr(ml, name) else np.bool_


#: The rows of :data:`ELEMENT_TYPES`, in its order: an :class:`ElementType`, or for a type of ``ml_dtypes`` an
#: :class:`_Extension` (made when the table is first read: :func:`_full`).
_ROWS = (
    _int("i1", 1, np.bool_, "bool"),
    _int("i2", 2, "int2", "signed"),
    _int("i4", 4, "int4", "signed"),
    _int("i8", 8, np.int8, "signed"),
    _int("i16", 16, np.int16, "signed"),
    _int("i32", 32, np.int32, "signed"),
    _int("i64", 64, np.int64, "signed"),
    _int("si2", 2, "int2", "signed"),
    _int("si4", 4, "int4", "signed"),
    _int("si8", 8, np.int8, "signed"),
    _int("si16", 16, np.int16, "signed"),
    _int("si32", 32, np.int32, "signed"),
    _int("si64", 64, np.int64, "signed"),
    _int("ui1", 1, "uint1", "unsigned"),
    _int("ui2", 2, "uint2", "unsigned"),
    _int("ui4", 4, "uint4", "unsigned"),
    _int("ui8", 8, np.uint8, "unsigned"),
    _int("ui16", 16, np.uint16, "unsigned"),
    _int("ui32", 32, np.uint32, "unsigned"),
    _int("ui64", 64, np.uint64, "unsigned"),
    _float("f16", np.float16, 5, 10, 0x7E00, 0x7C00),
    _float("bf16", "bfloat16", 8, 7, 0x7FC0, 0x7F80),
    _float("f32", np.float32, 8, 23, 0x7FC00000, 0x7F800000),
    _float("f64", np.float64, 11, 52, 0x7FF8000000000000, 0x7FF0000000000000),
    _float("f4E2M1FN", "float4_e2m1fn", 2, 1, None, None),
    _float("f6E2M3FN", "float6_e2m3fn", 2, 3, None, None),
    _float("f6E3M2FN", "float6_e3m2fn", 3, 2, None, None),
    _float("f8E3M4", "float8_e3m4", 3, 4, 0x78, 0x70),
    _float("f8E4M3", "float8_e4m3", 4, 3, 0x7C, 0x78),
    _float("f8E4M3FN", "float8_e4m3fn", 4, 3, 0x7F, None),
    _float("f8E4M3FNUZ", "float8_e4m3fnuz", 4, 3, 0x80, None, sign_magnitude=False, unsigned_zero=True),
    _float("f8E4M3B11FNUZ", "float8_e4m3b11fnuz", 4, 3, 0x80, None, sign_magnitude=False,
           unsigned_zero=True),
    _float("f8E5M2", "float8_e5m2", 5, 2, 0x7E, 0x7C),
    _float("f8E5M2FNUZ", "float8_e5m2fnuz", 5, 2, 0x80, None, sign_magnitude=False, unsigned_zero=True),
    _float("f8E8M0FNU", "float8_e8m0fnu", 8, 0, 0xFF, None, sign_magnitude=False, unsigned_zero=True,
           has_sign=False),
    ElementType("complex<f32>", 64, np.dtype(np.complex64), "complex"),
    ElementType("complex<f64>", 128, np.dtype(np.complex128), "complex"),
)


#: The spellings of the rows of ``ml_dtypes`` types (known without importing it).
_EXTENSION_NAMES: frozenset[str] = frozenset(r.name for r in _ROWS if isinstance(r, _Extension))


def _names_of(dtypes_by_name: dict[str, np.dtype]) -> dict[np.dtype, str]:
    """dtype -> the name MLIR prints (signless for signed integers, as MLIR spells si* types)."""
    names: dict[np.dtype, str] = {}
    for name, dt in dtypes_by_name.items():
        if name.startswith("si") or name == "ui1":
            continue
        names.setdefault(dt, name)
    return names


#: The rows of numpy's own types (no ``ml_dtypes``: i1, the 8- to 64-bit integers, f16, f32, f64, complex), by
#: spelling, in the order of :data:`ELEMENT_TYPES`; with their dtypes / names, what the common lookups read before
#: the whole table is built (a table derived from these rows needs no ``ml_dtypes``).
NATIVE_ELEMENT_TYPES: dict[str, ElementType] = {e.name: e for e in _ROWS if isinstance(e, ElementType)}
_DTYPES: dict[str, np.dtype] = {name: e.dtype for name, e in NATIVE_ELEMENT_TYPES.items()}
_NAMES: dict[np.dtype, str] = _names_of(_DTYPES)
_BITS: dict[str, int] = {r.name: r.bits for r in _ROWS}
_TABLE: dict[str, ElementType] = {}  # ELEMENT_TYPES, bound by _full()
_FULL: list = []  # [True] once _full() has built the whole table


def _full() -> None:
    """Import ``ml_dtypes`` and build the whole table: :data:`ELEMENT_TYPES` (in the rows' order), :data:`DTYPES`,
    :data:`SUB_BYTE_INTS`, :data:`SUB_BYTE_UINTS`, and :data:`_DTYPES` / :data:`_NAMES` of every type. New
    objects, bound in one ``dict.update`` of the module's globals: a thread that reads the tables meanwhile sees
    the old ones or the new ones, never a table being filled (the interpreter's processes are threads)."""
    if _FULL:
        return
    import ml_dtypes

    table = {e.name: e for e in (r if isinstance(r, ElementType) else r.make(ml_dtypes) for r in _ROWS)}
    by_name = {name: e.dtype for name, e in table.items()}
    globals().update(
        _TABLE=table, _DTYPES=by_name, _NAMES=_names_of(by_name), ELEMENT_TYPES=table, DTYPES=by_name,
        SUB_BYTE_INTS=frozenset({np.dtype(ml_dtypes.int2), np.dtype(ml_dtypes.int4)}),
        SUB_BYTE_UINTS=frozenset({np.dtype(ml_dtypes.uint2), np.dtype(ml_dtypes.uint4)}),
    )
    _FULL.append(True)


def __getattr__(name: str):
    """The tables that hold ``ml_dtypes`` types, built on first read (:func:`_full`)."""
    if name in ("ELEMENT_TYPES", "DTYPES", "SUB_BYTE_INTS", "SUB_BYTE_UINTS"):
        _full()
        return globals()[name]
    raise AttributeError(f"module 'hlokit.dtypes' has no attribute '{name}'")


def is_extension_dtype(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is a user-defined numpy dtype (every ``ml_dtypes`` type is: bf16, the sub-byte integers,
    the small floats), the only kind the ``ml_dtypes`` tables (:data:`SUB_BYTE_INTS`, ...) can hold: a hot path
    tests this first and reads such a table (building it, :func:`_full`) only when it holds."""
    return dtype.isbuiltin == 2


def element_types(*kinds: str, min_bits: int = 0, max_bits: int = 1 << 30, signless: bool = False) -> tuple[str, ...]:
    """The spellings of :data:`ELEMENT_TYPES` of the given kinds (all kinds when none is given) and widths, in the
    table's order; ``signless``: signed integers only as ``iN`` (not ``siN``). Read from the rows: no ``ml_dtypes``."""
    return tuple(e.name for e in _ROWS
                 if (not kinds or e.kind in kinds) and min_bits <= e.bits <= max_bits
                 and not (signless and e.name.startswith("si")))


def bits_of(name: str) -> int:
    """The bit width of element type ``name`` (a spelling of :data:`ELEMENT_TYPES`), read from the rows: no
    ``ml_dtypes``. Raises KeyError for another spelling."""
    return _BITS[name]


#: MLIR spelling -> :class:`ElementType`, for every element type hlokit handles (in the order of the rows); built
#: on first read (``ml_dtypes`` imported then). The signed / unsigned integer dtypes narrower than a byte
#: (``ml_dtypes.int2/int4``, ``ml_dtypes.uint2/uint4``): numpy stores them one per byte, MLIR's dense storage sign-
#: or zero-extended: ``SUB_BYTE_INTS``, ``SUB_BYTE_UINTS`` (frozensets, built with the table). ``DTYPES``: MLIR
#: spelling -> numpy dtype, for every element type hlokit handles.
ELEMENT_TYPES: dict[str, ElementType]
SUB_BYTE_INTS: frozenset[np.dtype]
SUB_BYTE_UINTS: frozenset[np.dtype]
DTYPES: dict[str, np.dtype]


def bit_width(dtype: np.dtype | type) -> int:
    """Bit width of the StableHLO element type a dtype encodes (i1: 1, int4: 4, f8: 8, f6: 6, ...),
    not of numpy's storage."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return 1
    name = _NAMES.get(dt)
    if name is None and not _FULL:
        _full()
        name = _NAMES.get(dt)
    if name is None:
        return dt.itemsize * 8
    row = NATIVE_ELEMENT_TYPES.get(name)
    if row is None:  # (an ml_dtypes type: the whole table, built by now or here)
        _full()
        row = _TABLE[name]
    return row.bits


def element_type_name(t: ir.Type) -> str:
    """The MLIR spelling of a (shaped or element) type's element type, e.g. ``"f32"``."""
    if isinstance(t, ir.ShapedType):
        t = ir.ShapedType(t).element_type
    return str(t)


#: The storage type at the head of a quantized element type's spelling, ``!quant.uniform<i8...``.
_QUANT_STORAGE = r"!quant\.uniform<([iu])([0-9]+)[<:]"


def dtype_of(t: ir.Type | str) -> np.dtype:
    """numpy dtype of an MLIR tensor/element type (or its spelling).

    A quantized element type (``!quant.uniform<i8:f32, ...>``, StableHLO spec "Quantized element types")
    gives its storage type's dtype: quantized tensors are held as their storage values.
    Raises ``TypeError`` for types that are not tensor element types of the interpreter
    (other quant types, index, tokens, tuples).
    """
    if isinstance(t, str):
        return _by_spelling(t, t)
    dt = _BY_TYPE.get(t)
    if dt is None:
        dt = _by_spelling(str(t), t)
        _remember(t, dt)
    return dt


def _by_spelling(spelling: str, t: ir.Type | str) -> np.dtype:
    dt = _DTYPE_OF.get(spelling)
    if dt is None:
        dt = _dtype_of(t if isinstance(t, str) else element_type_name(t))
        if len(_DTYPE_OF) < 4096:
            _DTYPE_OF[spelling] = dt
    return dt


#: dtype_of's answers by ``ir.Type`` (a dict lookup by the uniqued type's pointer: no printing), for the types of
#: one context at a time (``_BY_TYPE_CONTEXT``): a type of another context starts a new table, so the table keeps
#: at most one context alive. A key keeps its context alive, so no type of another context can equal it.
_BY_TYPE: dict = {}
_BY_TYPE_CONTEXT = None


def _remember(t: ir.Type, dt: np.dtype) -> None:
    global _BY_TYPE, _BY_TYPE_CONTEXT
    ctx = t.context
    if ctx is not _BY_TYPE_CONTEXT or len(_BY_TYPE) >= 1024:
        _BY_TYPE, _BY_TYPE_CONTEXT = {}, ctx
    _BY_TYPE[t] = dt


#: dtype_of's answers by the type's spelling (``"tensor<64xf32>"``, ``"f32"``): spellings, not ``ir.Type``
#: objects, so no context is kept alive and no type of a dead context is ever matched.
_DTYPE_OF: dict[str, np.dtype] = {}


_DIM_CHARS = frozenset("0123456789?")


def _tensor_element(name: str) -> str:
    """The element type's spelling in a tensor type's (``tensor<2x?x3xf32>`` -> ``f32``), ``name`` itself for
    another spelling: what ``re.fullmatch(r"tensor<(?:[0-9?]+x)*(.+?)>", name)`` captures, without compiling an
    expression in a process's first call."""
    if len(name) < 9 or not (name.startswith("tensor<") and name.endswith(">")) or "\n" in name:
        return name
    inner = name[7:-1]
    n = len(inner)
    i = 0
    while True:  # (a dimension "[0-9?]+x" is taken while something is left after it)
        j = i
        while j < n and inner[j] in _DIM_CHARS:
            j += 1
        if j == i or j + 1 >= n or inner[j] != "x":
            return inner[i:]
        i = j + 1


def _dtype_of(name: str) -> np.dtype:
    name = _tensor_element(name)
    if not _FULL and name in _EXTENSION_NAMES:
        _full()
    try:
        return _DTYPES[name]
    except KeyError:
        q = re.match(_QUANT_STORAGE, name)
        if q and (("ui" if q.group(1) == "u" else "i") + q.group(2)) in _DTYPES:  # held as storage values
            return _DTYPES[("ui" if q.group(1) == "u" else "i") + q.group(2)]
        raise UnsupportedTypeError(f"element type '{name}' has no numpy representation") from None


def type_name(dtype: np.dtype | type) -> str:
    """MLIR spelling of the element type a dtype encodes (``np.int8`` -> ``"i8"``)."""
    dt = np.dtype(dtype)
    name = _NAMES.get(dt)
    if name is None:
        _full()
        return _NAMES[dt]
    return name


def element_type_of(dtype: np.dtype, context: ir.Context | None = None) -> ir.Type:
    """The MLIR element type of a numpy dtype (signed integers as signless ``iN``, unsigned ``uiN``)."""
    return ir.Type.parse(type_name(dtype), context)


def type_str(shape: tuple[int, ...], dtype: np.dtype) -> str:
    """``tensor<2x3xf32>``-style spelling of a shape and dtype (for messages; a negative dimension, one not
    known before running, is spelled ``?``)."""
    return "tensor<" + "".join(f"{d if d >= 0 else '?'}x" for d in shape) + type_name(dtype) + ">"
