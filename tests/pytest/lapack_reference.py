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
``?geqr2`` / ``?larfg``, ``?org2r`` / ``?ung2r``, ``?gtsv``) and, for the eigen/singular value decompositions, the
cyclic Jacobi methods (Golub & Van Loan, *Matrix Computations*, 4th ed., §8.5 two-sided Jacobi and
§8.6.3 one-sided Jacobi SVD), as XLA's own expanders do (``xla/hlo/transforms/expanders/eigh_expander.cc``
and ``xla/service/qr_expander.cc`` in openxla/xla).

Element types: float32/64 and complex64/128; batch dimensions lead (``a`` is ``[*batch, m, n]``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["getrf", "geqrf", "orgqr", "gebrd", "bdsdc", "syevd", "gesdd", "gtsv", "schur", "geev", "real_schur", "complex_schur_of_real", "lanv2", "tournament", "gebal", "gebal_permute", "gebak",
           "MAX_SWEEPS"]


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
    big = np.max(_where(idx >= k, np.abs(x), 0), axis=-1)  # (the norm of x / big: no overflow / underflow)
    big = _where(big == 0, 1, big).astype(np.abs(x).dtype)
    v, tau, beta = _householder_unit(x / big[..., None].astype(x.dtype), k)
    return v, tau, (beta * big).astype(beta.dtype)


def _householder_unit(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_householder` of ``x`` whose entries ``k:`` are at most 1 in magnitude."""
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


def gebrd(a: np.ndarray) -> tuple[np.ndarray, ...]:
    """Reduction to upper bidiagonal form as LAPACK ``?gebrd`` returns it for ``m >= n`` (unblocked ``?gebd2``):
    ``Q^H A P = B``.

    ``a``: ``[*batch, m, n]``, ``m >= n``. Returns ``(x, d, e, tauq, taup)``: ``x`` with ``d`` on the diagonal
    and ``v_k`` below it (column ``k``, implicit 1 at ``k``), ``e`` on the superdiagonal and ``u_k`` right of it
    (row ``k``, implicit 1 at ``k + 1``); ``d`` ``[*batch, n]``, ``e`` ``[*batch, n - 1]`` real; ``tauq``,
    ``taup`` ``[*batch, n]`` (``taup[n-1] = 0``); ``Q = H_0 ... H_{n-1}``, ``H_k = I - tauq_k v_k v_k^H``,
    ``P = G_0 ... G_{n-2}``, ``G_k = I - taup_k u_k u_k^H`` with ``u_k`` from ``?larfg`` of the conjugated row
    (LAPACK ``zgebrd`` stores ``conj(u_k)``; hlokit stores ``u_k``).

    Loop carry: ``(k, x, tauq, taup)``.
    """
    x = np.array(a, copy=True)
    shape = x.shape
    m, n = shape[-2], shape[-1]
    tauq = np.zeros((*shape[:-2], n), x.dtype)
    taup = np.zeros((*shape[:-2], n), x.dtype)
    rows, cols = _rows(shape), _cols(shape)
    for k in range(n):
        v, tq, d = _householder(_column(x, k), k)
        tauq[..., k] = tq
        # H^H from the left on the columns right of k: A -= conj(tauq) v (v^H A)
        w = np.sum(np.conj(v)[..., :, None] * x, axis=-2)
        x = _where(cols > k, x - np.conj(tq)[..., None, None] * v[..., :, None] * w[..., None, :], x)
        col = _where(np.arange(m) == k, d.astype(x.dtype)[..., None], _where(np.arange(m) > k, v, _column(x, k)))
        x = _where(cols == k, col[..., :, None], x)
        if k + 1 < n:
            row = _row(x, k)
            u, tp, e = _householder(np.conj(row), k + 1)
            taup[..., k] = tp
            # G from the right on the rows below k: A -= taup (A u) u^H
            y = np.sum(x * u[..., None, :], axis=-1)
            x = _where(rows > k, x - tp[..., None, None] * y[..., :, None] * np.conj(u)[..., None, :], x)
            newrow = _where(np.arange(n) == k + 1, e.astype(x.dtype)[..., None], _where(np.arange(n) > k + 1, u, row))
            x = _where(rows == k, newrow[..., None, :], x)
    idx = np.arange(n)
    d = np.real(x[..., idx, idx])
    e = np.real(x[..., idx[:-1], idx[:-1] + 1])
    return x, d, e, tauq, taup


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


def tournament(x: np.ndarray, axis: int) -> np.ndarray:
    """The round-robin ("circle method") move between two parallel Jacobi steps, along ``axis`` (even size
    ``N = 2 h``): with positions ``[t_0 .. t_{h-1} | b_0 .. b_{h-1}]`` pairing ``t_k`` with ``b_k``, the next
    order is ``[t_0, b_0, t_1 .. t_{h-2} | b_1 .. b_{h-1}, t_{h-1}]`` (static slices + ``concatenate``).
    Every pair of positions meets once in ``N - 1`` moves, after which the order is the identity again.
    """
    n = x.shape[axis]
    h = n // 2
    if h < 2:
        return x
    take = lambda lo, hi: np.take(x, np.arange(lo, hi), axis=axis)  # noqa: E731  (a static slice)
    return np.concatenate([take(0, 1), take(h, h + 1), take(1, h - 1), take(h + 1, n), take(h - 1, h)], axis=axis)


def _rotation(app, aqq, apq):
    """Jacobi rotation ``(c, s)`` (``c`` real, ``s`` of ``apq``'s type) annihilating the Hermitian ``apq``.

    With ``J = [[c, s], [-conj(s), c]]`` on rows/cols (p, q): ``J^H [[app, apq], [conj(apq), aqq]] J`` is
    diagonal (Golub & Van Loan Alg. 8.5.1, with ``apq = |apq| e^{i phi}`` rotated to real). ``sqrt(1 +
    tau^2)`` is taken as ``|tau|`` beyond ``1/sqrt(eps)``, where they are equal in floating point (no
    overflow of ``tau^2``).
    """
    mag = np.abs(apq)
    small = mag == 0
    safe = _where(small, 1, mag)
    tau = (aqq - app) / (2 * safe)
    big = np.abs(tau) > 1 / np.sqrt(np.finfo(np.asarray(tau).dtype).eps)
    root = _where(big, np.abs(tau), np.sqrt(1 + _where(big, 0, tau) ** 2))
    t = _where(tau >= 0, 1, -1) / (np.abs(tau) + root)
    c = 1 / np.sqrt(1 + t**2)
    s = t * c * (apq / safe)
    c = _where(small, 1, c)
    s = _where(small, 0, s)
    return c, s


def _rotate_columns(x, c, s):
    """``x J`` for the disjoint rotations of the pairs (column k, column k + h): ``c``, ``s`` ``[*b, h]``."""
    h = x.shape[-1] // 2
    xt, xb = x[..., :, :h], x[..., :, h:]
    c, s = c[..., None, :], s[..., None, :]
    return np.concatenate([c * xt - np.conj(s) * xb, s * xt + c * xb], axis=-1)


def _rotate_rows(x, c, s):
    """``J^H x`` for the same rotations applied to rows (row k, row k + h)."""
    h = x.shape[-2] // 2
    xt, xb = x[..., :h, :], x[..., h:, :]
    c, s = c[..., :, None], s[..., :, None]
    return np.concatenate([c * xt - s * xb, np.conj(s) * xt + c * xb], axis=-2)


def _pad_even(x, axes):
    """Zero-pad ``axes`` of ``x`` by one when odd (a decoupled dummy index: its rotations are the identity)."""
    pad = [(0, 0)] * x.ndim
    for ax in axes:
        pad[ax] = (0, x.shape[ax] % 2)
    return np.pad(x, pad)


#: Jacobi sweeps at most (each sweep is ``N - 1`` parallel steps); convergence is quadratic, so well
#: under this in practice.
MAX_SWEEPS = 30


def _off2(h):
    n = h.shape[-1]
    return np.sum(_where(np.eye(n, dtype=bool), 0, np.abs(h) ** 2), axis=(-2, -1))


def syevd(a: np.ndarray, sweeps: int = MAX_SWEEPS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric / Hermitian eigendecomposition with LAPACK ``?syevd`` / ``?heevd``'s outputs.

    Parallel cyclic two-sided Jacobi (Golub & Van Loan §8.5.5, round-robin ordering) on the Hermitian
    matrix of the lower triangle, zero-padded to an even order ``N``: each step rotates the ``N/2``
    disjoint pairs (k, k + N/2) at once (rows and columns as static halves), zeroes the annihilated
    entries, then moves the order on by :func:`tournament`. A ``while`` over sweeps (``N - 1`` steps each)
    until ``off(A)^2 <= (eps ||A||_F)^2`` or ``sweeps``; then ``sort`` ascending, the eigenvector columns
    sorted with the same keys.

    Returns ``(v, w, info)``: ``v[*b, n, n]`` unit eigenvectors in columns (phase as the rotations leave
    it), ``w[*b, n]`` real ascending, ``info`` 0 (1 where ``w`` has a NaN: JAX then returns NaN, as for a
    LAPACK failure).
    """
    n = a.shape[-1]
    h = np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))
    h = _pad_even(np.array(h, dtype=a.dtype), (-2, -1))
    nn = h.shape[-1]
    half = nn // 2
    v = np.broadcast_to(np.eye(nn, dtype=a.dtype), h.shape).copy()
    eps = np.finfo(a.real.dtype).eps
    tol2 = eps**2 * np.sum(np.abs(h) ** 2, axis=(-2, -1))
    pairs = np.zeros((nn, nn), bool)
    pairs[np.arange(half), np.arange(half) + half] = True
    pairs = pairs | pairs.T
    sweep = 0
    while sweep < sweeps and np.any(_off2(h) > tol2):
        step = 0
        while step < nn - 1:
            d = np.diagonal(h, axis1=-2, axis2=-1).real
            apq = np.diagonal(h[..., :half, half:], axis1=-2, axis2=-1)
            c, s = _rotation(d[..., :half], d[..., half:], apq)
            h = _rotate_rows(_rotate_columns(h, c, s), c, s)
            h = _where(pairs, 0, h)
            v = _rotate_columns(v, c, s)
            h = tournament(tournament(h, -1), -2)
            v = tournament(v, -1)
            step += 1
        sweep += 1
    w = np.diagonal(h, axis1=-2, axis2=-1).real[..., :n]
    v = v[..., :n, :n]
    order = np.argsort(w, axis=-1, kind="stable")  # stablehlo.sort, v's columns as a second operand
    w = np.take_along_axis(w, order, axis=-1)
    v = np.take_along_axis(v, order[..., None, :], axis=-1)
    info = np.any(np.isnan(w), axis=-1).astype(np.int32)
    return v, w.astype(a.real.dtype), info


def _orthonormal(x: np.ndarray) -> np.ndarray:
    """``Q diag(phase(diag R))`` of the Householder QR of ``x`` (:func:`geqrf`, :func:`orgqr`): ``x`` itself
    (to rounding) where its columns are orthonormal, and an orthonormal completion where a column is zero."""
    qr, tau = geqrf(x)
    q = orgqr(qr, tau)
    d = np.diagonal(qr, axis1=-2, axis2=-1)
    mag = np.abs(d)
    phase = _where(mag == 0, 1, d / _where(mag == 0, 1, mag))
    return q * phase[..., None, :]


def gesdd(a: np.ndarray, mode: str = "S", sweeps: int = MAX_SWEEPS) -> tuple[np.ndarray, ...]:
    """SVD with LAPACK ``?gesdd``'s outputs by parallel one-sided (Hestenes) Jacobi.

    ``a``: ``[*b, m, n]``; for ``m < n`` the method runs on ``a^H`` and swaps ``u``/``vt``. The columns of
    ``U = A`` (zero-padded to an even count ``N``) are rotated in the pairs (k, k + N/2) of
    :func:`syevd`'s round-robin order until every pair is orthogonal to ``sqrt(m) eps`` (a sweep without
    a rotation) or ``sweeps``; ``V`` accumulates the rotations. ``s`` = the column norms sorted
    descending, ``u = U / s``, then re-orthonormalised (and for mode 'A' completed to a square unitary
    matrix) by :func:`_orthonormal`, which also gives zero singular values orthonormal columns.

    Returns ``(s, u, vt, info)``; ``u``/``vt`` are None for ``mode`` 'N'; ``info`` is 1 where ``s`` has a NaN.
    """
    m, n = a.shape[-2], a.shape[-1]
    if m < n:
        s, u, vt, info = gesdd(np.conj(np.swapaxes(a, -1, -2)), mode, sweeps)
        if mode == "N":
            return s, None, None, info
        return s, np.conj(np.swapaxes(vt, -1, -2)), np.conj(np.swapaxes(u, -1, -2)), info
    u = _pad_even(np.array(a, copy=True), (-1,))
    nn = u.shape[-1]
    half = nn // 2
    v = np.broadcast_to(np.eye(nn, dtype=a.dtype), (*a.shape[:-2], nn, nn)).copy()
    tol = np.sqrt(m) * np.finfo(a.real.dtype).eps
    sweep, rotated = 0, True
    while sweep < sweeps and np.any(rotated):
        rotated = np.zeros(a.shape[:-2], bool)
        step = 0
        while step < nn - 1:
            ut, ub = u[..., :, :half], u[..., :, half:]
            app = np.sum(np.abs(ut) ** 2, axis=-2)
            aqq = np.sum(np.abs(ub) ** 2, axis=-2)
            apq = np.sum(np.conj(ut) * ub, axis=-2)
            big = np.abs(apq) > tol * np.sqrt(app * aqq)
            rotated = rotated | np.any(big, axis=-1)
            c, s = _rotation(app, aqq, _where(big, apq, 0))
            u, v = tournament(_rotate_columns(u, c, s), -1), tournament(_rotate_columns(v, c, s), -1)
            step += 1
        sweep += 1
    u, v = u[..., :, :n], v[..., :n, :n]
    sv = np.sqrt(np.sum(np.abs(u) ** 2, axis=-2))
    order = np.argsort(-sv, axis=-1, kind="stable")
    sv = np.take_along_axis(sv, order, axis=-1)
    info = np.any(np.isnan(sv), axis=-1).astype(np.int32)
    if mode == "N":
        return sv.astype(a.real.dtype), None, None, info
    u = np.take_along_axis(u, order[..., None, :], axis=-1)
    v = np.take_along_axis(v, order[..., None, :], axis=-1)
    u = u / _where(sv == 0, 1, sv)[..., None, :]
    if mode == "A" and m > n:
        u = np.concatenate([u, np.zeros((*a.shape[:-2], m, m - n), a.dtype)], axis=-1)
    u = _orthonormal(u)
    return sv.astype(a.real.dtype), u, np.conj(np.swapaxes(v, -1, -2)), info


def bdsdc(d: np.ndarray, e: np.ndarray, leaf: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SVD of the real upper bidiagonal ``B`` (diagonal ``d`` ``[n]``, superdiagonal ``e`` ``[n - 1]``) by divide
    and conquer, the merge of LAPACK ``dlasd1`` kept square: ``(u, s, vt)`` with ``B = u diag(s) vt``, ``s``
    descending. Float64, one matrix; the design the StableHLO version follows (docs/lapack.md, eighth round).

    Split ``B`` at row ``k - 1`` (``k = m // 2``): the left child ``B[:k, :k]`` with its last diagonal entry set
    to 0 (a zero last row: its SVD has an exact zero singular value with left vector ``e_{k-1}``, and every other
    left vector is 0 there), the right child ``B[k:, k:]``; with ``B = diag(B_1, B_2) + e_{k-1} w^T``,
    ``w = d_{k-1} e_{k-1} + e_{k-1} e_k``, ``U^T B V = M = diag(S) + e_p z^T`` where ``p`` is the left child's
    zero and ``z = V^T w`` (:func:`_bd_merge`). ``M`` is an arrow: its squared singular values are the roots of
    ``1 + sum_i z_i^2 / (S_i^2 - lambda) = 0``, right vectors ``z_i / (S_i^2 - lambda)``, left vectors ``-1`` at
    ``p`` and ``S_i z_i / (S_i^2 - lambda)`` elsewhere (with Gu & Eisenstat's ``z``). Leaves of at most ``leaf``
    rows by ``numpy.linalg.svd`` (the zero last row kept exact).
    """
    d = np.asarray(d, np.float64)
    e = np.asarray(e, np.float64)
    n = d.shape[0]
    scale = max(np.abs(d).max(initial=0.0), np.abs(e).max(initial=0.0))
    scale = scale if scale > 0 else 1.0
    u, s, v, _ = _bd_svd(d / scale, e / scale, False, leaf)
    order = np.argsort(-s, kind="stable")
    return u[:, order], s[order] * scale, v[:, order].T if n else v.T


def _bd_svd(d: np.ndarray, e: np.ndarray, zero_last: bool, leaf: int):
    """``(U, S, V, q)`` of the bidiagonal ``(d, e)`` (``d[-1]`` read as 0 where ``zero_last``), ``S`` unordered;
    ``q`` the column of the exact zero singular value whose left vector is the last unit vector (``zero_last``),
    else None."""
    m = d.shape[0]
    if zero_last:
        d = d.copy()
        d[-1] = 0.0
    if m <= leaf:
        b = np.diag(d) + np.diag(e, 1)
        if not zero_last:
            u, s, vt = np.linalg.svd(b)
            return u, s, vt.T, None
        ut, st, vt = np.linalg.svd(b[:-1], full_matrices=True)  # the rows above the zero one
        u = np.zeros((m, m))
        u[:-1, :-1], u[-1, -1] = ut, 1.0
        return u, np.concatenate([st, [0.0]]), vt.T, m - 1
    k = m // 2
    u1, s1, v1, p = _bd_svd(d[:k], e[:k - 1], True, leaf)
    u2, s2, v2, q2 = _bd_svd(d[k:], e[k:], zero_last, leaf)
    z = np.concatenate([d[k - 1] * v1[k - 1], e[k - 1] * v2[0]])
    um, s, vm, null = _bd_merge(np.concatenate([s1, s2]), z, p, None if q2 is None else k + q2)
    u = np.zeros((m, m))
    u[:k, :k], u[k:, k:] = u1, u2
    v = np.zeros((m, m))
    v[:k, :k], v[k:, k:] = v1, v2
    return u @ um, s, v @ vm, null


def _bd_merge(s: np.ndarray, z: np.ndarray, p: int, q: int | None):
    """SVD ``(U_M, sigma, V_M, null)`` of the arrow ``M = diag(s) + e_p z^T`` (``s[p] = 0``); ``q``: an index
    with ``s[q] = 0`` exactly whose column is to keep the left vector ``e_q`` (returned as ``null``).

    Deflation (LAPACK ``dlasd2``; ``tol = 8 eps max(|s|, |z|)``): ``|z_j| <= tol`` (``j != p``) leaves ``s_j``
    with ``e_j`` on both sides; ``s_j <= tol`` is rotated into ``p`` on the right only (``M``'s column ``j``
    then holds ``c s_j e_j``: a singular value at most ``tol``, left vector ``e_j``; row ``p`` of ``M`` loses
    ``s s_j``, at most ``tol``); poles closer than ``tol`` are rotated together on both sides (``G^T diag(s)
    G`` is ``diag(s)`` to ``tol``), zeroing all ``z`` of a cluster but the last. The rest by the secular
    equation (:func:`_secular_squared`)."""
    m = s.shape[0]
    eps = np.finfo(np.float64).eps
    tol = 8 * eps * max(np.abs(s).max(), np.abs(z).max())
    z = z.copy()
    um, vm = np.eye(m), np.eye(m)  # the deflation's rotations, left and right
    sig = s.copy()
    done = np.zeros(m, bool)
    if abs(z[p]) <= tol:  # (the arrow's own entry is never deflated: dlasd2 raises it to tol)
        z[p] = tol
    for j in range(m):
        if j == p:
            continue
        if abs(z[j]) <= tol:
            z[j], done[j] = 0.0, True
        elif s[j] <= tol:  # rotate z_j into z_p on the right; the column keeps c s_j e_j
            r = np.hypot(z[p], z[j])
            c, sn = z[p] / r, z[j] / r
            vp, vj = vm[:, p].copy(), vm[:, j].copy()
            vm[:, p], vm[:, j] = c * vp + sn * vj, -sn * vp + c * vj
            z[p], z[j] = r, 0.0
            sig[j], done[j] = c * s[j], True
    live = [j for j in np.argsort(s, kind="stable") if not done[j] and j != p]
    for a, b in zip(live, live[1:]):  # clusters: consecutive poles within tol, z rotated into the later one
        if s[b] - s[a] <= tol and not done[a]:
            r = np.hypot(z[a], z[b])
            c, sn = z[b] / r, z[a] / r
            for w in (um, vm):
                wa, wb = w[:, a].copy(), w[:, b].copy()
                w[:, a], w[:, b] = c * wa - sn * wb, sn * wa + c * wb
            z[a], z[b], done[a] = 0.0, r, True
    keep = [p] + [j for j in np.argsort(s, kind="stable") if not done[j] and j != p]
    sk, zk = s[keep], z[keep]
    kk = len(keep)
    if kk == 1:  # (M's row p alone: sigma = |z_p|, right vector e_p, left vector sign(z_p) e_p)
        lam = np.array([zk[0] ** 2])
        uk, vk = np.array([[-1.0 if zk[0] < 0 else 1.0]]), np.array([[1.0]])
    else:
        lam_minus, lam = _secular_squared(sk, zk)  # [r, i] = lambda_r - s_i^2, lambda_r
        # Gu & Eisenstat: z from the roots, so that the vectors are orthogonal; the products paired as ratios
        # of size about 1 (zhat_i^2 = (lambda_last - d_i) prod_{r<i} (lambda_r - d_i) / (d_r - d_i)
        # prod_{i<=r<last} (lambda_r - d_i) / (d_{r+1} - d_i), d = s^2), so that none under- or overflows
        diff = (sk[None, :] - sk[:, None]) * (sk[None, :] + sk[:, None])  # [i, j] = s_j^2 - s_i^2
        zhat = np.empty(kk)
        for i in range(kk):
            prod = lam_minus[kk - 1, i]
            for r in range(kk - 1):
                prod *= lam_minus[r, i] / (diff[i, r] if r < i else diff[i, r + 1])
            zhat[i] = np.copysign(np.sqrt(abs(prod)), zk[i])
        x = zhat[None, :] / -lam_minus  # [r, i] = zhat_i / (s_i^2 - lambda_r)
        ux = sk[None, :] * x
        ux[:, 0] = -1.0  # (keep[0] = p: M x = -1 there by the secular equation)
        vk = (x / np.linalg.norm(x, axis=1, keepdims=True)).T  # columns: roots
        uk = (ux / np.linalg.norm(ux, axis=1, keepdims=True)).T
    u_new, v_new = np.zeros((m, m)), np.zeros((m, m))
    u_new[keep, :kk], v_new[keep, :kk] = uk, vk
    rest = [j for j in range(m) if done[j]]
    u_new[rest, np.arange(kk, m)] = 1.0
    v_new[rest, np.arange(kk, m)] = 1.0
    sigma = np.concatenate([np.sqrt(lam), sig[rest]])
    neg = sigma < 0  # (a deflated c s_j < 0: flip its left vector)
    u_new[:, neg] *= -1
    sigma = np.abs(sigma)
    null = None if q is None else kk + rest.index(q)
    return um @ u_new, sigma, vm @ v_new, null


def _secular_squared(s: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Roots ``lambda`` of ``1 + sum_i z_i^2 / (s_i^2 - lambda) = 0`` (``s[0] = 0``, the others ascending and
    apart, every ``z_i != 0``), one in each interval between consecutive poles ``s_i^2`` and the last above
    them, as ``(lambda_r - s_i^2 [r, i], lambda_r)``: each root found relative to its nearer pole (LAPACK
    ``dlasd4``'s choice, from the sign of the secular function at the interval's midpoint; the last root's
    origin is the largest pole) by bisection, pole differences as ``(s_i - s_j)(s_i + s_j)``, so that small
    singular values keep their relative accuracy and a root next to its pole does not round onto it."""
    k = s.shape[0]
    z2 = z * z
    width = np.empty(k)
    width[:-1] = (s[1:] - s[:-1]) * (s[1:] + s[:-1])
    width[-1] = z2.sum()

    def f(pd, tau):
        return 1.0 + np.sum(z2[None, :] / (pd - tau[:, None]), axis=1)

    lower = np.arange(k)
    pd_lo = (s[None, :] - s[lower][:, None]) * (s[None, :] + s[lower][:, None])  # [r, i] = s_i^2 - s_r^2
    upper = np.minimum(lower + 1, k - 1)
    pd_up = (s[None, :] - s[upper][:, None]) * (s[None, :] + s[upper][:, None])
    # f increases with lambda between poles: f(midpoint) >= 0 puts the root in the lower half
    use_lower = (f(pd_lo, 0.5 * width) >= 0) | (lower == k - 1)
    pd = np.where(use_lower[:, None], pd_lo, pd_up)
    org = np.where(use_lower, s[lower], s[upper])
    lo = np.where(use_lower, 0.0, -0.5 * width)
    hi = np.where(use_lower, np.where(lower == k - 1, width, 0.5 * width), 0.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        below = f(pd, mid) < 0  # the root is above mid
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    tau = 0.5 * (lo + hi)
    return tau[:, None] - pd, org * org + tau


def gtsv(dl: np.ndarray, d: np.ndarray, du: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """Tridiagonal solve with partial pivoting, as LAPACK ``?gtsv`` leaves its arguments, in jaxlib's
    padded form: ``dl``, ``d``, ``du`` are ``[*batch, n]`` (subdiagonal ``dl[1:]``, superdiagonal
    ``du[:n-1]``), ``b`` is ``[*batch, n, k]``. Returns ``(dl', d', du', x, info)``: ``U``'s diagonal in
    ``d'``, its first superdiagonal in ``du'``, its second in ``dl'[1:n-1]``; ``info`` the 1-based index of
    the first zero pivot (0 if none).

    Row ``k + 1`` is eliminated with row ``k`` after swapping them unless ``|d[k]| >= |dl[k+1]|``
    (``cabs1`` for complex); then back substitution. Mirrors
    ``hlokit.passes.lapack.tridiagonal.build_gtsv`` step for step."""
    dl, d, du, x = (np.array(v, copy=True) for v in (dl, d, du, b))
    n = d.shape[-1]
    info = np.zeros(d.shape[:-1], np.int32)
    with np.errstate(all="ignore"):
        for k in range(n - 1):
            inner = k < n - 2
            dk, dk1, sub, duk, duk1 = d[..., k].copy(), d[..., k + 1].copy(), dl[..., k + 1].copy(), \
                du[..., k].copy(), du[..., k + 1].copy()
            bk, bk1 = x[..., k, :].copy(), x[..., k + 1, :].copy()
            swap = ~(_abs1(dk) >= _abs1(sub))
            singular = (dk == 0) & (sub == 0)
            m_keep = sub / _where(singular, 1, dk)
            m_swap = dk / sub
            d[..., k] = _where(swap, sub, dk)
            d[..., k + 1] = _where(swap, duk - m_swap * dk1, dk1 - m_keep * duk)
            du[..., k] = _where(swap, dk1, duk)
            du[..., k + 1] = _where(swap, -(m_swap * duk1) if inner else duk1, duk1)
            dl[..., k + 1] = _where(swap, duk1 if inner else sub, 0 if inner else sub)
            x[..., k, :] = _where(swap[..., None], bk1, bk)
            x[..., k + 1, :] = _where(swap[..., None], bk - m_swap[..., None] * bk1, bk1 - m_keep[..., None] * bk)
            info = _where((info == 0) & ~swap & singular, k + 1, info).astype(np.int32)
        if n:
            info = _where((info == 0) & (d[..., n - 1] == 0), n, info).astype(np.int32)
        for k in range(n - 1, -1, -1):
            acc = x[..., k, :].copy()
            if k + 1 < n:
                acc = acc - du[..., k, None] * x[..., k + 1, :]
            if k + 2 < n:
                acc = acc - dl[..., k + 1, None] * x[..., k + 2, :]
            x[..., k, :] = acc / d[..., k, None]
    return dl, d, du, x, info


# -- geev: complex Schur form by shifted QR steps, eigenvectors by back substitution ---------------------

#: QR steps at most per eigenvalue (``MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10)`` in all, as ``?lahqr``).
MAX_QR_STEPS_PER_EIGENVALUE = 30
#: Every this many steps the shift is an exceptional one (``?lahqr``'s at steps 10 and 20).
EXCEPTIONAL_SHIFT_EVERY = 10


def _cabs1(x: np.ndarray) -> np.ndarray:
    """LAPACK's ``CABS1``: ``|Re x| + |Im x|``."""
    return np.abs(x.real) + np.abs(x.imag)


def _reflect_pair(x: np.ndarray, k: int, tau: np.ndarray, v2: np.ndarray, rows: bool, first_col: int = 0) -> None:
    """Rows ``k, k+1`` of ``x`` <- ``G^H`` times them from column ``first_col`` on (``rows``), or columns ``k, k+1``
    <- them times ``G = I - tau v v^H``, ``v = [1, v2]``, in ``zlahqr``'s arithmetic; in place."""
    t2 = (tau * v2).real.astype(x.dtype)[..., None]
    tau, v2 = tau[..., None], v2[..., None]
    if rows:
        x0, x1 = x[..., k, first_col:].copy(), x[..., k + 1, first_col:].copy()
        total = np.conj(tau) * x0 + t2 * x1
        x[..., k, first_col:], x[..., k + 1, first_col:] = x0 - total, x1 - total * v2
    else:
        x0, x1 = x[..., :, k].copy(), x[..., :, k + 1].copy()
        total = tau * x0 + t2 * x1
        x[..., :, k], x[..., :, k + 1] = x0 - total, x1 - total * np.conj(v2)


def _deflate(h: np.ndarray, eps: float, tiny: float) -> np.ndarray:
    """``h`` with each negligible subdiagonal entry set to 0 by ``?lahqr``'s / ``zlahqr``'s test (Ahues &
    Tisseur's; see ``_deflate`` in the pass; on real ``h``, ``CABS1`` is ``|x|``)."""
    n = h.shape[-1]
    smlnum = tiny * (n / eps)
    out = h.copy()
    for k in range(1, n):
        sub, d0, d1, sup = h[..., k, k - 1], h[..., k - 1, k - 1], h[..., k, k], h[..., k - 1, k]
        c = _cabs1(sub)
        tst = _cabs1(d0) + _cabs1(d1)
        near = (np.abs(h[..., k - 1, k - 2].real) if k >= 2 else 0) + (np.abs(h[..., k + 1, k].real) if k + 1 < n else 0)
        tst = _where(tst == 0, tst + near, tst)
        ab, ba = np.maximum(c, _cabs1(sup)), np.minimum(c, _cabs1(sup))
        aa, bb = np.maximum(_cabs1(d1), _cabs1(d0 - d1)), np.minimum(_cabs1(d1), _cabs1(d0 - d1))
        s = _where(aa + ab == 0, 1, aa + ab)
        small = (c <= smlnum) | ((np.abs(sub.real) <= eps * tst) & (ba * (ab / s) <= np.maximum(smlnum, eps * (bb * (aa / s)))))
        out[..., k, k - 1] = _where(small, 0, sub)
    return out


def _reflect_left(x: np.ndarray, v: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """``(I - tau v v^H) x`` for ``x`` ``[*b, m, n]``, ``v`` ``[*b, m]``, ``tau`` ``[*b]``."""
    return x - tau[..., None, None] * v[..., :, None] * np.sum(np.conj(v)[..., :, None] * x, axis=-2)[..., None, :]


def _reflect_right(x: np.ndarray, v: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """``x (I - tau v v^H)`` for ``x`` ``[*b, m, n]``, ``v`` ``[*b, n]``, ``tau`` ``[*b]``."""
    return x - tau[..., None, None] * np.sum(x * v[..., None, :], axis=-1)[..., :, None] * np.conj(v)[..., None, :]


def _hessenberg_with_q(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(H, Q)``, ``A = Q H Q^H``: the reflectors of ``?gehd2`` applied to both sides and accumulated, each
    subdiagonal entry exactly the reflector's ``beta`` and zeros below it; ``n - 1`` reflectors for a complex
    ``a`` (the last makes ``h[n-1, n-2]`` real), ``n - 2`` for a real one."""
    shape = a.shape
    n = shape[-1]
    rows, cols = _rows(shape), _cols(shape)
    h, z = a.copy(), np.broadcast_to((rows == cols).astype(a.dtype), shape).copy()
    for k in range(n - 1 if a.dtype.kind == "c" else n - 2):  # H_k^H h H_k, z H_k
        v, tau, beta = _householder(_column(h, k), k + 1)
        h = _reflect_right(_reflect_left(h, v, np.conj(tau)), v, tau)
        h[..., k + 1, k] = beta
        h[..., k + 2:, k] = 0
        z = _reflect_right(z, v, tau)
    return _where(rows > cols + 1, 0, h), z


def _at(h: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``h[..., i, j]`` for per-batch-element ``i``, ``j`` (one-hot masks and a sum; 0 out of range)."""
    rows, cols = _rows(h.shape), _cols(h.shape)
    return np.sum(_where((rows == i[..., None, None]) & (cols == j[..., None, None]), h, 0), axis=(-2, -1))


def schur(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Complex Schur form ``A = Z T Z^H`` of complex ``a`` ``[*b, n, n]``: ``(T, Z, info)``, the loops of
    ``build_geev``'s ``_schur`` (LAPACK ``zlahqr``): Hessenberg reduction with a real subdiagonal, then
    single-shift QR steps on the lowest unreduced block ``[lo, hi]`` (Wilkinson's shift in ``zlahqr``'s form,
    its exceptional shifts counted from the last deflation at the block's bottom, the step started at the
    lowest row ``m`` where two consecutive subdiagonal entries are small, else at ``lo``), the bulge chased by
    reflectors of order 2, the subdiagonal kept real, ``zlahqr``'s deflation test. ``info`` 1 where a
    subdiagonal entry is left or ``T`` has a NaN."""
    shape = a.shape
    batch, n = shape[:-2], shape[-1]
    fi = np.finfo(a.dtype)
    eps, tiny = float(fi.eps), float(fi.tiny)
    rows, cols = _rows(shape), _cols(shape)
    h, z = _hessenberg_with_q(a)
    h = _deflate(h, eps, tiny)
    idx = np.arange(n)

    def blocks(h):
        nz = np.concatenate([np.zeros(batch + (1,), bool), np.diagonal(h, -1, -2, -1) != 0], -1)  # h[i, i-1] != 0
        hi = np.max(_where(nz, idx, 0), -1)
        lo = np.max(_where(~nz & (idx < hi[..., None]), idx, 0), -1)
        return nz.any(-1) & ~np.isnan(h).any((-2, -1)), lo, hi

    def safe(x):
        return _where(x == 0, 1, x)

    it = 0
    kdefl = np.zeros(batch, np.int64)  # steps since the block's bottom last moved (zlahqr's KDEFL)
    last_hi = np.full(batch, -1)
    while n >= 2 and it < MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10) and blocks(h)[0].any():
        live, lo, hi = blocks(h)
        kdefl = _where(hi == last_hi, kdefl + 1, 1)
        last_hi = hi
        hii, him, hmi, hmm, hll, hl1 = (_at(h, i, j) for i, j in (
            (hi, hi), (hi, hi - 1), (hi - 1, hi), (hi - 1, hi - 1), (lo, lo), (lo + 1, lo)))
        u = np.sqrt(hmi) * np.sqrt(him)
        su = _cabs1(u)
        x = (hmm - hii) * 0.5
        sx = _cabs1(x)
        s = safe(np.maximum(su, sx)).astype(a.dtype)
        y = s * np.sqrt((x / s) * (x / s) + (u / s) * (u / s))
        xn = x / safe(sx)
        y = _where((sx > 0) & (xn.real * y.real + xn.imag * y.imag < 0), -y, y)
        xy = _where(np.abs(x + y) == 0, 1, x + y)
        shift = _where(su != 0, hii - u * (u / xy), hii)
        bottom = kdefl % (2 * EXCEPTIONAL_SHIFT_EVERY) == 0
        top = kdefl % EXCEPTIONAL_SHIFT_EVERY == 0
        shift = _where(top, np.abs(hl1.real) * 0.75 + hll, shift)
        shift = _where(bottom, np.abs(him.real) * 0.75 + hii, shift)
        d, sub = np.diagonal(h, 0, -2, -1), np.diagonal(h, -1, -2, -1)  # sub[j] = h[j+1, j]
        pad = np.zeros(batch + (1,), a.dtype)
        sub = np.concatenate([pad, sub], -1)  # sub[j] = h[j, j-1]
        d_next, h21 = np.concatenate([d[..., 1:], pad], -1), np.concatenate([sub[..., 1:], pad], -1).real
        h11s = d - shift[..., None]
        sc = safe(_cabs1(h11s) + np.abs(h21))
        h11s, h21 = h11s / sc, h21 / sc
        negligible = np.abs(sub.real) * np.abs(h21) <= _cabs1(h11s) * (_cabs1(d) + _cabs1(d_next)) * eps
        inside = (idx > lo[..., None]) & (idx < hi[..., None])
        m = np.max(_where(negligible & inside, idx, lo[..., None]), -1)
        at_m = idx == m[..., None]
        x0, y0 = np.sum(_where(at_m, h11s, 0), -1), np.sum(_where(at_m, h21, 0), -1).astype(a.dtype)
        rescale = live & (m > lo)
        mb, hb = m[..., None, None], hi[..., None, None]
        in_s = lambda i: (i >= mb) & (i <= hb) & (i != mb + 1)  # noqa: E731
        for k in range(n - 1):
            first = m == k
            active = live & (k >= m) & (k < hi)
            pair = np.stack([_where(first, x0, h[..., k, max(k - 1, 0)]), _where(first, y0, h[..., k + 1, max(k - 1, 0)])], -1)
            v, tau, beta = _householder(pair, 0)  # (zlarfg of order 2)
            v2 = v[..., 1]
            tau, v2 = _where(active, tau, 0), _where(active, v2, 0)
            _reflect_pair(h, k, tau, v2, rows=True, first_col=k)
            _reflect_pair(h, k, tau, v2, rows=False)
            _reflect_pair(z, k, tau, v2, rows=False)
            if k > 0:
                chased = active & ~first
                h[..., k, k - 1] = _where(chased, beta, h[..., k, k - 1])
                h[..., k + 1, k - 1] = _where(chased, 0, h[..., k + 1, k - 1])
            now = (rescale & active & first)[..., None, None]
            temp = 1 - tau
            temp = (temp / safe(np.abs(temp)))[..., None, None]
            h = _where(now & (rows == mb + 1) & (cols == mb), h * np.conj(temp), h)
            h = _where(now & (rows == mb + 2) & (cols == mb + 1), h * temp, h)
            h = _where(now & in_s(rows) & (cols > rows), h * temp, h)
            h = _where(now & in_s(cols) & (rows < cols), h * np.conj(temp), h)
            z = _where(now & in_s(cols), z * np.conj(temp), z)
        last = _at(h, hi, hi - 1)
        mag = np.abs(last)
        p = (last / safe(mag))[..., None, None]
        now = (live & (last.imag != 0))[..., None, None]
        h = _where(now & (rows == hb) & (cols > hb), h * np.conj(p), h)
        h = _where(now & (cols == hb) & (rows < hb), h * p, h)
        h = _where(now & (rows == hb) & (cols == hb - 1), mag[..., None, None].astype(a.dtype), h)
        z = _where(now & (cols == hb), z * p, z)
        h = _deflate(_where(rows > cols + 1, 0, h), eps, tiny)
        it += 1
    live, _, _ = blocks(h)
    info = (live | np.isnan(h).any((-2, -1))).astype(np.int32)
    return _where(rows > cols, 0, h), z, info


def _triangular_eigenvectors(t: np.ndarray) -> np.ndarray:
    """Columns ``x_k`` of an upper triangular ``t``: ``x_k[k] = 1``, zero below, back substitution over
    ``i = n-2 .. 0`` for every ``k`` at once (``?trevc``), denominators below ``max(eps max|t|, tiny)``
    replaced by it."""
    shape = t.shape
    n = shape[-1]
    fin = np.finfo(t.dtype)
    w = np.diagonal(t, axis1=-2, axis2=-1)
    smin = np.maximum(np.max(np.abs(t), axis=(-2, -1)) * fin.eps, fin.tiny)[..., None]
    x = np.broadcast_to((_rows(shape) == _cols(shape)).astype(t.dtype), shape).copy()
    idx = np.arange(n)
    for i in range(n - 2, -1, -1):
        row = _where(idx > i, t[..., i, :], 0)
        s = np.sum(row[..., :, None] * x, axis=-2)
        d = t[..., i, i][..., None] - w
        d = _where(np.abs(d) < smin, smin, d)
        x[..., i, :] = _where(idx > i, -s / d, x[..., i, :])
    return x


def _normalize_columns(v: np.ndarray) -> np.ndarray:
    """Columns of norm 1, each rotated so its first largest-magnitude entry is real and positive."""
    v = v / np.sqrt(np.sum(np.abs(v) ** 2, axis=-2, keepdims=True))
    p = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], -2)
    ap = np.abs(p)
    return v * _where(ap == 0, 1, np.conj(p) / _where(ap == 0, 1, ap))


#: Balancing's bound on sweeps over the columns (?gebal loops until a sweep changes nothing; each change
#: lowers a row + column norm sum by 5 %, so real matrices stop after a few sweeps).
MAX_BALANCE_SWEEPS = 100


def _nrm2(x: np.ndarray) -> np.ndarray:
    """Euclidean norm over the last axis, of ``x`` divided by its largest magnitude (no overflow or underflow)."""
    big = np.max(np.abs(x), axis=-1)
    safe = _where(big == 0, 1, big)
    return np.sqrt(np.sum(np.abs(x / safe[..., None]) ** 2, axis=-1)) * big


def gebal_permute(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The permutation half of LAPACK ``?gebal`` (``JOB = 'P'``, the loops of LAPACK 3.12, which scipy's LAPACK
    runs) on ``a`` ``[*b, n, n]``: ``(P^T A P, piv, ilo, ihi)``. Rows isolating an eigenvalue (zero off the
    diagonal within columns ``0 .. l``) are swapped to position ``l`` from the bottom up, passes repeated until one
    swaps nothing; then columns isolating one (zero off the diagonal within rows ``k .. l``) to position ``k``.
    ``piv`` ``[*b, n]`` (int32) holds, outside ``ilo .. ihi``, the index each position was swapped with (LAPACK's
    ``SCALE`` there, 0-based), and its own index inside; ``ilo``, ``ihi`` ``[*b]`` (int32, 0-based) bound the
    block left to balance and reduce. A swap exchanges columns over rows ``0 .. l`` and rows over columns
    ``k .. n-1``, as ``?gebal``'s two ``?swap`` calls."""
    shape = a.shape
    n = shape[-1]
    out = a.reshape((-1, n, n)).copy()
    piv = np.broadcast_to(np.arange(n, dtype=np.int32), out.shape[:-1]).copy()
    lo = np.zeros(out.shape[0], np.int32)
    hi = np.full(out.shape[0], n - 1, np.int32)
    for m, x in enumerate(out):
        k, l = 0, n - 1

        def swap(i: int, j: int) -> None:
            x[: l + 1, [i, j]] = x[: l + 1, [j, i]]
            x[[i, j], k:] = x[[j, i], k:]

        noconv, done = True, False
        while noconv and not done:
            noconv = False
            for i in range(l, -1, -1):  # (the bounds of a Fortran DO loop are fixed at its start)
                if not np.any(np.delete(x[i, : l + 1], i) != 0):
                    piv[m, l] = i
                    swap(i, l)
                    noconv = True
                    if l == 0:
                        done = True
                        break
                    l -= 1
        noconv = not done
        while noconv:
            noconv = False
            for j in range(k, l + 1):
                if not np.any(np.delete(x[k : l + 1, j], j - k) != 0):
                    piv[m, k] = j
                    swap(j, k)
                    noconv = True
                    k += 1
        lo[m], hi[m] = k, l
    b = shape[:-2]
    return out.reshape(shape), piv.reshape(b + (n,)), lo.reshape(b), hi.reshape(b)


def gebal(a: np.ndarray, permute: bool = True) -> tuple[np.ndarray, ...]:
    """LAPACK ``?gebal`` on ``a`` ``[*b, n, n]`` with ``JOB = 'B'`` (``'S'`` when not ``permute``):
    ``(D^-1 P^T A P D, d, piv, ilo, ihi)``. First :func:`gebal_permute` (``piv``, ``ilo``, ``ihi``; no
    permutation: ``piv`` the identity, ``ilo = 0``, ``ihi = n - 1``); then ``d`` ``[*b, n]``, powers of 2 in the
    real type of ``a``, 1 outside ``ilo .. ihi``. The scaling sweeps over the columns ``i`` of ``ilo .. ihi``
    until one changes nothing: ``f = 2^k`` brings the column norm ``c`` and row norm ``r`` (over rows / columns
    ``ilo .. ihi``) within a factor 2 of each other (``c 2^k`` against ``r / 2^k``), kept when it lowers ``c + r``
    below 95 % of its value; row ``i`` is divided by ``f``, column ``i`` multiplied by it. ``?gebal``'s guards keep
    every scaled quantity inside ``[2 sfmin1, 1 / (2 sfmin1)]``, ``sfmin1 = tiny / eps`` (LAPACK's ``SFMIN1``;
    ``eps`` its ``DLAMCH('P')``); a column or row that is zero or has a NaN is left alone."""
    shape = a.shape
    n = shape[-1]
    if permute:
        a, piv, lo, hi = gebal_permute(a)  # (a copy already)
    else:
        a = a.copy()
        piv = np.broadcast_to(np.arange(n, dtype=np.int32), shape[:-1]).copy()
        lo, hi = np.zeros(shape[:-2], np.int32), np.full(shape[:-2], n - 1, np.int32)
    rt = a.real.dtype
    fin = np.finfo(rt)
    sfmin1 = float(fin.tiny) / float(fin.eps)
    sfmax1, sfmin2 = 1 / sfmin1, sfmin1 * 2
    sfmax2 = 1 / sfmin2
    idx = np.arange(n)
    inside = (idx >= lo[..., None]) & (idx <= hi[..., None])  # [*b, n]
    d = np.ones(shape[:-1], rt)
    noconv = np.ones(shape[:-2], bool)
    sweep = 0
    while noconv.any() and sweep < MAX_BALANCE_SWEEPS:
        noconv = np.zeros(shape[:-2], bool)
        for i in range(n):
            col, row = _column(a, i), _row(a, i)
            c, r = _nrm2(_where(inside, col, 0)), _nrm2(_where(inside, row, 0))
            ca, ra = np.max(np.abs(col), -1), np.max(np.abs(row), -1)
            live = inside[..., i] & (c != 0) & (r != 0) & ~np.isnan(c + ca + r + ra)
            f, g, s = np.ones_like(c), r / 2, c + r
            while True:
                up = live & (c < g) & (np.maximum(np.maximum(f, c), ca) < sfmax2) & (np.minimum(np.minimum(r, g), ra) > sfmin2)
                if not up.any():
                    break
                f, c, ca = _where(up, f * 2, f), _where(up, c * 2, c), _where(up, ca * 2, ca)
                r, g, ra = _where(up, r / 2, r), _where(up, g / 2, g), _where(up, ra / 2, ra)
            g = c / 2
            while True:
                down = live & (g >= r) & (np.maximum(r, ra) < sfmax2) & \
                    (np.minimum(np.minimum(f, c), np.minimum(g, ca)) > sfmin2)
                if not down.any():
                    break
                f, c, g, ca = (_where(down, x / 2, x) for x in (f, c, g, ca))
                r, ra = _where(down, r * 2, r), _where(down, ra * 2, ra)
            di = d[..., i]
            with np.errstate(over="ignore"):  # (sfmax1 / f for f < 1: inf, and the test false)
                apply = live & (c + r < 0.95 * s) & ~((f < 1) & (di < 1) & (f * di <= sfmin1)) & \
                    ~((f > 1) & (di > 1) & (di >= sfmax1 / f))
            f = _where(apply, f, 1).astype(rt)
            d[..., i] = di * f
            a[..., i, :] = a[..., i, :] * (1 / f)[..., None]
            a[..., :, i] = a[..., :, i] * f[..., None]
            noconv |= apply
        sweep += 1
    return a, d, piv, lo, hi


def gebak(v: np.ndarray, d: np.ndarray, piv: np.ndarray, lo: np.ndarray, hi: np.ndarray, left: bool) -> np.ndarray:
    """LAPACK ``?gebak`` (``JOB = 'B'``): eigenvectors ``v`` ``[*b, n, m]`` (columns) of :func:`gebal`'s matrix
    turned into those of ``A``: rows multiplied by ``d`` (right vectors; divided for ``left`` ones), then the row
    swaps of ``piv`` undone for the positions outside ``lo .. hi``, in ``?gebak``'s order (``lo - 1`` down to 0,
    then ``hi + 1`` up to ``n - 1``)."""
    v = v / d[..., :, None] if left else v * d[..., :, None]
    n = v.shape[-2]
    flat = v.reshape((-1,) + v.shape[-2:]).copy()
    pv, lo, hi = piv.reshape(-1, n), lo.reshape(-1), hi.reshape(-1)
    for m, x in enumerate(flat):
        for ii in range(n):
            if lo[m] <= ii <= hi[m]:
                continue
            i = lo[m] - 1 - ii if ii < lo[m] else ii
            k = pv[m, i]
            x[[i, k]] = x[[k, i]]
    return flat.reshape(v.shape)


def geev(a: np.ndarray, left: bool = True, right: bool = True) -> tuple[np.ndarray, ...]:
    """Eigenvalues and eigenvectors of a general ``a`` ``[*b, n, n]``: ``(w, vl, vr, info)``, complex (a real
    ``a`` is computed as complex), ``vl`` / ``vr`` zero unless ``left`` / ``right``; each vector of norm 1
    with its largest entry real. ``a`` is balanced first (:func:`gebal`: permuted and scaled); the order of ``w`` is the
    diagonal of :func:`schur`'s ``T`` (of :func:`real_schur`'s for a real ``a``: see :func:`_geev_real`)."""
    ct = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    if a.dtype.kind != "c":
        return _geev_real(a, left, right)
    b, *balance = gebal(a.astype(ct))
    t, z, info = schur(b)
    w = np.diagonal(t, axis1=-2, axis2=-1).copy()
    vr = _normalize_columns(gebak(z @ _triangular_eigenvectors(t), *balance, left=False)) if right else np.zeros_like(t)
    if left:
        flipped = np.conj(np.swapaxes(t, -1, -2))[..., ::-1, ::-1]
        vl = _normalize_columns(gebak(z @ _triangular_eigenvectors(flipped)[..., ::-1, ::-1], *balance, left=True))
    else:
        vl = np.zeros_like(t)
    return w, vl, vr, info


# -- real gees: the real Schur form by Francis double-shift QR steps --------------------------------------


def _sign(x: np.ndarray) -> np.ndarray:
    """Fortran's ``SIGN(1, x)``: 1 for ``x >= 0``, else -1."""
    return _where(x >= 0, 1.0, -1.0)


def lanv2(a, b, c, d, eps: float) -> tuple[np.ndarray, ...]:
    """LAPACK ``?lanv2`` on real 2x2 blocks ``[[a, b], [c, d]]``, every branch computed and chosen by
    ``where``: ``(a', b', c', d', cs, sn)``, upper triangular for real eigenvalues, else ``a' = d'`` and
    ``b' c' < 0``; ``[[a, b], [c, d]] = G^T [[a', b'], [c', d']] G`` with ``G = [[cs, sn], [-sn, cs]]``."""
    def safe(x):
        return _where(x == 0, 1, x)

    case1 = c == 0
    case2 = ~case1 & (b == 0)
    case3 = ~case1 & ~case2 & (a - d == 0) & (_sign(b) != _sign(c))
    gen = ~(case1 | case2 | case3)
    temp = a - d
    p = 0.5 * temp
    bcmax = np.maximum(np.abs(b), np.abs(c))
    bcmis = np.minimum(np.abs(b), np.abs(c)) * _sign(b) * _sign(c)
    scale = safe(np.maximum(np.abs(p), bcmax))
    z = p / scale * p + bcmax / scale * bcmis
    real = gen & (z >= 4 * eps)
    cplx = gen & ~real
    zr = p + _sign(p) * np.sqrt(scale) * np.sqrt(np.maximum(z, 0))  # real eigenvalues: triangular at once
    ra, rd = d + zr, d - bcmax / safe(zr) * bcmis
    tau = safe(np.hypot(c, zr))
    rcs, rsn, rb = zr / tau, c / tau, b - c
    sigma = b + c  # complex (or nearly equal real) eigenvalues: equal diagonal first
    tau = safe(np.hypot(sigma, temp))
    ccs = np.sqrt(0.5 * (1 + np.abs(sigma) / tau))
    csn = -(p / (tau * ccs)) * _sign(sigma)
    aa, bb, cc, dd = a * ccs + b * csn, b * ccs - a * csn, c * ccs + d * csn, d * ccs - c * csn
    ca, cb, cc, cd = aa * ccs + cc * csn, bb * ccs + dd * csn, cc * ccs - aa * csn, dd * ccs - bb * csn
    mid = 0.5 * (ca + cd)
    same = (cc != 0) & (cb != 0) & (_sign(cb) == _sign(cc))  # real after all: split
    sab, sac = np.sqrt(np.abs(cb)), np.sqrt(np.abs(cc))
    pp = _sign(cc) * sab * sac
    tt = 1 / np.sqrt(_where(same, np.abs(cb + cc), 1))
    cs1, sn1 = sab * tt, sac * tt
    swap = (cc != 0) & (cb == 0)
    o_a, o_d = _where(same, mid + pp, mid), _where(same, mid - pp, mid)
    o_b, o_c = _where(same, cb - cc, _where(swap, -cc, cb)), _where(same | swap, 0, cc)
    o_cs = _where(same, ccs * cs1 - csn * sn1, _where(swap, -csn, ccs))
    o_sn = _where(same, ccs * sn1 + csn * cs1, _where(swap, ccs, csn))

    def pick(c2, r, x, keep):
        return _where(case2, c2, _where(real, r, _where(cplx, x, keep)))

    return (pick(d, ra, o_a, a), pick(-c, rb, o_b, b), pick(0, 0, o_c, c), pick(a, rd, o_d, d),
            pick(0, rcs, o_cs, 1), pick(1, rsn, o_sn, 0))


def real_schur(a: np.ndarray) -> tuple[np.ndarray, ...]:
    """Real Schur form ``A = Z T Z^T`` of a real ``a`` ``[*b, n, n]`` (LAPACK ``?gees``): ``(T, Z, wr, wi,
    info)``, the loops of ``build_gees_real``'s ``_real_schur``: Hessenberg reduction, Francis double-shift
    steps (Golub & Van Loan Alg. 7.5.1) on the lowest unreduced block ``[lo, hi]`` of order 3 or more (the
    bulge chased by 3-element reflectors, one loop over ``k`` for all batch elements), shifts and exceptional
    shifts as ``?lahqr``'s, exact zeros for negligible subdiagonal entries; then :func:`lanv2` on each 2x2 block."""
    shape = a.shape
    n = shape[-1]
    eps, tiny = float(np.finfo(a.dtype).eps), float(np.finfo(a.dtype).tiny)
    rows, cols = _rows(shape), _cols(shape)
    h, z = _hessenberg_with_q(a)
    h = _deflate(h, eps, tiny)
    idx = np.arange(n)
    first = np.zeros(shape[:-2] + (1,), bool)

    def blocks(h):
        nz = np.concatenate([first, np.diagonal(h, -1, -2, -1) != 0], -1)  # nz[i]: h[i, i-1] != 0
        big = nz & np.concatenate([first, nz[..., :-1]], -1)
        hi = np.max(_where(big, idx, 0), -1)
        lo = np.max(_where(~nz & (idx < hi[..., None]), idx, 0), -1)
        return big.any(-1) & ~np.isnan(h).any((-2, -1)), lo, hi

    it = 0
    kdefl = np.zeros(shape[:-2], np.int64)  # steps since the block's bottom last moved (?lahqr's KDEFL)
    last_hi = np.full(shape[:-2], -1)
    while n >= 3 and it < MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10) and blocks(h)[0].any():
        live, lo, hi = blocks(h)
        kdefl = _where(hi == last_hi, kdefl + 1, 1)
        last_hi = hi
        l1, l2 = lo + 1, lo + 2
        entries = [_at(h, i, j) for i, j in ((hi, hi), (hi - 1, hi - 1), (hi - 1, hi), (hi, hi - 1), (hi - 1, hi - 2),
                                         (lo, lo), (lo, l1), (l1, lo), (l1, l1), (l2, l1))]
        big = np.max(np.abs(np.stack(entries)), axis=0)  # (scaled: no overflow or underflow in the squares)
        big = _where(big == 0, 1, big)
        hh, hm, hmh, hhm, hm2, h00, h01, h10, h11_, h21 = (x / big for x in entries)
        s, p = hm + hh, hm * hh - hmh * hhm
        tr = s / 2
        det = p - tr * tr  # < 0: real eigenvalues tr +- sqrt(-det): both shifts the one nearer hh (?lahqr)
        root = np.sqrt(np.maximum(-det, 0))
        rt = tr + _where(hh >= tr, root, -root)
        s, p = _where(det < 0, 2 * rt, s), _where(det < 0, rt * rt, p)
        bottom = kdefl % (2 * EXCEPTIONAL_SHIFT_EVERY) == 0  # exceptional shifts from the block's bottom
        top = ~bottom & (kdefl % EXCEPTIONAL_SHIFT_EVERY == 0)  # ... or from its top (?lahqr)
        ss = _where(bottom, np.abs(hhm) + np.abs(hm2), np.abs(h10) + np.abs(h21))
        h11 = 0.75 * ss + _where(bottom, hh, h00)
        s, p = _where(bottom | top, 2 * h11, s), _where(bottom | top, h11 * h11 + 0.4375 * ss * ss, p)
        x0 = h00 ** 2 + h01 * h10 - s * h00 + p  # first column of (H - s1)(H - s2), divided by big^2
        y0 = h10 * (h00 + h11_ - s)
        z0 = h10 * h21
        for k in range(n - 1):
            col = _column(h, max(k - 1, 0))
            pick = [col[..., j] if j < n else np.zeros(shape[:-2], a.dtype) for j in (k, k + 1, k + 2)]
            at_lo = lo == k
            vec = np.zeros(shape[:-1], a.dtype)
            vec[..., k] = _where(at_lo, x0, pick[0])
            vec[..., k + 1] = _where(at_lo, y0, pick[1])
            if k + 2 < n:
                vec[..., k + 2] = _where(k + 2 > hi, 0, _where(at_lo, z0, pick[2]))
            v, tau, _ = _householder(vec, k)
            tau = _where(live & (k >= lo) & (k < hi), tau, 0)
            h, z = _reflect_right(_reflect_left(h, v, tau), v, tau), _reflect_right(z, v, tau)
            h = _where((cols == k - 1) & (rows >= k + 1), 0, h)  # the entries the reflector zeroes
        h = _deflate(_where(rows > cols + 1, 0, h), eps, tiny)
        it += 1
    live, _, _ = blocks(h)
    info = (live | np.isnan(h).any((-2, -1))).astype(np.int32)
    for k in range(n - 1):  # standardise the 2x2 blocks
        here = h[..., k + 1, k] != 0
        na, nb, nc, nd, cs, sn = lanv2(h[..., k, k], h[..., k, k + 1], h[..., k + 1, k], h[..., k + 1, k + 1], eps)
        cs, sn = _where(here, cs, 1)[..., None], _where(here, sn, 0)[..., None]
        for x, side in ((h, "rows"), (h, "cols"), (z, "cols")):
            if side == "rows":
                x0, x1 = x[..., k, :].copy(), x[..., k + 1, :].copy()
                x[..., k, :], x[..., k + 1, :] = cs * x0 + sn * x1, cs * x1 - sn * x0
            else:
                x0, x1 = x[..., :, k].copy(), x[..., :, k + 1].copy()
                x[..., :, k], x[..., :, k + 1] = cs * x0 + sn * x1, cs * x1 - sn * x0
        for (i, j), new in zip(((k, k), (k, k + 1), (k + 1, k), (k + 1, k + 1)), (na, nb, nc, nd)):
            h[..., i, j] = _where(here, new, h[..., i, j])
    sub, sup = np.diagonal(h, -1, -2, -1), np.diagonal(h, 1, -2, -1)
    pair = _where(sub != 0, np.sqrt(np.abs(sup)) * np.sqrt(np.abs(sub)), 0)
    zero = np.zeros(shape[:-2] + (1,), a.dtype)
    wi = np.concatenate([pair, zero], -1) - np.concatenate([zero, pair], -1)
    return h, z, np.diagonal(h, 0, -2, -1).copy(), wi.astype(a.dtype), info


def complex_schur_of_real(t, z, wr, wi) -> tuple[np.ndarray, np.ndarray]:
    """``(T_c, Z_c)``: the complex Schur form of a real one (``t``, ``z``, ``wr``, ``wi`` of :func:`real_schur`),
    ``T_c = U^H T U``, ``Z_c = Z U``; ``U`` block diagonal with ``[[b, i s], [i s, b]] / |(b, s)|`` on each
    standardised block ``[[p, b], [c, p]]`` (``s = wi``: its first column the eigenvector of ``p + i s``). The
    diagonal of ``T_c`` is ``wr + i wi`` and its lower triangle zeros."""
    shape = t.shape
    ct = np.complex64 if t.dtype == np.float32 else np.complex128
    rows, cols = _rows(shape), _cols(shape)
    sup = np.concatenate([np.diagonal(t, 1, -2, -1), np.zeros(shape[:-2] + (1,), t.dtype)], -1)
    start, second = wi > 0, wi < 0
    b, s = _where(start, sup, 0), _where(start, wi, 0)
    big = np.maximum(np.abs(b), s)
    safe = _where(big == 0, 1, big)
    m = _where(start, np.sqrt((b / safe) ** 2 + (s / safe) ** 2) * safe, 1)
    first = b / m
    prev = np.concatenate([np.zeros(shape[:-2] + (1,), t.dtype), first[..., :-1]], -1)
    diag = _where(start, first, _where(second, prev, 1))
    off = s / m
    above = (cols == rows + 1) & start[..., :, None]
    below = (rows == cols + 1) & start[..., None, :]
    u = _where(rows == cols, diag[..., None, :], 0) + 1j * _where(above, off[..., :, None], _where(below, off[..., None, :], 0))
    u = u.astype(ct)
    tc = np.conj(np.swapaxes(u, -1, -2)) @ (t.astype(ct) @ u)
    tc = _where(rows == cols, (wr + 1j * wi).astype(ct)[..., None, :], _where(rows > cols, 0, tc)).astype(ct)
    return tc, z.astype(ct) @ u


def _real_input_vectors(v: np.ndarray, wi: np.ndarray) -> np.ndarray:
    """Columns of a real eigenvalue real, the second column of a conjugate pair the first's conjugate."""
    prev = np.concatenate([np.zeros_like(v[..., :, :1]), v[..., :, :-1]], -1)
    v = _where((wi == 0)[..., None, :], v.real.astype(v.dtype), v)
    return _where((wi < 0)[..., None, :], np.conj(prev), v)


def _geev_real(a: np.ndarray, left: bool, right: bool) -> tuple[np.ndarray, ...]:
    """:func:`geev` of a real ``a`` as LAPACK's ``?geev``: balanced by :func:`gebal`, the eigenvalues of
    :func:`real_schur` (real ones exactly real, pairs exactly conjugate), eigenvectors of
    :func:`complex_schur_of_real`'s form scaled back, normalised, then real / conjugate by
    :func:`_real_input_vectors`."""
    b, *balance = gebal(a)
    t, z, wr, wi, info = real_schur(b)
    tc, zc = complex_schur_of_real(t, z, wr, wi)
    w = (wr + 1j * wi).astype(tc.dtype)
    vr = vl = np.zeros_like(tc)
    if right:
        vr = _real_input_vectors(_normalize_columns(gebak(zc @ _triangular_eigenvectors(tc), *balance, left=False)), wi)
    if left:
        flipped = np.conj(np.swapaxes(tc, -1, -2))[..., ::-1, ::-1]
        vl = _real_input_vectors(_normalize_columns(
            gebak(zc @ _triangular_eigenvectors(flipped)[..., ::-1, ::-1], *balance, left=True)), wi)
    return w, vl, vr, info
