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
from sweeps import wide_slow

C = 4.0
DTYPES = {"f32": np.float32, "f64": np.float64}
_CACHE: dict = {}


def _text(n: int, t: str, batch=(), leaf: int | None = 8, compact_min: int | None = None,
          rank_max: int | None = None, split: int | None = None, grouped: int | None = None) -> str:
    """The solver's program; ``leaf`` / ``compact_min`` / ``rank_max`` / ``split`` / ``grouped`` set
    ``LEAF_MAX`` / ``SECULAR_COMPACT_MIN`` (and their f32 variants) / ``RANK_SORT_MAX`` / ``SECULAR_SUM_SPLIT`` /
    ``GROUPED_BLOCK`` (None: the module's values)."""
    names = ["LEAF_MAX", "LEAF_MAX_F32", "SECULAR_COMPACT_MIN", "SECULAR_COMPACT_MIN_F32", "RANK_SORT_MAX",
             "SECULAR_SUM_SPLIT", "GROUPED_BLOCK"]
    old = [getattr(stedc, k) for k in names]
    for k, v in zip(names, [leaf, leaf, compact_min, compact_min, rank_max, split, grouped]):
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


def _solver(n: int, t: str, batch=(), leaf: int | None = 8, compact_min: int | None = None,
            rank_max: int | None = None, split: int | None = None, grouped: int | None = None):
    key = (n, t, tuple(batch), leaf, compact_min, rank_max, split, grouped)
    if key not in _CACHE:
        _CACHE[key] = xla_compile(hlokit.parse(_text(n, t, batch, leaf, compact_min, rank_max, split, grouped),
                                               context=hlokit.make_context()))
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


def _run(t: str, d: np.ndarray, o: np.ndarray, leaf: int | None = 8, compact_min: int | None = None,
         split: int | None = None, grouped: int | None = None) -> None:
    d, o = d.astype(DTYPES[t]), o.astype(DTYPES[t])
    w, z = (np.asarray(x) for x in _solver(d.shape[-1], t, d.shape[:-1], leaf, compact_min, split=split,
                                           grouped=grouped)(d, o))
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


@pytest.mark.parametrize("t", wide_slow(["f32", "f64"]))
def test_batch_leaves_of_one(t):
    """Batch (2, 3), order 7 padded to 8: leaves of one, 3 merge levels, no Jacobi."""
    rng = np.random.default_rng(3)
    _run(t, rng.standard_normal((2, 3, 7)), rng.standard_normal((2, 3, 6)), leaf=1)


def test_plan():
    """The padded order m0 2^L is the smallest with m0 <= LEAF_MAX, then the largest m0."""
    assert stedc.plan_levels(1) == (1, 0) and stedc.plan_levels(8) == (8, 0) and stedc.plan_levels(17) == (5, 2)
    assert stedc.plan_levels(64) == (8, 3) and stedc.plan_levels(1000) == (8, 7) and stedc.plan_levels(600) == (5, 7)


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
    assert stedc.plan_levels(256, stedc.leaf_max("f32")) == (4, 6) and stedc.plan_levels(256, stedc.leaf_max("f64")) == (8, 5)
    assert stedc.leaf_max("f32") == stedc.LEAF_MAX_F32 == 4 and stedc._compact_min("f32") == 512
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
    slow ones gathered): order 63 has 3 merge levels, the Jacobi leaves 2 loops. The levels of the grouped
    loop (GROUPED_BLOCK: 16 and 32 here) never compact: only the top level's roots do."""
    plain = _text(63, "f64", compact_min=10 ** 6, grouped=0).count("stablehlo.while")
    assert _text(63, "f64", compact_min=2, grouped=0).count("stablehlo.while") == plain + 3
    assert _text(63, "f64", compact_min=64, grouped=0).count("stablehlo.while") == plain + 1
    plain = _text(63, "f64", compact_min=10 ** 6).count("stablehlo.while")
    assert _text(63, "f64", compact_min=2).count("stablehlo.while") == plain + 1


@pytest.mark.parametrize("t", wide_slow(["f32", "f64"]))
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


def _gather_ranks(text: str) -> list[int]:
    """The ranks of the results of the program's ``stablehlo.gather`` ops."""
    module = hlokit.parse(text, context=hlokit.make_context())
    return [len(op.results[0].type.shape) for op in module.body.operations[0].regions[0].blocks[0].operations
            if op.name == "stablehlo.gather"]


def test_top_level_columns_ascending():
    """With merge levels, the top level sorts its columns' data before forming the eigenvector matrix: no
    sort-and-gather of the whole matrix at the end (order 63: 3 levels, no compaction; with comparator sorts
    no gather at all, with rank sorts only gathers of vectors); with one leaf (order 5) the final sort and
    gather of the matrix stay."""
    assert "stablehlo.gather" not in _text(63, "f32", rank_max=0)
    assert set(_gather_ranks(_text(63, "f32"))) == {1}
    assert 2 in _gather_ranks(_text(5, "f32"))
    rng = np.random.default_rng(12)
    _run("f32", rng.standard_normal((2, 63)), rng.standard_normal((2, 62)))


