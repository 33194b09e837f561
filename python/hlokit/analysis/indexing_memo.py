"""Memo tables of the indexing analysis (https://openxla.org/xla/indexing; XLA's C++ analysis interns
its affine expressions in the MLIR context, which makes equal expressions one object: the same idea,
applied here to whole maps and to per-op maps).

* :data:`SIMPLIFY_MEMO`: ``IndexingMap.simplify`` results by the exact content of the input map, for
  maps without rt vars (plain integers: nothing tied to an MLIR context). Maps are immutable, so a
  result is shared. Emptied when it reaches :data:`MEMO_LIMIT` entries.
* :class:`Walk`: the state of one fusion walk of :mod:`hlokit.analysis.indexing_ops` (the IR does not
  change during it): compositions by pair of maps, per-op maps by op signature, callees' maps.
"""

from __future__ import annotations

import threading

__all__ = ["MemoKey", "SIMPLIFY_MEMO", "MEMO_LIMIT", "Walk", "current_walk", "walk_scope"]


class MemoKey:
    """A tuple key whose hash is computed once (map keys are nested tuples, rehashed on every lookup)."""

    __slots__ = ("key", "_hash")

    def __init__(self, key: tuple):
        self.key = key
        self._hash = hash(key)

    def __eq__(self, other):
        return self is other or (self._hash == other._hash and self.key == other.key)

    def __hash__(self):
        return self._hash


#: ``IndexingMap.simplify`` results by ``IndexingMap.exact_key()`` (maps without rt vars only).
SIMPLIFY_MEMO: dict = {}
#: :data:`SIMPLIFY_MEMO` is emptied when it reaches this many entries (bounded memory on long runs).
MEMO_LIMIT = 1 << 16


class Walk:
    """State of one fusion walk: ``composed`` maps ``(consumer key, producer key)`` to the simplified
    composition, or None when known-empty (a body of repeated blocks composes the same pairs again and
    again); ``rules`` maps an op signature to its per-op maps; ``calls`` a callee and index to its maps."""

    __slots__ = ("composed", "rules", "calls")

    def __init__(self):
        self.composed: dict = {}
        self.rules: dict = {}
        self.calls: dict = {}


class _Stack(threading.local):
    def __init__(self):
        self.walks: list[Walk] = []


_STACK = _Stack()


def current_walk() -> Walk | None:
    """The fusion walk in progress in this thread (None outside one)."""
    walks = _STACK.walks
    return walks[-1] if walks else None


class walk_scope:
    """Enter the current fusion walk, or start one (ended with the outermost call; a ``func.call``
    walks its callee inside its caller's walk)."""

    def __enter__(self) -> Walk:
        walks = _STACK.walks
        self.own = not walks
        if self.own:
            walks.append(Walk())
        return walks[-1]

    def __exit__(self, *exc):
        if self.own:
            _STACK.walks.pop()
