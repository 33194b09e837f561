"""The divide-and-conquer tridiagonal eigensolver of ``passes/lapack/stedc.py`` on XLA CPU.

Bounds (``C n eps``, ``eps`` of the element type, ``||T||`` the 2-norm): residual ``||T Z - Z W||_2 <= C n eps
||T||``, orthogonality ``||Z^T Z - I||_2 <= C n eps``, eigenvalues within ``C n eps ||T||`` of LAPACK's
(``scipy.linalg.eigh_tridiagonal``, in f64). Random matrices and hard ones: repeated eigenvalues (the identity,
zero off-diagonals, Wilkinson's W21+ and glued Wilkinson matrices), graded matrices, tiny off-diagonals.
Most cases run Jacobi leaves (``LEAF_MAX`` 8) and 2-3 merge levels; the batch case shrinks ``LEAF_MAX`` to 1
(leaves of one, only merges).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import hlokit
from hlokit.backend import compile as xla_compile
from hlokit.passes.builder import Emitter
from hlokit.passes.lapack import stedc

C = 4.0
DTYPES = {"f32": np.float32, "f64": np.float64}
_CACHE: dict = {}


def _text(n: int, t: str, batch=(), leaf: int | None = 8, compact_min: int | None = None) -> str:
    """The solver's program; ``leaf`` / ``compact_min`` set ``LEAF_MAX`` / ``SECULAR_COMPACT_MIN`` and their f32
    variants (None: the module's values)."""
    names = ["LEAF_MAX", "LEAF_MAX_F32", "SECULAR_COMPACT_MIN", "SECULAR_COMPACT_MIN_F32"]
    old = [getattr(stedc, k) for k in names]
    for k, v in zip(names, [leaf, leaf, compact_min, compact_min]):
        if v is not None:
            setattr(stedc, k, v)
    try:
        e = Emitter()
        d, o = e.args([(tuple(batch) + (n,), t), (tuple(batch) + (n - 1,), t)])
        w, z = stedc.tridiagonal_eigh(e, d, o)
        return e.text("main", [d, o], [w, z]).replace("func.func private @main", "func.func @main")
    finally:
        for k, v in zip(names, old):
            setattr(stedc, k, v)


def _solver(n: int, t: str, batch=(), leaf: int | None = 8, compact_min: int | None = None):
    key = (n, t, tuple(batch), leaf, compact_min)
    if key not in _CACHE:
        _CACHE[key] = xla_compile(hlokit.parse(_text(n, t, batch, leaf, compact_min), context=hlokit.make_context()))
    return _CACHE[key]


def _check(t: str, d: np.ndarray, o: np.ndarray, w: np.ndarray, z: np.ndarray) -> None:
    n = d.shape[-1]
    eps = float(np.finfo(DTYPES[t]).eps)
    d64, o64 = d.astype(np.float64), o.astype(np.float64)
    tm = np.diag(d64) + np.diag(o64, 1) + np.diag(o64, -1)
    ref = scipy.linalg.eigh_tridiagonal(d64, o64, eigvals_only=True) if n > 1 else d64
    norm = max(np.abs(ref).max(), np.finfo(np.float64).tiny)
    bound = C * max(n, 4) * eps
    assert np.all(np.diff(w) >= 0), "eigenvalues not ascending"
    assert np.abs(w - ref).max() <= bound * norm, np.abs(w - ref).max() / (eps * norm)
    z64 = z.astype(np.float64)
    assert np.linalg.norm(tm @ z64 - z64 * w, 2) <= bound * norm
    assert np.linalg.norm(z64.T @ z64 - np.eye(n), 2) <= bound


def _run(t: str, d: np.ndarray, o: np.ndarray, leaf: int | None = 8, compact_min: int | None = None) -> None:
    d, o = d.astype(DTYPES[t]), o.astype(DTYPES[t])
    w, z = (np.asarray(x) for x in _solver(d.shape[-1], t, d.shape[:-1], leaf, compact_min)(d, o))
    for i in np.ndindex(d.shape[:-1]):
        _check(t, d[i], o[i], w[i], z[i])


def _wilkinson(m: int) -> tuple[np.ndarray, np.ndarray]:
    """W_{2m+1}^+: diagonal |m|, ..., 1, 0, 1, ..., m, off-diagonal ones (pairs of close eigenvalues)."""
    return np.abs(np.arange(-m, m + 1)).astype(np.float64), np.ones(2 * m)


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("n", [1, 2, 3, 17, pytest.param(64, marks=pytest.mark.slow),
                               pytest.param(100, marks=pytest.mark.slow)])
def test_random(t, n):
    """n = 2, 3: one Jacobi leaf; 17: leaves of 5 (Jacobi), 2 merge levels (20 with the padding)."""
    rng = np.random.default_rng(n)
    _run(t, rng.standard_normal(n), rng.standard_normal(n - 1))


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_batch_leaves_of_one(t):
    """Batch (2, 3), order 7 padded to 8: leaves of one, 3 merge levels, no Jacobi."""
    rng = np.random.default_rng(3)
    _run(t, rng.standard_normal((2, 3, 7)), rng.standard_normal((2, 3, 6)), leaf=1)


def test_plan():
    """The padded order m0 2^L is the smallest with m0 <= LEAF_MAX, then the largest m0."""
    assert stedc._plan(1) == (1, 0) and stedc._plan(8) == (8, 0) and stedc._plan(17) == (5, 2)
    assert stedc._plan(64) == (8, 3) and stedc._plan(1000) == (8, 7) and stedc._plan(600) == (5, 7)


HARD = {
    "identity": lambda n: (np.ones(n), np.zeros(n - 1)),
    "zero": lambda n: (np.zeros(n), np.zeros(n - 1)),
    "blocks_zero_off": lambda n: (np.repeat([1.0, -2.0, 3.0, 1.0], -(-n // 4))[:n],
                                  np.where(np.arange(n - 1) % 5 == 4, 0.0, 1.0)),
    "tiny_off": lambda n: (np.ones(n) + np.arange(n) * 1e-3, np.full(n - 1, 1e-20)),
    "wilkinson": lambda n: _wilkinson((n - 1) // 2),
    "glued_wilkinson": lambda n: (np.tile(_wilkinson(10)[0], 3)[:n],
                                  np.where(np.arange(n - 1) % 21 == 20, 1e-10, 1.0)),
    "graded": lambda n: (10.0 ** -np.linspace(0, 12, n), 10.0 ** -np.linspace(0.5, 12.5, n - 1)),
    "clustered": lambda n: (1 + np.round(np.random.default_rng(5).uniform(0, 3, n)) * 1e-15,
                            np.random.default_rng(6).uniform(0, 1e-9, n - 1)),
    "one_two_one": lambda n: (np.full(n, 2.0), np.ones(n - 1)),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("case", sorted(HARD))
def test_hard(t, case):
    """Order 63, padded to 64: Jacobi leaves of 8, 3 merge levels."""
    n = 63
    d, o = HARD[case](n)
    _run(t, d, o)


def test_nan_and_scale():
    d = np.array([1.0, np.nan, 2.0, 3.0, 4.0])
    w, z = (np.asarray(x) for x in _solver(5, "f64")(d, np.ones(4)))
    assert np.isnan(w).all() and np.isnan(z).all()
    w, z = (np.asarray(x) for x in _solver(5, "f64")(np.arange(5.0), np.array([1.0, np.inf, 0, 0])))
    assert np.isnan(w).all()
    rng = np.random.default_rng(9)
    for s in (1e-300, 1e300):
        _run("f64", rng.standard_normal(5) * s, rng.standard_normal(4) * s)


def test_f32_plan():
    """f32 runs leaves of LEAF_MAX_F32 (4: one merge level more than f64's 8) and compacts its secular loops
    from order SECULAR_COMPACT_MIN_F32 (512) only: at order 256 f32 has no compacted loop, f64 has one."""
    assert stedc._plan(256, stedc._leaf_max("f32")) == (4, 6) and stedc._plan(256, stedc._leaf_max("f64")) == (8, 5)
    assert stedc._leaf_max("f32") == stedc.LEAF_MAX_F32 == 4 and stedc._compact_min("f32") == 512
    for t, extra in (("f32", 0), ("f64", 1)):
        whiles = _text(256, t, leaf=None).count("stablehlo.while")
        assert whiles == _text(256, t, leaf=None, compact_min=10 ** 6).count("stablehlo.while") + extra


def test_f32_defaults_hard_cases():
    """The module's f32 settings (leaves of 4, 4 merge levels at order 63): the hard matrices and a random one
    within the file's bounds."""
    rng = np.random.default_rng(12)
    for case in sorted(HARD):
        d, o = HARD[case](63)
        _run("f32", d, o, leaf=None)
    _run("f32", rng.standard_normal(63), rng.standard_normal(62), leaf=None)


def test_secular_compaction_structure():
    """Levels of order >= SECULAR_COMPACT_MIN run their secular roots in two loops (all roots, then the
    slow ones gathered): order 63 has 3 merge levels, the Jacobi leaves 2 loops."""
    plain = _text(63, "f64", compact_min=10 ** 6).count("stablehlo.while")
    assert _text(63, "f64", compact_min=2).count("stablehlo.while") == plain + 3
    assert _text(63, "f64", compact_min=64).count("stablehlo.while") == plain + 1


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_secular_compaction_every_level(t):
    """The compacted secular loop in every merge level (SECULAR_COMPACT_MIN lowered to 2): the hard
    matrices of order 63, a random one, and a batch with leaves of one, within the same bounds."""
    for case in sorted(HARD):
        d, o = HARD[case](63)
        _run(t, d, o, compact_min=2)
    rng = np.random.default_rng(11)
    _run(t, rng.standard_normal(63), rng.standard_normal(62), compact_min=2)
    _run(t, rng.standard_normal((2, 3, 7)), rng.standard_normal((2, 3, 6)), leaf=1, compact_min=2)


def _loop_captures(text: str) -> list[list[int]]:
    """Shapes of the values of the enclosing scope that the ops inside each ``stablehlo.while`` use."""

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for o in block.operations:
                    yield o
                    yield from walk(o)

    shapes = []
    module = hlokit.parse(text, context=hlokit.make_context())
    for loop in walk(module.operation):
        if loop.name != "stablehlo.while":
            continue
        inner = list(walk(loop))
        own = {r.get_name() for o in inner for r in o.results}
        own |= {a.get_name() for region in loop.regions for block in region.blocks for a in block.arguments}
        shapes += [list(v.type.shape) for o in inner for v in o.operands if v.get_name() not in own]
    return shapes


def test_secular_loop_captures_no_matrix():
    """The secular loops build their m x m broadcasts inside the body: no loop of order 63 (merge levels of
    order 16, 32, 64) uses an m x m value from outside (XLA would make it a loop operand, written once and
    read by every step); the Jacobi leaves' 8 x 8 matrices are the only square ones."""
    shapes = _loop_captures(_text(63, "f32"))
    assert [8, 8] in [s[-2:] for s in shapes]
    assert not [s for s in shapes if len(s) >= 2 and s[-1] == s[-2] and s[-1] >= 16], shapes


def test_top_level_columns_ascending():
    """With merge levels, the top level sorts its columns' data before forming the eigenvector matrix: no
    sort-and-gather of the whole matrix at the end (order 63: 3 levels, no compaction, so no gather at
    all); with one leaf (order 5) the final sort and gather stay."""
    assert "stablehlo.gather" not in _text(63, "f32")
    assert "stablehlo.gather" in _text(5, "f32")
    rng = np.random.default_rng(12)
    _run("f32", rng.standard_normal((2, 63)), rng.standard_normal((2, 62)))
