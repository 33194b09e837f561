"""``--stablehlo-expand-rng-bit-generator``: ``stablehlo.rng_bit_generator`` -> integer StableHLO ops.

The StableHLO spec (https://openxla.org/stablehlo/spec, ``rng_bit_generator``) leaves the bits
implementation-defined; this pass writes out the bits XLA CPU produces, so the expanded program gives the
same output and the same returned state as the op on XLA CPU, bit for bit. It follows XLA's
``RngBitGeneratorExpander`` (``xla/service/rng_bit_generator_expander.cc``) over the generators of
``xla/hlo/builder/lib/prng.cc``; the ciphers are Threefry-2x32 (20 rounds) and Philox-4x32 (10 rounds) of
Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC 2011). ``docs/rng.md``
tabulates the layout:

* ``THREE_FRY``: state ``ui64[2]`` = (key, 64-bit counter). Block ``i`` enciphers counter ``c + i`` (low
  word first) with the key split into (low, high) 32-bit words. 64-bit elements take one block each
  (``word0 | word1 << 32``); narrower elements take 32-bit words, the two words of a block going to two
  neighbours along the *split* dimension (the first even dimension, a 0 counting as even, else the first
  largest; a 0-d result uses one block). New state: ``(key, c + blocks)``.
* ``PHILOX``: state ``ui64[2]`` = (key, counter low; the counter's high word is the key again) or
  ``ui64[3]`` = (key, counter low, counter high). Block ``i`` enciphers the 128-bit counter ``c + i``;
  32-bit and narrower elements take four consecutive words per block, 64-bit elements two per block
  (``w0 | w1 << 32``, ``w2 | w3 << 32``). New state: the low word advanced by the number of blocks (the
  carry into the high word kept only with the ``ui64[3]`` state).
* ``DEFAULT`` is ``PHILOX``, the algorithm XLA CPU picks.

Elements narrower than 32 bits take the low bits of each 32-bit word (``convert`` truncates); signed and
floating-point element types get the unsigned bits reinterpreted (``bitcast_convert``). Every integer and
floating-point element type of 2, 4, 8, 16, 32 or 64 bits is accepted.

Each op signature (algorithm, state type, result type) is built once per context as a template function on
:mod:`hlokit.passes.builder` and cloned in place of each op
(:class:`~hlokit.passes.template_pass.TemplatePass`). Every op is checked before the first rewrite:
a dynamic result shape, an unknown state size or an element type of another width is a located
:class:`~hlokit.diagnostics.PassError` and the module is left unchanged.
"""

from __future__ import annotations

import math

from hlokit import attributes
from hlokit.dtypes import ELEMENT_TYPES, element_types
from hlokit.passes.builder import Emitter, UnsupportedError, V
from hlokit.passes.registry import register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = [
    "StablehloExpandRngBitGenerator",
    "build_rng_bit_generator",
    "threefry2x32",
    "philox4x32",
    "split_dimension",
    "ELEMENT_WIDTHS",
]

#: Element type (MLIR spelling) -> bit width, for the integer and float types of ``rng_bit_generator``.
ELEMENT_WIDTHS = {t: ELEMENT_TYPES[t].bits
                  for t in element_types("signed", "unsigned", "float", min_bits=2, signless=True)}

# Threefry-2x32 rotation constants and key-schedule parity (Random123, Table 4 / Section 3.2).
_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_THREEFRY_PARITY = 0x1BD11BDA
# Philox-4x32 multipliers and Weyl key increments (Random123, Section 3.3).
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_M32 = 0xFFFFFFFF


def split_dimension(shape) -> int:
    """The dimension XLA's ``prng.cc`` halves for 32-bit Threefry bits (and Box-Muller pairs): the first
    even dimension (a 0 counts as even), else the first largest. ``shape`` must have rank >= 1."""
    for i, d in enumerate(shape):
        if d % 2 == 0:
            return i
    return max(range(len(shape)), key=lambda i: (shape[i], -i))


def _rotl(e: Emitter, x: V, r: int) -> V:
    return e.or_(e.shift_left(x, e.const(r, x)), e.shift_right_logical(x, e.const(32 - r, x)))


def threefry2x32(e: Emitter, x0: V, x1: V, k0: V, k1: V) -> tuple[V, V]:
    """Threefry-2x32, 20 rounds (Random123; XLA ``prng.cc`` ``ThreeFry2x32``) on ``ui32`` counter words
    ``x0``, ``x1`` with key words ``k0``, ``k1`` (``ui32`` values of the same shape). Returns two ``ui32``
    values of that shape."""
    ks = (k0, k1, e.xor(e.xor(k0, k1), e.const(_THREEFRY_PARITY, k0)))
    a = x0 + ks[0]
    b = x1 + ks[1]
    for block in range(5):
        for r in _THREEFRY_ROTATIONS[block % 2]:
            a = a + b
            b = e.xor(_rotl(e, b, r), a)
        a = a + ks[(block + 1) % 3]
        b = b + ks[(block + 2) % 3] + (block + 1)
    return a, b


