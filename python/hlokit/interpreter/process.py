"""Processes of the hlokit interpreter: :class:`ProcessGrid` and :class:`Process`.

The StableHLO spec (https://openxla.org/stablehlo/spec, section "Execution", "Parallel execution" and
"Collective ops") runs a program on a process grid of ``num_replicas x num_partitions`` processes; each
process knows its ``replica_id`` and ``partition_id`` (the ops of the same names), collective ops
synchronise the processes of a process group, ``send`` / ``recv`` pass values over channels and
``infeed`` / ``outfeed`` read and write queues of the grid.

Here every process is one Python thread running a forked
:class:`~hlokit.interpreter.evaluator.Interpreter` whose ``process`` attribute is its :class:`Process`
(threads rather than OS processes: values pass between processes without copies or pickling, every
process shares the parsed module and its compiled plans, and numpy releases the GIL in its kernels;
Python dispatch is serialised by the GIL, so small programs cost about the sum of their processes' times:
docs/interpreter.md gives measurements).

* :class:`ProcessGrid` — the grid's size and the state its processes share: the rendezvous of
  collective ops (:meth:`Process.rendezvous`), the channels of ``send`` / ``recv``, the ``infeed``
  queue and the ``outfeed`` list; :meth:`ProcessGrid.run` runs one function per process and collects
  the results. ``barrier`` (a ``threading.Barrier`` of all processes), ``lock`` and ``shared`` are
  free for ops that need their own synchronisation.
* :class:`Process` — one process: its ids and its grid.

Waits are bounded, so a collective whose peers never arrive is an error naming the op, never a hang:

* a process that waits at a rendezvous (or on an empty channel) fails as soon as a process it waits
  for has finished its program (it took another branch);
* it fails when every live process of the grid waits and none of the waits can be satisfied (a
  deadlock: processes disagree on the order of their collectives, or a ``recv`` has no ``send``);
* it fails after ``timeout`` seconds in any case (:data:`DEFAULT_TIMEOUT`);
* when one process fails, the grid is aborted and every waiting process stops
  (:class:`GridAborted`); :meth:`ProcessGrid.run` re-raises the first real error.

``interpreter.run_parallel`` (:mod:`hlokit.interpreter.probe_ops`) and
:func:`hlokit.interpreter.api.run_parallel` build a grid; the collectives family
(:mod:`hlokit.interpreter.collectives`) reads ``interp.process``.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from hlokit.diagnostics import HlokitError
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.values import Value

__all__ = ["DEFAULT_TIMEOUT", "GridAborted", "Process", "ProcessGrid"]

#: Seconds a process waits at one rendezvous or ``recv`` before the wait is an error (deadlocks and
#: finished peers are detected at once; this bounds waits on a peer that computes for very long).
DEFAULT_TIMEOUT = 300.0

#: Seconds between two checks of a waiting process (every change of the grid's state wakes it anyway).
_POLL = 0.5


class GridAborted(HlokitError, threading.BrokenBarrierError):
    """Raised in a process that waits while another process of its grid has failed. A
    :class:`~hlokit.diagnostics.HlokitError`, so the evaluator passes it on unchanged, and a
    ``BrokenBarrierError``, so :meth:`ProcessGrid.run` reports the failing process's error instead."""

    def __init__(self, message: str = "another process of the grid failed"):
        HlokitError.__init__(self, message)


ProcessId = tuple  # (replica_id, partition_id)


