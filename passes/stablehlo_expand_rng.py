"""``--stablehlo-expand-rng``: ``stablehlo.rng`` (UNIFORM, NORMAL) -> ``rng_bit_generator`` + arithmetic.

The StableHLO spec (https://openxla.org/stablehlo/spec, ``rng``) leaves the numbers
implementation-defined. This pass writes out XLA CPU's own expansion of the op (``RngExpander``,
``xla/service/rng_expander.cc``, with the distributions of ``xla/hlo/builder/lib/prng.cc``), so that the
expanded program gives the numbers XLA CPU gives the original one on its first execution in a fresh
process (``docs/rng.md``, section ``rng``):

* Bits: one ``stablehlo.rng_bit_generator`` with algorithm ``PHILOX`` and the constant state
  ``[key, 0x7012395, 0]`` (``ui64[3]``: key, 128-bit counter). ``0x7012395`` is where XLA CPU's
  per-executable counter starts (``xla/backends/cpu/runtime/rng_state_thunk.cc``). The key of the
  ``i``-th ``rng`` op of the module (pre-order, the order of the text) is ``mt19937_64(42)[i] ^
  mt19937_64(8)[i]``: XLA XORs a draw of a per-process ``std::mt19937_64`` stream with a draw of a
  per-module one, and these are the draws jaxlib 0.10.2's XLA CPU makes for the module it compiles
  first in a fresh process. ``--stablehlo-expand-rng-bit-generator`` then turns the generator into
  integer ops.
* UNIFORM floats: ``(bits >> (w - m)) * 2^-m * (b - a) + a`` (``m`` = 23 with 32-bit bits for f32, f16
  and bf16, which are computed in f32 and rounded back; ``m`` = 52 with 64-bit bits for f64).
* UNIFORM integers: ``d = bits mod (b - a)`` in unsigned arithmetic (a zero range keeps the bits),
  result ``a + (d >> 1) + (d - (d >> 1))`` wrapping, at 32 bits (64 for 64-bit types) of the operand's
  signedness; narrower types and ``i1`` are computed at 32 bits and converted back.
* NORMAL (f16, bf16, f32, f64): Box-Muller on uniform [0, 1) pairs that are neighbours along the split
  dimension (the layout of 32-bit Threefry bits): ``u1 = max(x0, 1e-7)``, ``r = sqrt(-2 log u1)``,
  ``(r sin 2 pi x1, r cos 2 pi x1)``, then ``a + b z``. ``log``, ``sqrt``, ``sine`` and ``cosine`` are
  StableHLO ops, so on XLA they are XLA's own approximations; hlokit's interpreter evaluates them
  correctly rounded, within 2 ULP of XLA's.

What XLA leaves undefined, and what the expansion fixes instead: XLA's key depends on what the process
compiled before (its per-process stream advances with every ``rng`` op any module expands), and its
counter advances by the number of 32-bit words of the result at every execution of the executable (an
``rng`` in a ``while`` body draws new numbers per iteration). A StableHLO program has no per-process or
per-executable state, so the expansion uses the first-execution, first-module values: every execution
(and every loop iteration) of the expanded program gives the numbers of the original's first execution
in a fresh XLA CPU process. Programs that need fresh numbers per execution pass a state to
``rng_bit_generator`` themselves (as JAX does).

Each op signature (distribution, types, module position) is built once per context as a template on
:mod:`hlokit.passes.builder` (:class:`~hlokit.passes.template_pass.TemplatePass`, ``positional``: the
key depends on the op's position). Every op is checked before the first rewrite: a dynamic result shape, NORMAL
on a non-float type or a float type other than f16/bf16/f32/f64 is a located
:class:`~hlokit.diagnostics.PassError` and the module is left unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from hlokit.xla_rng_state import RNG_INITIAL_COUNTER, mt19937_64, rng_key
from hlokit import attributes
from hlokit.passes.builder import FLOAT_TYPES, Emitter, RngAlgorithm, UnsupportedError, V
from hlokit.passes.registry import register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass
from hlokit.passes.stablehlo_expand_rng_bit_generator import split_dimension

__all__ = ["StablehloExpandRng", "build_rng", "rng_key", "mt19937_64", "RNG_INITIAL_COUNTER"]



_UNSIGNED = {"i1": "ui32", "i8": "ui32", "i16": "ui32", "i32": "ui32", "i64": "ui64",
             "ui8": "ui32", "ui16": "ui32", "ui32": "ui32", "ui64": "ui64"}
_WORK_INT = {"i1": "i32", "i8": "i32", "i16": "i32", "i32": "i32", "i64": "i64",
             "ui8": "ui32", "ui16": "ui32", "ui32": "ui32", "ui64": "ui64"}
_MANTISSA = {"f32": 23, "f64": 52}


def _bits(e: Emitter, key: int, shape: list[int], t: str) -> V:
    """``rng_bit_generator`` PHILOX bits (``t`` = ``ui32`` / ``ui64``) of ``shape`` from state
    ``[key, RNG_INITIAL_COUNTER, 0]``."""
    state = e.constant([key, RNG_INITIAL_COUNTER, 0], "ui64")
    _, bits = e.rng_bit_generator(state, shape, t, RngAlgorithm.PHILOX)
    return bits


def _uniform01(e: Emitter, bits: V, w: str) -> V:
    """XLA's uniform [0, 1) float of work type ``w`` (f32/f64) from raw bits: the top ``m`` bits times 2^-m."""
    m = _MANTISSA[w]
    width = 64 if w == "f64" else 32
    mant = e.shift_right_logical(bits, e.const(width - m, bits))
    return e.convert(mant, w) * (2.0 ** -m)


