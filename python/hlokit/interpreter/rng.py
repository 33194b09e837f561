"""Random-number ops of the reference interpreter: ``stablehlo.rng_bit_generator`` and ``stablehlo.rng``.

The StableHLO spec (https://openxla.org/stablehlo/spec, ``rng_bit_generator`` and ``rng``) leaves the bits
implementation-defined. hlokit defines them as XLA CPU produces them, so that a program gives the same
numbers on the interpreter and on XLA:

* ``rng_bit_generator`` follows XLA's ``RngBitGeneratorExpander``
  (``xla/service/rng_bit_generator_expander.cc``) over the bit generators of
  ``xla/hlo/builder/lib/prng.cc``: Threefry-2x32 with 20 rounds and Philox-4x32 with 10 rounds
  (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011). ``DEFAULT`` is ``PHILOX``,
  the algorithm XLA CPU picks. Outputs and the returned state are bit-exact with XLA CPU for every
  element type the op accepts (see :func:`rng_bit_generator`).
* ``rng`` follows XLA's ``RngExpander`` (``xla/service/rng_expander.cc``): Philox bits from a key and a
  128-bit counter, turned into numbers by ``UniformFloatingPointDistribution``,
  ``UniformIntDistribution`` and ``NormalFloatingPointDistribution`` (Box-Muller) of ``prng.cc``.
  The op has no state operand: XLA keeps one 128-bit counter per ``rng`` op and per compiled
  executable, starting at ``0x7012395`` (``xla/backends/cpu/runtime/rng_state_thunk.cc``) and
  advanced at each execution by the number of 32-bit words of the result. Its key is the XOR of two
  ``std::mt19937_64`` draws, one from a per-process stream and one from a per-module stream
  (``RngExpander::ExpandInstruction``), so it depends on what the process compiled before. hlokit
  takes the keys XLA CPU (jaxlib 0.10.2) gives a module compiled first in a fresh process — the
  ``i``-th ``rng`` op of the module (in module order) gets ``mt19937_64(42)[i] ^ mt19937_64(8)[i]``
  (42 and 8 are the values observed in that jaxlib's HLO dumps after ``rng-expander``; see :func:`rng_key`) —
  and keeps the counter with the op's compiled step (:class:`RngCounter`): a fresh interpretation
  gives what that program gives on its first execution in a fresh XLA process. With those keys,
  UNIFORM is bit-exact with XLA CPU for f16/bf16/f32/f64 and si32/ui32/si64/ui64; NORMAL uses
  ``log``/``sin``/``cos``/``sqrt``, whose last bit XLA's own approximations decide: hlokit rounds each
  step correctly to the element type and agrees with XLA CPU to a few ULP. Integer types narrower
  than 32 bits (XLA CPU aborts on them) are computed at 32 bits of the same signedness and narrowed
  (exact: the result lies in ``[a, b)``).

Everything is vectorised numpy over ``uint32`` / ``uint64`` arrays (wrapping arithmetic), no
per-element Python loop.
"""

from __future__ import annotations

import math
import threading
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.xla_rng_state import RNG_INITIAL_COUNTER, mt19937_64, rng_key
from hlokit import attributes
from hlokit.interpreter.registry import OpImpl, prepared, register
from hlokit.interpreter.values import bit_width, dtype_of, is_float, is_integer, is_unsigned

__all__ = [
    "threefry2x32",
    "philox4x32",
    "rng_bit_generator",
    "rng",
    "RngCounter",
    "rng_key",
    "mt19937_64",
    "RNG_INITIAL_COUNTER",
    "ALGORITHMS",
    "DISTRIBUTIONS",
]

#: The algorithms of ``rng_bit_generator`` (``DEFAULT`` is ``PHILOX`` on XLA CPU).
ALGORITHMS = ("DEFAULT", "THREE_FRY", "PHILOX")
#: The distributions of ``rng``.
DISTRIBUTIONS = ("UNIFORM", "NORMAL")

_U32 = np.uint32
_U64 = np.uint64
_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1

# ------------------------------------------------------------------------------------------------
# the block ciphers

_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_THREEFRY_PARITY = 0x1BD11BDA


