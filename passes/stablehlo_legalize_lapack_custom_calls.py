"""``--stablehlo-legalize-lapack-custom-calls``: jaxlib's CPU LAPACK custom calls -> portable StableHLO.

JAX lowers ``jnp.linalg`` on CPU to ``stablehlo.custom_call @lapack_<t><routine>_ffi`` (``t`` in
``s d c z`` for f32, f64, complex<f32>, complex<f64>), which run only on XLA CPU with jaxlib's kernels.
This pass rewrites every one JAX emits for ``jnp.linalg`` / ``jax.scipy.linalg`` (``docs/lapack.md`` lists
every target, its operands, results and ``mhlo.backend_config`` fields):

* ``potrf`` (Cholesky, ``uplo`` 'L' or 'U') -> ``stablehlo.cholesky`` (StableHLO spec, "cholesky"); the
  triangle LAPACK does not write keeps the input's values, as in LAPACK ``?potrf``; the ``info`` result
  is 0 where the factor's diagonal is positive and otherwise the 1-based index of the first diagonal
  entry that is not (NaN included): XLA fills a non-positive-definite input's factor with NaN, so
  ``info`` is non-zero exactly where LAPACK reports failure (its value may differ from LAPACK's order of
  the failing minor; JAX only tests ``info == 0``).
* ``trsm`` (triangular solve with ``side``, ``uplo``, ``trans_x`` 'N'/'T'/'C', ``diag`` 'U'/'N', alpha
  1) -> ``stablehlo.triangular_solve`` (StableHLO spec, "triangular_solve").
* ``getrf`` (LU with partial pivoting: factors, 1-based pivots, ``info``) -> a ``stablehlo.while`` over
  the columns (right-looking LAPACK ``?getf2``; the numpy mirror is
  :func:`hlokit.passes.lapack.reference.getrf`): the same pivots as LAPACK (first maximum of ``|x|``,
  ``|re| + |im|`` for complex, as ``i?amax``), ``info`` = 1-based index of the first exactly zero pivot.
* ``geqrf`` (Householder QR, LAPACK's ``?larfg`` conventions, so the same R signs and phases) and
  ``orgqr`` / ``ungqr`` (backward accumulation of the reflectors) -> ``stablehlo.while`` loops
  (:func:`build_geqrf`, :func:`build_orgqr`; unblocked ``?geqr2`` / ``?org2r``).
* ``syevd`` / ``heevd`` -> parallel cyclic two-sided Jacobi (Golub & Van Loan, *Matrix Computations*,
  4th ed., §8.5; round-robin ordering), eigenvalues sorted ascending with their vectors
  (:func:`build_syevd`).
* ``gesdd`` and ``gesvd`` (modes A, S, N; the same operands and results: JAX emits ``gesvd`` for
  ``lax.linalg.svd(algorithm=SvdAlgorithm.QR)``) -> parallel one-sided (Hestenes) Jacobi on the columns
  (Golub & Van Loan §8.6.3), ``u`` re-orthonormalised / completed by the QR loops (:func:`build_gesdd`).
* ``gehrd`` (``jax.lax.linalg.hessenberg``) and ``sytrd`` / ``hetrd`` (``jax.lax.linalg.tridiagonal``) ->
  the unblocked Householder reductions ``?gehd2`` / ``?sytd2`` / ``?hetd2`` as ``stablehlo.while`` loops
  (:func:`build_gehrd`, :func:`build_sytrd`; the same reflectors and ``tau`` as LAPACK).
* ``geqp3`` (QR with column pivoting: ``jax.lax.linalg.qr(pivoting=True)``) -> LAPACK's column moves and
  the unblocked ``?laqp2`` loop with its partial-norm downdating (:func:`build_geqp3`): the same pivots.
* ``geev`` (``jnp.linalg.eig`` / ``eigvals``, ``lax.linalg.eig``) -> the complex Schur form by Hessenberg
  reduction and ``zlahqr``'s single-shift QR steps (the lowest unreduced block, Wilkinson's and exceptional
  shifts, reflectors of order 2, deflation to exact zeros by ``zlahqr``'s test), eigenvectors by ``?trevc``'s
  back substitution, normalised as LAPACK's (:func:`build_geev`); the eigenvalue order is that of the Schur
  form's diagonal: LAPACK's for the random matrices tested, though not guaranteed (rounding may deflate an
  eigenvalue one step earlier or later).
  ``cgees`` / ``zgees`` (``jax.scipy.linalg.schur`` of a complex matrix, or ``output="complex"``) -> that
  complex Schur form (:func:`build_gees`).
* ``sgees`` / ``dgees`` (``jax.scipy.linalg.schur`` of a real matrix) -> the real Schur form by Francis
  double-shift QR steps and ``?lanv2``'s standardised 2x2 blocks (:func:`build_gees_real`).
* ``gtsv`` (``jax.lax.linalg.tridiagonal_solve``: three ``[*batch, n]`` diagonals and ``b``) -> Gaussian
  elimination with LAPACK's partial pivoting and back substitution, two ``stablehlo.while`` loops over the
  rows (:func:`build_gtsv`): the same row swaps, factors and ``info`` as LAPACK ``?gtsv``.

Operand and result layouts of the custom calls are physical (column-major, as LAPACK wants): the
logical tensors are the same, so layouts need no rewrite. Batch dimensions lead (``num_batch_dims`` in
``mhlo.frontend_attributes`` equals rank - 2) and map to the StableHLO ops' batch dimensions.

The expansions are written on hlokit's IR builder (:mod:`hlokit.passes.builder`): one template
function per signature (routine, operand and result types, ``backend_config``) is built with an
``Emitter``, parsed once per context and cloned in place of each call (``instantiate``). Every call is
checked and its template built before the first rewrite, so a refused call leaves the module unchanged.

The numpy mirrors of the loops are in :mod:`hlokit.passes.lapack.reference`. Other ``lapack_*`` targets
(none that jax emits on CPU) are left as they are; with ``strict=true`` the pass refuses them with a located
error before changing anything.
"""

from __future__ import annotations

import math
import re
from typing import Callable, Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.passes.builder import (
    COMPLEX_TYPES,
    V,
    Emitter,
    TemplateCache,
    UnsupportedError,
    instantiate_all,
    shape_prefix,
)
from hlokit.passes.registry import Option, Pass, fail, register_pass

__all__ = [
    "LAPACK_TARGET",
    "LEGALIZED_ROUTINES",
    "build_gees_real",
    "PIPELINE",
    "StablehloLegalizeLapackCustomCalls",
    "backend_config",
    "build_cholesky",
    "build_getrf",
    "build_triangular_solve",
    "build_geqrf",
    "build_orgqr",
    "build_syevd",
    "build_gesdd",
    "build_geev",
    "build_gees",
    "build_gtsv",
    "build_gehrd",
    "build_geqp3",
    "build_sytrd",
    "count_lapack_calls",
    "lapack_routines",
    "VECTORS_UP_TO_PHASE",
    "EIGENVALUES_UNORDERED",
    "lapack_routine",
]

#: ``lapack_<type letter><routine>_ffi``: group 1 is the type letter, group 2 the routine.
LAPACK_TARGET = re.compile(r"^lapack_([sdcz])([a-z][a-z0-9]*)_ffi$")


def lapack_routine(op) -> tuple[str, str] | None:
    """``(type letter, routine)`` of a ``lapack_*_ffi`` custom call (e.g. ``("s", "potrf")``), else None."""
    m = LAPACK_TARGET.match(attributes.str_value(op, "call_target_name", ""))
    return (m.group(1), m.group(2)) if m else None


#: The pass as a pipeline on a module (what ``hlokit-run`` and the interpreter apply automatically).
PIPELINE = "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))"


#: Routines whose vectors are unique only up to a unit factor each (eigenvectors, singular vectors): their
#: expansions compute them by Jacobi rotations (geev, gees: QR steps), LAPACK by other algorithms, so a vector's
#: sign (real) or phase (complex) may differ from LAPACK's while the values agree (geev, gees: also their
#: order).
VECTORS_UP_TO_PHASE = frozenset({"syevd", "heevd", "gesdd", "gesvd", "geev", "gees"})
#: Routines whose eigenvalues come in the order of the expansion's Schur form, not necessarily LAPACK's.
EIGENVALUES_UNORDERED = frozenset({"geev", "gees"})


def lapack_routines(module: ir.Module) -> list[str]:
    """The routine of every ``lapack_*_ffi`` custom call in ``module`` (legalizable or not), in program order
    (e.g. ``["getrf", "trsm", "trsm"]``)."""
    found = []

    def visit(o):
        if o.name == "stablehlo.custom_call":
            routine = lapack_routine(o)
            if routine is not None:
                found.append(routine[1])
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def count_lapack_calls(module: ir.Module) -> int:
    """The number of ``lapack_*_ffi`` custom calls in ``module`` (legalizable or not)."""
    return len(lapack_routines(module))


def backend_config(op) -> dict[str, str]:
    """The ``mhlo.backend_config`` dictionary of a LAPACK call as characters (``{"uplo": "L", ...}``).

    jaxlib stores each flag as a ``ui8`` ASCII code (76 = 'L', 85 = 'U', 78 = 'N', 84 = 'T', 67 = 'C',
    82 = 'R', 86 = 'V', 65 = 'A', 83 = 'S'). Raises :class:`~hlokit.attributes.AttributeReadError` when
    the attribute is not a dictionary of integers.
    """
    raw = attributes.get(op, "mhlo.backend_config", None)
    if raw is None:
        return {}
    if not isinstance(raw, ir.DictAttr):
        raise attributes.AttributeReadError(f"'mhlo.backend_config' of {op.name} is not a dictionary")
    out = {}
    for named in raw:
        if not isinstance(named.attr, ir.IntegerAttr):
            raise attributes.AttributeReadError(f"'mhlo.backend_config.{named.name}' is not an integer")
        out[named.name] = chr(ir.IntegerAttr(named.attr).value)
    return out


# -- the expansions, written on hlokit's IR builder (passes/builder.py) --------------------------------


def _reduce(e: Emitter, x: V, dims: int | Sequence[int], init, op: str) -> V:
    """``reduce`` of ``x`` over ``dims`` (one dimension or several) with the binary ``stablehlo.<op>`` body and
    a 0-d ``init``."""
    dims = [dims] if isinstance(dims, int) else list(dims)
    (r,) = e.reduce([x], [e.scalar(init, x.t)], dims, lambda acc, v: e.bin(op, acc, v))
    return r


def _splat(e: Emitter, value, t: str, shape) -> V:
    """A splat constant ``value`` of element type ``t`` and static ``shape``."""
    return e.const(value, t=t, s=shape_prefix(shape))


def build_cholesky(e: Emitter, a: V, lower: bool) -> tuple[V, V]:
    """``potrf`` of ``a`` (``[*batch, n, n]``, f32/f64/complex): ``(factor, info)``.

    ``factor`` is ``stablehlo.cholesky`` (StableHLO spec, "cholesky") in the ``lower``/upper triangle
    and ``a`` in the other one (what LAPACK leaves there); ``info`` (i32 ``[*batch]``) is 0 when every
    diagonal entry of the factor is > 0, else the 1-based index of the first that is not (NaN included).
    """
    shape = a.shape
    rank, n = len(shape), shape[-1]
    (chol,) = e.op("stablehlo.cholesky", [a], [(a.s, a.t)], f"lower = {'true' if lower else 'false'}")
    rows = e.iota(shape, rank - 2, "i32")
    cols = e.iota(shape, rank - 1, "i32")
    factor = e.select(e.cmp("GE" if lower else "LE", rows, cols, "SIGNED"), chol, a)
    real = e.real(chol) if a.t in COMPLEX_TYPES else chol
    on_diagonal = e.cmp("EQ", rows, cols, "SIGNED")
    positive = e.cmp("GT", real, e.const(0.0, real), "FLOAT")  # false for NaN
    bad = e.land(on_diagonal, e.lnot(positive))
    big = n + 1
    index = e.select(bad, cols + 1, e.const(big, cols))
    first = _reduce(e, _reduce(e, index, rank - 1, big, "minimum"), rank - 2, big, "minimum")
    none = e.cmp("EQ", first, e.const(big, first), "SIGNED")
    info = e.select(none, e.const(0, first), first)
    return factor, info


_TRANSPOSE = {"N": "NO_TRANSPOSE", "T": "TRANSPOSE", "C": "ADJOINT"}


def build_triangular_solve(e: Emitter, a: V, b: V, side: str, uplo: str, trans: str, diag: str) -> V:
    """``trsm`` with alpha 1: ``x`` with ``op(a) x = b`` (side 'L') or ``x op(a) = b`` (side 'R').

    ``op`` is identity, transpose or conjugate transpose for ``trans`` 'N', 'T', 'C'; ``a`` is lower
    (``uplo`` 'L') or upper triangular, with an implicit unit diagonal for ``diag`` 'U'. One
    ``stablehlo.triangular_solve`` (StableHLO spec, "triangular_solve"); ``x`` has ``b``'s type.
    """
    def flag(v: bool) -> str:
        return "true" if v else "false"

    attrs = (f"left_side = {flag(side == 'L')}, lower = {flag(uplo == 'L')}, "
             f"unit_diagonal = {flag(diag == 'U')}, transpose_a = #stablehlo<transpose {_TRANSPOSE[trans]}>")
    (x,) = e.op("stablehlo.triangular_solve", [a, b], [(b.s, b.t)], attrs)
    return x


# -- getrf: LU with partial pivoting as a stablehlo.while (passes/lapack/reference.py: getrf) ----------