def _sorted_by_xla(keys: list[np.ndarray], arrays: list[np.ndarray], ranked: bool) -> list[np.ndarray]:
    """``stedc._rank_sort`` (``ranked``) or ``stablehlo.sort`` (stable, the keys lexicographic, floats in total
    order) of ``arrays`` ``[B, S, m]`` on XLA CPU; the rank sort also returns its ranks and permutation."""
    tn = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int32): "i32"}
    e = Emitter()
    args = e.args([(x.shape, tn[x.dtype]) for x in keys + arrays])
    ks, xs = args[:len(keys)], args[len(keys):]
    if ranked:
        out, rank, perm = stedc._rank_sort(e, ks, xs)
        out = out + [rank, perm]
    else:
        def before(*ab):
            res = None
            for i in reversed(range(len(ks))):
                a, b = ab[2 * i], ab[2 * i + 1]
                ct = "SIGNED" if a.t == "i32" else "TOTALORDER"
                lt = e.compare("LT", a, b, ct)
                res = lt if res is None else e.or_(lt, e.and_(e.compare("EQ", a, b, ct), res))
            return res
        out = e.sort(ks + xs, 2, before)[len(ks):]
    text = e.text("main", args, out).replace("func.func private @main", "func.func @main")
    return [np.asarray(x) for x in xla_compile(hlokit.parse(text, context=hlokit.make_context()))(*keys, *arrays)]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_rank_sort_is_the_stable_sort(t):
    """``_rank_sort`` gives ``stablehlo.sort``'s stable permutation bit for bit: two keys (an i32 flag and a
    float with many ties, -0 / +0, infinities and NaNs of both signs), subproblems of order 1, 8 and 64."""
    rng = np.random.default_rng(21)
    dt = DTYPES[t]
    for s, m in ((5, 1), (6, 8), (2, 64)):
        flag = rng.integers(0, 2, (1, s, m)).astype(np.int32)
        key = rng.choice(np.array([-1.5, -0.0, 0.0, 0.5, 2.0, np.inf, -np.inf, np.nan, -np.nan], dt), (1, s, m))
        val = rng.standard_normal((1, s, m)).astype(dt)
        pos = np.broadcast_to(np.arange(m, dtype=np.int32), (1, s, m)).copy()
        want = _sorted_by_xla([flag, key], [key, val, pos], ranked=False)
        *got, rank, perm = _sorted_by_xla([flag, key], [key, val, pos], ranked=True)
        for w_, g_ in zip(want, got):
            assert w_.dtype == g_.dtype and np.array_equal(w_.view(np.uint8), g_.view(np.uint8))
        np.testing.assert_array_equal(perm, want[2])
        np.testing.assert_array_equal(np.take_along_axis(rank, perm, 2), pos)  # rank inverts perm
        # one float key alone (the top level's ascending sort)
        want = _sorted_by_xla([key], [val, pos], ranked=False)
        got = _sorted_by_xla([key], [val, pos], ranked=True)[:2]
        for w_, g_ in zip(want, got):
            assert np.array_equal(w_.view(np.uint8), g_.view(np.uint8))


def test_rank_sorts_replace_the_merge_sorts():
    """At order 256 every merge level of order <= RANK_SORT_MAX sorts by ranks: the only ``stablehlo.sort``
    left is the Jacobi leaves' (f64: and the compacted top-level secular loop's two); comparator sorts
    (RANK_SORT_MAX 0) have 3 per level and the top level's ascending one."""
    assert stedc.RANK_SORT_MAX >= 256
    assert _text(256, "f32", leaf=None).count("stablehlo.sort") == 1
    # f32: leaves of 4, 6 levels, 3 of them (8 .. 32) in the grouped loop: one copy of its 3 sorts
    assert stedc._grouped_levels(*stedc.plan_levels(256, stedc.LEAF_MAX_F32)) == 3
    assert _text(256, "f32", leaf=None, rank_max=0).count("stablehlo.sort") == 1 + 3 * (1 + 3) + 1
    assert _text(256, "f32", leaf=None, rank_max=0, grouped=0).count("stablehlo.sort") == 1 + 3 * 6 + 1
    assert _text(256, "f64", leaf=None).count("stablehlo.sort") == 3
    assert _text(256, "f64", leaf=None, rank_max=64).count("stablehlo.sort") == 3 + 3 * 2 + 1


