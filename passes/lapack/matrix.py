"""Matrix helpers shared by the linear-algebra expansions of :mod:`hlokit.passes.lapack`.

Every helper writes StableHLO on an :class:`~hlokit.passes.builder.Emitter` and works on batches: the last
two dimensions of a value are the matrix (the last one of a vector), the leading ones the batch. They are the
building blocks of the algorithms, with no algorithm of their own: element access by one-hot ``iota`` masks
and ``reduce`` (:func:`pick_entry`, :func:`diagonal_of`) or ``dynamic_slice`` (:func:`column_of`,
:func:`row_of`, :func:`entry_at`), complex helpers (:func:`conj`, :func:`adjoint`, :func:`magnitude`,
:func:`abs2`), scaled norms (:func:`hypot`, LAPACK ``?lapy2``), static reshaping (:func:`slice_dim`,
:func:`pad_dim`, :func:`shift_down`, :func:`reverse`), the ``dot_general`` of XLA's expanders (:func:`dot`,
precision ``HIGHEST``) and :func:`loop` (unrolled or a ``stablehlo.while``). Op names and semantics: the
StableHLO specification (https://openxla.org/stablehlo/spec).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from hlokit.dtypes import ELEMENT_TYPES
from hlokit.passes.builder import COMPLEX_TYPES, Emitter, Precision, V

__all__ = [
    "HIGHEST",
    "COMPUTE_TYPES", "UNROLL_LIMIT", "reduce_with", "splat", "real_type", "finfo", "conj", "to_elem",
    "magnitude", "abs2", "has_nan", "hypot", "any_true", "entry_at", "with_entry", "pick_entry",
    "diagonal_of", "diagonal_slice", "subdiagonal_mask", "subdiagonal_of", "superdiagonal_of", "identity_matrix",
    "transpose_minor", "adjoint", "slice_dim", "pad_dim", "shift_down", "shift_up", "column_of", "row_of",
    "with_column", "dot", "loop", "reverse",
]


#: Element type -> the type the expansion computes in (narrow floats are widened to f32).
COMPUTE_TYPES = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64",
                 "complex<f32>": "complex<f32>", "complex<f64>": "complex<f64>"}


#: Matrices of at most this many rows are unrolled; larger ones become a ``stablehlo.while``. Unrolled bodies
#: ran no faster than the loop on XLA CPU and compiled slower (``docs/lapack.md``), so only one- and two-step
#: loops are unrolled.
UNROLL_LIMIT = 2


def reduce_with(e: Emitter, x: V, dims: int | Sequence[int], init, op: str) -> V:
    """``reduce`` of ``x`` over ``dims`` (one dimension or several) with the binary ``stablehlo.<op>`` body and
    a 0-d ``init``."""
    dims = [dims] if isinstance(dims, int) else list(dims)
    (r,) = e.reduce([x], [e.scalar(init, x.t)], dims, lambda acc, v: e.elementwise(op, acc, v))
    return r


def splat(e: Emitter, value, t: str, shape) -> V:
    """A splat constant ``value`` of element type ``t`` and static ``shape``."""
    return e.const(value, t=t, shape=shape)


def real_type(t: str) -> str:
    """The real element type of ``t`` (``complex<f32>`` -> ``f32``; a real type itself)."""
    return t[len("complex<"):-1] if t in COMPLEX_TYPES else t


def finfo(t: str) -> np.finfo:
    """numpy's float limits of the real element type ``t`` (``"f32"`` or ``"f64"``)."""
    return np.finfo(ELEMENT_TYPES[t].dtype)


def conj(e: Emitter, z: V) -> V:
    """Complex conjugate (the value itself for a real type)."""
    return e.complex(e.real(z), -e.imag(z)) if z.t in COMPLEX_TYPES else z


