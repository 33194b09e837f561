"""Interpreter processes: ProcessGrid / Process and ``interpreter.run_parallel`` on top of them."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import hlokit
from hlokit.interpreter import InterpreterError
from hlokit.interpreter.process import Process, ProcessGrid

PROGRAM = """
func.func @add1(%x: tensor<2xi32>) -> tensor<2xi32> {
  %c = stablehlo.constant dense<1> : tensor<2xi32>
  %r = stablehlo.add %x, %c : tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func @neg(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = stablehlo.negate %x : tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>, %c: tensor<2xi32>, %d: tensor<2xi32>)
    -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@add1, @neg], [@neg, @add1]]}
    : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
    -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}
"""


def test_grid_lists_processes_replica_major():
    grid = ProcessGrid(2, 3)
    assert grid.size == 6
    ids = [(p.replica_id, p.partition_id) for p in grid.processes()]
    assert ids == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    p = grid.process(1, 2)
    assert isinstance(p, Process) and p.grid is grid
    assert (p.num_replicas, p.num_partitions) == (2, 3)
    assert p.shared is grid.shared
    assert isinstance(grid.barrier, threading.Barrier) and grid.barrier.parties == 6
    with pytest.raises(IndexError):
        grid.process(2, 0)
    with pytest.raises(ValueError):
        ProcessGrid(-1, 1)


def test_run_parallel_runs_a_2x2_grid():
    args = [np.array([1, 2], np.int32), np.array([3, 4], np.int32), np.array([5, 6], np.int32),
            np.array([7, 8], np.int32)]
    out = hlokit.interpret(PROGRAM, args)
    assert [o.tolist() for o in out] == [[2, 3], [-3, -4], [-5, -6], [8, 9]]


def test_each_process_sees_its_ids():
    """What the collectives family reads: ``interp.process`` of each forked interpreter."""

    prog = """
    func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
      %r = stablehlo.replica_id : tensor<ui32>
      %p = stablehlo.partition_id : tensor<ui32>
      return %r, %p : tensor<ui32>, tensor<ui32>
    }
    func.func @main() -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>) {
      %r:6 = "interpreter.run_parallel"() {programs = [[@ids], [@ids], [@ids]]}
        : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
      return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5
        : tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>
    }
    """
    out = hlokit.interpret(prog, [])  # replica_id / partition_id of hlokit.interpreter.collectives
    assert [int(o) for o in out] == [0, 0, 1, 0, 2, 0]


def test_grid_run_returns_results_in_process_order():
    from hlokit.interpreter.api import load_program
    from hlokit.interpreter.evaluator import Interpreter

    interp = Interpreter(load_program(PROGRAM))
    x = np.array([1, 2], np.int32)
    results = ProcessGrid(1, 2).run(interp, [("add1", [x]), ("neg", [x])])
    assert [r[0].tolist() for r in results] == [[2, 3], [-1, -2]]


def test_a_failing_process_reports_its_error():
    grid = ProcessGrid(1, 2)
    from hlokit.interpreter.api import load_program
    from hlokit.interpreter.evaluator import Interpreter

    interp = Interpreter(load_program(PROGRAM))
    x = np.array([1, 2], np.int32)
    with pytest.raises(InterpreterError, match="not found"):
        grid.run(interp, [("add1", [x]), ("missing", [x])])
    with pytest.raises(ValueError):
        grid.run(interp, [("add1", [x])])