class ProcessGrid:
    """A grid of ``num_replicas x num_partitions`` processes and the state they share.

    ``timeout``: the most seconds one wait of a process may last (see module doc). ``infeed``: the
    values the ``infeed`` ops read, in order (each item a list of values, one per ``infeed`` result
    but the token). After a run, ``outfeed`` holds ``(replica_id, partition_id, [values])`` for every
    ``outfeed`` op, in the order they ran.

    ``barrier``: a ``threading.Barrier`` for all processes of the grid (aborted when one process fails,
    so the others stop waiting); ``lock`` and ``shared``: a lock and a dict free for ops' own state.
    Raises ``ValueError`` for a negative size.
    """

    def __init__(self, num_replicas: int, num_partitions: int, *, timeout: float = DEFAULT_TIMEOUT,
                 infeed: Sequence[Sequence[Value]] = ()):
        if num_replicas < 0 or num_partitions < 0:
            raise ValueError(f"a process grid of {num_replicas} x {num_partitions} processes")
        self.num_replicas = int(num_replicas)
        self.num_partitions = int(num_partitions)
        self.timeout = float(timeout)
        self.lock = threading.Lock()
        self.barrier = threading.Barrier(max(1, self.size))
        self.shared: dict = {}
        self.infeed: collections.deque = collections.deque(list(v) for v in infeed)
        self.outfeed: list[tuple[int, int, list[Value]]] = []
        self._cond = threading.Condition()
        self._slots: dict = {}  # rendezvous key -> {"op", "values", "taken"}
        self._seq: dict = {}  # (process id, group key) -> number of rendezvous so far
        self._channels: dict[int, collections.deque] = collections.defaultdict(collections.deque)
        self._finished: set = set()  # processes whose program returned or failed
        self._waiting: dict = {}  # process id -> predicate its wait needs
        self._failed = False

    @property
    def size(self) -> int:
        """The number of processes, ``num_replicas * num_partitions``."""
        return self.num_replicas * self.num_partitions

    def process(self, replica_id: int, partition_id: int) -> "Process":
        """The :class:`Process` at ``(replica_id, partition_id)``; ``IndexError`` outside the grid."""
        if not (0 <= replica_id < self.num_replicas and 0 <= partition_id < self.num_partitions):
            raise IndexError(
                f"process ({replica_id}, {partition_id}) outside a {self.num_replicas} x {self.num_partitions} grid"
            )
        return Process(replica_id, partition_id, self)

    def processes(self) -> list["Process"]:
        """Every process, replica-major: ``(0, 0), (0, 1), ..., (1, 0), ...``."""
        return [self.process(r, p) for r in range(self.num_replicas) for p in range(self.num_partitions)]

    def ids(self) -> list[ProcessId]:
        """Every process id ``(replica_id, partition_id)``, replica-major."""
        return [(r, p) for r in range(self.num_replicas) for p in range(self.num_partitions)]

    def abort(self) -> None:
        """Stop the grid: processes waiting (at the barrier, a rendezvous or a channel), or arriving
        later, get :class:`GridAborted` / ``BrokenBarrierError``."""
        with self._cond:
            self._failed = True
            self._cond.notify_all()
        try:
            self.barrier.abort()
        except Exception:  # pragma: no cover - abort does not fail on a healthy barrier
            pass

    def finish(self, pid: ProcessId) -> None:
        """Mark process ``pid`` as finished (its program returned or failed); wakes the waiting ones."""
        with self._cond:
            self._finished.add(pid)
            self._cond.notify_all()

    # -- waiting ----------------------------------------------------------------------------------

    def _wait(self, pid: ProcessId, ready: Callable[[], bool], what: str,
              missing: Callable[[], Sequence[ProcessId]]) -> None:
        """Wait (holding ``_cond``) until ``ready()``; raise :class:`InterpreterError` (``what`` names
        the op) when a process in ``missing()`` has finished, on a deadlock of the whole grid, or after
        ``timeout``; :class:`GridAborted` when the grid failed."""
        deadline = time.monotonic() + self.timeout
        self._waiting[pid] = ready
        try:
            while not ready():
                if self._failed:
                    raise GridAborted()
                gone = [q for q in missing() if q in self._finished]
                if gone:
                    self._failed = True
                    self._cond.notify_all()
                    raise InterpreterError(
                        f"{what}: process {_name(gone[0])} finished its program without joining "
                        f"(it took another path); process {_name(pid)} waits for it"
                    )
                live = [q for q in self.ids() if q not in self._finished]
                if all(q in self._waiting for q in live) and not any(self._waiting[q]() for q in live):
                    self._failed = True
                    self._cond.notify_all()
                    others = sorted(set(missing()))
                    detail = f" (waiting for {', '.join(_name(q) for q in others)})" if others else ""
                    raise InterpreterError(
                        f"{what}: deadlock: every live process of the grid waits and none can go on; "
                        f"process {_name(pid)} waits here{detail}"
                    )
                left = deadline - time.monotonic()
                if left <= 0:
                    self._failed = True
                    self._cond.notify_all()
                    raise InterpreterError(
                        f"{what}: process {_name(pid)} waited {self.timeout:g} s for "
                        f"{', '.join(_name(q) for q in missing()) or 'its peers'}"
                    )
                self._cond.wait(min(left, _POLL))
        finally:
            del self._waiting[pid]

    # -- rendezvous, channels, queues -------------------------------------------------------------

    def rendezvous(self, pid: ProcessId, op_name: str, group: Sequence[ProcessId], value: Any) -> dict:
        """Process ``pid`` of ``group`` hands ``value`` to the ``op_name`` collective of the group and
        waits for the values of every other member; returns ``{process id: value}`` for the group.

        The n-th rendezvous of a process over a set of processes meets the n-th rendezvous of the other
        members over the same set. :class:`InterpreterError` when they are at different ops, or when a
        member never arrives (see :meth:`_wait`)."""
        members = tuple(sorted(set(group)))
        if pid not in members:
            raise InterpreterError(f"'{op_name}': process {_name(pid)} is not in its own process group")
        with self._cond:
            if self._failed:
                raise GridAborted()
            n = self._seq.get((pid, members), 0)
            self._seq[(pid, members)] = n + 1
            key = (members, n)
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = {"op": op_name, "values": {}, "taken": 0}
            elif slot["op"] != op_name:
                self._failed = True
                self._cond.notify_all()
                raise InterpreterError(
                    f"'{op_name}': process {_name(pid)} meets '{slot['op']}' of the other processes of its group "
                    f"{[_name(q) for q in members]} (the processes run different collectives)"
                )
            slot["values"][pid] = value
            values = slot["values"]
            if len(values) == len(members):  # only a full slot lets waiters go on (a new waiter checks for
                self._cond.notify_all()  # a deadlock itself)
            self._wait(pid, lambda: len(values) == len(members), f"'{op_name}'",
                       lambda: [q for q in members if q not in values])
            slot["taken"] += 1
            if slot["taken"] == len(members):
                del self._slots[key]
            return dict(values)

    def send(self, channel: int, values: list[Value]) -> None:
        """Put ``values`` on channel ``channel`` (``stablehlo.send``); never blocks."""
        with self._cond:
            if self._failed:
                raise GridAborted()
            self._channels[channel].append(values)
            self._cond.notify_all()

    def recv(self, pid: ProcessId, channel: int, op_name: str = "stablehlo.recv") -> list[Value]:
        """Take the oldest values sent on ``channel``, waiting for a ``send`` (bounded: see :meth:`_wait`)."""
        with self._cond:
            queue = self._channels[channel]
            self._wait(pid, lambda: bool(queue), f"'{op_name}' on channel {channel}", lambda: [])
            return queue.popleft()

    def pop_infeed(self, op_name: str = "stablehlo.infeed") -> list[Value]:
        """The next item of the ``infeed`` queue; :class:`InterpreterError` when it is empty."""
        with self._cond:
            if not self.infeed:
                raise InterpreterError(f"'{op_name}': the infeed queue is empty")
            return self.infeed.popleft()

    def push_outfeed(self, pid: ProcessId, values: list[Value]) -> None:
        """Append ``(replica_id, partition_id, values)`` to ``outfeed``."""
        with self._cond:
            self.outfeed.append((pid[0], pid[1], list(values)))

    # -- running ----------------------------------------------------------------------------------

    def run(
        self, interp, calls: Sequence[tuple[str, Sequence[Value]]], location=None
    ) -> list[list[Value]]:
        """Run ``calls[k] = (function name, arguments)`` on process ``k`` of :meth:`processes` (one
        thread each, concurrently) and return each call's results, in the same order.

        Each thread runs a fork of ``interp`` (``interp.fork()``) whose ``process`` is its
        :class:`Process`. When a process raises, the grid is aborted and the first error that is not
        the resulting ``BrokenBarrierError`` is re-raised; :class:`InterpreterError` at ``location``
        when only broken barriers were seen. ``ValueError`` unless there is one call per process.
        """
        procs = self.processes()
        if len(calls) != len(procs):
            raise ValueError(f"{len(calls)} calls for a grid of {len(procs)} processes")
        results: list = [None] * len(procs)
        errors: list = [None] * len(procs)

        def work(k: int) -> None:
            child = interp.fork()
            child.process = procs[k]
            name, args = calls[k]
            try:
                with np.errstate(all="ignore"):
                    results[k] = child.call(name, list(args))
            except BaseException as err:  # reported by the caller
                errors[k] = err
                self.abort()
            finally:
                self.finish(procs[k].id)

        if len(procs) == 1:  # one process: no thread
            work(0)
        else:
            threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(len(procs))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        for err in errors:
            if err is not None and not isinstance(err, threading.BrokenBarrierError):
                raise err
        if any(err is not None for err in errors):
            raise InterpreterError("interpreter.run_parallel: a process failed", location)
        return results


