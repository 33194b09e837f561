"""Interpreter: control flow and modularity (func.call/return, if, case, while, optimization_barrier,
after_all, composite, tuple, get_tuple_element, custom_call errors).

Spec examples first (StableHLO spec https://openxla.org/stablehlo/spec), then behaviour (only the chosen branch runs, recursion through calls,
values captured from enclosing regions, tokens and tuples through control flow), then hypothesis
differential tests against XLA for programs mixing while/if/case.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlokit
from hlokit.interpreter import InterpreterError, control_flow
from hlokit.interpreter.values import TOKEN, Token


def interpret(text: str, *args, function: str = "main"):
    return hlokit.interpret(text, list(args), function=function)


def xla(text: str, *args):
    from hlokit import backend

    with hlokit.make_context():
        return backend.compile(hlokit.parse(text))(*args)


def i64(v) -> np.ndarray:
    return np.array(v, np.int64)


# ------------------------------------------------------------------------------------------------
# spec examples (https://openxla.org/stablehlo/spec, each op's "Examples")


def test_if_spec_example():
    text = """
func.func @main(%pred: tensor<i1>, %result_true_branch: tensor<i32>, %result_false_branch: tensor<i32>) -> tensor<i32> {
  %result = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%result_true_branch) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%result_false_branch) : (tensor<i32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  func.return %result : tensor<i32>
}
"""
    ten, eleven = np.array(10, np.int32), np.array(11, np.int32)
    assert int(interpret(text, np.array(True), ten, eleven)[0]) == 10
    assert int(interpret(text, np.array(False), ten, eleven)[0]) == 11


CASE = """
func.func @main(%index: tensor<i32>, %result_branch0: tensor<2xi64>, %result_branch1: tensor<2xi64>)
    -> (tensor<2xi64>, tensor<2xi64>) {
  %result0, %result1 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%result_branch0, %result_branch0) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%result_branch1, %result_branch1) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  func.return %result0, %result1 : tensor<2xi64>, tensor<2xi64>
}
"""


@pytest.mark.parametrize("index, branch", [(-1, 1), (0, 0), (1, 1), (2, 1), (2**31 - 1, 1), (-(2**31), 1)])
def test_case_spec_example_and_out_of_range_index(index, branch):
    b0, b1 = i64([0, 0]), i64([1, 1])
    r0, r1 = interpret(CASE, np.array(index, np.int32), b0, b1)
    assert r0.tolist() == r1.tolist() == [branch, branch]


WHILE = """
func.func @main(%init_i: tensor<i64>, %init_sum: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %results0, %results1 = "stablehlo.while"(%init_i, %init_sum) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %cond = "stablehlo.compare"(%arg0, %ten) {comparison_direction = #stablehlo<comparison_direction LT>}
          : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %cond : tensor<i1>
  }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %new_sum = stablehlo.add %arg1, %one : tensor<i64>
      %new_i = stablehlo.add %arg0, %one : tensor<i64>
      stablehlo.return %new_i, %new_sum : tensor<i64>, tensor<i64>
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  func.return %results0, %results1 : tensor<i64>, tensor<i64>
}
"""


def test_while_spec_example():
    # The spec's example starts at %init_i = 1 and prints 10 for both results; counting i from 1 to 10
    # adds 1 nine times, so the sum is 9 (the conformance test starts at 0 and gets 10, 10).
    assert [int(v) for v in interpret(WHILE, i64(1), i64(0))] == [10, 9]
    assert [int(v) for v in interpret(WHILE, i64(0), i64(0))] == [10, 10]


def test_while_body_runs_zero_times():
    assert [int(v) for v in interpret(WHILE, i64(42), i64(-3))] == [42, -3]


def test_composite_spec_example_runs_decomposition():
    text = """
