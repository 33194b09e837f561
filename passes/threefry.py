"""The Threefry-2x32 block cipher as JAX's GPU custom calls ask for it (``cu_threefry2x32_ffi``,
``hip_threefry2x32_ffi`` and the older ``cu_threefry2x32`` / ``hip_threefry2x32``).

JAX's ``threefry2x32`` primitive (``jax/_src/random/threefry2x32.py``; ``jax/_src/prng.py`` in older JAX)
enciphers counter words with a key, element by element: its generic lowering ``_threefry2x32_lowering``
writes the cipher out in StableHLO, while on cuda / rocm with ``jax_threefry_gpu_kernel_lowering`` on,
``_threefry2x32_gpu_lowering_rule`` broadcasts the four ``ui32`` operands (key word 0, key word 1, data
word 0, data word 1) to the result shape, aligned on their trailing dimensions, and calls jaxlib's GPU
kernel, which gives two ``ui32`` results of that shape. The cipher is Threefry-2x32 with 20 rounds
(Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011, Section 3.2:
rotation constants 13 15 26 6 / 17 29 16 24, key-schedule parity ``0x1BD11BDA``, a key injection after
every 4 rounds). :func:`build_threefry2x32` writes it with the typed :class:`~hlokit.passes.builder.Emitter`,
so the expansion gives the GPU kernel's bits, which are those of JAX's CPU lowering.
"""

from __future__ import annotations

import math

from jaxlib.mlir import ir

from hlokit.passes.builder import Emitter, UnsupportedError, V
from hlokit.passes.stablehlo_expand_rng_bit_generator import threefry2x32

__all__ = ["build_threefry2x32", "decode_legacy_threefry", "THREEFRY_TYPE"]

#: The element type of every operand and result of the cipher.
THREEFRY_TYPE = "ui32"


def _broadcast_shape(shapes: list[list[int]]) -> list[int]:
    """The shape the operands broadcast to, aligned on trailing dimensions (numpy's rule, as JAX's
    ``broadcasting_shape_rule``); raises UnsupportedError for shapes that do not broadcast."""
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0} - {1}
        if len(dims) > 1:
            raise UnsupportedError(f"threefry2x32 operand shapes {shapes} do not broadcast together")
        out.append(dims.pop() if dims else 1)
    return out


def build_threefry2x32(e: Emitter, key0: V, key1: V, x0: V, x1: V) -> list[V]:
    """Threefry-2x32 (20 rounds) of data words ``x0``, ``x1`` under key words ``key0``, ``key1``.

    Operands: ``ui32`` tensors of static shapes that broadcast together (trailing-aligned, as JAX's
    ``_threefry2x32_gpu_lowering_rule`` broadcasts them before the GPU call; the call itself has four
    operands of the result shape). Returns ``[out0, out1]``, two ``ui32`` tensors of the broadcast shape,
    bit for bit the words of JAX's ``_threefry2x32_lowering`` (Salmon et al., SC 2011, Section 3.2).
    Raises :class:`UnsupportedError` for another element type, a dynamic dimension or shapes that do not
    broadcast.
    """
    operands = [key0, key1, x0, x1]
    for v in operands:
        if v.t != THREEFRY_TYPE:
            raise UnsupportedError(f"threefry2x32 takes '{THREEFRY_TYPE}' operands, not '{v.t}'")
        if v.shape_independent or any(d < 0 for d in v.shape):
            raise UnsupportedError("threefry2x32 needs operands of static shape")
    shape = _broadcast_shape([v.shape for v in operands])
    rank = len(shape)
    full = []
    for v in operands:
        if v.shape != shape:
            v = e.broadcast_in_dim(v, shape, list(range(rank - len(v.shape), rank)))
        full.append(v)
    k0, k1, d0, d1 = full
    out0, out1 = threefry2x32(e, d0, d1, k0, k1)
    return [out0, out1]


def decode_legacy_threefry(descriptor: bytes, op: ir.Operation) -> dict:
    """The configuration of a legacy ``cu_threefry2x32`` / ``hip_threefry2x32`` call (``api_version`` 2,
    before jaxlib's FFI kernels): its ``backend_config`` is the opaque ``ThreeFry2x32Descriptor`` jaxlib
    packed (``jaxlib/gpu/prng.cc``, ``BuildThreeFry2x32Descriptor``): one little-endian ``int64``, the
    element count ``n`` of each operand (``-1`` when a fifth operand carries it, for dynamic shapes). The
    operands are the same four arrays as the FFI call's, so the cipher needs nothing from it: returns ``{}``.
    Raises ValueError when the descriptor is not 8 bytes or ``n`` is not the static result's element count.
    """
    if len(descriptor) != 8:
        raise ValueError(f"expected an 8-byte ThreeFry2x32Descriptor as 'backend_config', got {len(descriptor)} "
                         "bytes")
    n = int.from_bytes(descriptor, "little", signed=True)
    ty = op.results[0].type if len(op.results) else None
    if isinstance(ty, ir.RankedTensorType) and ir.RankedTensorType(ty).has_static_shape:
        count = math.prod(ir.RankedTensorType(ty).shape)
        if n not in (count, -1):
            raise ValueError(f"the descriptor's element count {n} is not the result's {count}")
    return {}
