"""The interpreter runs programs with ops it has no adapter for by legalizing them first with hlokit's
own passes (``interpreter.api.prepare_module``, :func:`hlokit.passes.prepare.prepare`): deprecated ops, shape
computations, batch norm, CHLO, LAPACK custom calls. The user never runs a pass first."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import hlokit
from hlokit.interpreter.api import interpreter_legalizations, legalizations_needed
from hlokit.interpreter.registry import CUSTOM_CALLS, OPS
from hlokit.passes.stablehlo_lower_to_core import lowering_passes

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_the_legalizations_are_the_lowering_passes_for_the_ops_without_a_kernel():
    """Each legalization is a pass of stablehlo-lower-to-core, in the pipeline's order, triggered by exactly the
    ops it declares illegal that the op table lacks; a pass whose every op has a kernel is not one."""
    legs = interpreter_legalizations()
    flags = [leg.flag for leg in legs]
    assert flags == ["stablehlo-legalize-lapack-custom-calls", "stablehlo-legalize-cuda-custom-calls",
                     "stablehlo-legalize-rocm-custom-calls", "stablehlo-legalize-tpu-custom-calls", "chlo-legalize-to-stablehlo",
                     "stablehlo-legalize-deprecated-ops", "shape-legalize-to-stablehlo", "stablehlo-expand-batch-norm"]
    steps = {cls.argument: cls for cls in lowering_passes()}
    assert flags == [f for f in steps if f in flags]
    for leg in legs:
        cls = steps[leg.flag]
        assert leg.ops == {n for n in cls.illegal_ops if n not in OPS}
        assert leg.custom_calls == {t for t in cls.illegal_custom_calls if t not in CUSTOM_CALLS}
    for flag in set(steps) - set(flags):  # cholesky, triangular_solve, rng, rng_bit_generator: run directly
        assert steps[flag].illegal_ops <= set(OPS), flag
    deprecated = next(leg for leg in legs if leg.flag == "stablehlo-legalize-deprecated-ops")
    assert "stablehlo.dot" not in deprecated.ops and "stablehlo.create_token" not in deprecated.ops  # kernels
    assert "stablehlo.einsum" in deprecated.ops


def test_einsum_and_deprecated_broadcast_run_directly():
    text = """func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<5xf32>) -> (tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<4x4xf32>) {
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = "stablehlo.broadcast"(%c) {broadcast_sizes = array<i64: 3>} : (tensor<5xf32>) -> tensor<3x5xf32>
  %2 = "stablehlo.unary_einsum"(%a) {einsum_config = "bij->jj"} : (tensor<2x3x4xf32>) -> tensor<4x4xf32>
  return %0, %1, %2 : tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<4x4xf32>
}"""
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (2, 3, 4)).astype(np.float32)
    b = rng.integers(-3, 4, (2, 4, 5)).astype(np.float32)
    c = rng.integers(-3, 4, 5).astype(np.float32)
    module = hlokit.parse(text, context=hlokit.make_context(), source_name="p.mlir")
    assert legalizations_needed(module) == ["stablehlo-legalize-deprecated-ops"]
    x, y, z = hlokit.interpret(text, [a, b, c])
    np.testing.assert_array_equal(x, np.einsum("bij,bjk->bik", a, b))
    np.testing.assert_array_equal(y, np.broadcast_to(c, (3, 5)))
    want = np.zeros((4, 4), np.float32)
    np.fill_diagonal(want, a.sum(axis=(0, 1)))  # "jj" in the output puts the sums on the diagonal
    np.testing.assert_array_equal(z, want)


def test_shape_dialect_program_runs_directly():
    """The C++ CHLO lowering's dynamic broadcasting (shape.shape_of / cstr_broadcastable / assuming /
    broadcast) runs on concrete arrays of any compatible shape."""
    path = REPO / "examples" / "lower_to_core" / "shape" / "broadcast_chain.mlir"
    module = hlokit.parse(path.read_text(), context=hlokit.make_context())
    assert "shape-legalize-to-stablehlo" in legalizations_needed(module)
    rng = np.random.default_rng(1)
    for n, m in ((3, 5), (1, 4), (0, 2)):
        args = [rng.standard_normal((n, 1)).astype(np.float32), rng.standard_normal((1, m)).astype(np.float32),
                rng.standard_normal(m).astype(np.float32)]
        outs = hlokit.interpret(path, args)
        assert all(o.shape == (n, m) for o in outs)


@pytest.mark.parametrize("feature_index", [0, 1, 3])
def test_batch_norm_runs_directly(feature_index):
    shape = [2, 3, 4, 5]
    c = shape[feature_index]
    x_t = "tensor<" + "x".join(map(str, shape)) + "xf32>"
    f_t = f"tensor<{c}xf32>"
    text = f"""func.func @main(%x: {x_t}, %s: {f_t}, %o: {f_t}, %m: {f_t}, %v: {f_t}) -> ({x_t}, {x_t}, {f_t}, {f_t}) {{
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {{epsilon = 1.0e-3 : f32, feature_index = {feature_index} : i64}} : ({x_t}, {f_t}, {f_t}, {f_t}, {f_t}) -> {x_t}
  %1:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {{epsilon = 1.0e-3 : f32, feature_index = {feature_index} : i64}} : ({x_t}, {f_t}, {f_t}) -> ({x_t}, {f_t}, {f_t})
  return %0, %1#0, %1#1, %1#2 : {x_t}, {x_t}, {f_t}, {f_t}
}}"""
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    s, o, m = (rng.standard_normal(c).astype(np.float32) for _ in range(3))
    v = rng.uniform(0.5, 2, c).astype(np.float32)
    inf, train, mean, var = hlokit.interpret(text, [x, s, o, m, v])
    bshape = [1] * 4
    bshape[feature_index] = c
    axes = tuple(d for d in range(4) if d != feature_index)

    def b(t):
        return t.astype(np.float64).reshape(bshape)

    x64 = x.astype(np.float64)
    np.testing.assert_allclose(inf, (x64 - b(m)) / np.sqrt(b(v) + 1e-3) * b(s) + b(o), rtol=1e-5, atol=1e-5)
    mu, var_ = x64.mean(axis=axes), x64.var(axis=axes)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, var_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(train, (x64 - b(mu)) / np.sqrt(b(var_) + 1e-3) * b(s) + b(o), rtol=1e-4, atol=1e-4)