func.func @my_op(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.multiply %a, %b : tensor<f32>
  func.return %0 : tensor<f32>
}
func.func @main(%input0: tensor<f32>, %input1: tensor<f32>) -> tensor<f32> {
  %results = "stablehlo.composite"(%input0, %input1) {
    name = "my_namespace.my_op",
    composite_attributes = {my_attribute = "my_value"},
    decomposition = @my_op,
    version = 1 : i32
  } : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %results : tensor<f32>
}
"""
    (r,) = interpret(text, np.array(3.0, np.float32), np.array(-2.5, np.float32))
    assert r.dtype == np.float32 and float(r) == -7.5


def test_tuple_and_get_tuple_element_spec_example():
    text = """
func.func @main(%val0: tensor<2xf64>, %tmp: tensor<i64>) -> (tensor<2xf64>, tensor<i64>, tuple<tensor<2xf64>, tuple<tensor<i64>>>) {
  %val1 = "stablehlo.tuple"(%tmp) : (tensor<i64>) -> tuple<tensor<i64>>
  %operand = "stablehlo.tuple"(%val0, %val1) : (tensor<2xf64>, tuple<tensor<i64>>) -> tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %result = "stablehlo.get_tuple_element"(%operand) {index = 0 : i32} : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
  %inner = "stablehlo.get_tuple_element"(%operand) {index = 1 : i32} : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %three = "stablehlo.get_tuple_element"(%inner) {index = 0 : i32} : (tuple<tensor<i64>>) -> tensor<i64>
  func.return %result, %three, %operand : tensor<2xf64>, tensor<i64>, tuple<tensor<2xf64>, tuple<tensor<i64>>>
}
"""
    r, three, tup = interpret(text, np.array([1.0, 2.0]), i64(3))
    assert r.tolist() == [1.0, 2.0] and int(three) == 3
    assert isinstance(tup, tuple) and len(tup) == 2 and isinstance(tup[1], tuple)
    assert tup[0].tolist() == [1.0, 2.0] and int(tup[1][0]) == 3


def test_optimization_barrier_spec_example_and_tokens():
    text = """
func.func @main(%operand0: tensor<f32>, %operand1: tensor<f32>) -> (tensor<f32>, tensor<f32>, !stablehlo.token) {
  %t0 = stablehlo.after_all : !stablehlo.token
  %t1 = stablehlo.create_token : !stablehlo.token
  %t = stablehlo.after_all %t0, %t1 : !stablehlo.token
  %result0, %result1, %tok = stablehlo.optimization_barrier %operand0, %operand1, %t : tensor<f32>, tensor<f32>, !stablehlo.token
  func.return %result0, %result1, %tok : tensor<f32>, tensor<f32>, !stablehlo.token
}
"""
    r0, r1, tok = interpret(text, np.array(0.0, np.float32), np.array(1.0, np.float32))
    assert float(r0) == 0.0 and float(r1) == 1.0
    assert tok is TOKEN and isinstance(tok, Token)


def test_call_spec_conformance_example():
    text = """
func.func @add_2(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.constant dense<2> : tensor<i64>
  %1 = stablehlo.add %arg0, %0 : tensor<i64>
  func.return %1 : tensor<i64>
}
func.func @main(%x: tensor<i64>) -> tensor<i64> {
  %1 = func.call @add_2(%x) : (tensor<i64>) -> tensor<i64>
  %2 = call @add_2(%1) : (tensor<i64>) -> tensor<i64>
  func.return %2 : tensor<i64>
}
"""
    assert int(interpret(text, i64(1))[0]) == 5


# ------------------------------------------------------------------------------------------------
# behaviour


FACTORIAL = """
func.func @fact(%n: tensor<i64>) -> tensor<i64> {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %le = stablehlo.compare LE, %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = "stablehlo.if"(%le) ({
    stablehlo.return %one : tensor<i64>
  }, {
    %m = stablehlo.subtract %n, %one : tensor<i64>
    %f = func.call @fact(%m) : (tensor<i64>) -> tensor<i64>
    %p = stablehlo.multiply %n, %f : tensor<i64>
    stablehlo.return %p : tensor<i64>
  }) : (tensor<i1>) -> tensor<i64>
  func.return %r : tensor<i64>
}
"""


def test_recursion_through_call_and_if():
    assert int(interpret(FACTORIAL, i64(10), function="fact")[0]) == 3628800
    assert int(interpret(FACTORIAL, i64(0), function="fact")[0]) == 1


def test_only_the_chosen_branch_runs():
    # the false branch calls an unsupported custom_call: it must never run when pred is true
    text = """
