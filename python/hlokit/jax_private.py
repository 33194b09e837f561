"""Every private JAX / jaxlib symbol hlokit uses, in one module, each guarded by a test.

The rest of hlokit goes through public APIs: ``jaxlib.mlir.ir`` / ``passmanager``, the dialect modules of
``jaxlib.mlir.dialects`` (``stablehlo`` re-exports the dialect, interpreter-dialect and pass registration and the
portable-artifact serialization and version functions; ``chlo`` its dialect registration; ``sdy``),
``jax.extend.backend``, ``jax.enable_x64``, ``jax.device_put``, ``jax.sharding`` and ``jaxlib.xla_client``. What no
public API offers lives here, so that a JAX release that moves it breaks one function with a message naming the
JAX version and the moved symbol, and ``tests/pytest/test_jax_private.py`` fails on that release first (it checks
every entry of :data:`USES`, and that no other hlokit module imports ``jax._src``, ``jaxlib.mlir._mlir_libs`` or
a private ``jaxlib._*`` module).

This module imports no ``jax`` at import time (``hlokit-run --engine interpreter`` starts without it): the uses of
``jax._src`` stay inside functions.

Inventory (checked with jax/jaxlib 0.10.2 and 0.11.2):

* :func:`register_upstream_dialects` — ``jaxlib.mlir._mlir_libs._jax_mlir_ext.register_dialects``: adds MLIR's
  upstream dialects that jaxlib builds in (builtin, func, shape, tensor, arith, math, scf, cf) to a
  ``DialectRegistry``; jax's own ``jax/_src/interpreters/mlir.py`` calls it the same way.
* :func:`append_dialect_search_prefix` — ``jaxlib.mlir._mlir_libs._mlir.globals.append_dialect_search_prefix``:
  adds a package prefix under which MLIR's Python bindings look for a dialect's op classes (the bindings'
  ``globals.dialect_search_modules``; upstream MLIR's ``_mlir_libs/__init__.py`` sets the first one this way).
* :data:`rewrite` — MLIR's pattern-rewrite bindings (``RewritePatternSet``, ``ConversionTarget``,
  ``apply_partial_conversion``, ``walk_and_apply_patterns``...): the public ``jaxlib.mlir.rewrite`` where the
  installed jaxlib ships it, else ``jaxlib.mlir._mlir_libs._mlir.rewrite`` (jaxlib 0.10.2 has only this one).
* :func:`hlo_module_from_text` — ``jaxlib._hlo.hlo_module_from_text``: XLA's HLO text parser.
* :func:`hlo_to_stablehlo` — ``jaxlib._jax.mlir.hlo_to_stablehlo``: XLA's HLO -> StableHLO importer.
* :func:`mlir_module_to_xla_computation` — ``jaxlib._jax.mlir.mlir_module_to_xla_computation``: jaxlib's
  StableHLO -> HLO converter.
* :func:`initialize_lapack` — ``jax._src.lax.linalg.initialize_lapack``. jaxlib's CPU LAPACK kernels
  (the ``lapack_*_ffi`` custom calls that ``jnp.linalg`` emits) find their LAPACK routines only after this
  call; jax makes it itself while lowering a linalg op or deserializing an exported program
  (``jax/_src/export/_export.py``), neither of which happens when hlokit compiles MLIR text. The FFI
  targets themselves are registered by ``import jax`` (``jax/_src/lax/linalg.py`` at import), which is
  public behaviour.
"""

from __future__ import annotations

import importlib

from hlokit.diagnostics import HlokitError

__all__ = [
    "JaxInternalMoved",
    "USES",
    "private_symbol",
    "register_upstream_dialects",
    "append_dialect_search_prefix",
    "rewrite",
    "hlo_module_from_text",
    "hlo_to_stablehlo",
    "mlir_module_to_xla_computation",
    "initialize_lapack",
]


class JaxInternalMoved(HlokitError):
    """A private JAX / jaxlib symbol hlokit relies on is missing in the installed release."""


#: (module, attribute) of every private JAX / jaxlib symbol used here; the guard test checks each one (a
#: dotted attribute reaches into a submodule object, e.g. ``mlir.hlo_to_stablehlo`` of ``jaxlib._jax``).
USES: tuple[tuple[str, str], ...] = (
    ("jaxlib.mlir._mlir_libs._jax_mlir_ext", "register_dialects"),
    ("jaxlib.mlir._mlir_libs._mlir", "rewrite"),
    ("jaxlib.mlir._mlir_libs._mlir", "globals.append_dialect_search_prefix"),
    ("jaxlib._hlo", "hlo_module_from_text"),
    ("jaxlib._jax", "mlir.hlo_to_stablehlo"),
    ("jaxlib._jax", "mlir.mlir_module_to_xla_computation"),
    ("jax._src.lax.linalg", "initialize_lapack"),
)


