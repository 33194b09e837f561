"""The IR-building layer of hlokit's passes: typed Python values written into a template ``func.func``.

A pass that expands an op into StableHLO builds the expansion once per op *signature* (op name, element
types, attributes, and shapes where they matter) with an :class:`Emitter`, parses the text once and then
clones the parsed function for every op with that signature (:class:`TemplateCache`,
:func:`instantiate`; both in :mod:`hlokit.passes.builder_templates`, importable from here). The Python
work per rewritten op is then a clone and a few ``move_before`` calls, whatever the size of the expansion.

Values are :class:`V`: an SSA name, a shape (a tuple of ints, ``-1`` for a dynamic dimension, or
:data:`ANY_SHAPE` in a shape-independent template) and an element type (the MLIR spelling used by
:mod:`hlokit.dtypes`: ``"f32"``, ``"bf16"``, ``"f8E4M3FN"``, ``"complex<f64>"``, ``"ui8"``, ``"i1"``).
Python operators and numbers mix freely (``x * 2.0 + y`` emits a splat constant, a multiply and an add).
Methods take shapes as sequences of ints; :attr:`V.shape` gives a new list (as ``ir.RankedTensorType.shape``
does), so callers may extend or edit it.

Every op method is named after the StableHLO op it emits (StableHLO specification,
https://openxla.org/stablehlo/spec, section of the same name; ``and_``, ``or_``, ``not_`` and ``while_``
for the Python keywords) and takes its attributes as Python values — ints, lists of ints, bools and the
enums :class:`ComparisonDirection`, :class:`ComparisonType`, :class:`Precision`, :class:`Transpose`,
:class:`RngAlgorithm` (or their names) — so that attribute text is written only here. Regions are built by
Python callables: :meth:`Emitter.reduce`, :meth:`Emitter.sort`, :meth:`Emitter.while_` and
:meth:`Emitter.all_reduce` call them with the block arguments as :class:`V` and write what they return into
``stablehlo.return``. :meth:`Emitter.elementwise` names an attribute-free elementwise op by its spec name
(for table-driven callers). A few methods compose several ops and say so (:meth:`Emitter.log1p`,
:meth:`Emitter.copysign`, :meth:`Emitter.opaque`, :meth:`Emitter.broadcast_to`, :meth:`Emitter.shape_of`...).

Errors: :class:`UnsupportedError` for a request the layer cannot express (message says which: an unknown
enum case, the shape of a shape-independent value); the pass turns it into a located ``PassError``.
"""

from __future__ import annotations

import enum
import functools
import math
from typing import Callable, Sequence

import numpy as np

from hlokit import dtypes as _dtypes
from hlokit.dtypes import bits_of, element_types
from hlokit.passes.builder_templates import (
    TemplateCache,
    UnsupportedError,
    body_ops,
    find_ops,
    instantiate,
    instantiate_before,
    relocate,
    replace_with_constant,
    set_compare_type,
    splice,
    unrealized_cast,
)

__all__ = [
    "Emitter",
    "V",
    "ANY_SHAPE",
    "ComparisonDirection",
    "ComparisonType",
    "Precision",
    "Transpose",
    "RngAlgorithm",
    "TemplateCache",
    "relocate",
    "instantiate",
    "instantiate_before",
    "find_ops",
    "body_ops",
    "splice",
    "replace_with_constant",
    "set_compare_type",
    "unrealized_cast",
    "UnsupportedError",
    "shape_prefix",
    "fill_shape",
    "float_literal",
    "FLOAT_TYPES",
    "MINI_FLOAT_TYPES",
    "COMPLEX_TYPES",
    "SINT_TYPES",
    "UINT_TYPES",
    "INT_TYPES",
    "BITS",
]

# Element-type groups of the kernels, from hlokit.dtypes' one table.
FLOAT_TYPES = element_types("float", min_bits=16)
#: 4/6/8-bit float types (evaluated in f64 by the CHLO kernels, as XLA converts them).
MINI_FLOAT_TYPES = element_types("float", max_bits=8)
COMPLEX_TYPES = element_types("complex")
SINT_TYPES = element_types("signed", min_bits=8, signless=True)
UINT_TYPES = element_types("unsigned", min_bits=8)
INT_TYPES = SINT_TYPES + UINT_TYPES
#: Bit width of the element types whose bits the kernels manipulate.
BITS = {t: bits_of(t) for t in FLOAT_TYPES + ("i1",) + INT_TYPES}


def _bits_literal(t: str, pattern: int) -> str:
    return f"0x{pattern:0{bits_of(t) // 4}X}"


@functools.cache
def _special_literal(t: str, kind: str) -> str | None:
    """The bit-pattern literal of ``kind`` (``nan``, ``+inf``, ``-inf``) in float type ``t`` (None: ``t`` is no
    float type). Made on first use: the table of the 16-bit and smaller floats imports ``ml_dtypes`` (~5 ms),
    which a pass that writes no NaN or infinity does not need."""
    if t in FLOAT_TYPES:
        e = _dtypes.ELEMENT_TYPES[t]
        return _bits_literal(t, {"nan": e.nan, "+inf": e.pos_inf, "-inf": e.neg_inf}[kind])
    if t in MINI_FLOAT_TYPES:
        value = {"nan": math.nan, "+inf": math.inf, "-inf": -math.inf}[kind]
        return hex(int(np.array([value], dtype=_dtypes.ELEMENT_TYPES[t].dtype).view(np.uint8)[0]))
    return None


