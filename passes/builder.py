"""The IR-building layer of hlokit's passes: typed Python values written into a template ``func.func``.

A pass that expands an op into StableHLO builds the expansion once per op *signature* (op name, element
types, attributes, and shapes where they matter) with an :class:`Emitter`, parses the text once and then
clones the parsed function for every op with that signature (:class:`TemplateCache`,
:func:`instantiate`). The Python work per rewritten op is then a clone
and a few ``move_before`` calls, whatever the size of the expansion; measured on
``benchmarks/chlo_speed.py`` this is several times faster than creating each op through the bindings.

Values are :class:`V` (an SSA name, a shape prefix and an element type); Python operators and numbers
mix freely (``x * 2.0 + y`` emits a splat constant, a multiply and an add). Every method is named after
the StableHLO op it emits (StableHLO specification, https://openxla.org/stablehlo/spec, section of the
same name). Regions are built by Python callables: :meth:`Emitter.reduce`, :meth:`Emitter.sort` and
:meth:`Emitter.while_loop` call them with the block arguments as :class:`V` and write what they return
into ``stablehlo.return``.

Shapes: a shape prefix is ``"4x3x"`` (static), ``"?x3x"`` (dynamic dimension), ``""`` (0-d) or the
placeholder ``"$S"`` (a shape-independent template; replaced before parsing). Methods that change a
shape take the new shape as a list of ints (``-1``: dynamic). Element types are MLIR spellings
(``"f32"``, ``"bf16"``, ``"f8E4M3FN"``, ``"complex<f64>"``, ``"ui8"``, ``"i1"``).

Errors: :class:`UnsupportedError` for a request the layer cannot express (message says which); the
pass turns it into a located ``PassError``.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes

__all__ = [
    "Emitter",
    "V",
    "TemplateCache",
    "relocate",
    "instantiate",
    "instantiate_all",
    "instantiate_before",
    "find_ops",
    "splice",
    "UnsupportedError",
    "shape_prefix",
    "shape_of_prefix",
    "float_literal",
    "FLOAT_TYPES",
    "MINI_FLOAT_TYPES",
    "COMPLEX_TYPES",
    "SINT_TYPES",
    "UINT_TYPES",
    "INT_TYPES",
    "BITS",
]

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
#: 4/6/8-bit float types (evaluated in f64 by the CHLO kernels, as XLA converts them).
MINI_FLOAT_TYPES = ("f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ",
                    "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ", "f8E8M0FNU")
COMPLEX_TYPES = ("complex<f32>", "complex<f64>")
SINT_TYPES = ("i8", "i16", "i32", "i64")
UINT_TYPES = ("ui8", "ui16", "ui32", "ui64")
INT_TYPES = SINT_TYPES + UINT_TYPES
#: Bit width of the element types whose bits the kernels manipulate.
BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i1": 1,
        "i8": 8, "i16": 16, "i32": 32, "i64": 64, "ui8": 8, "ui16": 16, "ui32": 32, "ui64": 64}

_NAN = {"f16": "0x7E00", "bf16": "0x7FC0", "f32": "0x7FC00000", "f64": "0x7FF8000000000000"}
_POS_INF = {"f16": "0x7C00", "bf16": "0x7F80", "f32": "0x7F800000", "f64": "0x7FF0000000000000"}
_NEG_INF = {"f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000", "f64": "0xFFF0000000000000"}
#: ml_dtypes names of the 4/6/8-bit float types (to spell their NaN / inf bit patterns).
_ML_DTYPES = {"f4E2M1FN": "float4_e2m1fn", "f6E2M3FN": "float6_e2m3fn", "f6E3M2FN": "float6_e3m2fn",
              "f8E3M4": "float8_e3m4", "f8E4M3": "float8_e4m3", "f8E4M3FN": "float8_e4m3fn",
              "f8E4M3FNUZ": "float8_e4m3fnuz", "f8E4M3B11FNUZ": "float8_e4m3b11fnuz", "f8E5M2": "float8_e5m2",
              "f8E5M2FNUZ": "float8_e5m2fnuz", "f8E8M0FNU": "float8_e8m0fnu"}


class UnsupportedError(Exception):
    """A request the building layer (or an expansion written on it) does not handle; the message says which."""


def float_literal(v: float, t: str) -> str:
    """The ``dense<...>`` literal of float ``v`` in float type ``t``: decimal with 17 digits (exact for
    every finite f64), the type's bit pattern for NaN and +-inf (MLIR's text form has no NaN/inf words)."""
    if math.isnan(v) or math.isinf(v):
        if t in _NAN:
            return _NAN[t] if math.isnan(v) else (_POS_INF[t] if v > 0 else _NEG_INF[t])
        if t in _ML_DTYPES:
            bits = np.array([v], dtype=getattr(ml_dtypes, _ML_DTYPES[t])).view(np.uint8)[0]
            return hex(int(bits))
        raise UnsupportedError(f"no literal for {v} in element type '{t}'")
    return "%.17e" % v


def shape_prefix(shape: Sequence[int]) -> str:
    """``[2, -1]`` -> ``"2x?x"`` (``-1``: a dynamic dimension); ``[]`` -> ``""``."""
    return "".join("?x" if d < 0 else f"{d}x" for d in shape)


def shape_of_prefix(s: str) -> list[int]:
    """Inverse of :func:`shape_prefix` (``"2x?x"`` -> ``[2, -1]``); UnsupportedError for ``"$S"``."""
    if "$" in s:
        raise UnsupportedError("internal: the shape of a shape-independent template value is unknown")
    return [-1 if p == "?" else int(p) for p in s.split("x")[:-1]]


def _ints(v: Sequence[int]) -> str:
    return ", ".join(str(int(x)) for x in v)


def _array(v: Sequence[int]) -> str:
    return f"array<i64{': ' if len(v) else ''}{_ints(v)}>"


class V:
    """An SSA value of a template: ``n`` (name), ``s`` (shape prefix) and ``t`` (element type).

    Arithmetic operators emit the StableHLO elementwise op (``+`` add, ``-`` subtract, ``*`` multiply,
    ``/`` divide, unary ``-`` negate); ``lt/le/gt/ge/eq/ne`` emit ``compare``. A Python number operand
    becomes a splat constant of this value's type and shape.
    """

    __slots__ = ("e", "n", "s", "t")

    def __init__(self, e: "Emitter", n: str, s: str, t: str):
        self.e, self.n, self.s, self.t = e, n, s, t

    @property
    def ty(self) -> str:
        """The MLIR tensor type text (``tensor<4x3xf32>``)."""
        return f"tensor<{self.s}{self.t}>"

    @property
    def shape(self) -> list[int]:
        """The shape as ints (``-1``: dynamic); UnsupportedError for a shape-independent value."""
        return shape_of_prefix(self.s)

    def _c(self, other):
        return other if isinstance(other, V) else self.e.const(other, self)

    def __add__(self, o): return self.e.bin("add", self, self._c(o))
    def __radd__(self, o): return self.e.bin("add", self._c(o), self)
    def __sub__(self, o): return self.e.bin("subtract", self, self._c(o))
    def __rsub__(self, o): return self.e.bin("subtract", self._c(o), self)
    def __mul__(self, o): return self.e.bin("multiply", self, self._c(o))
    def __rmul__(self, o): return self.e.bin("multiply", self._c(o), self)
    def __truediv__(self, o): return self.e.bin("divide", self, self._c(o))
    def __rtruediv__(self, o): return self.e.bin("divide", self._c(o), self)
    def __neg__(self): return self.e.un("negate", self)

    def lt(self, o): return self.e.cmp("LT", self, self._c(o))
    def le(self, o): return self.e.cmp("LE", self, self._c(o))
    def gt(self, o): return self.e.cmp("GT", self, self._c(o))
    def ge(self, o): return self.e.cmp("GE", self, self._c(o))
    def eq(self, o): return self.e.cmp("EQ", self, self._c(o))
    def ne(self, o): return self.e.cmp("NE", self, self._c(o))


class Emitter:
    """Builds the body of one template function as MLIR generic-form text.

    ``loc``: a name location (e.g. ``"chlo.erf"``) written on every op and block argument, so expanded
    ops say where they come from (the pass moves top-level ops to the rewritten op's own location).

    Values are :class:`V`; Python numbers mixed into arithmetic become splat constants of the other
    operand's type (one constant op per distinct value, type and region). :meth:`args` declares the
    function's arguments, :meth:`text` returns the whole ``func.func``.
    """

    def __init__(self, loc: str = ""):
        self.lines: list[str] = []
        self.count = 0
        self.consts: dict[tuple, V] = {}
        self.suffix = f' loc("{loc}")' if loc else ""
        #: the source type is narrower than f64 (f16/bf16/f32): f64 kernels may drop terms that only
        #: matter below 2^-30 relative error.
        self.narrow = False
        #: for dynamic shapes (``?`` in a shape prefix): the runtime shape (tensor<R x i32>) that splat
        #: constants are broadcast to with ``dynamic_broadcast_in_dim``.
        self.shape_tensor: V | None = None

    # -- plumbing --------------------------------------------------------------------------------
    def fresh(self) -> str:
        """A new SSA name (``%vN``)."""
        self.count += 1
        return f"%v{self.count}"

    def args(self, types: Sequence[tuple[str, str]]) -> list[V]:
        """The template function's arguments, one :class:`V` per ``(shape prefix, element type)``."""
        return [V(self, f"%a{i}", s, t) for i, (s, t) in enumerate(types)]

    def op(self, name: str, operands: Sequence[V], results: Sequence[tuple[str, str]], attrs: str = "",
           regions: Sequence[str] = ()) -> list[V]:
        """Emit any op (full name, e.g. ``"stablehlo.sort"``) with ``(shape prefix, element type)``
        results, an attribute dictionary body ``attrs`` and region texts from :meth:`region`."""
        a = ", ".join(x.n for x in operands)
        ts = ", ".join(x.ty for x in operands)
        rts = ", ".join(f"tensor<{s}{t}>" for s, t in results)
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

    def emit(self, op: str, args: Sequence[V], rs: str, rt: str, attrs: str = "") -> V:
        """Emit ``stablehlo.<op>`` with one result of shape prefix ``rs`` and element type ``rt``."""
        n = self.fresh()
        a = ", ".join(x.n for x in args)
        ts = ", ".join(x.ty for x in args)
        attr = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f'  {n} = "stablehlo.{op}"({a}){attr} : ({ts}) -> tensor<{rs}{rt}>{self.suffix}')
        return V(self, n, rs, rt)

    def region(self, arg_types: Sequence[tuple[str, str]], body: Callable[..., Sequence[V] | V]) -> str:
        """The text of a one-block region: ``body(*block_args)`` builds its ops and returns the values
        given to ``stablehlo.return``. Constants made inside stay inside (the region has its own
        constant cache)."""
        saved = self.lines, self.consts, self.shape_tensor
        self.lines, self.consts, self.shape_tensor = [], {}, None
        try:
            names = [self.fresh().replace("%v", "%b") for _ in arg_types]
            bargs = [V(self, n, s, t) for n, (s, t) in zip(names, arg_types)]
            out = body(*bargs)
            out = [out] if isinstance(out, V) else list(out)
            self.op("stablehlo.return", out, [])
            header = ", ".join(f"{n}: tensor<{s}{t}>{self.suffix}" for n, (s, t) in zip(names, arg_types))
            text = "{\n  ^bb0(" + header + "):\n" + "\n".join(self.lines) + "\n  }"
        finally:
            self.lines, self.consts, self.shape_tensor = saved
        return text

    # -- constants -------------------------------------------------------------------------------
    def const(self, value, like: V | None = None, t: str | None = None, s: str | None = None) -> V:
        """A splat constant ``value`` of element type ``t`` and shape prefix ``s`` (default: those of
        ``like``). Any element type: ints and ``i1`` (bool), all float widths (NaN/inf as bit
        patterns), complex (a Python complex or real). In a dynamic shape the scalar is broadcast to
        :attr:`shape_tensor`."""
        t = t or like.t
        s = like.s if s is None else s
        key = (repr(value), s, t)
        hit = self.consts.get(key)
        if hit is not None:
            return hit
        if t.startswith("complex"):
            re_t = t[len("complex<"):-1]
            value = complex(value)
            c = self.complex(self.const(value.real, t=re_t, s=s), self.const(value.imag, t=re_t, s=s))
            self.consts[key] = c
            return c
        if "?" in s:  # dynamic shape: scalar constant broadcast to the runtime shape
            if self.shape_tensor is None:
                raise UnsupportedError("internal: dynamic-shape constant without a shape")
            c0 = self.const(value, t=t, s="")
            c = self.emit("dynamic_broadcast_in_dim", [c0, self.shape_tensor], s, t, "broadcast_dimensions = array<i64>")
            self.consts[key] = c
            return c
        if t == "i1":
            lit = "true" if value else "false"
        elif t in INT_TYPES:
            lit = str(int(value))
        else:
            lit = float_literal(float(value), t)
        n = self.fresh()
        self.lines.append(f'  {n} = "stablehlo.constant"() {{value = dense<{lit}> : tensor<{s}{t}>}} '
                          f': () -> tensor<{s}{t}>{self.suffix}')
        v = V(self, n, s, t)
        self.consts[key] = v
        return v

    def scalar(self, value, t: str) -> V:
        """A 0-d constant (``tensor<t>``)."""
        return self.const(value, t=t, s="")

    # -- elementwise ops -------------------------------------------------------------------------
    def un(self, op: str, x: V, t: str | None = None) -> V:
        """Unary elementwise ``stablehlo.<op>`` (result element type ``t``, default ``x``'s)."""
        return self.emit(op, [x], x.s, t or x.t)

    def bin(self, op: str, x: V, y: V, t: str | None = None) -> V:
        """Binary elementwise ``stablehlo.<op>`` (operands of one shape)."""
        return self.emit(op, [x, y], x.s, t or x.t)

    def cmp(self, direction: str, x: V, y: V, compare_type: str | None = None) -> V:
        """``stablehlo.compare`` (``"LT"``, ``"EQ"``, ...; ``compare_type`` e.g. ``"TOTALORDER"``) -> i1."""
        attrs = f"comparison_direction = #stablehlo<comparison_direction {direction}>"
        if compare_type:
            attrs += f", compare_type = #stablehlo<comparison_type {compare_type}>"
        return self.emit("compare", [x, y], x.s, "i1", attrs)

    compare = cmp

    def select(self, p: V, a, b) -> V:
        """``stablehlo.select(p, a, b)``; a Python number branch takes the other branch's type."""
        like = a if isinstance(a, V) else b
        a = a if isinstance(a, V) else self.const(a, like)
        b = b if isinstance(b, V) else self.const(b, like)
        return self.emit("select", [p, a, b], a.s, a.t)

    def convert(self, x: V, t: str) -> V:
        """``stablehlo.convert`` to element type ``t`` (no op when already ``t``)."""
        return x if x.t == t else self.emit("convert", [x], x.s, t)

    def bitcast(self, x: V, t: str) -> V:
        """``stablehlo.bitcast_convert`` to a same-width element type ``t``."""
        return self.emit("bitcast_convert", [x], x.s, t)

    def complex(self, re_: V, im: V) -> V:
        return self.emit("complex", [re_, im], re_.s, f"complex<{re_.t}>")

    def real(self, z: V) -> V:
        return self.emit("real", [z], z.s, z.t[len("complex<"):-1])

    def imag(self, z: V) -> V:
        return self.emit("imag", [z], z.s, z.t[len("complex<"):-1])

    def land(self, a: V, b: V) -> V: return self.bin("and", a, b)
    def lor(self, a: V, b: V) -> V: return self.bin("or", a, b)
    def lnot(self, a: V) -> V: return self.un("not", a)
    def abs(self, x: V) -> V: return self.un("abs", x)
    def exp(self, x: V) -> V: return self.un("exponential", x)
    def expm1(self, x: V) -> V: return self.un("exponential_minus_one", x)
    def log(self, x: V) -> V: return self.un("log", x)

    def log1p(self, x: V) -> V:
        """log(1 + x) to ~1 ULP: ``log(u) - ((u - 1) - x) / u`` with u = 1 + x (XLA's own f64
        ``log_plus_one`` is off by up to ~70 ULP near x = -0.4). Exact for tiny x; inf, -1, NaN kept."""
        u = x + 1.0
        d = u - self.opaque(1.0, x)  # opaque: keep XLA from folding (x + 1) - 1 into x
        r = self.log(u) - (d - x) / u
        r = self.select(u.eq(1.0), x, r)
        r = self.select(x.eq(math.inf), x, r)
        return self.select(x.eq(-1.0), -math.inf, r)

    def sqrt(self, x: V) -> V: return self.un("sqrt", x)
    def sin(self, x: V) -> V: return self.un("sine", x)
    def cos(self, x: V) -> V: return self.un("cosine", x)
    def tan(self, x: V) -> V: return self.un("tan", x)
    def floor(self, x: V) -> V: return self.un("floor", x)
    def round_even(self, x: V) -> V: return self.un("round_nearest_even", x)
    def atan2(self, y: V, x) -> V: return self.bin("atan2", y, x if isinstance(x, V) else self.const(x, y))
    def max(self, a: V, b) -> V: return self.bin("maximum", a, a._c(b))
    def min(self, a: V, b) -> V: return self.bin("minimum", a, a._c(b))
    def pow(self, a: V, b) -> V: return self.bin("power", a, a._c(b))

    def opaque(self, value: float | V, like: V) -> V:
        """``value`` (a constant, or a value XLA sees as one) in a form XLA cannot fold or rewrite:
        ``select(isnan(like), like, value)``, the same values. Its algebraic simplifier reassociates
        ``(a - c1) - c2`` into ``a - (c1 + c2)``, which defeats hi/lo splits, and turns a division by a
        constant or loop-invariant divisor into a multiplication by its reciprocal, which rounds
        differently (measured on jaxlib 0.10.2: one storage step on 15% of quantize values near rounding
        ties in f32; an ``optimization_barrier`` does not prevent it)."""
        return self.select(self.isnan(like), like, value if isinstance(value, V) else self.const(value, like))

    def isnan(self, x: V) -> V: return self.cmp("NE", x, x)
    def isinf(self, x: V) -> V: return self.abs(x).eq(math.inf)

    def copysign(self, mag: V, sgn: V) -> V:
        """|mag| with the sign bit of ``sgn`` (bit operations: exact for +-0, inf and NaN)."""
        it = {16: "ui16", 32: "ui32", 64: "ui64"}[BITS[mag.t]]
        sign_bit = 1 << (BITS[mag.t] - 1)
        m = self.bitcast(mag, it)
        s = self.bitcast(sgn, it)
        r = self.lor(self.land(m, self.const(sign_bit - 1, m)), self.land(s, self.const(sign_bit, s)))
        return self.bitcast(r, mag.t)

    def horner(self, x: V, coeffs) -> V:
        """sum(coeffs[i] * x**(n-1-i)): coefficients from the highest degree down."""
        acc = self.const(coeffs[0], x)
        for c in coeffs[1:]:
            acc = acc * x + c
        return acc

    # -- shapes ----------------------------------------------------------------------------------
    def iota(self, shape: Sequence[int], dim: int, t: str = "i32") -> V:
        """``stablehlo.iota`` of ``shape`` counting along ``dim``."""
        return self.emit("iota", [], shape_prefix(shape), t, f"iota_dimension = {dim} : i64")

    def reshape(self, x: V, shape: Sequence[int]) -> V:
        """``stablehlo.reshape`` to a static ``shape``."""
        return self.emit("reshape", [x], shape_prefix(shape), x.t)

    def transpose(self, x: V, perm: Sequence[int]) -> V:
        """``stablehlo.transpose``: result dimension i is operand dimension ``perm[i]``."""
        shape = x.shape
        return self.emit("transpose", [x], shape_prefix([shape[p] for p in perm]), x.t,
                         f"permutation = {_array(perm)}")

    def broadcast_in_dim(self, x: V, shape: Sequence[int], dims: Sequence[int] | None = None) -> V:
        """``stablehlo.broadcast_in_dim`` to static ``shape``; operand dimension i goes to ``dims[i]``
        (default: the trailing dimensions, numpy alignment). No op when the shape is already ``shape``."""
        if x.s == shape_prefix(shape):
            return x
        if dims is None:
            rank = len(x.shape)
            dims = list(range(len(shape) - rank, len(shape)))
        return self.emit("broadcast_in_dim", [x], shape_prefix(shape), x.t, f"broadcast_dimensions = {_array(dims)}")

    def dynamic_broadcast_in_dim(self, x: V, shape_tensor: V, shape: Sequence[int], dims: Sequence[int]) -> V:
        """``stablehlo.dynamic_broadcast_in_dim`` to the runtime shape ``shape_tensor`` (tensor<R x i32>)
        with static knowledge ``shape`` (``-1``: dynamic)."""
        return self.emit("dynamic_broadcast_in_dim", [x, shape_tensor], shape_prefix(shape), x.t,
                         f"broadcast_dimensions = {_array(dims)}")

    def broadcast_to(self, x: V, shape: Sequence[int], dims: Sequence[int], shape_tensor: Callable[[], V]) -> V:
        """Broadcast ``x`` to ``shape`` (operand dimension i -> ``dims[i]``): ``broadcast_in_dim`` when
        ``shape`` is static, else ``dynamic_broadcast_in_dim`` to ``shape_tensor()`` (called only then; it
        returns the runtime shape as a rank-1 integer tensor)."""
        if all(d >= 0 for d in shape):
            return self.broadcast_in_dim(x, shape, dims)
        return self.dynamic_broadcast_in_dim(x, shape_tensor(), shape, dims)

    def dynamic_iota(self, shape_tensor: V, shape: Sequence[int], dim: int, t: str = "i32") -> V:
        """``stablehlo.dynamic_iota`` of the runtime shape ``shape_tensor`` (static knowledge ``shape``,
        ``-1``: dynamic) counting along ``dim``."""
        return self.emit("dynamic_iota", [shape_tensor], shape_prefix(shape), t, f"iota_dimension = {dim} : i64")

    def real_dynamic_slice(self, x: V, start: V, limit: V, strides: V, shape: Sequence[int]) -> V:
        """``stablehlo.real_dynamic_slice`` with rank-1 integer ``start`` / ``limit`` / ``strides`` tensors;
        ``shape`` is the static knowledge of the result (``-1``: dynamic)."""
        return self.emit("real_dynamic_slice", [x, start, limit, strides], shape_prefix(shape), x.t)

    def dynamic_reshape(self, x: V, shape_tensor: V, shape: Sequence[int]) -> V:
        """``stablehlo.dynamic_reshape`` to the runtime shape ``shape_tensor`` (static knowledge ``shape``)."""
        return self.emit("dynamic_reshape", [x, shape_tensor], shape_prefix(shape), x.t)

    def get_dimension_size(self, x: V, dim: int) -> V:
        """``stablehlo.get_dimension_size`` -> tensor<i32>."""
        return self.emit("get_dimension_size", [x], "", "i32", f"dimension = {dim} : i64")

    def shape_of(self, v: V, shape) -> V:
        """The runtime shape of ``v`` as tensor<R x i32> (get_dimension_size per dynamic dimension)."""
        parts = []
        for i, d in enumerate(shape):
            if d >= 0:
                parts.append(self.const(d, t="i32", s="1x"))
            else:
                parts.append(self.emit("reshape", [self.get_dimension_size(v, i)], "1x", "i32"))
        return self.concat(parts)

    def concatenate(self, parts: Sequence[V], dim: int) -> V:
        """``stablehlo.concatenate`` along ``dim`` (static shapes)."""
        if len(parts) == 1:
            return parts[0]
        shape = parts[0].shape
        shape[dim] = sum(p.shape[dim] for p in parts)
        return self.emit("concatenate", list(parts), shape_prefix(shape), parts[0].t, f"dimension = {dim} : i64")

    def concat(self, parts: Sequence[V]) -> V:
        """Concatenate rank-1 values (e.g. shape pieces ``tensor<1xi32>``) along dimension 0."""
        if len(parts) == 1:
            return parts[0]
        return self.emit("concatenate", list(parts), f"{len(parts)}x", parts[0].t, "dimension = 0 : i64")

    def slice(self, x: V, start: Sequence[int], limit: Sequence[int], strides: Sequence[int] | None = None) -> V:
        """``stablehlo.slice`` (static)."""
        strides = list(strides) if strides is not None else [1] * len(start)
        shape = [-(-(hi - lo) // st) for lo, hi, st in zip(start, limit, strides)]
        return self.emit("slice", [x], shape_prefix(shape), x.t,
                         f"start_indices = {_array(start)}, limit_indices = {_array(limit)}, strides = {_array(strides)}")

    def dynamic_slice(self, x: V, starts: Sequence[V], sizes: Sequence[int]) -> V:
        """``stablehlo.dynamic_slice``: ``starts`` are 0-d integer values, one per dimension."""
        return self.emit("dynamic_slice", [x, *starts], shape_prefix(sizes), x.t, f"slice_sizes = {_array(sizes)}")

    def dynamic_update_slice(self, x: V, update: V, starts: Sequence[V]) -> V:
        """``stablehlo.dynamic_update_slice`` of ``update`` into ``x`` at 0-d integer ``starts``."""
        return self.emit("dynamic_update_slice", [x, update, *starts], x.s, x.t)

    def dot_general(self, lhs: V, rhs: V, lhs_batch: Sequence[int] = (), rhs_batch: Sequence[int] = (),
                    lhs_contract: Sequence[int] = (), rhs_contract: Sequence[int] = (), t: str | None = None) -> V:
        """``stablehlo.dot_general``; result ``[batch..., lhs free..., rhs free...]`` of element type ``t``
        (default ``lhs``'s), static shapes."""
        ls, rs = lhs.shape, rhs.shape
        lf = [ls[d] for d in range(len(ls)) if d not in lhs_batch and d not in lhs_contract]
        rf = [rs[d] for d in range(len(rs)) if d not in rhs_batch and d not in rhs_contract]
        shape = [ls[d] for d in lhs_batch] + lf + rf
        dims = (f"#stablehlo.dot<lhs_batching_dimensions = [{_ints(lhs_batch)}], "
                f"rhs_batching_dimensions = [{_ints(rhs_batch)}], "
                f"lhs_contracting_dimensions = [{_ints(lhs_contract)}], "
                f"rhs_contracting_dimensions = [{_ints(rhs_contract)}]>")
        return self.emit("dot_general", [lhs, rhs], shape_prefix(shape), t or lhs.t, f"dot_dimension_numbers = {dims}")

    # -- ops with regions ------------------------------------------------------------------------
    def reduce(self, inputs: Sequence[V], inits: Sequence[V], dims: Sequence[int],
               body: Callable[..., Sequence[V] | V]) -> list[V]:
        """``stablehlo.reduce`` of ``inputs`` over ``dims``; ``body(*accs, *elems)`` (0-d values, one per
        input) returns the combined values. Static shapes."""
        shape = [d for i, d in enumerate(inputs[0].shape) if i not in dims]
        scalars = [("", x.t) for x in inputs]
        reg = self.region(scalars + scalars, body)
        return self.op("stablehlo.reduce", [*inputs, *inits], [(shape_prefix(shape), x.t) for x in inputs],
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
            scalars += [("", x.t), ("", x.t)]
        reg = self.region(scalars, comparator)
        return self.op("stablehlo.sort", list(inputs), [(x.s, x.t) for x in inputs],
                       f"dimension = {dim} : i64, is_stable = {'true' if stable else 'false'}", [reg])

    def while_loop(self, init: Sequence[V], cond: Callable[..., V], body: Callable[..., Sequence[V]]) -> list[V]:
        """``stablehlo.while`` over loop-carried values ``init``: ``cond(*vals)`` returns the 0-d i1 that
        continues the loop, ``body(*vals)`` the next values (same types)."""
        types = [(x.s, x.t) for x in init]
        c = self.region(types, cond)
        b = self.region(types, body)
        return self.op("stablehlo.while", list(init), types, regions=[c, b])

    def splice_point(self, tag: str, operands: Sequence[V], results: Sequence[tuple[str, str]]) -> list[V]:
        """A placeholder ``stablehlo.custom_call @<tag>`` that the pass replaces after cloning (by the body
        of the op being rewritten, :func:`splice`): lets a template hold a
        region it cannot write as text (a custom_call takes any operands and results and names no symbol)."""
        return self.op("stablehlo.custom_call", operands, results, f'call_target_name = "{tag}"')

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


class TemplateCache:
    """Parsed templates of one ``ir.Context``, kept as private ``func.func`` ops in a scratch module.

    ``funcs`` maps a caller-chosen signature key to the parsed template; ``texts`` is free for callers
    that reuse one text for several keys (e.g. shape-independent texts with a ``$S`` placeholder).
    """

    def __init__(self, context: ir.Context):
        self.context = context
        with context, ir.Location.unknown(context):
            self.scratch = ir.Module.create()
        self.ip = ir.InsertionPoint(self.scratch.body)
        self.texts: dict[tuple, str] = {}
        self.funcs: dict[tuple, ir.Operation] = {}

    @classmethod
    def per_context(cls, caches: dict, context: ir.Context) -> "TemplateCache":
        """The cache of ``context`` kept in ``caches`` (``id(context)`` -> cache), made on first use; an
        entry left by a dead context whose id was reused is replaced."""
        entry = caches.get(id(context))
        if entry is None or entry.context is not context:
            entry = caches[id(context)] = cls(context)
        return entry

    @classmethod
    def of_pass(cls, owner, context: ir.Context) -> "TemplateCache":
        """The cache of ``context`` that the pass instance ``owner`` keeps (in ``owner._caches``; see
        :meth:`per_context`)."""
        return cls.per_context(owner.__dict__.setdefault("_caches", {}), context)

    def parse(self, key: tuple, text: str, what: str) -> ir.Operation:
        """Parse template ``text`` (from :meth:`Emitter.text`), keep it under ``key`` and return it;
        UnsupportedError (naming ``what``) when the text does not parse (a bug in an expansion)."""
        try:
            parsed = ir.Operation.parse(text, context=self.context)
        except ir.MLIRError as err:
            raise UnsupportedError(f"internal error: expansion of '{what}' does not parse: {err}") from None
        with self.context:
            self.scratch.body.append(parsed)
        self.funcs[key] = parsed
        return parsed


def find_ops(root: ir.Operation, names) -> list[ir.Operation]:
    """Every op under ``root`` (nested regions included, walk order) whose name is in ``names``."""
    found: list[ir.Operation] = []

    def collect(o):
        if o.name in names:
            found.append(o.operation)
        return ir.WalkResult.ADVANCE

    root.walk(collect)
    return found


def instantiate_all(cache: TemplateCache, plan) -> None:
    """Replace each ``op`` of ``plan`` (``(op, template)`` pairs, built beforehand so that a refused op
    leaves the IR untouched) by a clone of its template located at the op (:func:`instantiate`,
    :func:`relocate`)."""
    for op, template in plan:
        instantiate(cache, template, op, prepare=lambda clone, op=op: relocate(clone, op.location))


def instantiate(cache: TemplateCache, template: ir.Operation, op: ir.Operation,
                prepare: Callable[[ir.Operation], None] | None = None) -> None:
    """Replace ``op`` by a clone of ``template``'s body: the template's arguments become ``op``'s
    operands, the values its ``func.return`` returns replace ``op``'s results; the top-level ops of the
    body take ``op``'s location (as MLIR's rewrites do). ``prepare(clone)`` runs on the clone first
    (e.g. :func:`splice`). Erases ``op``."""
    clone = template.clone(ip=cache.ip)
    if prepare is not None:
        prepare(clone)
    block = clone.regions[0].blocks[0]
    for arg, operand in zip(block.arguments, op.operands):
        arg.replace_all_uses_with(operand)
    body = list(block.operations)
    loc = op.location
    for inner in body[:-1]:
        inner.location = loc
        inner.move_before(op)
    for res, val in zip(op.results, body[-1].operands):
        if val.type != res.type and isinstance(val, ir.OpResult) and any(val.owner == o.operation for o in body[:-1]):
            # Templates are written on plain shapes: give the value that replaces a result the result's
            # exact type back (a ``#stablehlo.bounds<...>`` encoding of a bounded dynamic dimension).
            val.set_type(res.type)
        res.replace_all_uses_with(val)
    op.erase()
    clone.erase()


def instantiate_before(cache: TemplateCache, template: ir.Operation, before: ir.Operation,
                       operands: Sequence[ir.Value]) -> list[ir.Value]:
    """Clone ``template``'s body before ``before`` with its arguments bound to ``operands`` and return
    the values its ``func.return`` returns (``before`` is left as it is; the top-level ops take its
    location). For passes that rewire results themselves (value-to-value lowerings)."""
    clone = template.clone(ip=cache.ip)
    block = clone.regions[0].blocks[0]
    for arg, operand in zip(block.arguments, operands):
        arg.replace_all_uses_with(operand)
    body = list(block.operations)
    loc = before.location
    for inner in body[:-1]:
        inner.location = loc
        inner.move_before(before)
    out = list(body[-1].operands)
    clone.erase()
    return out


def relocate(clone: ir.Operation, loc: ir.Location) -> None:
    """Give every op of a cloned template (a ``func.func``; nested ops included) the location ``loc``,
    so that errors and debug info point at the op the template replaces."""

    def visit(o):
        o.location = loc
        return ir.WalkResult.ADVANCE

    for inner in clone.regions[0].blocks[0].operations:
        inner.operation.walk(visit)


def splice(root: ir.Operation, callee: str, block: ir.Block) -> None:
    """Replace the placeholder ``stablehlo.custom_call @callee`` under ``root`` (written by
    :meth:`Emitter.splice_point`) by the ops of ``block``: the block's arguments become the call's
    operands, the values its terminator returns replace the call's results."""
    found = []

    def visit(o):
        if o.name == "stablehlo.custom_call" and attributes.str_value(o, "call_target_name") == callee:
            found.append(o.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    for call in found:
        for arg, operand in zip(block.arguments, call.operands):
            arg.replace_all_uses_with(operand)
        ops = list(block.operations)
        for inner in ops[:-1]:
            inner.move_before(call)
        for res, val in zip(call.results, ops[-1].operands):
            res.replace_all_uses_with(val)
        call.erase()
