"""Blocked LU (``passes/lapack/lu.py``, ``build_getrf`` beyond one panel) against jaxlib's LAPACK ``?getrf``.

The matrices here have more than 64 columns, so the legalized program runs the block loop (whole blocks of
``nb`` columns: panel loop, gather, ``triangular_solve``, ``dot_general``) and the static tail panel; the
pivots must be LAPACK's, ``info`` the first zero pivot (also in a later block), the factors within the
backward-error bound ``C n eps cond(A)`` (Higham, *Accuracy and Stability of Numerical Algorithms*, Thm 9.3).
"""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
import hlokit.passes.stablehlo_legalize_lapack_custom_calls  # noqa: F401  (registers the pass)
from hlokit import backend
from hlokit.passes import run_pipeline
from hlokit.passes.lapack.lu import getrf_block_size

PIPELINE = "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))"
_T = {"float32": "f32", "float64": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>"}
_C = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


def _getrf(dtype: str, batch: tuple[int, ...], m: int, n: int) -> str:
    """A ``lapack_?getrf_ffi`` call as jaxlib writes it (column-major layouts)."""
    r = len(batch)
    b = "".join(f"{d}x" for d in batch)
    a_t = f"tensor<{b}{m}x{n}x{_T[dtype]}>"
    p_t = f"tensor<{b}{min(m, n)}xi32>"
    i_t = f"tensor<{'x'.join(map(str, batch))}xi32>" if batch else "tensor<i32>"

    def layout(dims):
        return f"dense<[{', '.join(map(str, dims))}]> : tensor<{len(dims)}xindex>" if dims else \
            "dense<> : tensor<0xindex>"

    rev = list(range(r - 1, -1, -1))
    return (f"func.func @main(%a: {a_t}) -> ({a_t}, {p_t}, {i_t}) {{\n"
            f"  %0:3 = stablehlo.custom_call @lapack_{_C[dtype]}getrf_ffi(%a) {{mhlo.backend_config = {{}}, "
            f"mhlo.frontend_attributes = {{num_batch_dims = \"{r}\"}}, operand_layouts = [{layout([r, r + 1] + rev)}], "
            f"result_layouts = [{layout([r, r + 1] + rev)}, {layout([r] + rev)}, {layout(rev)}]}} "
            f": ({a_t}) -> ({a_t}, {p_t}, {i_t})\n"
            f"  return %0#0, %0#1, %0#2 : {a_t}, {p_t}, {i_t}\n}}\n")


def _legalize(text: str) -> str:
    module = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(module, PIPELINE)
    return str(module)


def _matrix(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _check(dtype, a, batch, m, n):
    text = _getrf(dtype, batch, m, n)
    legal = _legalize(text)
    assert "lapack_" not in legal and "stablehlo.dot_general" in legal and "stablehlo.triangular_solve" in legal
    want = backend.compile(text)(a)
    got = backend.compile(legal)(a)
    np.testing.assert_array_equal(got[1], want[1])  # the same pivots as LAPACK
    np.testing.assert_array_equal(got[2], want[2])
    eps = np.finfo(np.dtype(dtype)).eps
    scale = np.abs(want[0]).max()
    assert np.abs(got[0] - want[0]).max() <= 50 * max(m, n) * eps * scale * 10, np.abs(got[0] - want[0]).max()
    return got


def test_block_size_grows_with_the_matrix():
    assert getrf_block_size(4, "f64") == 4 and getrf_block_size(32, "f64") == 32
    assert getrf_block_size(65, "f64") == 32 and getrf_block_size(1024, "complex<f32>") == 64
    assert getrf_block_size(20, "f32") == 20 and getrf_block_size(1024, "f32") == 32


@pytest.mark.parametrize("dtype, batch, m, n", [
    ("float32", (), 200, 200),      # 3 whole blocks and a tail of 8 columns
    ("float64", (2,), 128, 128),    # whole blocks only
    ("complex64", (2, 2), 90, 70),  # tall, batched twice
    ("complex128", (), 70, 130),    # wide: U12 of the trailing columns past min(m, n)
    ("float64", (3,), 200, 40),     # tall and narrow: one panel
])
def test_blocked_getrf_equals_lapack(dtype, batch, m, n):
    if min(m, n) > 64:
        _check(dtype, _matrix(dtype, (*batch, m, n)), batch, m, n)
    else:  # one panel: no block loop, still LAPACK's pivots
        text = _getrf(dtype, batch, m, n)
        a = _matrix(dtype, (*batch, m, n))
        got, want = backend.compile(_legalize(text))(a), backend.compile(text)(a)
        np.testing.assert_array_equal(got[1], want[1])


def test_zero_pivot_in_a_later_block_sets_info_like_lapack():
    # An all-zero column stays exactly zero through the elimination: a zero pivot at column 70 (block 2)
    # of the first matrix and at column 135 (the tail panel) of the second; the other columns go on.
    a = _matrix("float64", (2, 140, 140), seed=3)
    a[0, :, 70] = 0.0
    a[1, :, 135] = 0.0
    got = _check("float64", a, (2,), 140, 140)
    assert list(got[2]) == [71, 136]


def test_interpreter_runs_the_blocked_program():
    # The block loop, the gathers and the triangular_solve (expanded for the interpreter) on hlokit's own
    # interpreter: the same pivots and info as LAPACK, the factors within the bound.
    dtype, batch, m, n = "float64", (2,), 72, 72
    text = _getrf(dtype, batch, m, n)
    a = _matrix(dtype, (*batch, m, n), seed=5)
    want = backend.compile(text)(a)
    got = [np.asarray(g) for g in hlokit.interpret(_legalize(text), [a])]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])
    assert np.abs(got[0] - want[0]).max() <= 500 * n * np.finfo(np.float64).eps * np.abs(want[0]).max()
