"""The StableHLO ``interpreter`` dialect in hlokit's interpreter: ``probe``, ``print``, ``run_parallel``.

jaxlib registers these ops (and their custom syntax) in C++; their semantics live here (seed 003
"interpreter dialect"):

* ``interpreter.probe %x, probe_id = "id"`` returns ``%x`` and, when the run has a probe directory
  (``--probe-output-dir``), writes the value to ``DIR/<id>_<iteration>.bin`` (raw little-endian
  element bytes, one byte per sub-byte element) and appends ``id,type,path`` to ``DIR/index.csv``;
  the n-th probe of an id (inside a loop) is iteration n. ``check.expect_serialized_eq`` reads it back.
* ``interpreter.print %x`` writes ``%x = <value>`` (see :func:`hlokit.interpreter.values.format_value`).
* ``interpreter.run_parallel(args) {programs = [[@f0, @f1], [@g0, @g1]]}`` runs the functions as a
  grid of processes (rows: replicas, columns: partitions), one thread each; the operands are handed
  out to the programs in order, and the results are concatenated in the same order. Each process
  sees ``interp.process`` = :class:`Process` (its replica and partition id).
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading

import numpy as np
from jaxlib.mlir import ir

from hlokit.interpreter.evaluator import InterpreterError
from hlokit.interpreter.registry import register, str_attr
from hlokit.interpreter.values import Value, format_dense, format_value, type_str

__all__ = ["Process", "probe", "read_probe", "run_parallel"]


@dataclasses.dataclass
class Process:
    """One process of ``interpreter.run_parallel``: its ids, the grid size and shared state."""

    replica_id: int
    partition_id: int
    num_replicas: int
    num_partitions: int
    shared: dict


def _storage(value: np.ndarray) -> bytes:
    from hlokit.interpreter.values import _ML_INTS, _ML_UINTS

    a = np.asarray(value, order="C")
    if a.dtype == np.bool_:
        return a.astype(np.uint8).tobytes()
    if a.dtype in _ML_INTS:
        return a.astype(np.int8).tobytes()
    if a.dtype in _ML_UINTS:
        return a.astype(np.uint8).tobytes()
    return a.tobytes()


def _from_storage(data: bytes, like: np.ndarray) -> np.ndarray:
    from hlokit.interpreter.values import _from_bits

    raw = np.frombuffer(data, dtype=np.uint8)
    if like.dtype == np.bool_ or like.dtype.itemsize == 1:
        arr = _from_bits(raw, like.dtype)
    else:
        arr = raw.view(like.dtype)
    return arr.reshape(like.shape)


def _probe_path(interp, probe_id: str, iteration: int) -> str:
    """``DIR/<sanitized id>_<iteration>.bin`` (characters other than ``[A-Za-z0-9_.-]`` become ``_``)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", probe_id)
    return os.path.join(interp.probe_dir, f"{safe}_{iteration}.bin")


def probe(interp, probe_id: str, value: Value, location=None) -> Value:
    """Record ``value`` under ``probe_id`` (see module doc) and return it unchanged."""
    if interp.probe_dir is None:
        return value
    if not isinstance(value, np.ndarray):
        raise InterpreterError("interpreter.probe supports tensors only", location)
    with interp.probe_lock:
        it = interp.probe_counts.get(probe_id, 0)
        interp.probe_counts[probe_id] = it + 1
        os.makedirs(interp.probe_dir, exist_ok=True)
        path = _probe_path(interp, probe_id, it)
        try:
            with open(path, "wb") as f:
                f.write(_storage(value))
            with open(os.path.join(interp.probe_dir, "index.csv"), "a") as f:
                f.write(f"{probe_id},{type_str(value)},{path}\n")
        except OSError as err:
            raise InterpreterError(f"interpreter.probe: cannot write '{path}': {err.strerror}", location) from None
    return value


def read_probe(interp, probe_id: str, iteration: int, like: np.ndarray) -> np.ndarray:
    """The value ``interpreter.probe`` recorded for ``probe_id`` at ``iteration`` (typed as ``like``)."""
    path = _probe_path(interp, probe_id, iteration)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        raise InterpreterError(f"no probe '{probe_id}' (iteration {iteration}) in '{interp.probe_dir}'") from None
    expected_size = len(_storage(like))
    if len(data) != expected_size:
        raise InterpreterError(
            f"probe '{probe_id}' holds {len(data)} bytes, a {type_str(like)} needs {expected_size}"
        )
    return _from_storage(data, like)


@register("interpreter.probe")
def _probe(op, operands, interp):
    return [probe(interp, str_attr(op, "probe_id"), operands[0], op.location)]


@register("interpreter.print")
def _print(op, operands, interp):
    value = operands[0]
    try:
        name = op.operation.operands[0].get_name()
    except Exception:  # pragma: no cover - names are best effort
        name = "%value"
    text = format_dense(value) if interp.print_dense else format_value(value)
    with interp.print_lock:
        interp.out.write(f"{name} = {text}\n")
        interp.out.flush()
    return []


def run_parallel(interp, programs: list[list[str]], args: list[Value], location=None) -> list[Value]:
    """Run ``programs[replica][partition]`` concurrently (one thread each); see module doc."""
    num_replicas = len(programs)
    num_partitions = len(programs[0]) if programs else 0
    if any(len(row) != num_partitions for row in programs):
        raise InterpreterError("interpreter.run_parallel: every row of 'programs' needs the same length", location)
    shared: dict = {"lock": threading.Lock(), "barrier": threading.Barrier(max(1, num_replicas * num_partitions))}
    jobs = []
    pos = 0
    for r, row in enumerate(programs):
        for p, name in enumerate(row):
            func = interp.function(name)
            ftype = ir.FunctionType(ir.TypeAttr(func.operation.attributes["function_type"]).value)
            n = len(ftype.inputs)
            if pos + n > len(args):
                raise InterpreterError(
                    f"interpreter.run_parallel: not enough operands for @{name} (needs {n})", location
                )
            jobs.append((r, p, name, list(args[pos : pos + n])))
            pos += n
    if pos != len(args):
        raise InterpreterError(
            f"interpreter.run_parallel: {len(args)} operands, the programs take {pos}", location
        )
    results: list = [None] * len(jobs)
    errors: list = [None] * len(jobs)

    def work(i, r, p, name, a):
        child = interp.fork()
        child.process = Process(r, p, num_replicas, num_partitions, shared)
        try:
            with np.errstate(all="ignore"):
                results[i] = child.call(name, a)
        except BaseException as err:  # reported by the caller
            errors[i] = err
            try:
                shared["barrier"].abort()
            except Exception:
                pass

    threads = [threading.Thread(target=work, args=(i,) + job) for i, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for err in errors:
        if err is not None and not isinstance(err, threading.BrokenBarrierError):
            raise err
    for err in errors:
        if err is not None:
            raise InterpreterError("interpreter.run_parallel: a process failed", location)
    out: list[Value] = []
    for res in results:
        out.extend(res)
    return out


@register("interpreter.run_parallel")
def _run_parallel(op, operands, interp):
    attr = op.operation.attributes["programs"]
    programs = [[ir.FlatSymbolRefAttr(s).value for s in ir.ArrayAttr(row)] for row in ir.ArrayAttr(attr)]
    return run_parallel(interp, programs, list(operands), op.location)
