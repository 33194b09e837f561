"""``--stablehlo-expand-cholesky`` and ``--stablehlo-expand-triangular-solve`` against XLA.

XLA compiles ``stablehlo.cholesky`` and ``stablehlo.triangular_solve`` natively, so the expanded program
runs on XLA CPU beside the original on the same inputs (and on hlokit's interpreter, which has no
``cholesky``). Both sides are backward stable, so the bounds are stated in the condition number
``kappa`` of the input (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.: Thm 10.3 and
10.5 for Cholesky, Thm 8.5 for triangular systems):

* backward error of the expansion itself: ``||L L^H - A|| / ||A|| <= C n eps`` and
  ``||op(a) x - b|| / (||op(a)|| ||x||) <= C n eps`` (normwise, Rigal-Gaches). Above 32 rows the solve
  multiplies by inverted 16-row diagonal blocks, as XLA does, whose residual bound also carries the
  condition numbers of those blocks (Du Croz and Higham, "Stability of methods for matrix inversion",
  IMA J. Numer. Anal. 12, 1992); the test matrices keep them below 10;
* forward difference from XLA's result: ``||got - want|| / ||want|| <= C n eps kappa``.

``eps`` is the machine epsilon of the element type (f16 / bf16 are computed in f32 by the expansion and
by XLA CPU, and rounded once). Non-positive-definite batch elements come back filled with NaN, exactly
where XLA fills them.

Several ops share one function so that each case costs two compilations; ``-m slow`` sweeps more sizes,
batch shapes, right-hand-side widths and element types.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes import run_pipeline
from hlokit.passes.lapack.matrix import UNROLL_LIMIT
from hlokit.passes.builder import TemplateCache

from conftest import REPO

CHOLESKY = "builtin.module(func.func(stablehlo-expand-cholesky))"
TRSM = "builtin.module(func.func(stablehlo-expand-triangular-solve))"

DTYPES = {"f32": np.float32, "f64": np.float64, "complex<f32>": np.complex64, "complex<f64>": np.complex128,
          "f16": np.float16, "bf16": ml_dtypes.bfloat16}
#: The constant C of the bounds above.
C = 8.0
TRANSPOSES = ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")
#: every (left_side, lower, transpose_a, unit_diagonal)
COMBOS = list(itertools.product((True, False), (True, False), TRANSPOSES, (True, False)))


def _eps(t: str) -> float:
    dt = DTYPES[t]
    return float(ml_dtypes.finfo(dt).eps) if dt in (ml_dtypes.bfloat16,) else float(np.finfo(dt).eps)


def _ty(shape, t: str) -> str:
    return f"tensor<{'x'.join(str(d) for d in shape)}x{t}>"


def _flag(v: bool) -> str:
    return "true" if v else "false"


def cholesky_program(t: str, shapes, lowers) -> str:
    """``main`` with one ``stablehlo.cholesky`` per ``(shape, lower)`` pair (one argument each)."""
    args = ", ".join(f"%a{i}: {_ty(s, t)}" for i, s in enumerate(shapes))
    body, rets = [], []
    for i, (s, lower) in enumerate(zip(shapes, lowers)):
        body.append(f'  %r{i} = "stablehlo.cholesky"(%a{i}) {{lower = {_flag(lower)}}} : ({_ty(s, t)}) -> {_ty(s, t)}')
        rets.append(f"%r{i}")
    types = ", ".join(_ty(s, t) for s in shapes)
    return (f"func.func @main({args}) -> ({types}) {{\n" + "\n".join(body)
            + f"\n  return {', '.join(rets)} : {types}\n}}\n")


def trsm_program(t: str, batch, n: int, k: int, combos) -> str:
    """``main(a, b_left, b_right)`` with one ``stablehlo.triangular_solve`` per combination."""
    ta, tl, tr = _ty([*batch, n, n], t), _ty([*batch, n, k], t), _ty([*batch, k, n], t)
    body, rets, types = [], [], []
    for i, (left, lower, trans, unit) in enumerate(combos):
        tb = tl if left else tr
        body.append(
            f'  %r{i} = "stablehlo.triangular_solve"(%a, {"%bl" if left else "%br"}) {{left_side = {_flag(left)}, '
            f"lower = {_flag(lower)}, unit_diagonal = {_flag(unit)}, transpose_a = #stablehlo<transpose {trans}>}}"
            f" : ({ta}, {tb}) -> {tb}")
        rets.append(f"%r{i}")
        types.append(tb)
    return (f"func.func @main(%a: {ta}, %bl: {tl}, %br: {tr}) -> ({', '.join(types)}) {{\n" + "\n".join(body)
            + f"\n  return {', '.join(rets)} : {', '.join(types)}\n}}\n")


def expand(text: str, pipeline: str) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, pipeline)
    return str(m)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def hpd(rng, batch, n: int, t: str, cond: float) -> np.ndarray:
    """Hermitian positive-definite matrices ``[*batch, n, n]`` with eigenvalues from 1 down to 1/cond."""
    cplx = t.startswith("complex")
    g = rng.standard_normal((*batch, n, n)) + (1j * rng.standard_normal((*batch, n, n)) if cplx else 0)
    q, _ = np.linalg.qr(g)
    s = np.logspace(0, -np.log10(cond), n)
    a = (q * s[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2))
    a = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    return a.astype(DTYPES[t])


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.complex128)


def _norm(x: np.ndarray) -> np.ndarray:
    return np.linalg.norm(_wide(x), axis=(-2, -1), ord=2) if x.shape[-1] and x.shape[-2] else np.zeros(x.shape[:-2])


def _rel(got, want) -> float:
    g, w = _wide(got), _wide(want)
    return float(np.max(_norm(g - w) / np.maximum(_norm(w), np.finfo(np.float64).tiny)))


def check_cholesky(a: np.ndarray, got: np.ndarray, want: np.ndarray, lower: bool, t: str, bad=()) -> None:
    """``got`` (expanded) against ``want`` (XLA) for inputs ``a``; ``bad``: batch indices (into the flat
    batch) that are not positive definite: NaN-filled in both."""
    n = a.shape[-1]
    eps = _eps(t)
    flat_a, flat_g, flat_w = (x.reshape(-1, n, n) for x in (a, got, want))
    for i in range(flat_a.shape[0]):
        if i in bad:
            assert np.isnan(_wide(flat_w[i])).all() and np.isnan(_wide(flat_g[i])).all(), i
            continue
        assert not np.isnan(_wide(flat_g[i])).any(), i
        aw, g = _wide(flat_a[i]), _wide(flat_g[i])
        tri = np.tril if lower else np.triu
        np.testing.assert_array_equal(g, tri(g))  # zeros in the other triangle, as XLA returns them
        prod = g @ np.conj(g.T) if lower else np.conj(g.T) @ g
        backward = np.linalg.norm(prod - aw, 2) / np.linalg.norm(aw, 2)
        assert backward <= C * n * eps, (i, backward)
        kappa = np.linalg.cond(aw)
        assert _rel(flat_g[i], flat_w[i]) <= C * n * eps * kappa, (i, _rel(flat_g[i], flat_w[i]), kappa)


def op_matrix(a: np.ndarray, lower: bool, trans: str, unit: bool) -> np.ndarray:
    """``op(a)`` as the op reads it: the ``lower``/upper triangle, ones on the diagonal when ``unit``."""
    a = _wide(a)
    m = np.tril(a, -1 if unit else 0) if lower else np.triu(a, 1 if unit else 0)
    if unit:
        m = m + np.eye(a.shape[-1])
    if trans != "NO_TRANSPOSE":
        m = np.swapaxes(m, -1, -2)
    return np.conj(m) if trans == "ADJOINT" else m


def check_solve(a, b, got, want, combo, t: str) -> None:
    left, lower, trans, unit = combo
    n = a.shape[-1]
    eps = _eps(t)
    m = op_matrix(a, lower, trans, unit)
    g = _wide(got)
    res = m @ g - _wide(b) if left else g @ m - _wide(b)
    backward = np.max(_norm(res) / (_norm(m) * np.maximum(_norm(g), np.finfo(np.float64).tiny)))
    assert backward <= C * n * eps, (combo, backward)
    kappa = float(np.max(np.linalg.cond(m)))
    assert _rel(got, want) <= C * n * eps * kappa, (combo, _rel(got, want), kappa)


def triangular(rng, batch, n: int, t: str) -> np.ndarray:
    """Full random matrices whose lower and upper triangles (with or without their diagonal) are well
    conditioned: off-diagonal entries N(0, 1/n), diagonal of modulus 1 to 2."""
    cplx = t.startswith("complex")
    g = rng.standard_normal((*batch, n, n)) + (1j * rng.standard_normal((*batch, n, n)) if cplx else 0)
    d = (1.0 + rng.random((*batch, n))) * np.where(rng.random((*batch, n)) < 0.5, -1.0, 1.0)
    a = g / np.sqrt(n) + d[..., None] * np.eye(n)
    return a.astype(DTYPES[t])


# -- cholesky -----------------------------------------------------------------------------------------


def _run_cholesky(t: str, batch, sizes, conds=(10.0,), seed=0, interpret=False):
    shapes = [[*batch, n, n] for n in sizes for _ in (0, 1)]
    lowers = [lower for _ in sizes for lower in (True, False)]
    text = cholesky_program(t, shapes, lowers)
    expanded = expand(text, CHOLESKY)
    assert "cholesky" not in expanded
    original, lowered = backend.compile(text), backend.compile(expanded)
    rng = _rng(seed)
    for cond in conds:
        args = [hpd(rng, batch, s[-1], t, cond) for s in shapes]
        bad = ()
        if batch:  # the last batch element is indefinite (and one holds a NaN when there are several)
            size = int(np.prod(batch))
            bad = (size - 1,) if size == 1 else (size - 1, 0)
            for x in args:
                flat = x.reshape(-1, *x.shape[-2:])
                flat[size - 1] -= DTYPES[t](2.0) * np.eye(x.shape[-1], dtype=x.dtype)
                if size > 1:
                    flat[0, -1, -1] = np.nan
        want = original(*args)
        got = lowered(*args)
        for x, g, w, lower in zip(args, got, want, lowers):
            assert g.shape == w.shape and g.dtype == w.dtype
            check_cholesky(x, g, w, lower, t, bad)
        if interpret:
            for x, g, w, lower in zip(args, hlokit.interpret(expanded, args), want, lowers):
                check_cholesky(x, g, w, lower, t, bad)


def _quick(values, quick):
    """Parameters ``values``; those not in ``quick`` only under ``-m slow`` (the same code path)."""
    return [pytest.param(*v) if isinstance(v, tuple) and v in quick else
            pytest.param(v) if v in quick else
            pytest.param(*(v if isinstance(v, tuple) else (v,)), marks=pytest.mark.slow) for v in values]


@pytest.mark.parametrize("t", _quick(["f32", "f64", "complex<f32>", "complex<f64>"], ["f32", "complex<f64>"]))
def test_cholesky_matches_xla(t):
    # n = 2: unrolled; n = 12: a stablehlo.while. Lower and upper, batched, one indefinite element.
    conds = (10.0, 1e3) if t.endswith("f32>") or t == "f32" else (10.0, 1e8)
    _run_cholesky(t, (2, 3), (2, 12), conds)


@pytest.mark.parametrize("t", _quick(["f16", "bf16"], ["f16"]))
def test_cholesky_narrow_floats_match_xla(t):
    _run_cholesky(t, (3,), (4, 10))


def test_cholesky_unbatched():
    _run_cholesky("f64", (), (1, 3, 9), (10.0, 1e6))


def test_cholesky_expanded_runs_on_the_interpreter():
    _run_cholesky("complex<f64>", (2,), (2, 10), interpret=True)
    _run_cholesky("f32", (2,), (7,), interpret=True)


def test_cholesky_zero_pivot_gives_inf_or_nan_below_it_as_xla():
    # Positive semi-definite: sqrt(0) = 0 is not an error for XLA; the column below divides by zero.
    text = cholesky_program("f64", [[3, 3]], [True])
    a = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    want = backend.compile(text)(a)[0]
    got = backend.compile(expand(text, CHOLESKY))(a)[0]
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    np.testing.assert_array_equal(got[np.isfinite(got)], want[np.isfinite(want)])


def test_cholesky_reads_only_its_triangle():
    check_reads_only_its_triangle(6, seed=3, cond=10.0)


def check_reads_only_its_triangle(n: int, seed: int, cond: float) -> None:
    """The expanded lower / upper Cholesky of an f64 order-``n`` matrix equals XLA's with NaN above / inf below
    the triangle it reads."""
    text = cholesky_program("f64", [[n, n], [n, n]], [True, False])
    a = hpd(_rng(seed), (), n, "f64", cond)
    lo = np.tril(a) + np.triu(np.full_like(a, np.nan), 1)
    up = np.triu(a) + np.tril(np.full_like(a, np.inf), -1)
    want = backend.compile(text)(a, a)
    got = backend.compile(expand(text, CHOLESKY))(lo, up)
    for g, w, lower in zip(got, want, (True, False)):
        check_cholesky(a, g, w, lower, "f64")


@pytest.mark.slow
@pytest.mark.parametrize("t", list(DTYPES))
@pytest.mark.parametrize("batch", [(), (1,), (2, 2)])
def test_cholesky_sweep(t, batch):
    narrow = t in ("f16", "bf16")
    conds = (10.0,) if narrow else ((10.0, 1e3) if "32" in t else (10.0, 1e8))
    _run_cholesky(t, batch, (1, 2, 7, 8, 9, 16, 33) if not narrow else (2, 9, 16), conds, seed=1)


# -- triangular_solve ------------------------------------------------------------------------------------


def _run_solve(t: str, batch, n: int, k: int, combos=COMBOS, seed=0, interpret=False):
    text = trsm_program(t, batch, n, k, combos)
    expanded = expand(text, TRSM)
    assert "triangular_solve" not in expanded
    rng = _rng(seed)
    a = triangular(rng, batch, n, t)
    cplx = t.startswith("complex")
    bl = (rng.standard_normal((*batch, n, k)) + (1j * rng.standard_normal((*batch, n, k)) if cplx else 0))
    br = (rng.standard_normal((*batch, k, n)) + (1j * rng.standard_normal((*batch, k, n)) if cplx else 0))
    args = [a, bl.astype(DTYPES[t]), br.astype(DTYPES[t])]
    want = backend.compile(text)(*args)
    got = backend.compile(expanded)(*args)
    for g, w, combo in zip(got, want, combos):
        assert g.shape == w.shape and g.dtype == w.dtype
        check_solve(a, args[1] if combo[0] else args[2], g, w, combo, t)
    if interpret:
        for g, w, combo in zip(hlokit.interpret(expanded, args), want, combos):
            check_solve(a, args[1] if combo[0] else args[2], g, w, combo, t)


@pytest.mark.parametrize("t, n, k", _quick(
    [(t, n, k) for t in ("f32", "f64", "complex<f32>", "complex<f64>") for n, k in ((2, 3), (11, 2), (40, 3))],
    [("f32", 2, 3), ("complex<f64>", 2, 3), ("f64", 11, 2), ("complex<f32>", 11, 2), ("f64", 40, 3)]))
def test_triangular_solve_every_combination_matches_xla(t, n, k):
    # n = 2: unrolled; n = 11: a stablehlo.while; n = 40: blocked (padded to whole blocks). All 24
    # attribute combinations in one function.
    _run_solve(t, (2,), n, k)


@pytest.mark.parametrize("t", _quick(["f16", "bf16"], ["bf16"]))
def test_triangular_solve_narrow_floats_match_xla(t):
    _run_solve(t, (2,), 10, 3, combos=COMBOS[::5])


def test_triangular_solve_unbatched_and_single_column():
    _run_solve("f64", (), 9, 1)


def test_triangular_solve_expanded_runs_on_the_interpreter():
    _run_solve("complex<f64>", (2,), 10, 2, combos=COMBOS[::3], interpret=True)
    _run_solve("f32", (), 2, 3, combos=COMBOS[1::4], interpret=True)


def test_triangular_solve_reads_only_its_triangle_and_not_a_unit_diagonal():
    combos = [(True, True, "NO_TRANSPOSE", True), (False, False, "ADJOINT", False), (True, False, "TRANSPOSE", True)]
    text = trsm_program("f64", (), 10, 2, combos)
    rng = _rng(5)
    a = triangular(rng, (), 10, "f64")
    bl, br = rng.standard_normal((10, 2)), rng.standard_normal((2, 10))
    want = backend.compile(text)(a, bl, br)
    lowered = backend.compile(expand(text, TRSM))
    for i, (left, lower, trans, unit) in enumerate(combos):
        junk = a.copy()
        other = np.triu(np.ones_like(a, bool), 0 if unit else 1) if lower else np.tril(np.ones_like(a, bool), 0 if unit else -1)
        junk[other] = np.nan
        got = lowered(junk, bl, br)[i]
        check_solve(a, bl if left else br, got, want[i], combos[i], "f64")


def test_triangular_solve_zero_diagonal_gives_inf_or_nan():
    text = trsm_program("f64", (), 3, 1, [(True, True, "NO_TRANSPOSE", False)])
    a = np.array([[1.0, 0, 0], [1.0, 0.0, 0], [1.0, 1.0, 1.0]])
    got = backend.compile(expand(text, TRSM))(a, np.ones((3, 1)), np.ones((1, 3)))[0]
    assert not np.isfinite(got[1:]).any() and got[0, 0] == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("t", list(DTYPES))
@pytest.mark.parametrize("batch, n, k", [((), 1, 1), ((3,), 2, 5), ((2, 2), 8, 1), ((1,), 9, 9), ((2,), 33, 4),
                                         ((), 64, 16), ((2,), 48, 5), ((), 100, 7)])
def test_triangular_solve_sweep(t, batch, n, k):
    _run_solve(t, batch, n, k, seed=2)


# -- both passes --------------------------------------------------------------------------------------


def test_zero_sized_operands_are_returned_as_they_are():
    text = """func.func @main(%a: tensor<0x0xf32>, %b: tensor<0x3xf32>, %c: tensor<4x4xf32>, %d: tensor<4x0xf32>)
        -> (tensor<0x0xf32>, tensor<0x3xf32>, tensor<4x0xf32>) {
      %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<0x0xf32>) -> tensor<0x0xf32>
      %1 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false,
          transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<0x0xf32>, tensor<0x3xf32>) -> tensor<0x3xf32>
      %2 = "stablehlo.triangular_solve"(%c, %d) {left_side = true, lower = true, unit_diagonal = false,
          transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xf32>, tensor<4x0xf32>) -> tensor<4x0xf32>
      return %0, %1, %2 : tensor<0x0xf32>, tensor<0x3xf32>, tensor<4x0xf32>
    }"""
    out = expand(expand(text, CHOLESKY), TRSM)
    assert "cholesky" not in out and "triangular_solve" not in out
    got = backend.compile(out)(np.zeros((0, 0), np.float32), np.zeros((0, 3), np.float32),
                               np.eye(4, dtype=np.float32), np.zeros((4, 0), np.float32))
    assert [g.shape for g in got] == [(0, 0), (0, 3), (4, 0)]


def test_one_template_per_signature(monkeypatch):
    parsed = []
    real_parse = TemplateCache.parse
    monkeypatch.setattr(TemplateCache, "parse", lambda self, key, text, what: parsed.append(key) or
                        real_parse(self, key, text, what))
    text = cholesky_program("f32", [[12, 12], [12, 12], [12, 12]], [True, True, False])
    out = expand(text, CHOLESKY)
    assert out.count("stablehlo.while") == 3 and "cholesky" not in out
    assert len(parsed) == 2  # (lower) and (upper): three ops, two templates


@pytest.mark.parametrize("pipeline, op", [(CHOLESKY, "cholesky"), (TRSM, "triangular_solve")])
def test_dynamic_shapes_are_refused_with_a_location_and_nothing_changes(pipeline, op):
    text = {
        "cholesky": """func.func @main(%a: tensor<4x4xf32>, %d: tensor<?x4x4xf32>) -> (tensor<4x4xf32>, tensor<?x4x4xf32>) {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "stablehlo.cholesky"(%d) {lower = true} : (tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<?x4x4xf32>
}""",
        "triangular_solve": """func.func @main(%a: tensor<4x4xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false,
      transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}""",
    }[op]
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="dyn.mlir")
    before = str(m)
    with pytest.raises(PassError) as info:
        run_pipeline(m, pipeline)
    line = 3 if op == "cholesky" else 2
    assert str(info.value).startswith(f"dyn.mlir:{line}:")
    assert f"'stablehlo.{op}' with a dynamic or unranked shape" in str(info.value)
    assert str(m) == before


def test_expansions_use_core_ops_only():
    core = {"stablehlo.while", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.dot_general",
            "stablehlo.constant", "stablehlo.compare", "stablehlo.select", "stablehlo.iota", "stablehlo.add",
            "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide", "stablehlo.negate", "stablehlo.sqrt",
            "stablehlo.or", "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.transpose",
            "stablehlo.real", "stablehlo.imag", "stablehlo.complex", "stablehlo.reduce", "stablehlo.return",
            "stablehlo.convert", "stablehlo.reverse", "stablehlo.pad", "stablehlo.slice", "stablehlo.and",
            "stablehlo.concatenate", "func.func", "func.return", "builtin.module"}
    text = cholesky_program("complex<f32>", [[2, 12, 12], [2, 3, 3]], [False, True])
    text2 = trsm_program("bf16", (2,), 10, 3, COMBOS)
    text3 = trsm_program("complex<f32>", (), 40, 3, COMBOS)
    for src, p in ((text, CHOLESKY), (text2, TRSM), (text3, TRSM)):
        m = hlokit.parse(src, context=hlokit.make_context())
        run_pipeline(m, p)
        seen = set()

        def visit(o):
            seen.add(o.name)
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit)
        assert seen <= core, seen - core


def test_unroll_limit_is_where_loops_start():
    n = UNROLL_LIMIT
    small = expand(cholesky_program("f32", [[n, n]], [True]), CHOLESKY)
    big = expand(cholesky_program("f32", [[n + 1, n + 1]], [True]), CHOLESKY)
    assert "stablehlo.while" not in small and "stablehlo.while" in big


# -- the example programs (examples/lower_to_core/linalg) ------------------------------------------------

EXAMPLES = sorted((REPO / "examples" / "lower_to_core" / "linalg").glob("*.mlir"))
BOTH = "builtin.module(func.func(stablehlo-expand-cholesky, stablehlo-expand-triangular-solve))"


def _example_inputs(text: str, seed: int = 0) -> list[np.ndarray]:
    module = hlokit.parse(text, context=hlokit.make_context())
    rng = _rng(seed)
    args = []
    for spec in backend.signature(module)[0]:
        x = rng.standard_normal(spec.shape)
        if np.dtype(spec.dtype).kind == "c":
            x = x + 1j * rng.standard_normal(spec.shape)
        args.append(x.astype(spec.dtype))
    return args


@pytest.mark.parametrize("path", [
    pytest.param(p, id=p.stem, marks=pytest.mark.slow if "256" in p.stem and p.stem != "cholesky_f32_256x256" else ())
    for p in EXAMPLES])
def test_examples_lowered_equal_the_originals_on_xla(path):
    # The programs build operands whose condition number is below 100 from any input (x x^H / n + I,
    # or x / n + 2 I for the triangular ones), so the bound is C n eps 100.
    text = path.read_text()
    lowered = expand(text, BOTH)
    assert "cholesky" not in lowered and "triangular_solve" not in lowered
    args = _example_inputs(text)
    want = backend.compile(text)(*args)
    got = backend.compile(lowered)(*args)
    n = max(max(a.shape[-2:]) for a in args)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert _rel(g, w) <= C * n * np.finfo(w.dtype).eps * 100, (path.stem, _rel(g, w))
    if n <= 64:  # the interpreter runs the lowered program to the same results
        for g, w in zip(hlokit.interpret(lowered, args), want):
            assert _rel(g, w) <= C * n * np.finfo(w.dtype).eps * 100, (path.stem, _rel(g, w))
