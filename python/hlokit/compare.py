"""Compare a computed array with a reference one under a tolerance, and say what the worst element is.

What ``hlokit-run --engine both`` (the interpreter against XLA) and ``hlokit-run --expected OUT.npz`` (each
engine against recorded outputs) use. numpy only: no MLIR is touched here (element types are read from
:mod:`hlokit.dtypes`).

The rule (:class:`Tolerance`), per element of one output, every *given* bound must hold:

- ``max_ulp``: the distance in units in the last place is at most ``max_ulp`` (integers: the absolute
  difference; booleans: 1 where they differ);
- ``rtol`` / ``atol``: ``|actual - reference| <= rtol * scale + atol``, where ``scale`` is the largest finite
  magnitude of the reference output (a missing one of the two counts as 0). This is ``numpy.isclose``'s
  form with the relative part taken against the output's scale, not each element, so a tiny element of a
  large output (a flax transformer: an element of -4.6e-4 in an output of scale 4.9) is judged on the
  output's scale, as XLA's ``run_hlo_module`` error bounds and ``iree-run-module --expected_output``
  thresholds judge networks.

NaN positions must match (a NaN against a number fails under every tolerance; NaN against NaN is equal), as
must infinities (same sign). With no bound given, integers and booleans must be equal and floats are held to
:func:`default_tolerance` (``rtol`` = 16 machine epsilons of the element type, within [eps, 2**-6]).

The worst element (largest ULP distance; with ``rtol`` / ``atol`` given and no ``max_ulp``, the largest
ratio of the difference to its bound) is classified (:attr:`Comparison.kind`): ``"equal"``, a
``"subnormal"`` against zero (XLA CPU flushes subnormal inputs and results to zero, IEEE 754 and the spec
keep them), a ``"phase"`` difference of eigen- or singular vectors (the output agrees once each column, or
each row, of each matrix of the batch is multiplied by the sign / unit phase that best matches the
reference; tried only when the plain comparison fails and the caller says the output may hold such vectors),
a ``"nan"`` position mismatch, or a ``"difference"``.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import ml_dtypes
import numpy as np

from hlokit import dtypes

__all__ = ["Comparison", "Tolerance", "compare", "default_tolerance", "element_kind", "ulp_distance"]


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """The bounds of a comparison; None: not given. See the module docstring for the rule."""

    max_ulp: float | None = None
    rtol: float | None = None
    atol: float | None = None

    @property
    def given(self) -> bool:
        """Whether any bound is given."""
        return self.max_ulp is not None or self.rtol is not None or self.atol is not None

    def describe(self) -> str:
        """The given bounds, e.g. ``"--rtol 1e-05, --atol 0"`` (``"exact"`` when none is given)."""
        parts = [f"--{n.replace('_', '-')} {v:g}" for n, v in
                 (("max_ulp", self.max_ulp), ("rtol", self.rtol), ("atol", self.atol)) if v is not None]
        return ", ".join(parts) or "exact"


def element_kind(dtype) -> str:
    """``"bool"``, ``"signed"``, ``"unsigned"``, ``"float"`` or ``"complex"`` for a numpy / ml_dtypes dtype
    (the :data:`hlokit.dtypes.ELEMENT_TYPES` row's kind). Raises KeyError for a dtype hlokit has no type for."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return "bool"
    return dtypes.ELEMENT_TYPES[dtypes.type_name(dt)].kind


def _eps(dtype) -> float:
    dt = np.dtype(dtype)
    part = np.empty(0, dt).real.dtype
    return float(ml_dtypes.finfo(part).eps)


def default_tolerance(dtype) -> Tolerance:
    """The tolerance used when none is given: exact (``max_ulp`` 0) for integers and booleans; for floats and
    complex ``rtol`` = 16 machine epsilons of the element type, but at most 2**-6 and at least one epsilon
    (f64 3.6e-15, f32 1.9e-6, f16 and bf16 0.0156, f8E4M3FN 0.125)."""
    if element_kind(dtype) in ("float", "complex"):
        eps = _eps(dtype)
        return Tolerance(rtol=max(min(16 * eps, 2.0**-6), eps))
    return Tolerance(max_ulp=0)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise distance in units in the last place between two float (or complex) arrays of one dtype, as
    float64 (exact up to 2**53).

    Values are ordered as IEEE 754's totalOrder on magnitudes, so +0 and -0 are 0 apart and the largest finite
    value is 1 ULP from infinity; NaN against NaN is 0, NaN against a number ``2**bits``. Complex: the larger
    of the real and imaginary parts' distances. Raises KeyError for a dtype that is not a float type of
    :mod:`hlokit.dtypes`.
    """
    a, b = np.asarray(a), np.asarray(b)
    if element_kind(a.dtype) == "complex":
        part = a.real.dtype
        return np.maximum(ulp_distance(a.real.astype(part), b.real.astype(part)),
                          ulp_distance(a.imag.astype(part), b.imag.astype(part)))
    width = dtypes.bit_width(a.dtype)
    storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    mask = np.uint64(2**64 - 1) if width >= 64 else np.uint64((1 << width) - 1)
    # (np.ascontiguousarray makes a 0-d array 1-d: the bits keep the operands' shape)
    ai = np.ascontiguousarray(a).view(storage).reshape(a.shape).astype(np.uint64) & mask
    bi = np.ascontiguousarray(b).view(storage).reshape(b.shape).astype(np.uint64) & mask
    signed = a.dtype != np.dtype(ml_dtypes.float8_e8m0fnu)  # E8M0FNU has no sign bit
    sign = np.uint64(1 << (width - 1)) if signed else np.uint64(0)
    ma, mb = ai & ~sign & mask, bi & ~sign & mask
    same = (ai & sign) == (bi & sign)
    with np.errstate(over="ignore"):  # (the branch np.where drops may wrap; 0-d operands would warn)
        d = np.where(same, np.where(ma >= mb, ma - mb, mb - ma), ma + mb).astype(np.float64)
    na, nb = np.isnan(a.astype(np.float64)), np.isnan(b.astype(np.float64))
    return np.where(na & nb, 0.0, np.where(na | nb, float(2**width), d))


@dataclasses.dataclass
class Comparison:
    """The result of :func:`compare` for one output.

    ``ok``: every element meets the tolerance (for ``"phase"``: after the normalisation). ``max_ulp``,
    ``max_abs``: the largest ULP distance (integers: difference) and absolute difference of the plain
    comparison (NaN pairs excluded; ``inf`` where one side is NaN or infinite and the other is not).
    ``scale``: the largest finite magnitude of the reference; ``max_rel``: ``max_abs / scale``. ``worst``:
    the index of the worst element (None: empty or mismatched), with ``actual`` / ``expected`` its values
    and ``worst_ulp`` / ``worst_abs`` its distances. ``kind``: see the module docstring (``"shape"`` for a
    shape or element-type mismatch, described by ``mismatch``). For ``"phase"``: ``phase_axis``
    (``"columns"`` or ``"rows"``), ``flipped`` (how many vectors needed a factor other than 1) and
    ``normalized`` (the comparison after the normalisation)."""

    ok: bool
    max_ulp: float
    max_abs: float
    max_rel: float
    scale: float
    worst: tuple[int, ...] | None
    kind: str
    tolerance: Tolerance
    actual: object = None
    expected: object = None
    worst_ulp: float = 0.0
    worst_abs: float = 0.0
    mismatch: str | None = None
    phase_axis: str | None = None
    flipped: int = 0
    normalized: "Comparison | None" = None
    mixed: int = 0

    # names the per-output report of hlokit-run has always used
    @property
    def shape_mismatch(self) -> str | None:
        return self.mismatch

    @property
    def subnormal(self) -> bool:
        return self.kind == "subnormal"

    def summary(self) -> str:
        """``max N ULP, max |diff| D, max rel R (scale S)`` (or the mismatch)."""
        if self.mismatch:
            return self.mismatch
        return (f"max {self.max_ulp:.6g} ULP, max |diff| {self.max_abs:.6g}, "
                f"max rel {self.max_rel:.3g} (of max |reference| {self.scale:.6g})")

    def worst_element(self) -> str:
        """``[i, j]: A vs B (N ULP, |diff| D, rel R)`` for the worst element ('' when there is none)."""
        if self.worst is None or self.kind == "equal":
            return ""
        rel = self.worst_abs / self.scale if self.scale > 0 else (0.0 if self.worst_abs == 0 else float("inf"))
        return (f"{list(self.worst)}: {_fmt(self.actual)} vs {_fmt(self.expected)} "
                f"({self.worst_ulp:.6g} ULP, |diff| {self.worst_abs:.6g}, rel {rel:.3g})")

    def verdict(self) -> str:
        """What the worst element is, in words."""
        if self.kind == "subnormal":
            return "a subnormal against zero (XLA CPU flushes subnormals to zero)"
        if self.kind == "nan":
            return "a NaN against a number (NaN positions differ)"
        if self.kind == "phase":
            n = self.normalized
            what = "sign" if self.flipped_is_sign else "phase"
            group = (f", {self.mixed} of them matched as groups of vectors of equal eigen- / singular values "
                     "(a basis of their span is all such a group determines)") if self.mixed else ""
            flips = f"a {what} flip of {self.flipped} eigen- / singular vector(s)" if self.flipped else \
                "eigen- / singular vectors"
            return (f"{flips} ({self.phase_axis}{group}); "
                    f"up to that: {n.summary()}" + (f", within {n.tolerance.describe()}" if n.ok else
                                                      f", worst {n.worst_element()}, still beyond {n.tolerance.describe()}"))
        if self.kind == "difference":
            bound = self.tolerance.describe() + (" (the default)" if self.default_bound else "")
            return f"within {bound}" if self.ok else f"a real difference (beyond {bound})"
        return ""

    flipped_is_sign: bool = True
    default_bound: bool = False

    def describe(self) -> str:
        """The report line: summary, worst element, verdict and whether the tolerance holds."""
        if self.mismatch:
            return self.mismatch
        text = self.summary()
        worst = self.worst_element()
        if worst and self.kind != "phase":
            text += f"; worst {worst}"
        if self.kind not in ("equal",):
            text += f": {self.verdict()}"
        return text


def _fmt(v) -> str:
    if isinstance(v, complex):
        return f"{v:.7g}"
    if isinstance(v, float):
        return f"{v:.9g}"
    return str(v)


def _as_wide(a: np.ndarray, kind: str) -> np.ndarray:
    if kind == "complex":
        return a.astype(np.complex128)
    if kind in ("signed", "unsigned", "bool"):
        return a.astype(np.float64) if a.dtype.itemsize >= 8 else a.astype(np.int64)
    return a.astype(np.float64)


def compare(actual, reference, tolerance: Tolerance = Tolerance(), *, up_to_phase: bool = False,
            values: Sequence[np.ndarray] = ()) -> Comparison:
    """Compare ``actual`` with ``reference`` (arrays of one shape and dtype) under ``tolerance`` (no bound
    given: :func:`default_tolerance`). ``up_to_phase``: when the plain comparison fails, try multiplying each
    column, then each row, of every matrix (the last two axes; rank >= 2, floats or complex) by the sign /
    unit phase that best matches the reference. ``values``: reference eigen- / singular values that may
    belong to those vectors (arrays of the matrices' batch shape plus one axis of their column count): where
    consecutive values of one are equal (within the square root of their type's epsilon, relative to their
    largest magnitude), the vectors of that group are determined only up to a unitary mixing within their span
    (the spectral theorem; LAPACK's and cuSOLVER's eigh / svd docs say the same), so the group is matched as
    one: ``actual``'s columns of the group times the unitary factor nearest to their inner products with the
    reference's (the polar factor). Never raises for values; a shape or dtype mismatch is a ``"shape"``
    result."""
    actual, reference = np.asarray(actual), np.asarray(reference)
    tol = tolerance if tolerance.given else default_tolerance(reference.dtype)
    if actual.shape != reference.shape or actual.dtype != reference.dtype:
        return Comparison(False, float("inf"), float("inf"), float("inf"), 0.0, None, "shape", tol,
                          mismatch=f"got {actual.dtype}{list(actual.shape)}, expected {reference.dtype}{list(reference.shape)}")
    plain = _compare(actual, reference, tol)
    plain.default_bound = not tolerance.given
    if plain.ok or not up_to_phase or actual.ndim < 2 or element_kind(actual.dtype) not in ("float", "complex"):
        return plain
    # a vector flip is recognised when the normalised output meets the tolerance, or at least the default one
    # (then the flip is named, and the output still fails the tighter bound given)
    loose = default_tolerance(reference.dtype)
    best = None
    for axis in ("columns", "rows"):
        normalized, flipped, mixed = _normalize(actual, reference, axis, values)
        if flipped == 0 and mixed == 0:
            continue
        normalized = normalized.astype(actual.dtype)
        c = _compare(normalized, reference, tol)
        if not c.ok and tol is not loose and not _compare(normalized, reference, loose).ok:
            continue
        if best is None or (c.ok, -c.max_abs) > (best[0].ok, -best[0].max_abs):
            best = (c, axis, flipped, mixed)
    if best is None:
        return plain
    plain.ok, plain.kind, plain.normalized, plain.phase_axis, plain.flipped = best[0].ok, "phase", best[0], best[1], best[2]
    plain.mixed = best[3]
    plain.flipped_is_sign = element_kind(actual.dtype) == "float"
    return plain


def _normalize(actual: np.ndarray, reference: np.ndarray, axis: str,
               values: Sequence[np.ndarray] = ()) -> tuple[np.ndarray, int, int]:
    """``actual`` with each column (``axis="columns"``) or row of each matrix multiplied by the unit factor u
    minimising ``|u * a - b|`` (u = conj(<a, b>) / |<a, b>|; real: a sign), or, for a group of columns whose
    ``values`` are equal (see :func:`compare`), by the unitary factor nearest to their inner products; how
    many factors are not 1, and how many columns were matched in such groups."""
    a = actual.astype(np.complex128 if np.iscomplexobj(actual) else np.float64)
    b = reference.astype(a.dtype)
    if axis == "rows":  # (rows of a matrix are the columns of its transpose)
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    with np.errstate(invalid="ignore", over="ignore"):
        inner = np.sum(np.conj(a) * b, axis=-2, keepdims=True)
        mag = np.abs(inner)
        u = np.where((mag > 0) & np.isfinite(mag), inner / np.where(mag > 0, mag, 1), 1)
    if not np.iscomplexobj(a):
        u = np.sign(u.real) + (u.real == 0)
    flipped = int(np.sum(np.abs(u - 1) > 1e-6))
    out = a * u
    mixed = 0
    n = a.shape[-1]
    candidates = [np.asarray(v) for v in values if np.asarray(v).shape == a.shape[:-2] + (n,)]
    if candidates and np.all(np.isfinite(a)) and np.all(np.isfinite(b)):
        v = candidates[0]
        eps = float(np.finfo(v.real.dtype).eps) if v.dtype.kind in "fc" else 0.0
        for idx in np.ndindex(*a.shape[:-2]):
            w = v[idx]
            scale = float(np.max(np.abs(w))) if w.size else 0.0
            groups, start = [], 0
            for j in range(1, n + 1):  # (runs of consecutive equal values)
                if j == n or abs(w[j] - w[j - 1]) > np.sqrt(eps) * scale:
                    if j - start >= 2:
                        groups.append(slice(start, j))
                    start = j
            for g in groups:
                block = np.conj(a[idx][:, g]).T @ b[idx][:, g]  # (inner products within the group)
                left, _, right = np.linalg.svd(block)
                out[idx][:, g] = a[idx][:, g] @ (left @ right)
                mixed += g.stop - g.start
    if axis == "rows":
        out = np.swapaxes(out, -1, -2)
    return out, flipped, mixed


def _compare(actual: np.ndarray, reference: np.ndarray, tol: Tolerance) -> Comparison:
    if actual.size == 0:
        return Comparison(True, 0.0, 0.0, 0.0, 0.0, None, "equal", tol)
    kind = element_kind(actual.dtype)
    a, b = _as_wide(actual, kind), _as_wide(reference, kind)
    if kind in ("float", "complex"):
        units = ulp_distance(actual, reference)
        with np.errstate(invalid="ignore", over="ignore"):
            absdiff = np.abs(a - b)
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        same = (a == b) | (nan_a & nan_b)
        absdiff = np.where(same, 0.0, np.where(np.isnan(absdiff), np.inf, absdiff))
        nan_mismatch = nan_a != nan_b
        mags = np.abs(b)
        finite = mags[np.isfinite(mags)]
    else:
        units = np.abs(a - b).astype(np.float64)
        absdiff = units
        nan_mismatch = np.zeros(a.shape, bool)
        finite = np.abs(b).astype(np.float64).ravel()
    scale = float(finite.max()) if finite.size else 0.0
    bad = nan_mismatch.copy()
    if tol.max_ulp is not None:
        bad |= ~(units <= tol.max_ulp)
    if tol.rtol is not None or tol.atol is not None:
        bound = (tol.rtol or 0.0) * scale + (tol.atol or 0.0)
        bad |= ~(absdiff <= bound)
        # an infinity equal on both sides is 0 apart (absdiff 0); any other infinity difference fails
    if tol.max_ulp is None and tol.rtol is None and tol.atol is None:
        bad |= units > 0
    # the worst element: the largest ULP distance, or, where only rtol / atol are given, the largest |diff|
    key = units if tol.max_ulp is not None or kind not in ("float", "complex") else absdiff
    key = np.where(nan_mismatch, np.inf, key)
    flat = int(np.argmax(key))
    worst = tuple(int(i) for i in np.unravel_index(flat, key.shape))
    max_abs = float(np.max(absdiff))
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else float("inf"))
    c = Comparison(not bool(bad.any()), float(np.max(units)), max_abs, max_rel, scale, worst, "equal", tol,
                   actual=actual[worst].item(), expected=reference[worst].item(),
                   worst_ulp=float(units[worst]), worst_abs=float(absdiff[worst]))
    if c.max_ulp == 0 and c.max_abs == 0:
        return c
    if bool(nan_mismatch[worst]):
        c.kind = "nan"
    elif kind in ("float", "complex") and _subnormal_against_zero(actual[worst], reference[worst]):
        c.kind = "subnormal"
    else:
        c.kind = "difference"
    return c


def _subnormal_against_zero(x, y) -> bool:
    tiny = float(ml_dtypes.finfo(np.empty(0, np.asarray(x).dtype).real.dtype).tiny)
    x, y = complex(x), complex(y)
    return any(abs(p) < tiny and abs(q) < tiny and p != q for p, q in ((x.real, y.real), (x.imag, y.imag)))
