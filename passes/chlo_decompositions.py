"""StableHLO expansions of the CHLO ops, written as text templates (used by ``chlo-legalize-to-stablehlo``).

Every CHLO op is expanded into a ``func.func`` *template* whose body uses StableHLO ops only. A template
is generated once per (op, element types, attributes) as MLIR text in which the shape of an elementwise
op is a placeholder (``$S``); it is parsed once per concrete signature and then cloned for every op that
has that signature (see :mod:`hlokit.passes.chlo_legalize_to_stablehlo`). So the Python work per CHLO
op is a clone plus a few ``move_before`` calls, never a re-run of the math below.

Numerics (seed 000 "Dialect Interop", the CHLO op docs in jaxlib, and the literature):

* f16, bf16 and f32 special functions and inverse/hyperbolic trig functions are evaluated in f64 and
  rounded once, so their error is about 0.5 ULP of the narrow type (XLA's own CHLO lowering evaluates
  f32 in f32 with truncated rational approximations). complex<f32> likewise goes through complex<f64>.
* f64 algorithms:
  - erf / erfc: Cephes ``ndtr.c`` rational approximations; ``exp(-x*x)`` is evaluated with a
    Dekker split of ``x`` so that the square carries no rounding error (erfc keeps full relative
    accuracy down to its underflow at x ~ 27).
  - erf_inv: Giles' single-precision approximation ("Approximating the erfinv function", GPU Computing
    Gems, 2011) refined by three Halley steps against our erf/erfc (erfc near +-1, where it keeps
    relative accuracy).
  - lgamma: Taylor series of lgamma(2+w) with (zeta(k)-1) coefficients for x in [0.5, 2.5] (accurate at
    the zeros 1 and 2), Lanczos (g=7, n=9) above, reflection with an exact sin(pi*r) reduction below.
  - digamma: recurrence up to x >= 10, then the asymptotic series; Taylor series around the positive
    zero x0 = 1.4616...; reflection for x < 0.5.
  - zeta (Hurwitz) and polygamma: Euler-Maclaurin summation (10 terms + 13 Bernoulli corrections).
  - bessel_i1e: power series of I1 (all terms positive) up to |x| = 20, Hankel asymptotic series above.
  - complex asin/acos/asinh/acosh: the algorithm of Hull, Fairgrieve and Tang, "Implementing the complex
    arcsine and arccosine functions using exception handling" (ACM TOMS 23(3), 1997), expressed through
    the ``_asin_acos_kernel`` w(z) of the CHLO docs; complex atan/atanh: Kahan's formulas ("Branch cuts
    for complex elementary functions", 1987) with overflow-safe branches.
  - sinh/cosh: expm1-based for small |x|, exp(|x|/2)^2 scaling near overflow (no log(1/2) shift, which
    costs up to ~|x| ULP).
"""

from __future__ import annotations

import math
import re
from typing import Callable

__all__ = [
    "Emitter",
    "OpInfo",
    "OpSpec",
    "erf64",
    "erfc64",
    "erfinv64",
    "lgamma64",
    "digamma64",
    "zeta64",
    "polygamma64",
    "i1e64",
    "asin_acos_kernel64",
    "atanh_complex64",
    "V",
    "UnsupportedError",
    "DECOMPOSITIONS",
    "ELEMENTWISE",
    "FLOAT_TYPES",
    "COMPLEX_TYPES",
    "INT_TYPES",
    "template_text",
]

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
#: 4/6/8-bit float types CHLO accepts: evaluated in f64 like f16 (XLA converts them).
MINI_FLOAT_TYPES = ("f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ",
                    "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ", "f8E8M0FNU")
COMPLEX_TYPES = ("complex<f32>", "complex<f64>")
SINT_TYPES = ("i8", "i16", "i32", "i64")
UINT_TYPES = ("ui8", "ui16", "ui32", "ui64")
INT_TYPES = SINT_TYPES + UINT_TYPES
BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i1": 1,
        "i8": 8, "i16": 16, "i32": 32, "i64": 64, "ui8": 8, "ui16": 16, "ui32": 32, "ui64": 64}

F64_MAX = 1.7976931348623157e308
F64_TINY = 2.2250738585072014e-308
SAFE_MAX = math.sqrt(F64_MAX) / 8.0  # ~1.7e153: squares and sums of squares stay finite
SAFE_MIN = math.sqrt(F64_TINY) * 4.0  # ~6e-154: squares stay normal
LN2 = 0.6931471805599453
PI = 3.141592653589793


class UnsupportedError(Exception):
    """An op / element type / attribute combination this legalization does not handle (message says which)."""


def _fmt_float(v: float, t: str) -> str:
    if math.isnan(v):
        return {"f16": "0x7E00", "bf16": "0x7FC0", "f32": "0x7FC00000", "f64": "0x7FF8000000000000"}[t]
    if math.isinf(v):
        pos = {"f16": "0x7C00", "bf16": "0x7F80", "f32": "0x7F800000", "f64": "0x7FF0000000000000"}[t]
        neg = {"f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000", "f64": "0xFFF0000000000000"}[t]
        return pos if v > 0 else neg
    return "%.17e" % v


