"""XLA backend: compile a StableHLO module with XLA through jaxlib and run it on numpy arrays.

    exe = hlokit.backend.compile(module, platform="cpu")
    outputs = exe(x, y)            # numpy arrays in, list of numpy arrays out

Every element type of :mod:`hlokit.dtypes` crosses the boundary (bool, si/ui 8-64, f16, bf16, f8 via
ml_dtypes, f32, f64, complex64/128). Programs exported by JAX may call jaxlib's own CPU kernels
(``lapack_*_ffi`` custom calls from ``jnp.linalg``) and carry ``sdy`` attributes: the registration and
LAPACK initialisation that jax performs itself are done here before compiling. Executables are cached by
(module fingerprint, platform, function).
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.diagnostics import HlokitError
from hlokit.dtypes import UnsupportedTypeError, dtype_of, type_str

__all__ = ["compile", "initialize", "Executable", "BackendError", "TensorSpec", "signature", "PLATFORMS"]

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


def _find_function(module: ir.Module, name: str):
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    return None


def _spec(t: ir.Type, what: str) -> TensorSpec:
    if not isinstance(t, ir.RankedTensorType):
        raise BackendError(f"{what} has type '{t}': only ranked tensors can be passed to and from XLA")
    rt = t
    try:
        dtype = dtype_of(rt.element_type)
    except UnsupportedTypeError as err:
        raise BackendError(f"{what} has type '{t}': {err}") from None
    if not rt.has_static_shape:
        raise BackendError(
            f"{what} has dynamic shape '{t}': refine shapes first (hlokit-opt --stablehlo-refine-shapes)"
        )
    return TensorSpec(tuple(rt.shape), dtype)


def signature(module: ir.Module, function: str = "main") -> tuple[list[TensorSpec], list[TensorSpec]]:
    """Argument and result specs of ``function`` (static ranked tensors only; BackendError otherwise)."""
    fn = _find_function(module, function)
    if fn is None:
        names = [
            ir.StringAttr(op.attributes["sym_name"]).value
            for op in module.body.operations
            if op.operation.name == "func.func"
        ]
        raise BackendError(f"no function '@{function}' in the module (functions: {', '.join(names) or 'none'})")
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    ins = [_spec(t, f"argument {i} of @{function}") for i, t in enumerate(ftype.inputs)]
    outs = [_spec(t, f"result {i} of @{function}") for i, t in enumerate(ftype.results)]
    return ins, outs


def _entry_text(module: ir.Module, function: str) -> str:
    """Module text whose public ``@main`` is ``function`` (XLA compiles ``@main``)."""
    if function == "main":
        return module.operation.get_asm(enable_debug_info=True)
    clone = ir.Module.parse(module.operation.get_asm(enable_debug_info=True), module.context)
    main = _find_function(clone, "main")
    if main is not None:
        ir.SymbolTable.set_symbol_name(main, "__hlokit_original_main")
        ir.SymbolTable.replace_all_symbol_uses("main", "__hlokit_original_main", clone.operation)
    fn = _find_function(clone, function)
    ir.SymbolTable.replace_all_symbol_uses(function, "main", clone.operation)
    ir.SymbolTable.set_symbol_name(fn, "main")
    if "sym_visibility" in fn.attributes:
        del fn.attributes["sym_visibility"]  # public
    return clone.operation.get_asm(enable_debug_info=True)


_LOCK = threading.Lock()
_CACHE: dict[tuple[str, str, str], "Executable"] = {}
_JAX_READY = False


def _prepare_jax() -> None:
    """Import jax and do what jax does before running programs that call jaxlib's CPU kernels."""
    global _JAX_READY
    if _JAX_READY:
        return
    import jax  # noqa: F401  (registers platforms)
    from jax._src.lax import linalg as _linalg  # registers lapack/gpu FFI custom-call targets

    _linalg.initialize_lapack()
    _JAX_READY = True


def initialize(platform: str = "cpu") -> None:
    """Start jax's XLA client for ``platform`` (done by :func:`compile` too; call it to time start-up apart)."""
    _prepare_jax()
    _backend(platform)


