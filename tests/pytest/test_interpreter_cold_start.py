"""The first ``hlokit.interpret`` of a process does no work a warm call would not (issue 40, item 5): it imports
no pass module when the program needs no legalization, and the markers it reads then (``api.COLD_MARKERS``)
are the ones the passes declare. ``import hlokit.interpreter`` loads neither ``ml_dtypes`` nor ``hlokit.quant``
nor any module of ``hlokit.passes`` but the package itself (whose names load on first use); those load when a
program needs them (a bf16 type, a quantized type, a legalization). Pinned by what a fresh process has imported,
not by timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from hlokit.interpreter import api
from hlokit.passes.registry import PASS_MODULES

_TEXT_SAMPLES = [
    "%0 = stablehlo.broadcast_in_dim %x, dims = [0]",
    "%0 = stablehlo.broadcast %x, sizes = [2]",
    '%0 = "stablehlo.broadcast"(%x)',
    "stablehlo.broadcast",
    "stablehlo.broadcast-x stablehlo.einsum_x stablehlo.einsum",
    "stablehlo.unary_einsum(", "stablehlo.cross-replica-sum", "stablehlo.cross-replica-sum_2",
    "stablehlo.batch_norm_training", "stablehlo.batch_norm_grad2", "stablehlo.torch_index_select%",
    "stablehlo.add stablehlo.multiply", "",
]


@pytest.mark.parametrize("text", _TEXT_SAMPLES)
def test_the_cold_marker_search_is_the_pattern(text):
    """``_has_cold_marker`` (``str.find``, no regular expression to compile on a first call) finds what
    ``_marker_pattern`` of the cold names finds."""
    pattern = api._marker_pattern(api.COLD_MARKERS[0])
    assert api._has_cold_marker(text) == bool(pattern.search(text))
    assert api._has_cold_marker("x " + text + "\n") == bool(pattern.search("x " + text + "\n"))


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


def test_the_element_type_of_a_tensor_spelling_is_the_expression_s():
    """``dtypes._tensor_element`` (no regular expression to compile on a first call) captures what the expression
    it replaced captures, on spellings and on random strings of the characters that matter."""
    import random
    import re

    from hlokit.dtypes import _tensor_element

    rng = random.Random(40)
    cases = ["tensor<2x3xf32>", "tensor<f32>", "tensor<2xcomplex<f32>>", "tensor<2x>", "tensor<2x3x>", "tensor<>",
             "tensor<?x4xbf16>", "tensor<2x!quant.uniform<i8:f32, 0.5>>", "f32", "tensor<1x2", "tensor<2x\nf32>"]
    cases += ["tensor<" + "".join(rng.choice("0123?x<>f\n") for _ in range(rng.randint(0, 8))) + rng.choice([">", ""])
              for _ in range(3000)]
    for text in cases:
        m = re.fullmatch(r"tensor<(?:[0-9?]+x)*(.+?)>", text)
        assert _tensor_element(text) == (m.group(1) if m else text), text


_IMPORT_CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import hlokit
    before = set(sys.modules)
    import hlokit.interpreter
    after_import = sorted(set(sys.modules) - before)
    out = {"import": after_import}
    if len(sys.argv) > 1:
        text = sys.stdin.read()
        x = np.array([0.25, 0.5], dtype=sys.argv[1])
        out["result"] = [float(v) for v in hlokit.interpret(text, [x])[0]]
    out["call"] = sorted(set(sys.modules) - before)
    print(json.dumps(out))
    """
)


