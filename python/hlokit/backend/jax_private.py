"""The private JAX internals hlokit uses, one function per use, each guarded by a test.

Everything else in :mod:`hlokit.backend` goes through public APIs: ``jax.extend.backend`` (``get_backend``,
``backends``, ``get_compile_options``), ``jax.enable_x64``, ``jax.device_put``, ``jax.sharding`` and
``jaxlib.xla_client`` (``DeviceList``, ``HloSharding``). What no public API offers lives here, so that a JAX
release that moves it breaks one function with a message naming the JAX version and the moved symbol, and
``tests/pytest/test_jax_private.py`` fails loudly on that release instead of a user's program.

Inventory (checked with jax/jaxlib 0.10.2 and 0.11.2):

* :func:`initialize_lapack` — ``jax._src.lax.linalg.initialize_lapack``. jaxlib's CPU LAPACK kernels
  (the ``lapack_*_ffi`` custom calls that ``jnp.linalg`` emits) find their LAPACK routines only after this
  call; jax makes it itself while lowering a linalg op or deserializing an exported program
  (``jax/_src/export/_export.py``), neither of which happens when hlokit compiles MLIR text. The FFI
  targets themselves are registered by ``import jax`` (``jax/_src/lax/linalg.py`` at import), which is
  public behaviour.
"""

from __future__ import annotations

import importlib

import jax
import jaxlib

from hlokit.diagnostics import HlokitError

__all__ = ["JaxInternalMoved", "initialize_lapack", "USES"]


class JaxInternalMoved(HlokitError):
    """A private JAX symbol hlokit relies on is missing in the installed JAX release."""


#: (module, attribute) of every private JAX symbol used here; the guard test checks each one.
USES: tuple[tuple[str, str], ...] = (("jax._src.lax.linalg", "initialize_lapack"),)


def private_symbol(module: str, name: str):
    """Return ``module.name`` from JAX's private modules; :class:`JaxInternalMoved` names the version if gone."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise JaxInternalMoved(
            f"jax {jax.__version__} (jaxlib {jaxlib.__version__}) "
            f"has no '{module}.{name}', which hlokit uses to run programs calling jaxlib's kernels; "
            f"update hlokit/backend/jax_private.py for this JAX release"
        ) from None


def initialize_lapack() -> None:
    """Load the LAPACK routines behind jaxlib's ``lapack_*_ffi`` CPU custom calls (idempotent).

    Raises :class:`JaxInternalMoved` when the installed JAX no longer has the private entry point.
    """
    private_symbol("jax._src.lax.linalg", "initialize_lapack")()
