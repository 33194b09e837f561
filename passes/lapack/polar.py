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

* while ``c > 100``: ``[sqrt(c) X; I] = [Q_1; Q_2] R`` (Householder QR; the stacked matrix has the lower
  bandwidth ``m``, so each block of reflectors touches ``m + nb`` of its ``m + n`` rows, and ``Q_2 = R^{-1}``
  is upper triangular: :data:`STRUCTURED_QR`), ``X <- (b / c) X + (a - b / c) / sqrt(c) Q_1 Q_2^H``; for
  ``c <= CHOLESKY_QR2_C_MAX`` (the second step from ``L0``) ``Q_1 Q_2^H`` comes from CholeskyQR with a
  linearised second pass instead (:func:`_cholesky_qr2_step`, :data:`CHOLESKY_QR2_C_MAX`);
* then: ``Z = I + c X^H X = L L^H`` (Cholesky), ``X <- (b / c) X + (a - b / c) X Z^{-1}`` (two triangular
  solves);
* ``l <- l (a + b l^2) / (1 + c l^2)``.

The weights depend on ``l`` only. ``l_0``: the fixed bound :data:`L0` (``1e-9`` for f32, ``1e-18`` for f64,
below ``1 / (cond(A) sqrt(n))`` of every matrix whose small singular values the type resolves: 4 steps for
f32, 2 of them with ``c > 100``, 6 for f64, 3 with ``c > 100``) unless a run-time certificate gives more
(:data:`ESTIMATE_L0`, :func:`_dynamic`):

* ``X`` is scaled by ``1 / alpha``, ``alpha`` an estimate of ``||X||_2`` from ``G = X^H X`` (power steps,
  capped by ``||G||_1``; a slight underestimate is harmless: the last steps map ``sigma > 1`` back to 1);
