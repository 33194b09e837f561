"""Shared by the tests of the f32 CHLO kernels (test_chlo_native_*.py): one unary CHLO op lowered with
``chlo-legalize-to-stablehlo{precision=...}`` and run on XLA, and the special-value comparison of the
native lowering against the wide one.

The kernels run on XLA CPU, or on the platform ``HLOKIT_TEST_PLATFORM`` names: ``.ci/gpu`` runs these tests
with ``cuda`` on a GPU machine, where XLA's own ``exp`` / ``log`` / division differ from the CPU's."""

from __future__ import annotations

import os

import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit.passes import run_pipeline
from test_chlo_numerics import ulp_error


#: The XLA platform the kernels run on (``HLOKIT_TEST_PLATFORM``; default ``cpu``).
PLATFORM = os.environ.get("HLOKIT_TEST_PLATFORM", "cpu")


#: tan's kernels inherit some of the platform's own functions: real tan beyond |x| = 25 is StableHLO ``tan``, and
#: complex tan next to the real axis divides by cos^2 x from StableHLO ``cosine``. XLA CPU's are within 1.41 ULP;
#: XLA CUDA's are libdevice's (``tanf`` 4 ULP at most by the CUDA math library's documentation). Measured on an
#: H200 (jax 0.11.2): real tan 2.33 ULP (at x = 6417), complex tan 4.08 per part (the imaginary part at
#: 0.9989 + 0.0045i), XLA's own complex tan lowering there 2.45. These tests are expected to fail off the CPU.
PLATFORM_TAN = pytest.mark.xfail(PLATFORM != "cpu", strict=False,
                                 reason="tan beyond 25 and cos^2 x are the platform's own (libdevice on XLA CUDA)")


def with_platform_tan(ops):
    """``ops`` for ``pytest.mark.parametrize``, ``tan`` marked :data:`PLATFORM_TAN`."""
    return [pytest.param(op, marks=PLATFORM_TAN) if op == "tan" else op for op in ops]


def xla_compile(module):
    """:func:`hlokit.backend.compile` for :data:`PLATFORM`."""
    return backend.compile(module, platform=PLATFORM)


def lowered(ctx, op: str, t: str, n: int, precision: str = "native"):
    """The module of ``chlo.<op>`` on ``tensor<n x t>``, legalized with ``precision``."""
    text = (f"func.func @main(%a: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{\n"
            f"  %0 = chlo.{op} %a : tensor<{n}x{t}> -> tensor<{n}x{t}>\n"
            f"  return %0 : tensor<{n}x{t}>\n}}\n")
    m = hlokit.parse(text, context=ctx)
    run_pipeline(m, f"builtin.module(func.func(chlo-legalize-to-stablehlo{{precision={precision}}}))")
    return m


def run(ctx, op: str, t: str, xs: np.ndarray, precision: str = "native") -> np.ndarray:
    """``chlo.<op>(xs)`` through :func:`lowered` on XLA (:data:`PLATFORM`)."""
    return np.asarray(xla_compile(lowered(ctx, op, t, xs.size, precision))(xs)[0])


def assert_specials_match_wide(nat: np.ndarray, wide: np.ndarray, bound: float) -> None:
    """NaN and inf positions, infinities and the signs of zeros of the native results equal the wide ones;
    the finite ones are within ``bound`` + 0.5 ULP of them."""
    np.testing.assert_array_equal(np.isnan(nat), np.isnan(wide))
    np.testing.assert_array_equal(np.isinf(nat), np.isinf(wide))
    inf = ~np.isfinite(wide) & ~np.isnan(wide)
    np.testing.assert_array_equal(nat[inf], wide[inf])
    zero = wide == 0
    np.testing.assert_array_equal(np.signbit(nat[zero]), np.signbit(wide[zero]))
    assert ulp_error(nat, wide.astype(np.float64), np.float32).max() <= bound + 0.5