def threefry2x32(x0: np.ndarray, x1: np.ndarray, key: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 with 20 rounds (as ``ThreeFry2x32`` of XLA's ``prng.cc``) on counter words.

    ``x0``, ``x1``: ``uint32`` arrays of one shape (low and high word of each counter); ``key``: two
    32-bit ints (low, high). Returns two new ``uint32`` arrays of the same shape.
    """
    k0, k1 = key[0] & _M32, key[1] & _M32
    ks = (_U32(k0), _U32(k1), _U32(_THREEFRY_PARITY ^ k0 ^ k1))
    a = x0 + ks[0]
    b = x1 + ks[1]
    t = np.empty_like(b)
    for block in range(5):
        for r in _THREEFRY_ROTATIONS[block % 2]:
            a += b
            np.left_shift(b, _U32(r), out=t)
            b >>= _U32(32 - r)
            b |= t
            b ^= a
        a += ks[(block + 1) % 3]
        b += ks[(block + 2) % 3]
        b += _U32(block + 1)
    return a, b


_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_PHILOX_M = (_U64(0xD2511F53), _U64(0xCD9E8D57))


def philox4x32(c: Sequence[np.ndarray], key: tuple[int, int]) -> list[np.ndarray]:
    """Philox-4x32 with 10 rounds (as ``Philox4x32`` of XLA's ``prng.cc``) on counter words.

    ``c``: four ``uint32`` arrays of one shape (the 128-bit counter, least significant word first);
    ``key``: two 32-bit ints. Returns four new ``uint32`` arrays.
    """
    x0, x1, x2, x3 = (np.asarray(w, dtype=_U32) for w in c)
    k0, k1 = key[0] & _M32, key[1] & _M32
    for _ in range(10):
        p0 = x0.astype(_U64) * _PHILOX_M[0]
        p1 = x2.astype(_U64) * _PHILOX_M[1]
        x0 = (p1 >> _U64(32)).astype(_U32) ^ x1 ^ _U32(k0)
        x1 = p1.astype(_U32)
        x2 = (p0 >> _U64(32)).astype(_U32) ^ x3 ^ _U32(k1)
        x3 = p0.astype(_U32)
        k0 = (k0 + _PHILOX_W[0]) & _M32
        k1 = (k1 + _PHILOX_W[1]) & _M32
    return [x0, x1, x2, x3]


# ------------------------------------------------------------------------------------------------
# bit layouts (XLA prng.cc: ThreeFryRngBit32/64, PhiloxRngBit32/64, SplitShapeIntoHalves)


def _split_dim(shape: tuple[int, ...]) -> int:
    """The dimension XLA halves for 32-bit Threefry and Box-Muller: the first even one (0 counts),
    else the first largest one."""
    for i, d in enumerate(shape):
        if d % 2 == 0:
            return i
    return max(range(len(shape)), key=lambda i: (shape[i], -i))


def _half_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    if not shape:
        return (1,)
    s = _split_dim(shape)
    return shape[:s] + ((shape[s] + 1) // 2,) + shape[s + 1:]


def _combine(y0: np.ndarray, y1: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Interleave two half-shape arrays along the split dimension (``y0`` first) and cut to ``shape``."""
    if not shape:
        return y0.reshape(())
    s = _split_dim(shape)
    both = np.stack([y0, y1], axis=s + 1)
    rounded = shape[:s] + (2 * y0.shape[s],) + shape[s + 1:]
    out = both.reshape(rounded)
    if rounded[s] != shape[s]:
        out = out[(slice(None),) * s + (slice(0, shape[s]),)]
    return out


def _pair_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape :func:`_pairs` takes apart: the split dimension rounded up to even (``(2,)`` for 0-d)."""
    if not shape:
        return (2,)
    s = _split_dim(shape)
    return shape[:s] + (2 * ((shape[s] + 1) // 2),) + shape[s + 1:]


def _pairs(values: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Inverse layout of :func:`_combine` on the full "concat" shape: the two members of each pair."""
    if not shape:
        return values.reshape(2)[0:1], values.reshape(2)[1:2]
    s = _split_dim(shape)
    half = _half_shape(shape)
    v = values.reshape(half[: s + 1] + (2,) + half[s + 1:])
    return v[(slice(None),) * (s + 1) + (0,)], v[(slice(None),) * (s + 1) + (1,)]


def _counters64(start: int, n: int) -> np.ndarray:
    """``start + [0, n)`` as wrapping ``uint64``."""
    return np.arange(n, dtype=_U64) + _U64(start & _M64)


def _lo_hi(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return x.astype(_U32), (x >> _U64(32)).astype(_U32)


def _threefry_bits(key: int, counter: int, shape: tuple[int, ...], width: int) -> tuple[np.ndarray, int]:
    """Threefry bits (``uint32`` for width <= 32, else ``uint64``) of ``shape`` and the new counter."""
    k = (key & _M32, (key >> 32) & _M32)
    if width == 64:
        n = math.prod(shape)
        y0, y1 = threefry2x32(*_lo_hi(_counters64(counter, n)), k)
        out = y0.astype(_U64) | (y1.astype(_U64) << _U64(32))
        return out.reshape(shape), (counter + n) & _M64
    half = _half_shape(shape)
    n = math.prod(half)
    y0, y1 = threefry2x32(*_lo_hi(_counters64(counter, n)), k)
    return _combine(y0.reshape(half), y1.reshape(half), shape), (counter + n) & _M64


def _philox_words(key: int, low: int, high: int, n: int) -> tuple[list[np.ndarray], int, int]:
    """Philox outputs for the ``n`` 128-bit counters ``(high:low) + [0, n)`` and the advanced counter."""
    lows = _counters64(low, n)
    highs = np.full(n, high & _M64, dtype=_U64)
    highs[lows < _U64(low & _M64)] += _U64(1)
    c0, c1 = _lo_hi(lows)
    c2, c3 = _lo_hi(highs)
    words = philox4x32((c0, c1, c2, c3), (key & _M32, (key >> 32) & _M32))
    new_low = low + n
    new_high = high + (new_low >> 64)
    return words, new_low & _M64, new_high & _M64


def _philox_bits(key: int, low: int, high: int, shape: tuple[int, ...], width: int) -> tuple[np.ndarray, int, int]:
    """Philox bits (``uint32`` for width <= 32, else ``uint64``) of ``shape`` and the new counter."""
    num = math.prod(shape)
    if width == 64:
        n = (num + 1) // 2
        w, new_low, new_high = _philox_words(key, low, high, n)
        a = w[0].astype(_U64) | (w[1].astype(_U64) << _U64(32))
        b = w[2].astype(_U64) | (w[3].astype(_U64) << _U64(32))
        out = np.stack([a, b], axis=1).reshape(-1)[:num]
    else:
        n = (num + 3) // 4
        w, new_low, new_high = _philox_words(key, low, high, n)
        out = np.stack(w, axis=1).reshape(-1)[:num]
    return out.reshape(shape), new_low, new_high


def _as_type(bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Raw generator bits (``uint32`` / ``uint64``) as ``dtype``: the low ``bit_width(dtype)`` bits,
    reinterpreted (XLA narrows by an integer conversion and returns the bits of the element type)."""
    width = bit_width(dtype)
    if width == 64:
        return bits.astype(_U64).view(dtype)
    if width in (32, 16):
        return bits.astype(np.dtype(f"uint{width}")).view(dtype)
    low = (bits & _U32((1 << width) - 1)).astype(np.uint8)
    if width == 8:
        return low.view(dtype)
    if is_integer(dtype):
        if is_unsigned(dtype):
            return low.astype(dtype)
        signed = (low << np.uint8(8 - width)).view(np.int8) >> np.int8(8 - width)
        return signed.astype(dtype)
    return low.view(dtype)  # f4 / f6 stored one per byte


def rng_bit_generator(
    algorithm: str,
    initial_state: np.ndarray,
    shape: Sequence[int],
    dtype,
) -> tuple[np.ndarray, np.ndarray]:
    """Spec ``rng_bit_generator``: ``(output_state, output)`` for ``initial_state`` (1-d ``uint64``).

    ``algorithm``: ``"THREE_FRY"`` (state ``u64[2]``: key, counter), ``"PHILOX"`` (state ``u64[2]``: key,
    counter low word, whose high word is the key again; or ``u64[3]``: key, counter low, counter high),
    ``"DEFAULT"`` (= ``"PHILOX"``, as XLA CPU). ``dtype``: any integer or floating-point element type
    of 2 to 64 bits; the result holds the generator's bits reinterpreted as that type. Layouts (XLA
    ``prng.cc``): 64-bit types take one Threefry block (low word first) per element, or two Philox
    words per element, two elements per Philox block; narrower types take the low bits of 32-bit
    words: Philox gives four consecutive elements per block, Threefry gives the two words of a block
    to two neighbours along the "split" dimension (the first even one, else the first largest).

    Raises ``ValueError`` for an unknown algorithm or a state of the wrong size.
    """
    state = np.asarray(initial_state).astype(_U64).reshape(-1)
    shape = tuple(int(d) for d in shape)
    dtype = np.dtype(dtype)
    width = 64 if bit_width(dtype) == 64 else 32
    alg = "PHILOX" if algorithm == "DEFAULT" else algorithm
    new_state = state.copy()
    key = int(state[0]) if state.size else 0
    if alg == "THREE_FRY":
        if state.size != 2:
            raise ValueError(f"THREE_FRY takes a u64[2] state, got {state.size} element(s)")
        bits, counter = _threefry_bits(key, int(state[1]), shape, width)
        new_state[1] = counter
    elif alg == "PHILOX":
        if state.size == 2:
            bits, low, _ = _philox_bits(key, int(state[1]), key, shape, width)
            new_state[1] = low
        elif state.size == 3:
            bits, low, high = _philox_bits(key, int(state[1]), int(state[2]), shape, width)
            new_state[1], new_state[2] = low, high
        else:
            raise ValueError(f"PHILOX takes a u64[2] or u64[3] state, got {state.size} element(s)")
    else:
        raise ValueError(f"unknown rng algorithm '{algorithm}' (expected one of {', '.join(ALGORITHMS)})")
    return new_state, _as_type(bits, dtype)


# ------------------------------------------------------------------------------------------------
# rng (XLA rng_expander.cc)


class RngCounter:
    """The 128-bit counter of one ``rng`` op (XLA CPU's ``RngGetAndUpdateState``): starts at
    :data:`RNG_INITIAL_COUNTER`; :meth:`take` returns the current value and advances it by ``delta``.
    Thread-safe (the processes of ``interpreter.run_parallel`` share plans)."""

    def __init__(self, start: int = RNG_INITIAL_COUNTER):
        self.value = start
        self._lock = threading.Lock()

    def take(self, delta: int) -> int:
        with self._lock:
            v = self.value
            self.value = (v + delta) & ((1 << 128) - 1)
            return v


def _fp_round(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.asarray(x).astype(dtype)


def _uniform_float(bits: np.ndarray, a, b, dtype: np.dtype) -> np.ndarray:
    """XLA ``ConvertRandomBitsToUniformFloatingPoint`` for f32 / f64 (mantissa bits times 2^-m)."""
    nbits = bits.dtype.itemsize * 8
    mant = np.finfo(dtype).nmant
    v = (bits >> bits.dtype.type(nbits - mant)).astype(dtype)
    v = v * dtype.type(2.0 ** -mant)
    a = dtype.type(a)
    b = dtype.type(b)
    return v * (b - a) + a


def _uniform_int(bits: np.ndarray, a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """XLA ``ConvertRandomBitsToUniformInt``: ``a + (d >> 1) + (d - (d >> 1))``, ``d = bits mod (b - a)``
    in unsigned arithmetic (a range of 0 leaves the bits as they are, XLA's remainder by zero)."""
    ut = bits.dtype.type
    mask = (1 << (8 * bits.dtype.itemsize)) - 1
    ua = ut(int(a) & mask)
    rng_ = ut((int(b) - int(a)) & mask)
    dist = bits % rng_ if rng_ else bits.copy()
    half = dist >> ut(1)
    out = ua + half + (dist - half)
    return out.view(dtype)


def _box_muller(x0: np.ndarray, x1: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """XLA ``BoxMullerTransform``, each step rounded to ``dtype`` (transcendentals computed in f64)."""
    t = dtype.type
    u1 = np.maximum(x0, t(np.float32(1.0e-7)))
    v1 = t(2.0 * math.pi) * x1
    lg = _fp_round(np.log(u1.astype(np.float64)), dtype)
    u2 = _fp_round(np.sqrt((t(-2.0) * lg).astype(np.float64)), dtype)
    s = _fp_round(np.sin(v1.astype(np.float64)), dtype)
    c = _fp_round(np.cos(v1.astype(np.float64)), dtype)
    return s * u2, c * u2


def rng(
    a: np.ndarray,
    b: np.ndarray,
    shape: Sequence[int],
    distribution: str,
    dtype,
    counter: RngCounter | None = None,
    key: int | None = None,
) -> np.ndarray:
    """Spec ``rng``: a tensor of ``shape`` and element type ``dtype``.

    ``UNIFORM``: values in ``[a, b)`` (integers: ``a + (bits mod (b - a))``, floats: 23 or 52 random
    mantissa bits scaled to ``[a, b)``; f16/bf16 are computed in f32 and rounded, as XLA does).
    ``NORMAL``: Box-Muller normals (f16/bf16/f32/f64) scaled as ``a + b * z`` (``a`` the mean, ``b`` the
    standard deviation). Bits: Philox-4x32 with ``key`` (default :func:`rng_key` ``(0)``) and the 128-bit value taken from ``counter``
    (a fresh :class:`RngCounter` when None), which advances by the number of 32-bit words of the
    result. Raises ``ValueError`` for an unknown distribution or NORMAL on a non-float type.
    """
    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in shape)
    counter = counter if counter is not None else RngCounter()
    key = rng_key(0) if key is None else key
    a = np.asarray(a).reshape(())
    b = np.asarray(b).reshape(())
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"unknown rng distribution '{distribution}' (expected UNIFORM or NORMAL)")
    if is_float(dtype):
        work = np.dtype(np.float64) if bit_width(dtype) == 64 else np.dtype(np.float32)
    elif distribution == "NORMAL":
        raise ValueError(f"rng NORMAL needs a floating-point element type, got {dtype}")
    elif dtype == np.bool_ or not is_unsigned(dtype):
        work = np.dtype(np.int64) if bit_width(dtype) == 64 else np.dtype(np.int32)
    else:
        work = np.dtype(np.uint64) if bit_width(dtype) == 64 else np.dtype(np.uint32)
    if is_float(dtype) and bit_width(dtype) not in (16, 32, 64):
        raise ValueError(f"rng supports f16, bf16, f32 and f64 floats, got {dtype}")
    width = bit_width(work)
    num = math.prod(shape)
    start = counter.take(num * (width // 32))
    low, high = start & _M64, start >> 64
    if distribution == "NORMAL":
        bits, _, _ = _philox_bits(key, low, high, _pair_shape(shape), width)
        u = _uniform_float(bits, 0.0, 1.0, work)
        z0, z1 = _box_muller(*_pairs(u, shape), work)
        z = _combine(z0, z1, shape)
        out = work.type(a.astype(work)) + work.type(b.astype(work)) * z
    else:
        bits, _, _ = _philox_bits(key, low, high, shape, width)
        if is_float(dtype):
            out = _uniform_float(bits, a.astype(work), b.astype(work), work)
        else:
            out = _uniform_int(bits, a.astype(work), b.astype(work), work)
    return np.array(np.asarray(out).astype(dtype), order="C").reshape(shape)


# ------------------------------------------------------------------------------------------------
# adapters


def _result_dtype_shape(op: ir.OpView, index: int) -> tuple[np.dtype, tuple[int, ...]]:
    t = ir.RankedTensorType(op.operation.results[index].type)
    return dtype_of(t.element_type), tuple(t.shape)


def _prepare_rng_bit_generator(op: ir.OpView):
    algorithm = attributes.enum_value(op, "rng_algorithm")
    dtype, shape = _result_dtype_shape(op, 1)

    def run(op, operands, interp):
        return list(rng_bit_generator(algorithm, operands[0], shape, dtype))

    return OpImpl(run)


@register("stablehlo.rng_bit_generator")
@prepared(_prepare_rng_bit_generator)
def _rng_bit_generator(op, operands, interp):
    return _prepare_rng_bit_generator(op).run(op, operands, interp)


def _rng_index(op: ir.OpView) -> int:
    """The position of ``op`` among the ``stablehlo.rng`` ops of its module (pre-order walk)."""
    top = op.operation
    while top.parent is not None:
        top = top.parent
    target = op.operation
    count = 0
    stack = [top]
    while stack:
        cur = stack.pop()
        if cur.name == "stablehlo.rng":
            if cur == target:
                return count
            count += 1
        children = [o for r in cur.regions for b in r.blocks for o in b.operations]
        stack.extend(o.operation for o in reversed(children))
    return 0


def _prepare_rng(op: ir.OpView):
    distribution = attributes.enum_value(op, "rng_distribution")
    dtype, _ = _result_dtype_shape(op, 0)
    counter = RngCounter()
    key = rng_key(_rng_index(op))

    def run(op, operands, interp):
        shape = tuple(int(d) for d in np.asarray(operands[2]).reshape(-1))
        return [rng(operands[0], operands[1], shape, distribution, dtype, counter, key)]

    return OpImpl(run)


@register("stablehlo.rng")
@prepared(_prepare_rng)
def _rng(op, operands, interp):
    return _prepare_rng(op).run(op, operands, interp)
