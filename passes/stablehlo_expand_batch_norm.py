"""``--stablehlo-expand-batch-norm``: ``batch_norm_training`` / ``batch_norm_inference`` /
``batch_norm_grad`` -> elementwise ops, broadcasts and reduces.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), sections ``batch_norm_training``,
``batch_norm_inference`` and ``batch_norm_grad``; XLA operation semantics
(https://openxla.org/xla/operation_semantics, ``BatchNormTraining``, ``BatchNormInference``,
``BatchNormGrad``). The expansions follow the op order of XLA's ``BatchNormExpander``
(``xla/service/batchnorm_expander.cc``), which XLA CPU runs on these ops, so the expanded program rounds
like the original one on XLA. With ``N`` the number of elements per feature (the product of every
dimension but ``feature_index``), ``eps`` the ``epsilon`` attribute and sums over every dimension but
``feature_index``:

* training: ``mean = sum(x) / N``, ``var = sum(x * x) / N - mean * mean`` (biased, as the spec),
  ``y = (x - mean) * rsqrt(var + eps) * scale + offset``; results ``(y, mean, var)``.
* inference: ``s = scale * rsqrt(variance + eps)``, ``y = x * s + (offset - mean * s)``.
* grad: ``grad_offset = sum(g)``, ``grad_scale = sum(g * (x - mean)) * rsqrt(variance + eps)``,
  ``grad_operand = scale * rsqrt(variance + eps) / N * (N * g - sum(g) - (x - mean) * sum(g * (x -
  mean)) / (variance + eps))`` (the spec's formula, rearranged as XLA does).

Element types, as XLA CPU computes them (measured on jaxlib 0.10.2, where the expanded program
equals the original bit for bit): f64, f32 and f16 in their own type; bf16 and the 8-bit and narrower
float types are converted to f32, computed there and rounded back. The option ``f16-in-f32=true``
computes f16 in f32 too (more accurate, no longer XLA CPU's rounding). Static shapes, any rank >= 1 and any ``feature_index``. A dynamic shape, a
non-float (e.g. quantized) element type, or an unreadable attribute is a located
:class:`~hlokit.diagnostics.PassError` raised before anything is rewritten.

Each op signature (op, types, ``feature_index``, ``epsilon``) is built once per context as a template on
:mod:`hlokit.passes.builder` and cloned in place of each op
(:class:`~hlokit.passes.template_pass.TemplatePass`).
"""

from __future__ import annotations

import math

from hlokit import attributes
from hlokit.passes.builder import FLOAT_TYPES, MINI_FLOAT_TYPES, V, Emitter, UnsupportedError
from hlokit.passes.registry import Option, register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = [
    "StablehloExpandBatchNorm",
    "BATCH_NORM_OPS",
    "build_batch_norm_training",
    "build_batch_norm_inference",
    "build_batch_norm_grad",
    "compute_type",
]


def compute_type(t: str, f16_in_f32: bool = False) -> str:
    """The element type a batch norm of element type ``t`` is computed in, as XLA CPU does: ``t`` for
    f64, f32 and f16 (f32 for f16 when ``f16_in_f32``), f32 for bf16 and the 8-bit and narrower float
    types. UnsupportedError for any other type."""
    if t in ("f32", "f64") or (t == "f16" and not f16_in_f32):
        return t
    if t in FLOAT_TYPES or t in MINI_FLOAT_TYPES:
        return "f32"
    raise UnsupportedError(f"batch norm on element type '{t}' (floating-point types only)")


class _Features:
    """Broadcasts and sums between the operand shape and the feature vector ``[shape[feature_index]]``."""

    def __init__(self, e: Emitter, shape: list[int], feature_index: int):
        self.e, self.shape, self.fi = e, shape, feature_index
        self.dims = [i for i in range(len(shape)) if i != feature_index]
        self.count = math.prod(shape[i] for i in self.dims)

    def bcast(self, v: V) -> V:
        return self.e.broadcast_in_dim(v, self.shape, [self.fi])

    def sum(self, x: V) -> V:
        return self.e.reduce_sum(x, self.dims)


