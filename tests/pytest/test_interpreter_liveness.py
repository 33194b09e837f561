"""The interpreter's plans: values freed after their last use, splat constants kept as broadcast views,
sort comparators turned into keys, blocks compiled after their first runs — with the same results and
the same located errors as a plain walk."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import hlokit
from hlokit.interpreter import InterpreterError, registry
from hlokit.interpreter.compiled import _Plan
from hlokit.interpreter.values import to_array


@pytest.fixture
def observe(monkeypatch):
    """Custom-call targets ``test.keep`` (copies its operand and remembers it weakly) and ``test.alive``
    (records, each time it runs, whether the kept arrays are still alive; returns its operand)."""
    kept: list[weakref.ref] = []
    seen: list[list[bool]] = []

    def keep(op, operands, interp):
        x = np.array(operands[0], copy=True)
        kept.append(weakref.ref(x))
        return [x]

    def alive(op, operands, interp):
        gc.collect(0)  # (young objects only: a full collection per call cost seconds in a long test run)
        seen.append([r() is not None for r in kept])
        return [operands[0]]

    monkeypatch.setitem(registry.CUSTOM_CALLS, "test.keep", keep)
    monkeypatch.setitem(registry.CUSTOM_CALLS, "test.alive", alive)
    return seen


def test_value_is_freed_after_its_last_use(observe):
    text = """
    func.func @main(%a: tensor<1000xf32>) -> tensor<1000xf32> {
      %k = stablehlo.custom_call @test.keep(%a) : (tensor<1000xf32>) -> tensor<1000xf32>
      %m = stablehlo.custom_call @test.keep(%a) : (tensor<1000xf32>) -> tensor<1000xf32>
      %0 = stablehlo.add %k, %k : tensor<1000xf32>
      %1 = stablehlo.custom_call @test.alive(%0) : (tensor<1000xf32>) -> tensor<1000xf32>
      %2 = stablehlo.add %1, %m : tensor<1000xf32>
      %3 = stablehlo.custom_call @test.alive(%2) : (tensor<1000xf32>) -> tensor<1000xf32>
      return %3 : tensor<1000xf32>
    }
    """
    a = np.arange(1000, dtype=np.float32)
    (out,) = hlokit.interpret(text, [a])
    np.testing.assert_array_equal(out, 3 * a)
    # at the first check %k is dead (its last use was the add) and %m still has a use; at the second both are dead
    assert observe == [[False, True], [False, False]]


#: A loop whose body reads %k, a value of the enclosing block (so %k also lives in the frame the regions read);
#: TAIL follows the loop.
_LOOP_READING_K = """
    func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %k = stablehlo.custom_call @test.keep(%a) : (tensor<4xf32>) -> tensor<4xf32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %n = stablehlo.constant dense<TRIPS> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %r:2 = stablehlo.while(%i = %zero, %acc = %a) : tensor<i32>, tensor<4xf32>
       cond {
        %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %i2 = stablehlo.add %i, %one : tensor<i32>
        %s = stablehlo.add %acc, %k : tensor<4xf32>
        %t = stablehlo.custom_call @test.alive(%s) : (tensor<4xf32>) -> tensor<4xf32>
        stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
      }
      TAIL
    }
