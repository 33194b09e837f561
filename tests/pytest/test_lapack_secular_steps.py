"""The secular root finder of ``passes/lapack/stedc.py`` (``_secular_roots``) on XLA CPU: steps taken and roots
found where a root lies within rounding of its pole's distance to the midpoint (a small weight not deflated).

There the rational step ``tau + eta`` rounds to the pole itself; :data:`stedc.SECULAR_POLE_STEP` takes the
one-pole model's root (formed relative to the pole) instead of halving the bracket, and
:data:`stedc.SECULAR_SWITCH_LAPACK` switches the model as LAPACK ``dlaed4`` does. The root next to a pole of
weight ``w`` is ``w / C`` to relative order ``w``, ``C`` the rest of ``f`` at the pole.
"""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
from hlokit.backend import compile as xla_compile
from hlokit.passes.builder import Emitter
from hlokit.passes.lapack import stedc

DTYPES = {"f32": np.float32, "f64": np.float64}
M = 8
TINY = 3  # the root next to the pole of tiny weight


def _roots(t: str, pole_step: bool | None = None, switch: bool | None = None):
    """The compiled ``_secular_roots`` of one subproblem of order ``M`` (``[1, 1, M]``), returning ``tau``, the
    origin pole and the steps taken (None: the module's setting)."""
    saved = stedc.SECULAR_POLE_STEP, stedc.SECULAR_SWITCH_LAPACK
    if pole_step is not None:
        stedc.SECULAR_POLE_STEP = pole_step
    if switch is not None:
        stedc.SECULAR_SWITCH_LAPACK = switch
    try:
        e = Emitter()
        vec = ((1, 1, M), t)
        d2, zeta2, d_next, gap2, rinv = e.args([vec, vec, vec, vec, ((1, 1), t)])
        iota = e.iota([1, 1, M], 2, "i32")
        act = e.compare("GE", iota, e.broadcast_in_dim(e.scalar(0, "i32"), [1, 1, M], []), "SIGNED")
        last = e.compare("EQ", iota, e.broadcast_in_dim(e.scalar(M - 1, "i32"), [1, 1, M], []), "SIGNED")
        loops = []
        own = e.while_

        def while_(init, cond, body):
            out = own(init, cond, body)
            loops.append(out[0])
            return out

        e.while_ = while_
        first = e.compare("EQ", iota, e.broadcast_in_dim(e.scalar(0, "i32"), [1, 1, M], []), "SIGNED")
        tau, org = stedc._secular_roots(e, d2, zeta2, act, last, d_next, gap2,
                                        e.broadcast_in_dim(rinv, [1, 1, M], [0, 1]), first)
        text = e.text("main", [d2, zeta2, d_next, gap2, rinv], [tau, org, loops[-1]])
    finally:
        stedc.SECULAR_POLE_STEP, stedc.SECULAR_SWITCH_LAPACK = saved
    return xla_compile(hlokit.parse(text.replace("func.func private @main", "func.func @main"),
                                    context=hlokit.make_context()))


def _problem(t: str):
    dt = DTYPES[t]
    d = np.arange(M, dtype=np.float64)
    z2 = np.full(M, 0.1)
    z2[TINY] = 1e-24 if t == "f64" else 1e-12  # its root far below ulp(1 / 2), its square normal
    dn = np.append(d[1:], d[-1])
    gap = np.append(d[1:] - d[:-1], z2.sum())  # rho = 1: the last root lies within rho sum zeta2
    return d, z2, [x.astype(dt).reshape(1, 1, M) for x in (d, z2, dn, gap)] + [np.ones((1, 1), dt)]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_root_at_a_pole_in_few_steps(t):
    d, z2, args = _problem(t)
    tau, org, steps = (np.asarray(x) for x in _roots(t)(*args))
    eps = float(np.finfo(DTYPES[t]).eps)
    assert int(steps) <= 5  # 3 (f32), 5 (f64); without the one-pole step 8 and 10
    lam = org.astype(np.float64).ravel() + tau.astype(np.float64).ravel()
    # the tiny root, relative to its pole: w / C, C the rest of f at the pole (rho = 1)
    rest = 1.0 + sum(z2[j] / (d[j] - d[TINY]) for j in range(M) if j != TINY)
    assert org.ravel()[TINY] == d[TINY]
    assert abs(tau.ravel()[TINY] - z2[TINY] / rest) <= 16 * eps * z2[TINY] / rest
    # the others: the eigenvalues of diag(d) + z z^T (f64), less the one at the tiny pole
    ref = np.linalg.eigvalsh(np.diag(d) + np.outer(np.sqrt(z2), np.sqrt(z2)))
    others = np.delete(lam, TINY)
    ref = np.delete(ref, np.argmin(np.abs(ref - d[TINY])))
    assert np.abs(others - ref).max() <= 16 * eps * np.abs(ref).max()


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_root_at_a_pole_halving_before(t):
    """Without the one-pole step (and dlaed4's switch) the tiny root takes halvings of the bracket first."""
    _, _, args = _problem(t)
    steps = int(np.asarray(_roots(t, False, False)(*args)[2]))
    assert steps >= 8
    steps_switch_only = int(np.asarray(_roots(t, False, True)(*args)[2]))
    assert steps_switch_only >= 6