def to_elem(e: Emitter, x: V, t: str) -> V:
    """Real ``x`` as element type ``t`` (imaginary part 0 for complex ``t``)."""
    return e.complex(x, splat(e, 0.0, x.t, x.shape)) if t in COMPLEX_TYPES else x


def magnitude(e: Emitter, x: V) -> V:
    """``|x|`` in the real element type (``stablehlo.abs`` of a complex value is real)."""
    return e.abs(x)


def abs2(e: Emitter, x: V) -> V:
    """``|x|^2`` in the real element type."""
    if x.t in COMPLEX_TYPES:
        re_, im = e.real(x), e.imag(x)
        return re_ * re_ + im * im
    return x * x


def has_nan(e: Emitter, x: V) -> V:
    """i1 ``[*b]``: the matrix ``x`` ``[*b, m, n]`` has a NaN entry."""
    r = len(x.shape) - 2
    return reduce_with(e, e.compare("NE", x, x), [r, r + 1], False, "or")


def hypot(e: Emitter, x: V, y: V) -> V:
    """``sqrt(x^2 + y^2)`` of real ``x``, ``y`` (same shape) computed on both divided by ``max(|x|, |y|)``, so
    neither overflows nor underflows (LAPACK ``?lapy2``); 0 where both are 0."""
    m = e.maximum(e.abs(x), e.abs(y))
    m = e.select(e.compare("EQ", m, splat(e, 0, m.t, m.shape), "FLOAT"), splat(e, 1, m.t, m.shape), m)
    return e.sqrt((x / m) * (x / m) + (y / m) * (y / m)) * m


def any_true(e: Emitter, p: V) -> V:
    """0-d i1: ``p`` (i1, any shape) has a true element (``reduce`` with ``or``)."""
    dims = list(range(len(p.shape)))
    return reduce_with(e, p, dims, False, "or") if dims else p


def entry_at(e: Emitter, v: V, i: V) -> V:
    """``v[..., i]`` of a ``[*b, n]`` value at a 0-d i32 ``i``, as ``[*b]`` (``dynamic_slice``)."""
    batch = v.shape[:-1]
    zero = e.scalar(0, "i32")
    return e.reshape(e.dynamic_slice(v, [zero] * len(batch) + [i], batch + [1]), batch)


def with_entry(e: Emitter, v: V, i: V, x: V) -> V:
    """``v`` (``[*b, n]``) with ``v[..., i] = x`` (``x`` ``[*b]``; ``dynamic_update_slice``)."""
    batch = v.shape[:-1]
    zero = e.scalar(0, "i32")
    return e.dynamic_update_slice(v, e.reshape(x, batch + [1]), [zero] * len(batch) + [i])


def pick_entry(e: Emitter, v: V, i: V) -> V:
    """``v[..., i]`` of ``v`` ``[*b, n]`` at an i32 ``i`` (0-d, or ``[*b]``: one index per batch element) as
    ``[*b]``; 0 where ``i`` is out of range (a one-hot mask and a ``reduce`` add, unlike ``dynamic_slice``,
    which clamps)."""
    shape = v.shape
    r = len(shape) - 1
    at = e.compare("EQ", e.iota(shape, r, "i32"), e.broadcast_in_dim(i, shape, list(range(len(i.shape)))), "SIGNED")
    return e.reduce_sum(e.select(at, v, splat(e, 0, v.t, shape)), [r])