"""


@pytest.mark.parametrize("trips, tail, result, after_loop", [
    # the while is %k's last use: gone right after it (the body read it on every trip, walked, then compiled)
    (_Plan.COMPILE_AFTER + 20, """%z = stablehlo.custom_call @test.alive(%r#1) : (tensor<4xf32>) -> tensor<4xf32>
      return %z : tensor<4xf32>""", _Plan.COMPILE_AFTER + 21, [[False]]),
    # a plain add after the loop is its last use: alive before it, gone after it (from the slots and the frame)
    (3, """%y = stablehlo.custom_call @test.alive(%r#1) : (tensor<4xf32>) -> tensor<4xf32>
      %u = stablehlo.add %y, %k : tensor<4xf32>
      %z = stablehlo.custom_call @test.alive(%u) : (tensor<4xf32>) -> tensor<4xf32>
      return %z : tensor<4xf32>""", 5, [[True], [False]]),
], ids=["last-use-by-the-loop", "later-plain-use"])
def test_values_read_by_a_region_live_until_their_last_use(observe, trips, tail, result, after_loop):
    text = _LOOP_READING_K.replace("TRIPS", str(trips)).replace("TAIL", tail)
    a = np.array([1, 2, 3, 4], np.float32)
    (out,) = hlokit.interpret(text, [a])
    np.testing.assert_array_equal(out, result * a)
    assert observe[:trips] == [[True]] * trips
    assert observe[trips:] == after_loop


def test_splat_constants_are_broadcast_views():
    with hlokit.make_context():
        from jaxlib.mlir import ir

        value = to_array(ir.Attribute.parse("dense<0x7FC00001> : tensor<64x128xf32>"))
        dense = to_array(ir.Attribute.parse("dense<[1.0, 2.0]> : tensor<2xf32>"))
    assert value.shape == (64, 128) and value.strides == (0, 0) and not value.flags.writeable
    assert value.view(np.uint32)[5, 7] == 0x7FC00001  # the NaN payload is kept
    assert dense.flags.writeable and dense.strides == (4,)
    text = """
    func.func @main() -> (tensor<3x2xf32>, tensor<3x2xf32>) {
      %c = stablehlo.constant dense<-0.0> : tensor<3x2xf32>
      %d = stablehlo.negate %c : tensor<3x2xf32>
      return %c, %d : tensor<3x2xf32>, tensor<3x2xf32>
    }
    """
    c, d = hlokit.interpret(text)
    assert c.flags.writeable and c.flags.c_contiguous  # the caller's own copy
    assert np.signbit(c).all() and not np.signbit(d).any()


_SORT = """
func.func @main(%a: tensor<{n}xf32>, %b: tensor<{n}xi32>) -> (tensor<{n}xf32>, tensor<{n}xi32>) {{
  %0:2 = "stablehlo.sort"(%a, %b) <{{dimension = 0 : i64, is_stable = true}}> ({{
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>, %x1: tensor<i32>, %y1: tensor<i32>):
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %ex = stablehlo.compare EQ, %x0, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %kx = stablehlo.select %ex, %z, %x0 : tensor<i1>, tensor<f32>
    %ey = stablehlo.compare EQ, %y0, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %ky = stablehlo.select %ey, %z, %y0 : tensor<i1>, tensor<f32>
    %lt1 = stablehlo.compare {dir1}, {i1a}, {i1b}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt0 = stablehlo.compare {dir0}, %kx, %ky, {ctype} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq0 = stablehlo.compare EQ, %kx, %ky, {ctype} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %and = stablehlo.and %eq0, %lt1 : tensor<i1>
    %or = stablehlo.or %lt0, %and : tensor<i1>
    stablehlo.return %or : tensor<i1>
  }}) : (tensor<{n}xf32>, tensor<{n}xi32>) -> (tensor<{n}xf32>, tensor<{n}xi32>)
  return %0#0, %0#1 : tensor<{n}xf32>, tensor<{n}xi32>
}}
"""


@pytest.mark.parametrize(
    "dir0, dir1, swapped, ctype",
    [("LT", "LT", False, "TOTALORDER"), ("GT", "LT", False, "TOTALORDER"), ("LT", "GT", False, "FLOAT"),
     ("LT", "LT", True, "TOTALORDER"), ("GT", "GT", True, "FLOAT")],
)
def test_lexicographic_comparator_sorts_like_the_merge_sort(monkeypatch, dir0, dir1, swapped, ctype):
    n = 200
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 3, n).astype(np.float32)
    a[::7] = -0.0
    b = rng.integers(0, 5, n).astype(np.int32)
    i1a, i1b = ("%y1", "%x1") if swapped else ("%x1", "%y1")
    text = _SORT.format(n=n, dir0=dir0, dir1=dir1, i1a=i1a, i1b=i1b, ctype=ctype)
    by_keys = hlokit.interpret(text, [a, b])
    monkeypatch.setattr("hlokit.interpreter.data_movement.comparator_keys", lambda region: None)
    merge = hlokit.interpret(text, [a, b])
    for x, y in zip(by_keys, merge):
        assert x.tobytes() == y.tobytes()
    # and the order is the one the comparator states: key 0 (-0 == +0), then key 1 (swapped sides reverse it)
    k0 = np.where(by_keys[0] == 0, 0, by_keys[0]).astype(np.float64) * (-1 if dir0 == "GT" else 1)
    k1 = by_keys[1].astype(np.int64) * (-1 if (dir1 == "GT") != swapped else 1)
    keys = list(zip(k0, k1))
    assert keys == sorted(keys)


def test_float_keys_with_nans_fall_back_to_the_comparator():
    n = 64
    a = np.linspace(-2, 2, n).astype(np.float32)
    a[::5] = np.nan
    b = np.arange(n, dtype=np.int32)
    text = _SORT.format(n=n, dir0="LT", dir1="LT", i1a="%x1", i1b="%y1", ctype="TOTALORDER")
    out, idx = hlokit.interpret(text, [a, b])
    assert np.isnan(out[-13:]).all() and (np.diff(out[:-13]) >= 0).all()
    assert sorted(idx.tolist()) == list(range(n))


_LOOP = """
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<NUM> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<8xf32>
   cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %h = stablehlo.constant dense<0.5> : tensor<f32>
    %hb = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %a1 = stablehlo.multiply %acc, %hb : tensor<8xf32>
    %f = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %fb = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %a2 = stablehlo.add %a1, %fb : tensor<8xf32>
    %s = stablehlo.custom_call @test.fail_at(%a2) : (tensor<8xf32>) -> tensor<8xf32>
    stablehlo.return %i2, %s : tensor<i32>, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}
"""


@pytest.mark.parametrize("compile_after", [0, 1000])
def test_compiled_and_walked_blocks_agree(monkeypatch, compile_after):
    calls = []

    def fail_at(op, operands, interp):
        calls.append(1)
        if len(calls) == 45:
            raise ValueError("trip 45")
        return [operands[0]]

    monkeypatch.setitem(registry.CUSTOM_CALLS, "test.fail_at", fail_at)
    monkeypatch.setattr(_Plan, "COMPILE_AFTER", compile_after)
    x = np.arange(8, dtype=np.float32)
    (out,) = hlokit.interpret(_LOOP.replace("NUM", "40"), [x])
    ref = x.copy()
    for i in range(40):
        ref = ref * np.float32(0.5) + np.float32(i)
    np.testing.assert_array_equal(out, ref)
    calls.clear()
    with pytest.raises(InterpreterError) as err:
        hlokit.interpret(_LOOP.replace("NUM", "60"), [x])
    # located at the custom_call (line 18 of the program), the walker's message
    assert ":18:" in str(err.value) and "internal error: ValueError: trip 45" in str(err.value)


def test_adapter_result_count_is_checked(monkeypatch):
    monkeypatch.setitem(registry.CUSTOM_CALLS, "test.two", lambda op, operands, interp: [operands[0], operands[0]])
    text = """
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.custom_call @test.two(%a) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    """
    with pytest.raises(InterpreterError, match="interpreter produced 2 results, the op has 1"):
        hlokit.interpret(text, [np.zeros(2, np.float32)])
