"""Random valid StableHLO programs and inputs for the differential fuzzer (``hlokit-run --engine both``).

:func:`random_program` writes a ``func.func @main`` of random ops (generic op form) whose every result XLA CPU
and the StableHLO spec define bit for bit, so that the interpreter and XLA must agree to 0 ULP (NaN against NaN
counts as equal):

* elementwise: integer and boolean arithmetic (wrapping; division by zero and ``INT_MIN / -1`` as XLA defines
  them), the exactly rounded float ops (``add``, ``subtract``, ``multiply``, ``divide``, ``remainder``,
  ``sqrt``, rounding, ``maximum`` / ``minimum``), ``compare``, ``select``, ``clamp``, ``convert`` (float to
  integer truncating and saturating), ``bitcast_convert``, ``reduce_precision``;
* data movement: ``broadcast_in_dim``, ``reshape``, ``transpose``, ``reverse``, ``slice``, ``pad`` (negative
  and interior padding), ``concatenate``, ``dynamic_slice`` / ``dynamic_update_slice`` (out-of-range starts),
  ``iota``, ``gather``, ``scatter`` (order-independent combiners);
* reductions: ``reduce`` (integer bodies; ``maximum`` / ``minimum`` for floats, whose result does not depend on
  the order; two-input argmax bodies), ``reduce_window``, ``select_and_scatter``, stable ``sort`` with a total
  order, ``map``;
* integer ``dot_general`` and ``convolution``; ``rng_bit_generator``;
* control flow: ``while`` (bodies that read values of the enclosing block; some loops run past the 100
  iterations after which the interpreter compiles them), ``if``, ``case``.

Transcendental functions and float sums, whose rounding or order XLA may change, are left out.

XLA folds what it can compute at compile time with an evaluator of its own, and its simplifier rewrites
arithmetic; in places both part from the spec and from XLA's own generated code (``clamp`` of ``i1`` constants,
``count_leading_zeros`` of a negative signed constant, integer ``convolution`` of constants; ``x / c`` becomes
``x * (1 / c)`` and ``a / (b / c)`` becomes ``a * c / b``, 1 ULP off; ``maximum(min, clamp(min, x, max))``
becomes the clamp, wrong for ``min > max``). Float constants, the results of float divisions, and in three
programs of four every constant reach their readers through ``stablehlo.optimization_barrier``, which XLA
neither folds nor rewrites through. Results the spec leaves to the implementation are kept out of sight: NaNs
become one NaN before a total order or a bitcast, ``select_and_scatter`` windows hold distinct values.
(Found with this fuzzer; the interpreter follows the spec in each case: docs/interpreter.md.)

Inputs (:func:`random_program`) mix ordinary values, boundaries (``INT_MIN``, ``-1``, ``0``) and IEEE specials
(``-0``, infinities, NaN); floats stay normal (XLA CPU flushes subnormals to zero, the spec does not).

Everything is drawn from one ``random.Random``: the same seed gives the same program on every machine.
"""

from __future__ import annotations

import dataclasses
import io
import random

import numpy as np

FLOATS = ("f32", "f64")
INTS = ("i8", "i32", "i64", "ui8", "ui32")
BOOL = "i1"
DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i32": np.int32, "i64": np.int64,
          "ui8": np.uint8, "ui32": np.uint32, "ui64": np.uint64, "i1": np.bool_}
#: Same-width pairs for ``bitcast_convert``.
BITCASTS = {"f32": ("i32", "ui32"), "i32": ("f32", "ui32"), "ui32": ("f32", "i32"), "f64": ("i64",), "i64": ("f64",),
            "i8": ("ui8",), "ui8": ("i8",)}
SHAPES = ((), (4,), (2, 3), (3, 1, 2))


@dataclasses.dataclass(frozen=True)
class Val:
    """An SSA value of the program being written: its name (``%v3``, ``%w1#0``), shape and element type."""

    name: str
    shape: tuple[int, ...]
    et: str

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.et)