class V:
    """An SSA value of a template: ``name``, shape prefix (``"4x3x"``, ``""`` or ``"$S"``) and element type."""

    __slots__ = ("e", "n", "s", "t")

    def __init__(self, e: "Emitter", n: str, s: str, t: str):
        self.e, self.n, self.s, self.t = e, n, s, t

    @property
    def ty(self) -> str:
        return f"tensor<{self.s}{self.t}>"

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

    Values are :class:`V`; Python numbers mixed into arithmetic become splat constants of the other
    operand's type (one constant op per distinct value and type). Methods are named after the StableHLO
    op they emit (spec names); :meth:`text` returns the whole ``func.func``.
    """

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0
        self.consts: dict[tuple, V] = {}
        #: the source type is narrower than f64 (f16/bf16/f32): f64 kernels may drop terms that only
        #: matter below 2^-30 relative error.
        self.narrow = False
        #: for dynamic shapes (``?`` in a shape prefix): the runtime shape (tensor<R x i32>) that splat
        #: constants are broadcast to with ``dynamic_broadcast_in_dim``.
        self.shape_tensor: V | None = None

    def fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def emit(self, op: str, args: list[V], rs: str, rt: str, attrs: str = "") -> V:
        n = self.fresh()
        a = ", ".join(x.n for x in args)
        ts = ", ".join(x.ty for x in args)
        attr = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f'  {n} = "stablehlo.{op}"({a}){attr} : ({ts}) -> tensor<{rs}{rt}>')
        return V(self, n, rs, rt)

    # -- constants -------------------------------------------------------------------------------
    def const(self, value, like: V | None = None, t: str | None = None, s: str | None = None) -> V:
        t = t or like.t
        s = like.s if s is None else s
        key = (repr(value), s, t)
        if key in self.consts:
            return self.consts[key]
        if t.startswith("complex"):
            re_t = t[len("complex<"):-1]
            c = self.complex(self.const(float(value.real), t=re_t, s=s), self.const(float(value.imag), t=re_t, s=s))
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
            lit = _fmt_float(float(value), t)
        n = self.fresh()
        self.lines.append(f'  {n} = "stablehlo.constant"() {{value = dense<{lit}> : tensor<{s}{t}>}} : () -> tensor<{s}{t}>')
        v = V(self, n, s, t)
        self.consts[key] = v
        return v

    # -- elementwise ops -------------------------------------------------------------------------
    def un(self, op: str, x: V, t: str | None = None) -> V:
        return self.emit(op, [x], x.s, t or x.t)

    def bin(self, op: str, x: V, y: V, t: str | None = None) -> V:
        return self.emit(op, [x, y], x.s, t or x.t)

    def cmp(self, direction: str, x: V, y: V, compare_type: str | None = None) -> V:
        attrs = f"comparison_direction = #stablehlo<comparison_direction {direction}>"
        if compare_type:
            attrs += f", compare_type = #stablehlo<comparison_type {compare_type}>"
        return self.emit("compare", [x, y], x.s, "i1", attrs)

    def select(self, p: V, a, b) -> V:
        like = a if isinstance(a, V) else b
        a = a if isinstance(a, V) else self.const(a, like)
        b = b if isinstance(b, V) else self.const(b, like)
        return self.emit("select", [p, a, b], a.s, a.t)

    def convert(self, x: V, t: str) -> V:
        return x if x.t == t else self.emit("convert", [x], x.s, t)

    def bitcast(self, x: V, t: str) -> V:
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

    def opaque(self, value: float, like: V) -> V:
        """A constant XLA cannot fold into a neighbouring constant (its algebraic simplifier reassociates
        ``(a - c1) - c2`` into ``a - (c1 + c2)``, which defeats hi/lo splits)."""
        return self.select(self.isnan(like), like, self.const(value, like))

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

    def shape_of(self, v: V, shape) -> V:
        """The runtime shape of ``v`` as tensor<R x i32> (get_dimension_size per dynamic dimension)."""
        parts = []
        for i, d in enumerate(shape):
            if d >= 0:
                parts.append(self.const(d, t="i32", s="1x"))
            else:
                n = self.emit("get_dimension_size", [v], "", "i32", f"dimension = {i} : i64")
                parts.append(self.emit("reshape", [n], "1x", "i32"))
        return self.concat(parts)

    def concat(self, parts: list[V]) -> V:
        if len(parts) == 1:
            return parts[0]
        return self.emit("concatenate", parts, f"{len(parts)}x", parts[0].t, "dimension = 0 : i64")

    def text(self, name: str, args: list[tuple[str, str]], results: list[V], loc: str = "") -> str:
        """The template ``func.func`` text. ``loc``: a name location given to every op of the body
        (e.g. ``chlo.erf``), so expanded ops say where they come from (not a position in the template)."""
        params = ", ".join(f"{n}: {t}" for n, t in args)
        rtypes = ", ".join(r.ty for r in results)
        rnames = ", ".join(r.n for r in results)
        suffix = f' loc("{loc}")' if loc else ""
        lines = []
        for line in self.lines:
            for sub in line.split("\n"):
                st = sub.strip()
                if suffix and st.startswith("^"):
                    sub = re.sub(r"(%\w+: tensor<[^>]*>)", lambda m: m.group(1) + suffix, sub)
                elif suffix and not st.endswith("({"):
                    sub += suffix
                lines.append(sub)
        body = "\n".join(lines)
        return (
            f"func.func private @{name}({params}) -> ({rtypes}) {{\n{body}\n"
            f'  "func.return"({rnames}) : ({rtypes}) -> (){suffix}\n}}\n'
        )


# =================================================================================================
# f64 real kernels
# =================================================================================================

def _split_sq_exp_neg(e: Emitter, x: V) -> V:
    """exp(-x*x) with x = hi + lo (hi: 26 leading bits), so the argument carries no rounding error."""
    bits = e.bitcast(x, "ui64")
    hi = e.bitcast(e.land(bits, e.const(0xFFFFFFFFF8000000, bits)), "f64")
    lo_part = (x - hi) * (x + hi)
    # XLA's simplifier rewrites exp(a) * exp(b) into exp(a + b), which would undo the split
    second = e.exp(-lo_part)
    second = e.select(e.isnan(x), x, second)
    return e.exp(-(hi * hi)) * second


_ERF_T = [9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
          7.00332514112805075473e3, 5.55923013010394962768e4]
_ERF_U = [1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4]
_ERFC_P = [2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
           9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2]
_ERFC_Q = [1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
           1.65666309194161350182e3, 5.57535340817727675546e2]
_ERFC_R = [5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
           6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0]
_ERFC_S = [1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
           1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0]


def _erf_small(e: Emitter, x: V) -> V:
    """erf(x) for |x| <= 1 (Cephes ndtr.c T/U)."""
    z = x * x
    return x * e.horner(z, _ERF_T) / e.horner(z, _ERF_U)


def _erfc_large(e: Emitter, ax: V, need_tail: bool = True) -> V:
    """erfc(ax) for ax >= 1 (Cephes P/Q below 8, R/S above); underflows to 0 past ~27.

    ``need_tail=False``: the caller only needs erfc(ax) to absolute accuracy 2^-60 (erf), R/S skipped."""
    z = _split_sq_exp_neg(e, ax)
    pq = e.horner(ax, _ERFC_P) / e.horner(ax, _ERFC_Q)
    if not need_tail:
        return e.select(ax.lt(8.0), z * pq, 0.0)
    rs = e.horner(ax, _ERFC_R) / e.horner(ax, _ERFC_S)
    y = z * e.select(ax.lt(8.0), pq, rs)
    return e.select(ax.gt(27.3), 0.0, y)


_ERF_TAYLOR = [-0.37612638903183754, 0.11283791670955126, -0.026866170645131252, 0.005223977625442188,
               -0.0008548327023450853, 0.00012055332981789664, -1.492565035840625e-05, 1.6462114365889248e-06,
               -1.6365844691234924e-07, 1.4807192815879218e-08, -1.2290555301717928e-09, 9.422759064650411e-11,
               -6.7113668551641105e-12, 4.4632242632864775e-13, -2.7835162072109215e-14, 1.6342614095367152e-15]


def _erf_taylor(e: Emitter, x: V) -> V:
    """erf(x) for |x| <= 0.5: 2/sqrt(pi) (x - x^3/3 + ...), leading coefficient split hi + lo."""
    z = x * x
    tail = e.const(_ERF_TAYLOR[-1], x)
    for c in reversed(_ERF_TAYLOR[:-1]):
        tail = tail * z + c
    return x * 1.1283791670955126 + x * (1.533545961316588e-17 + z * tail)


def erf64(e: Emitter, x: V) -> V:
    """erf(x) on f64 values of any shape: Taylor below 0.5, Cephes T/U below 1, 1 - erfc above."""
    ax = e.abs(x)
    xc = e.min(e.max(x, -1.0), 1.0)
    small = e.select(ax.lt(0.5), _erf_taylor(e, e.min(e.max(x, -0.5), 0.5)), _erf_small(e, xc))
    big = e.copysign(1.0 - _erfc_large(e, e.max(ax, 1.0), need_tail=False), x)
    return e.select(ax.lt(1.0), small, e.select(e.isnan(x), x, big))


def erfc64(e: Emitter, x: V) -> V:
    """erfc(x) on f64 values: 1 - erf below 1, Cephes P/Q and R/S with an exact exp(-x*x) above."""
    ax = e.abs(x)
    small = 1.0 - _erf_small(e, e.min(e.max(x, -1.0), 1.0))
    y = _erfc_large(e, e.max(ax, 1.0))
    big = e.select(x.lt(0.0), 2.0 - y, y)
    return e.select(ax.lt(1.0), small, e.select(e.isnan(x), x, big))


def erfinv64(e: Emitter, y: V) -> V:
    """erf_inv(y) on f64 values: Giles' first guess, Halley (|y| <= erf 1) / log-Newton steps; +-1 -> +-inf, |y| > 1 -> NaN."""
    t = e.abs(y)
    w = -e.log((1.0 - t) * (1.0 + t))
    w1 = w - 2.5
    p1 = e.horner(w1, [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                       -0.00125372503, -0.00417768164, 0.246640727, 1.50140941])
    w2 = e.sqrt(e.max(w, 5.0)) - 3.0
    p2 = e.horner(w2, [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                       -0.0076224613, 0.00943887047, 1.00167406, 2.83297682])
    # tail (w >= 16): erfc(x) ~ exp(-x^2) / (x sqrt(pi)), two fixed-point steps from sqrt(-log(1-t))
    tc = 1.0 - t  # exact for t >= 0.5
    lt = e.log(e.max(tc, 1e-300))
    x3 = None
    if not e.narrow:
        x3 = e.sqrt(-lt)
        for _ in range(2):
            x3 = e.sqrt(-(lt + e.log(1.7724538509055159 * e.max(x3, 1.0))))
    if e.narrow:  # f32 and narrower: w < 17 always, Giles' two branches cover it
        x = e.select(w.lt(5.0), p1, p2) * t
    else:
        x = e.select(w.lt(5.0), p1, e.select(w.lt(16.0), p2, x3)) * e.select(w.lt(16.0), t, e.const(1.0, t))
    two_over_sqrt_pi = 1.1283791670955126
    near_one = t.gt(0.8427007929497149)  # erf(1): from here on x >= 1 and erfc is accurate
    for _ in range(1 if e.narrow else 3):
        xs = e.min(e.max(x, 0.0), 6.5)
        d = two_over_sqrt_pi * _split_sq_exp_neg(e, xs)
        # |t| <= erf(1): Halley on erf(x) - t (f'' = -2 x f'), x <= 1
        xa = e.min(xs, 1.0)
        erf_x = e.select(xa.lt(0.5), _erf_taylor(e, e.min(xa, 0.5)), _erf_small(e, xa))
        ratio = (erf_x - t) / d
        x_h = xs - ratio / (1.0 + xs * ratio)
        # |t| > erf(1): Newton on log(erfc(x)) - log(1 - t) (nearly linear in x^2), x in [1, 6.5]
        ec = _erfc_large(e, e.max(xs, 1.0), need_tail=False)
        x_n = xs + (e.log(ec) - lt) * ec / d
        x = e.select(near_one, x_n, x_h)
    res = e.copysign(x, y)
    res = e.select(t.eq(1.0), e.copysign(e.const(math.inf, y), y), res)
    res = e.select(t.gt(1.0), math.nan, res)
    return e.select(e.isnan(y), y, e.select(t.eq(0.0), y, res))


_LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7]
# lgamma(2+w) = (1-gamma) w + sum_k (-1)^k (zeta(k)-1)/k w^k, k = 2..31
_LGAMMA2 = [0.3224670334241132, -0.0673523010531981, 0.020580808427784546, -0.007385551028673986,
            0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425, -0.00022315475845357939,
            9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05, -9.439488275268397e-06,
            4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07, -4.492469198764566e-07,
            2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08, -2.2711094608943164e-08,
            1.0838659214896955e-08, -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09,
            5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10, -6.4229645638381e-11,
            3.1044247747322276e-11, -1.5021384080754142e-11]
_ONE_MINUS_EULER = 0.42278433509846713


_STIRLING = [1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156,
             -3617.0 / 122400]


def _lgamma_series2(e: Emitter, w: V) -> V:
    """lgamma(2 + w) for |w| <= 0.5 (Taylor series with (zeta(k)-1)/k coefficients)."""
    coeffs = _LGAMMA2[:14] if e.narrow else _LGAMMA2
    acc = e.const(coeffs[-1], w)
    for c in reversed(coeffs[:-1]):
        acc = acc * w + c
    return w * (acc * w + _ONE_MINUS_EULER)


def _lgamma_pos(e: Emitter, y: V) -> V:
    """lgamma(y) for y >= 0.5.

    [0.5, 1.5): lgamma(2+w) - log1p(w), w = y-1; [1.5, 8): shift down by the recurrence
    lgamma(r) = lgamma(r-1) + log(r-1) (r-1 exact) into [1.5, 2.5] and use the series around 2;
    [8, inf): Stirling's series (8 terms).
    """
    low = y.lt(1.5)
    w_low = y - 1.0
    r = e.select(low, e.const(2.0, y), e.min(y, 8.0))
    prod = e.const(1.0, y)
    for _ in range(6):
        step = r.gt(2.5)
        r = e.select(step, r - 1.0, r)
        prod = e.select(step, prod * r, prod)
    mid = _lgamma_series2(e, r - 2.0) + e.log(prod)
    low_v = _lgamma_series2(e, w_low) - e.log1p(w_low)
    yb = e.max(y, 8.0)
    inv = 1.0 / yb
    inv2 = inv * inv
    big = ((yb - 0.5) * e.log(yb) - yb + 0.9189385332046727) + inv * e.horner(inv2, list(reversed(_STIRLING)))
    return e.select(low, low_v, e.select(y.lt(8.0), mid, big))


def lgamma64(e: Emitter, x: V) -> V:
    """log|Gamma(x)| on f64 values; poles and +-inf -> +inf, NaN -> NaN."""
    reflect = x.lt(0.5)
    y = e.select(reflect, 1.0 - x, x)
    ly = _lgamma_pos(e, e.max(y, 0.5))
    r = x - e.round_even(x)
    sinpi = e.abs(e.sin(PI * r))
    refl = (1.1447298858494002 - e.log(sinpi)) - ly  # log(pi) - log|sin(pi x)| - lgamma(1-x)
    res = e.select(reflect, refl, ly)
    res = e.select(e.isinf(x), math.inf, res)
    return e.select(e.isnan(x), x, res)


_DIGAMMA_X0 = (1.4616321449683622, 9.549995429965697e-17)
_DIGAMMA_ROOT = [0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652,
                 0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736,
                 0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
                 0.004926781395729853, -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972,
                 0.0010788252019162967, -0.0007380709389960052, 0.000504953265834602,
                 -0.0003454680251063077, 0.00023635601564027053]
_DIGAMMA_ASYM = [1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12,
                 -3617.0 / 8160]


def _digamma_pos(e: Emitter, y: V) -> V:
    """digamma(y) for y >= 0.5 (recurrence to y >= 10, asymptotic series; Taylor near the zero)."""
    acc = e.const(0.0, y)
    z = y
    for _ in range(10):
        small = z.lt(10.0)
        acc = e.select(small, acc + 1.0 / z, acc)
        z = e.select(small, z + 1.0, z)
    r2 = 1.0 / (z * z)
    poly = e.const(_DIGAMMA_ASYM[-1], z)
    for c in reversed(_DIGAMMA_ASYM[:-1]):
        poly = poly * r2 + c
    asym = (e.log(z) - 0.5 / z - poly * r2) - acc
    d = (y - _DIGAMMA_X0[0]) - e.opaque(_DIGAMMA_X0[1], y)
    coeffs = _DIGAMMA_ROOT[:8] if e.narrow else _DIGAMMA_ROOT
    tay = e.const(coeffs[-1], y)
    for c in reversed(coeffs[:-1]):
        tay = tay * d + c
    tay = tay * d
    return e.select(e.abs(d).lt(0.1), tay, asym)


def digamma64(e: Emitter, x: V) -> V:
    """digamma(x) on f64 values; poles 0, -1, ... and -inf -> NaN (XLA's convention), +inf -> +inf."""
    reflect = x.lt(0.5)
    y = e.select(reflect, 1.0 - x, x)
    py = _digamma_pos(e, e.max(y, 0.5))
    r = x - e.round_even(x)
    refl = py - PI / e.tan(PI * r)
    res = e.select(reflect, refl, py)
    # poles at 0, -1, -2, ...: NaN (as XLA); +inf -> +inf, -inf -> NaN
    res = e.select(e.land(x.le(0.0), x.eq(e.floor(x))), math.nan, res)
    return e.select(x.eq(math.inf), math.inf, res)


_ZETA_B = [0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05, -8.267195767195768e-07,
           2.08767569878681e-08, -5.284190138687493e-10, 1.3382536530684679e-11, -3.3896802963225827e-13,
           8.586062056277845e-15, -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19,
           3.534707039629467e-21]


def zeta64(e: Emitter, x: V, q: V) -> V:
    """Hurwitz zeta(x, q) = sum_k (q+k)^-x (Euler-Maclaurin), XLA's domain rules."""
    n = 10
    s = e.const(0.0, x)
    for k in range(n):
        s = s + e.pow(q + float(k), -x)
    a = q + float(n)
    a_mx = e.pow(a, -x)
    s = s + a * a_mx / (x - 1.0) + 0.5 * a_mx
    fac = x
    p = a_mx / a
    inv_a2 = 1.0 / (a * a)
    tail = e.const(0.0, x)
    for j, b in enumerate(_ZETA_B):
        tail = tail + b * fac * p
        k = 2 * j + 1
        fac = fac * (x + float(k)) * (x + float(k + 1))
        p = p * inv_a2
    s = s + tail
    res = e.select(x.eq(1.0), math.inf, s)
    res = e.select(x.lt(1.0), math.nan, res)
    q_le0 = q.le(0.0)
    q_int = q.eq(e.floor(q))
    res = e.select(e.land(q_le0, q_int), math.inf, res)
    res = e.select(e.land(q_le0, e.land(e.lnot(q_int), x.ne(e.floor(x)))), math.nan, res)
    return res