def _mul_hi_lo(e: Emitter, x: V, m: int) -> tuple[V, V]:
    """The high and low ``ui32`` words of the 64-bit product ``x * m`` (``x`` ``ui32``)."""
    p = e.convert(x, "ui64") * m
    return e.convert(e.shift_right_logical(p, e.const(32, p)), "ui32"), e.convert(p, "ui32")


def philox4x32(e: Emitter, c: list[V], k0: V, k1: V) -> list[V]:
    """Philox-4x32, 10 rounds (Random123; XLA ``prng.cc`` ``Philox4x32``) on four ``ui32`` counter words
    (least significant first) with key words ``k0``, ``k1``. Returns four ``ui32`` values."""
    x0, x1, x2, x3 = c
    for i in range(10):
        ka = k0 if i == 0 else k0 + ((i * _PHILOX_W[0]) & _M32)
        kb = k1 if i == 0 else k1 + ((i * _PHILOX_W[1]) & _M32)
        hi0, lo0 = _mul_hi_lo(e, x0, _PHILOX_M[0])
        hi1, lo1 = _mul_hi_lo(e, x2, _PHILOX_M[1])
        x0, x1, x2, x3 = e.xor(e.xor(hi1, x1), ka), lo1, e.xor(e.xor(hi0, x3), kb), lo0
    return [x0, x1, x2, x3]


def _element(e: Emitter, state: V, i: int) -> V:
    """``state[i]`` as a 0-d value."""
    return e.reshape(e.slice(state, [i], [i + 1]), [])


def _words(e: Emitter, x: V) -> tuple[V, V]:
    """The (low, high) ``ui32`` words of a ``ui64`` value."""
    return e.convert(x, "ui32"), e.convert(e.shift_right_logical(x, e.const(32, x)), "ui32")


def _join(e: Emitter, lo: V, hi: V) -> V:
    """``lo | hi << 32`` as ``ui64``."""
    h = e.convert(hi, "ui64")
    return e.or_(e.convert(lo, "ui64"), e.shift_left(h, e.const(32, h)))


def _interleave(e: Emitter, parts: list[V], n: int) -> V:
    """``[n]`` values ``parts`` interleaved into ``[n * len(parts)]`` (element ``j`` of part ``k`` at
    ``j * len(parts) + k``)."""
    k = len(parts)
    cols = [e.reshape(p, [n, 1]) for p in parts]
    return e.reshape(e.concatenate(cols, 1), [n * k])


