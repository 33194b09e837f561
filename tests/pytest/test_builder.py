"""The IR-building layer (hlokit.passes.builder): each feature yields verified IR with the right result."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import hlokit
from hlokit.passes.builder import Emitter, UnsupportedError, float_literal, shape_of_prefix, shape_prefix


def _run(e: Emitter, args, results, inputs):
    """Parse the emitter's function as ``@main`` (verified), run it in hlokit's interpreter."""
    text = e.text("main", args, results).replace("func.func private @main", "func.func @main")
    module = hlokit.parse(text)
    hlokit.verify(module)
    return hlokit.interpret(module, [np.asarray(x) for x in inputs])


def test_shape_prefix_round_trip():
    assert shape_prefix([2, -1, 3]) == "2x?x3x"
    assert shape_of_prefix("2x?x3x") == [2, -1, 3]
    assert shape_prefix([]) == "" and shape_of_prefix("") == []
    with pytest.raises(UnsupportedError):
        shape_of_prefix("$S")


@pytest.mark.parametrize(
    "t, value, expect",
    [
        ("f32", 1.5, np.float32(1.5)),
        ("f64", -0.1, np.float64(-0.1)),
        ("f16", math.inf, np.float16(np.inf)),
        ("bf16", -math.inf, np.array(-np.inf, dtype=ml_dtypes.bfloat16)),
        ("i1", True, np.bool_(True)),
        ("ui8", 255, np.uint8(255)),
        ("i64", -7, np.int64(-7)),
        ("complex<f32>", 1 - 2j, np.complex64(1 - 2j)),
    ],
)
def test_constants_of_any_element_type(t, value, expect):
    e = Emitter()
    c = e.const(value, t=t, s="2x")
    (r,) = _run(e, [], [c], [])
    assert r.shape == (2,)
    np.testing.assert_array_equal(np.asarray(r), np.full((2,), expect))


def test_float_literals_of_small_floats_and_nan():
    assert float_literal(math.nan, "f32") == "0x7FC00000"
    assert float_literal(math.inf, "f8E5M2") == "0x7c"
    assert int(float_literal(math.nan, "f8E4M3FN"), 16) == 0x7F
    e = Emitter()
    c = e.const(math.nan, t="f8E4M3FN", s="")
    d = e.const(2.0, t="f8E4M3FN", s="")
    hlokit.verify(hlokit.parse(e.text("f", [], [c, d])))


def test_arithmetic_compare_select_and_constant_reuse():
    e = Emitter(loc="test.op")
    (x,) = e.args([("4x", "f32")])
    y = e.select(x.lt(0.0), -x, x * 2.0 + 1.0)
    text = e.text("main", [x], [y])
    assert text.count("dense<0.0") == 1 and 'loc("test.op")' in text
    (r,) = _run(e, [x], [y], [np.array([-1, 0, 1, 2], np.float32)])
    np.testing.assert_array_equal(r, [1, 1, 3, 5])


def test_shape_ops():
    e = Emitter()
    (x,) = e.args([("2x3x", "f32")])
    b = e.broadcast_in_dim(e.iota([3], 0, "f32"), [2, 3])  # trailing alignment
    s = x + b
    t = e.transpose(s, [1, 0])  # 3x2
    r = e.reshape(t, [6])
    c = e.concatenate([r, e.slice(r, [0], [4], [2])], 0)  # 8
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = _run(e, [x], [c], [xv])
    want = (xv + np.arange(3)).T.reshape(6)
    np.testing.assert_array_equal(out, np.concatenate([want, want[0:4:2]]))


def test_dot_general_and_reduce_with_a_callable_body():
    e = Emitter()
    a, b = e.args([("2x3x4x", "f32"), ("2x4x5x", "f32")])
    d = e.dot_general(a, b, [0], [0], [2], [1])  # 2x3x5
    assert d.shape == [2, 3, 5]
    (m,) = e.reduce([d], [e.scalar(-math.inf, "f32")], [2], lambda acc, v: e.max(acc, v))
    s = e.reduce_sum(d, [1, 2])
    rng = np.random.default_rng(0)
    av, bv = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    rm, rs = _run(e, [a, b], [m, s], [av, bv])
    ref = np.einsum("bik,bkj->bij", av, bv)
    np.testing.assert_allclose(rm, ref.max(axis=2), rtol=1e-5)
    np.testing.assert_allclose(rs, ref.sum(axis=(1, 2)), rtol=1e-4, atol=1e-5)


def test_sort_with_a_comparator():
    e = Emitter()
    (x,) = e.args([("5x", "f32")])
    idx = e.iota([5], 0, "i32")
    vals, inds = e.sort([x, idx], 0, lambda a, b, c, d: e.cmp("GT", a, b, "TOTALORDER"))
    (rv, ri) = _run(e, [x], [vals, inds], [np.array([3, 1, 4, 1, 5], np.float32)])
    np.testing.assert_array_equal(rv, [5, 4, 3, 1, 1])
    np.testing.assert_array_equal(ri, [4, 2, 0, 1, 3])


def test_while_loop_with_dynamic_slice_and_update():
    """Reverse a vector: out[n-1-i] = x[i] for i in 0..n-1, loop-carried (i, out)."""
    n = 6
    e = Emitter()
    (x,) = e.args([(f"{n}x", "i32")])
    out0 = e.const(0, t="i32", s=f"{n}x")

    def cond(i, out):
        return i.lt(e.scalar(n, "i64"))

    def body(i, out):
        el = e.dynamic_slice(x, [i], [1])
        j = e.scalar(n - 1, "i64") - i
        return [i + 1, e.dynamic_update_slice(out, el, [j])]

    _, res = e.while_loop([e.scalar(0, "i64"), out0], cond, body)
    (r,) = _run(e, [x], [res], [np.arange(n, dtype=np.int32)])
    np.testing.assert_array_equal(r, np.arange(n)[::-1])


def test_dynamic_shapes():
    e = Emitter()
    (x,) = e.args([("2x?x", "f32")])
    shape = e.shape_of(x, [2, -1])
    one = e.dynamic_broadcast_in_dim(e.scalar(1.0, "f32"), shape, [2, -1], [])
    e.shape_tensor = shape
    y = x + one + 1.0  # the splat constant follows the runtime shape
    n = e.get_dimension_size(x, 1)
    ry, rn = _run(e, [x], [y, n], [np.zeros((2, 3), np.float32)])
    np.testing.assert_array_equal(np.asarray(ry), np.full((2, 3), 2.0))
    assert int(np.asarray(rn)) == 3


def test_splice_point_is_a_placeholder_custom_call():
    e = Emitter()
    (x,) = e.args([("3x", "f32")])
    (y,) = e.splice_point("__body", [x], [("3x", "f32")])
    text = e.text("f", [x], [y])
    assert 'call_target_name = "__body"' in text
    hlokit.verify(hlokit.parse(text))
