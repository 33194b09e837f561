"""Polar decomposition by the QR-based dynamically weighted Halley iteration (QDWH), and the SVD built on it.

* :func:`qdwh_polar` -- the unitary polar factor ``U_p`` of ``A`` (``[*b, m, n]``, ``m >= n``), ``A = U_p H``
  with ``H`` Hermitian positive semidefinite.
* :func:`polar_svd` -- ``A = U diag(s) V^H`` as ``U = U_p V`` with ``H = V diag(s) V^H`` from an
  eigendecomposition of ``H`` (Nakatsukasa & Higham's QDWH-SVD).

The iteration (Nakatsukasa, Bai & Gygi, "Optimizing Halley's iteration for computing the matrix polar
decomposition", SIAM J. Matrix Anal. Appl. 31(5), 2010; Nakatsukasa & Higham, "Stable and efficient spectral
divide and conquer algorithms for the symmetric eigenvalue decomposition and the SVD", SIAM J. Sci. Comput.
35(3), 2013): ``X_0 = A / ||A||_F``; with ``l`` a lower bound of ``X``'s smallest singular value and the
weights ``a = h(l)``, ``b = (a - 1)^2 / 4``, ``c = a + b - 1``,

* while ``c > 100``: ``[sqrt(c) X; I] = [Q_1; Q_2] R`` (Householder QR), ``X <- (b / c) X + (a - b / c) /
  sqrt(c) Q_1 Q_2^H``;
* then: ``Z = I + c X^H X = L L^H`` (Cholesky), ``X <- (b / c) X + (a - b / c) X Z^{-1}`` (two triangular
  solves);
* ``l <- l (a + b l^2) / (1 + c l^2)``.

The weights depend on ``l`` only, and ``l_0`` is a fixed bound (:data:`L0`: ``1e-9`` for f32, ``1e-18`` for
f64, below ``1 / (cond(A) sqrt(n))`` of every matrix whose small singular values the type resolves), so the
whole schedule is computed when the program is built: 4 steps for f32 (2 QR-based), 6 for f64 (3 QR-based),
run as two loops over constant weight tables (one copy of each step's ops), with no data-dependent loop. Singular values below ``l_0 ||A||_F`` converge only partly; they
are at the rounding level of ``A``, and :func:`polar_svd` re-orthonormalises ``U``.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import COMPLEX_TYPES, Emitter, V
from hlokit.passes.lapack.matrix import (
    abs2, adjoint, any_true, conj, dot, identity_matrix, pad_dim, real_type, reverse, slice_dim, splat, to_elem,
)
from hlokit.passes.lapack.cholesky import build_cholesky
from hlokit.passes.lapack.jacobi import orthonormal_columns, sort_columns
from hlokit.passes.lapack.qr import build_geqrf, build_orgqr

__all__ = ["L0", "qdwh_schedule", "qdwh_polar", "polar_svd"]

#: ``l_0``, the assumed lower bound of ``sigma_min(A) / ||A||_F``, per real element type.
L0 = {"f32": 1e-9, "f64": 1e-18}

#: Steps with ``c`` above this use the QR-based form (Nakatsukasa & Higham: the Cholesky form is stable for
#: ``c <= 100``).
CHOLESKY_C_MAX = 100.0

#: Loops of the blocked QR of ``[sqrt(c) X; I]`` (one fixed-shape window: a third of the compile time of
#: the default three, and as fast on the stacked ``2n x n`` matrix on XLA CPU).
QR_SEGMENTS = 1

#: ``U = U_p V`` is re-orthonormalised by a QR where ``|U^H U - I|`` exceeds ``ORTHO_SLACK n eps``.
ORTHO_SLACK = 4.0


def qdwh_schedule(l0: float, tol: float) -> list[tuple[float, float, float]]:
    """The QDWH weights ``(a, b, c)`` of each step from the lower bound ``l0``, until ``1 - l < tol``.

    ``h(l) = sqrt(1 + d) + sqrt(8 - 4 d + 8 (2 - l^2) / (l^2 sqrt(1 + d))) / 2`` with
    ``d = (4 (1 - l^2) / l^4)^(1/3)`` (Nakatsukasa, Bai & Gygi 2010, eq. 3.3); at most 12 steps.
    """
    out: list[tuple[float, float, float]] = []
    l = l0
    while len(out) < 12:
        l2 = l * l
        d = (4.0 * max(1.0 - l2, 0.0) / (l2 * l2)) ** (1.0 / 3.0)
        a = math.sqrt(1.0 + d) + 0.5 * math.sqrt(8.0 - 4.0 * d + 8.0 * (2.0 - l2) / (l2 * math.sqrt(1.0 + d)))
        b = (a - 1.0) ** 2 / 4.0
        c = a + b - 1.0
        out.append((a, b, c))
        l = min(1.0, l * (a + b * l2) / (1.0 + c * l2))
        if 1.0 - l < tol:
            break
    return out


def _qr_step(e: Emitter, x: V, scale: V, p: V, q: V) -> V:
    """``X <- p X + q Q_1 Q_2^H`` with ``[scale X; I] = [Q_1; Q_2] R`` (``scale = sqrt(c)``, ``p = b / c``,
    ``q = (a - b / c) / sqrt(c)``; the weights 0-d of ``x``'s element type)."""
    shape = x.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    bx = lambda w: e.broadcast_in_dim(w, shape, [])  # noqa: E731
    stacked = e.concatenate([x * bx(scale), identity_matrix(e, batch + [n, n], x.t)], r)
    qr, tau = build_geqrf(e, stacked, segments=QR_SEGMENTS)
    qq = build_orgqr(e, qr, tau, segments=QR_SEGMENTS)
    q1, q2 = slice_dim(e, qq, r, 0, m), slice_dim(e, qq, r, m, m + n)
    prod = dot(e, q1, conj(e, q2), r, r + 1, r + 1)
    return x * bx(p) + prod * bx(q)


def _cholesky_step(e: Emitter, x: V, c: V, p: V, q: V) -> V:
    """``X <- p X + q X Z^{-1}`` with ``Z = I + c X^H X`` by its Cholesky factor (``p = b / c``, ``q = a - b / c``)."""
    shape = x.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r + 1]
    z = identity_matrix(e, batch + [n, n], x.t) + dot(e, conj(e, x), x, r, r, r) * e.broadcast_in_dim(c, batch + [n, n], [])
    low = build_cholesky(e, z, lower=True)
    # Y = X Z^{-1}: Z Y^H = X^H, i.e. L M = X^H, L^H Y^H = M.
    mt = e.triangular_solve(low, adjoint(e, x), left_side=True, lower=True, unit_diagonal=False,
                            transpose_a="NO_TRANSPOSE")
    yt = e.triangular_solve(low, mt, left_side=True, lower=True, unit_diagonal=False, transpose_a="ADJOINT")
    return x * e.broadcast_in_dim(p, shape, []) + adjoint(e, yt) * e.broadcast_in_dim(q, shape, [])