def build_batch_norm_training(e: Emitter, x: V, scale: V, offset: V, epsilon: float,
                              feature_index: int, f16_in_f32: bool = False) -> list[V]:
    """``(output, batch_mean, batch_var)`` of ``batch_norm_training`` (see the module docstring) in the
    element type of ``x`` (computed in :func:`compute_type`)."""
    t, c = x.t, compute_type(x.t, f16_in_f32)
    x, scale, offset = (e.convert(v, c) for v in (x, scale, offset))
    f = _Features(e, x.shape, feature_index)
    n = e.const(f.count, scale)
    mean = f.sum(x) / n
    square_mean = f.sum(x * x) / n
    var = square_mean - mean * mean
    rsq = e.rsqrt(f.bcast(var) + epsilon)
    y = (x - f.bcast(mean)) * rsq * f.bcast(scale) + f.bcast(offset)
    return [e.convert(y, t), e.convert(mean, t), e.convert(var, t)]


def build_batch_norm_inference(e: Emitter, x: V, scale: V, offset: V, mean: V, variance: V,
                               epsilon: float, feature_index: int, f16_in_f32: bool = False) -> V:
    """The result of ``batch_norm_inference`` (see the module docstring)."""
    t, c = x.t, compute_type(x.t, f16_in_f32)
    x, scale, offset, mean, variance = (e.convert(v, c) for v in (x, scale, offset, mean, variance))
    f = _Features(e, x.shape, feature_index)
    true_scale = scale * e.rsqrt(variance + epsilon)
    true_shift = offset - mean * true_scale
    return e.convert(x * f.bcast(true_scale) + f.bcast(true_shift), t)


def build_batch_norm_grad(e: Emitter, x: V, scale: V, mean: V, variance: V, grad_output: V,
                          epsilon: float, feature_index: int, f16_in_f32: bool = False) -> list[V]:
    """``(grad_operand, grad_scale, grad_offset)`` of ``batch_norm_grad`` (see the module docstring)."""
    t, c = x.t, compute_type(x.t, f16_in_f32)
    x, scale, mean, variance, g = (e.convert(v, c) for v in (x, scale, mean, variance, grad_output))
    f = _Features(e, x.shape, feature_index)
    var_b = f.bcast(variance)
    rsqrt_b = e.rsqrt(var_b + epsilon)
    rsqrt_f = e.rsqrt(variance + epsilon)
    centered = x - f.bcast(mean)
    sum_g_centered = f.sum(g * centered)
    grad_offset = f.sum(g)
    grad_scale = sum_g_centered * rsqrt_f
    i5 = f.bcast(sum_g_centered) * centered / (var_b + epsilon)
    n = e.const(f.count, x)
    factor = f.bcast(scale) * rsqrt_b / n
    i6 = g * n - f.bcast(grad_offset) - i5
    grad_x = factor * i6
    return [e.convert(grad_x, t), e.convert(grad_scale, t), e.convert(grad_offset, t)]


#: op name -> builder; a builder takes the template's arguments, epsilon, feature_index and the
#: ``f16-in-f32`` option and returns the values that replace the op's results, in order.
BATCH_NORM_OPS = {
    "stablehlo.batch_norm_training": lambda e, a, *rest: build_batch_norm_training(e, *a, *rest),
    "stablehlo.batch_norm_inference": lambda e, a, *rest: [build_batch_norm_inference(e, *a, *rest)],
    "stablehlo.batch_norm_grad": lambda e, a, *rest: build_batch_norm_grad(e, *a, *rest),
}


@register_pass
class StablehloExpandBatchNorm(TemplatePass):
    """Expand ``batch_norm_training``, ``batch_norm_inference`` and ``batch_norm_grad`` into
    elementwise ops, broadcasts and reduces as XLA's ``BatchNormExpander`` does (see the module
    docstring). Anchor ``func.func`` (ops in nested regions included). Raises a located
    :class:`~hlokit.diagnostics.PassError`, before changing anything, for a dynamic shape or a
    non-float element type."""

    argument = "stablehlo-expand-batch-norm"
    summary = "Expand stablehlo.batch_norm_{training,inference,grad} into elementwise ops and reduces"
    anchor = "func.func"
    options = (
        Option("f16-in-f32", bool, False,
               "compute f16 batch norms in f32 (more accurate; XLA CPU computes them in f16)"),
    )
    illegal_ops = frozenset(BATCH_NORM_OPS)

    def attributes(self, op) -> tuple:
        """``(epsilon, feature_index, f16-in-f32 option)``."""
        return (attributes.float_value(op, "epsilon"), attributes.int_value(op, "feature_index"), self.f16_in_f32)

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> list[V]:
        return BATCH_NORM_OPS[info.name](e, operands, *info.attrs)