def polygamma64(e: Emitter, n: V, x: V) -> V:
    """polygamma(n, x) on f64 values (n a non-negative integer, else NaN); poles: +inf for odd n, NaN otherwise."""
    nn = e.max(n, 0.0)
    y = e.max(nn + 1.0, 22.0)
    r = 1.0 / y
    r2 = r * r
    stirling = ((y - 0.5) * e.log(y) - y + 0.9189385332046727) + r * e.horner(
        r2, [-1.0 / 1680, 1.0 / 1260, -1.0 / 360, 1.0 / 12])
    fact = e.exp(stirling)  # n! for n >= 21 (smaller n come from the table below)
    f = 1.0
    for k in range(1, 22):
        f *= k
        fact = e.select(nn.eq(float(k)), f, fact)
    sign = e.select(e.round_even(nn * 0.5).eq(nn * 0.5), e.const(-1.0, nn), 1.0)  # (-1)^(n+1)
    res = sign * fact * zeta64(e, nn + 1.0, x)
    res = e.select(n.eq(0.0), digamma64(e, x), res)
    # poles x = 0, -1, -2, ...: +inf for odd n (both one-sided limits agree, as XLA), NaN for even n
    pole = e.land(x.le(0.0), x.eq(e.floor(x)))
    odd = e.round_even(nn * 0.5).ne(nn * 0.5)
    res = e.select(e.land(pole, odd), math.inf, e.select(pole, math.nan, res))
    bad = e.lor(n.ne(e.floor(n)), n.lt(0.0))
    return e.select(bad, math.nan, res)


def _i1e_series_coeffs(n: int) -> list[float]:
    out = []
    for k in range(n):
        out.append(1.0 / (math.factorial(k) * math.factorial(k + 1)))
    return out


def i1e64(e: Emitter, x: V) -> V:
    """exp(-|x|) I1(x) on f64 values (odd; +-inf -> +-0)."""
    ax = e.abs(x)
    xs = e.min(ax, 20.0)
    y = 0.25 * xs * xs
    c = _i1e_series_coeffs(30 if e.narrow else 45)
    series = 0.5 * xs * e.horner(y, list(reversed(c))) * e.exp(-xs)
    # Hankel: I1(x) e^-x ~ 1/sqrt(2 pi x) sum_k (-1)^k prod_{j<=k}(4 - (2j-1)^2) / (k! (8x)^k)
    xl = e.max(ax, 20.0)
    coeffs = []
    term = 1.0
    for k in range(0, 12 if e.narrow else 30):
        coeffs.append(term)
        term = -term * (4.0 - (2 * k + 1) ** 2) / (k + 1)
    u = 1.0 / (8.0 * xl)
    asym = e.horner(u, list(reversed(coeffs))) / e.sqrt(2.0 * PI * xl)
    res = e.select(ax.le(20.0), series, asym)
    res = e.copysign(res, x)
    return e.select(e.isnan(x), x, res)


def sinh64(e: Emitter, x: V) -> V:
    """sinh(x) on f64 values without spurious overflow below the true overflow."""
    ax = e.abs(x)
    em = e.expm1(e.min(ax, 700.0))
    mid = 0.5 * (em + em / (em + 1.0))
    h = e.exp(0.5 * ax)
    big = (0.5 * h) * h
    res = e.select(ax.lt(700.0), mid, big)
    return e.copysign(res, x)


def cosh64(e: Emitter, x: V) -> V:
    """cosh(x) on f64 values without spurious overflow below the true overflow."""
    ax = e.abs(x)
    ex = e.exp(e.min(ax, 700.0))
    mid = 0.5 * ex + 0.5 / ex
    h = e.exp(0.5 * ax)
    big = (0.5 * h) * h
    return e.select(ax.lt(700.0), mid, big)


def asin64(e: Emitter, x: V) -> V:
    """asin(x) on real f64 values (|x| > 1 -> NaN)."""
    return e.atan2(x, e.sqrt((1.0 - x) * (1.0 + x)))


def acos64(e: Emitter, x: V) -> V:
    """acos(x) on real f64 values (|x| > 1 -> NaN)."""
    return e.atan2(e.sqrt((1.0 - x) * (1.0 + x)), x)


def atan64(e: Emitter, x: V) -> V:
    """atan(x) on real f64 values."""
    return e.atan2(x, 1.0)


def asinh64(e: Emitter, x: V) -> V:
    """asinh(x) on real f64 values (log1p form; log(2|x|) beyond 1e150)."""
    ax = e.abs(x)
    big = LN2 + e.log(ax)
    axs = e.min(ax, 1e150)
    small = e.log1p(axs + axs * axs / (1.0 + e.sqrt(1.0 + axs * axs)))
    return e.copysign(e.select(ax.gt(1e150), big, small), x)


def acosh64(e: Emitter, x: V) -> V:
    """acosh(x) on real f64 values (x < 1 -> NaN; log1p form near 1)."""
    big = LN2 + e.log(x)
    xs = e.min(x, 1e150)
    y = xs - 1.0
    small = e.log1p(y + e.sqrt(y * (xs + 1.0)))
    return e.select(x.lt(1.0), math.nan, e.select(x.gt(1e150), big, small))


def atanh64(e: Emitter, x: V) -> V:
    """atanh(x) on real f64 values (|x| > 1 -> NaN, +-1 -> +-inf)."""
    ax = e.abs(x)  # 1 - |x| is exact for |x| >= 0.5
    return e.copysign(0.5 * e.log1p(2.0 * ax / (1.0 - ax)), x)


def _hypot(e: Emitter, a: V, b: V) -> V:
    aa, ab = e.abs(a), e.abs(b)
    mx, mn = e.max(aa, ab), e.min(aa, ab)
    r = mn / mx
    scaled = mx * e.sqrt(1.0 + r * r)
    direct = e.sqrt(aa * aa + ab * ab)  # ~1 ULP where the squares neither overflow nor underflow
    safe = e.land(mx.lt(SAFE_MAX), mx.gt(SAFE_MIN))
    h = e.select(safe, direct, scaled)
    h = e.select(mx.eq(0.0), 0.0, h)
    return e.select(mx.eq(math.inf), math.inf, h)