def _backend(platform: str):
    from jax._src import xla_bridge

    if platform not in PLATFORMS:
        raise BackendError(f"unknown platform '{platform}' (choose one of {', '.join(PLATFORMS)})")
    try:
        return xla_bridge.get_backend(platform)
    except RuntimeError as exc:
        available = ", ".join(sorted(xla_bridge.backends()))
        raise BackendError(
            f"platform '{platform}' is not available: jax has no working '{platform}' plugin here "
            f"(available: {available}); install the matching jax plugin (e.g. jax[cuda12])"
        ) from exc


def _int_attr(module: ir.Module, name: str) -> int:
    attrs = module.operation.attributes
    return ir.IntegerAttr(attrs[name]).value if name in attrs else 1


class Executable:
    """A program compiled by XLA for one device; call it with numpy arrays.

    ``in_specs`` / ``out_specs`` give the shapes and dtypes of the arguments and results.
    Calling raises :class:`BackendError` for a missing, extra, wrongly shaped or typed argument.
    """

    def __init__(self, loaded, device, in_specs: list[TensorSpec], out_specs: list[TensorSpec], platform: str):
        self._loaded = loaded
        self._device = device
        self.in_specs = in_specs
        self.out_specs = out_specs
        self.platform = platform

    def check_args(self, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Validate ``args`` against the signature; return them as numpy arrays of the right dtype."""
        if len(args) != len(self.in_specs):
            raise BackendError(
                f"the program takes {len(self.in_specs)} argument(s) "
                f"({', '.join(map(str, self.in_specs)) or 'none'}) but {len(args)} were given"
            )
        out = []
        for i, (a, spec) in enumerate(zip(args, self.in_specs)):
            a = np.asarray(a)
            if a.dtype != spec.dtype:
                raise BackendError(
                    f"argument {i}: expected element type {spec.dtype} ({spec}) but got {a.dtype}"
                )
            if tuple(a.shape) != spec.shape:
                raise BackendError(f"argument {i}: expected shape {spec.shape} ({spec}) but got {tuple(a.shape)}")
            out.append(a)
        return out

    def put(self, args: Sequence[np.ndarray]):
        """Copy validated arguments to the device (returns device buffers for :meth:`execute`)."""
        import jax
        from jax._src import config

        # Without x64 enabled (jax's default), device_put would narrow 64-bit types to 32 bits;
        # enable it for this transfer only, leaving the user's jax configuration as it is.
        with config.enable_x64(True):
            return [jax.device_put(a, self._device) for a in self.check_args(args)]

    def execute(self, buffers) -> list:
        """Run on device buffers; return device arrays (call ``np.asarray`` on them).

        Waits until the results are computed: XLA runs asynchronously and reads ``buffers`` meanwhile,
        so they must stay referenced (here, by this call) until the results are ready.
        """
        results = self._loaded.execute_sharded(buffers)
        outs = [r[0] for r in results.disassemble_into_single_device_arrays()]
        for o in outs:
            o.block_until_ready()
        return outs

    def __call__(self, *args: np.ndarray) -> list[np.ndarray]:
        buffers = self.put(args)
        outs = self.execute(buffers)
        return [np.asarray(o) for o in outs]


def compile(module: ir.Module | str, platform: str = "cpu", *, function: str = "main") -> Executable:
    """Compile ``module`` (an ``ir.Module`` or MLIR text) with XLA for ``platform``; cached.

    ``function`` names the entry function (default ``main``). Raises :class:`BackendError` when the
    platform is unavailable, the signature has non-static or non-tensor types, or XLA rejects the program.
    """
    if isinstance(module, str):
        import hlokit

        module = hlokit.parse(module, context=hlokit.make_context())
    in_specs, out_specs = signature(module, function)
    text = _entry_text(module, function)
    key = (hashlib.sha256(text.encode()).hexdigest(), platform, function)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    _prepare_jax()
    backend = _backend(platform)
    from jax._src import compiler
    from jaxlib import _jax

    device = backend.local_devices()[0]
    options = compiler.get_compile_options(
        num_replicas=_int_attr(module, "mhlo.num_replicas"),
        num_partitions=_int_attr(module, "mhlo.num_partitions"),
    )
    try:
        loaded = backend.compile_and_load(text, _jax.DeviceList((device,)), options)
    except Exception as exc:
        msg = str(exc).strip().splitlines()
        raise BackendError(f"XLA could not compile the program: {' '.join(msg[:3])}") from None
    exe = Executable(loaded, device, in_specs, out_specs, platform)
    with _LOCK:
        _CACHE[key] = exe
    return exe