def _steps(e: Emitter, x: V, weights: list[tuple[float, float, float]], step) -> V:
    """``x <- step(e, x, w0, w1, w2)`` for each weight triple: one ``stablehlo.while`` over a constant table
    (one copy of the step's ops, whatever the count), or the step inline when there is one."""
    if not weights:
        return x
    rt = real_type(x.t)
    if len(weights) == 1:
        return step(e, x, *(to_elem(e, e.scalar(w, rt), x.t) for w in weights[0]))
    tables = [e.constant([w[k] for w in weights], rt) for k in range(3)]

    def body(i: V, x_: V, *tabs: V) -> list[V]:
        ws = [to_elem(e, e.reshape(e.dynamic_slice(tab, [i], [1]), []), x.t) for tab in tabs]
        return [i + e.scalar(1, "i32"), step(e, x_, *ws), *tabs]

    out = e.while_([e.scalar(0, "i32"), x, *tables],
                   lambda i, *_: e.compare("LT", i, e.scalar(len(weights), "i32"), "SIGNED"), body)
    return out[1]


def qdwh_polar(e: Emitter, a: V) -> V:
    """The unitary polar factor of ``a`` (``[*b, m, n]``, ``m >= n``; f32, f64, complex<f32>, complex<f64>).

    ``[*b, m, n]`` with orthonormal columns where ``a`` has full column rank (to ``C n eps``); a zero
    matrix gives zero. Singular values of ``a`` below ``L0 ||a||_F`` are only partly mapped to 1. The
    schedule of :func:`qdwh_schedule` runs as two loops over constant weight tables, the QR-based steps
    then the Cholesky-based ones (module docstring). Raises ``ValueError`` for ``m < n``.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    if m < n:
        raise ValueError(f"qdwh_polar needs m >= n, got {m} x {n}")
    rt = real_type(a.t)
    eps = 2.0 ** -23 if rt == "f32" else 2.0 ** -52
    norm = e.sqrt(e.reduce_sum(abs2(e, a), [r, r + 1]))
    zero = e.compare("EQ", norm, splat(e, 0, rt, batch), "FLOAT")
    norm = e.select(zero, splat(e, 1, rt, batch), norm)
    x = a / e.broadcast_in_dim(to_elem(e, norm, a.t), shape, list(range(r)))
    schedule = qdwh_schedule(L0[rt], eps)
    by_qr = [(math.sqrt(c), b / c, (a_ - b / c) / math.sqrt(c)) for a_, b, c in schedule if c > CHOLESKY_C_MAX]
    by_chol = [(c, b / c, a_ - b / c) for a_, b, c in schedule if c <= CHOLESKY_C_MAX]
    return _steps(e, _steps(e, x, by_qr, _qr_step), by_chol, _cholesky_step)


def polar_svd(e: Emitter, a: V, eigh, mode: str) -> tuple[V, V | None, V | None]:
    """QDWH-SVD of ``a`` (``[*b, m, n]``, ``m >= n``): ``(s, u, v)`` with ``s`` ``[*b, n]`` real descending,
    ``u`` ``[*b, m, n]`` (``[*b, m, m]`` for ``mode`` 'A'), ``v`` ``[*b, n, n]``; ``u``, ``v`` None for 'N'.

    ``U_p`` = :func:`qdwh_polar`, ``H = (U_p^H A + (U_p^H A)^H) / 2``, ``eigh(H) -> (V, w)`` (``eigh(e, h)``
    returns ``(v, w)``, ``w`` ascending), ``s = |w|`` descending, ``U = U_p V`` with the sign of ``w`` (a
    tiny negative eigenvalue of ``H`` is a singular value whose left vector flips), then, for mode 'A' with
    ``m > n`` or where ``|U^H U - I| > ORTHO_SLACK n eps`` (a singular value below ``L0 ||A||_F``), made
    orthonormal (and completed) by the Householder QR of ``U`` with the phases of ``R``'s diagonal, which
    leaves columns that are already orthonormal unchanged to rounding (Nakatsukasa & Higham 2013, Alg. 5.1;
    backward stable).
    """
    shape = a.shape
    r = len(shape) - 2
    m, n = shape[r], shape[r + 1]
    t, rt = a.t, real_type(a.t)
    up = qdwh_polar(e, a)
    h = dot(e, conj(e, up), a, r, r, r)
    h = (h + adjoint(e, h)) * splat(e, 0.5, t, h.shape)
    if t in COMPLEX_TYPES:
        rows, cols = e.iota(h.shape, r, "i32"), e.iota(h.shape, r + 1, "i32")
        h = e.select(e.compare("EQ", rows, cols, "SIGNED"), to_elem(e, e.real(h), t), h)
    v, w = eigh(e, h)
    v, w = reverse(e, v, [r + 1]), reverse(e, w, [r])
    s = e.abs(w)
    if mode == "N":
        return e.sort([s], r, lambda p, q: e.compare("GT", p, q, "TOTALORDER"))[0], None, None
    neg = e.compare("LT", w, splat(e, 0, rt, w.shape), "FLOAT")
    sign = e.select(neg, splat(e, -1, rt, w.shape), splat(e, 1, rt, w.shape))
    u = dot(e, up, v, r, r + 1, r) * e.broadcast_in_dim(to_elem(e, sign, t), [*shape[:r], m, n], list(range(r)) + [r + 1])
    # |w| may be out of order where w changes sign: sort s descending with the columns of u and v.
    s, uv = sort_columns(e, s, e.concatenate([u, v], r), "GT")
    u, v = slice_dim(e, uv, r, 0, m), slice_dim(e, uv, r, m, m + n)
    if mode == "A" and m > n:
        return s, orthonormal_columns(e, pad_dim(e, u, r + 1, m - n)), v
    # Only where some column is not orthonormal to 4 n eps (a singular value below l_0 ||A||_F): a loop of
    # zero or one trips around the QR.
    eps = 2.0 ** -23 if rt == "f32" else 2.0 ** -52
    gram = dot(e, conj(e, u), u, r, r, r) - identity_matrix(e, [*shape[:r], n, n], t)
    off = any_true(e, e.compare("GT", e.abs(gram), splat(e, ORTHO_SLACK * n * eps, rt, gram.shape), "FLOAT"))
    trips = e.select(off, e.scalar(1, "i32"), e.scalar(0, "i32"))
    out = e.while_([e.scalar(0, "i32"), u, trips], lambda i, _u, k: e.compare("LT", i, k, "SIGNED"),
                   lambda i, u_, k: [i + e.scalar(1, "i32"), orthonormal_columns(e, u_), k])
    return s, out[1], v