def _threefry_layout(e: Emitter, y0: V, y1: V, shape: list[int]) -> V:
    """32-bit Threefry words ``y0``, ``y1`` (each ``[prod(half shape)]``) laid out in ``shape``: word 0 of
    block ``h`` goes to index ``2h``, word 1 to ``2h + 1`` of the split dimension (odd tail dropped)."""
    if not shape:
        return e.reshape(y0, [])
    s = split_dimension(shape)
    half = shape[:s] + [(shape[s] + 1) // 2] + shape[s + 1:]
    unit = half[: s + 1] + [1] + half[s + 1:]
    both = e.concatenate([e.reshape(y0, unit), e.reshape(y1, unit)], s + 1)
    rounded = shape[:s] + [2 * half[s]] + shape[s + 1:]
    out = e.reshape(both, rounded)
    if rounded[s] != shape[s]:
        out = e.slice(out, [0] * len(shape), shape)
    return out


def _to_element(e: Emitter, bits: V, t: str) -> V:
    """Raw generator bits (``ui32``, or ``ui64`` for 64-bit types) as element type ``t``: the low
    ``width(t)`` bits, reinterpreted."""
    width = ELEMENT_WIDTHS[t]
    unsigned = f"ui{width}"
    if bits.t != unsigned:
        bits = e.convert(bits, unsigned)
    return bits if t == unsigned else e.bitcast_convert(bits, t)


def build_rng_bit_generator(e: Emitter, algorithm: str, state: V, shape: list[int], t: str) -> tuple[V, V]:
    """The expansion of ``rng_bit_generator`` (see the module docstring): ``(new state, output)`` for a
    ``ui64[2]`` / ``ui64[3]`` ``state``, a static ``shape`` and element type ``t`` (a key of
    :data:`ELEMENT_WIDTHS`). ``algorithm``: ``DEFAULT``, ``THREE_FRY`` or ``PHILOX``. Raises
    :class:`UnsupportedError` for an unknown algorithm, a state of the wrong size or element type."""
    if t not in ELEMENT_WIDTHS or ELEMENT_WIDTHS[t] == 6:
        raise UnsupportedError(f"rng_bit_generator of element type '{t}' (supported: integer and float "
                               "types of 2, 4, 8, 16, 32 or 64 bits)")
    alg = "PHILOX" if algorithm == "DEFAULT" else algorithm
    size = state.shape[0]
    if alg == "THREE_FRY" and size != 2:
        raise UnsupportedError(f"THREE_FRY takes a tensor<2xui64> state, got {size} elements")
    if alg == "PHILOX" and size not in (2, 3):
        raise UnsupportedError(f"PHILOX takes a tensor<2xui64> or tensor<3xui64> state, got {size} elements")
    if alg not in ("THREE_FRY", "PHILOX"):
        raise UnsupportedError(f"unknown rng algorithm '{algorithm}'")
    wide = ELEMENT_WIDTHS[t] == 64
    num = math.prod(shape)
    if num == 0:
        return state, e.const(0, t=t, shape=shape)
    key = _element(e, state, 0)
    k0, k1 = _words(e, key)
    if alg == "THREE_FRY":
        if wide or not shape:
            blocks = num
        else:
            s = split_dimension(shape)
            blocks = num // shape[s] * ((shape[s] + 1) // 2)
        counter = _element(e, state, 1)
        ctr = e.iota([blocks], 0, "ui64") + e.broadcast_in_dim(counter, [blocks], [])
        x0, x1 = _words(e, ctr)
        kb0, kb1 = (e.broadcast_in_dim(k, [blocks], []) for k in (k0, k1))
        y0, y1 = threefry2x32(e, x0, x1, kb0, kb1)
        if wide:
            bits = e.reshape(_join(e, y0, y1), shape)
        else:
            bits = _threefry_layout(e, y0, y1, shape)
        new_state = e.concatenate([e.slice(state, [0], [1]), e.reshape(counter + blocks, [1])], 0)
        return new_state, _to_element(e, bits, t)
    per_block = 2 if wide else 4
    blocks = -(-num // per_block)
    low = _element(e, state, 1)
    high = key if size == 2 else _element(e, state, 2)
    lows = e.iota([blocks], 0, "ui64") + e.broadcast_in_dim(low, [blocks], [])
    carry = e.compare("LT", lows, e.broadcast_in_dim(low, [blocks], []), "UNSIGNED")
    highs = e.broadcast_in_dim(high, [blocks], [])
    highs = e.select(carry, highs + 1, highs)
    c0, c1 = _words(e, lows)
    c2, c3 = _words(e, highs)
    kb0, kb1 = (e.broadcast_in_dim(k, [blocks], []) for k in (k0, k1))
    w = philox4x32(e, [c0, c1, c2, c3], kb0, kb1)
    if wide:
        flat = _interleave(e, [_join(e, w[0], w[1]), _join(e, w[2], w[3])], blocks)
    else:
        flat = _interleave(e, w, blocks)
    if blocks * per_block != num:
        flat = e.slice(flat, [0], [num])
    bits = e.reshape(flat, shape)
    new_low = low + blocks
    pieces = [e.slice(state, [0], [1]), e.reshape(new_low, [1])]
    if size == 3:
        new_high = e.select(e.compare("LT", new_low, low, "UNSIGNED"), high + 1, high)
        pieces.append(e.reshape(new_high, [1]))
    return e.concatenate(pieces, 0), _to_element(e, bits, t)


@register_pass
class StablehloExpandRngBitGenerator(TemplatePass):
    """Expand every ``stablehlo.rng_bit_generator`` into integer ops, bit-exact with XLA CPU (see the
    module docstring). Anchor ``func.func`` (ops in nested regions included). Raises a located
    :class:`~hlokit.diagnostics.PassError`, before changing anything, for a dynamic shape, a state of the
    wrong size or an element type of an unsupported width."""

    argument = "stablehlo-expand-rng-bit-generator"
    summary = "Expand stablehlo.rng_bit_generator (THREE_FRY, PHILOX, DEFAULT) into integer ops, bit-exact with XLA CPU"
    anchor = "func.func"
    illegal_ops = frozenset({"stablehlo.rng_bit_generator"})

    def attributes(self, op) -> tuple:
        """``(rng_algorithm,)``."""
        return (attributes.enum_value(op, "rng_algorithm"),)

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> list[V]:
        (algorithm,) = info.attrs
        return list(build_rng_bit_generator(e, algorithm, operands[0], info.result_shapes[1], info.result_elems[1]))