@pytest.mark.parametrize("t", wide_slow(["f32", "f64"]))
def test_rank_sorts_same_results(t):
    """The solver with rank sorts returns exactly what comparator sorts give (the same permutations, ties by
    position): tie- and deflation-heavy matrices (glued Wilkinson, repeated eigenvalues, 1-2-1, identity,
    zero, ...) and a random one at order 63 with the module's leaves, and a batch with leaves of one."""
    rng = np.random.default_rng(23)
    cases = [HARD[c](63) for c in sorted(HARD)] + [(np.repeat(rng.standard_normal(16), 4)[:63], np.zeros(62)),
                                                  (rng.standard_normal(63), rng.standard_normal(62))]
    ranked, plain = _solver(63, t, leaf=None), _solver(63, t, leaf=None, rank_max=0)
    for d, o in cases:
        d, o = d.astype(DTYPES[t]), o.astype(DTYPES[t])
        for x, y in zip(ranked(d, o), plain(d, o)):
            assert np.array_equal(np.asarray(x), np.asarray(y))
    d, o = rng.standard_normal((2, 3, 7)).astype(DTYPES[t]), rng.standard_normal((2, 3, 6)).astype(DTYPES[t])
    for x, y in zip(_solver(7, t, (2, 3), leaf=1)(d, o), _solver(7, t, (2, 3), leaf=1, rank_max=0)(d, o)):
        assert np.array_equal(np.asarray(x), np.asarray(y))


def test_secular_sums_split():
    """The secular steps sum their terms in two reduces (SECULAR_SUM_SPLIT 16) in the levels of order above
    16: order 64 with leaves of 4 (levels of order 8, 16, 32, 64) has two reduces more than with one pass, one
    per split level's loop (f32: no compacted loop)."""
    assert stedc.SECULAR_SUM_SPLIT == 16
    plain = _text(64, "f32", leaf=None, split=0).count("stablehlo.reduce")
    assert _text(64, "f32", leaf=None).count("stablehlo.reduce") == plain + 2


@pytest.mark.parametrize("t", wide_slow(["f32", "f64"]))
def test_secular_sums_split_small(t):
    """Split sums in every level's loops (SECULAR_SUM_SPLIT 2; the compacted loop too): the hard matrices of
    order 63 and a random one within the file's bounds."""
    rng = np.random.default_rng(29)
    for case in sorted(HARD):
        d, o = HARD[case](63)
        _run(t, d, o, compact_min=16, split=2)
    _run(t, rng.standard_normal(63), rng.standard_normal(62), compact_min=16, split=2)


@pytest.mark.slow  # (the default run checks the grouped levels' accuracy in every test and their structure below)
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_grouped_levels_as_accurate_as_per_level(t):
    """The merge levels of order up to GROUPED_BLOCK run as one loop of ``_merge_grouped`` (several
    subproblems to a block, masked): within the same bounds as the per-level code (GROUPED_BLOCK 0) on the
    hard matrices of order 63 (f32: levels 8 .. 32 grouped, f64: 16 and 32), a random order 200 (f32: padded to
    256, 3 of 6 levels grouped; f64: leaves of 7, levels 14 and 28 in blocks of 28) and a batch with leaves of
    one (levels 2 .. 32 grouped), and their eigenvalues within the bound of each other."""
    rng = np.random.default_rng(31)
    cases = [HARD[c](63) for c in sorted(HARD)] + [(rng.standard_normal(200), rng.standard_normal(199))]
    for d, o in cases:
        for grouped in (None, 0):
            _run(t, d, o, leaf=None, grouped=grouped)
        d_, o_ = d.astype(DTYPES[t]), o.astype(DTYPES[t])
        n = d.shape[-1]
        w1 = np.asarray(_solver(n, t, leaf=None)(d_, o_)[0], np.float64)
        w0 = np.asarray(_solver(n, t, leaf=None, grouped=0)(d_, o_)[0], np.float64)
        scale = max(np.abs(w0).max(), np.finfo(np.float64).tiny)
        assert np.abs(w1 - w0).max() <= C * n * float(np.finfo(DTYPES[t]).eps) * scale
    _run(t, rng.standard_normal((2, 33)), rng.standard_normal((2, 32)), leaf=1)


def test_grouped_levels_structure():
    """One copy of the grouped level's code: at order 256 (f32: leaves of 4, levels 8 .. 32 grouped; f64: leaves
    of 8, levels 16 and 32) the program has the per-level program's loops less those of the levels it folds,
    plus the one grouped loop; GROUPED_BLOCK 0 gives the per-level program."""
    for t, folded in (("f32", 3), ("f64", 2)):
        m0, levels = stedc.plan_levels(256, stedc.leaf_max(t))
        assert stedc._grouped_levels(m0, levels) == folded
        per_level = _text(256, t, leaf=None, grouped=0).count("stablehlo.while")
        # each folded level had one secular loop; the grouped loop has its own and the level loop around it
        assert _text(256, t, leaf=None).count("stablehlo.while") == per_level - folded + 2
    assert stedc._grouped_levels(4, 2) == 0  # fewer than two levels to fold: per level
    assert stedc._grouped_levels(8, 3) == 2 and stedc._grouped_levels(8, 2) == 0  # never the top