def _name(pid: ProcessId) -> str:
    return f"({pid[0]}, {pid[1]})"


class Process(NamedTuple):
    """One process of a :class:`ProcessGrid`: its ``replica_id``, ``partition_id`` and ``grid``. (An immutable
    record: a ``NamedTuple`` costs a tenth of a frozen dataclass to make at import, issue 40.)"""

    replica_id: int
    partition_id: int
    grid: ProcessGrid

    @property
    def id(self) -> ProcessId:
        """``(replica_id, partition_id)``."""
        return (self.replica_id, self.partition_id)

    @property
    def num_replicas(self) -> int:
        """The grid's number of replicas (rows)."""
        return self.grid.num_replicas

    @property
    def num_partitions(self) -> int:
        """The grid's number of partitions (columns)."""
        return self.grid.num_partitions

    @property
    def shared(self) -> dict:
        """The grid's shared state (see :class:`ProcessGrid`)."""
        return self.grid.shared

    def rendezvous(self, op_name: str, group: Sequence[ProcessId], value: Any) -> dict:
        """:meth:`ProcessGrid.rendezvous` for this process."""
        return self.grid.rendezvous(self.id, op_name, group, value)

    def send(self, channel: int, values: list[Value]) -> None:
        """:meth:`ProcessGrid.send`."""
        self.grid.send(channel, values)

    def recv(self, channel: int, op_name: str = "stablehlo.recv") -> list[Value]:
        """:meth:`ProcessGrid.recv` for this process."""
        return self.grid.recv(self.id, channel, op_name)
