"""Indexing maps on ``jaxlib.mlir.ir.AffineMap`` / ``AffineExpr``: the model of XLA's HLO indexing analysis.

Source: https://openxla.org/xla/indexing (section "Indexing map"; XLA's implementation is
``xla/hlo/analysis/indexing_map.cc``, formerly ``xla/service/gpu/model/indexing_map.cc``).

An :class:`IndexingMap` maps the multi-index of one tensor (its *dimension variables* ``d_i``) to the
multi-index of another, possibly through *range variables* (a whole range of values is read, e.g. the
reduced dimensions of ``reduce``) and *runtime variables* (values read at run time, e.g. the offsets of
``dynamic_slice``). Range and runtime variables are the symbols ``s_j`` of the affine map, range
variables first. The map has a domain: an :class:`Interval` per variable plus constraints
``expr in [lb, ub]``.

Text form (as https://openxla.org/xla/indexing prints maps)::

    (d0, d1, d2)[s0] -> (d0, d1, s0)
    domain:
    d0 in [0, 3]
    d1 in [0, 127]
    d2 in [0, 63]
    s0 in [0, 255]

Expressions are kept in a canonical linear form (:class:`Expr`: ``sum(coeff * atom) + constant``, atoms
being variables or ``floordiv`` / ``mod`` of an expression by a positive constant) so that composition,
range analysis and the range-aware simplifier (:meth:`IndexingMap.simplify`) are plain Python; the
affine map itself is an ``ir.AffineMap`` (:attr:`IndexingMap.affine_map`), built with MLIR's own
expression constructors and printed by MLIR's printer.

The semantics of a map: for a point ``d`` of the dim domain, the indices it denotes are
``{results(d, s, rt) : s in the range-var ranges, constraints hold}``, with every runtime variable bound
to the value its SSA value holds at ``rt.map(d)``, clamped into ``rt.feasible_values`` (the clamping that
``dynamic_slice``, ``dynamic_update_slice`` and ``gather`` apply to start indices).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from jaxlib.mlir import ir

from hlokit.analysis import indexing_memo as _memo
from hlokit.analysis.indexing_memo import MemoKey

__all__ = [
    "Interval",
    "Expr",
    "DimVar",
    "RangeVar",
    "RTVar",
    "IndexingMap",
    "IndexingError",
    "dim_vars",
    "range_vars",
    "dim",
    "sym",
    "const",
]


class IndexingError(Exception):
    """Raised when no indexing map can be built (unsupported op or attribute, malformed map).

    ``op`` is the operation concerned when known (tools use its location).
    """

    def __init__(self, message: str, op=None):
        super().__init__(message)
        self.message = message
        self.op = op


# ----------------------------------------------------------------------------------------------
# Intervals


@dataclass(frozen=True)
class Interval:
    """A closed integer interval ``[lower, upper]`` (empty when ``lower > upper``)."""

    lower: int
    upper: int

    def is_empty(self) -> bool:
        return self.lower > self.upper

    def contains(self, other: "Interval | int") -> bool:
        if isinstance(other, int):
            return self.lower <= other <= self.upper
        return self.lower <= other.lower and other.upper <= self.upper

    def intersect(self, other: "Interval") -> "Interval":
        return Interval(max(self.lower, other.lower), min(self.upper, other.upper))

    def __str__(self) -> str:
        return f"[{self.lower}, {self.upper}]"


# ----------------------------------------------------------------------------------------------
# Expressions: canonical linear form


class Atom:
    """A non-linear leaf of an :class:`Expr`: a variable, or ``floordiv`` / ``mod`` by a constant."""

    __slots__ = ("key", "_hash")

    def __eq__(self, other):
        return self is other or (isinstance(other, Atom) and self.key == other.key)

    def __hash__(self):
        return self._hash

    def __lt__(self, other):
        return self.key < other.key


class Var(Atom):
    """Dimension variable ``d<index>`` (kind ``"d"``) or symbol ``s<index>`` (kind ``"s"``)."""

    __slots__ = ("kind", "index")

    def __init__(self, kind: str, index: int):
        self.kind = kind
        self.index = index
        self.key = (0 if kind == "d" else 1, index)
        self._hash = hash(self.key)

    def __repr__(self):
        return f"{self.kind}{self.index}"


class Div(Atom):
    """``lhs floordiv rhs`` (op ``"floordiv"``) or ``lhs mod rhs`` (op ``"mod"``), ``rhs > 0``."""

    __slots__ = ("op", "lhs", "rhs")

    def __init__(self, op: str, lhs: "Expr", rhs: int):
        assert rhs > 0
        self.op = op
        self.lhs = lhs
        self.rhs = rhs
        self.key = (2 if op == "floordiv" else 4, lhs.key, rhs)
        self._hash = hash(self.key)

    def __repr__(self):
        return f"({self.lhs!r}) {self.op} {self.rhs}"


class Expr:
    """An affine expression ``sum(coeff * atom) + constant`` in canonical form (immutable, hashable).

    Terms are sorted: dimension variables, then symbols, then ``floordiv`` atoms, then ``mod`` atoms
    (so ``d2 + (d1 mod 2) * 4`` prints as in https://openxla.org/xla/indexing, section "Reshape").
    Build with :func:`dim`, :func:`sym`, :func:`const`, ``+``, ``-``, ``*`` (by an int),
    :meth:`floordiv`, :meth:`mod`, :meth:`ceildiv`.
    """

    __slots__ = ("terms", "const", "key", "_hash")

    def __init__(self, terms: Mapping[Atom, int] | Iterable[tuple[Atom, int]] = (), constant: int = 0):
        items = terms.items() if type(terms) is dict else terms
        terms = [(a, c) for a, c in items if c != 0]
        if len(terms) > 1:
            terms.sort(key=_term_key)
        self.terms = tuple(terms)
        self.const = constant
        self.key = (tuple([(a.key, c) for a, c in terms]), constant)
        self._hash = hash(self.key)

    @classmethod
    def _canonical(cls, terms: tuple[tuple[Atom, int], ...], constant: int) -> "Expr":
        """An expression from terms already in canonical form (sorted, no zero coefficient)."""
        e = object.__new__(cls)
        e.terms = terms
        e.const = constant
        e.key = (tuple([(a.key, c) for a, c in terms]), constant)
        e._hash = hash(e.key)
        return e

    # -- structure
    def __eq__(self, other):
        return self is other or (isinstance(other, Expr) and self.key == other.key)

    def __hash__(self):
        return self._hash

    def is_constant(self) -> bool:
        return not self.terms

    def single_atom(self) -> Atom | None:
        """The atom when the expression is exactly ``1 * atom`` (no constant), else None."""
        if len(self.terms) == 1 and self.const == 0 and self.terms[0][1] == 1:
            return self.terms[0][0]
        return None

    def as_var(self) -> Var | None:
        a = self.single_atom()
        return a if isinstance(a, Var) else None

    # -- arithmetic
    def __add__(self, other: "Expr | int") -> "Expr":
        if isinstance(other, int):
            return Expr._canonical(self.terms, self.const + other) if other else self
        acc = dict(self.terms)
        for a, c in other.terms:
            acc[a] = acc.get(a, 0) + c
        return Expr(acc, self.const + other.const)

    __radd__ = __add__

    def __neg__(self) -> "Expr":
        return self * -1

    def __sub__(self, other: "Expr | int") -> "Expr":
        return self + (-other)

    def __rsub__(self, other: int) -> "Expr":
        return (-self) + other

    def __mul__(self, k: int) -> "Expr":
        if not isinstance(k, int):
            raise IndexingError("indexing maps are affine: only multiplication by a constant")
        if k == 1:
            return self
        if k == 0:
            return Expr._canonical((), 0)
        return Expr._canonical(tuple([(a, c * k) for a, c in self.terms]), self.const * k)

    __rmul__ = __mul__

    def floordiv(self, c: int) -> "Expr":
        """``self floordiv c`` (``c > 0``); folded when constant or ``c == 1``."""
        if c <= 0:
            raise IndexingError("floordiv by a non-positive constant")
        if c == 1:
            return self
        if self.is_constant():
            return Expr((), self.const // c)
        return Expr(((Div("floordiv", self, c), 1),))

    def mod(self, c: int) -> "Expr":
        """``self mod c`` (``c > 0``, result in ``[0, c - 1]``)."""
        if c <= 0:
            raise IndexingError("mod by a non-positive constant")
        if c == 1:
            return Expr()
        if self.is_constant():
            return Expr((), self.const % c)
        return Expr(((Div("mod", self, c), 1),))

    def ceildiv(self, c: int) -> "Expr":
        """``self ceildiv c``, kept as ``-((-self) floordiv c)``."""
        return -((-self).floordiv(c))

    # -- evaluation and substitution
    def evaluate(self, dims: Sequence[int], syms: Sequence[int]) -> int:
        total = self.const
        for a, c in self.terms:
            total += c * _eval_atom(a, dims, syms)
        return total

    def substitute(self, dims: Sequence["Expr"] | None, syms: Sequence["Expr"] | None) -> "Expr":
        """Replace ``d_i`` by ``dims[i]`` and ``s_j`` by ``syms[j]`` (None: keep that kind)."""
        acc: dict[Atom, int] = {}
        constant = self.const
        for a, c in self.terms:
            e = _subst_atom(a, dims, syms)
            constant += e.const * c
            for b, k in e.terms:
                acc[b] = acc.get(b, 0) + k * c
        return Expr(acc, constant)

    def variables(self) -> Iterator[Var]:
        for a, _ in self.terms:
            if isinstance(a, Var):
                yield a
            else:
                yield from a.lhs.variables()

    # -- MLIR
    def to_affine(self) -> ir.AffineExpr:
        """This expression as an ``ir.AffineExpr`` (needs an active ``ir.Context``)."""
        out = None
        for a, c in self.terms:
            t = _atom_to_affine(a)
            if c == -1:
                t = t * -1
            elif c != 1:
                t = t * c
            out = t if out is None else out + t
        if out is None:
            return ir.AffineConstantExpr.get(self.const)
        if self.const:
            out = out + self.const
        return out

    @staticmethod
    def from_affine(e: ir.AffineExpr) -> "Expr":
        """Convert an ``ir.AffineExpr`` (pure affine: ``*`` by constants, floordiv/mod/ceildiv by
        positive constants); raise :class:`IndexingError` for semi-affine expressions."""
        if isinstance(e, ir.AffineDimExpr):
            return dim(ir.AffineDimExpr(e).position)
        if isinstance(e, ir.AffineSymbolExpr):
            return sym(ir.AffineSymbolExpr(e).position)
        if isinstance(e, ir.AffineConstantExpr):
            return const(ir.AffineConstantExpr(e).value)
        b = ir.AffineBinaryExpr(e)
        lhs, rhs = Expr.from_affine(b.lhs), Expr.from_affine(b.rhs)
        if isinstance(e, ir.AffineAddExpr):
            return lhs + rhs
        if not rhs.is_constant():
            if isinstance(e, ir.AffineMulExpr) and lhs.is_constant():
                return rhs * lhs.const
            raise IndexingError(f"semi-affine expression not supported: {e}")
        if isinstance(e, ir.AffineMulExpr):
            return lhs * rhs.const
        if isinstance(e, ir.AffineFloorDivExpr):
            return lhs.floordiv(rhs.const)
        if isinstance(e, ir.AffineModExpr):
            return lhs.mod(rhs.const)
        if isinstance(e, ir.AffineCeilDivExpr):
            return lhs.ceildiv(rhs.const)
        raise IndexingError(f"unknown affine expression: {e}")

    def __str__(self) -> str:
        with _context():
            return str(self.to_affine())

    def __repr__(self) -> str:
        parts = [f"{c}*{a!r}" for a, c in self.terms]
        return " + ".join(parts + [str(self.const)]) if parts else str(self.const)


def _term_key(t):
    return t[0].key


def dim(i: int) -> Expr:
    """The expression ``d<i>``."""
    return Expr(((Var("d", i), 1),))


def sym(i: int) -> Expr:
    """The expression ``s<i>``."""
    return Expr(((Var("s", i), 1),))


def const(v: int) -> Expr:
    """The constant expression ``v``."""
    return Expr((), int(v))


def _eval_atom(a: Atom, dims, syms) -> int:
    if isinstance(a, Var):
        return dims[a.index] if a.kind == "d" else syms[a.index]
    v = a.lhs.evaluate(dims, syms)
    return v // a.rhs if a.op == "floordiv" else v % a.rhs


def _subst_atom(a: Atom, dims, syms) -> Expr:
    if isinstance(a, Var):
        table = dims if a.kind == "d" else syms
        return Expr(((a, 1),)) if table is None else table[a.index]
    lhs = a.lhs.substitute(dims, syms)
    return lhs.floordiv(a.rhs) if a.op == "floordiv" else lhs.mod(a.rhs)


def _atom_to_affine(a: Atom) -> ir.AffineExpr:
    if isinstance(a, Var):
        return ir.AffineDimExpr.get(a.index) if a.kind == "d" else ir.AffineSymbolExpr.get(a.index)
    lhs = a.lhs.to_affine()
    c = ir.AffineConstantExpr.get(a.rhs)
    return ir.AffineExpr.get_floor_div(lhs, c) if a.op == "floordiv" else ir.AffineExpr.get_mod(lhs, c)


_DEFAULT_CONTEXT: ir.Context | None = None


class _context:
    """Enter the active ``ir.Context``, or hlokit's private one when none is active."""

    def __enter__(self):
        global _DEFAULT_CONTEXT
        try:
            current = ir.Context.current
        except (ValueError, RuntimeError):
            current = None
        self._ctx = None
        if current is None:
            if _DEFAULT_CONTEXT is None:
                _DEFAULT_CONTEXT = ir.Context()
            self._ctx = _DEFAULT_CONTEXT
            self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        if self._ctx is not None:
            self._ctx.__exit__(*exc)


# ----------------------------------------------------------------------------------------------
# Range analysis and the range-aware simplifier


Bounds = Callable[[Var], Interval]

#: Constraints on one variable tighten its interval by scanning at most this many values.
_SCAN_LIMIT = 4096


def expr_range(e: Expr, bounds: Bounds) -> Interval:
    """Interval of the values of ``e`` when each variable ranges over ``bounds(var)`` (sound)."""
    lo = hi = e.const
    for a, c in e.terms:
        r = _atom_range(a, bounds)
        if c > 0:
            lo += c * r.lower
            hi += c * r.upper
        else:
            lo += c * r.upper
            hi += c * r.lower
    return Interval(lo, hi)


def _atom_range(a: Atom, bounds: Bounds) -> Interval:
    if isinstance(a, Var):
        return bounds(a)
    r = expr_range(a.lhs, bounds)
    c = a.rhs
    if a.op == "floordiv":
        return Interval(r.lower // c, r.upper // c)
    if r.lower // c == r.upper // c:
        return Interval(r.lower % c, r.upper % c)
    return Interval(0, c - 1)


def _trunc_split(k: int, c: int) -> tuple[int, int]:
    """``k = c * q + r`` with ``q`` rounded toward zero (keeps ``(d1 - 3) floordiv 7`` as written)."""
    q = abs(k) // c * (1 if k >= 0 else -1)
    return q, k - c * q


def _split_multiples(e: Expr, c: int) -> tuple[Expr, Expr]:
    """``e = c * q + r``: ``q`` collects the terms whose coefficient ``c`` divides, ``r`` the rest."""
    q, r = {}, {}
    for a, k in e.terms:
        if k % c == 0:
            q[a] = k // c
        else:
            r[a] = k
    return Expr(q), Expr(r, e.const)


def _gcd_split(r: Expr, c: int, bounds: Bounds) -> tuple[int, Expr, Expr] | None:
    """Find ``g | c``, ``g > 1`` with ``r = g * x + rest`` and ``rest`` in ``[0, g - 1]``."""
    candidates = sorted({math.gcd(c, k) for _, k in r.terms} - {1, c}, reverse=True)
    for g in candidates:
        big, rest = {}, {}
        for a, k in r.terms:
            (big if k % g == 0 else rest)[a] = k
        if not big:
            continue
        rest_e = Expr(rest, r.const)
        rr = expr_range(rest_e, bounds)
        if rr.lower >= 0 and rr.upper <= g - 1:
            return g, Expr({a: k // g for a, k in big.items()}), rest_e
    return None


def simplify_expr(e: Expr, bounds: Bounds) -> Expr:
    """Simplify ``e`` using the variable ranges ``bounds`` (the rewrites of https://openxla.org/xla/indexing,
    section "Indexing Map simplification").

    * ``(c*q + r) floordiv c -> q + r floordiv c``; ``(c*q + r) mod c -> r mod c``;
    * ``e floordiv c -> k`` and ``e mod c -> e - k*c`` when ``e`` stays in ``[k*c, k*c + c - 1]``;
    * ``(g*x + r) floordiv c -> x floordiv (c/g)`` and ``(g*x + r) mod c -> (x mod (c/g))*g + r`` when
      ``g | c`` and ``r`` is in ``[0, g - 1]``;
    * ``(e floordiv a) floordiv b -> e floordiv (a*b)``, ``(e mod a) mod b -> e mod b`` if ``b | a``;
    * in sums, ``c*k*(e floordiv c) + k*(e mod c) -> k*e``.
    """
    if all(type(a) is Var for a, _ in e.terms):
        return e  # a linear form is canonical already
    acc: dict[Atom, int] = {}
    constant = e.const
    for a, k in e.terms:
        if isinstance(a, Var):
            acc[a] = acc.get(a, 0) + k
            continue
        s = _simplify_div(a, bounds)
        constant += s.const * k
        for b, kb in s.terms:
            acc[b] = acc.get(b, 0) + kb * k
    return _recombine(Expr(acc, constant), bounds)


def _simplify_div(a: Div, bounds: Bounds) -> Expr:
    c = a.rhs
    lhs = simplify_expr(a.lhs, bounds)
    rng = expr_range(lhs, bounds)
    n = rng.lower // c
    if rng.upper // c == n:
        return const(n) if a.op == "floordiv" else lhs - n * c
    q, r = _split_multiples(lhs, c)
    rr = expr_range(r, bounds)
    n = rr.lower // c
    if rr.upper // c == n:  # the remainder stays in one period
        return q + n if a.op == "floordiv" else r - n * c
    kq, kr = _trunc_split(r.const, c)
    r = Expr(r.terms, kr)
    if a.op == "floordiv":
        q = q + kq
        split = _gcd_split(r, c, bounds)
        if split is not None:
            g, x, _ = split
            return q + simplify_expr(x.floordiv(c // g), bounds)
        inner = r.single_atom()
        if isinstance(inner, Div) and inner.op == "floordiv":
            return q + simplify_expr(inner.lhs.floordiv(inner.rhs * c), bounds)
        return q + r.floordiv(c)
    split = _gcd_split(r, c, bounds)
    if split is not None:
        g, x, rest = split
        return simplify_expr(x.mod(c // g), bounds) * g + rest
    inner = r.single_atom()
    if isinstance(inner, Div) and inner.op == "mod" and inner.rhs % c == 0:
        return simplify_expr(inner.lhs.mod(c), bounds)
    return r.mod(c)


def _recombine(e: Expr, bounds: Bounds) -> Expr:
    """``c*k*(x floordiv c) + k*(x mod c) -> k*x`` inside a sum (reshape chains cancel this way)."""
    terms = dict(e.terms)
    mods = [(a, k) for a, k in terms.items() if isinstance(a, Div) and a.op == "mod"]
    if not mods:
        return e
    for m, k in mods:
        f = Div("floordiv", m.lhs, m.rhs)
        if terms.get(m) == k and terms.get(f) == k * m.rhs:
            del terms[m], terms[f]
            rest = Expr(terms, e.const) + m.lhs * k
            return simplify_expr(rest, bounds)
    return e


# ----------------------------------------------------------------------------------------------
# Variables and maps


@dataclass(frozen=True)
class DimVar:
    """A dimension variable ``d_i``: an index of the source tensor, within ``bounds``."""

    bounds: Interval


@dataclass(frozen=True)
class RangeVar:
    """A range variable: every value of ``range`` is read (e.g. a reduced dimension)."""

    range: Interval


def dim_vars(shape: Sequence[int]) -> tuple[DimVar, ...]:
    """One dimension variable per dimension of ``shape``: ``d_i in [0, shape[i] - 1]``."""
    return tuple(DimVar(Interval(0, n - 1)) for n in shape)


def range_vars(sizes: Sequence[int]) -> tuple[RangeVar, ...]:
    """One range variable per size: ``s_j in [0, sizes[j] - 1]`` (e.g. the reduced dimensions)."""
    return tuple(RangeVar(Interval(0, n - 1)) for n in sizes)


@dataclass(frozen=True, eq=False)
class RTVar:
    """A runtime variable: the value of ``value`` (an SSA value) at index ``map(d, s)``, clamped into
    ``feasible_values``.

    ``map`` is a tuple of :class:`Expr` over the owning map's dimension variables and symbols (the
    index into ``value``; empty for a scalar). ``name`` is used for printing (``hlo:`` line).
    """

    feasible_values: Interval
    value: object
    map: tuple[Expr, ...]
    name: str = ""

    def key(self):
        # ir.Value hashes and compares by the underlying SSA value
        return (self.feasible_values, self.value if self.value is not None else self.name, tuple(self.map))


@dataclass(frozen=True, eq=False)
class IndexingMap:
    """A map from the index of one tensor to the index of another (``IndexingMap`` of
    https://openxla.org/xla/indexing, section "Indexing map").

    * ``results``: tuple of :class:`Expr` over ``d0..d{n-1}`` and ``s0..s{r+t-1}`` (range vars, then
      rt vars). :attr:`affine_map` is the same as an ``ir.AffineMap``.
    * ``dim_vars``, ``range_vars``, ``rt_vars``: the variables and their domains.
    * ``constraints``: mapping ``Expr -> Interval`` (``expr in [lb, ub]``).

    Maps are immutable; :meth:`simplify` and :meth:`compose` return new maps. Equality compares the
    canonical form (use it after :meth:`simplify`).
    """

    results: tuple[Expr, ...]
    dim_vars: tuple[DimVar, ...]
    range_vars: tuple[RangeVar, ...] = ()
    rt_vars: tuple[RTVar, ...] = ()
    constraints: Mapping[Expr, Interval] = field(default_factory=dict)

    # -- construction
    @staticmethod
    def from_affine_map(
        affine_map: ir.AffineMap,
        dim_bounds: Sequence[tuple[int, int] | Interval],
        range_bounds: Sequence[tuple[int, int] | Interval] = (),
        rt_vars: Sequence[RTVar] = (),
        constraints: Mapping[ir.AffineExpr | Expr, tuple[int, int] | Interval] | None = None,
    ) -> "IndexingMap":
        """Build a map from an ``ir.AffineMap`` and the bounds of its variables.

        Raises :class:`IndexingError` when the variable counts disagree with the affine map.
        """
        if affine_map.n_dims != len(dim_bounds) or affine_map.n_symbols != len(range_bounds) + len(rt_vars):
            raise IndexingError(
                f"affine map {affine_map} has {affine_map.n_dims} dims and {affine_map.n_symbols} symbols; "
                f"got {len(dim_bounds)} dim vars and {len(range_bounds) + len(rt_vars)} symbols"
            )
        cons = {}
        for k, v in (constraints or {}).items():
            cons[k if isinstance(k, Expr) else Expr.from_affine(k)] = _interval(v)
        return IndexingMap(
            tuple(Expr.from_affine(r) for r in affine_map.results),
            tuple(DimVar(_interval(b)) for b in dim_bounds),
            tuple(RangeVar(_interval(b)) for b in range_bounds),
            tuple(rt_vars),
            cons,
        )

    @staticmethod
    def identity(shape: Sequence[int]) -> "IndexingMap":
        """``(d0, ..., dn) -> (d0, ..., dn)`` over ``shape``."""
        return IndexingMap(tuple(dim(i) for i in range(len(shape))), dim_vars(shape))

    @property
    def affine_map(self) -> ir.AffineMap:
        """The results as an ``ir.AffineMap`` (in the active context, or hlokit's private one)."""
        with _context():
            return ir.AffineMap.get(self.num_dims, self.num_symbols, [r.to_affine() for r in self.results])

    @property
    def num_dims(self) -> int:
        return len(self.dim_vars)

    @property
    def num_symbols(self) -> int:
        return len(self.range_vars) + len(self.rt_vars)

    def var_bounds(self, v: Var) -> Interval:
        """The interval of variable ``v`` (a dim, a range var or an rt var's feasible values)."""
        if v.kind == "d":
            return self.dim_vars[v.index].bounds
        if v.index < len(self.range_vars):
            return self.range_vars[v.index].range
        return self.rt_vars[v.index - len(self.range_vars)].feasible_values

    # -- predicates
    def is_known_empty(self) -> bool:
        """True when the domain is provably empty (an empty interval or an unsatisfiable constraint)."""
        if any(v.bounds.is_empty() for v in self.dim_vars):
            return True
        if any(v.range.is_empty() for v in self.range_vars):
            return True
        if any(v.feasible_values.is_empty() for v in self.rt_vars):
            return True
        for e, iv in self.constraints.items():
            if iv.is_empty() or expr_range(e, self.var_bounds).intersect(iv).is_empty():
                return True
        return False

    def key(self):
        """The canonical form compared by ``==`` (constraints in sorted order); computed once per map."""
        k = self.__dict__.get("_key")
        if k is None:
            k = (
                tuple(r.key for r in self.results),
                tuple([(v.bounds.lower, v.bounds.upper) for v in self.dim_vars]),
                tuple([(v.range.lower, v.range.upper) for v in self.range_vars]),
                tuple(v.key() for v in self.rt_vars),
                tuple(sorted(((e.key, iv.lower, iv.upper) for e, iv in self.constraints.items()))),
            )
            object.__setattr__(self, "_key", k)
        return k

    def canonical_key(self) -> MemoKey:
        """:meth:`key` with its hash computed once (the fusion's map sets are keyed by it)."""
        k = self.__dict__.get("_ckey")
        if k is None:
            k = MemoKey(self.key())
            object.__setattr__(self, "_ckey", k)
        return k

    def exact_key(self) -> MemoKey:
        """The map's whole content, constraints in insertion order (what :meth:`simplify` depends on),
        hashed once: the key of the memos of :mod:`hlokit.analysis.indexing_memo`."""
        k = self.__dict__.get("_exact")
        if k is None:
            k = MemoKey(
                (
                    tuple(r.key for r in self.results),
                    tuple([(v.bounds.lower, v.bounds.upper) for v in self.dim_vars]),
                    tuple([(v.range.lower, v.range.upper) for v in self.range_vars]),
                    tuple(v.key() + (v.name,) for v in self.rt_vars),
                    tuple((e.key, iv.lower, iv.upper) for e, iv in self.constraints.items()),
                )
            )
            object.__setattr__(self, "_exact", k)
        return k

    def __eq__(self, other):
        return isinstance(other, IndexingMap) and self.key() == other.key()

    def __hash__(self):
        return hash(self.canonical_key())

    # -- composition
    def compose(self, producer: "IndexingMap") -> "IndexingMap":
        """``producer ∘ self``: ``self`` maps A -> B, ``producer`` maps B -> C; the result maps A -> C.

        Symbols of the result: range vars of ``self``, range vars of ``producer``, rt vars of ``self``,
        rt vars of ``producer``. The producer's dim domain becomes constraints on ``self``'s results
        (removed by :meth:`simplify` when always true). Raises :class:`IndexingError` on a rank
        mismatch. The result is not simplified.
        """
        first, second = self, producer
        if len(first.results) != second.num_dims:
            raise IndexingError(
                f"cannot compose: {len(first.results)} results into a map of {second.num_dims} dims"
            )
        if first._is_plain_identity():
            # d_i -> d_i: the producer's map over the intersection of the two dim domains
            dims = tuple(DimVar(a.bounds.intersect(b.bounds)) for a, b in zip(first.dim_vars, second.dim_vars))
            return IndexingMap(second.results, dims, second.range_vars, second.rt_vars, dict(second.constraints))
        r1, r2 = len(first.range_vars), len(second.range_vars)
        t1 = len(first.rt_vars)
        # first's symbols: range j -> s_j ; rt j -> s_{r1 + r2 + j}
        first_syms = [sym(j) for j in range(r1)] + [sym(r1 + r2 + j) for j in range(t1)]
        second_syms = [sym(r1 + j) for j in range(r2)] + [sym(r1 + r2 + t1 + j) for j in range(len(second.rt_vars))]
        first_res = [r.substitute(None, first_syms) for r in first.results]
        results = tuple(r.substitute(first_res, second_syms) for r in second.results)
        cons: dict[Expr, Interval] = {}

        def add(e: Expr, iv: Interval):
            cons[e] = cons[e].intersect(iv) if e in cons else iv

        for e, iv in first.constraints.items():
            add(e.substitute(None, first_syms), iv)
        for e, iv in second.constraints.items():
            add(e.substitute(first_res, second_syms), iv)
        for e, v in zip(first_res, second.dim_vars):
            add(e, v.bounds)
        rts = [RTVar(v.feasible_values, v.value, tuple(x.substitute(None, first_syms) for x in v.map), v.name) for v in first.rt_vars]
        rts += [RTVar(v.feasible_values, v.value, tuple(x.substitute(first_res, second_syms) for x in v.map), v.name) for v in second.rt_vars]
        return IndexingMap(results, first.dim_vars, first.range_vars + second.range_vars, tuple(rts), cons)

    def _is_plain_identity(self) -> bool:
        if self.range_vars or self.rt_vars or self.constraints or len(self.results) != len(self.dim_vars):
            return False
        for i, r in enumerate(self.results):
            v = r.as_var()
            if v is None or v.kind != "d" or v.index != i:
                return False
        return True

    # -- simplification
    def simplify(self) -> "IndexingMap":
        """Range-aware simplification (https://openxla.org/xla/indexing, section "Indexing Map simplification").

        Simplifies the results, the constraints and the rt-var maps; rewrites constraints
        ``k*e + c in [lb, ub]`` and ``e floordiv c in [lb, ub]`` into bounds on ``e``; folds constraints
        on a single variable into its interval; removes constraints that always hold; drops range and
        rt variables nothing uses. A known-empty map is returned with its constraints kept.
        """
        k = None
        if not self.rt_vars:  # rt vars hold ir.Values: memoise only maps of plain integers
            k = self.exact_key()
            hit = _memo.SIMPLIFY_MEMO.get(k)
            if hit is not None:
                return hit
        m = self._simplify_uncached()
        if k is not None:
            if len(_memo.SIMPLIFY_MEMO) >= _memo.MEMO_LIMIT:
                _memo.SIMPLIFY_MEMO.clear()
            _memo.SIMPLIFY_MEMO[k] = m
        return m

    def _simplify_uncached(self) -> "IndexingMap":
        m = self
        for _ in range(4):
            nm = m._simplify_once()
            # another round helps only when the domain was tightened
            same = (
                [v.bounds for v in nm.dim_vars] == [v.bounds for v in m.dim_vars]
                and [v.range for v in nm.range_vars] == [v.range for v in m.range_vars]
                and len(nm.constraints) == len(m.constraints)
            )
            m = nm
            if same:
                break
        return m._remove_unused_symbols()

    def _simplify_once(self) -> "IndexingMap":
        dims = [v.bounds for v in self.dim_vars]
        ranges = [v.range for v in self.range_vars]
        nr = len(ranges)
        rts = list(self.rt_vars)

        def bounds(v: Var) -> Interval:
            if v.kind == "d":
                return dims[v.index]
            if v.index < nr:
                return ranges[v.index]
            return rts[v.index - nr].feasible_values

        cons: dict[Expr, Interval] = {}
        empty = False
        pending = list(self.constraints.items())
        while pending:
            e, iv = pending.pop()
            e = simplify_expr(e, bounds)
            e, iv = _normalize_constraint(e, iv)
            v = e.as_var()
            if v is not None:
                if v.kind == "d":
                    dims[v.index] = dims[v.index].intersect(iv)
                    continue
                if v.index < nr:
                    ranges[v.index] = ranges[v.index].intersect(iv)
                    continue
                # a constraint on an rt var is not a clamp: keep it
            if e.is_constant():
                if not iv.contains(e.const):
                    empty = True
                    cons[e] = iv
                continue
            cons[e] = cons[e].intersect(iv) if e in cons else iv
        # a constraint on one dim or range variable tightens that variable's interval to the
        # first and last values that satisfy it (e.g. `(s0 - 1) mod 2 in [0, 0]`, s0 in [0, 1])
        for e, iv in cons.items():
            vs = set(e.variables())
            if len(vs) != 1:
                continue
            (v,) = vs
            if v.kind == "s" and v.index >= nr:
                continue
            table = dims if v.kind == "d" else ranges
            b = table[v.index]
            if b.is_empty() or b.upper - b.lower > _SCAN_LIMIT:
                continue
            point_d = [0] * len(dims)
            point_s = [0] * (nr + len(rts))
            target = point_d if v.kind == "d" else point_s

            def holds(x):
                target[v.index] = x
                return iv.contains(e.evaluate(point_d, point_s))

            lo = next((x for x in range(b.lower, b.upper + 1) if holds(x)), None)
            if lo is None:
                table[v.index] = Interval(b.lower, b.lower - 1)
                empty = True
                continue
            hi = next(x for x in range(b.upper, lo - 1, -1) if holds(x))
            table[v.index] = Interval(lo, hi)
        # drop constraints that always hold (against the tightened bounds)
        kept = {}
        for e, iv in cons.items():
            e2 = simplify_expr(e, bounds)
            if e2.is_constant() and not empty:
                if not iv.contains(e2.const):
                    empty = True
                    kept[e2] = iv
                continue
            if iv.contains(expr_range(e2, bounds)) and not empty:
                continue
            kept[e2] = kept[e2].intersect(iv) if e2 in kept else iv
        results = tuple(simplify_expr(r, bounds) for r in self.results)
        rts = [RTVar(v.feasible_values, v.value, tuple(simplify_expr(x, bounds) for x in v.map), v.name) for v in rts]
        return IndexingMap(
            results,
            tuple(DimVar(b) for b in dims),
            tuple(RangeVar(b) for b in ranges),
            tuple(rts),
            kept,
        )

    def _remove_unused_symbols(self) -> "IndexingMap":
        used: set[int] = set()
        for r in self.results:
            used.update(v.index for v in r.variables() if v.kind == "s")
        for e in self.constraints:
            used.update(v.index for v in e.variables() if v.kind == "s")
        for rv in self.rt_vars:
            for x in rv.map:
                used.update(v.index for v in x.variables() if v.kind == "s")
        nr = len(self.range_vars)
        n = self.num_symbols
        if len(used) == n:
            return self
        if any(self.range_vars[j].range.is_empty() for j in range(nr) if j not in used):
            return self  # an unused empty range still makes the map empty: keep it visible
        keep = [j for j in range(n) if j in used]
        renum = {old: new for new, old in enumerate(keep)}
        syms = [sym(renum[j]) if j in renum else const(0) for j in range(n)]
        return IndexingMap(
            tuple(r.substitute(None, syms) for r in self.results),
            self.dim_vars,
            tuple(self.range_vars[j] for j in keep if j < nr),
            tuple(
                RTVar(v.feasible_values, v.value, tuple(x.substitute(None, syms) for x in v.map), v.name)
                for j, v in enumerate(self.rt_vars)
                if nr + j in renum
            ),
            {e.substitute(None, syms): iv for e, iv in self.constraints.items()},
        )

    # -- evaluation (tests, brute-force checks)
    def image(self, point: Sequence[int], rt_values: Sequence[int] = ()) -> set[tuple[int, ...]]:
        """The set of indices the map denotes at dim point ``point`` with rt vars bound to
        ``rt_values`` (already clamped, or they are clamped here). Empty outside the dim domain."""
        if any(not v.bounds.contains(x) for v, x in zip(self.dim_vars, point)):
            return set()
        rts = [min(max(x, v.feasible_values.lower), v.feasible_values.upper) for v, x in zip(self.rt_vars, rt_values)]
        out = set()
        ranges = [range(v.range.lower, v.range.upper + 1) for v in self.range_vars]
        for s in itertools.product(*ranges):
            syms = list(s) + rts
            if all(iv.contains(e.evaluate(point, syms)) for e, iv in self.constraints.items()):
                out.add(tuple(r.evaluate(point, syms) for r in self.results))
        return out

    # -- printing
    def to_string(self) -> str:
        """The text form of https://openxla.org/xla/indexing: the affine map, ``domain:``, one line per
        variable and constraint (rt vars with an ``hlo:`` line naming the value and their own map)."""
        with _context():
            lines = [str(self.affine_map), "domain:"]
            for i, v in enumerate(self.dim_vars):
                lines.append(f"d{i} in {v.bounds}")
            for j, v in enumerate(self.range_vars):
                lines.append(f"s{j} in {v.range}")
            nr = len(self.range_vars)
            for j, v in enumerate(self.rt_vars):
                lines.append(f"s{nr + j} in {v.feasible_values}")
                lines.append(f"  hlo: {v.name}")
                uses_syms = any(x.kind == "s" for e in v.map for x in e.variables())
                rt_map = ir.AffineMap.get(self.num_dims, self.num_symbols if uses_syms else 0, [e.to_affine() for e in v.map])
                lines.append(f"  {rt_map}")
            for e, iv in sorted(self.constraints.items(), key=lambda t: str(t[0])):
                lines.append(f"{e} in {iv}")
            if self.is_known_empty():
                lines.append("is_known_empty: true")
        return "\n".join(lines) + "\n"

    __str__ = to_string


def _interval(b) -> Interval:
    return b if isinstance(b, Interval) else Interval(int(b[0]), int(b[1]))


def _normalize_constraint(e: Expr, iv: Interval) -> tuple[Expr, Interval]:
    """Move constants and common factors into the interval; unwrap ``e floordiv c``."""
    while True:
        if e.const:
            iv = Interval(iv.lower - e.const, iv.upper - e.const)
            e = Expr(e.terms)
        if not e.terms:
            return e, iv
        g = 0
        for _, k in e.terms:
            g = math.gcd(g, k)
        if e.terms[0][1] < 0:
            g = -g
        if g != 1:
            if g > 0:
                iv = Interval(-((-iv.lower) // g), iv.upper // g)
            else:
                iv = Interval(-((-iv.upper) // g), iv.lower // g)
            e = Expr(((a, k // g) for a, k in e.terms))
            continue
        a = e.single_atom()
        if isinstance(a, Div) and a.op == "floordiv":
            e = a.lhs
            iv = Interval(iv.lower * a.rhs, iv.upper * a.rhs + a.rhs - 1)
            continue
        return e, iv
