"""XLA backend: compile a StableHLO module with XLA through jaxlib and run it on numpy arrays.

    exe = hlokit.backend.compile(module, platform="cpu")
    outputs = exe(x, y)            # numpy arrays in, list of numpy arrays out

Every element type of :mod:`hlokit.dtypes` crosses the boundary (bool, si/ui 8-64, f16, bf16, f8 via
ml_dtypes, f32, f64, complex64/128). Programs exported by JAX may call jaxlib's own CPU kernels
(``lapack_*_ffi`` custom calls from ``jnp.linalg``) and carry ``sdy`` attributes: the registration and
LAPACK initialisation that jax performs itself are done here before compiling. Executables are cached by
(module fingerprint, platform, function).

The names that need jax (``compile``, ``Executable``, ``initialize``, ``prepare_devices``,
``set_host_device_count``, ``COMPILE_CACHE_SIZE``) live in :mod:`hlokit.backend.xla`, imported on first use:
importing this package, and reading a program's signature, import no jax (``import jax`` takes about a third
of a second; ``hlokit-run --engine interpreter`` never pays it).
"""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
from jaxlib.mlir import ir

from hlokit.backend.layout import module_device_needs
from hlokit.diagnostics import HlokitError
from hlokit.dtypes import UnsupportedTypeError, dtype_of, type_str

__all__ = ["compile", "initialize", "prepare_devices", "set_host_device_count", "Executable", "BackendError", "TensorSpec", "signature", "module_device_needs", "PLATFORMS"]

PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


class BackendError(HlokitError):
    """XLA could not compile or run the program, or the arguments do not match its signature."""


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """Shape (tuple of ints) and numpy dtype of one argument or result."""

    shape: tuple[int, ...]
    dtype: np.dtype

    def __str__(self) -> str:
        return type_str(self.shape, self.dtype)


def find_function(module: ir.Module, name: str):
    """The ``func.func`` op named ``name`` among the top-level ops of ``module``, or None."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    return None


def _spec(t: ir.Type, what: str, dynamic: bool = False) -> TensorSpec:
    if not isinstance(t, ir.RankedTensorType):
        raise BackendError(f"{what} has type '{t}': only ranked tensors can be passed to and from XLA")
    rt = t
    try:
        dtype = dtype_of(rt.element_type)
    except UnsupportedTypeError as err:
        raise BackendError(f"{what} has type '{t}': {err}") from None
    if dynamic and not rt.has_static_shape:
        return TensorSpec(tuple(-1 if rt.is_dynamic_dim(i) else d for i, d in enumerate(rt.shape)), dtype)
    if not rt.has_static_shape:
        raise BackendError(
            f"{what} has dynamic shape '{t}': refine shapes first (hlokit-opt --stablehlo-refine-shapes)"
        )
    return TensorSpec(tuple(rt.shape), dtype)


def signature(module: ir.Module, function: str = "main", *,
              dynamic_results: bool = False) -> tuple[list[TensorSpec], list[TensorSpec]]:
    """Argument and result specs of ``function`` (static ranked tensors only; BackendError otherwise).
    ``dynamic_results``: a result of a dynamic shape is allowed (what the interpreter returns: its size is
    known only when the program has run), its unknown dimensions given as -1."""
    fn = find_function(module, function)
    if fn is None:
        names = [
            ir.StringAttr(op.attributes["sym_name"]).value
            for op in module.body.operations
            if op.operation.name == "func.func"
        ]
        raise BackendError(f"no function '@{function}' in the module (functions: {', '.join(names) or 'none'})")
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    ins = [_spec(t, f"argument {i} of @{function}") for i, t in enumerate(ftype.inputs)]
    outs = [_spec(t, f"result {i} of @{function}", dynamic_results) for i, t in enumerate(ftype.results)]
    return ins, outs


#: The names of :mod:`hlokit.backend.xla` this package hands out (:func:`__getattr__`).
_XLA_NAMES = frozenset({"compile", "initialize", "prepare_devices", "set_host_device_count", "Executable",
                        "COMPILE_CACHE_SIZE"})


def __getattr__(name: str):
    """The names of :mod:`hlokit.backend.xla` (module ``__getattr__``, PEP 562): imports jax on first use."""
    if name not in _XLA_NAMES:
        raise AttributeError(f"module 'hlokit.backend' has no attribute '{name}'")
    return getattr(importlib.import_module("hlokit.backend.xla"), name)


def __dir__() -> list[str]:
    """This package's names and those of :func:`__getattr__` (what ``dir`` and completion offer)."""
    return sorted(set(globals()) | _XLA_NAMES)
