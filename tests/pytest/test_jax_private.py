"""Guards of hlokit.backend.jax_private: every private JAX symbol hlokit uses still exists and still works.

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
from hlokit.backend import jax_private

from conftest import REPO

VERSIONS = f"jax {jax.__version__} / jaxlib {jaxlib.__version__}"


@pytest.mark.parametrize("module,name", jax_private.USES, ids=[f"{m}.{n}" for m, n in jax_private.USES])
def test_private_symbol_still_exists(module, name):
    try:
        mod = importlib.import_module(module)
    except ImportError:
        pytest.fail(f"{VERSIONS}: private module '{module}' is gone; hlokit/backend/jax_private.py needs "
                    f"a new home for '{name}'")
    assert callable(getattr(mod, name, None)), (
        f"{VERSIONS}: '{module}.{name}' moved or is no longer callable; update hlokit/backend/jax_private.py"
    )


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


def test_no_jax_src_outside_jax_private():
    """Only jax_private.py names jax._src (private JAX stays in one module)."""
    offenders = []
    for path in sorted((REPO / "python" / "hlokit").rglob("*.py")) + sorted((REPO / "tools").rglob("*.py")):
        if path.name == "jax_private.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("jax._src"):
                names = [node.value]
            offenders += [f"{path.relative_to(REPO)}:{node.lineno}: {n}" for n in names
                          if n.startswith(("jax._src", "jaxlib._"))]
    assert not offenders, "private JAX outside hlokit/backend/jax_private.py:\n" + "\n".join(offenders)


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
