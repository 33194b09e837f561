"""Guards of hlokit.jax_private: every private JAX / jaxlib symbol hlokit uses still exists and still works, and no
other product module imports a private JAX / jaxlib module.

A JAX release that moves one of them fails here first, with the JAX version and the symbol in the message,
instead of in a user's ``hlokit-run``.
"""

from __future__ import annotations

import ast
import os
import importlib
import pathlib
import subprocess
import sys

import jax
import jaxlib
import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit import jax_private

from conftest import REPO

VERSIONS = f"jax {jax.__version__} / jaxlib {jaxlib.__version__}"


@pytest.mark.parametrize("module,name", jax_private.USES, ids=[f"{m}.{n}" for m, n in jax_private.USES])
def test_private_symbol_still_exists(module, name):
    try:
        value = importlib.import_module(module)
    except ImportError:
        pytest.fail(f"{VERSIONS}: private module '{module}' is gone; hlokit/jax_private.py needs "
                    f"a new home for '{name}'")
    for part in name.split("."):
        value = getattr(value, part, None)
        assert value is not None, (
            f"{VERSIONS}: '{module}.{name}' moved or is gone; update hlokit/jax_private.py")
    assert callable(value) or isinstance(value, type(importlib)), (
        f"{VERSIONS}: '{module}.{name}' is no longer a function or module; update hlokit/jax_private.py")


#: What hlokit's passes take from MLIR's rewrite bindings (hlokit.jax_private.rewrite).
REWRITE_NAMES = ("RewritePatternSet", "ConversionTarget", "apply_partial_conversion", "apply_full_conversion",
                 "apply_patterns_and_fold_greedily", "walk_and_apply_patterns")


@pytest.mark.parametrize("name", REWRITE_NAMES)
def test_rewrite_bindings_have_what_passes_use(name):
    assert hasattr(jax_private.rewrite, name), f"{VERSIONS}: MLIR's rewrite bindings lost '{name}'"


def test_jax_private_imports_no_jax():
    """``hlokit-run --engine interpreter`` starts without jax: importing hlokit and its jaxlib shim loads no jax."""
    proc = subprocess.run([sys.executable, "-c", "import sys, hlokit, hlokit.jax_private; hlokit.make_context(); "
                           "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"


def test_private_hlo_converters_work():
    """The three XLA converters reached through jax_private: HLO text -> proto -> StableHLO -> HLO text."""
    hlo = "HloModule m\n\nENTRY main {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n"
    proto = jax_private.hlo_module_from_text(hlo).as_serialized_hlo_module_proto()
    module = hlokit.parse(jax_private.hlo_to_stablehlo(proto))
    assert "stablehlo.negate" in str(module)
    text = jax_private.mlir_module_to_xla_computation(str(module)).as_hlo_text()
    assert "negate(" in text


def test_moved_symbol_is_a_clear_error():
    with pytest.raises(jax_private.JaxInternalMoved, match=r"jax \S+ \(jaxlib \S+\) has no 'jax\._src\.nope\.x'"):
        jax_private.private_symbol("jax._src.nope", "x")
    with pytest.raises(jax_private.JaxInternalMoved, match=r"has no 'jax\._src\.lax\.linalg\.no_such_name'"):
        jax_private.private_symbol("jax._src.lax.linalg", "no_such_name")


LAPACK_PROGRAM = """func.func @main(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8},
      operand_layouts = [dense<[0, 1]> : tensor<2xindex>],
      result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]}
      : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  func.return %r#0 : tensor<3x3xf32>
}"""


def test_initialize_lapack_makes_lapack_custom_calls_run(ctx):
    """What the private call is for: a program calling jaxlib's LAPACK kernel runs and is right."""
    jax_private.initialize_lapack()
    a = np.array([[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]], np.float32)
    (got,) = backend.compile(hlokit.parse(LAPACK_PROGRAM, context=ctx))(a)
    np.testing.assert_allclose(np.tril(got), np.linalg.cholesky(a), rtol=1e-5, err_msg=VERSIONS)


#: Module prefixes that are private to JAX / jaxlib; only hlokit/jax_private.py may import them.
PRIVATE_PREFIXES = ("jax._src", "jaxlib.mlir._mlir_libs", "jaxlib._")


def _private_imports(path: pathlib.Path) -> list[str]:
    """``file:line: module`` for every import of a private JAX / jaxlib module in ``path`` (``import x``,
    ``from x import y``, ``from jaxlib import _x``, and string constants naming one: ``importlib`` routes)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        found += [f"{path.relative_to(REPO)}:{node.lineno}: {n}" for n in names
                  if n.startswith(PRIVATE_PREFIXES) and " " not in n]
    return found


def product_files() -> list[pathlib.Path]:
    return [p for top in ("python/hlokit", "passes", "dialects", "tools") for p in sorted((REPO / top).rglob("*.py"))]


def test_no_private_jax_outside_jax_private():
    """Only hlokit/jax_private.py imports jax._src, jaxlib.mlir._mlir_libs or jaxlib._* (private JAX in one module)."""
    offenders = [hit for path in product_files() if path != REPO / "python/hlokit/jax_private.py"
                 for hit in _private_imports(path)]
    assert not offenders, "private JAX outside hlokit/jax_private.py:\n" + "\n".join(offenders)


def test_private_import_finder_finds_each_form(tmp_path, monkeypatch):
    """The walk above sees every way of importing a private module (else the guard could not fail)."""
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    f = tmp_path / "m.py"
    f.write_text("import jax._src.lax\nfrom jaxlib.mlir._mlir_libs import _stablehlo\nfrom jaxlib import _jax\n"
                 "import importlib\nimportlib.import_module('jaxlib._hlo')\nfrom jaxlib.mlir.dialects import stablehlo\n")
    assert [h.split(": ")[1] for h in _private_imports(f)] == [
        "jax._src.lax", "jaxlib.mlir._mlir_libs", "jaxlib.mlir._mlir_libs._stablehlo", "jaxlib._jax", "jaxlib._hlo"]


def test_jax_private_uses_every_listed_symbol():
    """USES lists what jax_private reaches, and it reaches nothing unlisted (its string constants)."""
    text = pathlib.Path(jax_private.__file__).read_text()
    for module, name in jax_private.USES:
        assert f'"{module}"' in text and f'"{name}"' in text, (module, name)


def test_jax_private_module_documents_every_use():
    doc = jax_private.__doc__
    for module, name in jax_private.USES:
        assert f"{module}.{name}" in doc
    assert pathlib.Path(jax_private.__file__).name == "jax_private.py"


def test_importing_hlokit_first_leaves_jax_lowerings_intact():
    """hlokit imported before jax must not break jax's own lowering of LAPACK ops (sdy sharding rules).

    A fresh process, because the damage is done at import: under jaxlib 0.11, importing the extension
    ``jaxlib.mlir._mlir_libs._sdy`` before ``jaxlib.mlir.dialects.sdy`` left the dialect module without
    ``DimMappingAttr``, and every ``jnp.linalg`` lowering in the same process failed.
    """
    code = (
        "import hlokit; hlokit.make_context()\n"
        "import jax, jax.numpy as jnp\n"
        "from jaxlib.mlir.dialects import sdy\n"
        "assert hasattr(sdy, 'DimMappingAttr'), 'jaxlib.mlir.dialects.sdy lost DimMappingAttr'\n"
        "print(jax.jit(jnp.linalg.cholesky).lower(jax.ShapeDtypeStruct((3, 3), jnp.float32)).as_text().count('lapack'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, f"{VERSIONS}: {proc.stderr[-2000:]}"
    assert int(proc.stdout.split()[-1]) >= 1
