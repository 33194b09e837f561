"""The StableHLO ``interpreter`` dialect in hlokit's interpreter: ``probe``, ``print``, ``run_parallel``.

jaxlib registers these ops (and their custom syntax) in C++ (upstream's
``stablehlo/reference/InterpreterOps.td`` in https://github.com/openxla/stablehlo; their names:
:data:`hlokit.dialects.interpreter.OPS`); their semantics live here:

* ``interpreter.probe %x, probe_id = "id"`` returns ``%x`` and, when the run has a probe directory
  (``--probe-output-dir``), writes the value to ``DIR/<id>_<iteration>.bin`` (raw little-endian
  element bytes, one byte per sub-byte element) and appends ``id,type,path`` to ``DIR/index.csv``;
  the n-th probe of an id (inside a loop) is iteration n (:mod:`hlokit.interpreter.probes`).
  ``check.expect_serialized_eq`` reads it back.
* ``interpreter.print %x`` writes ``%x = <value>`` (see :func:`hlokit.interpreter.values.format_value`).
* ``interpreter.run_parallel(args) {programs = [[@f0, @f1], [@g0, @g1]]}`` runs the functions as a
  grid of processes (rows: replicas, columns: partitions; :class:`~hlokit.interpreter.process.ProcessGrid`),
  one thread each; the operands are handed out to the programs in order, and the results are
  concatenated in the same order; ``infeed = [@f, ...]`` fills the grid's infeed queue with the results
  of the functions, called in order. Each process sees ``interp.process`` =
  :class:`~hlokit.interpreter.process.Process` (its replica and partition id, and its grid).
"""

from __future__ import annotations

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.probes import probe
from hlokit.interpreter.process import ProcessGrid
from hlokit.interpreter.values import format_result
from hlokit.interpreter.registry import register
from hlokit.interpreter.values import Value

__all__ = ["run_parallel"]


@register("interpreter.probe")
def _probe(op, operands, interp):
    return [probe(interp, attributes.str_value(op, "probe_id"), operands[0], op.location)]


@register("interpreter.print")
def _print(op, operands, interp):
    value = operands[0]
    try:
        name = op.operation.operands[0].get_name()
    except Exception:  # pragma: no cover - names are best effort
        name = "%value"
    text = format_result(value, op.operation.operands[0].type, dense=interp.print_dense)  # quantized: its type
    with interp.print_lock:
        interp.out.write(f"{name} = {text}\n")
        interp.out.flush()
    return []


def run_parallel(interp, programs: list[list[str]], args: list[Value], location=None,
                 infeed: list[list[Value]] = ()) -> list[Value]:
    """Run ``programs[replica][partition]`` concurrently on a :class:`ProcessGrid` of
    ``len(programs) x len(programs[0])`` processes (see module doc); :class:`InterpreterError` when the
    rows differ in length or the operands do not match the programs' arguments."""
    num_replicas = len(programs)
    num_partitions = len(programs[0]) if programs else 0
    if any(len(row) != num_partitions for row in programs):
        raise InterpreterError("interpreter.run_parallel: every row of 'programs' needs the same length", location)
    calls = []
    pos = 0
    for row in programs:
        for name in row:
            func = interp.function(name)
            n = len(ir.FunctionType(attributes.type_value(func, "function_type")).inputs)
            if pos + n > len(args):
                raise InterpreterError(
                    f"interpreter.run_parallel: not enough operands for @{name} (needs {n})", location
                )
            calls.append((name, list(args[pos : pos + n])))
            pos += n
    if pos != len(args):
        raise InterpreterError(
            f"interpreter.run_parallel: {len(args)} operands, the programs take {pos}", location
        )
    grid = ProcessGrid(num_replicas, num_partitions, infeed=infeed)
    out: list[Value] = []
    for res in grid.run(interp, calls, location):
        out.extend(res)
    return out


@register("interpreter.run_parallel")
def _run_parallel(op, operands, interp):
    attr = op.operation.attributes["programs"]
    programs = [[ir.FlatSymbolRefAttr(s).value for s in ir.ArrayAttr(row)] for row in ir.ArrayAttr(attr)]
    infeed = []  # `infeed = [@f, ...]`: the results of each function, in order, are the infeed queue
    if attributes.has(op, "infeed"):
        for s in ir.ArrayAttr(attributes.get(op, "infeed")):
            infeed.append(interp.call(ir.FlatSymbolRefAttr(s).value, []))
    return run_parallel(interp, programs, list(operands), op.location, infeed)