def versions() -> str:
    """``jax X (jaxlib Y)`` of the installed releases (read from the package metadata: imports nothing).

    ``importlib.metadata`` is imported here, on the first call, not with this module (about 10 ms of every
    process's start-up otherwise; issue 40)."""
    import importlib.metadata

    def version(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "(not installed)"

    return f"jax {version('jax')} (jaxlib {version('jaxlib')})"


def private_symbol(module: str, name: str):
    """Return ``module.name`` (``name`` may be dotted) from JAX's / jaxlib's private modules.

    Raises :class:`JaxInternalMoved` naming the installed versions and the symbol when it is gone."""
    try:
        value = importlib.import_module(module)
        for part in name.split("."):
            value = getattr(value, part)
        return value
    except (ImportError, AttributeError):
        raise JaxInternalMoved(
            f"{versions()} has no '{module}.{name}', which hlokit uses; "
            f"update hlokit/jax_private.py for this JAX release"
        ) from None


def _rewrite_module():
    """MLIR's rewrite bindings: the public module where jaxlib ships one, else the private one (see the inventory)."""
    try:
        return importlib.import_module("jaxlib.mlir.rewrite")
    except ImportError:
        return private_symbol("jaxlib.mlir._mlir_libs._mlir", "rewrite")


#: MLIR's pattern-rewrite bindings (``RewritePatternSet``, ``ConversionTarget``, ``apply_partial_conversion``,
#: ``apply_patterns_and_fold_greedily``, ``walk_and_apply_patterns``, ...).
rewrite = _rewrite_module()


def register_upstream_dialects(registry) -> None:
    """Add the upstream MLIR dialects jaxlib builds in (builtin, func, shape, tensor, arith, math, scf, cf) to
    ``registry`` (an ``ir.DialectRegistry``). Raises :class:`JaxInternalMoved` when the entry point is gone."""
    private_symbol("jaxlib.mlir._mlir_libs._jax_mlir_ext", "register_dialects")(registry)


def append_dialect_search_prefix(prefix: str) -> None:
    """Make MLIR's Python bindings also look for dialect modules (op classes) under package ``prefix``, after the
    prefixes they have (``jaxlib.mlir.dialects``); nothing when it is there already. Raises
    :class:`JaxInternalMoved` when the bindings' globals are gone."""
    append = private_symbol("jaxlib.mlir._mlir_libs._mlir", "globals.append_dialect_search_prefix")
    if prefix not in getattr(append.__self__, "dialect_search_modules", ()):
        append(prefix)


def hlo_module_from_text(text: str):
    """XLA's HLO text parser: ``text`` -> an ``HloModule`` binding (``as_serialized_hlo_module_proto()``).
    Raises what the parser raises (its message locates the error); it can also abort the process on some input,
    so hlokit calls it in the worker process (:mod:`hlokit.worker`)."""
    return private_symbol("jaxlib._hlo", "hlo_module_from_text")(text)


def hlo_to_stablehlo(proto: bytes) -> bytes:
    """XLA's HLO -> StableHLO importer: a serialized ``HloModuleProto`` -> StableHLO as MLIR bytecode."""
    return bytes(private_symbol("jaxlib._jax", "mlir.hlo_to_stablehlo")(proto))


def mlir_module_to_xla_computation(text: str, *, use_tuple_args: bool = False, return_tuple: bool = False):
    """jaxlib's StableHLO -> HLO converter: MLIR text -> an ``XlaComputation`` (``as_hlo_text()``)."""
    convert = private_symbol("jaxlib._jax", "mlir.mlir_module_to_xla_computation")
    return convert(text, use_tuple_args=use_tuple_args, return_tuple=return_tuple)


def initialize_lapack() -> None:
    """Load the LAPACK routines behind jaxlib's ``lapack_*_ffi`` CPU custom calls (idempotent; imports jax).

    Raises :class:`JaxInternalMoved` when the installed JAX no longer has the private entry point.
    """
    private_symbol("jax._src.lax.linalg", "initialize_lapack")()
