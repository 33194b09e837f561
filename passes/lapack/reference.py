"""numpy references of the LAPACK routines that have no single StableHLO op, written as the loops to emit.

Each function mirrors the StableHLO it will become, so that a reader can port it op by op:

* a ``while`` over a scalar counter ``k`` (``stablehlo.while``; the loop carry is the listed state);
* static shapes only: row / column ``k`` is read with a *static-size* slice at a dynamic start
  (``stablehlo.dynamic_slice``) and written back with ``stablehlo.dynamic_update_slice``; anything whose
  extent depends on ``k`` (the trailing submatrix, "rows below k") is an iota mask (``stablehlo.iota`` +
  ``compare`` + ``select``) over the full matrix;
* values that differ per batch element (a pivot row) are selected with one-hot masks and reduced
  (``stablehlo.reduce``), never indexed, so the batch dimensions stay leading and untouched;
* ``_rows`` / ``_cols`` are the iotas, ``_where`` is ``select``, ``np.sum(..., axis)`` is ``reduce`` add.

Semantics follow the LAPACK reference routines named in each docstring (netlib LAPACK 3.x: ``?getf2``,
``?geqr2`` / ``?larfg``, ``?org2r`` / ``?ung2r``) and, for the eigen/singular value decompositions, the
cyclic Jacobi methods (Golub & Van Loan, *Matrix Computations*, 4th ed., §8.5 two-sided Jacobi and
§8.6.3 one-sided Jacobi SVD), as XLA's own expanders do (``xla/hlo/transforms/expanders/eigh_expander.cc``
and ``xla/service/qr_expander.cc`` in openxla/xla).

Element types: float32/64 and complex64/128; batch dimensions lead (``a`` is ``[*batch, m, n]``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["getrf", "geqrf", "orgqr", "syevd", "gesdd"]


def _rows(shape) -> np.ndarray:
    """iota over the second-to-last dimension, broadcast to ``shape`` (int32)."""
    return np.broadcast_to(np.arange(shape[-2], dtype=np.int32)[:, None], shape)


def _cols(shape) -> np.ndarray:
    """iota over the last dimension, broadcast to ``shape`` (int32)."""
    return np.broadcast_to(np.arange(shape[-1], dtype=np.int32)[None, :], shape)


_where = np.where


def _abs1(x: np.ndarray) -> np.ndarray:
    """LAPACK's pivot magnitude (``i?amax``): ``|x|`` for real, ``|re| + |im|`` (``cabs1``) for complex."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _column(a: np.ndarray, k: int) -> np.ndarray:
    """``dynamic_slice(a, [0, .., 0, k], [*batch, m, 1])`` reshaped to ``[*batch, m]``."""
    return a[..., :, k]


def _row(a: np.ndarray, k: int) -> np.ndarray:
    """``dynamic_slice(a, [0, .., k, 0], [*batch, 1, n])`` reshaped to ``[*batch, n]``."""
    return a[..., k, :]


