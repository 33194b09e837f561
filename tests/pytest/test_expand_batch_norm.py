"""``--stablehlo-expand-batch-norm`` against the original ops on XLA CPU (the oracle).

StableHLO spec (https://openxla.org/stablehlo/spec) ``batch_norm_training`` / ``batch_norm_inference`` /
``batch_norm_grad``; XLA's ``xla/service/batchnorm_expander.cc``. The expanded program follows XLA's op
order and XLA CPU's compute types (f16 in f16, bf16 in f32), so on XLA it has equalled the original bit
for bit on every case here (jaxlib 0.10.2). The assertions state a looser bound that does not depend on
XLA's fusion decisions: per result, ``max |expanded - original| <= K * eps(type) * max |original|``
with K = 4 on XLA. On hlokit's interpreter, whose reduce sums in another order, the bound is
``K * eps(type) * max |original|`` with the maximum over every result of the op (a per-feature sum that
cancels, e.g. ``grad_scale`` of one feature, has a large relative error in either order) and
K = 8 * max(1, sqrt(N) / 4) for N terms per feature (rounding errors of a sum grow like sqrt(N) eps;
Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 4.2): f16 sums of 576
terms differed by 8 eps.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes import run_pipeline

from conftest import REPO

PIPE = "builtin.module(func.func(stablehlo-expand-batch-norm))"
DTYPES = {"f32": np.float32, "f64": np.float64, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
EPS = {t: float(ml_dtypes.finfo(d).eps) for t, d in DTYPES.items()}


def expand(text: str, pipe: str = PIPE) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, pipe)
    return str(m)


def ttype(shape, t: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + t + ">"


def program(kind: str, shape, fi: int, t: str, eps: float = 1e-3) -> tuple[str, list[bool]]:
    """A one-op program and, per argument, whether it has the operand's shape (else the feature shape)."""
    T, F = ttype(shape, t), ttype((shape[fi],), t)
    attrs = f"epsilon = {eps:e} : f32, feature_index = {fi} : i64"
    if kind == "training":
        ins, outs = [T, F, F], [T, F, F]
    elif kind == "inference":
        ins, outs = [T, F, F, F, F], [T]
    else:
        ins, outs = [T, F, F, F, T], [T, F, F]
    params = ", ".join(f"%a{i}: {ty}" for i, ty in enumerate(ins))
    names = ", ".join(f"%a{i}" for i in range(len(ins)))
    res = ", ".join(f"%r#{i}" for i in range(len(outs))) if len(outs) > 1 else "%r"
    count = f":{len(outs)}" if len(outs) > 1 else ""
    text = (f"func.func @main({params}) -> ({', '.join(outs)}) {{\n"
            f'  %r{count} = "stablehlo.batch_norm_{kind}"({names}) {{{attrs}}} : ({", ".join(ins)}) -> '
            f"({', '.join(outs)})\n  return {res} : {', '.join(outs)}\n}}\n")
    return text, [ty == T for ty in ins]


def inputs(kind: str, shape, fi: int, t: str, seed: int = 0) -> list[np.ndarray]:
    """Normal data with a non-zero mean; variances positive (the ops' operand 4 / 3)."""
    rng = np.random.default_rng(seed)
    _, full = program(kind, shape, fi, t)
    var_index = {"inference": 4, "grad": 3}.get(kind)
    out = []
    for i, f in enumerate(full):
        a = rng.normal(size=shape if f else (shape[fi],)) * 2 + 0.5
        if i == var_index:
            a = np.abs(a) + 0.1
        out.append(a.astype(DTYPES[t]))
    return out


def normwise(got, want) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if want.size == 0:
        return 0.0
    return float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-300))


def check(kind: str, shape, fi: int, t: str, interpreter: bool = True) -> None:
    text, _ = program(kind, shape, fi, t)
    expanded = expand(text)
    assert "batch_norm" not in expanded
    args = inputs(kind, shape, fi, t)
    want = backend.compile(text)(*args)
    got = backend.compile(expanded)(*args)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert normwise(g, w) <= 4 * EPS[t], (kind, shape, fi, t, normwise(g, w))
    if interpreter:
        n = int(np.prod(shape)) // shape[fi]
        bound = 8 * EPS[t] * max(1.0, np.sqrt(n) / 4)  # sums of n terms in another order
        scale = max(float(np.max(np.abs(np.asarray(w, np.float64)))) for w in want)
        for w, g in zip(want, hlokit.interpret(expanded, args)):
            assert g.dtype == w.dtype and g.shape == w.shape
            err = float(np.max(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64))))
            assert err <= bound * scale, (kind, shape, fi, t, err / scale)


KINDS = ["training", "inference", "grad"]
SHAPES = [((4, 3, 5, 2), 1), ((3, 5), 1)]
SLOW_SHAPES = [((7,), 0), ((2, 3, 4), 2), ((6, 2, 3), 0), ((5, 1, 3, 7), 3), ((1, 9), 0), ((16, 8, 6, 6), 1)]


