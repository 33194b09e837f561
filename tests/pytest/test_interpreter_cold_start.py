"""The first ``hlokit.interpret`` of a process does no work a warm call would not (issue 40, item 5): it imports
no pass module when the program needs no legalization, and the markers it reads then (``api.COLD_MARKERS``)
are the ones the passes declare."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from hlokit.interpreter import api
from hlokit.passes.registry import PASS_MODULES


def test_cold_markers_are_the_passes_markers():
    """``COLD_MARKERS`` equals what the passes' declarations give (a pass that changes its ``illegal_ops`` /
    ``illegal_custom_calls`` updates ``hlokit.interpreter.api.COLD_MARKERS``)."""
    pattern, others = api._markers(api.interpreter_legalizations())
    names, cold_others = api.COLD_MARKERS
    cold_pattern = api._marker_pattern(names)
    live = (tuple(sorted(n[len("stablehlo."):] for leg in api.interpreter_legalizations() for n in leg.ops
                         if n.startswith("stablehlo."))), others)
    why = f"update hlokit.interpreter.api.COLD_MARKERS to the passes' markers: {live}"
    assert (cold_pattern.pattern if cold_pattern else None) == (pattern.pattern if pattern else None), why
    assert cold_others == others, why


_CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import hlokit
    import hlokit.interpreter
    from hlokit.passes.registry import PASS_MODULES
    text = sys.stdin.read()
    if sys.argv[1] == "module":  # (an ir.Module: the planner's check of each op, not the text's markers)
        text = hlokit.parse(text, context=hlokit.make_context())
    out = hlokit.interpret(text, [np.array([0.25, 0.5], np.float32)])
    print(json.dumps({"result": [float(x) for x in out[0]],
                      "pass_modules": sorted(m for m in PASS_MODULES if m in sys.modules),
                      "modules": sorted(m for m in sys.modules if m.startswith(("jax", "hlokit.passes")))}))
    """
)


def _first_call(text: str, mode: str = "text") -> dict:
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    p = subprocess.run([sys.executable, "-c", _CHILD, mode], input=text, capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


_PLAIN = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""
_ERF = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = chlo.erf %x : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


@pytest.mark.parametrize("mode", ["text", "module"])
def test_first_call_imports_no_pass_and_no_jax(mode):
    r = _first_call(_PLAIN, mode)
    assert r["result"] == [0.0625, 0.25]
    loaded = set(r["pass_modules"])
    assert not set(PASS_MODULES) <= loaded, "the first call loaded every pass"
    assert "hlokit.passes.chlo_legalize_to_stablehlo" not in loaded
    assert not [m for m in r["modules"] if m == "jax" or m.startswith("jax.")]
    # (the dialects' Python modules load with the first op of theirs, not with the context)
    assert "jaxlib.mlir.dialects.arith" not in r["modules"]


@pytest.mark.parametrize("mode", ["text", "module"])
def test_first_call_still_legalizes_what_needs_it(mode):
    """In a fresh process (cold markers), a CHLO op and a deprecated ``broadcast`` are still legalized."""
    r = _first_call(_ERF, mode)
    assert abs(r["result"][0] - 0.2763263901682369) < 1e-6  # erf(0.25)
    assert "hlokit.passes.chlo_legalize_to_stablehlo" in r["pass_modules"]
    r = _first_call(
        """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.broadcast"(%x) {broadcast_sizes = array<i64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
""",
        mode,
    )
    assert r["result"] == [0.25, 0.5]
    assert "hlokit.passes.stablehlo_legalize_deprecated_ops" in r["pass_modules"]