func.func @main(%pred: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = "stablehlo.if"(%pred) ({
    stablehlo.return %x : tensor<f32>
  }, {
    %y = stablehlo.custom_call @no_such_target(%x) : (tensor<f32>) -> tensor<f32>
    stablehlo.return %y : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}
"""
    x = np.array(2.0, np.float32)
    assert float(interpret(text, np.array(True), x)[0]) == 2.0
    with pytest.raises(InterpreterError, match=r"unsupported custom_call @no_such_target") as info:
        interpret(text, np.array(False), x)
    assert info.value.diagnostics[0].line == 6  # the custom_call's line


def test_unsupported_custom_call_is_located_error():
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.custom_call @my.kernel(%x) {has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
"""
    with pytest.raises(InterpreterError) as info:
        interpret(text, np.zeros(2, np.float32))
    assert "unsupported custom_call @my.kernel" in str(info.value)
    assert info.value.diagnostics[0].line == 2


def test_while_with_tensor_state_and_captured_values():
    # x <- x * 2 + bias while sum(x) < limit; the bias and the limit are captured from the function
    text = """
func.func @main(%x: tensor<3xf32>, %bias: tensor<3xf32>, %limit: tensor<f32>) -> (tensor<3xf32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2.0> : tensor<3xf32>
  %r:2 = stablehlo.while(%v = %x, %n = %c0) : tensor<3xf32>, tensor<i32>
  cond {
    %s = stablehlo.reduce(%v init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %c = stablehlo.compare LT, %s, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %m = stablehlo.multiply %v, %two : tensor<3xf32>
    %a = stablehlo.add %m, %bias : tensor<3xf32>
    %k = stablehlo.add %n, %c1 : tensor<i32>
    stablehlo.return %a, %k : tensor<3xf32>, tensor<i32>
  }
  func.return %r#0, %r#1 : tensor<3xf32>, tensor<i32>
}
"""
    x = np.array([1.0, 0.5, 0.25], np.float32)
    bias = np.array([0.0, 1.0, -0.25], np.float32)
    v, n = interpret(text, x, bias, np.array(100.0, np.float32))
    want, k = x.copy(), 0
    while want.sum() < 100.0:
        want, k = want * 2 + bias, k + 1
    assert v.tolist() == want.tolist() and int(n) == k
    got_v, got_n = xla(text, x, bias, np.array(100.0, np.float32))
    assert v.tolist() == got_v.tolist() and int(n) == int(got_n)


def test_case_returns_tokens_and_branch_local_tuples():
    text = """
func.func @main(%i: tensor<i32>, %x: tensor<i64>) -> (!stablehlo.token, tensor<i64>) {
  %r:2 = "stablehlo.case"(%i) ({
    %t = stablehlo.after_all : !stablehlo.token
    %u = stablehlo.tuple %x : tuple<tensor<i64>>
    %e = stablehlo.get_tuple_element %u[0] : (tuple<tensor<i64>>) -> tensor<i64>
    stablehlo.return %t, %e : !stablehlo.token, tensor<i64>
  }, {
    %t = stablehlo.create_token : !stablehlo.token
    %c = stablehlo.constant dense<-1> : tensor<i64>
    stablehlo.return %t, %c : !stablehlo.token, tensor<i64>
  }) : (tensor<i32>) -> (!stablehlo.token, tensor<i64>)
  func.return %r#0, %r#1 : !stablehlo.token, tensor<i64>
}
"""
    tok, v = interpret(text, np.array(0, np.int32), i64(7))
    assert tok is TOKEN and int(v) == 7
    tok, v = interpret(text, np.array(5, np.int32), i64(7))
    assert tok is TOKEN and int(v) == -1


def test_call_checks_arguments_against_callee_signature():
    text = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""
    assert interpret(text, np.array([1.0, 2.0], np.float32))[0].tolist() == [1.0, 2.0]
    with pytest.raises(InterpreterError):
        interpret(text, np.array([1.0, 2.0], np.float64))


def test_semantics_functions_directly():
    calls = []
    branch = lambda k: (lambda: calls.append(k) or [np.array(k)])  # noqa: E731
    assert int(control_flow.if_(np.array(False), branch(1), branch(2))[0]) == 2
    assert int(control_flow.case(np.array(7, np.int32), [branch(0), branch(1), branch(2)])[0]) == 2
    assert calls == [2, 2]
    out = control_flow.while_([np.array(0), np.array(1)], lambda v: [v[0] < 5], lambda v: [v[0] + 1, v[1] * 3])
    assert [int(v) for v in out] == [5, 243]
    tup = control_flow.tuple_([np.array(1), TOKEN])
    assert control_flow.get_tuple_element(tup, 1) is TOKEN
    assert control_flow.after_all([TOKEN, TOKEN]) is TOKEN


# ------------------------------------------------------------------------------------------------
# differential tests against XLA: collatz-style loops with if and case inside


LOOP = """
func.func @main(%x: tensor<4xi32>, %n: tensor<i32>) -> (tensor<4xi32>, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<4xi32>
  %one = stablehlo.constant dense<1> : tensor<4xi32>
  %r:2 = stablehlo.while(%v = %x, %i = %c0) : tensor<4xi32>, tensor<i32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %k = stablehlo.remainder %i, %c3 : tensor<i32>
    %first = stablehlo.slice %v [0:1] : (tensor<4xi32>) -> tensor<1xi32>
    %f = stablehlo.reshape %first : (tensor<1xi32>) -> tensor<i32>
    %odd = stablehlo.and %f, %c1 : tensor<i32>
    %p = stablehlo.compare NE, %odd, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %w = "stablehlo.if"(%p) ({
      %m = stablehlo.multiply %v, %three : tensor<4xi32>
      %a = stablehlo.add %m, %one : tensor<4xi32>
      stablehlo.return %a : tensor<4xi32>
    }, {
      %s = stablehlo.shift_right_arithmetic %v, %one : tensor<4xi32>
      stablehlo.return %s : tensor<4xi32>
    }) : (tensor<i1>) -> tensor<4xi32>
    %u = "stablehlo.case"(%k) ({
      stablehlo.return %w : tensor<4xi32>
    }, {
      %rv = stablehlo.reverse %w, dims = [0] : tensor<4xi32>
      stablehlo.return %rv : tensor<4xi32>
    }, {
      %x1 = stablehlo.xor %w, %one : tensor<4xi32>
      stablehlo.return %x1 : tensor<4xi32>
    }) : (tensor<i32>) -> tensor<4xi32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %u, %i1 : tensor<4xi32>, tensor<i32>
  }
  func.return %r#0, %r#1 : tensor<4xi32>, tensor<i32>
}
"""


def _check_loop(data):
    x = np.array(data.draw(st.lists(st.integers(-1000, 1000), min_size=4, max_size=4), label="x"), np.int32)
    n = np.array(data.draw(st.integers(-2, 40), label="n"), np.int32)
    got = interpret(LOOP, x, n)
    want = xla(LOOP, x, n)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_loop_with_if_and_case_matches_xla(data):
    _check_loop(data)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_loop_with_if_and_case_matches_xla_sweep(data):
    _check_loop(data)


_ENDLESS = """
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.while(%i = %x) : tensor<i32>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n : tensor<i32>
    }
  return %r : tensor<i32>
}
"""


def test_max_steps_stops_a_loop_that_never_ends_at_the_while():
    with pytest.raises(hlokit.interpreter.InterpreterError) as exc:
        hlokit.interpret(_ENDLESS, [np.int32(0)], max_steps=100)
    msg = str(exc.value)
    assert "'stablehlo.while' ran 100 iterations" in msg and ":3:" in msg


@pytest.mark.parametrize("compile_after", [0, 100])
def test_max_steps_counts_the_iterations_of_a_compiled_loop(monkeypatch, compile_after):
    """Past ``compile_after`` iterations a loop runs compiled (Interpreter.compiled_loop); the limit still counts
    every iteration, walked or compiled."""
    from hlokit.interpreter.compiled import _Plan

    monkeypatch.setattr(_Plan, "COMPILE_AFTER", compile_after)
    with pytest.raises(hlokit.interpreter.InterpreterError, match=r"<input>:3:8: error: 'stablehlo.while' ran 150 "):
        hlokit.interpret(_ENDLESS, [np.int32(0)], max_steps=150)
    text = _ENDLESS.replace("dense<true>", "dense<false>")
    assert int(hlokit.interpret(text, [np.int32(5)], max_steps=0)[0]) == 5


#: An outer loop of 3 trips around an inner loop of 150 trips whose body has an ``if`` reading a value of the
#: body (%m), a block argument of the body (%acc) and an argument of the function (%k); the inner loop's
#: condition and body read constants of the function.
_NESTED_LOOPS = """
func.func @main(%x: tensor<4xf32>, %k: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %n = stablehlo.constant dense<150> : tensor<i32>
  %seventy = stablehlo.constant dense<70> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r:2 = stablehlo.while(%o = %zero, %y = %x) : tensor<i32>, tensor<4xf32>
   cond {
    %c = stablehlo.compare LT, %o, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %o2 = stablehlo.add %o, %one : tensor<i32>
    %s:2 = stablehlo.while(%j = %zero, %acc = %y) : tensor<i32>, tensor<4xf32>
     cond {
      %c = stablehlo.compare LT, %j, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %j2 = stablehlo.add %j, %one : tensor<i32>
      %m = stablehlo.multiply %acc, %half : tensor<4xf32>
      %p = stablehlo.compare LT, %j, %seventy : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %b = "stablehlo.if"(%p) ({
        %u = stablehlo.add %m, %k : tensor<4xf32>
        stablehlo.return %u : tensor<4xf32>
      }, {
        %u = stablehlo.subtract %acc, %k : tensor<4xf32>
        stablehlo.return %u : tensor<4xf32>
      }) : (tensor<i1>) -> tensor<4xf32>
      stablehlo.return %j2, %b : tensor<i32>, tensor<4xf32>
    }
    stablehlo.return %o2, %s#1 : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
"""


def test_a_long_loop_runs_compiled_once_per_while(monkeypatch):
    """The inner loop runs its first COMPILE_AFTER iterations walked, then compiled with its condition as one
    function; its later runs (the outer loop's next trips) run compiled from the start, and the loop is compiled
    once. The values its nested ``if`` reads reach it, and the results are the walked loop's, bit for bit."""
    from hlokit.interpreter.evaluator import Interpreter

    compiled = []
    original = Interpreter.compiled_loop

    def counting(self, *args):
        compiled.append(1)
        return original(self, *args)

    monkeypatch.setattr(Interpreter, "compiled_loop", counting)
    rng = np.random.default_rng(7)
    x, k = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    (out,) = hlokit.interpret(_NESTED_LOOPS, [x, k])
    want = x.copy()
    for _ in range(3):
        for j in range(150):
            want = want * np.float32(0.5) + k if j < 70 else want - k
    assert out.tobytes() == want.tobytes()
    assert compiled == [1]


#: A loop whose condition is a carried value (no ops) and whose body carries a constant and a value unchanged.
_FLAG_LOOP = """
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>, tensor<3xf32>) {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %lim = stablehlo.constant dense<137> : tensor<i32>
  %k = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r:4 = stablehlo.while(%go = %t, %i = %zero, %a = %x, %s = %x) : tensor<i1>, tensor<i32>, tensor<3xf32>, tensor<3xf32>
   cond {
    stablehlo.return %go : tensor<i1>
  } do {
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %g = stablehlo.compare LT, %i2, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %s2 = stablehlo.add %s, %a : tensor<3xf32>
    stablehlo.return %g, %i2, %k, %s2 : tensor<i1>, tensor<i32>, tensor<3xf32>, tensor<3xf32>
  }
  return %r#3, %r#1, %r#2 : tensor<3xf32>, tensor<i32>, tensor<3xf32>
}
"""


@pytest.mark.parametrize("compile_after", [0, 5, 100])
def test_a_compiled_loop_carries_constants_and_arguments(monkeypatch, compile_after):
    """Compiled after ``compile_after`` iterations, a loop whose condition only returns a carried value and whose
    body returns a constant gives the walked loop's results."""
    from hlokit.interpreter.compiled import _Plan

    x = np.array([0.5, 1.5, -2.0], np.float32)
    monkeypatch.setattr(_Plan, "COMPILE_AFTER", 10**9)
    walked = hlokit.interpret(_FLAG_LOOP, [x])
    monkeypatch.setattr(_Plan, "COMPILE_AFTER", compile_after)
    got = hlokit.interpret(_FLAG_LOOP, [x])
    assert [g.tobytes() for g in got] == [w.tobytes() for w in walked]
    assert int(got[1]) == 137 and got[2].tolist() == [1.0, 2.0, 3.0]
    assert got[0].tolist() == (x + x + np.array([1, 2, 3], np.float32) * 136).tolist()  # (exact: small halves)


_REPLICA_LOOP = """
module @m attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.constant dense<300> : tensor<i32>
    %rid = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %rid : (tensor<ui32>) -> tensor<f32>
    %rb = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %w:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<4xf32>
     cond {
      %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %i2 = stablehlo.add %i, %one : tensor<i32>
      %a = stablehlo.add %acc, %rb : tensor<4xf32>
      stablehlo.return %i2, %a : tensor<i32>, tensor<4xf32>
    }
    return %w#1 : tensor<4xf32>
  }
}
"""


def test_each_process_runs_a_compiled_loop_in_its_own_scope():
    """The processes of a grid share their plans, and so a loop compiled by one of them; each runs it on the values
    of its own scope (here its replica id, read by the body from the enclosing block)."""
    outs = hlokit.interpret(_REPLICA_LOOP, [np.full(4, 0.5, np.float32)], num_replicas=2)
    assert [o[0].tolist() for o in outs] == [[0.5] * 4, [300.5] * 4]


def test_max_steps_lets_a_loop_below_the_limit_finish():
    text = _ENDLESS.replace("dense<true>", "dense<false>")
    assert int(hlokit.interpret(text, [np.int32(5)], max_steps=1)[0]) == 5


def test_cli_max_steps(tmp_path):
    import subprocess
    import sys

    tool = [sys.executable, "-c", "from hlokit.tools.hlokit_translate import main; raise SystemExit(main())"]
    path = tmp_path / "endless.mlir"
    path.write_text(_ENDLESS)
    p = subprocess.run([*tool, "--interpret", "--max-steps", "50", "--args",
                        "[dense<0> : tensor<i32>]", str(path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and f"{path}:3:" in p.stderr and "ran 50 iterations" in p.stderr, p.stderr
    p = subprocess.run([*tool, "--interpret", "--max-steps", "-1", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "--max-steps: expected" in p.stderr, p.stderr