def float_literal(v: float, t: str) -> str:
    """The ``dense<...>`` literal of float ``v`` in float type ``t``: decimal with 17 digits (exact for
    every finite f64), the type's bit pattern for NaN and +-inf (MLIR's text form has no NaN/inf words)."""
    if math.isnan(v) or math.isinf(v):
        literal = _special_literal(t, "nan" if math.isnan(v) else ("+inf" if v > 0 else "-inf"))
        if literal is None:
            raise UnsupportedError(f"no literal for {v} in element type '{t}'")
        return literal
    return "%.17e" % v


class _AnyShape:
    """The type of :data:`ANY_SHAPE` (one instance)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ANY_SHAPE"


#: The shape of a value of a shape-independent template, written as the placeholder ``$S`` that
#: :func:`fill_shape` replaces by a concrete shape before parsing. Elementwise ops keep it; an op that
#: needs the shape's dimensions raises UnsupportedError.
ANY_SHAPE = _AnyShape()
_PLACEHOLDER = "$S"


def shape_prefix(shape) -> str:
    """The tensor type's shape text: ``(2, -1)`` -> ``"2x?x"`` (``-1``: a dynamic dimension), ``()`` ->
    ``""``, :data:`ANY_SHAPE` -> ``"$S"``."""
    if shape is ANY_SHAPE:
        return _PLACEHOLDER
    return "".join("?x" if d < 0 else f"{d}x" for d in shape)


def fill_shape(text: str, shape: Sequence[int]) -> str:
    """The text of a shape-independent template (values of :data:`ANY_SHAPE`) with every such value given
    the concrete ``shape`` (``-1``: dynamic), ready to parse."""
    return text.replace(_PLACEHOLDER, shape_prefix(shape))


def _as_shape(shape) -> tuple[int, ...] | _AnyShape:
    """A shape argument as the value carries it: a tuple of ints, or :data:`ANY_SHAPE`."""
    if type(shape) is tuple or shape is ANY_SHAPE:
        return shape
    if isinstance(shape, str):
        raise UnsupportedError(f"internal: a shape is a sequence of ints or ANY_SHAPE, not the text {shape!r}")
    return tuple(int(d) for d in shape)


# -- attribute text: written only by the functions below ------------------------------------------


def _ints(v: Sequence[int]) -> str:
    return ", ".join(str(int(x)) for x in v)


def _array(v: Sequence[int]) -> str:
    return f"array<i64{': ' if len(v) else ''}{_ints(v)}>"


def _bool(b: bool) -> str:
    return "true" if b else "false"


def _string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ComparisonDirection(str, enum.Enum):
    """``comparison_direction`` of ``compare`` (StableHLO spec, "compare")."""

    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(str, enum.Enum):
    """``compare_type`` of ``compare`` (StableHLO spec, "compare"): how the elements are ordered."""

    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(str, enum.Enum):
    """An entry of ``precision_config`` of ``dot_general`` (StableHLO spec, "dot_general")."""

    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"


class Transpose(str, enum.Enum):
    """``transpose_a`` of ``triangular_solve`` (StableHLO spec, "triangular_solve")."""

    NO_TRANSPOSE = "NO_TRANSPOSE"
    TRANSPOSE = "TRANSPOSE"
    ADJOINT = "ADJOINT"


class RngAlgorithm(str, enum.Enum):
    """``rng_algorithm`` of ``rng_bit_generator`` (StableHLO spec, "rng_bit_generator")."""

    DEFAULT = "DEFAULT"
    THREE_FRY = "THREE_FRY"
    PHILOX = "PHILOX"


def _case(cls: type[enum.Enum], value) -> str:
    """The case name of ``value`` (a case of ``cls`` or its name); UnsupportedError for anything else."""
    try:
        return cls(value).value
    except ValueError:
        raise UnsupportedError(f"internal: '{value}' is not a {cls.__name__} "
                               f"({', '.join(c.value for c in cls)})") from None


def _enum(kind: str, cls: type[enum.Enum], value) -> str:
    return f"#stablehlo<{kind} {_case(cls, value)}>"


def _part_type(t: str) -> str:
    """The element type of the real and imaginary parts of complex ``t`` (``t`` itself otherwise)."""
    return t[len("complex<"):-1] if t.startswith("complex<") else t


class V:
    """An SSA value of a template: ``n`` (name), its shape and ``t`` (element type, MLIR spelling).

    The value holds its shape as a tuple of ints (``-1``: dynamic) or :data:`ANY_SHAPE`; :attr:`shape`
    reads it, ``ty`` is the tensor type text. Arithmetic operators emit the StableHLO elementwise op (``+`` add, ``-`` subtract, ``*`` multiply,
    ``/`` divide, unary ``-`` negate); ``lt/le/gt/ge/eq/ne`` emit ``compare``. A Python number operand
    becomes a splat constant of this value's type and shape.
    """

    __slots__ = ("e", "n", "_shape", "t", "ty")

    def __init__(self, e: "Emitter", n: str, shape, t: str, ty: str | None = None):
        self.e, self.n, self._shape, self.t = e, n, _as_shape(shape), t
        #: The MLIR tensor type text (``tensor<4x3xf32>``; ``tensor<$Sf32>`` of a shape-independent value).
        self.ty = ty or f"tensor<{shape_prefix(self._shape)}{t}>"

    @property
    def shape(self) -> list[int]:
        """The dimensions (``-1``: dynamic), a new list; UnsupportedError for a shape-independent value."""
        if self._shape is ANY_SHAPE:
            raise UnsupportedError("internal: the shape of a shape-independent template value is unknown")
        return list(self._shape)

    @property
    def shape_independent(self) -> bool:
        """Whether the value has :data:`ANY_SHAPE` (a shape-independent template's value)."""
        return self._shape is ANY_SHAPE

    def _c(self, other):
        return other if isinstance(other, V) else self.e.const(other, self)

    def __add__(self, o): return self.e.add(self, o)
    def __radd__(self, o): return self.e.add(o, self)
    def __sub__(self, o): return self.e.subtract(self, o)
    def __rsub__(self, o): return self.e.subtract(o, self)
    def __mul__(self, o): return self.e.multiply(self, o)
    def __rmul__(self, o): return self.e.multiply(o, self)
    def __truediv__(self, o): return self.e.divide(self, o)
    def __rtruediv__(self, o): return self.e.divide(o, self)
    def __neg__(self): return self.e.negate(self)

    def lt(self, o): return self.e.compare("LT", self, self._c(o))
    def le(self, o): return self.e.compare("LE", self, self._c(o))
    def gt(self, o): return self.e.compare("GT", self, self._c(o))
    def ge(self, o): return self.e.compare("GE", self, self._c(o))
    def eq(self, o): return self.e.compare("EQ", self, self._c(o))
    def ne(self, o): return self.e.compare("NE", self, self._c(o))


#: Elementwise ops without attributes (StableHLO spec): name -> result element type from the first
#: operand's (None: the same).
_UNARY = {
    "abs": _part_type, "cbrt": None, "ceil": None, "count_leading_zeros": None, "cosine": None,
    "exponential": None, "exponential_minus_one": None, "floor": None, "imag": _part_type,
    "is_finite": lambda t: "i1", "log": None, "log_plus_one": None, "logistic": None, "negate": None,
    "not": None, "popcnt": None, "real": _part_type, "round_nearest_afz": None, "round_nearest_even": None,
    "rsqrt": None, "sign": None, "sine": None, "sqrt": None, "tan": None, "tanh": None,
}
_BINARY = {
    "add": None, "and": None, "atan2": None, "complex": lambda t: f"complex<{t}>", "divide": None,
    "maximum": None, "minimum": None, "multiply": None, "or": None, "power": None, "remainder": None,
    "shift_left": None, "shift_right_arithmetic": None, "shift_right_logical": None, "subtract": None,
    "xor": None,
}


def _unary(name: str):
    def method(self, x: V) -> V:
        return self.elementwise(name, x)

    method.__name__ = name if name != "not" else "not_"
    method.__qualname__ = "Emitter." + method.__name__
    method.__doc__ = f"``stablehlo.{name}`` of ``x`` (StableHLO spec, \"{name}\")."
    return method


def _binary(name: str):
    def method(self, x, y) -> V:
        return self.elementwise(name, x, y)

    method.__name__ = name if name not in ("and", "or") else name + "_"
    method.__qualname__ = "Emitter." + method.__name__
    method.__doc__ = (f"``stablehlo.{name}`` of ``x`` and ``y`` (StableHLO spec, \"{name}\"); a Python number "
                      "becomes a splat constant of the other operand's type and shape.")
    return method


class Emitter:
    """Builds the body of one template function as MLIR generic-form text.

    ``loc``: a name location (e.g. ``"chlo.erf"``) written on every op and block argument, so expanded
    ops say where they come from (the pass moves top-level ops to the rewritten op's own location).

    Values are :class:`V`; Python numbers mixed into arithmetic become splat constants of the other
    operand's type (one constant op per distinct value, type and region). :meth:`args` declares the
    function's arguments, :meth:`text` returns the whole ``func.func``. Shapes passed to methods are
    sequences of ints (``-1``: dynamic) or :data:`ANY_SHAPE`; element types are MLIR spellings.
    """

    def __init__(self, loc: str = ""):
        self.lines: list[str] = []
        self.count = 0
        self.consts: dict[tuple, V] = {}
        self.suffix = f' loc("{loc}")' if loc else ""
        #: the source type is narrower than f64 (f16/bf16/f32): f64 kernels may drop terms that only
        #: matter below 2^-30 relative error.
        self.narrow = False
        #: evaluate the special functions of narrow floats (f16/bf16/f32, complex<f32>) in f64 and round
        #: once (``chlo-legalize-to-stablehlo{precision=wide}``); False: in f32 arithmetic.
        self.wide = False
        #: for dynamic shapes (``-1`` in a shape): the runtime shape (tensor<R x i32>) that splat
        #: constants are broadcast to with ``dynamic_broadcast_in_dim``.
        self.shape_tensor: V | None = None

    # -- plumbing --------------------------------------------------------------------------------
    def fresh(self) -> str:
        """A new SSA name (``%vN``)."""
        self.count += 1
        return f"%v{self.count}"

    def args(self, types: Sequence[tuple]) -> list[V]:
        """The template function's arguments, one :class:`V` per ``(shape, element type)``."""
        return [V(self, f"%a{i}", s, t) for i, (s, t) in enumerate(types)]

    def _op(self, name: str, operands: Sequence[V], results: Sequence[tuple], attrs: str = "",
            regions: Sequence[str] = ()) -> list[V]:
        """Emit op ``name`` (full name) with ``(shape, element type)`` results, the attribute dictionary
        body ``attrs`` (written by the typed methods only) and region texts from :meth:`region`."""
        a = ", ".join(x.n for x in operands)
        ts = ", ".join(x.ty for x in operands)
        results = [(_as_shape(s), t) for s, t in results]
        rts = ", ".join(f"tensor<{shape_prefix(s)}{t}>" for s, t in results)
        attr = f" {{{attrs}}}" if attrs else ""
        regs = f" ({', '.join(regions)})" if regions else ""
        if not results:
            self.lines.append(f'  "{name}"({a}){regs}{attr} : ({ts}) -> (){self.suffix}')
            return []
        n = self.fresh()
        if len(results) == 1:
            self.lines.append(f'  {n} = "{name}"({a}){regs}{attr} : ({ts}) -> {rts}{self.suffix}')
            return [V(self, n, *results[0])]
        self.lines.append(f'  {n}:{len(results)} = "{name}"({a}){regs}{attr} : ({ts}) -> ({rts}){self.suffix}')
        return [V(self, f"{n}#{i}", s, t) for i, (s, t) in enumerate(results)]

    def _op1(self, name: str, operands: Sequence[V], shape, t: str, attrs: str = "", ty: str | None = None) -> V:
        """Emit ``stablehlo.<name>`` with one result of ``shape`` and element type ``t`` (type text ``ty``
        when the caller has it)."""
        shape = _as_shape(shape)
        ty = ty or f"tensor<{shape_prefix(shape)}{t}>"
        n = self.fresh()
        a = ", ".join([x.n for x in operands])
        ts = ", ".join([x.ty for x in operands])
        attr = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f'  {n} = "stablehlo.{name}"({a}){attr} : ({ts}) -> {ty}{self.suffix}')
        return V(self, n, shape, t, ty)

    def region(self, arg_types: Sequence[tuple], body: Callable[..., Sequence[V] | V]) -> str:
        """The text of a one-block region with ``(shape, element type)`` arguments: ``body(*block_args)``
        builds its ops and returns the values given to ``stablehlo.return``. Constants made inside stay
        inside (the region has its own constant cache)."""
        saved = self.lines, self.consts, self.shape_tensor
        self.lines, self.consts, self.shape_tensor = [], {}, None
        try:
            names = [self.fresh().replace("%v", "%b") for _ in arg_types]
            bargs = [V(self, n, s, t) for n, (s, t) in zip(names, arg_types)]
            out = body(*bargs)
            out = [out] if isinstance(out, V) else list(out)
            self._op("stablehlo.return", out, [])
            header = ", ".join(f"{b.n}: {b.ty}{self.suffix}" for b in bargs)
            text = "{\n  ^bb0(" + header + "):\n" + "\n".join(self.lines) + "\n  }"
        finally:
            self.lines, self.consts, self.shape_tensor = saved
        return text

    # -- constants -------------------------------------------------------------------------------
    def const(self, value, like: V | None = None, t: str | None = None, shape=None) -> V:
        """A splat constant ``value`` of element type ``t`` and ``shape`` (default: those of ``like``).
        Any element type: ints and ``i1`` (bool), all float widths (NaN/inf as bit patterns), complex (a
        Python complex or real). In a dynamic shape the scalar is broadcast to :attr:`shape_tensor`."""
        t = t or like.t
        shape = like._shape if shape is None else _as_shape(shape)
        key = (repr(value), shape, t)
        hit = self.consts.get(key)
        if hit is not None:
            return hit
        if t.startswith("complex"):
            re_t = _part_type(t)
            value = complex(value)
            c = self.complex(self.const(value.real, t=re_t, shape=shape), self.const(value.imag, t=re_t, shape=shape))
            self.consts[key] = c
            return c
        if shape is not ANY_SHAPE and any(d < 0 for d in shape):  # scalar broadcast to the runtime shape
            if self.shape_tensor is None:
                raise UnsupportedError("internal: dynamic-shape constant without a shape")
            c0 = self.const(value, t=t, shape=())
            c = self.dynamic_broadcast_in_dim(c0, self.shape_tensor, shape, [])
            self.consts[key] = c
            return c
        v = self._op1("constant", [], shape, t, f"value = dense<{self._literal(value, t)}> : "
                                               f"tensor<{shape_prefix(shape)}{t}>")
        self.consts[key] = v
        return v

    @staticmethod
    def _literal(value, t: str) -> str:
        if t == "i1":
            return "true" if value else "false"
        if t in INT_TYPES or t.startswith(("i", "ui", "si")):  # i4, ui2... too
            return str(int(value))
        return float_literal(float(value), t)

    def scalar(self, value, t: str) -> V:
        """A 0-d constant (``tensor<t>``)."""
        return self.const(value, t=t, shape=())

    def constant(self, values: Sequence, t: str, shape: Sequence[int] | None = None) -> V:
        """``stablehlo.constant`` of the rank-1 tensor ``values`` (ints, bools or floats) of element type
        ``t`` (not complex); ``shape=()``: the 0-d tensor of the one value. Never shared (unlike
        :meth:`const`)."""
        shape = (len(values),) if shape is None else _as_shape(shape)
        if shape == ():
            lit = self._literal(values[0], t)
        else:
            lit = "[" + ", ".join(self._literal(v, t) for v in values) + "]" if len(values) else ""
        return self._op1("constant", [], shape, t, f"value = dense<{lit}> : tensor<{shape_prefix(shape)}{t}>")

    # -- elementwise ops -------------------------------------------------------------------------
    def elementwise(self, name: str, *operands, t: str | None = None) -> V:
        """The elementwise StableHLO op ``name`` without attributes (``"exponential"``, ``"add"``,
        ``"shift_left"``...) of one or two operands of one shape; a Python number operand becomes a
        splat constant of the other's type. Result element type ``t`` (default: the op's rule — ``abs``,
        ``real``, ``imag`` of complex give the part type, ``is_finite`` i1, ``complex`` complex —
        else the first operand's). UnsupportedError for any other name."""
        table = _UNARY if len(operands) == 1 else _BINARY if len(operands) == 2 else {}
        if name not in table:
            raise UnsupportedError(f"internal: '{name}' is not an elementwise StableHLO op of {len(operands)} "
                                   "operands without attributes")
        if len(operands) == 2:
            x, y = operands
            if not isinstance(x, V):
                x = self.const(x, y)
            elif not isinstance(y, V):
                y = self.const(y, x)
            operands = (x, y)
        first, rule = operands[0], table[name]
        rt = t or (rule(first.t) if rule else first.t)
        return self._op1(name, operands, first._shape, rt, ty=first.ty if rt == first.t else None)


    def compare(self, direction, lhs: V, rhs: V, compare_type=None) -> V:
        """``stablehlo.compare`` -> i1: ``direction`` a :class:`ComparisonDirection` (or ``"LT"``...),
        ``compare_type`` a :class:`ComparisonType` (or ``"TOTALORDER"``...) or None (the default)."""
        attrs = f"comparison_direction = {_enum('comparison_direction', ComparisonDirection, direction)}"
        if compare_type:
            attrs += f", compare_type = {_enum('comparison_type', ComparisonType, compare_type)}"
        return self._op1("compare", [lhs, rhs], lhs._shape, "i1", attrs)

    def select(self, p: V, a, b) -> V:
        """``stablehlo.select(p, a, b)``; a Python number branch takes the other branch's type."""
        like = a if isinstance(a, V) else b
        a = a if isinstance(a, V) else self.const(a, like)
        b = b if isinstance(b, V) else self.const(b, like)
        return self._op1("select", [p, a, b], a._shape, a.t, ty=a.ty)

    def convert(self, x: V, t: str, shape: Sequence[int] | None = None) -> V:
        """``stablehlo.convert`` to element type ``t`` and ``shape`` (default ``x``'s; a static dimension
        may refine a dynamic one). No op when ``x`` is already of type ``t`` and no ``shape`` is given."""
        if shape is None:
            return x if x.t == t else self._op1("convert", [x], x._shape, t)
        return self._op1("convert", [x], shape, t)

    def bitcast_convert(self, x: V, t: str) -> V:
        """``stablehlo.bitcast_convert`` to a same-width element type ``t``."""
        return self._op1("bitcast_convert", [x], x._shape, t)

    def log1p(self, x: V) -> V:
        """log(1 + x) to ~1 ULP, composed (not the op ``log_plus_one``): ``log(u) - ((u - 1) - x) / u``
        with u = 1 + x (XLA's own f64 ``log_plus_one`` is off by up to ~70 ULP near x = -0.4). Exact for
        tiny x; inf, -1, NaN kept."""
        u = x + 1.0
        d = u - self.opaque(1.0, x)  # opaque: keep XLA from folding (x + 1) - 1 into x
        r = self.log(u) - (d - x) / u
        r = self.select(u.eq(1.0), x, r)
        r = self.select(x.eq(math.inf), x, r)
        return self.select(x.eq(-1.0), -math.inf, r)

    def opaque(self, value: float | V, like: V) -> V:
        """``value`` (a constant, or a value XLA sees as one) in a form XLA cannot fold or rewrite:
        ``select(isnan(like), like, value)``, the same values. Its algebraic simplifier reassociates
        ``(a - c1) - c2`` into ``a - (c1 + c2)``, which defeats hi/lo splits, and turns a division by a
        constant or loop-invariant divisor into a multiplication by its reciprocal, which rounds
        differently (measured on jaxlib 0.10.2: one storage step on 15% of quantize values near rounding
        ties in f32; an ``optimization_barrier`` does not prevent it)."""
        return self.select(self.isnan(like), like, value if isinstance(value, V) else self.const(value, like))

    def isnan(self, x: V) -> V:
        """``x != x`` (i1)."""
        return self.compare("NE", x, x)

    def isinf(self, x: V) -> V:
        """``|x| == inf`` (i1)."""
        return self.abs(x).eq(math.inf)

    def copysign(self, mag: V, sgn: V) -> V:
        """|mag| with the sign bit of ``sgn`` (bit operations: exact for +-0, inf and NaN)."""
        it = {16: "ui16", 32: "ui32", 64: "ui64"}[BITS[mag.t]]
        sign_bit = 1 << (BITS[mag.t] - 1)
        m = self.bitcast_convert(mag, it)
        s = self.bitcast_convert(sgn, it)
        r = self.or_(self.and_(m, self.const(sign_bit - 1, m)), self.and_(s, self.const(sign_bit, s)))
        return self.bitcast_convert(r, mag.t)

    def horner(self, x: V, coeffs) -> V:
        """sum(coeffs[i] * x**(n-1-i)): coefficients from the highest degree down."""
        acc = self.const(coeffs[0], x)
        for c in coeffs[1:]:
            acc = acc * x + c
        return acc

    # -- shapes ----------------------------------------------------------------------------------
    def iota(self, shape: Sequence[int], dim: int, t: str = "i32") -> V:
        """``stablehlo.iota`` of ``shape`` counting along ``dim``."""
        return self._op1("iota", [], shape, t, f"iota_dimension = {int(dim)} : i64")

    def dynamic_iota(self, shape_tensor: V, shape: Sequence[int], dim: int, t: str = "i32") -> V:
        """``stablehlo.dynamic_iota`` of the runtime shape ``shape_tensor`` (static knowledge ``shape``,
        ``-1``: dynamic) counting along ``dim``."""
        return self._op1("dynamic_iota", [shape_tensor], shape, t, f"iota_dimension = {int(dim)} : i64")

    def reshape(self, x: V, shape: Sequence[int]) -> V:
        """``stablehlo.reshape`` to a static ``shape``."""
        return self._op1("reshape", [x], shape, x.t)

    def dynamic_reshape(self, x: V, shape_tensor: V, shape: Sequence[int]) -> V:
        """``stablehlo.dynamic_reshape`` to the runtime shape ``shape_tensor`` (static knowledge ``shape``)."""
        return self._op1("dynamic_reshape", [x, shape_tensor], shape, x.t)

    def transpose(self, x: V, perm: Sequence[int]) -> V:
        """``stablehlo.transpose``: result dimension i is operand dimension ``perm[i]``."""
        shape = x.shape
        return self._op1("transpose", [x], [shape[p] for p in perm], x.t, f"permutation = {_array(perm)}")

    def broadcast_in_dim(self, x: V, shape: Sequence[int], dims: Sequence[int] | None = None) -> V:
        """``stablehlo.broadcast_in_dim`` to static ``shape``; operand dimension i goes to ``dims[i]``
        (default: the trailing dimensions, numpy alignment). No op when the shape is already ``shape``."""
        shape = _as_shape(shape)
        if x._shape == shape:
            return x
        if dims is None:
            rank = len(x.shape)
            dims = list(range(len(shape) - rank, len(shape)))
        return self._op1("broadcast_in_dim", [x], shape, x.t, f"broadcast_dimensions = {_array(dims)}")

    def dynamic_broadcast_in_dim(self, x: V, shape_tensor: V, shape: Sequence[int], dims: Sequence[int]) -> V:
        """``stablehlo.dynamic_broadcast_in_dim`` to the runtime shape ``shape_tensor`` (tensor<R x i32>)
        with static knowledge ``shape`` (``-1``: dynamic)."""
        return self._op1("dynamic_broadcast_in_dim", [x, shape_tensor], shape, x.t,
                         f"broadcast_dimensions = {_array(dims)}")

    def broadcast_to(self, x: V, shape: Sequence[int], dims: Sequence[int], shape_tensor: Callable[[], V]) -> V:
        """Broadcast ``x`` to ``shape`` (operand dimension i -> ``dims[i]``): ``broadcast_in_dim`` when
        ``shape`` is static, else ``dynamic_broadcast_in_dim`` to ``shape_tensor()`` (called only then; it
        returns the runtime shape as a rank-1 integer tensor)."""
        if all(d >= 0 for d in shape):
            return self.broadcast_in_dim(x, shape, dims)
        return self.dynamic_broadcast_in_dim(x, shape_tensor(), shape, dims)

    def get_dimension_size(self, x: V, dim: int) -> V:
        """``stablehlo.get_dimension_size`` -> tensor<i32>."""
        return self._op1("get_dimension_size", [x], (), "i32", f"dimension = {int(dim)} : i64")

    def shape_of(self, v: V, shape: Sequence[int]) -> V:
        """The runtime shape of ``v`` (static knowledge ``shape``) as tensor<R x i32>: a constant per
        static dimension, ``get_dimension_size`` per dynamic one, concatenated."""
        parts = []
        for i, d in enumerate(shape):
            if d >= 0:
                parts.append(self.const(d, t="i32", shape=(1,)))
            else:
                parts.append(self.reshape(self.get_dimension_size(v, i), [1]))
        return self.concatenate(parts, 0)

    def concatenate(self, parts: Sequence[V], dim: int) -> V:
        """``stablehlo.concatenate`` along ``dim`` (one part: that part; a dynamic extent along ``dim``
        makes the result's dynamic)."""
        if len(parts) == 1:
            return parts[0]
        shape = parts[0].shape
        sizes = [p.shape[dim] for p in parts]
        shape[dim] = -1 if any(n < 0 for n in sizes) else sum(sizes)
        return self._op1("concatenate", parts, shape, parts[0].t, f"dimension = {int(dim)} : i64")

    def slice(self, x: V, start: Sequence[int], limit: Sequence[int], strides: Sequence[int] | None = None) -> V:
        """``stablehlo.slice`` (static; ``strides`` default all 1)."""
        strides = list(strides) if strides is not None else [1] * len(start)
        shape = [-(-(hi - lo) // st) for lo, hi, st in zip(start, limit, strides)]
        return self._op1("slice", [x], shape, x.t, f"start_indices = {_array(start)}, "
                         f"limit_indices = {_array(limit)}, strides = {_array(strides)}")

    def dynamic_slice(self, x: V, starts: Sequence[V], sizes: Sequence[int]) -> V:
        """``stablehlo.dynamic_slice``: ``starts`` are 0-d integer values, one per dimension."""
        return self._op1("dynamic_slice", [x, *starts], sizes, x.t, f"slice_sizes = {_array(sizes)}")

    def dynamic_update_slice(self, x: V, update: V, starts: Sequence[V]) -> V:
        """``stablehlo.dynamic_update_slice`` of ``update`` into ``x`` at 0-d integer ``starts``."""
        return self._op1("dynamic_update_slice", [x, update, *starts], x._shape, x.t)

    def real_dynamic_slice(self, x: V, start: V, limit: V, strides: V, shape: Sequence[int]) -> V:
        """``stablehlo.real_dynamic_slice`` with rank-1 integer ``start`` / ``limit`` / ``strides`` tensors;
        ``shape`` is the static knowledge of the result (``-1``: dynamic)."""
        return self._op1("real_dynamic_slice", [x, start, limit, strides], shape, x.t)

    def pad(self, x: V, padding_value: V, low: Sequence[int], high: Sequence[int],
            interior: Sequence[int] | None = None) -> V:
        """``stablehlo.pad`` of ``x`` with the 0-d ``padding_value`` (static shapes; ``interior`` default 0)."""
        interior = list(interior) if interior is not None else [0] * len(low)
        shape = [lo + hi + d + max(d - 1, 0) * i for d, lo, hi, i in zip(x.shape, low, high, interior)]
        return self._op1("pad", [x, padding_value], shape, x.t, f"edge_padding_low = {_array(low)}, "
                         f"edge_padding_high = {_array(high)}, interior_padding = {_array(interior)}")

    def reverse(self, x: V, dims: Sequence[int]) -> V:
        """``stablehlo.reverse`` of ``x`` along ``dims``."""
        return self._op1("reverse", [x], x._shape, x.t, f"dimensions = {_array(dims)}")

    def gather(self, x: V, indices: V, *, offset_dims: Sequence[int], collapsed_slice_dims: Sequence[int],
               start_index_map: Sequence[int], index_vector_dim: int, slice_sizes: Sequence[int],
               operand_batching_dims: Sequence[int] = (), start_indices_batching_dims: Sequence[int] = (),
               indices_are_sorted: bool = False) -> V:
        """``stablehlo.gather`` (StableHLO spec, "gather"; static shapes): the result has the batch
        dimensions of ``indices`` (all but ``index_vector_dim``) and, at ``offset_dims``, the
        ``slice_sizes`` of the dimensions neither collapsed nor batching."""
        batch = [d for i, d in enumerate(indices.shape) if i != index_vector_dim]
        offsets = [n for i, n in enumerate(slice_sizes)
                   if i not in collapsed_slice_dims and i not in operand_batching_dims]
        shape = []
        for i in range(len(batch) + len(offsets)):
            shape.append(offsets.pop(0) if i in offset_dims else batch.pop(0))
        fields = [f"offset_dims = [{_ints(offset_dims)}]", f"collapsed_slice_dims = [{_ints(collapsed_slice_dims)}]"]
        if operand_batching_dims:
            fields += [f"operand_batching_dims = [{_ints(operand_batching_dims)}]",
                       f"start_indices_batching_dims = [{_ints(start_indices_batching_dims)}]"]
        fields += [f"start_index_map = [{_ints(start_index_map)}]", f"index_vector_dim = {int(index_vector_dim)}"]
        return self._op1("gather", [x, indices], shape, x.t,
                         f"dimension_numbers = #stablehlo.gather<{', '.join(fields)}>, "
                         f"indices_are_sorted = {_bool(indices_are_sorted)}, slice_sizes = {_array(slice_sizes)}")

    def dot_general(self, lhs: V, rhs: V, lhs_batch: Sequence[int] = (), rhs_batch: Sequence[int] = (),
                    lhs_contract: Sequence[int] = (), rhs_contract: Sequence[int] = (), t: str | None = None,
                    precision: Sequence[Precision | str] | None = None) -> V:
        """``stablehlo.dot_general``; result ``[batch..., lhs free..., rhs free...]`` of element type ``t``
        (default ``lhs``'s), static shapes; ``precision``: the ``precision_config`` (one per operand)."""
        ls, rs = lhs.shape, rhs.shape
        lf = [ls[d] for d in range(len(ls)) if d not in lhs_batch and d not in lhs_contract]
        rf = [rs[d] for d in range(len(rs)) if d not in rhs_batch and d not in rhs_contract]
        shape = [ls[d] for d in lhs_batch] + lf + rf
        attrs = (f"dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [{_ints(lhs_batch)}], "
                 f"rhs_batching_dimensions = [{_ints(rhs_batch)}], "
                 f"lhs_contracting_dimensions = [{_ints(lhs_contract)}], "
                 f"rhs_contracting_dimensions = [{_ints(rhs_contract)}]>")
        if precision is not None:
            attrs += f", precision_config = [{', '.join(_enum('precision', Precision, p) for p in precision)}]"
        return self._op1("dot_general", [lhs, rhs], shape, t or lhs.t, attrs)

    def cholesky(self, a: V, lower: bool) -> V:
        """``stablehlo.cholesky`` of ``a`` (``[*batch, n, n]``) in the ``lower`` (else upper) triangle."""
        return self._op1("cholesky", [a], a._shape, a.t, f"lower = {_bool(lower)}")

    def triangular_solve(self, a: V, b: V, left_side: bool, lower: bool, unit_diagonal: bool,
                         transpose_a: Transpose | str) -> V:
        """``stablehlo.triangular_solve``: ``x`` with ``op(a) x = b`` (``left_side``) or ``x op(a) = b``;
        ``x`` has ``b``'s type."""
        return self._op1("triangular_solve", [a, b], b._shape, b.t,
                         f"left_side = {_bool(left_side)}, lower = {_bool(lower)}, unit_diagonal = "
                         f"{_bool(unit_diagonal)}, transpose_a = {_enum('transpose', Transpose, transpose_a)}")

    def rng_bit_generator(self, state: V, shape: Sequence[int], t: str, algorithm: RngAlgorithm | str) -> list[V]:
        """``stablehlo.rng_bit_generator`` -> ``[new state, bits of shape and element type t]``."""
        return self._op("stablehlo.rng_bit_generator", [state], [(state._shape, state.t), (shape, t)],
                        f"rng_algorithm = {_enum('rng_algorithm', RngAlgorithm, algorithm)}")

    def custom_call(self, call_target_name: str, operands: Sequence[V], results: Sequence[tuple], *,
                    has_side_effect: bool = False, api_version: int | None = None,
                    strings: dict[str, str] | None = None) -> list[V]:
        """``stablehlo.custom_call @call_target_name`` with ``(shape, element type)`` results;
        ``api_version`` (i32) when given, ``strings``: further string attributes (e.g. ``error_message``)."""
        attrs = f"call_target_name = {_string(call_target_name)}"
        if has_side_effect:
            attrs += ", has_side_effect = true"
        if api_version is not None:
            attrs += f", api_version = {int(api_version)} : i32"
        for name, value in (strings or {}).items():
            attrs += f", {name} = {_string(value)}"
        return self._op("stablehlo.custom_call", operands, results, attrs)

    def splice_point(self, tag: str, operands: Sequence[V], results: Sequence[tuple]) -> list[V]:
        """A placeholder ``stablehlo.custom_call @<tag>`` that the pass replaces after cloning (by the body
        of the op being rewritten, :func:`splice`): lets a template hold a region it cannot write as text
        (a custom_call takes any operands and results and names no symbol)."""
        return self.custom_call(tag, operands, results)

    # -- ops with regions ------------------------------------------------------------------------
    def reduce(self, inputs: Sequence[V], inits: Sequence[V], dims: Sequence[int],
               body: Callable[..., Sequence[V] | V]) -> list[V]:
        """``stablehlo.reduce`` of ``inputs`` over ``dims``; ``body(*accs, *elems)`` (0-d values, one per
        input) returns the combined values."""
        shape = [d for i, d in enumerate(inputs[0].shape) if i not in dims]
        scalars = [((), x.t) for x in inputs]
        reg = self.region(scalars + scalars, body)
        return self._op("stablehlo.reduce", [*inputs, *inits], [(shape, x.t) for x in inputs],
                        f"dimensions = {_array(dims)}", [reg])

    def reduce_sum(self, x: V, dims: Sequence[int]) -> V:
        """Sum of ``x`` over ``dims`` (a ``reduce`` with an ``add`` body and a zero init)."""
        (r,) = self.reduce([x], [self.scalar(0, x.t)], dims, lambda a, b: a + b)
        return r

    def sort(self, inputs: Sequence[V], dim: int, comparator: Callable[..., V], stable: bool = True) -> list[V]:
        """``stablehlo.sort`` of ``inputs`` along ``dim``; ``comparator(a0, b0, a1, b1, ...)`` (0-d
        values) returns the i1 "a before b"."""
        scalars = []
        for x in inputs:
            scalars += [((), x.t), ((), x.t)]
        reg = self.region(scalars, comparator)
        return self._op("stablehlo.sort", list(inputs), [(x._shape, x.t) for x in inputs],
                        f"dimension = {int(dim)} : i64, is_stable = {_bool(stable)}", [reg])

    def while_(self, init: Sequence[V], cond: Callable[..., V], body: Callable[..., Sequence[V]]) -> list[V]:
        """``stablehlo.while`` over loop-carried values ``init``: ``cond(*vals)`` returns the 0-d i1 that
        continues the loop, ``body(*vals)`` the next values (same types)."""
        types = [(x._shape, x.t) for x in init]
        c = self.region(types, cond)
        b = self.region(types, body)
        return self._op("stablehlo.while", list(init), types, regions=[c, b])

    def all_reduce(self, operands: Sequence[V], replica_groups: Sequence[Sequence[int]],
                   body: Callable[..., Sequence[V] | V]) -> list[V]:
        """``stablehlo.all_reduce`` of ``operands`` over ``replica_groups`` (lists of replica ids, of one
        length); ``body(*accs, *elems)`` (0-d values) combines."""
        scalars = [((), x.t) for x in operands]
        reg = self.region(scalars + scalars, body)
        groups = "[" + ", ".join(f"[{_ints(g)}]" for g in replica_groups) + "]"
        size = f"{len(replica_groups)}x{len(replica_groups[0]) if replica_groups else 0}"
        return self._op("stablehlo.all_reduce", list(operands), [(x._shape, x.t) for x in operands],
                        f"replica_groups = dense<{groups}> : tensor<{size}xi64>", [reg])

    def partition_id(self) -> V:
        """``stablehlo.partition_id``: the 0-d ``ui32`` id of the partition running the program."""
        return self._op("stablehlo.partition_id", [], [((), "ui32")])[0]

    def all_gather(self, x: V, dim: int, replica_groups: Sequence[Sequence[int]], channel_id: int) -> V:
        """``stablehlo.all_gather`` of ``x`` along ``dim`` over ``replica_groups`` (lists of flattened device
        ids, one length), with channel ``channel_id`` (``> 0``, device to device) and
        ``use_global_device_ids``: the pieces of a group's devices concatenated in the group's order."""
        groups = "[" + ", ".join(f"[{_ints(g)}]" for g in replica_groups) + "]"
        size = f"{len(replica_groups)}x{len(replica_groups[0]) if replica_groups else 0}"
        shape = x.shape
        shape[dim] *= len(replica_groups[0]) if replica_groups else 1
        return self._op("stablehlo.all_gather", [x], [(shape, x.t)],
                        f"all_gather_dim = {int(dim)} : i64, replica_groups = dense<{groups}> : tensor<{size}xi64>, "
                        f"channel_handle = #stablehlo.channel_handle<handle = {int(channel_id)}, type = 1>, "
                        "use_global_device_ids")[0]

    def text(self, name: str, args: Sequence[V], results: Sequence[V]) -> str:
        """The template ``func.func private @name(args) -> results`` text."""
        params = ", ".join(f"{a.n}: {a.ty}{self.suffix}" for a in args)
        rtypes = ", ".join(r.ty for r in results)
        rnames = ", ".join(r.n for r in results)
        body = "\n".join(self.lines)
        return (
            f"func.func private @{name}({params}) -> ({rtypes}) {{\n{body}\n"
            f'  "func.return"({rnames}) : ({rtypes}) -> (){self.suffix}\n}}\n'
        )


for _name in _UNARY:
    setattr(Emitter, _name if _name != "not" else "not_", _unary(_name))
for _name in _BINARY:
    setattr(Emitter, _name if _name not in ("and", "or") else _name + "_", _binary(_name))
del _name