* a Cholesky factorisation of ``G - (L_QR^2 + delta) I`` that succeeds certifies ``l_0 = L_QR`` (the
  ``l`` where ``c = 100``): no QR-based step, 2 Cholesky-based ones (f32) or 3 (f64), at about a quarter
  of a QR-based step's cost each, and the last step below. It runs as the first trip of the
  Cholesky-step loop (one copy of the factorisation's ops in the program); a batch element that fails it
  is unscaled and takes ``L0``;
* the steps run in ``while`` loops with the weights computed from ``l`` in the program, QR-based while
  some ``c(l) > STEP_C_MAX`` (:data:`STEP_C_MAX`: 100 for f32, 160 for f64, where the third step from
  ``L0`` has ``c = 155``: 2 QR-based steps instead of 3), Cholesky-based until ``1 - l <= sqrt(4 eps /
  3)``, then one Newton-Schulz step ``X (3 I - X^H X) / 2`` (:data:`NEWTON_SCHULZ`);
* f32 / complex<f32> with :data:`WIDE_STEPS` (off by default: no f64 in an f32 program): the steps with
  ``c > 100`` are Cholesky-based in f64 /
  complex<f64> instead of QR-based (``X`` converted, ``G``, the Cholesky factor of ``I + c G`` and the
  solves in the wider type, the result rounded back), about 2.5x a Cholesky-based f32 step's cost
  instead of 4-7x for the QR of the ``2n x n`` matrix. The Cholesky-based form's rounding error grows
  with ``cond(I + c G) <= 1 + c`` (hence Nakatsukasa & Higham's ``c <= 100`` in the working precision);
  in f64 ``(1 + c) eps_f64`` is below ``2e-4`` for the first step from ``L0[f32]`` (``c = 1.6e12``) and
  below ``1e-12`` for the second, and the backward error ``||A - U_p H|| / ||A||`` measured is 2-3 f32
  ``eps`` (3-5 with the QR-based steps; a test checks it). A singular value at or below f32 rounding is
  left as small as it is (the f32 QR's rounding raised it to 1), and :func:`polar_svd` re-orthonormalises
  those columns;
* a certified matrix left short of orthonormal (``3/4 ||G - I||_F^2 > ORTHO_SLACK n eps`` before the
  Newton-Schulz step: a certificate fooled by rounding) runs again from ``X / ||X||_F`` with ``l_0 = L0``.

Singular values below ``l_0 ||A||_F`` converge only partly; they are at the rounding level of ``A``, and
:func:`polar_svd` re-orthonormalises ``U``.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import COMPLEX_TYPES, Emitter, V
from hlokit.passes.lapack.matrix import (
    abs2, adjoint, any_true, conj, dot, has_nan, identity_matrix, magnitude, pad_dim, real_type, reduce_with, reverse,
    slice_dim, splat, to_elem, transpose_minor,
)
from hlokit.passes.lapack.cholesky import build_cholesky
from hlokit.passes.lapack.jacobi import orthonormal_columns
from hlokit.passes.lapack.qr import build_geqrf, build_orgqr

__all__ = ["L0", "qdwh_schedule", "qdwh_polar", "polar_svd"]

#: ``l_0``, the assumed lower bound of ``sigma_min(A) / ||A||_F``, per real element type.
L0 = {"f32": 1e-9, "f64": 1e-18}

#: Steps with ``c`` above this use the QR-based form (Nakatsukasa & Higham: the Cholesky form is stable for
#: ``c <= 100``).
CHOLESKY_C_MAX = 100.0

#: Loops of the blocked QR of ``[sqrt(c) X; I]`` below :data:`QR_LARGE_FROM` columns (one fixed-shape
#: window: a third of the compile time of three; with :data:`STRUCTURED_QR` three loops make the step 10-16 %
#: faster at n = 256, 0-5 % of an ill-conditioned SVD, within noise, for +2 s of compile).
QR_SEGMENTS = 1

#: From this many columns on the QR of ``[sqrt(c) X; I]`` runs in :data:`QR_SEGMENTS_LARGE` loops over
#: shrinking column windows (the masked columns left of each block are half the work of one loop): at n = 512
#: a QR-based step 13-23 % faster, an SVD at condition 1e6 9-18 % (same-process A/B, XLA CPU), for about
#: 2 s more compile (CPU time of the polar program 6.2 -> 8.5 s at n = 256); None: never.
QR_LARGE_FROM = 384
QR_SEGMENTS_LARGE = 3

#: The QR of ``[sqrt(c) X; I]`` per block on the ``m + nb`` rows its reflectors touch (:func:`_qr_step`;
#: the band of the stacked matrix) instead of all ``m + n``: a QR-based step 37-42 % faster at n = 256 /
#: 512 (f32 and f64); False: the full height.
STRUCTURED_QR = True

#: QR-based steps with ``c`` up to this (per real type) take the CholeskyQR form of :func:`_cholesky_qr2_step`
#: instead of the Householder QR of ``[sqrt(c) X; I]``; None: Householder for every QR-based step. From
#: :data:`L0` the second step has ``c = 4.7e3`` (f32) / ``4.6e7`` (f64), ``cond([sqrt(c) X; I]) <= sqrt(1 + c)``
#: = 69 / 6.8e3, the first ``c = 1.6e12`` / ``1.6e24`` (Householder: ``cond^2`` is beyond ``1 / eps``). At these
#: caps the first CholeskyQR pass leaves ``Q^H Q - I`` at about ``0.4 c eps`` (measured, n = 64-512) and the
#: term the correction drops, its square, below ``2 eps`` (f32) / ``0.4 eps`` (f64). Same-process A/B on XLA
#: CPU (loaded machine): the step 0.75x the Householder one at n = 256 (f32 3.0 vs 3.9 ms, f64 5.9 vs 7.9),
#: 0.85x at 512; the SVD at condition 1e6 4-6 % (f32) / 5-10 % (f64) faster at n = 256 (f32 24.3 -> 23.4 ms,
#: f64 47.5 -> 45.1), f32 512 4 % (128 -> 123), f64 512 unchanged (241 vs 242); condition 10 unchanged; the
#: polar factor's backward error and orthonormality unchanged (f32 6.5 vs 7.5 eps, f64 14-15 eps at n = 256).
CHOLESKY_QR2_C_MAX: dict[str, float] | None = {"f32": 1e4, "f64": 1e8}

#: ``static_max`` of :func:`_cholesky_qr2_step`'s Cholesky factorisation (as :data:`WIDE_CHOLESKY_STATIC_MAX`):
#: the left-looking form, a sixth of the loop-free one's text. The f32 polar program at n = 256: 451 KB and
#: 7.2-7.7 s of compile CPU time against 389 KB and 5.8 s without the CholeskyQR step (the loop-free form:
#: about 270 KB and 1-2 s more).
CHOLESKY_QR2_STATIC_MAX = 0

#: Column blocks of the product ``Q_1 Q_2^H`` with the upper triangular ``Q_2`` (:func:`_times_upper_adjoint`).
PRODUCT_PARTS = 2

#: Estimate ``l_0`` at run time from the Gram matrix (module docstring); False: the fixed bound :data:`L0`
#: for every matrix (the schedule of :func:`qdwh_schedule`, all steps run).
ESTIMATE_L0 = True

#: Power steps on ``G = X^H X`` for ``||X||_2^2``.
POWER_STEPS = 8

#: ``alpha^2 = min(||G||_1, NORM_MARGIN rho)`` with ``rho`` the power estimate (a lower bound of
#: ``||X||_2^2``, within 0.87-0.96 of it on the benchmark matrices).
NORM_MARGIN = 1.25

#: The last step (from ``1 - l <= sqrt(4 eps / 3)``) by Newton-Schulz, ``X (3 I - X^H X) / 2`` (one product;
#: Higham, *Functions of Matrices*, 8.3), instead of a Cholesky-based one.
NEWTON_SCHULZ = True

#: The Cholesky test of ``sigma_min >= L_QR`` shifts by ``CERTIFY_SLACK sqrt(n) eps ||X||_F^2`` more.
CERTIFY_SLACK = 4.0

#: Caps of the run-time loops (from ``l_0 = L0`` the schedule has at most 3 QR-based and 4 Cholesky-based
#: steps).
MAX_QR_STEPS = 6
MAX_CHOLESKY_STEPS = 8

#: The steps with ``c > STEP_C_MAX`` of an f32 / complex<f32> matrix run Cholesky-based in the wider type
#: of :data:`WIDER` instead of QR-based (:func:`_dynamic`, module docstring); False (the default): QR-based in
#: the matrix's own type. Off because an f32 program must hold no f64 op: a TPU has no f64 and most GPUs run it
#: at a fraction of f32's speed (the rule of the CHLO kernels, issue 40 item 4); on means ill-conditioned
#: f32 SVDs 13-25 % faster on XLA CPU (n = 256 / 512, condition 1e6).
WIDE_STEPS = False

#: Steps with ``c`` up to this (per real type) run Cholesky-based in the matrix's own type, those above
#: QR-based (or wide, :data:`WIDE_STEPS`), with ``l_0`` = :data:`L0` or certified (:data:`ESTIMATE_L0`).
#: f64: 160 makes the third step from ``L0`` (``c = 155``) Cholesky-based (2 QR-based steps instead of 3;
#: backward error ``||A - U_p H|| / ||A||`` measured 6-10 ``eps`` instead of 5-6 at n = 128, cond 1e3-1e9).
STEP_C_MAX = {"f32": CHOLESKY_C_MAX, "f64": 160.0}

#: ``static_max`` of the wide steps' Cholesky factorisation (:func:`~hlokit.passes.lapack.cholesky.build_cholesky`):
#: its left-looking form at every order, as fast as the loop-free one at n = 256 (f64 4.2 vs 4.7 ms per step) for
#: a sixth of the program text and half the compile time (4.2 vs 9.7 s, loaded machine).
WIDE_CHOLESKY_STATIC_MAX = 0

#: The wider type of a matrix's element type for :data:`WIDE_STEPS`.
WIDER = {"f32": "f64", "complex<f32>": "complex<f64>"}

#: ``U = U_p V`` is re-orthonormalised by a QR where ``|U^H U - I|`` exceeds ``ORTHO_SLACK n eps``.
ORTHO_SLACK = 4.0

#: :func:`polar_svd` tests ``U^H U`` (one ``n x n`` product and its loop) only where the polar iteration's own
#: last orthonormality measure exceeds ``ORTHO_SKIP n eps`` (:func:`_dynamic`'s ``finish``: ``dev = 3/4 ||G -
#: I||_F^2`` of ``G = X^H X`` before the Newton-Schulz step; a singular value ``1 - d`` adds ``3 d^2`` to it and
#: leaves the step as ``1 - 3 d^2 / 2``, so ``dev`` bounds ``||U_p^H U_p - I||_2`` after it to first order, and
#: ``U^H U - I = V^H (U_p^H U_p - I) V`` plus rounding) or where the iteration stopped short of that step; the
#: other ``2 n eps`` of the test's ``ORTHO_SLACK n eps`` cover the rounding of the step and of ``U_p V``
#: (measured ``|U^H U - I|``: 7-11 eps at n = 256, f32, condition 3-1e6). Same-process A/B on XLA CPU (loaded
#: machine, n = 256): the SVD 24.6 -> 22.3 ms (f32) and 47.7 -> 46.1 ms (f64) at condition 1e6, 30.7 -> 28.2 (f64)
#: at condition 10, ``U`` bit-identical. With :data:`ESTIMATE_L0` and :data:`NEWTON_SCHULZ` only; None: the
#: test always runs.
ORTHO_SKIP: float | None = 2.0


def _weights_of(l: float) -> tuple[float, float, float, float]:
    """``(a, b, c, l')`` of the bound ``l`` (``qdwh_schedule``'s formulas, in Python floats)."""
    l2 = l * l
    d = (4.0 * max(1.0 - l2, 0.0) / (l2 * l2)) ** (1.0 / 3.0)
    a = math.sqrt(1.0 + d) + 0.5 * math.sqrt(8.0 - 4.0 * d + 8.0 * (2.0 - l2) / (l2 * math.sqrt(1.0 + d)))
    b = (a - 1.0) ** 2 / 4.0
    c = a + b - 1.0
    return a, b, c, min(1.0, l * (a + b * l2) / (1.0 + c * l2))


def qdwh_schedule(l0: float, tol: float) -> list[tuple[float, float, float]]:
    """The QDWH weights ``(a, b, c)`` of each step from the lower bound ``l0``, until ``1 - l < tol``.

    ``h(l) = sqrt(1 + d) + sqrt(8 - 4 d + 8 (2 - l^2) / (l^2 sqrt(1 + d))) / 2`` with
    ``d = (4 (1 - l^2) / l^4)^(1/3)`` (Nakatsukasa, Bai & Gygi 2010, eq. 3.3); at most 12 steps.
    """
    out: list[tuple[float, float, float]] = []
    l = l0
    while len(out) < 12:
        a, b, c, l = _weights_of(l)
        out.append((a, b, c))
        if 1.0 - l < tol:
            break
    return out


def _qr_bound(c_max: float = CHOLESKY_C_MAX) -> float:
    """The ``l`` below which ``c(l) > c_max`` (``c`` decreases in ``l``; bisection in log scale)."""
    lo, hi = 1e-20, 1.0 - 1e-12
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if _weights_of(mid)[2] > c_max else (lo, mid)
    return hi


#: Steps run QR-based while ``l`` is below this (``c(l) > CHOLESKY_C_MAX``; about 0.048).
L_QR = _qr_bound()


def _bcast(e: Emitter, w: V, shape: list[int]) -> V:
    """A 0-d or ``[*b]`` weight broadcast to ``shape`` ``[*b, m, n]``."""
    return e.broadcast_in_dim(w, shape, list(range(len(w.shape))))


def _qr_step(e: Emitter, x: V, scale: V, p: V, q: V) -> V:
    """``X <- p X + q Q_1 Q_2^H`` with ``[scale X; I] = [Q_1; Q_2] R`` (``scale = sqrt(c)``, ``p = b / c``,
    ``q = (a - b / c) / sqrt(c)``; the weights 0-d or ``[*b]`` of ``x``'s element type).

    With :data:`STRUCTURED_QR` the QR uses the stacked matrix's structure (Nakatsukasa & Higham 2013; cf.
    LAPACK ``?tpqrt``): ``[scale X; I]`` has the lower bandwidth ``m`` (the identity's row ``i`` is zero
    left of column ``i``), which the Householder QR keeps, so each block of reflectors touches ``m + nb`` of
    the ``m + n`` rows (``build_geqrf`` / ``build_orgqr``'s ``lower_bandwidth``)."""
    shape = x.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    stacked = e.concatenate([x * _bcast(e, scale, shape), identity_matrix(e, batch + [n, n], x.t)], r)
    band = m if STRUCTURED_QR else None
    segments = QR_SEGMENTS_LARGE if QR_LARGE_FROM is not None and n >= QR_LARGE_FROM else QR_SEGMENTS
    qr, tau = build_geqrf(e, stacked, segments=segments, lower_bandwidth=band)
    qq = build_orgqr(e, qr, tau, segments=segments, lower_bandwidth=band)
    q1, q2 = slice_dim(e, qq, r, 0, m), slice_dim(e, qq, r, m, m + n)
    if STRUCTURED_QR:
        prod = _times_upper_adjoint(e, q1, q2, PRODUCT_PARTS)
    else:
        prod = dot(e, q1, conj(e, q2), r, r + 1, r + 1)
    return x * _bcast(e, p, shape) + prod * _bcast(e, q, shape)


def _cholesky_qr2_step(e: Emitter, x: V, scale: V, p: V, q: V) -> V:
    """:func:`_qr_step`'s update ``X <- p X + q Q_1 Q_2^H`` (the same weights) with ``[Q_1; Q_2]`` from
    CholeskyQR of ``W = [scale X; I]`` and a second, linearised pass instead of a Householder QR.

    ``Q_1 Q_2^H = scale X (W^H W)^{-1}`` for every ``Q = W M`` with ``M M^H = (W^H W)^{-1}``, and ``Q_1 G^{-1}
    Q_2^H`` with ``G = Q^H Q`` for every nonsingular ``M``. First pass (CholeskyQR): ``W^H W = I + c X^H X =
    L L^H`` (one product: the identity block adds exactly ``I``), ``M = L^{-H}`` (one triangular solve of
    order ``n``; its rounding only changes ``M``, so only ``M``'s conditioning matters), ``Q_1 = scale X M``
    and ``Q_2 = M`` (upper triangular: :func:`_times_upper`). Second pass: ``E = Q^H Q - I`` (about ``c
    eps``: the first pass's loss of orthogonality, ``cond(W)^2 eps``), ``G^{-1} = I - E + O(E^2)``, ``X <- p
    X + q (Q_1 (I - E)) Q_2^H`` (:func:`_times_upper_adjoint`). This is CholeskyQR2 (Yamamoto, Nakatsukasa,
    Yanagisawa & Fukaya, "Roundoff error analysis of the CholeskyQR2 algorithm", ETNA 44, 2015: the second
    pass ``G = L_2 L_2^H``, ``Q <- Q L_2^{-H}``) with ``L_2^{-H} L_2^{-1} = G^{-1}`` to first order: two
    products instead of a Cholesky factorisation and a triangular solve of the ``(m + n) x n`` stack.
    Accurate where ``c eps`` is small (the caps of :data:`CHOLESKY_QR2_C_MAX`); a test checks the step
    against a Householder QR to ``2 sqrt(c) eps``, the step's own condition."""
    shape = x.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r + 1]
    eye = identity_matrix(e, batch + [n, n], x.t)
    low = build_cholesky(e, eye + _gram(e, x) * _bcast(e, scale * scale, [*batch, n, n]), lower=True,
                         static_max=CHOLESKY_QR2_STATIC_MAX)
    q2 = e.triangular_solve(low, eye, left_side=True, lower=True, unit_diagonal=False, transpose_a="ADJOINT")
    q1 = _times_upper(e, x * _bcast(e, scale, shape), q2, PRODUCT_PARTS)
    dev = _gram(e, q1) + _times_upper(e, adjoint(e, q2), q2, PRODUCT_PARTS) - eye
    q1 = dot(e, q1, eye - dev, r, r + 1, r)
    return x * _bcast(e, p, shape) + _times_upper_adjoint(e, q1, q2, PRODUCT_PARTS) * _bcast(e, q, shape)


def _times_upper(e: Emitter, x: V, u: V, parts: int) -> V:
    """``X U`` for ``x`` ``[*b, m, n]`` and an upper triangular ``u`` ``[*b, n, n]`` (its lower triangle not
    read): column block ``[j0, j1)`` is ``X[:, :j1] U[:j1, j0:j1]``, ``parts`` blocks of near-equal width
    (:func:`_times_upper_adjoint`'s share of the multiplications)."""
    r = len(x.shape) - 2
    n = x.shape[r + 1]
    cuts = sorted({round(i * n / parts) for i in range(parts + 1)})
    blocks = [dot(e, slice_dim(e, x, r + 1, 0, j1), slice_dim(e, slice_dim(e, u, r, 0, j1), r + 1, j0, j1),
                  r, r + 1, r) for j0, j1 in zip(cuts, cuts[1:])]
    return blocks[0] if len(blocks) == 1 else e.concatenate(blocks, r + 1)


def _times_upper_adjoint(e: Emitter, q1: V, q2: V, parts: int) -> V:
    """``Q_1 Q_2^H`` for ``q1`` ``[*b, m, n]`` and an upper triangular ``q2`` ``[*b, n, n]`` (the ``Q_2 =
    R^{-1}`` of :func:`_qr_step`'s stacked QR, zero below the diagonal as the banded QR leaves it): column
    block ``[j0, j1)`` of the product is ``Q_1[:, j0:] Q_2[j0:j1, j0:]^H``, ``parts`` blocks of near-equal
    width, ``(parts + 1) / (2 parts)`` of the multiplications of one full product."""
    r = len(q1.shape) - 2
    n = q1.shape[r + 1]
    cuts = sorted({round(i * n / parts) for i in range(parts + 1)})
    blocks = [dot(e, slice_dim(e, q1, r + 1, j0, n), conj(e, slice_dim(e, slice_dim(e, q2, r, j0, j1), r + 1, j0, n)),
                  r, r + 1, r + 1) for j0, j1 in zip(cuts, cuts[1:])]
    return blocks[0] if len(blocks) == 1 else e.concatenate(blocks, r + 1)


def _gram(e: Emitter, x: V) -> V:
    r = len(x.shape) - 2
    return dot(e, conj(e, x), x, r, r, r)


def _cholesky_update(e: Emitter, x: V, g: V, c: V, p: V, q: V, static_max: int | None = None) -> V:
    """``X <- p X + q X Z^{-1}`` with ``Z = I + c G`` (``G = X^H X``) by its Cholesky factor (``p = b / c``,
    ``q = a - b / c``; the weights 0-d or ``[*b]``)."""
    shape = x.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r + 1]
    z = identity_matrix(e, batch + [n, n], x.t) + g * _bcast(e, c, g.shape)
    return _solve_update(e, x, build_cholesky(e, z, lower=True, static_max=static_max), p, q)


def _solve_update(e: Emitter, x: V, low: V, p: V, q: V) -> V:
    """``p X + q X Z^{-1}`` with ``Z = L L^H`` (``low``)."""
    shape = x.shape
    # Y = X Z^{-1}: Z Y^H = X^H, i.e. L M = X^H, L^H Y^H = M.
    mt = e.triangular_solve(low, adjoint(e, x), left_side=True, lower=True, unit_diagonal=False,
                            transpose_a="NO_TRANSPOSE")
    yt = e.triangular_solve(low, mt, left_side=True, lower=True, unit_diagonal=False, transpose_a="ADJOINT")
    return x * _bcast(e, p, shape) + adjoint(e, yt) * _bcast(e, q, shape)


def _cholesky_step(e: Emitter, x: V, c: V, p: V, q: V, static_max: int | None = None) -> V:
    """``X <- p X + q X Z^{-1}`` with ``Z = I + c X^H X`` (:func:`_cholesky_update`)."""
    return _cholesky_update(e, x, _gram(e, x), c, p, q, static_max)


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


def _weights(e: Emitter, l: V) -> tuple[V, V, V, V]:
    """``(a, b, c, l')`` of the bounds ``l`` (real, any shape) in the program: :func:`_weights_of`."""
    l2 = l * l
    d = e.cbrt(e.maximum(1.0 - l2, 0.0) * 4.0 / (l2 * l2))
    sd = e.sqrt(d + 1.0)
    a = sd + e.sqrt(e.maximum(8.0 - 4.0 * d + 8.0 * (2.0 - l2) / (l2 * sd), 0.0)) * 0.5
    b = (a - 1.0) * (a - 1.0) * 0.25
    c = a + b - 1.0
    return a, b, c, e.minimum(l * (a + b * l2) / (c * l2 + 1.0), 1.0)


def _norm2(e: Emitter, x: V) -> V:
    """``||x||_F`` ``[*b]`` of ``x`` ``[*b, m, n]``, real."""
    r = len(x.shape) - 2
    return e.sqrt(e.reduce_sum(abs2(e, x), [r, r + 1]))


def _scale(e: Emitter, g: V) -> tuple[V, V]:
    """``(s, shift)`` ``[*b]`` from ``G = X^H X`` (``||X||_F = 1``): ``||s X||_2 <~ 1`` (``s = 1`` where not
    finite: zero or NaN), and the shift of ``G`` whose Cholesky factorisation certifies ``sigma_min(s X) >=
    L_QR`` (NaN where ``s`` is not finite).

    ``s = 1 / alpha``, ``alpha^2 = min(||G||_1, NORM_MARGIN rho)`` (``||G||_2 <= ||G||_1`` for Hermitian
    ``G``; ``rho`` from :data:`POWER_STEPS` power steps, a lower bound of ``||G||_2``: Golub & Van Loan,
    *Matrix Computations*, 4th ed., 8.2.1). ``G - shift I`` positive definite to the backward error of its
    Cholesky factorisation (the factor has no NaN) certifies ``sigma_min(s X) >= L_QR``: ``shift = L_QR^2 /
    s^2 + CERTIFY_SLACK sqrt(n) eps`` for the rounding of ``G`` and of the factorisation (Higham, *Accuracy
    and Stability of Numerical Algorithms*, 2nd ed., 3.5 and Thm 10.5: the typical size, not the worst
    case ``n eps``; an over-optimistic outcome is caught by :func:`qdwh_polar`'s orthonormality check).
    """
    shape = g.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t, rt = g.t, real_type(g.t)
    eps = 2.0 ** -23 if rt == "f32" else 2.0 ** -52
    vshape = batch + [n, 1]
    start = [1.0 + math.fmod(0.6180339887498949 * i, 1.0) for i in range(n)]
    v = e.broadcast_in_dim(to_elem(e, e.constant(start, rt), t), vshape, [r])
    v = v / _bcast(e, to_elem(e, _norm2(e, v), t), vshape)
    rho = None
    for _ in range(POWER_STEPS):
        w = dot(e, g, v, r, r + 1, r)
        rho = _norm2(e, w)
        safe = e.select(e.compare("EQ", rho, splat(e, 0, rt, batch), "FLOAT"), splat(e, 1, rt, batch), rho)
        v = w / _bcast(e, to_elem(e, safe, t), vshape)
    g1 = reduce_with(e, e.reduce_sum(magnitude(e, g), [r]), [r], float("-inf"), "maximum")
    s2 = 1.0 / e.minimum(g1, rho * NORM_MARGIN)
    finite = e.is_finite(s2)
    shift = e.select(finite, L_QR * L_QR / s2 + CERTIFY_SLACK * math.sqrt(n) * eps, splat(e, math.nan, rt, batch))
    return e.select(finite, e.sqrt(s2), splat(e, 1, rt, batch)), shift


def _dynamic(e: Emitter, x: V, check: bool = False) -> list[V]:
    """The polar factor of ``x`` (``||x||_F = 1``) with ``l_0`` certified at run time and the weights of each
    step from ``l`` in the program (module docstring): ``[u_p, qr_steps, cholesky_steps, trips]`` (0-d i32
    counts, for tests: the steps of both kinds, and the trips of the outer loop: 1 where every matrix of
    the batch was certified, 2 where some was not or, 2-3, where a certified one missed the check); with
    ``check`` and :data:`ORTHO_SKIP` also ``need`` (0-d i1: false where the last step found every matrix
    orthonormal to ``ORTHO_SKIP n eps``)."""
    shape = x.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r + 1]
    t, rt = x.t, real_type(x.t)
    eps = 2.0 ** -23 if rt == "f32" else 2.0 ** -52
    i32 = lambda k: e.scalar(k, "i32")  # noqa: E731
    last = math.sqrt(4.0 * eps / 3.0) if NEWTON_SCHULZ else eps  # the Cholesky-based steps stop below 1 - last
    lqr, l0 = splat(e, L_QR, rt, batch), splat(e, L0[rt], rt, batch)
    wide = WIDER.get(t) if WIDE_STEPS else None
    lstep = splat(e, min(_qr_bound(STEP_C_MAX[rt]), L_QR), rt, batch)  # steps below: QR-based or wide
    g = _gram(e, x)
    s, shift = _scale(e, g)
    x = x * _bcast(e, to_elem(e, s, t), shape)
    g = g * _bcast(e, to_elem(e, s * s, t), g.shape)
    eye = identity_matrix(e, g.shape, t)
    zeros = splat(e, False, "i1", batch)

    def qr_body(k: V, x_: V, l_: V, qr_form) -> list[V]:
        a, b, c, nxt = _weights(e, l_)
        p = b / c
        if wide is not None:  # a Cholesky-based step in the wider type (WIDE_STEPS)
            wr = real_type(wide)
            xw = e.convert(x_, wide)
            xw = _cholesky_step(e, xw, *(to_elem(e, e.convert(w, wr), wide) for w in (c, p, a - p)),
                                static_max=WIDE_CHOLESKY_STATIC_MAX)
            return [k + i32(1), e.convert(xw, t), nxt]
        sc = e.sqrt(c)
        return [k + i32(1), qr_form(e, x_, *(to_elem(e, w, t) for w in (sc, p, (a - p) / sc))), nxt]

    def chol_body(k: V, cert: V, x_: V, g_: V, l_: V, est: V) -> list[V]:
        # The first trip factors G - shift I (the certificate), the others I + c G (a step): one copy of
        # the Cholesky factorisation's ops.
        a, b, c, nxt = _weights(e, l_)
        z = e.select(e.broadcast_in_dim(cert, g_.shape, []), g_ - eye * _bcast(e, to_elem(e, shift, t), g_.shape),
                     eye + g_ * _bcast(e, to_elem(e, c, t), g_.shape))
        low = build_cholesky(e, z, lower=True)
        p = b / c

        def step(i: V, xs: V, gs: V, ls: V) -> list[V]:
            xs = _solve_update(e, xs, low, to_elem(e, p, t), to_elem(e, a - p, t))
            return [i + i32(1), xs, _gram(e, xs), nxt]

        trips = e.select(cert, i32(0), i32(1))
        _, x2, g2, l2 = e.while_([i32(0), x_, g_, l_], lambda i, *_: e.compare("LT", i, trips, "SIGNED"), step)
        ok = e.not_(has_nan(e, low))
        failed = e.and_(e.broadcast_in_dim(cert, batch, []), e.not_(ok))  # not certified: unscaled, l = L0
        x2 = e.select(_bcast(e, failed, shape), x2 / _bcast(e, to_elem(e, s, t), shape), x2)
        g2 = e.select(_bcast(e, failed, g_.shape), g2 / _bcast(e, to_elem(e, s * s, t), g_.shape), g2)
        l2 = e.select(failed, l0, l2)
        est = e.select(e.broadcast_in_dim(cert, batch, []), ok, est)
        return [k + trips, e.const(False, t="i1", shape=[]), x2, g2, l2, est]

    def finish(i: V, x_: V, g_: V, l_: V, est: V, _bad: V, *_need: V) -> list[V]:
        # An estimated l_0 that was too optimistic leaves X short of orthonormal (checked on G = X^H X).
        if NEWTON_SCHULZ:
            # X <- X (3 I - X^H X) / 2 maps a singular value 1 - d to 1 - 3 d^2 / 2 + O(d^3): with
            # ||G - I||_F^2 3 / 4 <= ORTHO_SLACK n eps the result is orthonormal to that.
            dev = e.reduce_sum(abs2(e, g_ - eye), [r, r + 1]) * 0.75
            x_ = dot(e, x_, eye * 1.5 - g_ * 0.5, r, r + 1, r)
            l_ = e.minimum(l_ * (3.0 - l_ * l_) * 0.5, 1.0)
        else:
            dev = reduce_with(e, magnitude(e, g_ - eye), [r, r + 1], 0.0, "maximum")
        bad = e.and_(est, e.compare("GT", dev, splat(e, ORTHO_SLACK * n * eps, rt, batch), "FLOAT"))
        if skip:  # U^H U is tested (polar_svd) only where this is set
            return [i + i32(1), x_, g_, l_, est, bad,
                    any_true(e, e.compare("GT", dev, splat(e, ORTHO_SKIP * n * eps, rt, batch), "FLOAT"))]
        return [i + i32(1), x_, g_, l_, est, bad]

    def qr_loop(k: V, x_: V, l_: V, below: V, form) -> list[V]:
        # QR-based steps (by ``form``) while some l is below ``below``.
        return e.while_(
            [k, x_, l_],
            lambda k, _x, l: e.and_(e.compare("LT", k, i32(MAX_QR_STEPS), "SIGNED"),
                                    any_true(e, e.compare("LT", l, below, "FLOAT"))),
            lambda k, x_, l_: qr_body(k, x_, l_, form))

    cqr2 = wide is None and CHOLESKY_QR2_C_MAX is not None
    skip = check and ORTHO_SKIP is not None and NEWTON_SCHULZ  # dev a Frobenius measure only with it
    yes = [e.const(True, t="i1", shape=[])] if skip else []

    def trip(j: V, nq: V, nc: V, cert: V, x_: V, g_: V, l_: V, est: V, *_need: V) -> list[V]:
        k = i32(0)
        if cqr2:  # Householder while some c(l) > CHOLESKY_QR2_C_MAX, then CholeskyQR2
            k, x_, l_ = qr_loop(k, x_, l_, splat(e, _qr_bound(CHOLESKY_QR2_C_MAX[rt]), rt, batch), _qr_step)
        k, x_, l_ = qr_loop(k, x_, l_, lstep, _cholesky_qr2_step if cqr2 else _qr_step)
        # The Gram matrix of X only after a QR-based step (a loop of zero or one trips).
        once = e.select(e.compare("GT", k, i32(0), "SIGNED"), i32(1), i32(0))
        g_ = e.while_([i32(0), g_], lambda i, _g: e.compare("LT", i, once, "SIGNED"),
                      lambda i, _g: [i + i32(1), _gram(e, x_)])[1]
        kc, cert, x_, g_, l_, est = e.while_(
            [i32(0), cert, x_, g_, l_, est],
            lambda k, cert_, _x, _g, l, _est: e.and_(
                e.and_(e.compare("LT", k, i32(MAX_CHOLESKY_STEPS), "SIGNED"),
                       any_true(e, e.compare("GT", 1.0 - l, splat(e, last, rt, batch), "FLOAT"))),
                e.or_(cert_, e.not_(any_true(e, e.compare("LT", l, lstep, "FLOAT"))))),
            chol_body)
        # Converged (no matrix left for QR-based steps): the last step and the check (zero or one trips).
        done = e.not_(any_true(e, e.compare("GT", 1.0 - l_, splat(e, last, rt, batch), "FLOAT")))
        _, x_, g_, l_, est, bad, *need = e.while_(
            [i32(0), x_, g_, l_, est, zeros, *yes],
            lambda i, *_: e.compare("LT", i, e.select(done, i32(1), i32(0)), "SIGNED"), finish)
        # Missed: again from X / ||X||_F with l_0 = L0 (the singular values' ratios only grow).
        nf = _norm2(e, x_)
        nf = e.select(e.compare("EQ", nf, splat(e, 0, rt, batch), "FLOAT"), splat(e, 1, rt, batch), nf)
        x_ = e.select(_bcast(e, bad, shape), x_ / _bcast(e, to_elem(e, nf, t), shape), x_)
        g_ = e.select(_bcast(e, bad, g_.shape), g_ / _bcast(e, to_elem(e, nf * nf, t), g_.shape), g_)
        return [j + i32(1), nq + k, nc + kc, cert, x_, g_, e.select(bad, l0, l_), e.and_(est, e.not_(bad)), *need]

    out = e.while_([i32(0), i32(0), i32(0), e.const(True, t="i1", shape=[]), x, g, lqr, zeros, *yes],
                   lambda j, _q, _c, _cert, _x, _g, l, _est, *_n: e.or_(
                       e.compare("EQ", j, i32(0), "SIGNED"),
                       e.and_(e.compare("LT", j, i32(3), "SIGNED"), any_true(e, e.compare("LT", l, lstep, "FLOAT")))),
                   trip)
    return [out[4], out[1], out[2], out[0], *out[8:]]