def _splat(e: Emitter, x: V, shape: list[int]) -> V:
    """A 0-d value broadcast to ``shape``."""
    return e.broadcast_in_dim(x, shape, []) if shape else x


def _pairs(e: Emitter, u: V, shape: list[int]) -> tuple[V, V]:
    """The two members of each Box-Muller pair of ``u`` (the pair shape of ``shape``), in the half shape."""
    if not shape:
        return e.slice(u, [0], [1]), e.slice(u, [1], [2])
    s = split_dimension(shape)
    half = shape[:s] + [(shape[s] + 1) // 2] + shape[s + 1:]
    v = e.reshape(u, half[: s + 1] + [2] + half[s + 1:])
    full = half[: s + 1] + [2] + half[s + 1:]
    parts = []
    for k in (0, 1):
        lo = [0] * len(full)
        lo[s + 1] = k
        hi = list(full)
        hi[s + 1] = k + 1
        parts.append(e.reshape(e.slice(v, lo, hi), half))
    return parts[0], parts[1]


def _combine(e: Emitter, z0: V, z1: V, shape: list[int]) -> V:
    """Interleave two half-shape values along the split dimension (``z0`` first), cut to ``shape``."""
    if not shape:
        return e.reshape(z0, [])
    s = split_dimension(shape)
    half = z0.shape
    unit = half[: s + 1] + [1] + half[s + 1:]
    both = e.concatenate([e.reshape(z0, unit), e.reshape(z1, unit)], s + 1)
    rounded = shape[:s] + [2 * half[s]] + shape[s + 1:]
    out = e.reshape(both, rounded)
    return e.slice(out, [0] * len(shape), shape) if rounded[s] != shape[s] else out


def build_rng(e: Emitter, a: V, b: V, shape: list[int], distribution: str, key: int) -> V:
    """The expansion of ``rng(a, b)`` of static ``shape`` (see the module docstring); ``a``, ``b`` are
    0-d values of the result element type. Raises :class:`UnsupportedError` for NORMAL on a non-float
    type, a float type other than f16/bf16/f32/f64 or an integer type of another width."""
    t = a.t
    if t in FLOAT_TYPES:
        w = "f64" if t == "f64" else "f32"
        bt = "ui64" if w == "f64" else "ui32"
        aw, bw = e.convert(a, w), e.convert(b, w)
        if distribution == "UNIFORM":
            u = _uniform01(e, _bits(e, key, shape, bt), w)
            out = u * _splat(e, bw - aw, shape) + _splat(e, aw, shape)
        else:
            pair = [2] if not shape else list(shape)
            if shape:
                s = split_dimension(shape)
                pair[s] = 2 * ((shape[s] + 1) // 2)
            u = _uniform01(e, _bits(e, key, pair, bt), w)
            x0, x1 = _pairs(e, u, shape)
            u1 = e.maximum(x0, float(np.float32(1.0e-7)))
            v1 = x1 * (2.0 * math.pi)
            r = e.sqrt(e.log(u1) * -2.0)
            z = _combine(e, e.sine(v1) * r, e.cosine(v1) * r, shape)
            out = _splat(e, aw, shape) + _splat(e, bw, shape) * z
        return e.convert(out, t)
    if distribution != "UNIFORM":
        raise UnsupportedError(f"rng NORMAL needs a floating-point element type (f16, bf16, f32, f64), got '{t}'")
    if t not in _WORK_INT:
        raise UnsupportedError(f"rng UNIFORM on element type '{t}' (supported: integers of 1 to 64 bits, "
                               "f16, bf16, f32, f64)")
    w, ut = _WORK_INT[t], _UNSIGNED[t]
    bits = _bits(e, key, shape, ut)
    aw, bw = e.convert(a, w), e.convert(b, w)
    ua = e.bitcast_convert(aw, ut) if w != ut else aw
    span = bw - aw
    span = e.bitcast_convert(span, ut) if w != ut else span
    span = _splat(e, span, shape)
    zero = span.eq(0)
    dist = e.select(zero, bits, e.remainder(bits, e.select(zero, 1, span)))
    half = e.shift_right_logical(dist, e.const(1, dist))
    out = _splat(e, ua, shape) + half + (dist - half)
    out = e.bitcast_convert(out, w) if w != ut else out
    return e.convert(out, t)


@register_pass
class StablehloExpandRng(TemplatePass):
    """Expand every ``stablehlo.rng`` into ``rng_bit_generator`` (PHILOX) and arithmetic as XLA CPU does
    (see the module docstring for the keys, the counter and what XLA leaves undefined). Anchor
    ``builtin.module`` (the key depends on the op's position in the module). Raises a located
    :class:`~hlokit.diagnostics.PassError`, before changing anything, for a dynamic result shape or an
    element type the distribution does not take."""

    argument = "stablehlo-expand-rng"
    summary = "Expand stablehlo.rng (UNIFORM, NORMAL) into rng_bit_generator and arithmetic, as XLA CPU does"
    anchor = "builtin.module"
    illegal_ops = frozenset({"stablehlo.rng"})
    positional = True  # the key of an rng op is drawn for its position in the module
    static_shapes = True

    def attributes(self, op) -> tuple:
        """``(rng_distribution,)``."""
        return (attributes.enum_value(op, "rng_distribution"),)

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> V:
        (distribution,) = info.attrs
        return build_rng(e, operands[0], operands[1], info.result_shapes[0], distribution, rng_key(info.index))