@pytest.mark.parametrize("t", list(DTYPES))
@pytest.mark.parametrize("kind", KINDS)
def test_expanded_equals_xla(kind, t):
    for shape, fi in SHAPES:
        check(kind, shape, fi, t)


@pytest.mark.slow
@pytest.mark.parametrize("shape,fi", SLOW_SHAPES)
@pytest.mark.parametrize("t", list(DTYPES))
@pytest.mark.parametrize("kind", KINDS)
def test_expanded_equals_xla_more_shapes(kind, t, shape, fi):
    check(kind, shape, fi, t)


def test_training_mean_and_variance_are_the_spec_ones():
    """``batch_mean`` / ``batch_var`` are the biased moments over every dimension but the feature
    dimension (spec ``batch_norm_training``), here against numpy in f64."""
    shape, fi = (3, 4, 5), 1
    args = inputs("training", shape, fi, "f64")
    out = hlokit.interpret(expand(program("training", shape, fi, "f64")[0]), args)
    x = args[0]
    mean = x.mean(axis=(0, 2))
    var = x.var(axis=(0, 2))
    np.testing.assert_allclose(out[1], mean, rtol=1e-13)
    np.testing.assert_allclose(out[2], var, rtol=1e-12)
    norm = (x - mean[None, :, None]) / np.sqrt(var[None, :, None] + float(np.float32(1e-3)))  # epsilon is an f32
    np.testing.assert_allclose(out[0], norm * args[1][None, :, None] + args[2][None, :, None], rtol=1e-12, atol=1e-12)


def test_f16_in_f32_option_is_more_accurate():
    """``f16-in-f32=true`` computes f16 in f32: closer to the f64 result than XLA CPU's f16 arithmetic."""
    shape, fi = (8, 4, 6), 1
    text, _ = program("training", shape, fi, "f16")
    args = inputs("training", shape, fi, "f16", seed=3)
    exact = hlokit.interpret(expand(program("training", shape, fi, "f64")[0]), [a.astype(np.float64) for a in args])
    native = backend.compile(expand(text))(*args)
    wide_text = expand(text, "builtin.module(func.func(stablehlo-expand-batch-norm{f16-in-f32=true}))")
    assert "f32" in wide_text
    wide = backend.compile(wide_text)(*args)
    assert normwise(wide[0], exact[0]) <= normwise(native[0], exact[0])
    assert normwise(wide[0], exact[0]) <= EPS["f16"]


def test_nested_ops_and_every_op_in_one_function():
    text = """
func.func @main(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %t:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %c = stablehlo.constant dense<true> : tensor<i1>
  %r = "stablehlo.if"(%c) ({
    %i = "stablehlo.batch_norm_inference"(%x, %s, %o, %t#1, %t#2) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    stablehlo.return %i : tensor<2x3xf32>
  }, {
    stablehlo.return %x : tensor<2x3xf32>
  }) : (tensor<i1>) -> tensor<2x3xf32>
  return %t#0, %r : tensor<2x3xf32>, tensor<2x3xf32>
}
"""
    expanded = expand(text)
    assert "batch_norm" not in expanded
    args = inputs("training", (2, 3), 1, "f32")
    want = backend.compile(text)(*args)
    got = backend.compile(expanded)(*args)
    for w, g in zip(want, got):
        assert normwise(g, w) <= 4 * EPS["f32"]


def test_dynamic_shape_is_a_located_error_and_changes_nothing():
    text = """func.func @main(%x: tensor<?x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3xf32> {
  %r = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
"""
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="bn.mlir")
    before = str(m)
    with pytest.raises(PassError, match="static shapes only") as err:
        run_pipeline(m, PIPE)
    assert str(err.value).startswith("bn.mlir:2:")
    assert str(m) == before


EXAMPLES = sorted((REPO / "examples" / "lower_to_core" / "batch_norm").glob("*.mlir"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_expand_and_equal_xla(path):
    """Every batch-norm example program: expanded, no batch norm left, equal to the original on XLA."""
    text = path.read_text()
    expanded = expand(text)
    assert "batch_norm" not in expanded
    exe = backend.compile(text)
    rng = np.random.default_rng(1)
    args = []
    for spec in exe.in_specs:  # feature vectors (scale, offset, mean, variance) positive
        a = rng.normal(size=spec.shape) + 0.5
        args.append((np.abs(a) + 0.1 if len(spec.shape) == 1 else a).astype(spec.dtype))
    want = exe(*args)
    got = backend.compile(expanded)(*args)
    t = {np.dtype(v): k for k, v in DTYPES.items()}[np.dtype(exe.in_specs[0].dtype)]
    for w, g in zip(want, got):
        assert normwise(g, w) <= 4 * EPS[t], path.name
