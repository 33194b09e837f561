"""Processes of the hlokit interpreter: :class:`ProcessGrid` and :class:`Process`.

The StableHLO spec (https://openxla.org/stablehlo/spec, section "Parallel execution") runs a program on a process grid of ``num_replicas x num_partitions`` processes; each process knows its
``replica_id`` and ``partition_id`` (the ops of the same names), and collective ops synchronise the
processes of a group. Here every process is one Python thread running a forked
:class:`~hlokit.interpreter.evaluator.Interpreter` whose ``process`` attribute is its :class:`Process`.

* :class:`ProcessGrid` — the grid's size and the state its processes share: ``barrier`` (a
  ``threading.Barrier`` of all processes), ``lock`` and ``shared`` (a dict for rendezvous state of
  collective ops); :meth:`ProcessGrid.run` runs one function per process and collects the results.
* :class:`Process` — one process: its ids and its grid.

``interpreter.run_parallel`` (:mod:`hlokit.dialects.interpreter`) builds a grid from its ``programs``
attribute; a collectives family reads ``interp.process`` to find its group and rendezvous.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Sequence

import numpy as np

from hlokit.interpreter.evaluator import Interpreter, InterpreterError
from hlokit.interpreter.values import Value

__all__ = ["Process", "ProcessGrid"]


class ProcessGrid:
    """A grid of ``num_replicas x num_partitions`` processes and the state they share.

    ``barrier``: a ``threading.Barrier`` for all processes of the grid (aborted when one process fails,
    so the others stop waiting); ``lock``: a lock for ``shared``; ``shared``: a dict that collective ops
    use for their rendezvous state. Raises ``ValueError`` for a negative size.
    """

    def __init__(self, num_replicas: int, num_partitions: int):
        if num_replicas < 0 or num_partitions < 0:
            raise ValueError(f"a process grid of {num_replicas} x {num_partitions} processes")
        self.num_replicas = int(num_replicas)
        self.num_partitions = int(num_partitions)
        self.lock = threading.Lock()
        self.barrier = threading.Barrier(max(1, self.size))
        self.shared: dict = {}

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

    def abort(self) -> None:
        """Break the barrier: processes waiting on it (or arriving later) get ``BrokenBarrierError``."""
        try:
            self.barrier.abort()
        except Exception:  # pragma: no cover - abort does not fail on a healthy barrier
            pass

    def run(
        self, interp: Interpreter, calls: Sequence[tuple[str, Sequence[Value]]], location=None
    ) -> list[list[Value]]:
        """Run ``calls[k] = (function name, arguments)`` on process ``k`` of :meth:`processes` (one
        thread each, concurrently) and return each call's results, in the same order.

        Each thread runs a fork of ``interp`` (``interp.fork()``) whose ``process`` is its
        :class:`Process`. When a process raises, the barrier is aborted and the first error that is not
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

        threads = [threading.Thread(target=work, args=(k,)) for k in range(len(procs))]
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


@dataclasses.dataclass(frozen=True)
class Process:
    """One process of a :class:`ProcessGrid`: its ``replica_id``, ``partition_id`` and ``grid``."""

    replica_id: int
    partition_id: int
    grid: ProcessGrid

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
