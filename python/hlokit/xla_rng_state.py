"""The state XLA CPU gives a StableHLO ``rng`` op: its Philox key and its initial counter.

XLA expands ``rng`` (``xla/service/rng_expander.cc``) into Philox-4x32 bits seeded with a 64-bit key and
a 128-bit counter (``rng_state_thunk.cc``). The key of the ``index``-th ``rng`` op of a module that a fresh
process compiles first (jaxlib 0.10.2) is ``mt19937_64(42)[index] ^ mt19937_64(8)[index]``: XLA XORs a
draw of a per-process ``std::mt19937_64`` stream with a draw of a per-module one; the counter starts at
:data:`RNG_INITIAL_COUNTER`. Both the interpreter's ``rng`` and the ``stablehlo-expand-rng`` pass use
these values (see docs/rng.md for what XLA leaves undefined).
"""

from __future__ import annotations

import threading

__all__ = ["RNG_INITIAL_COUNTER", "mt19937_64", "rng_key"]

#: Where XLA CPU's per-executable ``rng`` counter starts (``rng_state_thunk.cc``).
RNG_INITIAL_COUNTER = 0x7012395

_M64 = (1 << 64) - 1


def mt19937_64(seed: int, count: int) -> list[int]:
    """The first ``count`` outputs of C++'s ``std::mt19937_64`` seeded with ``seed`` (Matsumoto and
    Nishimura's 64-bit Mersenne Twister with the parameters of the C++ standard, [rand.predef]), as
    Python ints in [0, 2**64)."""
    n, m = 312, 156
    mt = [seed & _M64]
    for i in range(1, n):
        mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & _M64)
    out: list[int] = []
    while len(out) < count:
        for i in range(n):
            y = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % n] & 0x7FFFFFFF)
            mt[i] = mt[(i + m) % n] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
        for y in mt:
            y ^= (y >> 29) & 0x5555555555555555
            y ^= (y << 17) & 0x71D67FFFEDA60000
            y ^= (y << 37) & 0xFFF7EEE000000000
            y ^= y >> 43
            out.append(y & _M64)
    return out[:count]


_KEYS: list[int] = []
_KEYS_LOCK = threading.Lock()


def rng_key(index: int) -> int:
    """The Philox key XLA CPU (jaxlib 0.10.2) gives the ``index``-th ``rng`` op (module order) of the
    first module a fresh process compiles: ``mt19937_64(42)[index] ^ mt19937_64(8)[index]``.
    Thread-safe (the interpreter's processes share it)."""
    with _KEYS_LOCK:
        if index >= len(_KEYS):
            count = max(2 * len(_KEYS), index + 1, 16)
            _KEYS[:] = [a ^ b for a, b in zip(mt19937_64(42, count), mt19937_64(8, count))]
        return _KEYS[index]