def _getrf_body(e: Emitter, k: V, lu: V, ipiv: V, info: V) -> list[V]:
    """One step of right-looking LU (``?getf2``) at column ``k``; returns the next loop carry."""
    shape = lu.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    elem = lu.t
    is_complex = elem in COMPLEX_TYPES
    real = elem[len("complex<"):-1] if is_complex else elem
    zero_i = e.scalar(0, "i32")
    bdims = list(range(r))

    def at(value: V, full) -> V:  # broadcast a scalar i32 (k) to ``full``
        return e.broadcast_in_dim(value, full, [])

    col = e.reshape(e.dynamic_slice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1]), batch + [m])
    mag = e.abs(e.real(col)) + e.abs(e.imag(col)) if is_complex else e.abs(col)
    rows_m = e.iota(batch + [m], r, "i32")
    mag = e.select(e.cmp("GE", rows_m, at(k, batch + [m]), "SIGNED"), mag, _splat(e, -1.0, real, batch + [m]))
    best = _reduce(e, mag, r, -math.inf, "maximum")
    is_best = e.cmp("EQ", mag, e.broadcast_in_dim(best, batch + [m], bdims), "FLOAT")
    p = _reduce(e, e.select(is_best, rows_m, _splat(e, m, "i32", batch + [m])), r, m, "minimum")
    p = e.select(e.cmp("EQ", p, _splat(e, m, "i32", batch), "SIGNED"), at(k, batch), p)
    ipiv = e.dynamic_update_slice(ipiv, e.reshape(p + _splat(e, 1, "i32", batch), batch + [1]), [zero_i] * r + [k])
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    full_dims = list(range(r + 2))
    row_k = e.broadcast_in_dim(e.dynamic_slice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    onehot_p = e.cmp("EQ", rows, e.broadcast_in_dim(p, shape, bdims), "SIGNED")
    row_p = _reduce(e, e.select(onehot_p, lu, _splat(e, 0, elem, shape)), r, 0, "add")
    row_p = e.broadcast_in_dim(row_p, shape, bdims + [r + 1])
    is_row_k = e.cmp("EQ", rows, at(k, shape), "SIGNED")
    lu = e.select(is_row_k, row_p, e.select(onehot_p, row_k, lu))
    pivot = e.dynamic_slice(lu, [zero_i] * r + [k, k], batch + [1, 1])
    zero = e.cmp("EQ", pivot, _splat(e, 0, elem, batch + [1, 1]), "FLOAT")
    first = e.land(e.cmp("EQ", info, _splat(e, 0, "i32", batch), "SIGNED"), e.reshape(zero, batch))
    info = e.select(first, at(k + 1, batch), info)
    safe = e.select(zero, _splat(e, 1, elem, batch + [1, 1]), pivot)
    col = e.dynamic_slice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1])
    below = e.cmp("GT", e.iota(batch + [m, 1], r, "i32"), at(k, batch + [m, 1]), "SIGNED")
    scale = e.land(below, e.broadcast_in_dim(e.lnot(zero), batch + [m, 1], full_dims))
    quotient = col / e.broadcast_in_dim(safe, batch + [m, 1], full_dims)
    l_full = e.broadcast_in_dim(e.select(scale, quotient, col), shape, full_dims)
    lu = e.select(e.cmp("EQ", cols, at(k, shape), "SIGNED"), l_full, lu)
    urow = e.broadcast_in_dim(e.dynamic_slice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    update = lu - l_full * urow
    trailing = e.land(e.cmp("GT", rows, at(k, shape), "SIGNED"), e.cmp("GT", cols, at(k, shape), "SIGNED"))
    lu = e.select(trailing, update, lu)
    return [k + 1, lu, ipiv, info]


def build_getrf(e: Emitter, a: V) -> list[V]:
    """``getrf`` of ``a`` (``[*batch, m, n]``): ``[lu, ipiv (1-based, i32 [*batch, min(m, n)]), info]``.

    A ``stablehlo.while`` over ``k`` in ``[0, min(m, n))`` carrying ``(k, lu, ipiv, info)``; each step is
    :func:`_getrf_body` (pivot = first maximum of ``|x|`` (``|re| + |im|`` for complex) on or below the
    diagonal, as LAPACK's ``i?amax``; row swap by one-hot masks; ``info`` = 1-based first zero pivot).
    """
    shape = a.shape
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    kmax = min(m, n)
    init = [e.scalar(0, "i32"), a, _splat(e, 0, "i32", batch + [kmax]), _splat(e, 0, "i32", batch)]
    out = e.while_loop(
        init,
        lambda k, *_: e.cmp("LT", k, e.scalar(kmax, "i32"), "SIGNED"),
        lambda k, lu, ipiv, info: _getrf_body(e, k, lu, ipiv, info),
    )
    return out[1:]


def _entry(e: Emitter, v: V, i: V) -> V:
    """``v[..., i]`` of a ``[*b, n]`` value at a 0-d i32 ``i``, as ``[*b]`` (``dynamic_slice``)."""
    batch = v.shape[:-1]
    zero = e.scalar(0, "i32")
    return e.reshape(e.dynamic_slice(v, [zero] * len(batch) + [i], batch + [1]), batch)


def _put_entry(e: Emitter, v: V, i: V, x: V) -> V:
    """``v`` (``[*b, n]``) with ``v[..., i] = x`` (``x`` ``[*b]``; ``dynamic_update_slice``)."""
    batch = v.shape[:-1]
    zero = e.scalar(0, "i32")
    return e.dynamic_update_slice(v, e.reshape(x, batch + [1]), [zero] * len(batch) + [i])


# -- gtsv: tridiagonal solve, Gaussian elimination with partial pivoting -------------------------------


def build_gtsv(e: Emitter, dl: V, d: V, du: V, b: V) -> list[V]:
    """``gtsv`` as jaxlib calls it (``jax.lax.linalg.tridiagonal_solve``): ``dl``, ``d``, ``du``
    (``[*batch, n]``; the subdiagonal is ``dl[1:]``, the superdiagonal ``du[:n-1]``: ``dl[0]`` and
    ``du[n-1]`` are padding, passed through) and ``b`` (``[*batch, n, k]``). Returns ``[dl', d', du', x,
    info]`` as LAPACK ``?gtsv`` leaves them: ``d'`` the diagonal of ``U`` in ``P A = L U``, ``du'`` its first
    and ``dl'[1:n-1]`` its second superdiagonal, ``x`` the solution, ``info`` (i32 ``[*batch]``) 0 or the
    1-based index of the first zero pivot (then ``x`` holds infinities or NaNs; JAX replaces it by NaN).

    Elimination (a ``stablehlo.while`` over rows ``k < n - 1``): rows ``k`` and ``k + 1`` are swapped
    unless ``|d[k]| >= |dl[k+1]|`` (``|re| + |im|`` for complex), then row ``k + 1`` loses its multiple of
    row ``k`` (Golub & Van Loan, *Matrix Computations*, 4th ed., §4.3.6 and §3.4; LAPACK ``?gtsv``'s
    row order). Back substitution with the three diagonals of ``U`` (a second loop, ``k`` from ``n - 1``
    down). The numpy mirror is :func:`hlokit.passes.lapack.reference.gtsv`.
    """
    batch, n, k_rhs = b.shape[:-2], b.shape[-2], b.shape[-1]
    r = len(batch)
    bdims = list(range(r))
    zero_i = e.scalar(0, "i32")
    is_complex = d.t in COMPLEX_TYPES
    info = _splat(e, 0, "i32", batch)
    if n == 0:
        return [dl, d, du, b, info]

    def row(x: V, i: V) -> V:  # x[..., i, :] as [*batch, 1, k]
        return e.dynamic_slice(x, [zero_i] * r + [i, zero_i], batch + [1, k_rhs])

    def set_row(x: V, i: V, y: V) -> V:
        return e.dynamic_update_slice(x, y, [zero_i] * r + [i, zero_i])

    def wide(v: V) -> V:  # [*batch] -> [*batch, 1, k]
        return e.broadcast_in_dim(v, batch + [1, k_rhs], bdims)

    def mag(v: V) -> V:
        return e.abs(e.real(v)) + e.abs(e.imag(v)) if is_complex else e.abs(v)

    def at(i: V) -> V:  # a 0-d i32 broadcast over the batch
        return e.broadcast_in_dim(i, batch, [])

    def eliminate(k: V, dl_: V, d_: V, du_: V, x: V, info_: V) -> list[V]:
        k1 = k + e.scalar(1, "i32")
        inner = e.broadcast_in_dim(e.cmp("LT", k, e.scalar(n - 2, "i32"), "SIGNED"), batch, [])
        dk, dk1, sub = _entry(e, d_, k), _entry(e, d_, k1), _entry(e, dl_, k1)
        duk, duk1 = _entry(e, du_, k), _entry(e, du_, k1)
        bk, bk1 = row(x, k), row(x, k1)
        swap = e.lnot(e.cmp("GE", mag(dk), mag(sub), "FLOAT"))  # (a NaN swaps, as Fortran's .GE.)
        zero = _splat(e, 0, d.t, batch)
        singular = e.land(e.cmp("EQ", dk, zero, "FLOAT"), e.cmp("EQ", sub, zero, "FLOAT"))
        # no interchange: row k + 1 -= (sub / d[k]) row k
        m_keep = sub / e.select(singular, _splat(e, 1, d.t, batch), dk)
        d1_keep = dk1 - m_keep * duk
        b1_keep = bk1 - wide(m_keep) * bk
        dl2_keep = e.select(inner, zero, sub)
        # interchange rows k and k + 1, then eliminate
        m_swap = dk / sub
        d1_swap = duk - m_swap * dk1
        dl2_swap = e.select(inner, duk1, sub)
        du1_swap = e.select(inner, -(m_swap * duk1), duk1)
        b1_swap = bk - wide(m_swap) * bk1
        swap_rows = e.broadcast_in_dim(swap, batch + [1, k_rhs], bdims)
        d_ = _put_entry(e, _put_entry(e, d_, k, e.select(swap, sub, dk)), k1, e.select(swap, d1_swap, d1_keep))
        du_ = _put_entry(e, _put_entry(e, du_, k, e.select(swap, dk1, duk)), k1, e.select(swap, du1_swap, duk1))
        dl_ = _put_entry(e, dl_, k1, e.select(swap, dl2_swap, dl2_keep))
        x = set_row(set_row(x, k, e.select(swap_rows, bk1, bk)), k1, e.select(swap_rows, b1_swap, b1_keep))
        first = e.land(e.cmp("EQ", info_, _splat(e, 0, "i32", batch), "SIGNED"), e.land(e.lnot(swap), singular))
        info_ = e.select(first, at(k1), info_)
        return [k1, dl_, d_, du_, x, info_]

    carry = e.while_loop(
        [zero_i, dl, d, du, b, info],
        lambda k, *_: e.cmp("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
        eliminate,
    )
    _, dl, d, du, x, info = carry
    last = e.scalar(n - 1, "i32")
    first = e.land(e.cmp("EQ", info, _splat(e, 0, "i32", batch), "SIGNED"),
                   e.cmp("EQ", _entry(e, d, last), _splat(e, 0, d.t, batch), "FLOAT"))
    info = e.select(first, _splat(e, n, "i32", batch), info)

    def substitute(k: V, x_: V) -> list[V]:
        k1, k2 = k + e.scalar(1, "i32"), k + e.scalar(2, "i32")
        acc = row(x_, k)
        has1 = e.broadcast_in_dim(e.cmp("LE", k1, last, "SIGNED"), batch + [1, k_rhs], [])
        has2 = e.broadcast_in_dim(e.cmp("LE", k2, last, "SIGNED"), batch + [1, k_rhs], [])
        zeros = _splat(e, 0, d.t, batch + [1, k_rhs])
        # (a missing term is selected away, never multiplied by 0: an infinity must not become NaN)
        acc = acc - e.select(has1, wide(_entry(e, du, k)) * row(x_, k1), zeros)
        acc = acc - e.select(has2, wide(_entry(e, dl, k1)) * row(x_, k2), zeros)
        return [k - e.scalar(1, "i32"), set_row(x_, k, acc / wide(_entry(e, d, k)))]

    _, x = e.while_loop(
        [last, x],
        lambda k, *_: e.cmp("GE", k, zero_i, "SIGNED"),
        substitute,
    )
    return [dl, d, du, x, info]


# -- helpers of the QR / Jacobi expansions ------------------------------------------------------------


def _real_type(t: str) -> str:
    """The real element type of ``t`` (``complex<f32>`` -> ``f32``; a real type itself)."""
    return t[len("complex<"):-1] if t in COMPLEX_TYPES else t


def _finfo(t: str) -> np.finfo:
    """numpy's float limits of the real element type ``t`` (``"f32"`` or ``"f64"``)."""
    return np.finfo(np.float32 if t == "f32" else np.float64)


def _conj(e: Emitter, z: V) -> V:
    """Complex conjugate (the value itself for a real type)."""
    return e.complex(e.real(z), -e.imag(z)) if z.t in COMPLEX_TYPES else z


def _to_elem(e: Emitter, x: V, t: str) -> V:
    """Real ``x`` as element type ``t`` (imaginary part 0 for complex ``t``)."""
    return e.complex(x, _splat(e, 0.0, x.t, x.shape)) if t in COMPLEX_TYPES else x


def _abs(e: Emitter, x: V) -> V:
    """``|x|`` in the real element type (``stablehlo.abs`` of a complex value is real)."""
    return e.un("abs", x, _real_type(x.t))


def _abs2(e: Emitter, x: V) -> V:
    """``|x|^2`` in the real element type."""
    if x.t in COMPLEX_TYPES:
        re_, im = e.real(x), e.imag(x)
        return re_ * re_ + im * im
    return x * x


def _has_nan(e: Emitter, x: V) -> V:
    """i1 ``[*b]``: the matrix ``x`` ``[*b, m, n]`` has a NaN entry."""
    r = len(x.shape) - 2
    return _reduce(e, e.cmp("NE", x, x), [r, r + 1], False, "or")


def _hypot(e: Emitter, x: V, y: V) -> V:
    """``sqrt(x^2 + y^2)`` of real ``x``, ``y`` (same shape) computed on both divided by ``max(|x|, |y|)``, so
    neither overflows nor underflows (LAPACK ``?lapy2``); 0 where both are 0."""
    m = e.max(e.abs(x), e.abs(y))
    m = e.select(e.cmp("EQ", m, _splat(e, 0, m.t, m.shape), "FLOAT"), _splat(e, 1, m.t, m.shape), m)
    return e.sqrt((x / m) * (x / m) + (y / m) * (y / m)) * m


def _any(e: Emitter, p: V) -> V:
    """0-d i1: ``p`` (i1, any shape) has a true element (``reduce`` with ``or``)."""
    dims = list(range(len(p.shape)))
    return _reduce(e, p, dims, False, "or") if dims else p


def _diagonal(e: Emitter, x: V) -> V:
    """The diagonal ``[*b, k]`` of a ``[*b, k, k]`` value (an iota mask and a ``reduce`` add)."""
    shape = x.shape
    r = len(shape) - 2
    eye = e.cmp("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    return e.reduce_sum(e.select(eye, x, _splat(e, 0, x.t, shape)), [r])


def _eye(e: Emitter, shape, t: str) -> V:
    """Ones on the diagonal of the trailing two dimensions of ``shape``, zeros elsewhere."""
    r = len(shape) - 2
    eye = e.cmp("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    return e.select(eye, _splat(e, 1, t, shape), _splat(e, 0, t, shape))


def _adjoint(e: Emitter, x: V) -> V:
    """Conjugate transpose of the trailing two dimensions."""
    r = len(x.shape) - 2
    return _conj(e, e.transpose(x, list(range(r)) + [r + 1, r]))


def _slice_dim(e: Emitter, x: V, dim: int, lo: int, hi: int) -> V:
    """``x[..., lo:hi, ...]`` along ``dim`` (``stablehlo.slice``)."""
    shape = x.shape
    start, limit = [0] * len(shape), list(shape)
    start[dim], limit[dim] = lo, hi
    return e.slice(x, start, limit)


def _pad_dim(e: Emitter, x: V, dim: int, extra: int) -> V:
    """``x`` with ``extra`` zero entries appended along ``dim`` (``concatenate``)."""
    if extra == 0:
        return x
    shape = x.shape
    shape[dim] = extra
    return e.concatenate([x, _splat(e, 0, x.t, shape)], dim)


def _column(e: Emitter, x: V, k: V) -> V:
    """Column ``k`` (0-d i32) of ``x`` ``[*b, m, n]`` as ``[*b, m]`` (``dynamic_slice``)."""
    shape = x.shape
    r = len(shape) - 2
    zero = e.scalar(0, "i32")
    return e.reshape(e.dynamic_slice(x, [zero] * (r + 1) + [k], shape[:r] + [shape[r], 1]), shape[:r] + [shape[r]])


def _row(e: Emitter, x: V, k: V) -> V:
    """Row ``k`` (0-d i32) of ``x`` ``[*b, m, n]`` as ``[*b, n]`` (``dynamic_slice``)."""
    shape = x.shape
    r = len(shape) - 2
    zero = e.scalar(0, "i32")
    return e.reshape(e.dynamic_slice(x, [zero] * r + [k, zero], shape[:r] + [1, shape[r + 1]]), shape[:r] + [shape[r + 1]])


def _tournament(e: Emitter, x: V, dim: int) -> V:
    """The round-robin move along ``dim`` (:func:`hlokit.passes.lapack.reference.tournament`): static
    slices and one ``concatenate``."""
    n = x.shape[dim]
    h = n // 2
    if h < 2:
        return x
    parts = [(0, 1), (h, h + 1), (1, h - 1), (h + 1, n), (h - 1, h)]
    return e.concatenate([_slice_dim(e, x, dim, lo, hi) for lo, hi in parts if hi > lo], dim)


# -- geqrf / orgqr: Householder QR (passes/lapack/reference.py: geqrf, orgqr) --------------------------


def _householder(e: Emitter, x: V, k: V) -> tuple[V, V, V]:
    """``?larfg`` on ``x[k:]`` of ``x`` ``[*b, m]``: ``(v, tau, beta)`` with ``v`` zero above ``k`` and 1
    at ``k``, ``H = I - tau v v^H``, ``H^H x[k:] = beta e_1`` (``beta`` real, in the element type);
    ``tau = 0`` where ``x[k+1:]`` is zero and ``x[k]`` real (LAPACK ``?larfg`` / ``zlarfg``). The norm is
    taken of ``x[k:]`` divided by its largest magnitude (``v`` and ``tau`` are those of any multiple of
    ``x``), so squares neither overflow nor underflow (LAPACK: the scaled ``?nrm2`` / ``?lapy2``)."""
    shape = x.shape
    r = len(shape) - 1
    t = x.t
    rt = _real_type(t)
    idx = e.iota(shape, r, "i32")
    kb = e.broadcast_in_dim(k, shape, [])
    scaled, big = _by_largest(e, x, e.select(e.cmp("GE", idx, kb, "SIGNED"), _abs(e, x), _splat(e, 0, rt, shape)))
    v, tau, beta = _householder_scaled(e, scaled, idx, kb)
    return v, tau, beta * _to_elem(e, big, t)


def _by_largest(e: Emitter, x: V, mag: V) -> tuple[V, V]:
    """``(x / s, s)`` for ``x`` ``[*b, m]`` and magnitudes ``mag`` ``[*b, m]`` (real): ``s`` ``[*b]`` the largest
    of ``mag``, 1 where that is 0. Squares of ``x / s`` neither overflow nor underflow (LAPACK's scaled
    ``?nrm2``)."""
    shape = x.shape
    r = len(shape) - 1
    big = _reduce(e, mag, r, 0.0, "maximum")
    big = e.select(e.cmp("EQ", big, _splat(e, 0, mag.t, shape[:r]), "FLOAT"), _splat(e, 1, mag.t, shape[:r]), big)
    return x / _to_elem(e, e.broadcast_in_dim(big, shape, list(range(r))), x.t), big


def _householder_scaled(e: Emitter, x: V, idx: V, kb: V) -> tuple[V, V, V]:
    """:func:`_householder` of ``x`` whose entries ``k:`` are at most 1 in magnitude."""
    shape = x.shape
    r = len(shape) - 1
    t = x.t
    rt = _real_type(t)
    below, at = e.cmp("GT", idx, kb, "SIGNED"), e.cmp("EQ", idx, kb, "SIGNED")
    alpha = e.reduce_sum(e.select(at, x, _splat(e, 0, t, shape)), [r])
    xnorm2 = e.reduce_sum(e.select(below, _abs2(e, x), _splat(e, 0, rt, shape)), [r])
    are = e.real(alpha) if t in COMPLEX_TYPES else alpha
    aim = e.imag(alpha) if t in COMPLEX_TYPES else None
    zero = _splat(e, 0, rt, shape[:r])
    trivial = e.cmp("EQ", xnorm2, zero, "FLOAT")
    if aim is not None:
        trivial = e.land(trivial, e.cmp("EQ", aim, zero, "FLOAT"))
    norm = e.sqrt(_abs2(e, alpha) + xnorm2)
    beta = e.select(e.cmp("GE", are, zero, "FLOAT"), -norm, norm)
    safe = _to_elem(e, e.select(trivial, _splat(e, 1, rt, shape[:r]), beta), t)
    tau = e.select(trivial, _splat(e, 0, t, shape[:r]), (safe - alpha) / safe)
    denom = e.select(trivial, _splat(e, 1, t, shape[:r]), alpha - safe)
    v = e.select(below, x / e.broadcast_in_dim(denom, shape, list(range(r))), _splat(e, 0, t, shape))
    v = e.select(at, _splat(e, 1, t, shape), v)
    beta = _to_elem(e, e.select(trivial, are, beta), t)
    return v, tau, beta


def _reflect(e: Emitter, x: V, v: V, tau: V) -> V:
    """``x - tau v (v^H x)`` for ``x`` ``[*b, m, n]``, ``v`` ``[*b, m]``, ``tau`` ``[*b]`` (one
    ``dot_general`` for ``v^H x`` and a rank-1 update)."""
    shape = x.shape
    r = len(shape) - 2
    bd = list(range(r))
    w = e.dot_general(_conj(e, v), x, bd, bd, [r], [r])  # [*b, n]
    update = (e.broadcast_in_dim(tau, shape, bd) * e.broadcast_in_dim(v, shape, bd + [r])
              * e.broadcast_in_dim(w, shape, bd + [r + 1]))
    return x - update


def _set_column(e: Emitter, x: V, k: V, col: V) -> V:
    """``x`` ``[*b, m, n]`` with column ``k`` replaced by ``col`` ``[*b, m]`` (an iota mask)."""
    shape = x.shape
    r = len(shape) - 2
    cols = e.iota(shape, r + 1, "i32")
    here = e.cmp("EQ", cols, e.broadcast_in_dim(k, shape, []), "SIGNED")
    return e.select(here, e.broadcast_in_dim(col, shape, list(range(r)) + [r]), x)


def _store_reflector(e: Emitter, col: V, row: V, v: V, beta: V) -> V:
    """Column ``col`` ``[*b, m]`` as LAPACK leaves it after the reflector of ``col[row:]``: rows above ``row``
    unchanged, ``beta`` at ``row``, ``v`` below it."""
    shape = col.shape
    r = len(shape) - 1
    idx = e.iota(shape, r, "i32")
    at = e.broadcast_in_dim(row, shape, [])
    return e.select(e.cmp("EQ", idx, at, "SIGNED"), e.broadcast_in_dim(beta, shape, list(range(r))),
                    e.select(e.cmp("GT", idx, at, "SIGNED"), v, col))


def build_geqrf(e: Emitter, a: V) -> list[V]:
    """``geqrf`` of ``a`` (``[*b, m, n]``): ``[qr, tau]`` as LAPACK returns them (``R`` on and above the
    diagonal, the Householder vectors below it, ``tau`` ``[*b, min(m, n)]``).

    A ``stablehlo.while`` over ``k < min(m, n)`` carrying ``(k, qr, tau)`` (unblocked ``?geqr2``): the
    reflector of column ``k`` (:func:`_householder`), ``H^H`` applied to the columns right of ``k`` under an
    iota mask, ``beta`` and ``v`` written into column ``k``.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    kmax = min(m, n)

    def body(k: V, qr: V, tau: V) -> list[V]:
        col = _column(e, qr, k)
        v, t, beta = _householder(e, col, k)
        tau = _put_entry(e, tau, k, t)
        cols = e.iota(shape, r + 1, "i32")
        kk = e.broadcast_in_dim(k, shape, [])
        qr = e.select(e.cmp("GT", cols, kk, "SIGNED"), _reflect(e, qr, v, _conj(e, t)), qr)
        qr = _set_column(e, qr, k, _store_reflector(e, col, k, v, beta))
        return [k + 1, qr, tau]

    init = [e.scalar(0, "i32"), a, _splat(e, 0, a.t, batch + [kmax])]
    out = e.while_loop(init, lambda k, *_: e.cmp("LT", k, e.scalar(kmax, "i32"), "SIGNED"),
                       lambda k, qr, tau: body(k, qr, tau))
    return out[1:]


def _reflect_right(e: Emitter, x: V, v: V, tau: V) -> V:
    """``x - tau (x v) v^H`` for ``x`` ``[*b, m, n]``, ``v`` ``[*b, n]``, ``tau`` ``[*b]``: ``x H`` with
    ``H = I - tau v v^H`` (one ``dot_general`` for ``x v`` and a rank-1 update)."""
    shape = x.shape
    r = len(shape) - 2
    bd = list(range(r))
    w = e.dot_general(x, v, bd, bd, [r + 1], [r])  # [*b, m]
    update = (e.broadcast_in_dim(tau, shape, bd) * e.broadcast_in_dim(w, shape, bd + [r])
              * e.broadcast_in_dim(_conj(e, v), shape, bd + [r + 1]))
    return x - update


def _reverse(e: Emitter, x: V, dims) -> V:
    """``stablehlo.reverse`` of ``x`` along ``dims``."""
    (out,) = e.op("stablehlo.reverse", [x], [(x.s, x.t)], f"dimensions = array<i64: {', '.join(map(str, dims))}>")
    return out


# -- geqp3: QR with column pivoting ---------------------------------------------------------------------


def _swap_entries(e: Emitter, x: V, i: V, p: V) -> V:
    """``x`` (``[*b, n]``) with entries ``i`` (0-d i32) and ``p`` (``[*b]`` i32, per batch element) swapped."""
    shape = x.shape
    r = len(shape) - 1
    bd = list(range(r))
    idx = e.iota(shape, r, "i32")
    at_i = e.cmp("EQ", idx, e.broadcast_in_dim(i, shape, []), "SIGNED")
    at_p = e.cmp("EQ", idx, e.broadcast_in_dim(p, shape, bd), "SIGNED")
    xi = e.reduce_sum(e.select(at_i, x, _splat(e, 0, x.t, shape)), [r])
    xp = e.reduce_sum(e.select(at_p, x, _splat(e, 0, x.t, shape)), [r])
    return e.select(at_i, e.broadcast_in_dim(xp, shape, bd), e.select(at_p, e.broadcast_in_dim(xi, shape, bd), x))


def _swap_columns(e: Emitter, a: V, i: V, p: V) -> V:
    """``a`` (``[*b, m, n]``) with columns ``i`` (0-d i32) and ``p`` (``[*b]`` i32) swapped."""
    shape = a.shape
    r = len(shape) - 2
    bd = list(range(r))
    cols = e.iota(shape, r + 1, "i32")
    at_i = e.cmp("EQ", cols, e.broadcast_in_dim(i, shape, []), "SIGNED")
    at_p = e.cmp("EQ", cols, e.broadcast_in_dim(p, shape, bd), "SIGNED")
    ci = e.broadcast_in_dim(_column(e, a, i), shape, bd + [r])
    cp = e.broadcast_in_dim(e.reduce_sum(e.select(at_p, a, _splat(e, 0, a.t, shape)), [r + 1]), shape, bd + [r])
    return e.select(at_i, cp, e.select(at_p, ci, a))


def _column_norms(e: Emitter, a: V, k: V) -> V:
    """``||a[k:, j]||_2`` for every column ``j`` (``[*b, n]``, real)."""
    shape = a.shape
    r = len(shape) - 2
    rows = e.iota(shape, r, "i32")
    keep = e.cmp("GE", rows, e.broadcast_in_dim(k, shape, []), "SIGNED")
    return e.sqrt(e.reduce_sum(e.select(keep, _abs2(e, a), _splat(e, 0, _real_type(a.t), shape)), [r]))


def build_geqp3(e: Emitter, a: V, jpvt: V) -> list[V]:
    """``geqp3`` of ``a`` (``[*b, m, n]``) and ``jpvt`` (``[*b, n]`` i32; non-zero marks a column to move to
    the front and factor first): ``[qr, jpvt', tau]`` as LAPACK returns them: ``A P = Q R`` with ``R`` on and
    above the diagonal and the Householder vectors below (as ``geqrf``), ``jpvt'`` 1-based (column ``j`` of
    ``A P`` is column ``jpvt'[j] - 1`` of ``A``), ``tau`` ``[*b, min(m, n)]``.

    LAPACK ``?geqp3`` with its unblocked ``?laqp2``, as two ``stablehlo.while`` loops: the fixed columns moved
    to the front by LAPACK's swaps; then for ``k < min(m, n)`` the pivot (from the first free column on: the
    first largest partial norm), the column swap, the reflector of column ``k`` and ``H^H`` on the columns right
    of it (as :func:`build_geqrf`), and the partial norms downdated (Businger & Golub; recomputed where the
    downdate lost more than half the digits, LAPACK Working Note 176: ``tol3z = sqrt(eps / 2)``).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    bd = list(range(r))
    kmax = min(m, n)
    rt = _real_type(a.t)
    zero_i = e.scalar(0, "i32")
    one_i = e.scalar(1, "i32")
    vec = batch + [n]

    def at1(j: V) -> V:  # j + 1 over the batch
        return e.broadcast_in_dim(j + one_i, batch, [])

    # 1. the fixed columns to the front (LAPACK's order of swaps, not a stable sort)
    def move(j: V, a_: V, p: V, nfxd: V) -> list[V]:
        fixed = e.cmp("NE", _entry(e, p, j), _splat(e, 0, "i32", batch), "SIGNED")
        swapped = _swap_columns(e, a_, j, nfxd)
        a_ = e.select(e.broadcast_in_dim(fixed, shape, bd), swapped, a_)
        moved = _swap_entries(e, p, j, nfxd)  # jpvt[j] = jpvt[nfxd] ...
        onehot = e.cmp("EQ", e.iota(vec, r, "i32"), e.broadcast_in_dim(nfxd, vec, bd), "SIGNED")
        moved = e.select(onehot, e.broadcast_in_dim(at1(j), vec, bd), moved)  # ... jpvt[nfxd] = j + 1
        p = e.select(e.broadcast_in_dim(fixed, vec, bd), moved, _put_entry(e, p, j, at1(j)))
        nfxd = e.select(fixed, nfxd + _splat(e, 1, "i32", batch), nfxd)
        return [j + one_i, a_, p, nfxd]

    _, a, jpvt, nfxd = e.while_loop(
        [zero_i, a, jpvt, _splat(e, 0, "i32", batch)],
        lambda j, *_: e.cmp("LT", j, e.scalar(n, "i32"), "SIGNED"),
        move,
    )
    if kmax == 0:
        return [a, jpvt, _splat(e, 0, a.t, batch + [0])]

    eps = float(_finfo(rt).eps)
    tol3z = math.sqrt(eps / 2)  # sqrt(dlamch('Epsilon'))

    # 2. Householder steps: no pivoting for the fixed columns, partial norms for the free ones
    def step(k: V, a_: V, p: V, tau: V, vn1: V, vn2: V) -> list[V]:
        kb = e.broadcast_in_dim(k, batch, [])
        free = e.cmp("GE", kb, nfxd, "SIGNED")
        start = e.broadcast_in_dim(e.cmp("EQ", kb, nfxd, "SIGNED"), vec, bd)  # first free column: fresh norms
        norms = _column_norms(e, a_, k)
        vn1 = e.select(start, norms, vn1)
        vn2 = e.select(start, norms, vn2)
        cols = e.iota(vec, r, "i32")
        candidate = e.select(e.cmp("GE", cols, e.broadcast_in_dim(k, vec, []), "SIGNED"), vn1,
                             _splat(e, -1.0, rt, vec))
        best = _reduce(e, candidate, r, -math.inf, "maximum")
        first = e.select(e.cmp("EQ", candidate, e.broadcast_in_dim(best, vec, bd), "FLOAT"), cols,
                         _splat(e, n, "i32", vec))
        pvt = _reduce(e, first, r, n, "minimum")
        pvt = e.select(e.land(free, e.cmp("LT", pvt, _splat(e, n, "i32", batch), "SIGNED")), pvt, kb)
        a_ = _swap_columns(e, a_, k, pvt)
        p, vn1, vn2 = (_swap_entries(e, x, k, pvt) for x in (p, vn1, vn2))
        col = _column(e, a_, k)
        v, t, beta = _householder(e, col, k)
        tau = _put_entry(e, tau, k, t)
        full = e.iota(shape, r + 1, "i32")
        a_ = e.select(e.cmp("GT", full, e.broadcast_in_dim(k, shape, []), "SIGNED"), _reflect(e, a_, v, _conj(e, t)), a_)
        a_ = _set_column(e, a_, k, _store_reflector(e, col, k, v, beta))
        # partial norms of the columns right of k, from row k + 1 down
        row_k = _row(e, a_, k)
        zero = _splat(e, 0, rt, vec)
        nonzero = e.cmp("NE", vn1, zero, "FLOAT")
        safe1 = e.select(nonzero, vn1, _splat(e, 1, rt, vec))
        safe2 = e.select(e.cmp("NE", vn2, zero, "FLOAT"), vn2, _splat(e, 1, rt, vec))
        ratio = _abs(e, row_k) / safe1
        temp = e.max(_splat(e, 1, rt, vec) - ratio * ratio, zero)
        scale = vn1 / safe2
        temp2 = temp * scale * scale
        fresh = _column_norms(e, a_, k + one_i)
        recompute = e.cmp("LE", temp2, _splat(e, tol3z, rt, vec), "FLOAT")
        new1 = e.select(recompute, fresh, vn1 * e.sqrt(temp))
        new2 = e.select(recompute, fresh, vn2)
        right = e.land(e.cmp("GT", cols, e.broadcast_in_dim(k, vec, []), "SIGNED"),
                       e.land(nonzero, e.broadcast_in_dim(free, vec, bd)))
        vn1 = e.select(right, new1, vn1)
        vn2 = e.select(right, new2, vn2)
        return [k + one_i, a_, p, tau, vn1, vn2]

    zeros = _splat(e, 0, rt, vec)
    _, a, jpvt, tau, _, _ = e.while_loop(
        [zero_i, a, jpvt, _splat(e, 0, a.t, batch + [kmax]), zeros, zeros],
        lambda k, *_: e.cmp("LT", k, e.scalar(kmax, "i32"), "SIGNED"),
        step,
    )
    return [a, jpvt, tau]


# -- gehrd: Hessenberg reduction --------------------------------------------------------------------


def build_gehrd(e: Emitter, a: V) -> list[V]:
    """``gehrd`` of ``a`` (``[*b, n, n]``, ``ilo = 1``, ``ihi = n``): ``[h, tau, info]`` as LAPACK returns
    them: the upper Hessenberg ``H = Q^H A Q`` on and above the first subdiagonal, the Householder vectors
    of ``Q = H_1 ... H_{n-1}`` below it (implicit 1 on the subdiagonal), ``tau`` ``[*b, n - 1]``, ``info`` 0.

    A ``stablehlo.while`` over ``k < n - 1`` (unblocked ``?gehd2``): the reflector of ``a[k+1:, k]``
    (:func:`_householder`, ``?larfg``'s conventions), applied from the right to every row, then (with
    ``conj(tau)``) from the left to the columns right of ``k``; ``beta`` and ``v`` written into column ``k``.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    zero_i = e.scalar(0, "i32")
    info = _splat(e, 0, "i32", batch)
    if n < 2:
        return [a, _splat(e, 0, a.t, batch + [0]), info]

    def body(k: V, h: V, tau: V) -> list[V]:
        col = _column(e, h, k)
        v, t, beta = _householder(e, col, k + e.scalar(1, "i32"))
        tau = _put_entry(e, tau, k, t)
        h = _reflect_right(e, h, v, t)
        right = e.cmp("GT", e.iota(shape, r + 1, "i32"), e.broadcast_in_dim(k, shape, []), "SIGNED")
        h = e.select(right, _reflect(e, h, v, _conj(e, t)), h)
        h = _set_column(e, h, k, _store_reflector(e, col, k + e.scalar(1, "i32"), v, beta))
        return [k + 1, h, tau]

    init = [zero_i, a, _splat(e, 0, a.t, batch + [n - 1])]
    _, h, tau = e.while_loop(init, lambda k, *_: e.cmp("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                             lambda k, h, tau: body(k, h, tau))
    return [h, tau, info]


# -- sytrd / hetrd: tridiagonal reduction ------------------------------------------------------------


def _hermitian_from_lower(e: Emitter, x: V) -> V:
    """The Hermitian matrix whose lower triangle is ``x``'s (the diagonal's imaginary part dropped)."""
    shape = x.shape
    r = len(shape) - 2
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    full = e.select(e.cmp("GE", rows, cols, "SIGNED"), x, _adjoint(e, x))
    if x.t in COMPLEX_TYPES:
        full = e.select(e.cmp("EQ", rows, cols, "SIGNED"), _to_elem(e, e.real(full), x.t), full)
    return full


def _sytrd_lower(e: Emitter, a: V) -> list[V]:
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    rt = _real_type(a.t)
    bd = list(range(r))
    zero_i = e.scalar(0, "i32")
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    lower = e.cmp("GE", rows, cols, "SIGNED")
    if a.t in COMPLEX_TYPES:  # LAPACK ?hetd2 makes the diagonal real first
        a = e.select(e.cmp("EQ", rows, cols, "SIGNED"), _to_elem(e, e.real(a), a.t), a)

    def body(k: V, x: V, ev: V, tau: V) -> list[V]:
        col = _column(e, x, k)
        v, t, beta = _householder(e, col, k + e.scalar(1, "i32"))
        full = _hermitian_from_lower(e, x)
        # y = t A v on the trailing block (v is zero up to k); w = y - (t / 2) (y^H v) v; A -= v w^H + w v^H
        y = e.broadcast_in_dim(t, batch + [n], bd) * e.dot_general(full, v, bd, bd, [r + 1], [r])
        trailing_rows = e.cmp("GT", e.iota(batch + [n], r, "i32"), e.broadcast_in_dim(k, batch + [n], []), "SIGNED")
        y = e.select(trailing_rows, y, _splat(e, 0, a.t, batch + [n]))
        yv = e.reduce_sum(_conj(e, y) * v, [r])
        alpha = _splat(e, -0.5, a.t, batch) * t * yv
        w = y + e.broadcast_in_dim(alpha, batch + [n], bd) * v

        def outer(p: V, q: V) -> V:
            return e.broadcast_in_dim(p, shape, bd + [r]) * e.broadcast_in_dim(_conj(e, q), shape, bd + [r + 1])

        updated = full - outer(v, w) - outer(w, v)
        kk = e.broadcast_in_dim(k, shape, [])
        block = e.land(lower, e.land(e.cmp("GT", rows, kk, "SIGNED"), e.cmp("GT", cols, kk, "SIGNED")))
        x = e.select(block, updated, x)
        if a.t in COMPLEX_TYPES:  # (her2 and LAPACK's tau = 0 branch: the trailing diagonal stays real)
            x = e.select(e.cmp("EQ", rows, cols, "SIGNED"), _to_elem(e, e.real(x), a.t), x)
        x = _set_column(e, x, k, _store_reflector(e, col, k + e.scalar(1, "i32"), v, beta))
        ev = _put_entry(e, ev, k, e.real(beta) if a.t in COMPLEX_TYPES else beta)
        tau = _put_entry(e, tau, k, t)
        return [k + 1, x, ev, tau]

    init = [zero_i, a, _splat(e, 0, rt, batch + [n - 1]), _splat(e, 0, a.t, batch + [n - 1])]
    _, x, ev, tau = e.while_loop(init, lambda k, *_: e.cmp("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                                 lambda k, x, ev, tau: body(k, x, ev, tau))
    diag = _diagonal(e, x)
    d = e.real(diag) if a.t in COMPLEX_TYPES else diag
    return [x, d, ev, tau]


def build_sytrd(e: Emitter, a: V, lower: bool) -> list[V]:
    """``sytrd`` / ``hetrd`` of ``a`` (``[*b, n, n]``; only the ``lower`` or upper triangle is read):
    ``[a', d, e, tau, info]`` as LAPACK returns them: ``Q^H A Q = T`` tridiagonal with diagonal ``d``
    (real, ``[*b, n]``) and off-diagonal ``e`` (real, ``[*b, n - 1]``); ``a'`` holds ``d``, ``e`` and the
    Householder vectors of ``Q`` in the triangle that was read (the other triangle is the input's);
    ``tau`` ``[*b, n - 1]``; ``info`` 0.

    ``lower``: a ``stablehlo.while`` over ``k < n - 1`` (unblocked ``?sytd2`` / ``?hetd2``): the reflector
    of ``a[k+1:, k]`` (:func:`_householder`), ``y = tau A v``, ``w = y - (tau / 2) (y^H v) v`` and the
    rank-2 update ``A - v w^H - w v^H`` of the trailing block's lower triangle. Upper: LAPACK's reduction
    of the upper triangle, last column first, is this one on the matrix with rows and columns reversed
    (``stablehlo.reverse`` before and after; ``d``, ``e``, ``tau`` reversed).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    info = _splat(e, 0, "i32", batch)
    if n < 2:
        diag = _diagonal(e, a)
        d = e.real(diag) if a.t in COMPLEX_TYPES else diag
        if a.t in COMPLEX_TYPES:  # (?hetd2 makes the diagonal real even when there is nothing to reduce)
            a = _to_elem(e, d, a.t) if n else a
            a = e.reshape(a, shape)
        empty = [_splat(e, 0, _real_type(a.t), batch + [0]), _splat(e, 0, a.t, batch + [0])]
        return [a, d, *empty, info]
    if lower:
        return [*_sytrd_lower(e, a), info]
    flipped = _reverse(e, a, [r, r + 1])
    x, d, ev, tau = _sytrd_lower(e, flipped)
    return [_reverse(e, x, [r, r + 1]), _reverse(e, d, [r]), _reverse(e, ev, [r]), _reverse(e, tau, [r]), info]


def build_orgqr(e: Emitter, a: V, tau: V) -> V:
    """``orgqr`` / ``ungqr``: the first ``p`` columns of ``Q = H_0 ... H_{k-1}`` (``a`` ``[*b, m, p]`` from
    :func:`build_geqrf`, possibly zero-padded; ``tau`` ``[*b, k]``).

    A ``stablehlo.while`` over ``i < k`` carrying ``(i, q)`` from the identity: ``q <- H_j q`` with
    ``j = k - 1 - i`` (backward accumulation, unblocked ``?org2r``).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    kk = tau.shape[-1]
    zero_i = e.scalar(0, "i32")

    def body(i: V, q: V, a_: V, tau_: V) -> list[V]:
        j = e.scalar(kk - 1, "i32") - i
        col = _column(e, a_, j)
        idx = e.iota(batch + [m], r, "i32")
        jb = e.broadcast_in_dim(j, batch + [m], [])
        v = e.select(e.cmp("GT", idx, jb, "SIGNED"), col, _splat(e, 0, a.t, batch + [m]))
        v = e.select(e.cmp("EQ", idx, jb, "SIGNED"), _splat(e, 1, a.t, batch + [m]), v)
        tj = e.reshape(e.dynamic_slice(tau_, [zero_i] * r + [j], batch + [1]), batch)
        return [i + 1, _reflect(e, q, v, tj), a_, tau_]

    init = [e.scalar(0, "i32"), _eye(e, shape, a.t), a, tau]
    out = e.while_loop(init, lambda i, *_: e.cmp("LT", i, e.scalar(kk, "i32"), "SIGNED"), body)
    return out[1]


# -- syevd / heevd: parallel two-sided Jacobi (passes/lapack/reference.py: syevd) -----------------------

#: Jacobi sweeps at most (``reference.MAX_SWEEPS``).
MAX_SWEEPS = 30


def _rotation(e: Emitter, app: V, aqq: V, apq: V) -> tuple[V, V]:
    """The Jacobi rotations ``(c, s)`` (both in ``apq``'s element type, ``c`` real-valued) of the
    Hermitian 2x2 blocks ``[[app, apq], [conj(apq), aqq]]`` (``reference._rotation``)."""
    rt = app.t
    shape = app.shape
    eps = float(_finfo(rt).eps)
    mag = _abs(e, apq)
    small = e.cmp("EQ", mag, _splat(e, 0, rt, shape), "FLOAT")
    safe = e.select(small, _splat(e, 1, rt, shape), mag)
    tau = (aqq - app) / (safe * 2.0)
    atau = e.abs(tau)
    big = e.cmp("GT", atau, _splat(e, 1 / math.sqrt(eps), rt, shape), "FLOAT")
    tb = e.select(big, _splat(e, 0, rt, shape), tau)
    root = e.select(big, atau, e.sqrt(tb * tb + 1.0))
    sign = e.select(e.cmp("GE", tau, _splat(e, 0, rt, shape), "FLOAT"), _splat(e, 1, rt, shape),
                    _splat(e, -1, rt, shape))
    t = sign / (atau + root)
    c = 1.0 / e.sqrt(t * t + 1.0)
    s = _to_elem(e, t * c, apq.t) * (apq / _to_elem(e, safe, apq.t))
    c = e.select(small, _splat(e, 1, rt, shape), c)
    s = e.select(small, _splat(e, 0, apq.t, shape), s)
    return _to_elem(e, c, apq.t), s


def _rotate(e: Emitter, x: V, c: V, s: V, dim: int) -> V:
    """The rotations of the pairs (k, k + h) along ``dim`` of ``x`` (``c``, ``s`` ``[*b, h]``): columns
    (``dim`` the last: ``x J``) or rows (``J^H x``); static halves and one ``concatenate``."""
    shape = x.shape
    r = len(shape) - 2
    h = shape[dim] // 2
    xt, xb = _slice_dim(e, x, dim, 0, h), _slice_dim(e, x, dim, h, 2 * h)
    half = list(shape)
    half[dim] = h
    cb = e.broadcast_in_dim(c, half, list(range(r)) + [dim])
    sb = e.broadcast_in_dim(s, half, list(range(r)) + [dim])
    if dim == r + 1:
        top, bottom = cb * xt - _conj(e, sb) * xb, sb * xt + cb * xb
    else:
        top, bottom = cb * xt - sb * xb, _conj(e, sb) * xt + cb * xb
    return e.concatenate([top, bottom], dim)


def _off2(e: Emitter, h: V) -> V:
    """Squared Frobenius norm of the off-diagonal part of ``h`` ``[*b, n, n]`` -> real ``[*b]``."""
    shape = h.shape
    r = len(shape) - 2
    eye = e.cmp("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    rt = _real_type(h.t)
    return e.reduce_sum(e.select(eye, _splat(e, 0, rt, shape), _abs2(e, h)), [r, r + 1])


def _sort_columns(e: Emitter, keys: V, x: V, direction: str) -> tuple[V, V]:
    """Sort ``keys`` ``[*b, n]`` (``direction`` ``"LT"`` ascending, ``"GT"`` descending; stable) and the
    columns of ``x`` ``[*b, m, n]`` with them: one ``stablehlo.sort`` of ``x`` with the keys broadcast
    over its rows. Returns ``(sorted keys, x with permuted columns)``."""
    shape = x.shape
    r = len(shape) - 2
    kb = e.broadcast_in_dim(keys, shape, list(range(r)) + [r + 1])
    ks, xs = e.sort([kb, x], r + 1, lambda a, b, *_: e.cmp(direction, a, b, "TOTALORDER"))
    return e.reshape(_slice_dim(e, ks, r, 0, 1), keys.shape), xs


def build_syevd(e: Emitter, a: V, lower: bool) -> list[V]:
    """``syevd`` / ``heevd`` of ``a`` (``[*b, n, n]``, the ``lower``/upper triangle read): ``[v, w, info]``.

    The Hermitian matrix of the triangle, zero-padded to even order ``N``; an outer ``stablehlo.while``
    over sweeps (``off(A)^2 > eps^2 ||A||_F^2`` and fewer than :data:`MAX_SWEEPS`), an inner one over the
    ``N - 1`` parallel steps of a sweep: the ``N/2`` rotations of the pairs (k, k + N/2) on columns and
    rows (:func:`_rotate`), the annihilated entries set to 0, the round-robin move (:func:`_tournament`).
    Then ``w`` = the diagonal sorted ascending with ``v``'s columns; ``info`` (i32 ``[*b]``) 1 where
    ``w`` has a NaN, else 0.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t, rt = a.t, _real_type(a.t)
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    h = e.select(e.cmp("GE" if lower else "LE", rows, cols, "SIGNED"), a, _adjoint(e, a))
    if t in COMPLEX_TYPES:  # the diagonal of a Hermitian matrix is real (LAPACK reads its real part)
        h = e.select(e.cmp("EQ", rows, cols, "SIGNED"), _to_elem(e, e.real(h), t), h)
    nn = n + n % 2
    half = nn // 2
    h = _pad_dim(e, _pad_dim(e, h, r + 1, nn - n), r, nn - n)
    full = batch + [nn, nn]
    eps = float(_finfo(rt).eps)
    tol2 = e.reduce_sum(_abs2(e, h), [r, r + 1]) * (eps * eps)

    def step(i: V, h: V, v: V) -> list[V]:
        d = e.real(_diagonal(e, h)) if t in COMPLEX_TYPES else _diagonal(e, h)
        app, aqq = _slice_dim(e, d, r, 0, half), _slice_dim(e, d, r, half, nn)
        apq = _diagonal(e, _slice_dim(e, _slice_dim(e, h, r, 0, half), r + 1, half, nn))
        c, s = _rotation(e, app, aqq, apq)
        h = _rotate(e, _rotate(e, h, c, s, r + 1), c, s, r)
        rws, cls = e.iota(full, r, "i32"), e.iota(full, r + 1, "i32")
        diff = rws - cls
        pair = e.lor(e.cmp("EQ", diff, e.const(half, diff), "SIGNED"), e.cmp("EQ", diff, e.const(-half, diff), "SIGNED"))
        h = e.select(pair, _splat(e, 0, t, full), h)
        v = _rotate(e, v, c, s, r + 1)
        h = _tournament(e, _tournament(e, h, r + 1), r)
        return [i + 1, h, _tournament(e, v, r + 1)]

    def sweep(k: V, h: V, v: V, tol2: V) -> list[V]:
        out = e.while_loop([e.scalar(0, "i32"), h, v],
                           lambda i, *_: e.cmp("LT", i, e.scalar(nn - 1, "i32"), "SIGNED"), step)
        return [k + 1, out[1], out[2], tol2]

    def more(k: V, h: V, v: V, tol2: V) -> V:
        unconverged = _any(e, e.cmp("GT", _off2(e, h), tol2, "FLOAT"))
        return e.land(e.cmp("LT", k, e.scalar(MAX_SWEEPS, "i32"), "SIGNED"), unconverged)

    out = e.while_loop([e.scalar(0, "i32"), h, _eye(e, full, t), tol2], more, sweep)
    h, v = out[1], out[2]
    d = _diagonal(e, h)
    w = e.real(d) if t in COMPLEX_TYPES else d
    w = _slice_dim(e, w, r, 0, n)
    v = _slice_dim(e, _slice_dim(e, v, r, 0, n), r + 1, 0, n)
    w, v = _sort_columns(e, w, v, "LT")
    nan = e.cmp("NE", w, w, "FLOAT")
    if r:
        nan = _reduce(e, nan, r, False, "or")
    else:
        nan = e.reshape(_reduce(e, e.reshape(nan, [n]), 0, False, "or"), [])
    info = e.select(nan, _splat(e, 1, "i32", batch), _splat(e, 0, "i32", batch))
    return [v, w, info]


# -- gesdd: parallel one-sided Jacobi SVD (passes/lapack/reference.py: gesdd) ----------------------------


def _orthonormal(e: Emitter, x: V) -> V:
    """``Q diag(phase(diag R))`` of the Householder QR of ``x`` ``[*b, m, p]`` (``m >= p``): ``x`` to
    rounding where its columns are orthonormal, an orthonormal completion where a column is zero."""
    qr, tau = build_geqrf(e, x)
    q = build_orgqr(e, qr, tau)
    shape = x.shape
    r = len(shape) - 2
    p = shape[r + 1]
    d = _diagonal(e, _slice_dim(e, qr, r, 0, p))
    mag = _abs(e, d)
    zero = e.cmp("EQ", mag, _splat(e, 0, mag.t, mag.shape), "FLOAT")
    phase = e.select(zero, _splat(e, 1, x.t, d.shape), d / _to_elem(e, e.select(zero, _splat(e, 1, mag.t, mag.shape), mag), x.t))
    return q * e.broadcast_in_dim(phase, shape, list(range(r)) + [r + 1])


def _svd_tall(e: Emitter, a: V, mode: str) -> tuple[V, V | None, V | None]:
    """One-sided Jacobi SVD of ``a`` ``[*b, m, n]`` with ``m >= n``: ``(s, u, v)`` (``u`` ``[*b, m, n]``, or
    ``[*b, m, m]`` for ``mode`` 'A'; ``v`` ``[*b, n, n]``; both None for 'N')."""
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    t, rt = a.t, _real_type(a.t)
    nn = n + n % 2
    half = nn // 2
    eps = float(_finfo(rt).eps)
    tol = math.sqrt(m) * eps

    def step(i: V, u: V, v: V, rot: V) -> list[V]:
        ut, ub = _slice_dim(e, u, r + 1, 0, half), _slice_dim(e, u, r + 1, half, nn)
        app, aqq = e.reduce_sum(_abs2(e, ut), [r]), e.reduce_sum(_abs2(e, ub), [r])
        apq = e.reduce_sum(_conj(e, ut) * ub, [r])
        big = e.cmp("GT", _abs(e, apq), e.sqrt(app * aqq) * tol, "FLOAT")
        rot = e.lor(rot, _any(e, big))
        c, s = _rotation(e, app, aqq, e.select(big, apq, _splat(e, 0, t, apq.shape)))
        u = _tournament(e, _rotate(e, u, c, s, r + 1), r + 1)
        v = _tournament(e, _rotate(e, v, c, s, r + 1), r + 1)
        return [i + 1, u, v, rot]

    def sweep(k: V, u: V, v: V, rot: V) -> list[V]:
        out = e.while_loop([e.scalar(0, "i32"), u, v, e.scalar(False, "i1")],
                           lambda i, *_: e.cmp("LT", i, e.scalar(nn - 1, "i32"), "SIGNED"), step)
        return [k + 1, out[1], out[2], out[3]]

    def more(k: V, u: V, v: V, rot: V) -> V:
        return e.land(e.cmp("LT", k, e.scalar(MAX_SWEEPS, "i32"), "SIGNED"), rot)

    u0 = _pad_dim(e, a, r + 1, nn - n)
    out = e.while_loop([e.scalar(0, "i32"), u0, _eye(e, batch + [nn, nn], t), e.scalar(True, "i1")], more, sweep)
    u = _slice_dim(e, out[1], r + 1, 0, n)
    v = _slice_dim(e, _slice_dim(e, out[2], r, 0, n), r + 1, 0, n)
    sv = e.sqrt(e.reduce_sum(_abs2(e, u), [r]))
    if mode == "N":
        return e.sort([sv], r, lambda a_, b_: e.cmp("GT", a_, b_, "TOTALORDER"))[0], None, None
    sv, uv = _sort_columns(e, sv, e.concatenate([u, v], r), "GT")
    u, v = _slice_dim(e, uv, r, 0, m), _slice_dim(e, uv, r, m, m + n)
    zero = e.cmp("EQ", sv, _splat(e, 0, rt, sv.shape), "FLOAT")
    scale = _to_elem(e, e.select(zero, _splat(e, 1, rt, sv.shape), sv), t)
    u = u / e.broadcast_in_dim(scale, u.shape, list(range(r)) + [r + 1])
    if mode == "A":
        u = _pad_dim(e, u, r + 1, m - n)
    return sv, _orthonormal(e, u), v


def build_gesdd(e: Emitter, a: V, mode: str, result_shapes: list[list[int]]) -> list[V]:
    """``gesdd`` of ``a`` (``[*b, m, n]``, ``mode`` 'A' / 'S' / 'N'): ``[a, s, u, vt, info]``.

    One-sided Jacobi (:func:`_svd_tall`) on ``a`` (``m >= n``) or on ``a^H`` (``m < n``, ``u`` and ``vt``
    swapped). ``s`` real descending; ``u``, ``vt`` per ``mode`` (for 'N' zeros of the call's result
    shapes, which JAX does not read); the first result is ``a`` (LAPACK overwrites it with workspace);
    ``info`` 1 where ``s`` has a NaN, else 0.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    tall = m >= n
    s, u, v = _svd_tall(e, a if tall else _adjoint(e, a), mode)
    if mode == "N":
        u = _splat(e, 0, a.t, result_shapes[2])
        vt = _splat(e, 0, a.t, result_shapes[3])
    elif tall:
        vt = _adjoint(e, v)
    else:
        u, vt = v, _adjoint(e, u)
    k = min(m, n)
    nan = e.cmp("NE", s, s, "FLOAT")
    if r:
        nan = _reduce(e, nan, r, False, "or")
    else:
        nan = e.reshape(_reduce(e, e.reshape(nan, [k]), 0, False, "or"), [])
    info = e.select(nan, _splat(e, 1, "i32", batch), _splat(e, 0, "i32", batch))
    return [a, s, u, vt, info]


# -- geev: eigenvalues and eigenvectors of a general matrix (passes/lapack/reference.py: geev) --------------

#: Shifted QR steps at most, per eigenvalue (``MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10)`` in all; LAPACK's
#: ``?lahqr`` allows 30 per eigenvalue as well).
MAX_QR_STEPS_PER_EIGENVALUE = 30
#: Every this many QR steps the shift is an exceptional one (``?lahqr`` uses them at steps 10 and 20 without
#: deflation): it breaks the cycles of the Wilkinson shift (a cyclic permutation matrix never converges
#: without one).
EXCEPTIONAL_SHIFT_EVERY = 10


def _subdiagonal_mask(e: Emitter, shape) -> V:
    """i1 ``[*b, n, n]``: true on the first subdiagonal (row = column + 1)."""
    r = len(shape) - 2
    return e.cmp("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32") + 1, "SIGNED")


def _below_subdiagonal_zero(e: Emitter, h: V) -> V:
    """``h`` with every entry below the first subdiagonal set to exactly 0 (upper Hessenberg form)."""
    shape = h.shape
    r = len(shape) - 2
    below = e.cmp("GT", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32") + 1, "SIGNED")
    return e.select(below, _splat(e, 0, h.t, shape), h)


def _hessenberg_with_q(e: Emitter, a: V) -> tuple[V, V]:
    """``(H, Q)`` with ``A = Q H Q^H``, ``H`` upper Hessenberg, ``Q`` unitary: the reflectors of
    :func:`build_gehrd` (``?gehd2``), applied to both sides and accumulated; as ``?gehd2`` stores them, each
    subdiagonal entry is exactly the reflector's real ``beta`` and the entries below it exactly 0. A complex
    ``a`` takes ``n - 1`` reflectors (the last, of one entry, makes ``h[n-1, n-2]`` real, as ``zgehd2``'s),
    a real one ``n - 2``."""
    shape = a.shape
    r = len(shape) - 2
    n = shape[-1]
    q = _eye(e, shape, a.t)
    steps = n - 1 if a.t in COMPLEX_TYPES else n - 2
    if steps < 1:
        return a, q
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    bd = list(range(r))

    def body(k: V, h: V, q: V) -> list[V]:
        v, t, beta = _householder(e, _column(e, h, k), k + e.scalar(1, "i32"))
        h = _reflect_right(e, _reflect(e, h, v, _conj(e, t)), v, t)  # H_k^H h H_k
        kb = e.broadcast_in_dim(k, shape, [])
        column = e.cmp("EQ", cols, kb, "SIGNED")
        h = e.select(e.land(column, e.cmp("EQ", rows, kb + 1, "SIGNED")), e.broadcast_in_dim(beta, shape, bd), h)
        h = e.select(e.land(column, e.cmp("GT", rows, kb + 1, "SIGNED")), _splat(e, 0, h.t, shape), h)
        return [k + 1, h, _reflect_right(e, q, v, t)]

    out = e.while_loop([e.scalar(0, "i32"), a, q],
                       lambda k, *_: e.cmp("LT", k, e.scalar(steps, "i32"), "SIGNED"), body)
    return _below_subdiagonal_zero(e, out[1]), out[2]


def _update_pair(e: Emitter, x: V, k: V, rows: bool, update: Callable[[V, V, list[int]], tuple[V, V]],
                 edit: Callable[[V, V], V] | None = None) -> V:
    """``x`` ``[*b, n, n]`` with rows ``k, k+1`` (``rows``) or columns ``k, k+1`` replaced by ``update(x0, x1,
    one)`` of the two (each of shape ``one``: ``[*b, 1, n]`` or ``[*b, n, 1]``). The pair by ``dynamic_slice``,
    back by ``dynamic_update_slice`` (``k`` 0-d i32; a start out of range is clamped, as the ops define);
    ``edit(old, new)``: the pair written back, from the pair before and after (default ``new``)."""
    shape = x.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    zero = e.scalar(0, "i32")
    dim = r if rows else r + 1
    size = batch + ([2, n] if rows else [n, 2])
    starts = [zero] * r + ([k, zero] if rows else [zero, k])
    pair = e.dynamic_slice(x, starts, size)
    one = list(size)
    one[dim] = 1
    new = e.concatenate(list(update(_slice_dim(e, pair, dim, 0, 1), _slice_dim(e, pair, dim, 1, 2), one)), dim)
    return e.dynamic_update_slice(x, edit(pair, new) if edit is not None else new, starts)


def _rotate_pair(e: Emitter, x: V, k: V, c: V, s: V, rows: bool) -> V:
    """``x`` ``[*b, n, n]`` with rows ``k, k+1`` replaced by ``G`` times them (``rows``), or columns ``k, k+1``
    by them times ``G^H``, for the rotation ``G = [[c, s], [-conj(s), c]]`` (``c``, ``s`` ``[*b]``;
    :func:`_update_pair`)."""
    r = len(x.shape) - 2

    def update(x0: V, x1: V, one: list[int]) -> tuple[V, V]:
        cb, sb = (e.broadcast_in_dim(v, one, list(range(r))) for v in (c, s))
        if rows:
            return cb * x0 + sb * x1, cb * x1 - _conj(e, sb) * x0
        return cb * x0 + _conj(e, sb) * x1, cb * x1 - sb * x0

    return _update_pair(e, x, k, rows, update)


def _at(e: Emitter, x: V, i: V, j: V) -> V:
    """``x[..., i, j]`` as ``[*b]`` for per-batch-element indices ``i``, ``j`` (``[*b]`` i32): one-hot masks
    and a ``reduce`` add (0 where an index is out of range)."""
    shape = x.shape
    r = len(shape) - 2
    bd = list(range(r))
    hit = e.land(e.cmp("EQ", e.iota(shape, r, "i32"), e.broadcast_in_dim(i, shape, bd), "SIGNED"),
                 e.cmp("EQ", e.iota(shape, r + 1, "i32"), e.broadcast_in_dim(j, shape, bd), "SIGNED"))
    return e.reduce_sum(e.select(hit, x, _splat(e, 0, x.t, shape)), [r, r + 1])


def _cabs1(e: Emitter, x: V) -> V:
    """LAPACK's ``CABS1``: ``|Re x| + |Im x|`` of a complex ``x``, in the real element type."""
    return e.abs(e.real(x)) + e.abs(e.imag(x))


def _shift_down(e: Emitter, x: V) -> V:
    """``x`` moved one place along its last dimension: ``y[..., i] = x[..., i-1]``, ``y[..., 0] = 0``."""
    r = len(x.shape) - 1
    return e.concatenate([_splat(e, 0, x.t, x.shape[:r] + [1]), _slice_dim(e, x, r, 0, x.shape[r] - 1)], r)


def _shift_up(e: Emitter, x: V) -> V:
    """``x`` moved back one place along its last dimension: ``y[..., i] = x[..., i+1]``, ``y[..., n-1] = 0``."""
    r = len(x.shape) - 1
    return _pad_dim(e, _slice_dim(e, x, r, 1, x.shape[r]), r, 1)


def _deflate(e: Emitter, h: V, eps: float, tiny: float) -> V:
    """``h`` (real, or complex with a real subdiagonal) with each negligible subdiagonal entry ``h[k, k-1]`` set
    to exactly 0 by the test of ``?lahqr`` (real) / ``zlahqr`` (complex), with ``|x|`` for ``CABS1`` on real
    input: ``CABS1(h[k, k-1]) <= smlnum``, or ``|Re h[k, k-1]| <= eps tst`` with ``tst = CABS1(h[k-1, k-1]) +
    CABS1(h[k, k])`` (the neighbouring subdiagonal entries where that is 0) and Ahues & Tisseur's refinement
    (LAPACK Working Note 122) ``ba (ab / s) <= max(smlnum, eps bb (aa / s))``: ``ab`` / ``ba`` the larger /
    smaller of ``CABS1`` of ``h[k, k-1]`` and ``h[k-1, k]``, ``aa`` / ``bb`` of ``h[k, k]`` and ``h[k-1, k-1] -
    h[k, k]``, ``s = aa + ab``; ``smlnum = tiny n / eps``. The refinement keeps an entry small next to the
    diagonal but not next to how far apart the block's eigenvalues are (``[[1, 1], [1e-17, 1]]`` in f64:
    eigenvalues ``1 +- 3.2e-9``, which the classical test alone rounds to ``1, 1``)."""
    shape = h.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    rt = _real_type(h.t)
    vec = batch + [n]
    smlnum = tiny * (n / eps)
    complex_h = h.t in COMPLEX_TYPES
    mag = (lambda x: _cabs1(e, x)) if complex_h else e.abs
    sub, d = _subdiagonal(e, h), _diagonal(e, h)  # sub[k] = h[k, k-1]
    d_prev, sup_prev = _shift_down(e, d), _shift_down(e, _superdiagonal(e, h))  # h[k-1, k-1], h[k-1, k]
    c = mag(sub)
    zero = _splat(e, 0, rt, vec)
    tst = mag(d_prev) + mag(d)
    re_sub = e.abs(e.real(sub)) if complex_h else c
    tst = e.select(e.cmp("EQ", tst, zero, "FLOAT"), tst + _shift_down(e, re_sub) + _shift_up(e, re_sub), tst)
    csup = mag(sup_prev)
    ab, ba = e.max(c, csup), e.min(c, csup)
    cd, cdd = mag(d), mag(d_prev - d)
    aa, bb = e.max(cd, cdd), e.min(cd, cdd)
    s = aa + ab
    s = e.select(e.cmp("EQ", s, zero, "FLOAT"), _splat(e, 1, rt, vec), s)  # (s = 0 only where h[k, k-1] = 0)
    small_num = _splat(e, smlnum, rt, vec)
    refined = e.cmp("LE", ba * (ab / s), e.max(small_num, bb * (aa / s) * eps), "FLOAT")
    small = e.lor(e.cmp("LE", c, small_num, "FLOAT"),
                  e.land(e.cmp("LE", re_sub, tst * eps, "FLOAT"), refined))
    small = e.land(e.broadcast_in_dim(small, shape, list(range(r)) + [r]), _subdiagonal_mask(e, shape))
    return e.select(small, _splat(e, 0, h.t, shape), h)


def _reflect_pair(e: Emitter, x: V, k: V, tau: V, v2: V, rows: bool,
                  edit: Callable[[V, V], V] | None = None) -> V:
    """``x`` ``[*b, n, n]`` with rows ``k, k+1`` replaced by ``G^H`` times them (``rows``) or columns ``k, k+1``
    by them times ``G = I - tau v v^H``, ``v = [1, v2]`` (``tau``, ``v2`` ``[*b]``, ``tau v2`` real), in ``zlahqr``'s
    arithmetic: ``sum = conj(tau) x0 + Re(tau v2) x1; x0 - sum, x1 - sum v2`` (rows), ``sum = tau x0 +
    Re(tau v2) x1; x0 - sum, x1 - sum conj(v2)`` (columns); ``edit``: see :func:`_update_pair`. ``k`` 0-d
    i32, ``k + 1 < n``."""
    bd = list(range(len(x.shape) - 2))
    t2 = _to_elem(e, e.real(tau * v2), x.t)

    def update(x0: V, x1: V, one: list[int]) -> tuple[V, V]:
        tb, t2b, vb = (e.broadcast_in_dim(v, one, bd) for v in (tau, t2, v2))
        if rows:
            total = _conj(e, tb) * x0 + t2b * x1
            return x0 - total, x1 - total * vb
        total = tb * x0 + t2b * x1
        return x0 - total, x1 - total * _conj(e, vb)

    return _update_pair(e, x, k, rows, update, edit)


def _scale_where(e: Emitter, x: V, where: V, factor: V) -> V:
    """``x`` ``[*b, n, n]`` with the entries ``where`` (i1, same shape) multiplied by ``factor`` (``[*b]``)."""
    shape = x.shape
    return e.select(where, x * e.broadcast_in_dim(factor, shape, list(range(len(shape) - 2))), x)


def _schur(e: Emitter, a: V) -> tuple[V, V, V]:
    """Complex Schur form ``A = Z T Z^H`` of a complex ``a`` ``[*b, n, n]``: ``(T, Z, info)``, by LAPACK
    ``zlahqr``'s single-shift QR algorithm (the one ``?hseqr`` runs below order 75).

    Hessenberg reduction (:func:`_hessenberg_with_q`: real subdiagonal), then QR steps on the lowest
    unreduced block ``[lo, hi]`` of each batch element (``stablehlo.while`` while one has a non-zero
    subdiagonal entry, at most :data:`MAX_QR_STEPS_PER_EIGENVALUE` ``* max(n, 10)`` steps), as ``zlahqr``:
    Wilkinson's shift (the eigenvalue of the trailing 2x2 block nearer ``h[hi, hi]``), an exceptional shift
    every :data:`EXCEPTIONAL_SHIFT_EVERY` steps since the block's bottom last deflated (from the block's top,
    every second time from its bottom); the step starts at the lowest row ``m`` where starting makes
    ``h[m, m-1]`` negligible (two consecutive small subdiagonal entries), else at ``lo``; the bulge is chased
    by reflectors of order 2 (:func:`_householder`, :func:`_reflect_pair`; one loop over ``k`` for all batch
    elements, the identity outside each one's ``[m, hi)``), the subdiagonal kept real (the rescaling after a
    start at ``m > lo``, and of row / column ``hi`` after the step); negligible subdiagonal entries become
    exact zeros by ``zlahqr``'s test (:func:`_deflate`). ``info`` (i32 ``[*b]``) is 1 where a
    subdiagonal entry is left or ``T`` has a NaN, else 0.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = a.t
    rt = _real_type(t)
    fi = _finfo(rt)
    eps, tiny = float(fi.eps), float(fi.tiny)
    h, z = _hessenberg_with_q(e, a)
    h = _deflate(e, h, eps, tiny)
    if n < 2:
        return h, z, _splat(e, 0, "i32", batch)
    bd = list(range(r))
    vec = batch + [n]
    zero_i = e.scalar(0, "i32")
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    idx = e.iota(vec, r, "i32")
    zero = _splat(e, 0, rt, batch)

    def safe(x: V) -> V:  # (a real divisor: 1 where it is 0)
        return e.select(e.cmp("EQ", x, _splat(e, 0, x.t, x.shape), "FLOAT"), _splat(e, 1, x.t, x.shape), x)

    def elem(x: V) -> V:
        return _to_elem(e, x, t)

    def step(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> list[V]:
        # (live, lo, hi): _blocks of h, carried from the end of the previous step (or from before the loop)
        kdefl = e.select(e.cmp("EQ", hi, last_hi, "SIGNED"), kdefl + 1, _splat(e, 1, "i32", batch))
        d, sub, sup = _diagonal(e, h), _subdiagonal(e, h), _superdiagonal(e, h)
        hii, him, hmi, hmm, hll, hl1 = (_pick(e, v, i) for v, i in (
            (d, hi), (sub, hi), (sup, hi - 1), (d, hi - 1), (d, lo), (sub, lo + 1)))
        # Wilkinson's shift, in zlahqr's form: h[hi, hi] - u^2 / (x + y), y = +-sqrt(x^2 + u^2) aligned with x
        u = e.sqrt(hmi) * e.sqrt(him)
        su = _cabs1(e, u)
        x = (hmm - hii) * 0.5
        sx = _cabs1(e, x)
        s = safe(e.max(su, sx))
        y = elem(s) * e.sqrt((x / elem(s)) * (x / elem(s)) + (u / elem(s)) * (u / elem(s)))
        xn = x / elem(safe(sx))
        against = e.cmp("LT", e.real(xn) * e.real(y) + e.imag(xn) * e.imag(y), zero, "FLOAT")
        y = e.select(e.land(e.cmp("GT", sx, zero, "FLOAT"), against), -y, y)
        xy = x + y
        xy = e.select(e.cmp("EQ", _abs(e, xy), zero, "FLOAT"), _splat(e, 1, t, batch), xy)
        shift = e.select(e.cmp("NE", su, zero, "FLOAT"), hii - u * (u / xy), hii)
        # exceptional shifts (zlahqr): from the block's top every EXCEPTIONAL_SHIFT_EVERY steps without a
        # deflation at its bottom, from its bottom every second time
        zero_b = _splat(e, 0, "i32", batch)
        bottom, top = (e.cmp("EQ", e.bin("remainder", kdefl, _splat(e, every, "i32", batch)), zero_b, "SIGNED")
                       for every in (2 * EXCEPTIONAL_SHIFT_EVERY, EXCEPTIONAL_SHIFT_EVERY))
        shift = e.select(top, elem(e.abs(e.real(hl1)) * 0.75) + hll, shift)
        shift = e.select(bottom, elem(e.abs(e.real(him)) * 0.75) + hii, shift)
        # the start row m: the lowest row in (lo, hi) at which starting the step makes h[m, m-1] negligible
        d_next, h21 = _shift_up(e, d), e.real(_shift_up(e, sub))  # h[j+1, j+1], Re h[j+1, j]
        h11s = d - e.broadcast_in_dim(shift, vec, bd)
        sc = safe(_cabs1(e, h11s) + e.abs(h21))
        h11s, h21 = h11s / elem(sc), h21 / sc
        negligible = e.cmp("LE", e.abs(e.real(sub)) * e.abs(h21),
                           _cabs1(e, h11s) * (_cabs1(e, d) + _cabs1(e, d_next)) * eps, "FLOAT")
        lob, hib = (e.broadcast_in_dim(v, vec, bd) for v in (lo, hi))
        inside = e.land(e.cmp("GT", idx, lob, "SIGNED"), e.cmp("LT", idx, hib, "SIGNED"))
        m = _reduce(e, e.select(e.land(negligible, inside), idx, lob), r, 0, "maximum")
        x0, y0 = _pick(e, h11s, m), elem(_pick(e, h21, m))
        rescale = e.land(live, e.cmp("GT", m, lo, "SIGNED"))
        mb, hib2 = (e.broadcast_in_dim(v, shape, bd) for v in (m, hi))

        def in_set(i: V) -> V:  # the rows / columns zlahqr rescales after a start at m > lo: m .. hi but m + 1
            return e.land(e.land(e.cmp("GE", i, mb, "SIGNED"), e.cmp("LE", i, hib2, "SIGNED")),
                          e.cmp("NE", i, mb + 1, "SIGNED"))

        def rescaled(now: V, temp: V, h: V, z: V) -> list[V]:
            # zlahqr's rescaling after the first reflector of a step started at m > lo (keeps h[m+1, m] real):
            # row i of S right of the diagonal times temp, column j of S above it (and Z's) times conj(temp),
            # h[m+1, m] times conj(temp), h[m+2, m+1] times temp
            now = e.broadcast_in_dim(now, shape, bd)
            ctemp = _conj(e, temp)
            h = _scale_where(e, h, e.land(now, e.land(e.cmp("EQ", rows, mb + 1, "SIGNED"),
                                                      e.cmp("EQ", cols, mb, "SIGNED"))), ctemp)
            h = _scale_where(e, h, e.land(now, e.land(e.cmp("EQ", rows, mb + 2, "SIGNED"),
                                                      e.cmp("EQ", cols, mb + 1, "SIGNED"))), temp)
            h = _scale_where(e, h, e.land(now, e.land(in_set(rows), e.cmp("GT", cols, rows, "SIGNED"))), temp)
            h = _scale_where(e, h, e.land(now, e.land(in_set(cols), e.cmp("LT", rows, cols, "SIGNED"))), ctemp)
            return [h, _scale_where(e, z, e.land(now, in_set(cols)), ctemp)]

        pair_cols = e.iota(batch + [2, n], r + 1, "i32")
        pair_rows = e.iota(batch + [2, n], r, "i32")

        def chase(k: V, h: V, z: V) -> list[V]:
            kb = e.broadcast_in_dim(k, batch, [])
            first = e.cmp("EQ", m, kb, "SIGNED")
            active = e.land(live, e.land(e.cmp("GE", kb, m, "SIGNED"), e.cmp("LT", kb, hi, "SIGNED")))
            col = _column(e, h, k - 1)  # (k = 0: column 0, unused: only k = m reads no column)
            pair = [e.reshape(e.select(first, x0, _pick(e, col, k)), batch + [1]),
                    e.reshape(e.select(first, y0, _pick(e, col, k + 1)), batch + [1])]
            v, tau, beta = _householder(e, e.concatenate(pair, r), zero_i)  # (zlarfg of order 2)
            v2 = e.reshape(_slice_dim(e, v, r, 1, 2), batch)
            tau = e.select(active, tau, _splat(e, 0, t, batch))
            v2 = e.select(active, v2, _splat(e, 0, t, batch))
            two = batch + [2, n]
            kp = e.broadcast_in_dim(k, two, [])
            chased = e.land(e.broadcast_in_dim(e.land(active, e.lnot(first)), two, bd),
                            e.cmp("EQ", pair_cols, kp - 1, "SIGNED"))
            exact = e.select(e.cmp("EQ", pair_rows, _splat(e, 0, "i32", two), "SIGNED"),
                             e.broadcast_in_dim(beta, two, bd), _splat(e, 0, t, two))

            def edit(old: V, new: V) -> V:  # columns before k unchanged (zlahqr: columns k ..); below the first
                # step, the entries of column k-1 the reflector sets exactly (beta and 0)
                return e.select(chased, exact, e.select(e.cmp("LT", pair_cols, kp, "SIGNED"), old, new))

            h = _reflect_pair(e, h, k, tau, v2, rows=True, edit=edit)
            h = _reflect_pair(e, h, k, tau, v2, rows=False)
            z = _reflect_pair(e, z, k, tau, v2, rows=False)
            now = e.land(rescale, e.land(active, first))
            temp = _splat(e, 1, t, batch) - tau
            temp = temp / elem(safe(_abs(e, temp)))
            # (O(n^2): run only where a batch element rescales at this k, as a loop of at most one iteration)
            _, _, h, z = e.while_loop([_any(e, now), now, h, z], lambda go, *_: go,
                                      lambda go, now, h, z: [e.const(False, t="i1", s=""), now,
                                                             *rescaled(now, temp, h, z)])
            return [k + 1, h, z]

        _, h, z = e.while_loop([zero_i, h, z], lambda k, *_: e.cmp("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                               chase)
        # h[hi, hi-1] made real: row hi (right of it) times conj(p), column hi (above it) and Z's times p
        last = _at(e, h, hi, hi - 1)
        mag = _abs(e, last)
        p = last / elem(safe(mag))
        now = e.broadcast_in_dim(e.land(live, e.cmp("NE", e.imag(last), zero, "FLOAT")), shape, bd)
        at_row, at_col = e.cmp("EQ", rows, hib2, "SIGNED"), e.cmp("EQ", cols, hib2, "SIGNED")
        h = _scale_where(e, h, e.land(now, e.land(at_row, e.cmp("GT", cols, hib2, "SIGNED"))), _conj(e, p))
        h = _scale_where(e, h, e.land(now, e.land(at_col, e.cmp("LT", rows, hib2, "SIGNED"))), p)
        h = e.select(e.land(now, e.land(at_row, e.cmp("EQ", cols, hib2 - 1, "SIGNED"))),
                     e.broadcast_in_dim(elem(mag), shape, bd), h)
        z = _scale_where(e, z, e.land(now, at_col), p)
        h = _deflate(e, _below_subdiagonal_zero(e, h), eps, tiny)
        return [it + 1, kdefl, hi, *_blocks(e, h, min_order=2), h, z]

    def more(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> V:
        return e.land(e.cmp("LT", it, e.scalar(MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10), "i32"), "SIGNED"),
                      _any(e, live))

    no_step, no_row = _splat(e, 0, "i32", batch), _splat(e, -1, "i32", batch)  # (kdefl, last_hi before step 1)
    _, _, _, live, _, _, h, z = e.while_loop([zero_i, no_step, no_row, *_blocks(e, h, min_order=2), h, z], more, step)
    info = e.select(e.lor(live, _has_nan(e, h)), _splat(e, 1, "i32", batch), _splat(e, 0, "i32", batch))
    return e.select(e.cmp("GT", rows, cols, "SIGNED"), _splat(e, 0, t, shape), h), z, info


def _triangular_eigenvectors(e: Emitter, t: V) -> V:
    """The eigenvectors of an upper triangular ``t`` ``[*b, n, n]`` as columns: ``x_k[k] = 1``, zero below
    ``k``, and back substitution ``x_k[i] = -(t[i, i+1:] . x_k[i+1:]) / (t[i, i] - t[k, k])`` for
    ``i = k-1 .. 0`` (``?trevc``), every ``k`` at once: a ``stablehlo.while`` over ``i = n-2 .. 0``. A
    denominator smaller than ``smin = max(eps max|t|, tiny)`` becomes ``smin`` (``?trevc``'s
    perturbation for repeated eigenvalues)."""
    shape = t.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    ct = t.t
    rt = _real_type(ct)
    fin = _finfo(rt)
    bd = list(range(r))
    w = _diagonal(e, t)
    tmax = _reduce(e, _abs(e, t), [r, r + 1], 0.0, "maximum")
    smin = e.max(tmax * float(fin.eps), _splat(e, float(fin.tiny), rt, batch))
    sminb = e.broadcast_in_dim(smin, batch + [n], bd)
    idx = e.iota(batch + [n], r, "i32")
    zero = e.scalar(0, "i32")

    def body(i: V, x: V) -> list[V]:
        row = _row(e, t, i)
        after = e.cmp("GT", idx, e.broadcast_in_dim(i, batch + [n], []), "SIGNED")
        row = e.select(after, row, _splat(e, 0, ct, batch + [n]))
        s = e.dot_general(row, x, bd, bd, [r], [r])  # [*b, n]: sum_j t[i, j] x[j, k] over j > i
        d = e.broadcast_in_dim(_entry(e, w, i), batch + [n], bd) - w
        d = e.select(e.cmp("LT", _abs(e, d), sminb, "FLOAT"), _to_elem(e, sminb, ct), d)
        old = _row(e, x, i)
        new = e.select(after, -s / d, old)
        return [i - 1, e.dynamic_update_slice(x, e.reshape(new, batch + [1, n]), [zero] * r + [i, zero])]

    out = e.while_loop([e.scalar(n - 2, "i32"), _eye(e, shape, ct)],
                       lambda i, *_: e.cmp("GE", i, zero, "SIGNED"), body)
    return out[1]


def _normalize_columns(e: Emitter, v: V) -> V:
    """Each column of ``v`` ``[*b, n, n]`` scaled to Euclidean norm 1 and rotated so that its first
    largest-magnitude entry is real and positive (``?geev``: "norm 1 and largest component real")."""
    shape = v.shape
    r = len(shape) - 2
    bd = list(range(r))
    ct = v.t
    rt = _real_type(ct)
    norm = e.sqrt(e.reduce_sum(_abs2(e, v), [r]))  # [*b, n]
    v = v / _to_elem(e, e.broadcast_in_dim(norm, shape, bd + [r + 1]), ct)
    mag = _abs(e, v)
    top = _reduce(e, mag, r, 0.0, "maximum")
    rows = e.iota(shape, r, "i32")
    n = shape[r]
    first = _reduce(e, e.select(e.cmp("EQ", mag, e.broadcast_in_dim(top, shape, bd + [r + 1]), "FLOAT"), rows,
                                _splat(e, n, "i32", shape)), r, n, "minimum")
    at = e.cmp("EQ", rows, e.broadcast_in_dim(first, shape, bd + [r + 1]), "SIGNED")
    p = e.reduce_sum(e.select(at, v, _splat(e, 0, ct, shape)), [r])
    ap = _abs(e, p)
    none = e.cmp("EQ", ap, _splat(e, 0, rt, ap.shape), "FLOAT")
    phase = e.select(none, _splat(e, 1, ct, p.shape), _conj(e, p) / _to_elem(e, e.select(
        none, _splat(e, 1, rt, ap.shape), ap), ct))
    return v * e.broadcast_in_dim(phase, shape, bd + [r + 1])


def build_gees(e: Emitter, a: V, vectors: bool) -> list[V]:
    """``cgees`` / ``zgees`` of a complex ``a`` (``[*b, n, n]``, no sorting): ``[t, vs, w, sdim, info]``: the
    complex Schur form ``A = Z T Z^H`` of :func:`_schur` (``T`` upper triangular, ``Z`` unitary; zeros when
    not ``vectors``), the eigenvalues ``diag(T)``, ``sdim`` 0 (nothing is sorted) and ``info`` (1 where the
    QR steps did not converge or the input has a NaN). ``T`` is unique only up to the order of its diagonal
    and a phase per Schur vector, so it may differ from LAPACK's by those. As ``?gees``, ``A`` is permuted first
    (:func:`_balance` without scaling: ``?gebal`` with ``JOB = 'P'``) and the Schur vectors' rows swapped back
    (:func:`_gebak`), so a matrix that is triangular up to a permutation gets LAPACK's ``T`` exactly."""
    shape = a.shape
    batch = shape[:-2]
    b, *balance = _balance(e, a, scale=False)
    t, z, info = _schur(e, b)
    z = _gebak(e, z, *balance, left=False) if vectors else _splat(e, 0, a.t, shape)
    return [t, z, _diagonal(e, t), _splat(e, 0, "i32", batch), info]


#: Balancing's bound on sweeps over the columns (``?gebal`` sweeps until one changes nothing; a change lowers a
#: row + column norm sum by 5 % at least, so real matrices stop after a few).
MAX_BALANCE_SWEEPS = 100


def _nrm2(e: Emitter, x: V) -> V:
    """Euclidean norm over the last dimension of real or complex ``x`` ``[*b, n]`` -> ``[*b]`` (real), taken of
    ``x`` divided by its largest magnitude (no overflow or underflow in the squares)."""
    scaled, big = _by_largest(e, x, _abs(e, x))
    return e.sqrt(e.reduce_sum(_abs2(e, scaled), [len(x.shape) - 1])) * big


def _take(e: Emitter, x: V, idx: V, dim: int) -> V:
    """``x[..., idx, ...]`` along ``dim`` (one of the two last dimensions of ``x`` ``[*b, m, n]``) with ``idx``
    ``[*b]`` (i32) one index per batch element: the result drops ``dim``. Exact for every value (NaN payloads
    and signed zeros included): the bits under a one-hot mask, combined by a ``reduce`` with ``or``."""
    if x.t in COMPLEX_TYPES:
        return e.complex(_take(e, e.real(x), idx, dim), _take(e, e.imag(x), idx, dim))
    shape = x.shape
    r = len(shape) - 2
    at = e.cmp("EQ", e.iota(shape, dim, "i32"), e.broadcast_in_dim(idx, shape, list(range(r))), "SIGNED")
    bits = {"f32": "i32", "f64": "i64"}[x.t]
    picked = _reduce(e, e.select(at, e.bitcast(x, bits), _splat(e, 0, bits, shape)), dim, 0, "or")
    return e.bitcast(picked, x.t)


def _exchange(e: Emitter, a: V, i: V, j: V, dim: int, where: V) -> V:
    """``a`` ``[*b, m, n]`` with its slices ``i`` and ``j`` (``[*b]`` i32, one index each per batch element) along
    ``dim`` (one of the two last dimensions: rows or columns) exchanged, exactly (:func:`_take`), at the entries
    where ``where`` (i1, ``a``'s shape) holds."""
    shape = a.shape
    r = len(shape) - 2
    bd = list(range(r))
    along = e.iota(shape, dim, "i32")
    keep = bd + [r + 1 if dim == r else r]  # (the other matrix dimension: the slices' own)
    slice_i, slice_j = (e.broadcast_in_dim(_take(e, a, x, dim), shape, keep) for x in (i, j))
    return e.select(e.land(where, e.cmp("EQ", along, e.broadcast_in_dim(i, shape, bd), "SIGNED")), slice_j,
                    e.select(e.land(where, e.cmp("EQ", along, e.broadcast_in_dim(j, shape, bd), "SIGNED")), slice_i, a))


def _swap(e: Emitter, a: V, i: V, j: V, go: V, last_row: V, first_col: V) -> V:
    """``a`` ``[*b, n, n]`` with indices ``i`` (0-d i32) and ``j`` (``[*b]`` i32) exchanged where ``go`` (``[*b]``
    i1), as ``?gebal``'s two ``?swap`` calls: columns ``i`` and ``j`` over rows ``0 .. last_row``, then rows ``i``
    and ``j`` over columns ``first_col .. n-1`` (``[*b]`` i32 bounds)."""
    shape = a.shape
    r = len(shape) - 2
    bd = list(range(r))
    ib = e.broadcast_in_dim(i, j.shape, [])
    gob = e.broadcast_in_dim(go, shape, bd)
    in_rows = e.cmp("LE", e.iota(shape, r, "i32"), e.broadcast_in_dim(last_row, shape, bd), "SIGNED")
    a = _exchange(e, a, ib, j, r + 1, e.land(gob, in_rows))
    in_cols = e.cmp("GE", e.iota(shape, r + 1, "i32"), e.broadcast_in_dim(first_col, shape, bd), "SIGNED")
    return _exchange(e, a, ib, j, r, e.land(gob, in_cols))


def _set_at(e: Emitter, v: V, at: V, value: V, go: V) -> V:
    """``v`` ``[*b, n]`` with ``v[..., at] = value`` (``at``, ``value`` ``[*b]``) where ``go`` (``[*b]`` i1)."""
    shape = v.shape
    bd = list(range(len(shape) - 1))
    hit = e.land(e.broadcast_in_dim(go, shape, bd),
                 e.cmp("EQ", e.iota(shape, len(shape) - 1, "i32"), e.broadcast_in_dim(at, shape, bd), "SIGNED"))
    return e.select(hit, e.broadcast_in_dim(value, shape, bd), v)


def _balance_permute(e: Emitter, a: V) -> tuple[V, V, V, V]:
    """The permutation half of LAPACK ``?gebal`` (``JOB = 'P'``, the loops of LAPACK 3.12) on ``a`` ``[*b, n, n]``:
    ``(P^T A P, piv, ilo, ihi)`` as ``reference.gebal_permute``: ``piv`` ``[*b, n]`` the index each position
    outside ``ilo .. ihi`` was swapped with (its own index inside), ``ilo``, ``ihi`` ``[*b]`` (0-based, i32).

    Row passes (``stablehlo.while`` until no batch element swaps): ``i`` from ``n - 1`` down to 0, a row with
    no non-zero off the diagonal in columns ``0 .. l`` is swapped to ``l`` and ``l`` decreases (``l`` reaching
    0 ends the search: the matrix is triangular up to a permutation); then column passes: ``j`` from 0 up, a
    column with no non-zero off the diagonal in rows ``k .. l`` is swapped to ``k`` and ``k`` increases. Each
    batch element keeps its own ``k``, ``l`` and passes (one-hot masks)."""
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    bd = list(range(r))
    vec = batch + [n]
    pos = e.iota(vec, r, "i32")
    zero_b, one_b = _splat(e, 0, "i32", batch), _splat(e, 1, "i32", batch)
    yes, no = _splat(e, True, "i1", batch), _splat(e, False, "i1", batch)
    zero_a = _splat(e, 0, a.t, vec)

    def isolated(line: V, i: V, first: V, last: V) -> V:  # [*b]: no non-zero off position i within first .. last
        nz = e.land(e.cmp("NE", line, zero_a, "FLOAT"), e.cmp("NE", pos, e.broadcast_in_dim(i, vec, []), "SIGNED"))
        nz = e.land(nz, e.land(e.cmp("GE", pos, e.broadcast_in_dim(first, vec, bd), "SIGNED"),
                               e.cmp("LE", pos, e.broadcast_in_dim(last, vec, bd), "SIGNED")))
        return e.lnot(_reduce(e, nz, r, False, "or"))

    def row_step(i: V, a: V, piv: V, k: V, l: V, l0: V, active: V, done: V, swapped: V) -> list[V]:
        ib = e.broadcast_in_dim(i, batch, [])
        found = e.land(e.land(active, e.lnot(done)), e.cmp("LE", ib, l0, "SIGNED"))
        found = e.land(found, isolated(_row(e, a, i), i, zero_b, l))
        piv = _set_at(e, piv, l, ib, found)
        a = _swap(e, a, i, l, e.land(found, e.cmp("NE", ib, l, "SIGNED")), l, k)
        last = e.land(found, e.cmp("EQ", l, zero_b, "SIGNED"))
        l = e.select(e.land(found, e.lnot(last)), l - one_b, l)
        return [i - e.scalar(1, "i32"), a, piv, k, l, l0, active, e.lor(done, last), e.lor(swapped, found)]

    def row_pass(a: V, piv: V, k: V, l: V, active: V, done: V) -> list[V]:
        out = e.while_loop([e.scalar(n - 1, "i32"), a, piv, k, l, l, active, done, no],
                           lambda i, *_: e.cmp("GE", i, e.scalar(0, "i32"), "SIGNED"), row_step)
        _, a, piv, k, l, _, _, done, swapped = out
        return [a, piv, k, l, e.land(swapped, e.lnot(done)), done]

    a, piv, k, l, _, done = e.while_loop(
        [a, pos, zero_b, _splat(e, n - 1, "i32", batch), yes, no],
        lambda a, piv, k, l, active, done: _any(e, active), row_pass)

    def col_step(j: V, a: V, piv: V, k: V, l: V, k0: V, active: V, swapped: V) -> list[V]:
        jb = e.broadcast_in_dim(j, batch, [])
        found = e.land(active, e.land(e.cmp("GE", jb, k0, "SIGNED"), e.cmp("LE", jb, l, "SIGNED")))
        found = e.land(found, isolated(_column(e, a, j), j, k, l))
        piv = _set_at(e, piv, k, jb, found)
        a = _swap(e, a, j, k, e.land(found, e.cmp("NE", jb, k, "SIGNED")), l, k)
        k = e.select(found, k + one_b, k)
        return [j + e.scalar(1, "i32"), a, piv, k, l, k0, active, e.lor(swapped, found)]

    def col_pass(a: V, piv: V, k: V, l: V, active: V) -> list[V]:
        out = e.while_loop([e.scalar(0, "i32"), a, piv, k, l, k, active, no],
                           lambda j, *_: e.cmp("LT", j, e.scalar(n, "i32"), "SIGNED"), col_step)
        _, a, piv, k, l, _, _, swapped = out
        return [a, piv, k, l, swapped]

    a, piv, k, l, _ = e.while_loop([a, piv, k, l, e.lnot(done)], lambda a, piv, k, l, active: _any(e, active),
                                   col_pass)
    return a, piv, k, l


def _balance(e: Emitter, a: V, permute: bool = True, scale: bool = True) -> tuple[V, V | None, V, V, V]:
    """LAPACK ``?gebal`` with ``JOB = 'B'`` (``'S'`` when not ``permute``, ``'P'`` when not ``scale``) of ``a``
    ``[*b, n, n]``: ``(D^-1 P^T A P D, d, piv, ilo, ihi)``: first :func:`_balance_permute` (``piv``, ``ilo``,
    ``ihi``; without ``permute`` the identity, ``0``, ``n - 1``), then ``d`` ``[*b, n]``, powers of 2 in the real
    type (1 outside ``ilo .. ihi``; None when not ``scale``), so the balanced matrix is exact.

    The scaling sweeps over the columns ``i`` of ``ilo .. ihi`` (``stablehlo.while``; at most
    :data:`MAX_BALANCE_SWEEPS`) until no batch element changes: with ``c`` / ``r`` the norms of column / row
    ``i`` within rows / columns ``ilo .. ihi``, two loops find the power of 2 ``f`` with ``c f`` and ``r / f``
    within a factor 2 of each other; ``f`` is kept when ``c f + r / f < 0.95 (c + r)`` (row ``i`` divided by
    ``f``, column ``i`` multiplied by it, ``d_i *= f``). ``?gebal``'s guards keep every scaled quantity inside
    ``[2 sfmin1, 1 / (2 sfmin1)]`` (``sfmin1 = tiny / eps``) and ``d_i`` inside ``[sfmin1, 1 / sfmin1]``; a zero
    column or row, or one with a NaN, is left alone. The same result as the reference LAPACK ``?gebal`` (tests
    compare with scipy's; ``reference.gebal`` mirrors these loops)."""
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = a.t
    rt = _real_type(t)
    fin = _finfo(rt)
    sfmin1 = float(fin.tiny) / float(fin.eps)
    sfmax1, sfmin2 = 1 / sfmin1, sfmin1 * 2
    sfmax2 = 1 / sfmin2
    bd = list(range(r))
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    idx = e.iota(batch + [n], r, "i32")
    zero_i = e.scalar(0, "i32")
    no = _splat(e, False, "i1", batch)
    if permute:
        a, piv, lo, hi = _balance_permute(e, a)
    else:
        piv, lo, hi = idx, _splat(e, 0, "i32", batch), _splat(e, n - 1, "i32", batch)
    if not scale:
        return a, None, piv, lo, hi
    inside = e.land(e.cmp("GE", idx, e.broadcast_in_dim(lo, batch + [n], bd), "SIGNED"),
                    e.cmp("LE", idx, e.broadcast_in_dim(hi, batch + [n], bd), "SIGNED"))  # [*b, n]
    zero_v = _splat(e, 0, t, batch + [n])

    def column(i: V, a: V, d: V, noconv: V) -> list[V]:
        col = _column(e, a, i)
        row = _row(e, a, i)
        c, rr = _nrm2(e, e.select(inside, col, zero_v)), _nrm2(e, e.select(inside, row, zero_v))
        ca, ra = _reduce(e, _abs(e, col), r, 0.0, "maximum"), _reduce(e, _abs(e, row), r, 0.0, "maximum")
        zero = _splat(e, 0, rt, batch)
        total = c + ca + rr + ra
        live = e.land(e.land(e.cmp("NE", c, zero, "FLOAT"), e.cmp("NE", rr, zero, "FLOAT")),
                      e.land(e.cmp("EQ", total, total, "FLOAT"), _pick(e, inside, i)))
        s = c + rr
        one = _splat(e, 1, rt, batch)

        def up_mask(f, c, ca, r_, g, ra) -> V:
            return e.land(e.land(live, e.cmp("LT", c, g, "FLOAT")),
                          e.land(e.cmp("LT", e.max(e.max(f, c), ca), _splat(e, sfmax2, rt, batch), "FLOAT"),
                                 e.cmp("GT", e.min(e.min(r_, g), ra), _splat(e, sfmin2, rt, batch), "FLOAT")))

        def up(f, c, ca, r_, g, ra) -> list[V]:
            m = up_mask(f, c, ca, r_, g, ra)
            return [e.select(m, x * 2.0, x) for x in (f, c, ca)] + [e.select(m, x * 0.5, x) for x in (r_, g, ra)]

        f, c, ca, rr, _, ra = e.while_loop([one, c, ca, rr, rr * 0.5, ra],
                                           lambda *v: _any(e, up_mask(*v)), up)

        def down_mask(f, c, g, ca, r_, ra) -> V:
            return e.land(e.land(live, e.cmp("GE", g, r_, "FLOAT")),
                          e.land(e.cmp("LT", e.max(r_, ra), _splat(e, sfmax2, rt, batch), "FLOAT"),
                                 e.cmp("GT", e.min(e.min(f, c), e.min(g, ca)), _splat(e, sfmin2, rt, batch), "FLOAT")))

        def down(f, c, g, ca, r_, ra) -> list[V]:
            m = down_mask(f, c, g, ca, r_, ra)
            return [e.select(m, x * 0.5, x) for x in (f, c, g, ca)] + [e.select(m, x * 2.0, x) for x in (r_, ra)]

        f, c, _, _, rr, _ = e.while_loop([f, c, c * 0.5, ca, rr, ra], lambda *v: _any(e, down_mask(*v)), down)
        di = _pick(e, d, i)
        shrink = e.land(e.land(e.cmp("LT", f, one, "FLOAT"), e.cmp("LT", di, one, "FLOAT")),
                        e.cmp("LE", f * di, _splat(e, sfmin1, rt, batch), "FLOAT"))
        grow = e.land(e.land(e.cmp("GT", f, one, "FLOAT"), e.cmp("GT", di, one, "FLOAT")),
                      e.cmp("GE", di, _splat(e, sfmax1, rt, batch) / f, "FLOAT"))
        keep = e.land(e.land(live, e.cmp("LT", c + rr, s * 0.95, "FLOAT")), e.lnot(e.lor(shrink, grow)))
        f = e.select(keep, f, one)
        ib = e.broadcast_in_dim(i, batch + [n], [])
        d = e.select(e.cmp("EQ", idx, ib, "SIGNED"), e.broadcast_in_dim(di * f, batch + [n], bd), d)
        ishape = e.broadcast_in_dim(i, shape, [])
        fs = e.broadcast_in_dim(f, shape, bd)
        unit = _splat(e, 1, rt, shape)
        row_mul = e.select(e.cmp("EQ", rows, ishape, "SIGNED"), unit / fs, unit)
        col_mul = e.select(e.cmp("EQ", cols, ishape, "SIGNED"), fs, unit)
        if t in COMPLEX_TYPES:  # (the parts scaled alone: a complex product would make inf * 0 = NaN)
            a = e.complex((e.real(a) * row_mul) * col_mul, (e.imag(a) * row_mul) * col_mul)
        else:
            a = (a * row_mul) * col_mul
        return [i + 1, a, d, e.lor(noconv, keep)]

    def sweep(k: V, a: V, d: V, noconv: V) -> list[V]:
        _, a, d, noconv = e.while_loop([zero_i, a, d, no], lambda i, *_: e.cmp("LT", i, e.scalar(n, "i32"), "SIGNED"),
                                       column)
        return [k + 1, a, d, noconv]

    def more(k: V, a: V, d: V, noconv: V) -> V:
        return e.land(e.cmp("LT", k, e.scalar(MAX_BALANCE_SWEEPS, "i32"), "SIGNED"), _any(e, noconv))

    _, a, d, _ = e.while_loop([zero_i, a, _splat(e, 1, rt, batch + [n]), _splat(e, True, "i1", batch)], more, sweep)
    return a, d, piv, lo, hi


def _gebak(e: Emitter, v: V, d: V | None, piv: V, lo: V, hi: V, left: bool) -> V:
    """LAPACK ``?gebak`` (``JOB = 'B'``; ``'P'`` when ``d`` is None) as ``reference.gebak``: eigenvectors (or Schur
    vectors) ``v`` ``[*b, n, n]`` (columns) of :func:`_balance`'s matrix made those of ``A``: rows multiplied by
    ``d`` (divided for ``left`` vectors), then
    rows swapped back by ``piv`` for the positions outside ``lo .. hi``, in ``?gebak``'s order (``lo - 1`` down to
    0, then ``hi + 1`` up; a ``stablehlo.while`` over ``ii``, each batch element its own rows)."""
    shape = v.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    bd = list(range(r))
    if d is not None:
        dv = _to_elem(e, e.broadcast_in_dim(d, shape, bd + [r]), v.t)
        v = v / dv if left else v * dv

    def step(ii: V, v: V) -> list[V]:
        iib = e.broadcast_in_dim(ii, batch, [])
        below = e.cmp("LT", iib, lo, "SIGNED")
        i = e.select(below, lo - _splat(e, 1, "i32", batch) - iib, iib)
        go = e.lor(below, e.cmp("GT", iib, hi, "SIGNED"))
        k = _pick(e, piv, i)
        go = e.land(go, e.cmp("NE", k, i, "SIGNED"))
        return [ii + e.scalar(1, "i32"), _exchange(e, v, i, k, r, e.broadcast_in_dim(go, shape, bd))]

    _, v = e.while_loop([e.scalar(0, "i32"), v], lambda ii, _: e.cmp("LT", ii, e.scalar(n, "i32"), "SIGNED"), step)
    return v


def _schur_vectors(e: Emitter, t: V, z: V, left: bool, right: bool, balance: Sequence[V] | None = None) -> tuple[V, V]:
    """``(vl, vr)`` of the complex Schur form ``A = Z T Z^H`` (``t``, ``z`` ``[*b, n, n]``): right eigenvectors
    ``Z X`` with ``X`` those of ``T`` (:func:`_triangular_eigenvectors`), left ones ``Z Y`` with ``Y`` those
    of ``T^H`` (lower triangular: the same routine on ``T^H`` with rows and columns reversed); with ``balance``
    (``(d, piv, ilo, ihi)`` of :func:`_balance`: ``Z T Z^H = D^-1 P^T A P D``) those of ``A``
    (:func:`_gebak`); each column normalised (:func:`_normalize_columns`); zeros where not ``left`` / ``right``."""
    shape = t.shape
    r = len(shape) - 2
    bd = list(range(r))
    vr = vl = _splat(e, 0, t.t, shape)

    def back(v: V, inverse: bool) -> V:
        return v if balance is None else _gebak(e, v, *balance, left=inverse)

    if right:
        x = e.dot_general(z, _triangular_eigenvectors(e, t), bd, bd, [r + 1], [r])
        vr = _normalize_columns(e, back(x, False))
    if left:
        flipped = _reverse(e, _adjoint(e, t), [r, r + 1])
        y = _reverse(e, _triangular_eigenvectors(e, flipped), [r, r + 1])
        vl = _normalize_columns(e, back(e.dot_general(z, y, bd, bd, [r + 1], [r]), True))
    return vl, vr


def build_geev(e: Emitter, a: V, left: bool, right: bool) -> list[V]:
    """``cgeev`` / ``zgeev`` of a complex ``a`` (``[*b, n, n]``; real ``a``: :func:`build_geev_real`):
    ``[w, vl, vr, info]`` as jaxlib's kernels return them: eigenvalues, left eigenvectors
    ``u_k^H A = w_k u_k^H`` and right ones ``A v_k = w_k v_k`` as columns (zeros where not asked for: ``left``
    / ``right``), each of norm 1 with its largest entry real, ``info`` 0 (1 where the QR steps did not
    converge or the input has a NaN).

    As ``?geev``: ``A`` balanced first (:func:`_balance`, ``D^-1 P^T A P D``: exact; the permutation isolates
    the eigenvalues a zero pattern exposes, in LAPACK's places, and the scaling keeps the eigenvalues of a badly
    scaled matrix as accurate as LAPACK's); the complex Schur form ``D^-1 P^T A P D = Z T Z^H``
    (:func:`_schur`); the eigenvalues ``diag(T)``, the eigenvectors of :func:`_schur_vectors`. The eigenvalues
    come in the order of ``T``'s diagonal: ``zlahqr``'s steps give LAPACK's (all random matrices tested), which
    rounding could still change where an eigenvalue deflates one step earlier or later.
    """
    b, *balance = _balance(e, a)
    tmat, z, info = _schur(e, b)
    return [_diagonal(e, tmat), *_schur_vectors(e, tmat, z, left, right, balance), info]


# -- real gees: the real Schur form by Francis double-shift QR steps (reference.py: real_schur) ----------


def _pick(e: Emitter, v: V, i: V) -> V:
    """``v[..., i]`` of ``v`` ``[*b, n]`` at an i32 ``i`` (0-d, or ``[*b]``: one index per batch element) as
    ``[*b]``; 0 where ``i`` is out of range (a one-hot mask and a ``reduce`` add, unlike ``dynamic_slice``,
    which clamps)."""
    shape = v.shape
    r = len(shape) - 1
    at = e.cmp("EQ", e.iota(shape, r, "i32"), e.broadcast_in_dim(i, shape, list(range(len(i.shape)))), "SIGNED")
    return e.reduce_sum(e.select(at, v, _splat(e, 0, v.t, shape)), [r])


def _subdiagonal(e: Emitter, h: V) -> V:
    """``s`` ``[*b, n]`` with ``s[i] = h[i, i-1]`` (``s[0] = 0``)."""
    shape = h.shape
    r = len(shape) - 2
    return e.reduce_sum(e.select(_subdiagonal_mask(e, shape), h, _splat(e, 0, h.t, shape)), [r + 1])


def _superdiagonal(e: Emitter, h: V) -> V:
    """``s`` ``[*b, n]`` with ``s[i] = h[i, i+1]`` (``s[n-1] = 0``)."""
    shape = h.shape
    r = len(shape) - 2
    above = e.cmp("EQ", e.iota(shape, r + 1, "i32"), e.iota(shape, r, "i32") + 1, "SIGNED")
    return e.reduce_sum(e.select(above, h, _splat(e, 0, h.t, shape)), [r + 1])


def _blocks(e: Emitter, h: V, min_order: int = 3) -> tuple[V, V, V]:
    """``(live, lo, hi)`` per batch element of a Hessenberg-in-progress ``h``: ``live`` (i1) when an unreduced
    diagonal block has order ``min_order`` (2 or 3) or more and ``h`` has no NaN; ``hi`` the last row of the
    lowest such block, ``lo`` its first row (i32). Order 3 (real quasi-triangular form: its 2x2 blocks stay)
    needs two adjacent non-zero subdiagonal entries, order 2 one."""
    shape = h.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    vec = batch + [n]
    nz = e.cmp("NE", _subdiagonal(e, h), _splat(e, 0, h.t, vec), "FLOAT")
    big = e.land(nz, _shift_down(e, nz)) if min_order == 3 else nz
    idx = e.iota(vec, r, "i32")
    zero = _splat(e, 0, "i32", vec)

    hi = _reduce(e, e.select(big, idx, zero), r, 0, "maximum")
    lo = _reduce(e, e.select(e.land(e.lnot(nz), e.cmp("LT", idx, e.broadcast_in_dim(hi, vec, list(range(r))),
                                                        "SIGNED")), idx, zero), r, 0, "maximum")
    some = _reduce(e, big, r, False, "or")
    return e.land(some, e.lnot(_has_nan(e, h))), lo, hi


def _sign(e: Emitter, x: V) -> V:
    """Fortran's ``SIGN(1, x)``: 1 for ``x >= 0``, else -1."""
    return e.select(e.cmp("GE", x, _splat(e, 0, x.t, x.shape), "FLOAT"), _splat(e, 1, x.t, x.shape),
                    _splat(e, -1, x.t, x.shape))


def _lanv2(e: Emitter, a: V, b: V, c: V, d: V, eps: float) -> tuple[V, ...]:
    """LAPACK ``?lanv2`` on the real 2x2 blocks ``[[a, b], [c, d]]`` (each ``[*b]``), every branch computed
    and chosen by ``select``: ``(a', b', c', d', cs, sn)`` with ``[[a, b], [c, d]] = G^T [[a', b'], [c', d']] G``,
    ``G = [[cs, sn], [-sn, cs]]``; the result is upper triangular (``c' = 0``) for real eigenvalues, else
    standardised: ``a' = d'`` and ``b' c' < 0``."""
    shape = a.shape
    t = a.t

    def k(v):
        return _splat(e, v, t, shape)

    def safe(x):
        return e.select(e.cmp("EQ", x, k(0), "FLOAT"), k(1), x)

    case1 = e.cmp("EQ", c, k(0), "FLOAT")
    case2 = e.land(e.lnot(case1), e.cmp("EQ", b, k(0), "FLOAT"))
    case3 = e.land(e.land(e.lnot(e.lor(case1, case2)), e.cmp("EQ", a - d, k(0), "FLOAT")),
                   e.cmp("NE", _sign(e, b), _sign(e, c), "FLOAT"))
    gen = e.lnot(e.lor(e.lor(case1, case2), case3))
    temp = a - d
    p = temp * 0.5
    bcmax = e.max(e.abs(b), e.abs(c))
    bcmis = e.min(e.abs(b), e.abs(c)) * _sign(e, b) * _sign(e, c)
    scale = safe(e.max(e.abs(p), bcmax))
    z = p / scale * p + bcmax / scale * bcmis
    real = e.land(gen, e.cmp("GE", z, k(4 * eps), "FLOAT"))
    cplx = e.land(gen, e.lnot(real))
    # real eigenvalues: upper triangular at once
    zr = p + _sign(e, p) * e.sqrt(scale) * e.sqrt(e.max(z, k(0)))
    ra, rd = d + zr, d - bcmax / safe(zr) * bcmis
    tau = safe(_hypot(e, c, zr))
    rcs, rsn, rb = zr / tau, c / tau, b - c
    # complex (or nearly equal real) eigenvalues: equal diagonal first
    sigma = b + c
    tau = safe(_hypot(e, sigma, temp))
    ccs = e.sqrt((e.abs(sigma) / tau + 1.0) * 0.5)
    csn = -(p / (tau * ccs)) * _sign(e, sigma)
    aa, bb = a * ccs + b * csn, b * ccs - a * csn
    cc, dd = c * ccs + d * csn, d * ccs - c * csn
    ca, cb = aa * ccs + cc * csn, bb * ccs + dd * csn
    cc, cd = cc * ccs - aa * csn, dd * ccs - bb * csn
    mid = (ca + cd) * 0.5
    c_nz = e.cmp("NE", cc, k(0), "FLOAT")
    b_nz = e.cmp("NE", cb, k(0), "FLOAT")
    same = e.land(e.land(c_nz, b_nz), e.cmp("EQ", _sign(e, cb), _sign(e, cc), "FLOAT"))  # real after all
    sab, sac = e.sqrt(e.abs(cb)), e.sqrt(e.abs(cc))
    pp = _sign(e, cc) * sab * sac
    tt = 1.0 / e.sqrt(e.select(same, e.abs(cb + cc), k(1)))
    cs1, sn1 = sab * tt, sac * tt
    swap = e.land(c_nz, e.lnot(b_nz))
    o_a = e.select(same, mid + pp, mid)
    o_d = e.select(same, mid - pp, mid)
    o_b = e.select(same, cb - cc, e.select(swap, -cc, cb))
    o_c = e.select(e.lor(same, swap), k(0), cc)
    o_cs = e.select(same, ccs * cs1 - csn * sn1, e.select(swap, -csn, ccs))
    o_sn = e.select(same, ccs * sn1 + csn * cs1, e.select(swap, ccs, csn))

    def pick(c2, r, x, keep):
        return e.select(case2, c2, e.select(real, r, e.select(cplx, x, keep)))

    return (pick(d, ra, o_a, a), pick(-c, rb, o_b, b), pick(k(0), k(0), o_c, c), pick(a, rd, o_d, d),
            pick(k(0), rcs, o_cs, k(1)), pick(k(1), rsn, o_sn, k(0)))


def _real_schur(e: Emitter, a: V) -> tuple[V, V, V, V, V]:
    """Real Schur form ``A = Z T Z^T`` of a real ``a`` ``[*b, n, n]`` (LAPACK ``?gees`` / ``?lahqr``):
    ``(T, Z, wr, wi, info)``.

    Hessenberg reduction (:func:`_hessenberg_with_q`), then Francis double-shift QR steps (Golub & Van Loan,
    *Matrix Computations*, 4th ed., Alg. 7.5.1) while a batch element has an unreduced block of order 3 or
    more (at most :data:`MAX_QR_STEPS_PER_EIGENVALUE` ``* max(n, 10)`` steps) with ``?lahqr``'s shifts: the
    eigenvalues of the trailing 2x2 block of the lowest such block ``[lo, hi]`` when complex, twice the one
    nearer its last diagonal entry when real (so eigenvalues deflate in LAPACK's order far more often), and
    its exceptional ones after every :data:`EXCEPTIONAL_SHIFT_EVERY` steps in which ``hi`` stayed; the bulge
    chased by 3-element Householder reflectors ``k = lo .. hi - 1``
    (one ``stablehlo.while`` over ``k`` for all batch elements, the identity outside each one's block),
    negligible subdiagonal entries set to exact zeros after each step. Then every remaining 2x2 block is
    standardised by :func:`_lanv2` (split when its eigenvalues are real). ``wr`` / ``wi``: the eigenvalues,
    a conjugate pair as ``(x, +y), (x, -y)``; ``info`` 1 where the steps did not converge or ``T`` has a NaN.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = a.t
    bd = list(range(r))
    vec = batch + [n]
    eps, tiny = float(_finfo(t).eps), float(_finfo(t).tiny)
    zero_i = e.scalar(0, "i32")
    h, z = _hessenberg_with_q(e, a)
    h = _deflate(e, h, eps, tiny)
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    idx = e.iota(vec, r, "i32")

    def step(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> list[V]:
        # (live, lo, hi): _blocks of h, carried from the end of the previous step (or from before the loop)
        # steps since the block's bottom last moved (?lahqr's KDEFL): it picks the exceptional shifts
        kdefl = e.select(e.cmp("EQ", hi, last_hi, "SIGNED"), kdefl + 1, _splat(e, 1, "i32", batch))
        l1, l2 = lo + 1, lo + 2
        d, sub, sup = _diagonal(e, h), _subdiagonal(e, h), _superdiagonal(e, h)  # h[i, i], h[i, i-1], h[i, i+1]
        entries = [_pick(e, v, i) for v, i in ((d, hi), (d, hi - 1), (sup, hi - 1), (sub, hi), (sub, hi - 1),
                                               (d, lo), (sup, lo), (sub, l1), (d, l1), (sub, l2))]
        # the bulge's first column is quadratic in H: computed from entries divided by their largest magnitude
        # (the reflector of a multiple of a vector is that of the vector), so it neither overflows nor underflows
        big = e.abs(entries[0])
        for x in entries[1:]:
            big = e.max(big, e.abs(x))
        big = e.select(e.cmp("EQ", big, _splat(e, 0, t, batch), "FLOAT"), _splat(e, 1, t, batch), big)
        hh, hm, hmh, hhm, hm2, h00, h01, h10, h11_, h21 = (x / big for x in entries)
        s, p = hm + hh, hm * hh - hmh * hhm
        # ?lahqr's shifts: the trailing 2x2 block's eigenvalues when complex; when real, both the one nearer
        # hh (a double real shift), which deflates the eigenvalues in LAPACK's order far more often
        tr = s * 0.5
        det = p - tr * tr
        real = e.cmp("LT", det, _splat(e, 0, t, batch), "FLOAT")
        root = e.sqrt(e.max(-det, _splat(e, 0, t, batch)))
        rt = tr + e.select(e.cmp("GE", hh, tr, "FLOAT"), root, -root)
        s, p = e.select(real, rt * 2.0, s), e.select(real, rt * rt, p)
        # exceptional shifts every EXCEPTIONAL_SHIFT_EVERY steps without deflation: from the block's top, every
        # second time from its bottom (?lahqr)
        zero = _splat(e, 0, "i32", batch)
        bottom, top = (e.cmp("EQ", e.bin("remainder", kdefl, _splat(e, every, "i32", batch)), zero, "SIGNED")
                       for every in (2 * EXCEPTIONAL_SHIFT_EVERY, EXCEPTIONAL_SHIFT_EVERY))
        ss = e.select(bottom, e.abs(hhm) + e.abs(hm2), e.abs(h10) + e.abs(h21))
        h11 = ss * 0.75 + e.select(bottom, hh, h00)
        s = e.select(top, h11 * 2.0, s)  # (bottom implies top)
        p = e.select(top, h11 * h11 + ss * ss * 0.4375, p)
        x0 = h00 * h00 + h01 * h10 - s * h00 + p
        y0 = h10 * (h00 + h11_ - s)
        z0 = h10 * h21

        def chase(k: V, h: V, z: V) -> list[V]:
            col = _column(e, h, k - 1)  # (k = 0: column 0, unused: k = lo there)
            at_lo = e.cmp("EQ", lo, e.broadcast_in_dim(k, batch, []), "SIGNED")
            kb = e.broadcast_in_dim(k, batch, [])
            active = e.land(live, e.land(e.cmp("GE", kb, lo, "SIGNED"), e.cmp("LT", kb, hi, "SIGNED")))
            x = e.select(at_lo, x0, _pick(e, col, k))
            y = e.select(at_lo, y0, _pick(e, col, k + 1))
            w = e.select(at_lo, z0, _pick(e, col, k + 2))
            w = e.select(e.cmp("GT", kb + 2, hi, "SIGNED"), _splat(e, 0, t, batch), w)
            kv = e.broadcast_in_dim(k, vec, [])
            target = e.select(e.cmp("EQ", idx, kv, "SIGNED"), e.broadcast_in_dim(x, vec, bd),
                              e.select(e.cmp("EQ", idx, kv + 1, "SIGNED"), e.broadcast_in_dim(y, vec, bd),
                                       e.select(e.cmp("EQ", idx, kv + 2, "SIGNED"), e.broadcast_in_dim(w, vec, bd),
                                                _splat(e, 0, t, vec))))
            v, tau, _ = _householder(e, target, k)
            tau = e.select(active, tau, _splat(e, 0, t, batch))
            h = _reflect_right(e, _reflect(e, h, v, tau), v, tau)
            ks = e.broadcast_in_dim(k, shape, [])
            bulge = e.land(e.cmp("EQ", cols, ks - 1, "SIGNED"), e.cmp("GE", rows, ks + 1, "SIGNED"))
            h = e.select(bulge, _splat(e, 0, t, shape), h)  # the entries the reflector zeroes: exactly 0
            return [k + 1, h, _reflect_right(e, z, v, tau)]

        out = e.while_loop([zero_i, h, z], lambda k, *_: e.cmp("LT", k, e.scalar(n - 1, "i32"), "SIGNED"), chase)
        h = _deflate(e, _below_subdiagonal_zero(e, out[1]), eps, tiny)
        return [it + 1, kdefl, hi, *_blocks(e, h), h, out[2]]

    def more(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> V:
        return e.land(e.cmp("LT", it, e.scalar(MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10), "i32"), "SIGNED"),
                      _any(e, live))

    blocks = _blocks(e, h)
    live = blocks[0]
    if n >= 3:
        no_step, no_row = _splat(e, 0, "i32", batch), _splat(e, -1, "i32", batch)  # (kdefl, last_hi before step 1)
        _, _, _, live, _, _, h, z = e.while_loop([zero_i, no_step, no_row, *blocks, h, z], more, step)
    info = e.select(e.lor(live, _has_nan(e, h)), _splat(e, 1, "i32", batch), _splat(e, 0, "i32", batch))

    def standardise(k: V, h: V, z: V) -> list[V]:
        block = e.dynamic_slice(h, [zero_i] * r + [k, k], batch + [2, 2])
        pa, pb, pc, pd = (e.reshape(e.slice(block, [0] * r + [i, j], batch + [i + 1, j + 1]), batch)
                          for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
        na, nb, nc, nd, cs, sn = _lanv2(e, pa, pb, pc, pd, eps)
        here = e.cmp("NE", pc, _splat(e, 0, t, batch), "FLOAT")
        cs = e.select(here, cs, _splat(e, 1, t, batch))
        sn = e.select(here, sn, _splat(e, 0, t, batch))
        h = _rotate_pair(e, _rotate_pair(e, h, k, cs, sn, rows=True), k, cs, sn, rows=False)
        new = [e.reshape(e.select(here, x, old), batch + [1, 1]) for x, old in ((na, pa), (nb, pb), (nc, pc), (nd, pd))]
        new = e.concatenate([e.concatenate(new[:2], r + 1), e.concatenate(new[2:], r + 1)], r)
        h = e.dynamic_update_slice(h, new, [zero_i] * r + [k, k])
        return [k + 1, h, _rotate_pair(e, z, k, cs, sn, rows=False)]

    if n >= 2:
        _, h, z = e.while_loop([zero_i, h, z], lambda k, *_: e.cmp("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                               standardise)
    h = e.select(e.cmp("GT", rows, cols + 1, "SIGNED"), _splat(e, 0, t, shape), h)
    wr = _diagonal(e, h)
    if n < 2:
        return h, z, wr, _splat(e, 0, t, vec), info
    # A standardised block's two diagonal entries are one value (?lanv2 stores it twice); XLA may compute the
    # two copies in separate fusions with different contractions, so the second is copied from the first
    # (exact data movement: a select and a reduce over zeros).
    second = e.cmp("NE", _subdiagonal(e, h), _splat(e, 0, t, vec), "FLOAT")
    wr = e.select(second, _shift_down(e, wr), wr)
    h = e.select(e.cmp("EQ", rows, cols, "SIGNED"), e.broadcast_in_dim(wr, shape, bd + [r]), h)
    sub = _slice_dim(e, _subdiagonal(e, h), r, 1, n)  # h[i+1, i], i < n - 1
    sup = _slice_dim(e, _superdiagonal(e, h), r, 0, n - 1)  # h[i, i+1], i < n - 1
    pair = e.select(e.cmp("NE", sub, _splat(e, 0, t, sub.shape), "FLOAT"),
                    e.sqrt(e.abs(sup)) * e.sqrt(e.abs(sub)), _splat(e, 0, t, sub.shape))
    none = _splat(e, 0, t, batch + [1])
    wi = e.concatenate([pair, none], r) - e.concatenate([none, pair], r)
    return h, z, wr, wi, info


def build_gees_real(e: Emitter, a: V, vectors: bool) -> list[V]:
    """``sgees`` / ``dgees`` of a real ``a`` (``[*b, n, n]``, no sorting): ``[t, vs, wr, wi, sdim, info]``: the
    real Schur form of :func:`_real_schur` (``vs`` zeros when not ``vectors``), ``sdim`` 0; ``A`` permuted
    first and the Schur vectors' rows swapped back, as :func:`build_gees`."""
    b, *balance = _balance(e, a, scale=False)
    t, z, wr, wi, info = _real_schur(e, b)
    z = _gebak(e, z, *balance, left=False) if vectors else _splat(e, 0, a.t, a.shape)
    return [t, z, wr, wi, _splat(e, 0, "i32", a.shape[:-2]), info]


def _complex_schur_of_real(e: Emitter, t: V, z: V, wr: V, wi: V) -> tuple[V, V]:
    """The complex Schur form ``(T_c, Z_c)`` of a real one (``t``, ``z`` of :func:`_real_schur`, ``[*b, n, n]``;
    ``wr``, ``wi`` its eigenvalues): ``T_c = U^H T U``, ``Z_c = Z U`` with ``U`` unitary and block diagonal,
    one 2x2 block per standardised block ``[[p, b], [c, p]]`` of ``T`` (``b c < 0``, eigenvalues ``p +- i s``,
    ``s = sqrt(-b c)``): its columns ``[b, i s] / m`` (the eigenvector of ``p + i s``) and ``[i s, b] / m``,
    ``m = |(b, s)|`` (``scipy.linalg.rsf2csf``'s reduction, every block at once). ``T_c``'s diagonal is set to
    ``wr + i wi`` exactly and its lower triangle to zeros (they are those to rounding)."""
    shape = t.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    ct = f"complex<{t.t}>"
    bd = list(range(r))
    vec = batch + [n]
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    zero = _splat(e, 0, t.t, vec)
    sup = _superdiagonal(e, t)
    start = e.cmp("GT", wi, zero, "FLOAT")  # [*b, n]: the first row of a 2x2 block
    second = e.cmp("LT", wi, zero, "FLOAT")
    b = e.select(start, sup, zero)
    s = e.select(start, wi, zero)
    m = e.select(start, _hypot(e, b, s), _splat(e, 1, t.t, vec))
    diag_start = b / m  # U[k, k] = U[k+1, k+1] = b / m, U[k, k+1] = U[k+1, k] = i s / m for a block at k
    off = s / m
    prev = _shift_down(e, diag_start)
    diag = e.select(start, diag_start, e.select(second, prev, _splat(e, 1, t.t, vec)))

    def by_row(v: V) -> V:
        return e.broadcast_in_dim(v, shape, bd + [r])

    def by_col(v: V) -> V:
        return e.broadcast_in_dim(v, shape, bd + [r + 1])

    zeros = _splat(e, 0, t.t, shape)
    above = e.land(e.cmp("EQ", cols, rows + 1, "SIGNED"), by_row(start))  # (k, k+1) of a block at k
    below = e.land(e.cmp("EQ", rows, cols + 1, "SIGNED"), by_col(start))  # (k+1, k)
    u_re = e.select(e.cmp("EQ", rows, cols, "SIGNED"), by_col(diag), zeros)
    u_im = e.select(above, by_row(off), e.select(below, by_col(off), zeros))
    u = e.complex(u_re, u_im)
    tc = _to_elem(e, t, ct)
    tc = e.dot_general(_adjoint(e, u), e.dot_general(tc, u, bd, bd, [r + 1], [r]), bd, bd, [r + 1], [r])
    w = e.complex(wr, wi)
    tc = e.select(e.cmp("EQ", rows, cols, "SIGNED"), by_col(w),
                  e.select(e.cmp("GT", rows, cols, "SIGNED"), _splat(e, 0, ct, shape), tc))
    zc = e.dot_general(_to_elem(e, z, ct), u, bd, bd, [r + 1], [r])
    return tc, zc


def _real_input_vectors(e: Emitter, v: V, wi: V) -> V:
    """Eigenvectors ``v`` ``[*b, n, n]`` (columns, normalised) of a real matrix given LAPACK's structure: the
    column of a real eigenvalue (``wi = 0``) real (its imaginary part, rounding, set to zeros), the second
    column of a conjugate pair (``wi < 0``) the conjugate of the first."""
    shape = v.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    bd = list(range(r))
    rt = _real_type(v.t)
    zero = _splat(e, 0, rt, batch + [n])
    real_col = e.broadcast_in_dim(e.cmp("EQ", wi, zero, "FLOAT"), shape, bd + [r + 1])
    second = e.broadcast_in_dim(e.cmp("LT", wi, zero, "FLOAT"), shape, bd + [r + 1])
    prev = _shift_down(e, v)
    v = e.select(real_col, e.complex(e.real(v), _splat(e, 0, rt, shape)), v)
    return e.select(second, _conj(e, prev), v)


def build_geev_real(e: Emitter, a: V, left: bool, right: bool) -> list[V]:
    """``sgeev`` / ``dgeev`` of a real ``a`` (``[*b, n, n]``): ``[wr, wi, vl, vr, info]`` as jaxlib returns them
    (``vl`` / ``vr`` complex columns, zeros where not asked for).

    As LAPACK: the real Schur form (:func:`_real_schur`: Francis double-shift QR steps), so the eigenvalues
    are ``wr +- i wi`` with real ones exactly real and conjugate pairs exactly conjugate (``+wi`` first);
    eigenvectors of the complex Schur form it gives (:func:`_complex_schur_of_real`) by
    :func:`_schur_vectors`, then real for a real eigenvalue and the conjugate of the first for the second of a
    pair (:func:`_real_input_vectors`). ``A`` is balanced first (:func:`_balance`: permuted and scaled, as
    ``?geev``): the order of the eigenvalues is that of ``T``'s diagonal, which is LAPACK's for most matrices."""
    b, *balance = _balance(e, a)
    t, z, wr, wi, info = _real_schur(e, b)
    vl = vr = _splat(e, 0, f"complex<{a.t}>", a.shape)
    if left or right:
        vl, vr = _schur_vectors(e, *_complex_schur_of_real(e, t, z, wr, wi), left, right, balance)
        vl, vr = _real_input_vectors(e, vl, wi), _real_input_vectors(e, vr, wi)
    return [wr, wi, vl, vr, info]


# -- the pass ----------------------------------------------------------------------------------------


def _flags(op, config: dict[str, str], allowed: dict[str, str]) -> None:
    for key, values in allowed.items():
        if config.get(key) not in values:
            raise fail(
                f"{attributes.str_value(op, 'call_target_name')}: backend_config '{key}' is "
                f"{config.get(key)!r}, expected one of {', '.join(values)}", op)


def _check_batch(op) -> None:
    """``num_batch_dims`` (when present) must be rank - 2 of the matrix operands (those of the highest rank:
    vectors such as ``tau``, ``jpvt`` or gtsv's diagonals have the batch dimensions and one more)."""
    fa = attributes.get(op, "mhlo.frontend_attributes", None)
    if isinstance(fa, ir.DictAttr) and "num_batch_dims" in fa:
        nb = int(ir.StringAttr(fa["num_batch_dims"]).value)
        rank = max((v.type.rank for v in op.operands if isinstance(v.type, ir.RankedTensorType)), default=None)
        if rank is not None and nb != rank - 2:  # (an unranked operand is refused with the template)
            raise fail(f"num_batch_dims {nb} does not match operand rank {rank}", op)


def _rewrite_potrf(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return list(build_cholesky(e, args[0], config["uplo"] == "L"))


def _rewrite_getrf(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_getrf(e, args[0])


def _rewrite_trsm(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    a, b = args
    return [build_triangular_solve(e, a, b, config["side"], config["uplo"], config["trans_x"], config["diag"])]


def _rewrite_geqrf(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_geqrf(e, args[0])


def _rewrite_orgqr(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return [build_orgqr(e, args[0], args[1])]


def _rewrite_syevd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_syevd(e, args[0], config["uplo"] == "L")


def _rewrite_gtsv(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    dl, d, du, b = args
    vector = b.shape[:-1]
    if len(b.shape) < 2 or any(v.shape != vector for v in (dl, d, du)) or len({v.t for v in args}) != 1:
        raise UnsupportedError(f"gtsv operands of types {', '.join(v.ty for v in args)} (expected dl, d, du of "
                               "shape [*batch, n] and b of shape [*batch, n, k], one element type)")
    return build_gtsv(e, dl, d, du, b)


def _rewrite_gehrd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"gehrd of a {a.ty} (expected a square matrix)")
    low, high = (ord(config[key]) if key in config else None for key in ("low", "high"))
    if (low, high) != (1, a.shape[-1]):
        raise UnsupportedError(f"gehrd with low = {low}, high = {high} (only the whole matrix, 1 and "
                               f"{a.shape[-1]}, is legalized)")
    return build_gehrd(e, a)


def _rewrite_sytrd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"sytrd of a {a.ty} (expected a square matrix)")
    return build_sytrd(e, a, config["uplo"] == "L")


def _rewrite_geqp3(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    a, jpvt = args
    if len(a.shape) < 2 or jpvt.t != "i32" or jpvt.shape != a.shape[:-2] + [a.shape[-1]]:
        raise UnsupportedError(f"geqp3 of {a.ty} and {jpvt.ty} (expected a [*batch, m, n] matrix and "
                               "[*batch, n] i32 pivots)")
    return build_geqp3(e, a, jpvt)


def _rewrite_gesdd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_gesdd(e, args[0], config["mode"], results)


def _rewrite_gees(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"gees of a {a.ty} (expected a square matrix)")
    if a.t in COMPLEX_TYPES:
        return build_gees(e, a, config["mode"] == "V")
    return build_gees_real(e, a, config["mode"] == "V")


def _rewrite_geev(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"geev of a {a.ty} (expected a square matrix)")
    left, right = config["compute_left"] == "V", config["compute_right"] == "V"
    if a.t in COMPLEX_TYPES:
        return build_geev(e, a, left, right)
    return build_geev_real(e, a, left, right)


#: routine -> (operand count, allowed backend_config flags, rewrite). A rewrite writes the expansion
#: with an :class:`~hlokit.passes.builder.Emitter` on the template's arguments (the call's operands) and
#: returns the values that replace the custom call's results, in order.
LEGALIZED_ROUTINES = {
    "potrf": (1, {"uplo": "LU"}, _rewrite_potrf),
    "trsm": (2, {"side": "LR", "uplo": "LU", "trans_x": "NTC", "diag": "UN"}, _rewrite_trsm),
    "getrf": (1, {}, _rewrite_getrf),
    "geqrf": (1, {}, _rewrite_geqrf),
    "orgqr": (2, {}, _rewrite_orgqr),
    "ungqr": (2, {}, _rewrite_orgqr),
    "syevd": (1, {"mode": "VN", "uplo": "LU"}, _rewrite_syevd),
    "heevd": (1, {"mode": "VN", "uplo": "LU"}, _rewrite_syevd),
    "gesdd": (1, {"mode": "ASN"}, _rewrite_gesdd),
    "gesvd": (1, {"mode": "ASN"}, _rewrite_gesdd),
    "geev": (1, {"compute_left": "NV", "compute_right": "NV"}, _rewrite_geev),
    "gees": (1, {"mode": "NV", "sort": "N"}, _rewrite_gees),
    "gtsv": (4, {}, _rewrite_gtsv),
    "gehrd": (1, {}, _rewrite_gehrd),
    "geqp3": (2, {}, _rewrite_geqp3),
    "sytrd": (1, {"uplo": "LU"}, _rewrite_sytrd),
    "hetrd": (1, {"uplo": "LU"}, _rewrite_sytrd),
}


def _check(op, routine: str) -> dict[str, str]:
    """Validate a call before any rewrite; its backend_config as characters. PassError at the op."""
    arity, allowed, _ = LEGALIZED_ROUTINES[routine]
    if len(op.operands) != arity:
        raise fail(f"{routine} with {len(op.operands)} operands (expected {arity})", op)
    try:
        config = backend_config(op)
    except attributes.AttributeReadError as exc:
        raise fail(str(exc), op) from None
    _flags(op, config, allowed)
    _check_batch(op)
    return config


def _template(cache: TemplateCache, op, routine: str, config: dict[str, str]) -> ir.Operation:
    """The parsed template of ``op``'s signature (routine, operand and result types, backend_config),
    built and parsed on first use. PassError at the op when it cannot be built."""
    key = (routine, tuple(str(v.type) for v in op.operands), tuple(str(v.type) for v in op.results),
           tuple(sorted(config.items())))
    fn = cache.funcs.get(key)
    if fn is not None:
        return fn
    e = Emitter()
    types = []
    for v in op.operands:
        if not isinstance(v.type, ir.RankedTensorType):
            raise fail(f"{routine} operand of type {v.type} (expected a ranked tensor)", op)
        t = ir.RankedTensorType(v.type)
        if not t.has_static_shape:
            raise fail(f"{routine} operand of type {v.type}: dynamic shapes are not supported "
                       "(the expansions are built for static shapes)", op)
        types.append((shape_prefix(t.shape), str(t.element_type)))
    args = e.args(types)
    try:
        shapes = [list(ir.RankedTensorType(r.type).shape) for r in op.results]
        values = LEGALIZED_ROUTINES[routine][2](e, args, config, shapes)
        if len(op.results) != len(values):  # (a hand-written call: the results LAPACK's kernel writes)
            raise fail(f"{routine} of {', '.join(str(v.type) for v in op.operands)} has {len(op.results)} "
                       f"results, expected {len(values)}: {', '.join(v.ty for v in values)}", op)
        for i, (old, new) in enumerate(zip(op.results, values)):
            if str(old.type) != new.ty:
                raise fail(f"{routine}: result #{i} has type {old.type}, expected {new.ty}", op)
        text = e.text(f"lapack_{routine}_{len(cache.funcs)}", args, values)
        return cache.parse(key, text, f"lapack {routine}")
    except UnsupportedError as err:
        raise fail(str(err), op) from None


@register_pass
class StablehloLegalizeLapackCustomCalls(Pass):
    """Rewrite jaxlib's ``lapack_*_ffi`` custom calls as StableHLO (see the module docstring)."""

    argument = "stablehlo-legalize-lapack-custom-calls"
    summary = "Legalize jaxlib's CPU LAPACK custom calls (potrf, trsm, getrf, geqrf, orgqr, syevd, gesdd, gesvd, geev, gees, gtsv, gehrd, sytrd, geqp3) to StableHLO"
    anchor = "func.func"
    options = (
        Option("strict", bool, False, "refuse a lapack_* custom call this pass cannot legalize"),
    )

    def _cache(self, context: ir.Context) -> TemplateCache:
        return TemplateCache.of_pass(self, context)

    def run_on_operation(self, func_op: ir.Operation) -> None:
        calls = []

        def collect(o):
            if o.name == "stablehlo.custom_call":
                found = lapack_routine(o)
                if found is not None:
                    calls.append((o, found[1]))
            return ir.WalkResult.ADVANCE

        func_op.walk(collect)
        if not calls:
            return
        cache = self._cache(func_op.context)
        plan = []
        for o, routine in calls:
            rewrite = LEGALIZED_ROUTINES.get(routine)
            if rewrite is None:
                if self.strict:
                    raise fail(
                        f"cannot legalize custom_call @{attributes.str_value(o, 'call_target_name')} "
                        f"(legalized LAPACK routines: {', '.join(sorted(LEGALIZED_ROUTINES))})", o)
                continue
            plan.append((o, _template(cache, o, routine, _check(o, routine))))
        instantiate_all(cache, plan)  # every call checked and its template built before any rewrite