def _imports(*argv: str, text: str = "") -> dict:
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    p = subprocess.run([sys.executable, "-c", _IMPORT_CHILD, *argv], input=text, capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


#: What ``import hlokit.interpreter`` and a first call of a program on numpy's own types must not load.
_NOT_AT_IMPORT = ("ml_dtypes", "hlokit.quant", "hlokit.passes.registry", "hlokit.passes.pipeline",
                  "hlokit.passes.prepare", "hlokit.passes.plugins", "hlokit.passes.refine", "hlokit.passes.chlo",
                  "jax")


def test_import_loads_no_ml_dtypes_quant_or_pass_machinery():
    r = _imports()
    loaded = set(r["import"])
    assert "hlokit.interpreter.api" in loaded and "hlokit.dtypes" in loaded  # (the child did import it)
    assert not loaded & set(_NOT_AT_IMPORT), sorted(loaded & set(_NOT_AT_IMPORT))
    assert not [m for m in loaded if m.startswith(("hlokit.passes.", "ml_dtypes.", "jaxlib.mlir.dialects."))]


def test_first_call_on_native_types_loads_nothing_more():
    r = _imports("float32", text=_PLAIN)
    assert r["result"] == [0.0625, 0.25]
    extra = set(r["call"]) - set(r["import"])
    assert not extra & set(_NOT_AT_IMPORT), sorted(extra)
    # (the dialects' Python modules every program needs load with hlokit.core: none with the first call)
    assert not [m for m in extra if m.startswith("jaxlib.mlir.dialects.")], sorted(extra)


_BF16 = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xbf16>
  %1 = stablehlo.multiply %0, %0 : tensor<2xbf16>
  %2 = stablehlo.convert %1 : (tensor<2xbf16>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""


def test_a_bf16_program_loads_ml_dtypes_when_it_runs():
    """(The child imports no ml_dtypes itself: the program's bf16 type makes the interpreter load it.)"""
    r = _imports("float32", text=_BF16)
    assert r["result"] == [0.0625, 0.25]
    assert "ml_dtypes" in r["call"] and "ml_dtypes" not in r["import"]
    assert "hlokit.quant" not in r["call"]


_QUANTIZED = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.25>>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""


def test_a_quantized_program_loads_the_quant_reader_when_it_runs():
    r = _imports("float32", text=_QUANTIZED)
    assert r["result"] == [0.25, 0.5]
    assert "hlokit.quant" in r["call"]


def test_the_lazy_tables_are_the_whole_tables():
    """The names read on first use give what an eager import gave: the passes package's re-exports, the dtypes
    tables, the interpreter's derived tables of ml_dtypes types."""
    import ml_dtypes
    import numpy as np

    import hlokit.passes as passes
    from hlokit import dtypes
    from hlokit.interpreter import data_movement, elementwise, numerics, quantization
    from hlokit.passes import pipeline, registry

    assert passes.run_pipeline is pipeline.run_pipeline and passes.register_pass is registry.register_pass
    assert passes.registry is registry and "run_pipeline" in dir(passes)
    with pytest.raises(AttributeError):
        passes.no_such_name
    assert list(dtypes.ELEMENT_TYPES)[:4] == ["i1", "i2", "i4", "i8"] and len(dtypes.ELEMENT_TYPES) == 37
    assert dtypes.DTYPES["bf16"] == np.dtype(ml_dtypes.bfloat16)
    assert np.dtype(ml_dtypes.uint4) in dtypes.SUB_BYTE_UINTS
    for name, e in dtypes.NATIVE_ELEMENT_TYPES.items():
        assert dtypes.ELEMENT_TYPES[name] == e
    assert np.dtype(ml_dtypes.float8_e5m2fnuz) in numerics.NO_SIGN_MAGNITUDE
    assert elementwise._FLOAT_LAYOUTS[np.dtype(ml_dtypes.bfloat16)] == (8, 7)
    assert data_movement._TOTALORDER_FLOATS[np.dtype(np.float16)] == np.int16
    assert quantization.quantized_type is __import__("hlokit.quant").quant.quantized_type


def test_threads_that_need_the_whole_table_at_once_all_get_it():
    """The first reads of the ``ml_dtypes`` tables from several threads at once (the interpreter's processes are
    threads) all answer: the table is swapped in whole, never seen half-built."""
    child = textwrap.dedent(
        """
        import sys, threading
        from hlokit import dtypes
        assert "ml_dtypes" not in sys.modules
        barrier, errors = threading.Barrier(8), []

        def work(k):
            barrier.wait()
            try:
                for name in ("bf16", "f8E4M3FN", "i4", "ui2", "f32", "i8"):
                    dt = dtypes.dtype_of(name)
                    assert dtypes.type_name(dt) == name, (name, dt)
                    bits = {"bf16": 16, "f8E4M3FN": 8, "i4": 4, "ui2": 2, "f32": 32, "i8": 8}[name]
                    assert dtypes.bit_width(dt) == bits, (name, dt)
            except Exception as err:  # (reported below)
                errors.append(repr(err))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print("errors", errors)
        assert not errors
        """
    )
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert p.returncode == 0, p.stdout + p.stderr