def diagonal_of(e: Emitter, x: V) -> V:
    """The diagonal ``[*b, k]`` of a ``[*b, k, k]`` value (an iota mask and a ``reduce`` add: a ``-0.0`` on
    the diagonal reads as ``+0.0``; :func:`diagonal_slice` reads ``k`` elements and keeps it)."""
    shape = x.shape
    r = len(shape) - 2
    eye = e.compare("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    return e.reduce_sum(e.select(eye, x, splat(e, 0, x.t, shape)), [r])


def diagonal_slice(e: Emitter, x: V) -> V:
    """The diagonal ``[*b, n]`` of ``x`` ``[*b, n, n]``: a reshape to ``[*b, n * n]`` and a slice of stride
    ``n + 1`` (reads ``n`` elements, not ``n^2``; the entries exactly as they are)."""
    r = len(x.shape) - 2
    batch, n = x.shape[:r], x.shape[-1]
    flat = e.reshape(x, batch + [n * n])
    return e.slice(flat, [0] * (r + 1), batch + [n * n], [1] * r + [n + 1])


def subdiagonal_mask(e: Emitter, shape) -> V:
    """i1 ``[*b, n, n]``: true on the first subdiagonal (row = column + 1)."""
    r = len(shape) - 2
    return e.compare("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32") + 1, "SIGNED")


def subdiagonal_of(e: Emitter, h: V) -> V:
    """``s`` ``[*b, n]`` with ``s[i] = h[i, i-1]`` (``s[0] = 0``)."""
    shape = h.shape
    r = len(shape) - 2
    return e.reduce_sum(e.select(subdiagonal_mask(e, shape), h, splat(e, 0, h.t, shape)), [r + 1])


def superdiagonal_of(e: Emitter, h: V) -> V:
    """``s`` ``[*b, n]`` with ``s[i] = h[i, i+1]`` (``s[n-1] = 0``)."""
    shape = h.shape
    r = len(shape) - 2
    above = e.compare("EQ", e.iota(shape, r + 1, "i32"), e.iota(shape, r, "i32") + 1, "SIGNED")
    return e.reduce_sum(e.select(above, h, splat(e, 0, h.t, shape)), [r + 1])