def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LU with partial pivoting, as LAPACK ``?getrf`` returns it (right-looking ``?getf2``).

    ``a``: ``[*batch, m, n]``. Returns ``(lu, ipiv, info)``: ``lu`` holds unit-lower ``L`` below the
    diagonal and ``U`` on and above it, ``ipiv`` (int32 ``[*batch, min(m, n)]``) the **1-based** row
    swapped with row ``k`` at step ``k`` (the first entry of largest ``cabs1`` in column k on or below the
    diagonal), ``info`` (int32 ``[*batch]``) 0 or the 1-based index of the first exactly zero pivot (the
    column is then not scaled, as ``?getf2`` does).

    Loop carry: ``(k, lu, ipiv, info)``; ``k`` in ``[0, min(m, n))``.
    """
    lu = np.array(a, copy=True)
    shape = lu.shape
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    kmax = min(m, n)
    ipiv = np.zeros((*batch, kmax), np.int32)
    info = np.zeros(batch, np.int32)
    rows_m = np.arange(m, dtype=np.int32)  # iota [m]
    rows, cols = _rows(shape), _cols(shape)
    k = 0
    while k < kmax:
        col = _column(lu, k)  # [*batch, m]
        mag = _where(rows_m >= k, _abs1(col), -1.0)  # NaN stays NaN: max propagates it like LAPACK's
        best = np.max(mag, axis=-1, keepdims=True)  # reduce max
        p = np.min(_where(mag == best, rows_m, m), axis=-1)  # reduce min: first maximum
        p = _where(p == m, k, p).astype(np.int32)  # all-NaN column: no swap
        ipiv[..., k] = p + 1  # dynamic_update_slice
        # Swap rows k and p: row k by dynamic_slice, row p (per batch) by a one-hot reduce.
        row_k = _row(lu, k)
        onehot_p = rows == p[..., None, None]
        row_p = np.sum(_where(onehot_p, lu, 0), axis=-2)
        lu = _where(rows == k, row_p[..., None, :], _where(onehot_p, row_k[..., None, :], lu))
        pivot = lu[..., k, k]  # dynamic_slice [*batch, 1, 1]
        zero = pivot == 0
        info = _where((info == 0) & zero, k + 1, info).astype(np.int32)
        safe = _where(zero, 1, pivot)
        col = _column(lu, k)
        l = _where((rows_m > k) & ~zero[..., None], col / safe[..., None], col)  # multipliers
        lu = _where(cols == k, l[..., :, None], lu)
        urow = _row(lu, k)
        update = l[..., :, None] * urow[..., None, :]
        lu = _where((rows > k) & (cols > k), lu - update, lu)
        k += 1
    return lu, ipiv, info


def _householder(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``?larfg`` on ``x[k:]`` of each ``x`` (``[*batch, m]``; entries above k are ignored).

    Returns ``(v, tau, beta)``: ``v`` zero above k, 1 at k; ``H = I - tau v v^H`` with
    ``H^H x[k:] = beta e_1``, ``beta`` real; ``tau = 0`` (H = I) when ``x[k+1:]`` is 0 and ``x[k]`` real.
    """
    m = x.shape[-1]
    idx = np.arange(m)
    alpha = x[..., k]
    below = idx > k
    xnorm = np.sqrt(np.sum(_where(below, np.abs(x) ** 2, 0), axis=-1))
    trivial = (xnorm == 0) & (np.imag(alpha) == 0)
    norm = np.sqrt(np.abs(alpha) ** 2 + xnorm**2)
    beta = -np.copysign(norm, np.real(alpha))
    safe_beta = _where(trivial, 1, beta)
    tau = _where(trivial, 0, (safe_beta - alpha) / safe_beta)
    denom = _where(trivial, 1, alpha - safe_beta)
    v = _where(below, x / denom[..., None], 0)
    v = _where(idx == k, 1, v).astype(x.dtype)
    beta = _where(trivial, np.real(alpha), beta)
    return v, tau.astype(x.dtype), beta


def geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Householder QR as LAPACK ``?geqrf`` returns it (``?geqr2``: ``?larfg`` then ``H^H`` from the left).

    ``a``: ``[*batch, m, n]``. Returns ``(qr, tau)``: ``R`` on and above the diagonal of ``qr``, the
    Householder vectors ``v_k`` (implicit 1 at k) below it, ``tau`` ``[*batch, min(m, n)]``;
    ``Q = H_0 H_1 ... H_{k-1}`` with ``H_k = I - tau_k v_k v_k^H``.

    Loop carry: ``(k, qr, tau)``.
    """
    qr = np.array(a, copy=True)
    shape = qr.shape
    m, n = shape[-2], shape[-1]
    kmax = min(m, n)
    tau = np.zeros((*shape[:-2], kmax), qr.dtype)
    rows, cols = _rows(shape), _cols(shape)
    k = 0
    while k < kmax:
        v, t, beta = _householder(_column(qr, k), k)
        tau[..., k] = t
        # Apply H^H = I - conj(tau) v v^H to the columns right of k: A -= conj(tau) v (v^H A).
        w = np.sum(np.conj(v)[..., :, None] * qr, axis=-2)  # [*batch, n]  (dot_general)
        update = np.conj(t)[..., None, None] * v[..., :, None] * w[..., None, :]
        qr = _where(cols > k, qr - update, qr)
        # Column k: beta on the diagonal, v below it.
        newcol = _where(np.arange(m) == k, beta.astype(qr.dtype)[..., None], _where(np.arange(m) > k, v, _column(qr, k)))
        qr = _where(cols == k, newcol[..., :, None], qr)
        k += 1
    del rows
    return qr, tau


def orgqr(qr: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The first ``p`` columns of ``Q`` (``?orgqr`` / ``?ungqr``, unblocked ``?org2r``), ``qr`` ``[*b, m, p]``.

    ``Q = H_0 ... H_{k-1}`` applied to the identity's first ``p`` columns, from the last reflector to the
    first: ``Q <- H_j Q = Q - tau_j v_j (v_j^H Q)``. Loop carry: ``(j, q)``, ``j`` from ``k - 1`` down to 0.
    """
    shape = qr.shape
    m, p = shape[-2], shape[-1]
    kk = tau.shape[-1]
    q = np.broadcast_to((_rows(shape) == _cols(shape)).astype(qr.dtype), shape).copy()
    idx = np.arange(m)
    j = kk - 1
    while j >= 0:
        v = _where(idx > j, _column(qr, j), 0)
        v = _where(idx == j, 1, v).astype(qr.dtype)
        w = np.sum(np.conj(v)[..., :, None] * q, axis=-2)
        q = q - tau[..., j][..., None, None] * v[..., :, None] * w[..., None, :]
        j -= 1
    del p
    return q