def tensor_type(shape, et: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def _i64s(xs) -> str:
    return "array<i64" + (": " + ", ".join(str(int(x)) for x in xs) if len(xs) else "") + ">"


def _kind(et: str) -> str:
    return "f" if et in FLOATS else ("b" if et == BOOL else "i")


class Writer:
    """Writes ops into the current block of the program: ``pool`` holds the values ops may read (those of
    enclosing blocks too, as regions may read them)."""

    def __init__(self, r: random.Random, max_ops: int):
        self.r = r
        self.lines: list[str] = []
        self.indent = "    "
        self.count = 0
        self.pool: list[Val] = []
        self.budget = max_ops
        self.depth = 0
        self.barrier = 0.0 if r.random() < 0.25 else 0.8  # (how often a constant goes through a barrier)

    # ---- writing
    def fresh(self, prefix: str = "v") -> str:
        self.count += 1
        return f"%{prefix}{self.count}"

    def op(self, name: str, operands, results, attrs: str = "", regions: list[list[str]] | None = None) -> list[Val]:
        """Write one op; ``results`` are ``(shape, et)`` pairs; returns their values (added to the pool)."""
        res = self.fresh("w" if len(results) > 1 else "v")
        lhs = (f"{res}:{len(results)} = " if len(results) > 1 else f"{res} = ") if results else ""
        text = f'{self.indent}{lhs}"stablehlo.{name}"(' + ", ".join(v.name for v in operands) + ")"
        if regions:
            text += " (" + ", ".join("{\n" + "\n".join(rg) + "\n" + self.indent + "}" for rg in regions) + ")"
        if attrs:
            text += " {" + attrs + "}"
        outs = [tensor_type(s, e) for s, e in results]
        text += " : (" + ", ".join(v.type for v in operands) + ") -> "
        text += outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
        self.lines.append(text)
        if len(results) == 1:
            vals = [Val(res, tuple(results[0][0]), results[0][1])]
        else:
            vals = [Val(f"{res}#{i}", tuple(s), e) for i, (s, e) in enumerate(results)]
        self.pool.extend(vals)
        return vals

    def compare(self, lhs: Val, rhs: Val, direction: str, compare_type: str) -> Val:
        """``stablehlo.compare`` of ``lhs`` and ``rhs`` (one shape)."""
        return self.op("compare", [lhs, rhs], [(lhs.shape, BOOL)],
                       f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
                       f"compare_type = #stablehlo<comparison_type {compare_type}>")[0]

    def constant(self, shape, et: str, values: np.ndarray | None = None, barrier: bool = False) -> Val:
        if values is None:
            values = random_array(self.r, shape, et, specials=self.r.random() < 0.3)
        values = np.asarray(values, DTYPES[et]).reshape(shape)
        if values.size == 0:
            lit = ""
        elif et == BOOL:
            lit = _nested(values.tolist())
        elif values.size and np.all(values == values.flat[0]) and self.r.random() < 0.5 \
                and values.flat[0] == values.flat[0]:
            lit = '"0x' + values.reshape(-1)[:1].tobytes().hex().upper() + '"'  # (a splat)
        else:
            lit = '"0x' + values.tobytes().hex().upper() + '"'
        c = self.op("constant", [], [(shape, et)], f"value = dense<{lit}> : {tensor_type(shape, et)}")[0]
        # (see the module doc: XLA folds through nothing but the barrier; float constants always go behind one, as
        # XLA's simplifier rewrites float arithmetic on constants: x * c1 / c2 as x * (c1 / c2), 1 ULP off)
        if barrier or et in FLOATS or self.r.random() < self.barrier:
            self.pool.remove(c)
            c = self.op("optimization_barrier", [c], [(shape, et)])[0]
        return c

    def region(self, args: list[tuple[tuple[int, ...], str]], body) -> list[str]:
        """A one-block region with arguments of ``args`` types: ``body(writer, arg values)`` writes its ops and
        returns the values its ``stablehlo.return`` gives. Values written inside leave the pool afterwards."""
        saved_lines, saved_pool, saved_indent = self.lines, list(self.pool), self.indent
        self.lines, self.indent = [], self.indent + "  "
        self.depth += 1
        names = [self.fresh("a") for _ in args]
        argv = [Val(n, tuple(s), e) for n, (s, e) in zip(names, args)]
        self.pool.extend(argv)
        head = f"{self.indent[:-2]}^bb0(" + ", ".join(f"{v.name}: {v.type}" for v in argv) + "):"
        rets = body(self, argv)
        self.lines.append(f'{self.indent}"stablehlo.return"(' + ", ".join(v.name for v in rets) + ") : ("
                          + ", ".join(v.type for v in rets) + ") -> ()")
        out = [head, *self.lines]
        self.lines, self.pool, self.indent = saved_lines, saved_pool, saved_indent
        self.depth -= 1
        return out

    # ---- choosing
    def pick(self, pred=lambda v: True) -> Val | None:
        cands = [v for v in self.pool if pred(v)]
        if not cands:
            return None
        # prefer recent values: programs become chains rather than fans of the arguments
        return cands[min(len(cands) - 1, int(len(cands) * (1 - self.r.random() ** 2)))]

    def like(self, v: Val) -> Val:
        """Another value of ``v``'s type (a constant when the pool has none but ``v``)."""
        w = self.pick(lambda u: u.shape == v.shape and u.et == v.et and u != v)
        return w if w is not None and self.r.random() < 0.85 else self.constant(v.shape, v.et)

    def scalar_of(self, v: Val) -> Val:
        w = self.pick(lambda u: u.shape == () and u.et == v.et)
        return w if w is not None and self.r.random() < 0.5 else self.constant((), v.et)


def _nested(x) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_nested(e) for e in x) + "]"
    return "true" if x else "false"


# ----------------------------------------------------------------------------------------------------------
# values


