"""hlokit.backend: XLA compile + run on numpy arrays, every element type, argument checking, caching."""

from __future__ import annotations

import gc
import os

import ml_dtypes
import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit.dtypes import dtype_of, element_type_of

ELEMENT_TYPES = [
    ("i1", np.bool_),
    ("i8", np.int8), ("i16", np.int16), ("i32", np.int32), ("i64", np.int64),
    ("ui8", np.uint8), ("ui16", np.uint16), ("ui32", np.uint32), ("ui64", np.uint64),
    ("f16", np.float16), ("bf16", ml_dtypes.bfloat16), ("f32", np.float32), ("f64", np.float64),
    ("f8E4M3FN", ml_dtypes.float8_e4m3fn), ("f8E5M2", ml_dtypes.float8_e5m2),
    ("f8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz), ("f8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz),
    ("complex<f32>", np.complex64), ("complex<f64>", np.complex128),
]


def _identity_and_reverse(t: str) -> str:
    return f"""func.func @main(%a: tensor<2x3x{t}>) -> (tensor<2x3x{t}>, tensor<2x3x{t}>) {{
  %0 = stablehlo.reverse %a, dims = [1] : tensor<2x3x{t}>
  func.return %a, %0 : tensor<2x3x{t}>, tensor<2x3x{t}>
}}"""


@pytest.mark.parametrize("mlir_type,dtype", ELEMENT_TYPES, ids=[t for t, _ in ELEMENT_TYPES])
def test_every_element_type_crosses_the_boundary(ctx, mlir_type, dtype):
    m = hlokit.parse(_identity_and_reverse(mlir_type), context=ctx)
    exe = backend.compile(m)
    rng = np.random.default_rng(0)
    if dtype == np.bool_:
        x = rng.integers(0, 2, (2, 3)).astype(np.bool_)
    elif np.issubdtype(np.dtype(dtype), np.complexfloating):
        x = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(dtype)
    else:
        x = rng.integers(0, 5, (2, 3)).astype(dtype)
    same, rev = exe(x)
    assert same.dtype == np.dtype(dtype) and rev.dtype == np.dtype(dtype)
    assert same.tobytes() == x.tobytes()  # bit patterns survive
    assert rev.tobytes() == x[:, ::-1].tobytes()
    assert dtype_of(element_type_of(np.dtype(dtype), ctx)) == np.dtype(dtype)


def test_arithmetic_matches_numpy(ctx):
    m = hlokit.parse("""func.func @main(%a: tensor<4xi32>, %b: tensor<4xf64>) -> (tensor<4xi32>, tensor<4xf64>) {
  %0 = stablehlo.multiply %a, %a : tensor<4xi32>
  %1 = stablehlo.sqrt %b : tensor<4xf64>
  func.return %0, %1 : tensor<4xi32>, tensor<4xf64>
}""", context=ctx)
    a = np.array([1, -2, 70000, 5], np.int32)
    b = np.array([0.0, 2.0, 9.0, 1e300])
    r0, r1 = backend.compile(m)(a, b)
    np.testing.assert_array_equal(r0, a * a)  # wraps modulo 2^32 like numpy
    np.testing.assert_array_equal(r1, np.sqrt(b))


def test_argument_checking(ctx):
    m = hlokit.parse(_identity_and_reverse("f32"), context=ctx)
    exe = backend.compile(m)
    with pytest.raises(backend.BackendError, match=r"takes 1 argument\(s\) \(tensor<2x3xf32>\) but 0 were given"):
        exe()
    with pytest.raises(backend.BackendError, match=r"expected shape \(2, 3\)"):
        exe(np.zeros((3, 2), np.float32))
    with pytest.raises(backend.BackendError, match="expected element type float32"):
        exe(np.zeros((2, 3), np.float64))


def test_cache_by_fingerprint_and_function(ctx):
    text = _identity_and_reverse("i32")
    a = backend.compile(hlokit.parse(text, context=ctx))
    b = backend.compile(hlokit.parse(text, context=hlokit.make_context()))
    assert a is b
    c = backend.compile(text.replace("dims = [1]", "dims = [0]"))
    assert c is not a


def _add_constant(k: int) -> str:
    return f"""func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %c = stablehlo.constant dense<{k}.0> : tensor<4xf32>
  %y = stablehlo.add %x, %c : tensor<4xf32>
  func.return %y : tensor<4xf32>
}}"""


def test_cache_keeps_the_most_recent_executables_only():
    # Each XLA executable holds memory mappings of its own: an unbounded cache crashed XLA in a long test run
    # (past the kernel's 65,530 mappings). The last COMPILE_CACHE_SIZE stay; older ones are compiled again.
    size = backend.COMPILE_CACHE_SIZE
    first = backend.compile(_add_constant(-1))
    assert backend.compile(_add_constant(-1)) is first
    for k in range(size):
        backend.compile(_add_constant(k))
    recent = backend.compile(_add_constant(size - 1))
    assert backend.compile(_add_constant(size - 1)) is recent
    again = backend.compile(_add_constant(-1))
    assert again is not first
    np.testing.assert_array_equal(again(np.ones(4, np.float32))[0], np.zeros(4, np.float32))


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="counts Linux memory mappings")
def test_compiling_many_programs_does_not_grow_memory_mappings():
    def mappings() -> int:
        with open("/proc/self/maps") as f:
            return sum(1 for _ in f)

    for k in range(backend.COMPILE_CACHE_SIZE):  # the cache full: what it holds no longer grows
        backend.compile(_add_constant(1000 + k))
    gc.collect()
    before = mappings()
    for k in range(200):  # (each kept executable added about 3 mappings)
        backend.compile(_add_constant(2000 + k))
    gc.collect()
    assert mappings() - before < 100


def test_entry_function_other_than_main(ctx):
    m = hlokit.parse("""
func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = func.call @twice(%a) : (tensor<2xi32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
func.func private @twice(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %a : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}""", context=ctx)
    x = np.array([3, 4], np.int32)
    np.testing.assert_array_equal(backend.compile(m, function="twice")(x)[0], 2 * x)
    np.testing.assert_array_equal(backend.compile(m)(x)[0], 2 * x)
    with pytest.raises(backend.BackendError, match=r"no function '@nope' in the module \(functions: main, twice\)"):
        backend.compile(m, function="nope")


def test_dynamic_shapes_and_unknown_platform_are_refused(ctx):
    m = hlokit.parse("""func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  func.return %a : tensor<?xf32>
}""", context=ctx)
    with pytest.raises(backend.BackendError, match="dynamic shape 'tensor<\\?xf32>'"):
        backend.compile(m)
    ok = hlokit.parse(_identity_and_reverse("f32"), context=ctx)
    with pytest.raises(backend.BackendError, match="unknown platform 'metal'"):
        backend.compile(ok, "metal")
    with pytest.raises(backend.BackendError, match="platform 'tpu' is not available"):
        backend.compile(ok, "tpu")


def test_xla_rejection_is_a_clear_error(ctx):
    m = hlokit.parse("""func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @no_such_kernel_anywhere(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}""", context=ctx)
    with pytest.raises(backend.BackendError, match="XLA could not compile the program"):
        backend.compile(m)(np.zeros(2, np.float32))