def _pairs(n: int) -> np.ndarray:
    """The cyclic-by-row order of the off-diagonal pairs ``(p, q)``, ``p < q`` (a constant table)."""
    return np.array([(p, q) for p in range(n) for q in range(p + 1, n)], np.int32).reshape(-1, 2)


def _off(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    return np.sqrt(np.sum(_where(np.eye(n, dtype=bool), 0, np.abs(a) ** 2), axis=(-2, -1)))


def _rotation(app, aqq, apq):
    """Jacobi rotation ``(c, s)`` (``c`` real, ``s`` of ``apq``'s type) annihilating the Hermitian ``apq``.

    With ``J = [[c, s], [-conj(s), c]]`` on rows/cols (p, q): ``J^H [[app, apq], [conj(apq), aqq]] J`` is
    diagonal (Golub & Van Loan Alg. 8.5.1, with ``apq = |apq| e^{i phi}`` rotated to real).
    """
    mag = np.abs(apq)
    small = mag == 0
    safe = _where(small, 1, mag)
    tau = (aqq - app) / (2 * safe)
    t = np.sign(tau + (tau == 0)) / (np.abs(tau) + np.hypot(1.0, tau))  # hypot: no overflow of tau**2
    c = 1 / np.sqrt(1 + t**2)
    phase = apq / safe
    s = t * c * phase
    c = _where(small, 1, c)
    s = _where(small, 0, s)
    return c, s


def syevd(a: np.ndarray, sweeps: int = 12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric / Hermitian eigendecomposition with LAPACK ``?syevd`` / ``?heevd``'s outputs.

    Cyclic two-sided Jacobi on the lower triangle's Hermitian matrix: a ``while`` over sweeps (until
    ``off(A) <= eps * ||A||_F`` or ``sweeps``), inside it a ``while`` over the constant pair table, each
    step applying the rotation to rows and columns p, q (dynamic_slice / dynamic_update_slice of
    rows and columns p and q). Then ``sort`` ascending with the eigenvector columns as a second operand.

    Returns ``(v, w, info)``: ``v[*b, n, n]`` unit eigenvectors in columns (phase as the rotations leave
    it), ``w[*b, n]`` real ascending, ``info`` 0 (non-zero when the sweeps did not converge).
    """
    n = a.shape[-1]
    low = np.tril(a)
    h = low + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))
    h = np.array(h, dtype=a.dtype)
    v = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape).copy()
    eps = np.finfo(a.real.dtype).eps
    scale = np.sqrt(np.sum(np.abs(h) ** 2, axis=(-2, -1)))
    pairs = _pairs(n)
    sweep = 0
    while sweep < sweeps and np.any(_off(h) > eps * scale):
        i = 0
        while i < len(pairs):
            p, q = pairs[i]
            app, aqq, apq = h[..., p, p].real, h[..., q, q].real, h[..., p, q]
            c, s = _rotation(app, aqq, apq)
            c, s = c[..., None], s[..., None]
            # Columns: A <- A J ; V <- V J.
            hp, hq = h[..., :, p].copy(), h[..., :, q].copy()
            h[..., :, p], h[..., :, q] = c * hp - np.conj(s) * hq, s * hp + c * hq
            vp, vq = v[..., :, p].copy(), v[..., :, q].copy()
            v[..., :, p], v[..., :, q] = c * vp - np.conj(s) * vq, s * vp + c * vq
            # Rows: A <- J^H A.
            rp, rq = h[..., p, :].copy(), h[..., q, :].copy()
            h[..., p, :], h[..., q, :] = c * rp - s * rq, np.conj(s) * rp + c * rq
            i += 1
        sweep += 1
    w = np.diagonal(h, axis1=-2, axis2=-1).real
    order = np.argsort(w, axis=-1, kind="stable")  # stablehlo.sort with an iota operand
    w = np.take_along_axis(w, order, axis=-1)
    v = np.take_along_axis(v, order[..., None, :], axis=-1)
    info = (_off(h) > 10 * n * eps * scale).astype(np.int32)
    return v, w.astype(a.real.dtype), info


def gesdd(a: np.ndarray, mode: str = "S", sweeps: int = 12) -> tuple[np.ndarray, ...]:
    """SVD with LAPACK ``?gesdd``'s outputs by one-sided (Hestenes) Jacobi.

    ``a``: ``[*b, m, n]``; for ``m < n`` the method runs on ``a^H`` and swaps ``u``/``vt``. Columns i, j
    of ``U = A`` are rotated until orthogonal (pairs in a constant table, as :func:`syevd`), ``V``
    accumulates the rotations; ``s`` = column norms sorted descending, ``u = U / s``. ``mode`` 'A'
    completes ``u`` to a square unitary matrix with :func:`geqrf` / :func:`orgqr`.

    Returns ``(s, u, vt, info)``; ``u``/``vt`` are None for ``mode`` 'N'.
    """
    m, n = a.shape[-2], a.shape[-1]
    if m < n:
        s, u, vt, info = gesdd(np.conj(np.swapaxes(a, -1, -2)), mode, sweeps)
        if mode == "N":
            return s, None, None, info
        return s, np.conj(np.swapaxes(vt, -1, -2)), np.conj(np.swapaxes(u, -1, -2)), info
    u = np.array(a, copy=True)
    v = np.broadcast_to(np.eye(n, dtype=a.dtype), (*a.shape[:-2], n, n)).copy()
    eps = np.finfo(a.real.dtype).eps
    pairs = _pairs(n)
    for _ in range(sweeps):
        i = 0
        while i < len(pairs):
            p, q = pairs[i]
            up, uq = u[..., :, p].copy(), u[..., :, q].copy()
            app = np.sum(np.abs(up) ** 2, axis=-1)
            aqq = np.sum(np.abs(uq) ** 2, axis=-1)
            apq = np.sum(np.conj(up) * uq, axis=-1)
            small = np.abs(apq) <= eps * np.sqrt(app * aqq)
            c, s = _rotation(app, aqq, _where(small, 0, apq))
            c, s = c[..., None], s[..., None]
            u[..., :, p], u[..., :, q] = c * up - np.conj(s) * uq, s * up + c * uq
            vp, vq = v[..., :, p].copy(), v[..., :, q].copy()
            v[..., :, p], v[..., :, q] = c * vp - np.conj(s) * vq, s * vp + c * vq
            i += 1
    sv = np.sqrt(np.sum(np.abs(u) ** 2, axis=-2))
    order = np.argsort(-sv, axis=-1, kind="stable")
    sv = np.take_along_axis(sv, order, axis=-1)
    info = np.zeros(a.shape[:-2], np.int32)
    if mode == "N":
        return sv.astype(a.real.dtype), None, None, info
    u = np.take_along_axis(u, order[..., None, :], axis=-1)
    v = np.take_along_axis(v, order[..., None, :], axis=-1)
    u = u / _where(sv == 0, 1, sv)[..., None, :]
    if mode == "A" and m > n:
        qr, tau = geqrf(u)
        pad = np.zeros((*a.shape[:-2], m, m - n), a.dtype)
        full = orgqr(np.concatenate([qr, pad], axis=-1), tau)
        # The first n columns of Q are u up to the signs/phases of R's diagonal; keep u itself.
        u = np.concatenate([u, full[..., :, n:]], axis=-1)
    return sv.astype(a.real.dtype), u, np.conj(np.swapaxes(v, -1, -2)), info
