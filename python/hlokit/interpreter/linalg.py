"""Linear algebra of the reference interpreter: ``dot_general``, the deprecated ``dot``, ``triangular_solve``,
``cholesky``.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), sections "dot_general" and
"triangular_solve" and "cholesky"; ``dot`` follows XLA's operation semantics (https://openxla.org/xla/operation_semantics,
"Dot"). Contractions run as one batched numpy ``matmul`` in :func:`dot_compute_dtype` (also used by
:mod:`hlokit.interpreter.convolution`); ``triangular_solve`` substitutes row by row and ``cholesky`` runs LAPACK
through numpy, both in double precision; singular or non-finite inputs give NaNs and infinities, as XLA does.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.interpreter.arrays import dot_compute_dtype
from hlokit.interpreter.registry import register
from hlokit.interpreter.values import dtype_of

__all__ = ["dot_general", "dot_compute_dtype", "triangular_solve", "cholesky"]


def dot_general(
    lhs: np.ndarray,
    rhs: np.ndarray,
    lhs_batching_dimensions: Sequence[int],
    rhs_batching_dimensions: Sequence[int],
    lhs_contracting_dimensions: Sequence[int],
    rhs_contracting_dimensions: Sequence[int],
    result_dtype: np.dtype,
) -> np.ndarray:
    """Spec ``dot_general``: ``result[batch..., lhs_free..., rhs_free...] = sum over the contracting
    indices of lhs * rhs``.

    Result dimensions: the batching dimensions (in ``lhs_batching_dimensions`` order), then lhs's
    remaining dimensions, then rhs's, in order. Computed as one batched ``matmul`` in
    :func:`dot_compute_dtype` and converted to ``result_dtype`` (precision_config and algorithm do
    not change the result here). Booleans: OR of ANDs; integers wrap modulo the result's width.
    """
    lb, rb = [int(d) for d in lhs_batching_dimensions], [int(d) for d in rhs_batching_dimensions]
    lc, rc = [int(d) for d in lhs_contracting_dimensions], [int(d) for d in rhs_contracting_dimensions]
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    batch_shape = [lhs.shape[d] for d in lb]
    lf_shape, rf_shape = [lhs.shape[d] for d in lf], [rhs.shape[d] for d in rf]
    b = int(np.prod(batch_shape, dtype=np.int64))
    m = int(np.prod(lf_shape, dtype=np.int64))
    n = int(np.prod(rf_shape, dtype=np.int64))
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    ct = dot_compute_dtype(lhs.dtype, rhs.dtype, result_dtype)
    left = np.transpose(lhs, lb + lf + lc).astype(ct).reshape(b, m, k)
    right = np.transpose(rhs, rb + rc + rf).astype(ct).reshape(b, k, n)
    with np.errstate(all="ignore"):
        out = np.matmul(left, right)
    return out.reshape(batch_shape + lf_shape + rf_shape).astype(result_dtype)


@register("stablehlo.dot_general")
def _dot_general(op, operands, interp):
    dn = stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    return [
        dot_general(
            operands[0],
            operands[1],
            list(dn.lhs_batching_dimensions),
            list(dn.rhs_batching_dimensions),
            list(dn.lhs_contracting_dimensions),
            list(dn.rhs_contracting_dimensions),
            dtype_of(op.results[0].type),
        )
    ]


@register("stablehlo.dot")
def _dot(op, operands, interp):
    """Deprecated ``dot`` (XLA operation semantics "Dot"; StableHLO deprecates it in favour of
    ``dot_general``): contracts lhs's last dimension with rhs's first."""
    lhs, rhs = operands
    return [dot_general(lhs, rhs, [], [], [lhs.ndim - 1], [0], dtype_of(op.results[0].type))]


# ----------------------------------------------------------------------------------------------------------
# triangular_solve (substitution in double precision, rounded to the result type)
# ----------------------------------------------------------------------------------------------------------


def triangular_solve(
    a: np.ndarray, b: np.ndarray, left_side: bool, lower: bool, unit_diagonal: bool, transpose_a: str
) -> np.ndarray:
    """Spec ``triangular_solve``: batched solutions ``x`` of ``op(a) x = b`` (``left_side``) or
    ``x op(a) = b``, reading only ``a``'s lower (``lower``) or upper triangle, with ones on the diagonal
    when ``unit_diagonal``; ``op`` is the identity, ``TRANSPOSE`` or ``ADJOINT``. ``a``: (..., M, M);
    ``b``: (..., M, N) or (..., N, M). Solved by forward or back substitution (one row of ``x`` per step,
    vectorised over the batch and the right-hand sides) in double precision, rounded to ``b``'s dtype.

    The spec does not define singular systems; as XLA CPU, nothing is raised: IEEE arithmetic carries a zero
    on the diagonal into infinities and NaNs, and a NaN or infinity of ``a`` or ``b`` into the entries of
    ``x`` that depend on it."""
    wide = np.complex128 if a.dtype.kind == "c" or b.dtype.kind == "c" else np.float64
    t = np.tril(a.astype(wide)) if lower else np.triu(a.astype(wide))
    m = t.shape[-1]
    idx = np.arange(m)
    if unit_diagonal:
        t[..., idx, idx] = 1
    if transpose_a == "TRANSPOSE":
        t, lower = np.swapaxes(t, -1, -2), not lower
    elif transpose_a == "ADJOINT":
        t, lower = np.conj(np.swapaxes(t, -1, -2)), not lower
    rhs = b.astype(wide)
    if not left_side:  # x t = b  <=>  t^T x^T = b^T
        t, lower, rhs = np.swapaxes(t, -1, -2), not lower, np.swapaxes(rhs, -1, -2)
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], rhs.shape[:-2]) + rhs.shape[-2:], wide)
    diag = t[..., idx, idx, None]  # (..., M, 1)
    with np.errstate(all="ignore"):
        for i in range(m) if lower else range(m - 1, -1, -1):
            done = slice(0, i) if lower else slice(i + 1, m)  # rows of x solved already
            acc = rhs[..., i, :] - (t[..., i : i + 1, done] @ x[..., done, :])[..., 0, :]
            x[..., i, :] = acc / diag[..., i, :]
    if not left_side:
        x = np.swapaxes(x, -1, -2)
    return np.array(x.astype(b.dtype), order="C")


@register("stablehlo.triangular_solve")
def _triangular_solve(op, operands, interp):
    def flag(name: str) -> bool:
        return attributes.bool_value(op, name, attributes.REQUIRED)

    return [
        triangular_solve(
            operands[0], operands[1], flag("left_side"), flag("lower"), flag("unit_diagonal"),
            attributes.enum_value(op, "transpose_a"),
        )
    ]  # fmt: skip


# ----------------------------------------------------------------------------------------------------------
# cholesky (LAPACK's factorisation through numpy in double precision, rounded to the result type)
# ----------------------------------------------------------------------------------------------------------


def cholesky(a: np.ndarray, lower: bool) -> np.ndarray:
    """Spec ``cholesky``: for each ``(..., N, N)`` matrix of ``a`` the factor ``L`` (``lower``, ``a = L L^H``)
    or ``U`` (``a = U^H U``) of the Hermitian matrix read from ``a``'s lower (``lower``) or upper triangle
    (the other triangle is not read; a complex diagonal's imaginary part is ignored, as LAPACK ``?potrf``).
    The other triangle of the result is 0. Where a matrix is not positive definite the spec leaves the
    result implementation-defined: as XLA, every entry of that matrix is NaN. Computed in double
    precision, rounded to ``a``'s dtype.
    """
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    x = a.astype(wide)
    n = x.shape[-1]
    tri = np.tril(x) if lower else np.triu(x)
    strict = np.tril(x, -1) if lower else np.triu(x, 1)
    herm = tri + np.conj(np.swapaxes(strict, -1, -2))
    idx = np.arange(n)
    herm[..., idx, idx] = herm[..., idx, idx].real
    flat = herm.reshape(-1, n, n)
    out = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            with np.errstate(all="ignore"):
                factor = np.linalg.cholesky(m)
            ok = np.all(np.isfinite(factor))
        except np.linalg.LinAlgError:
            ok = False
        if not ok:
            out[i] = np.nan
        else:
            out[i] = factor if lower else np.conj(factor.T)
    return np.array(out.reshape(x.shape).astype(a.dtype), order="C")


@register("stablehlo.cholesky")
def _cholesky(op, operands, interp):
    return [cholesky(operands[0], attributes.bool_value(op, "lower", False))]