def identity_matrix(e: Emitter, shape, t: str) -> V:
    """Ones on the diagonal of the trailing two dimensions of ``shape``, zeros elsewhere."""
    r = len(shape) - 2
    eye = e.compare("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    return e.select(eye, splat(e, 1, t, shape), splat(e, 0, t, shape))


def transpose_minor(e: Emitter, x: V) -> V:
    """Swap the two minor (matrix) dimensions of ``x``."""
    r = len(x.shape)
    return e.transpose(x, list(range(r - 2)) + [r - 1, r - 2])


def adjoint(e: Emitter, x: V) -> V:
    """Conjugate transpose of the trailing two dimensions."""
    return conj(e, transpose_minor(e, x))


def slice_dim(e: Emitter, x: V, dim: int, lo: int, hi: int) -> V:
    """``x[..., lo:hi, ...]`` along ``dim`` (``stablehlo.slice``)."""
    shape = x.shape
    start, limit = [0] * len(shape), list(shape)
    start[dim], limit[dim] = lo, hi
    return e.slice(x, start, limit)


def pad_dim(e: Emitter, x: V, dim: int, extra: int) -> V:
    """``x`` with ``extra`` zero entries appended along ``dim`` (``concatenate``)."""
    if extra == 0:
        return x
    shape = x.shape
    shape[dim] = extra
    return e.concatenate([x, splat(e, 0, x.t, shape)], dim)


def shift_down(e: Emitter, x: V) -> V:
    """``x`` moved one place along its last dimension: ``y[..., i] = x[..., i-1]``, ``y[..., 0] = 0``."""
    r = len(x.shape) - 1
    return e.concatenate([splat(e, 0, x.t, x.shape[:r] + [1]), slice_dim(e, x, r, 0, x.shape[r] - 1)], r)


def shift_up(e: Emitter, x: V) -> V:
    """``x`` moved back one place along its last dimension: ``y[..., i] = x[..., i+1]``, ``y[..., n-1] = 0``."""
    r = len(x.shape) - 1
    return pad_dim(e, slice_dim(e, x, r, 1, x.shape[r]), r, 1)


def column_of(e: Emitter, x: V, k: V) -> V:
    """Column ``k`` (0-d i32) of ``x`` ``[*b, m, n]`` as ``[*b, m]`` (``dynamic_slice``)."""
    shape = x.shape
    r = len(shape) - 2
    zero = e.scalar(0, "i32")
    return e.reshape(e.dynamic_slice(x, [zero] * (r + 1) + [k], shape[:r] + [shape[r], 1]), shape[:r] + [shape[r]])


def row_of(e: Emitter, x: V, k: V) -> V:
    """Row ``k`` (0-d i32) of ``x`` ``[*b, m, n]`` as ``[*b, n]`` (``dynamic_slice``)."""
    shape = x.shape
    r = len(shape) - 2
    zero = e.scalar(0, "i32")
    return e.reshape(e.dynamic_slice(x, [zero] * r + [k, zero], shape[:r] + [1, shape[r + 1]]),
                     shape[:r] + [shape[r + 1]])


def with_column(e: Emitter, x: V, k: V, col: V) -> V:
    """``x`` ``[*b, m, n]`` with column ``k`` replaced by ``col`` ``[*b, m]`` (an iota mask)."""
    shape = x.shape
    r = len(shape) - 2
    cols = e.iota(shape, r + 1, "i32")
    here = e.compare("EQ", cols, e.broadcast_in_dim(k, shape, []), "SIGNED")
    return e.select(here, e.broadcast_in_dim(col, shape, list(range(r)) + [r]), x)


def put_column(e: Emitter, x: V, k: V, col: V) -> V:
    """``x`` ``[*b, m, n]`` with column ``k`` (0-d i32) replaced by ``col`` ``[*b, m]`` (``dynamic_update_slice``:
    XLA updates a loop-carried ``x`` in place, where :func:`with_column`'s mask reads and writes all of it)."""
    shape = x.shape
    r = len(shape) - 2
    zero = e.scalar(0, "i32")
    return e.dynamic_update_slice(x, e.reshape(col, shape[:r + 1] + [1]), [zero] * (r + 1) + [k])


def reverse(e: Emitter, x: V, dims: list[int]) -> V:
    """``x`` reversed along ``dims`` (``stablehlo.reverse``; negative dims count from the end)."""
    r = len(x.shape)
    return e.reverse(x, [d % r for d in dims])


#: ``precision_config`` of every ``dot_general`` the linear-algebra builders emit: full precision on both
#: operands (XLA's own expanders ask the same). ``DEFAULT`` lets a TPU round f32 operands to bf16 and a
#: GPU use TF32 (10-bit mantissas), which the algorithms' accuracy bounds do not allow.
HIGHEST = (Precision.HIGHEST, Precision.HIGHEST)


def dot(e: Emitter, lhs: V, rhs: V, batch: int, lhs_contract: int, rhs_contract: int) -> V:
    """``dot_general`` of ``lhs`` and ``rhs`` sharing their ``batch`` leading dimensions, contracting
    ``lhs_contract`` with ``rhs_contract``; precision ``HIGHEST`` on both operands (what XLA's
    expanders ask, so that TPUs do not round f32 operands to bf16)."""
    bd = list(range(batch))
    return e.dot_general(lhs, rhs, bd, bd, [lhs_contract], [rhs_contract], precision=HIGHEST)


def loop(e: Emitter, count: int, carry: list[V], step: Callable[..., list[V]], unroll: bool) -> list[V]:
    """Run ``step(i, *carry) -> carry`` for ``i`` = 0 .. ``count - 1`` (``i`` a 0-d i32 value): unrolled
    with constant indices when ``unroll``, else as a ``stablehlo.while`` carrying ``(i, *carry)``."""
    if unroll:
        for i in range(count):
            carry = step(e.scalar(i, "i32"), *carry)
        return carry
    out = e.while_(
        [e.scalar(0, "i32"), *carry],
        lambda i, *_: e.compare("LT", i, e.scalar(count, "i32"), "SIGNED"),
        lambda i, *c: [i + e.scalar(1, "i32"), *step(i, *c)],
    )
    return out[1:]