def asin_acos_kernel64(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """w = (d, l) for |x| = x, |y| = y such that asin(z) = (atan2(Re z, d), sign(Im z) l) (Hull et al.)."""
    xp1 = x + 1.0
    xm1 = x - 1.0
    r = _hypot(e, xp1, y)
    s = _hypot(e, xm1, y)
    a = 0.5 * (r + s)
    yy = y * y
    rpxp1 = r + xp1
    spxm1 = s + xm1
    smxm1 = s - xm1
    half_apx = 0.5 * (a + x)
    # real part denominator d
    d1 = e.sqrt((a - x) * (a + x))
    d2 = e.sqrt(half_apx * (yy / rpxp1 + smxm1))
    d3 = y * e.sqrt(half_apx / rpxp1 + half_apx / spxm1)
    b = x / a
    d = e.select(b.le(0.6417), d1, e.select(x.le(1.0), d2, d3))
    # imaginary part l
    am1 = e.select(x.lt(1.0), 0.5 * (yy / rpxp1 + yy / smxm1), 0.5 * (yy / rpxp1 + spxm1))
    # Hull et al. switch to log(A + sqrt(A^2 - 1)) above A = 1.5; the am1 forms above have no
    # cancellation for any A, and log1p of them is more accurate (A itself carries the rounding of
    # two hypot's), so they are used up to the overflow-safe branch below.
    l = e.log1p(am1 + e.sqrt(am1 * (a + 1.0)))
    # y so small that y*y underflows, x < 1: l = y / sqrt((1-x)(1+x))
    tiny_y = e.land(y.lt(SAFE_MIN), x.lt(1.0))
    l = e.select(tiny_y, y / e.sqrt((1.0 - x) * xp1), l)
    # huge: |z| beyond SAFE_MAX
    mx = e.max(x, y)
    mn = e.min(x, y)
    ratio = mn / mx
    l_huge = (LN2 + e.log(mx)) + 0.5 * e.log1p(ratio * ratio)
    huge = mx.ge(SAFE_MAX)
    l = e.select(huge, l_huge, l)
    d = e.select(huge, y, d)
    return d, l


def atanh_complex64(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """(Re, Im) of atanh(x + iy) in f64 (Kahan), overflow/underflow-safe."""
    ax, ay = e.abs(x), e.abs(y)
    one_m = 1.0 - ax
    re_n = 0.25 * e.log1p(4.0 * ax / (one_m * one_m + ay * ay))
    im_n = 0.5 * e.atan2(2.0 * y, (1.0 - x) * (1.0 + x) - y * y)
    mx, mn = e.max(ax, ay), e.min(ax, ay)
    t = mn / mx
    re_h = (1.0 / mx) / (1.0 + t * t)
    re_h = e.select(ax.ge(ay), re_h, re_h * t)
    re_h = e.select(mx.eq(math.inf), 0.0, re_h)
    im_h = e.copysign(e.const(PI / 2, y), y)
    huge = mx.ge(SAFE_MAX)
    # ax == 1 and tiny ay: 0.25*log(4/ay^2)
    re_t = 0.5 * (LN2 - e.log(ay))
    at_one = e.land(ax.eq(1.0), ay.lt(SAFE_MIN))
    re_ = e.select(huge, re_h, e.select(at_one, re_t, re_n))
    im_ = e.select(huge, im_h, im_n)
    return e.copysign(re_, x), im_


# =================================================================================================
# Op builders: (emitter, operands, info) -> results
# =================================================================================================

def _via_f64(fn: Callable[..., V]):
    """Real elementwise op: evaluate ``fn`` in f64, round once to the operand type."""
    def build(e: Emitter, args: list[V], info) -> list[V]:
        t = args[0].t
        e.narrow = t != "f64"
        xs = [e.convert(a, "f64") for a in args]
        return [e.convert(fn(e, *xs), t)]
    return build


def _real_or_complex(real_fn, complex_fn):
    def build(e: Emitter, args: list[V], info) -> list[V]:
        (z,) = args
        e.narrow = z.t not in ("f64", "complex<f64>")
        if z.t.startswith("complex"):
            rt = z.t[len("complex<"):-1]
            x = e.convert(e.real(z), "f64")
            y = e.convert(e.imag(z), "f64")
            re_, im_ = complex_fn(e, x, y)
            return [e.complex(e.convert(re_, rt), e.convert(im_, rt))]
        return [e.convert(real_fn(e, e.convert(z, "f64")), z.t)]
    return build


def _asin_c(e, x, y):
    d, l = asin_acos_kernel64(e, e.abs(x), e.abs(y))
    return e.atan2(x, d), e.copysign(l, y)


def _acos_c(e, x, y):
    d, l = asin_acos_kernel64(e, e.abs(x), e.abs(y))
    return e.atan2(d, x), -e.copysign(l, y)


def _asinh_c(e, x, y):
    d, l = asin_acos_kernel64(e, e.abs(y), e.abs(x))
    return e.copysign(l, x), e.atan2(y, d)


def _acosh_c(e, x, y):
    d, l = asin_acos_kernel64(e, e.abs(x), e.abs(y))
    return l, e.copysign(e.atan2(d, x), y)


def _kernel_c(e, x, y):
    return asin_acos_kernel64(e, e.abs(x), e.abs(y))


def _atanh_c(e, x, y):
    return atanh_complex64(e, x, y)


def _atan_c(e, x, y):
    re_, im_ = atanh_complex64(e, -y, x)
    return im_, -re_


def _sinh_c(e, x, y):
    re_ = sinh64(e, x) * e.cos(y)
    im_ = e.select(y.eq(0.0), y, cosh64(e, x) * e.sin(y))
    return re_, im_


def _cosh_c(e, x, y):
    re_ = cosh64(e, x) * e.cos(y)
    im_ = e.select(y.eq(0.0), e.un("sign", x) * y, sinh64(e, x) * e.sin(y))
    im_ = e.select(e.land(y.eq(0.0), e.isnan(x)), y, im_)
    return re_, im_


def _tan_c(e, x, y):
    # tan(x+iy) = (sin x cos x + i sinh y cosh y) / (cos^2 x + sinh^2 y): no cancellation in the
    # denominator (cos 2x + cosh 2y loses digits near cos 2x = -1); tanh(y) = +-1 past |y| = 20.
    sx, cx = e.sin(x), e.cos(x)
    sh = sinh64(e, y)
    ch = cosh64(e, y)
    den = cx * cx + sh * sh
    re_ = sx * cx / den
    im_ = e.select(e.abs(y).gt(20.0), e.copysign(e.const(1.0, y), y), sh * ch / den)
    re_ = e.select(y.eq(0.0), e.tan(x), re_)
    return re_, im_


def _conj(e, args, info):
    (z,) = args
    if not z.t.startswith("complex"):
        return [z]
    return [e.complex(e.real(z), -e.imag(z))]


def _square(e, args, info):
    (z,) = args
    if z.t.startswith("complex"):
        x, y = e.real(z), e.imag(z)
        return [e.complex((x - y) * (x + y), (x * y) * 2.0)]
    if z.t in MINI_FLOAT_TYPES:
        w = e.convert(z, "f64")
        return [e.convert(w * w, z.t)]
    return [z * z]


def _wide(e, x: V) -> V:
    return x if x.t in FLOAT_TYPES else e.convert(x, "f64")


def _is_inf(e, args, info):
    return [e.isinf(_wide(e, args[0]))]


def _is_pos_inf(e, args, info):
    return [_wide(e, args[0]).eq(math.inf)]


def _is_neg_inf(e, args, info):
    return [_wide(e, args[0]).eq(-math.inf)]


def next_after(e: Emitter, x: V, y: V) -> V:
    """The float after x in the direction of y (same float type, f16/bf16/f32/f64); NaN if either is NaN."""
    it = {16: "i16", 32: "i32", 64: "i64"}[BITS[x.t]]
    xb = e.bitcast(x, it)
    one = e.const(1, xb)
    # moving away from zero <=> (x < y) == (x > 0)
    away = e.cmp("EQ", x.lt(y), x.gt(0.0))
    nb = e.select(away, xb + one, xb - one)
    res = e.bitcast(nb, x.t)
    tiny = e.bitcast(e.const(1, xb), x.t)
    res = e.select(x.eq(0.0), e.copysign(tiny, y), res)
    res = e.select(x.eq(y), y, res)
    nan = e.lor(e.isnan(x), e.isnan(y))
    return e.select(nan, math.nan, res)


def _next_after(e, args, info):
    return [next_after(e, *args)]


def _mulhi(e, args, info):
    x, y = args
    t = x.t
    bits = BITS[t]
    signed = not t.startswith("ui")
    if bits <= 32:
        wide = ("i" if signed else "ui") + str(2 * bits)
        p = e.convert(x, wide) * e.convert(y, wide)
        sh = e.bin("shift_right_arithmetic" if signed else "shift_right_logical", p, e.const(bits, p))
        return [e.convert(sh, t)]
    # 64 bits: 32x32 partial products on unsigned halves, then signed correction
    ux = e.bitcast(x, "ui64") if signed else x
    uy = e.bitcast(y, "ui64") if signed else y
    m32 = e.const(0xFFFFFFFF, ux)
    s32 = e.const(32, ux)
    xl, xh = e.land(ux, m32), e.bin("shift_right_logical", ux, s32)
    yl, yh = e.land(uy, m32), e.bin("shift_right_logical", uy, s32)
    ll = xl * yl
    lh = xl * yh
    hl = xh * yl
    hh = xh * yh
    mid = e.bin("shift_right_logical", ll, s32) + e.land(lh, m32) + e.land(hl, m32)
    hi = hh + e.bin("shift_right_logical", lh, s32) + e.bin("shift_right_logical", hl, s32) + e.bin(
        "shift_right_logical", mid, s32)
    if signed:
        zero = e.const(0, x)
        hi = hi - e.select(x.lt(zero), uy, e.const(0, uy)) - e.select(y.lt(zero), ux, e.const(0, ux))
        return [e.bitcast(hi, t)]
    return [hi]


def _via_f64_n(fn):
    def build(e, args, info):
        t = args[-1].t
        e.narrow = t != "f64"
        xs = [e.convert(a, "f64") for a in args]
        return [e.convert(fn(e, *xs), t)]
    return build


# ---- the broadcast family ------------------------------------------------------------------------

_BINARY = {
    "chlo.broadcast_add": "add", "chlo.broadcast_and": "and", "chlo.broadcast_atan2": "atan2",
    "chlo.broadcast_complex": "complex", "chlo.broadcast_divide": "divide",
    "chlo.broadcast_maximum": "maximum", "chlo.broadcast_minimum": "minimum",
    "chlo.broadcast_multiply": "multiply", "chlo.broadcast_or": "or", "chlo.broadcast_power": "power",
    "chlo.broadcast_remainder": "remainder", "chlo.broadcast_shift_left": "shift_left",
    "chlo.broadcast_shift_right_arithmetic": "shift_right_arithmetic",
    "chlo.broadcast_shift_right_logical": "shift_right_logical", "chlo.broadcast_subtract": "subtract",
    "chlo.broadcast_xor": "xor",
}


def _shape_prefix(shape) -> str:
    """``[2, -1]`` -> ``"2x?x"`` (-1: a dynamic dimension)."""
    return "".join("?x" if d < 0 else f"{d}x" for d in shape)


def _bcast(e: Emitter, v: V, shape, out_shape, dims) -> V:
    if list(shape) == list(out_shape):
        return v
    if dims is None:
        dims = list(range(len(out_shape) - len(shape), len(out_shape)))
    attr = f"broadcast_dimensions = array<i64{': ' if dims else ''}{', '.join(map(str, dims))}>"
    return e.emit("broadcast_in_dim", [v], _shape_prefix(out_shape), v.t, attr)


def _dynamic_bcast(e: Emitter, args: list[V], shapes, out_shape, dims) -> list[V]:
    """Broadcast ``args`` to the (partly dynamic) ``out_shape``: the result extent of a dimension is the
    first operand extent that is not 1 (operands are assumed broadcast-compatible, as CHLO requires),
    then ``dynamic_broadcast_in_dim`` to that runtime shape. Sets ``e.shape_tensor``."""
    rank = len(out_shape)
    maps = []
    for s in shapes:
        d = list(range(rank - len(s), rank)) if dims is None or len(s) == rank else list(dims)
        maps.append(d)
    parts = []
    for j, ext in enumerate(out_shape):
        if ext >= 0:
            parts.append(e.const(ext, t="i32", s="1x"))
            continue
        r = e.const(1, t="i32", s="")
        for a, s, m in zip(args, shapes, maps):
            if j not in m:
                continue
            i = m.index(j)
            if s[i] >= 0:
                size = e.const(s[i], t="i32", s="")
            else:
                size = e.emit("get_dimension_size", [a], "", "i32", f"dimension = {i} : i64")
            r = e.select(size.eq(e.const(1, t="i32", s="")), r, size)
        parts.append(e.emit("reshape", [r], "1x", "i32"))
    shape_t = e.concat(parts)
    e.shape_tensor = shape_t
    prefix = _shape_prefix(out_shape)
    out = []
    for a, s, m in zip(args, shapes, maps):
        if list(s) == list(out_shape) and all(d >= 0 for d in s):
            out.append(a)
            continue
        attr = f"broadcast_dimensions = array<i64{': ' if m else ''}{', '.join(map(str, m))}>"
        out.append(e.emit("dynamic_broadcast_in_dim", [a, shape_t], prefix, a.t, attr))
    return out


def _broadcast_builder(op_name):
    def build(e: Emitter, args: list[V], info) -> list[V]:
        out_shape = info.result_shapes[0]
        dims = info.attrs.get("broadcast_dimensions")
        if op_name == "chlo.broadcast_select":
            dims = None
        if any(d < 0 for s in info.operand_shapes + [out_shape] for d in s):
            bargs = _dynamic_bcast(e, args, info.operand_shapes, out_shape, dims)
        else:
            bargs = [_bcast(e, a, s, out_shape, dims) for a, s in zip(args, info.operand_shapes)]
        rt = info.result_elems[0]
        if op_name in _BINARY:
            return [e.emit(_BINARY[op_name], bargs, bargs[0].s, rt)]
        if op_name == "chlo.broadcast_select":
            return [e.emit("select", bargs, bargs[1].s, rt)]
        if op_name == "chlo.broadcast_compare":
            direction = info.attrs["comparison_direction"]
            ctype = info.attrs.get("compare_type")
            return [e.cmp(direction, bargs[0], bargs[1], ctype)]
        if op_name == "chlo.broadcast_next_after":
            return _next_after(e, bargs, info)
        if op_name == "chlo.broadcast_polygamma":
            return _via_f64_n(polygamma64)(e, bargs, info)
        if op_name == "chlo.broadcast_zeta":
            return _via_f64_n(zeta64)(e, bargs, info)
        raise UnsupportedError(f"no expansion for '{op_name}'")
    return build


def _top_k(e: Emitter, args, info):
    (x,) = args
    shape = info.operand_shapes[0]
    k = int(info.attrs["k"])
    if not shape:
        raise UnsupportedError("'chlo.top_k' needs an operand of rank >= 1")
    last = len(shape) - 1
    idx = e.emit("iota", [], x.s, "i32", f"iota_dimension = {last} : i64")
    a, b, c, d = (e.fresh() for _ in range(4))
    p = e.fresh()
    ctype = ", compare_type = #stablehlo<comparison_type TOTALORDER>" if x.t in FLOAT_TYPES else ""
    s = e.fresh()
    st = f"tensor<{x.t}>"
    e.lines.append(
        f'  {s}:2 = "stablehlo.sort"({x.n}, {idx.n}) ({{\n'
        f"  ^bb0({a}: {st}, {b}: {st}, {c}: tensor<i32>, {d}: tensor<i32>):\n"
        f'    {p} = "stablehlo.compare"({a}, {b}) {{comparison_direction = #stablehlo<comparison_direction GT>{ctype}}}'
        f" : ({st}, {st}) -> tensor<i1>\n"
        f'    "stablehlo.return"({p}) : (tensor<i1>) -> ()\n'
        f"  }}) {{dimension = {last} : i64, is_stable = true}} : ({x.ty}, {idx.ty}) -> ({x.ty}, {idx.ty})"
    )
    vals = V(e, f"{s}#0", x.s, x.t)
    inds = V(e, f"{s}#1", x.s, "i32")
    out_shape = list(shape[:-1]) + [k]
    zeros = ", ".join("0" for _ in shape)
    limits = ", ".join(str(v) for v in out_shape)
    ones = ", ".join("1" for _ in shape)
    attr = f"start_indices = array<i64: {zeros}>, limit_indices = array<i64: {limits}>, strides = array<i64: {ones}>"
    res_t = info.result_elems
    rv = e.emit("slice", [vals], _shape_prefix(out_shape), x.t, attr)
    ri = e.emit("slice", [inds], _shape_prefix(out_shape), "i32", attr)
    if res_t[1] != "i32":
        ri = e.convert(ri, res_t[1])
    return [rv, ri]


def _constant_like(e: Emitter, args, info):
    value = info.attrs["value"]
    shape = info.result_shapes[0]
    dynamic = any(d < 0 for d in shape)
    s = "" if dynamic else _shape_prefix(shape)
    t = info.result_elems[0]
    n = e.fresh()
    m = re.match(r"^(.*?)\s*:\s*[^:]+$", value)
    lit = m.group(1) if m else value
    e.lines.append(f'  {n} = "stablehlo.constant"() {{value = dense<{lit}> : tensor<{s}{t}>}} : () -> tensor<{s}{t}>')
    c = V(e, n, s, t)
    if dynamic:  # splat to the operand's runtime shape
        shape_t = e.shape_of(args[0], info.operand_shapes[0])
        c = e.emit("dynamic_broadcast_in_dim", [c, shape_t], _shape_prefix(shape), t, "broadcast_dimensions = array<i64>")
    return [c]


def _ragged_dot(e: Emitter, args, info):
    lhs, rhs, gs = args
    dn = info.attrs.get("ragged_dot_dimension_numbers", "")

    def field(name):
        m = re.search(name + r"\s*=\s*\[([^\]]*)\]", dn)
        return [int(v) for v in m.group(1).split(",") if v.strip()] if m else []

    lb, rb = field("lhs_batching_dimensions"), field("rhs_batching_dimensions")
    lc, rc = field("lhs_contracting_dimensions"), field("rhs_contracting_dimensions")
    lr, rg = field("lhs_ragged_dimensions"), field("rhs_group_dimensions")
    ls, rs, gss = info.operand_shapes
    lhs_free = [d for d in range(len(ls)) if d not in lb and d not in lc]
    rhs_free = [d for d in range(len(rs)) if d not in rb and d not in rc]
    batch_sizes = [ls[d] for d in lb]
    nb = len(lb)

    def out_pos(d):  # position of lhs dimension d (batch or free) in the dot_general result
        return lb.index(d) if d in lb else nb + lhs_free.index(d)

    rt = info.result_elems[0]
    if len(lr) == 1 and lr[0] in lc and not rg:
        return [_ragged_dot_contracting(e, lhs, rhs, gs, info, lb, rb, lc, rc, lr[0])]
    if len(lr) == 1 and lr[0] in lb and not rg:
        # Mode 3 (ragged batch dimension): every batch element meets its own rhs, so the grouping does
        # not change the product; it is the plain dot_general (as in JAX's reference implementation).
        out_shape = batch_sizes + [ls[d] for d in lhs_free] + [rs[d] for d in rhs_free]
        return [e.emit("dot_general", [lhs, rhs], _shape_prefix(out_shape), rt,
                       f"dot_dimension_numbers = {_dot_dims(lb, rb, lc, rc)}")]
    # Mode 1 (CHLO RaggedDotOp): the ragged dimension is a non-contracting lhs dimension and rhs has one
    # group dimension; group_sizes is [g], or [lhs dims before the ragged one..., g] (batch or free dims).
    lead = list(range(lr[0])) if len(lr) == 1 and len(gss) > 1 else []
    if (
        len(lr) != 1
        or lr[0] not in lhs_free
        or len(rg) != 1
        or rg[0] not in rhs_free
        or list(gss) != [ls[d] for d in lead] + [rs[rg[0]]]
        or any(d in lc for d in lead)
    ):
        raise UnsupportedError(
            "'chlo.ragged_dot': expected one ragged lhs dimension: non-contracting with one rhs group "
            "dimension (mode 1; group_sizes [g] or [lhs dims before the ragged one..., g]), contracting "
            "(mode 2) or batch (mode 3), with no rhs group dimension in modes 2 and 3"
        )
    m = ls[lr[0]]
    out_shape = batch_sizes + [ls[d] for d in lhs_free] + [rs[d] for d in rhs_free]
    prod = e.emit("dot_general", [lhs, rhs], _shape_prefix(out_shape), rt,
                  f"dot_dimension_numbers = {_dot_dims(lb, rb, lc, rc)}")
    m_pos = nb + lhs_free.index(lr[0])
    g_pos = nb + len(lhs_free) + rhs_free.index(rg[0])
    mask = _group_mask(e, gs, gss, m)  # [lead..., m, g]
    mask_b = _bcast(e, mask, list(gss[:-1]) + [m, gss[-1]], out_shape, [out_pos(d) for d in lead] + [m_pos, g_pos])
    zero = e.const(0.0 if rt not in INT_TYPES else 0, prod)
    sel = e.select(mask_b, prod, zero)
    init2 = e.const(0.0 if rt not in INT_TYPES else 0, t=rt, s="")
    return [_reduce_sum(e, sel, out_shape, g_pos, init2)]


def _dot_dims(lb, rb, lc, rc) -> str:
    def ints(v):
        return ", ".join(map(str, v))

    return (
        f"#stablehlo.dot<lhs_batching_dimensions = [{ints(lb)}], rhs_batching_dimensions = [{ints(rb)}], "
        f"lhs_contracting_dimensions = [{ints(lc)}], rhs_contracting_dimensions = [{ints(rc)}]>"
    )


def _group_mask(e: Emitter, gs: V, gss, n: int) -> V:
    """``[lead..., n, g]`` i1 mask: index i of the ragged dimension (size ``n``) is in group j.

    Group ends are the inclusive cumulative sum of ``group_sizes`` along its last dimension (a
    lower-triangular masked sum); i is in group j when ``starts[j] <= i < ends[j]``.
    """
    gi = gs.t
    gb, g = list(gss[:-1]), gss[-1]
    iota_row = e.emit("iota", [], _shape_prefix(gb + [g, g]), gi, f"iota_dimension = {len(gb)} : i64")
    iota_col = e.emit("iota", [], _shape_prefix(gb + [g, g]), gi, f"iota_dimension = {len(gb) + 1} : i64")
    tri = e.cmp("LE", iota_col, iota_row)  # [..., row, col]: col <= row
    gsb = _bcast(e, gs, gss, gb + [g, g], list(range(len(gb))) + [len(gb) + 1])
    ends2 = e.select(tri, gsb, e.const(0, gsb))
    ends = _reduce_sum(e, ends2, gb + [g, g], len(gb) + 1, e.const(0, t=gi, s=""))
    starts = ends - gs
    iota_n = e.emit("iota", [], _shape_prefix(gb + [n, g]), gi, f"iota_dimension = {len(gb)} : i64")
    gdims = list(range(len(gb))) + [len(gb) + 1]
    sb = _bcast(e, starts, gss, gb + [n, g], gdims)
    eb = _bcast(e, ends, gss, gb + [n, g], gdims)
    return e.land(iota_n.ge(sb), iota_n.lt(eb))


def _ragged_dot_contracting(e: Emitter, lhs: V, rhs: V, gs: V, info, lb, rb, lc, rc, k_dim: int) -> V:
    """Mode 2: ``lhs_ragged_dimensions`` is a contracting dimension k and rhs has no group dimension.

    ``result[j, batch..., lhs free..., rhs free...]`` = the dot over the k of group j only: lhs is
    broadcast along a new leading group dimension and zeroed outside each group, then contracted with
    rhs; the group dimension is moved to the front. group_sizes is [g] or [the batch and contracting
    lhs dims before k..., g] (group sizes may vary along those, not along the free dims of the result).
    """
    ls, rs, gss = info.operand_shapes
    lead = [d for d in range(k_dim) if d in lb or d in lc] if len(gss) > 1 else []
    if list(gss[:-1]) != [ls[d] for d in lead]:
        raise UnsupportedError(
            "'chlo.ragged_dot' (mode 2): group_sizes must be [g] or [batch and contracting lhs dims before "
            "the ragged one..., g]"
        )
    g, k = gss[-1], ls[k_dim]
    rt = info.result_elems[0]
    mask = _group_mask(e, gs, gss, k)  # [lead..., k, g]
    grouped = [g] + list(ls)
    lhs_b = _bcast(e, lhs, ls, grouped, [1 + d for d in range(len(ls))])
    mask_b = _bcast(e, mask, list(gss[:-1]) + [k, g], grouped, [1 + d for d in lead] + [1 + k_dim, 0])
    masked = e.select(mask_b, lhs_b, e.const(0.0 if lhs.t not in INT_TYPES else 0, lhs_b))
    lhs_free = [d for d in range(len(ls)) if d not in lb and d not in lc]
    rhs_free = [d for d in range(len(rs)) if d not in rb and d not in rc]
    nb = len(lb)
    # dot_general result: [batch..., g, lhs free..., rhs free...]
    dot_shape = [ls[d] for d in lb] + [g] + [ls[d] for d in lhs_free] + [rs[d] for d in rhs_free]
    prod = e.emit(
        "dot_general", [masked, rhs], _shape_prefix(dot_shape), rt,
        f"dot_dimension_numbers = {_dot_dims([1 + d for d in lb], rb, [1 + d for d in lc], rc)}",
    )
    if not nb:
        return prod
    perm = [nb] + list(range(nb)) + list(range(nb + 1, len(dot_shape)))
    out_shape = [dot_shape[p] for p in perm]
    return e.emit("transpose", [prod], _shape_prefix(out_shape), rt,
                  f"permutation = array<i64: {', '.join(map(str, perm))}>")


def _reduce_sum(e: Emitter, v: V, shape, dim, init: V) -> V:
    out_shape = [d for i, d in enumerate(shape) if i != dim]
    n = e.fresh()
    a, b, r = e.fresh(), e.fresh(), e.fresh()
    st = f"tensor<{v.t}>"
    e.lines.append(
        f'  {n} = "stablehlo.reduce"({v.n}, {init.n}) ({{\n'
        f"  ^bb0({a}: {st}, {b}: {st}):\n"
        f'    {r} = "stablehlo.add"({a}, {b}) : ({st}, {st}) -> {st}\n'
        f'    "stablehlo.return"({r}) : ({st}) -> ()\n'
        f"  }}) {{dimensions = array<i64: {dim}>}} : ({v.ty}, {init.ty}) -> tensor<{_shape_prefix(out_shape)}{v.t}>"
    )
    return V(e, n, _shape_prefix(out_shape), v.t)


def _tan(e, args, info):
    (z,) = args
    if z.t.startswith("complex"):
        return _real_or_complex(None, _tan_c)(e, args, info)
    return [e.convert(e.tan(e.convert(z, "f64")), z.t)]


def _asin_acos_kernel(e, args, info):
    (z,) = args
    rt = z.t[len("complex<"):-1]
    x = e.convert(e.real(z), "f64")
    y = e.convert(e.imag(z), "f64")
    d, l = _kernel_c(e, x, y)
    return [e.complex(e.convert(d, rt), e.convert(l, rt))]


class OpSpec:
    """How one CHLO op is expanded: builder, accepted element types (of the first operand), elementwise."""

    def __init__(self, build, types, elementwise=True):
        self.build = build
        self.types = types
        self.elementwise = elementwise


_R = FLOAT_TYPES + MINI_FLOAT_TYPES
_RC = FLOAT_TYPES + MINI_FLOAT_TYPES + COMPLEX_TYPES
_ALL_NUM = FLOAT_TYPES + MINI_FLOAT_TYPES + COMPLEX_TYPES + INT_TYPES
_ANY = None  # any element type the op's own verifier accepts

DECOMPOSITIONS: dict[str, OpSpec] = {
    "chlo.acos": OpSpec(_real_or_complex(acos64, _acos_c), _RC),
    "chlo.acosh": OpSpec(_real_or_complex(acosh64, _acosh_c), _RC),
    "chlo.asin": OpSpec(_real_or_complex(asin64, _asin_c), _RC),
    "chlo.asinh": OpSpec(_real_or_complex(asinh64, _asinh_c), _RC),
    "chlo.atan": OpSpec(_real_or_complex(atan64, _atan_c), _RC),
    "chlo.atanh": OpSpec(_real_or_complex(atanh64, _atanh_c), _RC),
    "chlo.cosh": OpSpec(_real_or_complex(cosh64, _cosh_c), _RC),
    "chlo.sinh": OpSpec(_real_or_complex(sinh64, _sinh_c), _RC),
    "chlo.tan": OpSpec(_tan, _RC),
    "chlo._asin_acos_kernel": OpSpec(_asin_acos_kernel, COMPLEX_TYPES),
    "chlo.conj": OpSpec(_conj, _RC),
    "chlo.erf": OpSpec(_via_f64(erf64), _R),
    "chlo.erfc": OpSpec(_via_f64(erfc64), _R),
    "chlo.erf_inv": OpSpec(_via_f64(erfinv64), _R),
    "chlo.lgamma": OpSpec(_via_f64(lgamma64), _R),
    "chlo.digamma": OpSpec(_via_f64(digamma64), _R),
    "chlo.polygamma": OpSpec(_via_f64_n(polygamma64), _R),
    "chlo.zeta": OpSpec(_via_f64_n(zeta64), _R),
    "chlo.bessel_i1e": OpSpec(_via_f64(i1e64), _R),
    "chlo.is_inf": OpSpec(_is_inf, _R),
    "chlo.is_neg_inf": OpSpec(_is_neg_inf, _R),
    "chlo.is_pos_inf": OpSpec(_is_pos_inf, _R),
    "chlo.next_after": OpSpec(_next_after, FLOAT_TYPES),
    "chlo.square": OpSpec(_square, _ALL_NUM),
    "chlo.mulhi": OpSpec(_mulhi, INT_TYPES),
    "chlo.constant_like": OpSpec(_constant_like, _ANY, elementwise=False),
    "chlo.top_k": OpSpec(_top_k, FLOAT_TYPES + INT_TYPES, elementwise=False),
    "chlo.ragged_dot": OpSpec(_ragged_dot, _ANY, elementwise=False),
}
for _name in list(_BINARY) + ["chlo.broadcast_select", "chlo.broadcast_compare", "chlo.broadcast_next_after",
                              "chlo.broadcast_polygamma", "chlo.broadcast_zeta"]:
    _types = {"chlo.broadcast_next_after": FLOAT_TYPES, "chlo.broadcast_polygamma": _R,
              "chlo.broadcast_zeta": _R}.get(_name, _ANY)
    DECOMPOSITIONS[_name] = OpSpec(_broadcast_builder(_name), _types, elementwise=False)

#: Ops whose expansion only depends on element types (shape is a placeholder in the template).
ELEMENTWISE = frozenset(n for n, s in DECOMPOSITIONS.items() if s.elementwise)


class OpInfo:
    """What a builder may look at: operand/result shapes and element types, and attributes as text."""

    __slots__ = ("operand_shapes", "operand_elems", "result_shapes", "result_elems", "attrs")

    def __init__(self, operand_shapes, operand_elems, result_shapes, result_elems, attrs):
        self.operand_shapes = operand_shapes
        self.operand_elems = operand_elems
        self.result_shapes = result_shapes
        self.result_elems = result_elems
        self.attrs = attrs


def template_text(op_name: str, info: OpInfo, func_name: str, placeholder: bool = True) -> str:
    """The ``func.func private @func_name`` text expanding ``op_name`` for the signature in ``info``.

    For elementwise ops with ``placeholder`` every shape is the placeholder ``$S`` (replace it with
    ``"4x3x"`` etc.); otherwise the shapes of ``info`` (``-1``: dynamic) are written out. Raises
    :class:`UnsupportedError` for a combination the expansions do not cover.
    """
    spec = DECOMPOSITIONS.get(op_name)
    if spec is None:
        raise UnsupportedError(f"'{op_name}' has no StableHLO decomposition in hlokit")
    e = Emitter()
    if spec.elementwise and placeholder:
        shapes = ["$S"] * len(info.operand_elems)
    else:
        shapes = [_shape_prefix(s) for s in info.operand_shapes]
    args = [V(e, f"%a{i}", s, t) for i, (s, t) in enumerate(zip(shapes, info.operand_elems))]
    dynamic = any(d < 0 for s in info.operand_shapes for d in s)
    if dynamic and not spec.elementwise and not op_name.startswith("chlo.broadcast_") and op_name != "chlo.constant_like":
        raise UnsupportedError(f"'{op_name}' with dynamic shapes is not supported (static shapes only)")
    if dynamic and spec.elementwise:
        e.shape_tensor = e.shape_of(args[0], info.operand_shapes[0])
    results = spec.build(e, args, info)
    # results must carry the op's result types
    for r, t in zip(results, info.result_elems):
        if r.t != t:
            raise UnsupportedError(f"internal: expansion of '{op_name}' yields {r.t}, expected {t}")
    return e.text(func_name, [(a.n, a.ty) for a in args], results, loc=op_name)