def random_array(r: random.Random, shape, et: str, *, specials: bool = True) -> np.ndarray:
    """Values of ``et`` mixing ordinary numbers, boundaries and (``specials``) IEEE specials; no subnormals."""
    rng = np.random.default_rng(r.getrandbits(64))
    n = int(np.prod(shape, dtype=np.int64))
    dt = np.dtype(DTYPES[et])
    if et == BOOL:
        out = rng.random(n) < 0.5
    elif dt.kind == "f":
        small = rng.integers(-8, 9, n).astype(np.float64)
        wide = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        out = np.where(rng.random(n) < 0.4, small, wide)
        if specials:
            sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -1.0])
            out = np.where(rng.random(n) < 0.25, sp[rng.integers(0, len(sp), n)], out)
        out = out.astype(dt)
    else:
        info = np.iinfo(dt)
        small = rng.integers(max(info.min, -8), min(info.max, 8) + 1, n).astype(dt)  # (uint64 with int64: float64)
        wide = rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
        edge = np.array([info.min, info.max, 0, 1, info.max // 2 + 1] + ([-1] if info.min < 0 else []), dt)
        pick = rng.random(n)
        out = np.where(pick < 0.5, small, np.where(pick < 0.8 if specials else pick < 1.0, wide,
                                                   edge[rng.integers(0, len(edge), n)]))
        out = out.astype(dt)
    return out.reshape(shape)


# ----------------------------------------------------------------------------------------------------------
# ops

_BINARY = {
    "f": ("add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"),
    "i": ("add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or", "xor",
          "shift_left", "shift_right_arithmetic", "shift_right_logical"),
    "b": ("and", "or", "xor", "maximum", "minimum", "multiply"),  # (not add: XLA's folder computes xor, the spec or)
}
_UNARY = {
    "f": ("negate", "abs", "floor", "ceil", "round_nearest_even", "round_nearest_afz", "sign", "sqrt"),
    "i": ("negate", "abs", "not", "popcnt", "count_leading_zeros", "sign"),
    "b": ("not",),
}
_REDUCERS = {"f": ("maximum", "minimum"), "i": ("add", "multiply", "maximum", "minimum", "and", "or", "xor"),
             "b": ("and", "or", "xor")}


def g_binary(w: Writer):
    a = w.pick()
    if a is None:
        return
    b = w.like(a)
    if w.r.random() < 0.5:
        a, b = b, a
    name = w.r.choice(_BINARY[_kind(a.et)])
    out = w.op(name, [a, b], [(a.shape, a.et)])[0]
    if name == "divide" and a.et in FLOATS:  # (XLA's simplifier reassociates chains of divisions: a / (b / c)
        w.pool.remove(out)  # becomes a * c / b, 1 ULP off; a barrier keeps each division whole)
        w.op("optimization_barrier", [out], [(a.shape, a.et)])


def g_unary(w: Writer):
    a = w.pick()
    if a is not None:
        name = w.r.choice(_UNARY[_kind(a.et)])
        if name in ("abs", "sign", "negate") and a.et.startswith("ui"):  # (signed ops)
            name = "not"
        if name == "count_leading_zeros" and not a.et.startswith("ui"):
            name = "popcnt"  # (XLA folds it wrongly for a negative signed constant: -56 for an i8)
        w.op(name, [a], [(a.shape, a.et)])


def g_is_finite(w: Writer):
    a = w.pick(lambda v: v.et in FLOATS)
    if a is not None:
        w.op("is_finite", [a], [(a.shape, BOOL)])


def canonical_nan(w: Writer, x: Val) -> Val:
    """``x`` with every NaN replaced by the positive quiet NaN: which NaN an operation gives (its sign, its
    payload) is the implementation's (IEEE 754), and XLA's generated code and numpy pick differently (x86's
    default NaN is negative); a total order or a bitcast would expose it."""
    if x.et not in FLOATS:
        return x
    nan = w.compare(x, x, "NE", "FLOAT")
    return w.op("select", [nan, w.constant(x.shape, x.et, np.full(x.shape, np.nan)), x], [(x.shape, x.et)])[0]


def g_compare(w: Writer):
    a = w.pick()
    if a is None:
        return
    b = w.like(a)
    k = _kind(a.et)
    ctype = w.r.choice(("FLOAT", "TOTALORDER")) if k == "f" else ("UNSIGNED" if a.et.startswith("ui") or k == "b"
                                                                    else "SIGNED")
    if ctype == "TOTALORDER":
        a, b = canonical_nan(w, a), canonical_nan(w, b)
    direction = w.r.choice(("EQ", "NE", "LT", "LE", "GT", "GE"))
    w.compare(a, b, direction, ctype)


def g_select(w: Writer):
    a = w.pick(lambda v: v.et != BOOL) or w.pick()
    if a is None:
        return
    b = w.like(a)
    if w.r.random() < 0.3:
        p = w.pick(lambda v: v.shape == () and v.et == BOOL) or w.constant((), BOOL)
    else:
        p = w.pick(lambda v: v.shape == a.shape and v.et == BOOL) or w.constant(a.shape, BOOL)
    w.op("select", [p, a, b], [(a.shape, a.et)])


def g_clamp(w: Writer):
    x = w.pick(lambda v: v.et != BOOL)  # (XLA's folder clamps i1 constants wrongly)
    if x is None:
        return
    # bounds in order (min <= max): XLA rewrites max(min, clamp(min, x, max)) as the clamp, which a min above the
    # max breaks; the spec defines that case too (min(max(x, min), max)), the interpreter follows it
    shape = () if w.r.random() < 0.5 else x.shape
    a, b = (random_array(w.r, shape, x.et, specials=False) for _ in (0, 1))
    lo, hi = (w.constant(shape, x.et, v) for v in (np.minimum(a, b), np.maximum(a, b)))
    w.op("clamp", [lo, x, hi], [(x.shape, x.et)])


def g_convert(w: Writer):
    a = w.pick()
    if a is None:
        return
    k = _kind(a.et)
    if k == "f":  # (float -> integer: XLA truncates and saturates, NaN -> 0; the spec leaves it open, hlokit does so)
        to = w.r.choice(FLOATS + (BOOL,) + INTS)
    else:
        to = w.r.choice(FLOATS + INTS + (BOOL,))
        if to == "i8" and a.et in ("i32", "i64", "ui32") and a.shape != ():
            to = "ui8"  # (an and / or reading it crashes jaxlib 0.10.2's XLA: hlokit.backend.guards.may_crash_xla)
    w.op("convert", [a], [(a.shape, to)])


def g_bitcast(w: Writer):
    a = w.pick(lambda v: v.et in BITCASTS)
    if a is None:
        return
    # (no integer -> float: small integers are subnormal floats, which XLA CPU flushes to zero in arithmetic)
    to = [t for t in BITCASTS[a.et] if t not in FLOATS]
    if to:
        w.op("bitcast_convert", [canonical_nan(w, a)], [(a.shape, w.r.choice(to))])


def g_constant(w: Writer):
    w.constant(w.r.choice(SHAPES), w.r.choice(FLOATS + INTS + (BOOL,)))


def g_iota(w: Writer):
    shape = w.r.choice([s for s in SHAPES if s])
    w.op("iota", [], [(shape, w.r.choice(FLOATS + INTS))], f"iota_dimension = {w.r.randrange(len(shape))} : i64")


def g_broadcast(w: Writer):
    a = w.pick()
    if a is None:
        return
    rank = len(a.shape)
    targets = [s for s in SHAPES if len(s) >= rank] or [a.shape]
    shape = w.r.choice(targets)
    # operand dim i goes to result dim dims[i] (increasing), of the same size or from size 1
    for _ in range(20):
        dims = sorted(w.r.sample(range(len(shape)), rank))
        if all(a.shape[i] in (1, shape[d]) for i, d in enumerate(dims)):
            w.op("broadcast_in_dim", [a], [(shape, a.et)], f"broadcast_dimensions = {_i64s(dims)}")
            return


def g_reshape(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    n = int(np.prod(a.shape))
    shapes = [s for s in SHAPES + ((n,), (1, n), (n, 1)) if int(np.prod(s)) == n]
    w.op("reshape", [a], [(w.r.choice(shapes), a.et)])


def g_transpose(w: Writer):
    a = w.pick(lambda v: len(v.shape) >= 2)
    if a is not None:
        perm = list(range(len(a.shape)))
        w.r.shuffle(perm)
        w.op("transpose", [a], [(tuple(a.shape[p] for p in perm), a.et)], f"permutation = {_i64s(perm)}")


def g_reverse(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is not None:
        dims = sorted(w.r.sample(range(len(a.shape)), w.r.randint(1, len(a.shape))))
        w.op("reverse", [a], [(a.shape, a.et)], f"dimensions = {_i64s(dims)}")


def g_slice(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    start, limit, strides = [], [], []
    for d in a.shape:
        s = w.r.randint(0, d)
        start.append(s)
        limit.append(w.r.randint(s, d))
        strides.append(w.r.randint(1, 3))
    shape = tuple(-(-(l - s) // k) for s, l, k in zip(start, limit, strides))
    w.op("slice", [a], [(shape, a.et)],
         f"start_indices = {_i64s(start)}, limit_indices = {_i64s(limit)}, strides = {_i64s(strides)}")


def g_pad(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    pv = w.scalar_of(a)
    lo, hi, interior, shape = [], [], [], []
    for d in a.shape:
        i = w.r.randint(0, 2)
        full = d + max(d - 1, 0) * i
        low = w.r.randint(-min(full, 2), 2)
        high = w.r.randint(-min(full + low, 2), 2)
        lo.append(low), hi.append(high), interior.append(i), shape.append(full + low + high)
    w.op("pad", [a, pv], [(tuple(shape), a.et)],
         f"edge_padding_low = {_i64s(lo)}, edge_padding_high = {_i64s(hi)}, interior_padding = {_i64s(interior)}")


def g_concatenate(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    dim = w.r.randrange(len(a.shape))
    parts = [a]
    for _ in range(w.r.randint(1, 2)):
        b = w.pick(lambda v: v.et == a.et and len(v.shape) == len(a.shape)
                   and all(x == y for i, (x, y) in enumerate(zip(v.shape, a.shape)) if i != dim))
        parts.append(b if b is not None and w.r.random() < 0.7 else w.constant(a.shape, a.et))
    shape = list(a.shape)
    shape[dim] = sum(p.shape[dim] for p in parts)
    w.op("concatenate", parts, [(tuple(shape), a.et)], f"dimension = {dim} : i64")


def _index(w: Writer, d: int) -> Val:
    et = w.r.choice(("i32", "i64", "ui32"))
    v = w.r.randint(-2, d + 2)
    if et == "ui32":
        v = abs(v)
    return w.constant((), et, np.array(v))


def g_dynamic_slice(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    sizes = [w.r.randint(0, d) for d in a.shape]
    et = w.r.choice(("i32", "i64"))
    idx = [w.constant((), et, np.array(w.r.randint(-2, d + 2))) for d in a.shape]
    w.op("dynamic_slice", [a, *idx], [(tuple(sizes), a.et)], f"slice_sizes = {_i64s(sizes)}")


def g_dynamic_update_slice(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    ushape = tuple(w.r.randint(0, d) for d in a.shape)
    u = w.pick(lambda v: v.shape == ushape and v.et == a.et) or w.constant(ushape, a.et)
    et = w.r.choice(("i32", "i64"))
    idx = [w.constant((), et, np.array(w.r.randint(-2, d + 2))) for d in a.shape]
    w.op("dynamic_update_slice", [a, u, *idx], [(a.shape, a.et)])


def identity(body_op: str, et: str) -> np.ndarray:
    """The identity of ``body_op`` on ``et``: the spec leaves how often ``reduce`` applies its init value to the
    implementation (XLA drops it where a dimension of size 1 is reduced), so only identities give one result."""
    dt = np.dtype(DTYPES[et])
    if body_op in ("add", "or", "xor"):
        return np.zeros((), dt)
    if body_op == "multiply":
        return np.ones((), dt)
    if body_op == "and":
        return np.array(True) if et == BOOL else np.array(-1).astype(dt) if dt.kind == "i" else np.array(np.iinfo(dt).max, dt)
    big = np.inf if dt.kind == "f" else (np.iinfo(dt).max if body_op == "minimum" else np.iinfo(dt).min)
    return np.array(big if body_op == "minimum" or dt.kind != "f" else -np.inf, dt)


def g_reduce(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    body_op = w.r.choice(_REDUCERS[_kind(a.et)])
    dims = sorted(w.r.sample(range(len(a.shape)), w.r.randint(1, len(a.shape))))
    init = w.constant((), a.et, identity(body_op, a.et))
    shape = tuple(d for i, d in enumerate(a.shape) if i not in dims)

    def body(w2: Writer, args):
        return w2.op(body_op, args, [((), a.et)])

    region = w.region([((), a.et), ((), a.et)], body)
    w.op("reduce", [a, init], [(shape, a.et)], f"dimensions = {_i64s(dims)}", [region])


def g_dot(w: Writer):
    a = w.pick(lambda v: len(v.shape) == 2 and _kind(v.et) == "i")
    if a is None:
        return
    m, k = a.shape
    b = w.pick(lambda v: v.shape[:1] == (k,) and len(v.shape) == 2 and v.et == a.et)
    if b is None:
        b = w.op("transpose", [a], [((k, m), a.et)], f"permutation = {_i64s([1, 0])}")[0]
    w.op("dot_general", [a, b], [((m, b.shape[1]), a.et)],
         "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>")


def g_sort(w: Writer):
    a = w.pick(lambda v: v.shape != () and v.et not in (BOOL, "ui64"))  # (XLA refuses a ui64 comparator)
    if a is None:
        return
    a = canonical_nan(w, a)  # (a total order of the keys)
    ops = [a]
    if w.r.random() < 0.5:  # (values sorted along with the keys)
        b = w.pick(lambda v: v.shape == a.shape and v != a)
        if b is not None:
            ops.append(b)
    dim = w.r.randrange(len(a.shape))
    ctype = "TOTALORDER" if a.et in FLOATS else ("UNSIGNED" if a.et.startswith("ui") else "SIGNED")
    direction = w.r.choice(("LT", "GT"))

    def body(w2: Writer, args):
        return [w2.compare(args[0], args[1], direction, ctype)]

    region = w.region([((), v.et) for v in ops for _ in (0, 1)], body)
    w.op("sort", ops, [(v.shape, v.et) for v in ops], f"dimension = {dim} : i64, is_stable = true", [region])


def _windows(w: Writer, shape, dilate: bool):
    """Random window attributes for ``shape`` and the result shape (StableHLO spec, ``reduce_window``)."""
    dims, strides, base, wdil, pad, out = [], [], [], [], [], []
    for d in shape:
        bd = w.r.randint(1, 2) if dilate else 1
        wd = w.r.randint(1, 2) if dilate else 1
        lo, hi = w.r.randint(0, 1), w.r.randint(0, 1)
        padded = (d - 1) * bd + 1 + lo + hi if d else lo + hi
        win = w.r.randint(1, 3)
        stride = w.r.randint(1, 2)
        eff = (win - 1) * wd + 1
        dims.append(win), strides.append(stride), base.append(bd), wdil.append(wd), pad.append((lo, hi))
        out.append((padded - eff) // stride + 1 if padded >= eff else 0)
    padding = "dense<[" + ", ".join(f"[{a}, {b}]" for a, b in pad) + f"]> : tensor<{len(shape)}x2xi64>"
    return dims, strides, base, wdil, padding, tuple(out)


def g_reduce_window(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None:
        return
    body_op = w.r.choice(_REDUCERS[_kind(a.et)])
    dims, strides, base, wdil, padding, shape = _windows(w, a.shape, True)
    init = w.constant((), a.et, identity(body_op, a.et))
    region = w.region([((), a.et), ((), a.et)], lambda w2, args: w2.op(body_op, args, [((), a.et)]))
    w.op("reduce_window", [a, init], [(shape, a.et)],
         f"window_dimensions = {_i64s(dims)}, window_strides = {_i64s(strides)}, base_dilations = {_i64s(base)}, "
         f"window_dilations = {_i64s(wdil)}, padding = {padding}", [region])


def g_select_and_scatter(w: Writer):
    a = w.pick(lambda v: v.shape != () and _kind(v.et) == "i")
    if a is None:
        return
    # distinct operand values: which of two equal elements a window selects follows the order the implementation
    # combines them in (the spec defines the selection through reduce_window, whose schedule it leaves open)
    n = int(np.prod(a.shape))
    values = (np.array(w.r.sample(range(n), n)) - n // 2) if n else np.zeros(0)
    a = w.constant(a.shape, a.et, values.astype(DTYPES[a.et]).reshape(a.shape))
    dims, strides, _, _, padding, shape = _windows(w, a.shape, False)
    source = w.pick(lambda v: v.shape == shape and v.et == a.et) or w.constant(shape, a.et)
    init = w.constant((), a.et, np.zeros((), DTYPES[a.et]))
    ctype = "UNSIGNED" if a.et.startswith("ui") else "SIGNED"
    direction = w.r.choice(("GE", "LE", "GT"))
    select = w.region([((), a.et), ((), a.et)], lambda w2, args: [w2.compare(*args, direction, ctype)])
    scatter = w.region([((), a.et), ((), a.et)], lambda w2, args: w2.op("add", args, [((), a.et)]))
    w.op("select_and_scatter", [a, source, init], [(a.shape, a.et)],
         f"window_dimensions = {_i64s(dims)}, window_strides = {_i64s(strides)}, padding = {padding}",
         [select, scatter])


def _indices(w: Writer, k: int, n: int) -> Val:
    """``k`` start indices into a dimension of size ``n`` (some out of range) as a ``tensor<k x 1 x i32>``."""
    return w.constant((k, 1), "i32", np.array([w.r.randint(-2, n + 1) for _ in range(k)]))


def g_gather(w: Writer):
    a = w.pick(lambda v: len(v.shape) == 2 and v.shape[0] > 0)
    if a is None:
        return
    n, m = a.shape
    k = w.r.randint(0, 4)
    size = w.r.randint(0, m)
    idx = _indices(w, k, n)
    w.op("gather", [a, idx], [((k, size), a.et)],
         "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
         f"index_vector_dim = 1>, slice_sizes = {_i64s([1, size])}, indices_are_sorted = false")


def g_scatter(w: Writer):
    a = w.pick(lambda v: len(v.shape) == 2 and (_kind(v.et) == "i" or v.et in FLOATS))
    if a is None:
        return
    n, m = a.shape
    k = w.r.randint(0, 4)
    idx = _indices(w, k, n)
    upd = w.pick(lambda v: v.shape == (k, m) and v.et == a.et) or w.constant((k, m), a.et)
    # (order-independent combiners only: indices repeat)
    body_op = w.r.choice(("add", "maximum", "minimum", "xor") if _kind(a.et) == "i" else ("maximum", "minimum"))
    region = w.region([((), a.et), ((), a.et)], lambda w2, args: w2.op(body_op, args, [((), a.et)]))
    w.op("scatter", [a, idx, upd], [(a.shape, a.et)],
         "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
         "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, "
         "unique_indices = false", [region])


def g_map(w: Writer):
    a = w.pick(lambda v: v.shape != ())
    if a is None or w.depth >= 2:
        return
    b = w.like(a)

    def body(w2: Writer, args):
        w2.pool[:] = list(args)  # (a map's computation reads only its arguments: XLA's calls cannot capture)
        for _ in range(w2.r.randint(1, 3)):
            w2.r.choice((g_binary, g_unary, g_select))(w2)
        cands = [v for v in w2.pool if v.shape == () and v.et == a.et]
        return [cands[-1]]

    region = w.region([((), a.et), ((), a.et)], body)
    w.op("map", [a, b], [(a.shape, a.et)], f"dimensions = {_i64s(range(len(a.shape)))}", [region])


def g_argmax(w: Writer):
    """A two-input ``reduce`` (values and their indices) picking the largest value and its smallest index, as
    JAX's ``argmax`` writes it."""
    a = w.pick(lambda v: len(v.shape) >= 1 and _kind(v.et) == "i")
    if a is None:
        return
    dim = w.r.randrange(len(a.shape))
    idx = w.op("iota", [], [(a.shape, "i32")], f"iota_dimension = {dim} : i64")[0]
    ctype = "UNSIGNED" if a.et.startswith("ui") else "SIGNED"
    init_v = w.constant((), a.et, identity("maximum", a.et))
    init_i = w.constant((), "i32", np.array(0))

    def body(w2: Writer, args):
        v0, i0, v1, i1 = args
        gt, eq = w2.compare(v0, v1, "GT", ctype), w2.compare(v0, v1, "EQ", ctype)
        lt_i = w2.compare(i0, i1, "LT", "SIGNED")
        take0 = w2.op("or", [gt, w2.op("and", [eq, lt_i], [((), BOOL)])[0]], [((), BOOL)])[0]
        return [w2.op("select", [take0, v0, v1], [((), a.et)])[0], w2.op("select", [take0, i0, i1], [((), "i32")])[0]]

    region = w.region([((), a.et), ((), "i32"), ((), a.et), ((), "i32")], body)
    shape = tuple(d for i, d in enumerate(a.shape) if i != dim)
    w.op("reduce", [a, idx, init_v, init_i], [(shape, a.et), (shape, "i32")], f"dimensions = {_i64s([dim])}", [region])


def g_rng_bit_generator(w: Writer):
    algorithm = w.r.choice(("THREE_FRY", "PHILOX", "DEFAULT"))
    n = 3 if algorithm == "PHILOX" and w.r.random() < 0.5 else 2
    state = w.pick(lambda v: v.shape == (n,) and v.et == "ui64") or w.constant((n,), "ui64")
    shape = w.r.choice(SHAPES + ((5,), (2, 7)))
    et = w.r.choice(("ui32", "ui64", "i32", "i64", "ui8"))
    w.op("rng_bit_generator", [state], [((n,), "ui64"), (shape, et)], f"rng_algorithm = #stablehlo<rng_algorithm "
         f"{algorithm}>")


def g_convolution(w: Writer):
    """A 1-D or 2-D integer ``convolution`` (exact, wrapping) with strides, padding, dilations and feature groups."""
    et = w.r.choice(("i32", "i64"))
    rank = w.r.choice((1, 1, 2))
    groups = w.r.choice((1, 1, 2))
    b, f, o = w.r.randint(1, 2), groups * w.r.randint(1, 2), groups * w.r.randint(1, 2)
    spatial = [w.r.randint(1, 5) for _ in range(rank)]
    kernel = [w.r.randint(1, 3) for _ in range(rank)]
    strides = [w.r.randint(1, 2) for _ in range(rank)]
    ld = [w.r.randint(1, 2) for _ in range(rank)]
    rd = [w.r.randint(1, 2) for _ in range(rank)]
    pad = [(w.r.randint(0, 2), w.r.randint(0, 2)) for _ in range(rank)]
    out = []
    for n, k, st, a, d, (lo, hi) in zip(spatial, kernel, strides, ld, rd, pad):
        size = (n - 1) * a + 1 + lo + hi - ((k - 1) * d + 1)
        if size < 0:
            return
        out.append(size // st + 1)
    lhs_shape, rhs_shape = (b, *spatial, f), (*kernel, f // groups, o)
    # (behind barriers: XLA's folder saturates an integer convolution that its generated code wraps)
    lhs = w.pick(lambda v: v.shape == lhs_shape and v.et == et) or w.constant(lhs_shape, et, barrier=True)
    rhs = w.constant(rhs_shape, et, np.array([w.r.randint(-3, 3) for _ in range(int(np.prod(rhs_shape)))]),
                     barrier=True)
    sp = ", ".join(str(i) for i in range(rank))
    padding = "dense<[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in pad) + f"]> : tensor<{rank}x2xi64>"
    w.op("convolution", [lhs, rhs], [((b, *out, o), et)],
         f"dimension_numbers = #stablehlo.conv<[b, {sp}, f]x[{sp}, i, o]->[b, {sp}, f]>, "
         f"window_strides = {_i64s(strides)}, padding = {padding}, lhs_dilation = {_i64s(ld)}, "
         f"rhs_dilation = {_i64s(rd)}, feature_group_count = {groups} : i64, batch_group_count = 1 : i64")


def g_reduce_precision(w: Writer):
    a = w.pick(lambda v: v.et in FLOATS)
    if a is not None:
        # (mantissa_bits >= 1: with none, a NaN becomes an infinity in upstream's reference and here, stays NaN in XLA)
        e, m = w.r.randint(1, 11 if a.et == "f64" else 8), w.r.randint(1, 52 if a.et == "f64" else 23)
        w.op("reduce_precision", [a], [(a.shape, a.et)], f"exponent_bits = {e} : i32, mantissa_bits = {m} : i32")


def _ops_then_pick(w: Writer, types, n: int) -> list[Val]:
    for _ in range(n):
        random_op(w)
    out = []
    for s, e in types:
        c = [v for v in w.pool if v.shape == s and v.et == e]
        out.append(w.r.choice(c[-4:]) if c and w.r.random() < 0.9 else w.constant(s, e))
    return out


def g_while(w: Writer):
    if w.depth >= 2:
        return
    carried = [w.pick() for _ in range(w.r.randint(1, 2))]
    carried = [v for v in carried if v is not None]
    zero = w.constant((), "i32", np.array(0))
    # (past 100 iterations the interpreter runs the rest of a loop compiled: evaluator.COMPILE_AFTER)
    trips = w.r.randint(0, 4) if w.r.random() < 0.85 else w.r.randint(98, 130)
    types = [((), "i32")] + [(v.shape, v.et) for v in carried]

    def cond(w2: Writer, args):
        limit = w2.constant((), "i32", np.array(trips))
        return [w2.compare(args[0], limit, "LT", "SIGNED")]

    def body(w2: Writer, args):
        one = w2.constant((), "i32", np.array(1))
        nxt = w2.op("add", [args[0], one], [((), "i32")])
        return nxt + _ops_then_pick(w2, types[1:], w2.r.randint(1, 4))

    regions = [w.region(types, cond), w.region(types, body)]
    w.op("while", [zero, *carried], types, "", regions)


def _scalar_pred(w: Writer) -> Val:
    a = w.pick(lambda v: v.et == BOOL)
    if a is None:
        return w.constant((), BOOL)
    if a.shape == ():
        return a
    body_op = w.r.choice(("and", "or"))
    init = w.constant((), BOOL, identity(body_op, BOOL))
    region = w.region([((), BOOL), ((), BOOL)], lambda w2, args: w2.op(body_op, args, [((), BOOL)]))
    return w.op("reduce", [a, init], [((), BOOL)], f"dimensions = {_i64s(range(len(a.shape)))}", [region])[0]


def g_if(w: Writer):
    if w.depth >= 2:
        return
    pred = _scalar_pred(w)
    outs = [v for v in (w.pick() for _ in range(w.r.randint(1, 2))) if v is not None]
    if not outs:
        return
    types = [(v.shape, v.et) for v in outs]
    regions = [w.region([], lambda w2, args: _ops_then_pick(w2, types, w2.r.randint(0, 3))) for _ in (0, 1)]
    w.op("if", [pred], types, "", regions)


def g_case(w: Writer):
    if w.depth >= 2:
        return
    index = w.constant((), "i32", np.array(w.r.randint(-1, 3)))
    outs = [v for v in (w.pick() for _ in range(w.r.randint(1, 2))) if v is not None]
    if not outs:
        return
    types = [(v.shape, v.et) for v in outs]
    regions = [w.region([], lambda w2, args: _ops_then_pick(w2, types, w2.r.randint(0, 2)))
               for _ in range(w.r.randint(1, 3))]
    w.op("case", [index], types, "", regions)


GENERATORS = {
    g_binary: 10, g_unary: 5, g_is_finite: 1, g_compare: 4, g_select: 3, g_clamp: 2, g_convert: 3, g_bitcast: 1,
    g_constant: 1, g_iota: 1, g_broadcast: 3, g_reshape: 2, g_transpose: 2, g_reverse: 1, g_slice: 2, g_pad: 2,
    g_concatenate: 2, g_dynamic_slice: 1, g_dynamic_update_slice: 1, g_reduce: 3, g_dot: 1, g_sort: 2,
    g_while: 2, g_if: 1, g_case: 1, g_reduce_window: 2, g_select_and_scatter: 1, g_gather: 2, g_scatter: 2,
    g_map: 1, g_argmax: 1, g_rng_bit_generator: 1, g_reduce_precision: 1, g_convolution: 1,
}
_GENS, _WEIGHTS = list(GENERATORS), list(GENERATORS.values())


def random_op(w: Writer) -> None:
    if w.budget <= 0:
        return
    w.budget -= 1
    w.r.choices(_GENS, _WEIGHTS)[0](w)


def random_program(r: random.Random, max_ops: int = 16) -> tuple[str, list[np.ndarray]]:
    """A module with ``func.func @main`` of up to ``max_ops`` random ops (regions' ops included) and inputs for
    it; see the module doc."""
    w = Writer(r, max_ops)
    nargs = r.randint(1, 3)
    base = r.choice(SHAPES)
    args = []
    for i in range(nargs):
        shape = base if r.random() < 0.7 else r.choice(SHAPES)
        v = Val(f"%arg{i}", shape, r.choice(FLOATS + INTS + (BOOL,)))
        args.append(v)
    w.pool.extend(args)
    for _ in range(max_ops):
        random_op(w)
    made = [v for v in w.pool if v not in args]
    results = made[-r.randint(1, 3):] if made else args[:1]
    if r.random() < 0.3 and len(made) > 3:
        results.append(r.choice(made[:-3]))
    header = ("func.func @main(" + ", ".join(f"{v.name}: {v.type}" for v in args) + ") -> ("
              + ", ".join(v.type for v in results) + ") {")
    body = "\n".join(w.lines)
    ret = ('    "func.return"(' + ", ".join(v.name for v in results) + ") : ("
           + ", ".join(v.type for v in results) + ") -> ()")
    text = "module {\n  " + header + "\n" + body + "\n" + ret + "\n  }\n}\n"
    inputs = [random_array(r, v.shape, v.et) for v in args]
    return text, inputs


def inputs_npz(inputs: list[np.ndarray]) -> bytes:
    """``inputs`` as the ``.npz`` that ``hlokit-run --inputs`` reads (``arg_0``, ``arg_1``, ...)."""
    buf = io.BytesIO()
    np.savez(buf, **{f"arg_{i}": a for i, a in enumerate(inputs)})
    return buf.getvalue()