def qdwh_polar(e: Emitter, a: V) -> V:
    """The unitary polar factor of ``a`` (``[*b, m, n]``, ``m >= n``; f32, f64, complex<f32>, complex<f64>).

    ``[*b, m, n]`` with orthonormal columns where ``a`` has full column rank (to ``C n eps``); a zero
    matrix gives zero. Singular values of ``a`` below ``L0 ||a||_F`` are only partly mapped to 1. With
    :data:`ESTIMATE_L0` the bound ``l_0`` is estimated per matrix and the steps run while ``l`` asks for them
    (module docstring); else the schedule of :func:`qdwh_schedule` from :data:`L0` runs as two loops over
    constant weight tables, the QR-based steps then the Cholesky-based ones. Raises ``ValueError`` for
    ``m < n``.
    """
    return _polar_and_check(e, a, False)[0]


def _polar_and_check(e: Emitter, a: V, check: bool = True) -> tuple[V, V | None]:
    """:func:`qdwh_polar`'s ``(u_p, need)``: ``need`` (0-d i1) false where the iteration's last step found
    every matrix of the batch orthonormal (:data:`ORTHO_SKIP`), None where not known."""
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
    if ESTIMATE_L0:
        out = _dynamic(e, x, check=check)
        return out[0], (out[4] if len(out) > 4 else None)
    schedule = qdwh_schedule(L0[rt], eps)
    by_qr = [(math.sqrt(c), b / c, (a_ - b / c) / math.sqrt(c)) for a_, b, c in schedule if c > CHOLESKY_C_MAX]
    by_chol = [(c, b / c, a_ - b / c) for a_, b, c in schedule if c <= CHOLESKY_C_MAX]
    return _steps(e, _steps(e, x, by_qr, _qr_step), by_chol, _cholesky_step), None


def _columns_at(e: Emitter, x: V, idx: V) -> V:
    """Columns ``idx`` (i32 ``[*b, n]``) of ``x`` ``[*b, m, n]``: one ``stablehlo.gather`` of rows of ``x^T``
    with the batch flattened into the row index (StableHLO spec, "gather")."""
    shape = x.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    count = math.prod(batch)
    rows = idx + e.reshape(e.iota([count, n], 0, "i32"), batch + [n]) * splat(e, n, "i32", batch + [n])
    xt = e.reshape(transpose_minor(e, x), [count * n, m])
    picked = e.gather(xt, e.reshape(rows, [count * n, 1]), offset_dims=[1], collapsed_slice_dims=[0],
                      start_index_map=[0], index_vector_dim=1, slice_sizes=[1, m])
    return transpose_minor(e, e.reshape(picked, batch + [n, m]))


def polar_svd(e: Emitter, a: V, eigh, mode: str) -> tuple[V, V | None, V | None]:
    """QDWH-SVD of ``a`` (``[*b, m, n]``, ``m >= n``): ``(s, u, v)`` with ``s`` ``[*b, n]`` real descending,
    ``u`` ``[*b, m, n]`` (``[*b, m, m]`` for ``mode`` 'A'), ``v`` ``[*b, n, n]``; ``u``, ``v`` None for 'N'.

    ``U_p`` = :func:`qdwh_polar`, ``H = (U_p^H A + (U_p^H A)^H) / 2``, ``eigh(H) -> (V, w)`` (``eigh(e, h)``
    returns ``(v, w)``, ``w`` ascending), ``s = |w|`` descending, ``U = U_p V`` with the sign of ``w`` (a
    tiny negative eigenvalue of ``H`` is a singular value whose left vector flips), then, for mode 'A' with
    ``m > n`` or where ``|U^H U - I| > ORTHO_SLACK n eps`` (a singular value below ``L0 ||A||_F``), made
    orthonormal (and completed) by the Householder QR of ``U`` with the phases of ``R``'s diagonal, which
    leaves columns that are already orthonormal unchanged to rounding (Nakatsukasa & Higham 2013, Alg. 5.1;
    backward stable). The test of ``U^H U`` itself runs only where the polar iteration did not end
    orthonormal (:data:`ORTHO_SKIP`).
    """
    shape = a.shape
    r = len(shape) - 2
    m, n = shape[r], shape[r + 1]
    t, rt = a.t, real_type(a.t)
    up, need = _polar_and_check(e, a)
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
    # |w| may be out of order where w changes sign: sort s descending with its positions, then gather those
    # columns of u and v (a sort of the whole [u; v] is 10-20x slower on XLA CPU).
    s, perm = e.sort([s, e.iota(s.shape, r, "i32")], r, lambda p, q, *_: e.compare("GT", p, q, "TOTALORDER"))
    uv = _columns_at(e, e.concatenate([u, v], r), perm)
    u, v = slice_dim(e, uv, r, 0, m), slice_dim(e, uv, r, m, m + n)
    if mode == "A" and m > n:
        return s, orthonormal_columns(e, pad_dim(e, u, r + 1, m - n)), v
    # Only where some column is not orthonormal to 4 n eps (a singular value below l_0 ||A||_F): a loop of
    # zero or one trips around the QR; with ``need`` (ORTHO_SKIP) the test itself only where the polar
    # iteration did not end orthonormal.
    eps = 2.0 ** -23 if rt == "f32" else 2.0 ** -52

    def check(u_: V) -> V:
        gram = dot(e, conj(e, u_), u_, r, r, r) - identity_matrix(e, [*shape[:r], n, n], t)
        off = any_true(e, e.compare("GT", e.abs(gram), splat(e, ORTHO_SLACK * n * eps, rt, gram.shape), "FLOAT"))
        trips = e.select(off, e.scalar(1, "i32"), e.scalar(0, "i32"))
        return e.while_([e.scalar(0, "i32"), u_, trips], lambda i, _u, k: e.compare("LT", i, k, "SIGNED"),
                        lambda i, u_, k: [i + e.scalar(1, "i32"), orthonormal_columns(e, u_), k])[1]

    if need is None:
        return s, check(u), v
    once = e.select(need, e.scalar(1, "i32"), e.scalar(0, "i32"))
    out = e.while_([e.scalar(0, "i32"), u], lambda i, _u: e.compare("LT", i, once, "SIGNED"),
                   lambda i, u_: [i + e.scalar(1, "i32"), check(u_)])
    return s, out[1], v
