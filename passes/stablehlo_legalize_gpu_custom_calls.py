"""``--stablehlo-legalize-cuda-custom-calls`` / ``--stablehlo-legalize-rocm-custom-calls``: jaxlib's GPU
linear-algebra custom calls -> portable StableHLO.

JAX lowers ``jnp.linalg`` for ``cuda`` and ``rocm`` to ``stablehlo.custom_call`` ops whose targets are
jaxlib's cuSOLVER / hipSOLVER and cuSPARSE / hipSPARSE kernels (``cusolver_potrf_ffi``,
``hipsolver_gesvdj_ffi``, ``cusparse_gtsv2_ffi``, ...; and JAX's own GPU kernels ``cu/hip_lu_pivots_to_permutation``
and ``cu/hip_threefry2x32(_ffi)``; JAX's ``jax/_src/lax/linalg.py``: the
``_*_cpu_gpu_lowering`` / ``_*_gpu_lowering`` rules, ``_svd_gpu_sub_lowering`` and
``_linalg_ffi_lowering``). An artifact exported for one GPU platform runs nowhere else; this module rewrites
those calls as StableHLO so it runs on XLA CPU and on hlokit's interpreter. ``docs/gpu_custom_calls.md``
lists every target, its operands, results and ``mhlo.backend_config``, and how each is rewritten.

Two flags share one implementation: ``stablehlo-legalize-cuda-custom-calls`` removes the targets spelled
``cusolver_*``, ``cusparse_*``, ``cu_*``; ``stablehlo-legalize-rocm-custom-calls`` those spelled
``hipsolver_*``, ``hipsparse_*``, ``hip_*`` (JAX writes ``f"{prefix}solver_potrf_ffi"`` with ``prefix`` ``cu``
or ``hip``). The algorithms are those of the LAPACK pass (:mod:`hlokit.passes.lapack`); what differs is the
calling convention, in :data:`GPU_ROUTINES` (key: the target without its platform prefix ``cu`` / ``hip``,
e.g. ``"solver_potrf_ffi"``) and :mod:`hlokit.passes.lapack.gpu_conventions`.

Layouts: jaxlib's kernels read and write matrices column-major, so JAX gives the matrix operands and results
(those of the operands' highest rank) the layout ``[r-2, r-1, r-3, ..., 0]`` and the others the default one;
``gesvd`` with ``transposed = true`` (``m < n`` on cuSOLVER, which only factors tall matrices) gives all of
them the default (row-major) layout, so the kernel sees ``A^T`` and its ``U`` and ``V^H`` slots hold the
logical ``V^H`` and ``U`` of ``A``. The rewrite computes the logical values, so the layouts need no rewrite;
they are checked (a call with other layouts would make the kernel compute something else) and refused
when they differ from JAX's.

Every call is checked and its template built before the first rewrite, so a refused call (another operand
count, an unknown or bad ``backend_config`` flag, unexpected layouts, ``num_batch_dims`` unlike the operands,
an element type the kernel has no instance for, results unlike the kernel's) leaves the module unchanged.
Targets of the platform's families that are not in the table are left as they are; with ``strict=true``
they are refused.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.passes.builder import V, Emitter, TemplateCache, UnsupportedError
from hlokit.passes.lapack.gpu_conventions import (
    SOLVER_TYPES,
    check_layouts,
    decode_legacy_syev,
    ffi_config,
    rewrite_gesvd,
    rewrite_gesvdj,
    rewrite_legacy_syev,
)
from hlokit.passes.lapack.cholesky import build_potrf
from hlokit.passes.lapack.spectral import build_syevd
from hlokit.passes.lapack.lu import build_getrf, build_lu_pivots_to_permutation
from hlokit.passes.lapack.qr import build_geqrf, build_orgqr
from hlokit.passes.lapack.tridiagonal import build_gtsv, build_sytrd
from hlokit.passes.threefry import build_threefry2x32, decode_legacy_threefry
from hlokit.passes.registry import Option, fail, register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = [
    "CUDA_TARGETS",
    "FAMILIES",
    "GPU_ROUTINES",
    "GpuRoutine",
    "ROCM_TARGETS",
    "StablehloLegalizeCudaCustomCalls",
    "StablehloLegalizeRocmCustomCalls",
    "gpu_routine",
]

BOOL = (False, True)

#: platform -> (the prefix JAX puts before a routine's key, the target families the pass looks at).
FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "cuda": ("cu", ("cusolver_", "cusparse_", "cu_")),
    "rocm": ("hip", ("hipsolver_", "hipsparse_", "hip_")),
}

#: A rewrite: ``(e, operands, config, info) -> values``: the expansion written with the Emitter on the
#: template's arguments (the call's operands, as :class:`~hlokit.passes.builder.V`), given the decoded
#: ``backend_config`` (``{"lower": True, "algorithm": 0}``) and the call's :class:`OpInfo`; returns the values
#: that replace the call's results, in order (their types are checked against the call's).
Rewrite = Callable[[Emitter, list, dict, OpInfo], list]


class GpuRoutine(NamedTuple):
    """One row of :data:`GPU_ROUTINES`.

    ``operands``: the operand count. ``flags``: ``backend_config`` key -> the allowed values (bools, ints);
    a key of the call outside ``flags`` is refused, a key of ``flags`` missing from the call too. ``rewrite``:
    see :data:`Rewrite`. ``platforms``: where JAX emits the target (``("cuda", "rocm")`` or one of them).
    ``types``: the allowed element types of operand 0 (None: not checked). ``column_major``: the layouts JAX
    writes: True (matrices column-major), False (default layouts), a function of the config (gesvd's
    ``transposed``), or None (not checked). ``legacy``: for an old opaque-descriptor target (``api_version``
    2, ``backend_config`` a byte string), ``decode(bytes, op) -> config`` (raises ValueError).
    ``core_dims``: the non-batch dimensions of the highest-rank operand (``num_batch_dims`` = rank - this)."""

    operands: int
    flags: dict
    rewrite: Rewrite
    platforms: tuple[str, ...] = ("cuda", "rocm")
    types: frozenset | None = SOLVER_TYPES
    column_major: bool | Callable[[dict], bool] | None = True
    legacy: Callable[[bytes, ir.Operation], dict] | None = None
    core_dims: int = 2


def _potrf(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    return list(build_potrf(e, args[0], config["lower"]))


def _getrf(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    lu, ipiv, status = build_getrf(e, args[0])
    if len(info.result_elems) > 1 and info.result_elems[1] == "i64":  # (64-bit pivots: converted)
        ipiv = e.convert(ipiv, "i64")
    return [lu, ipiv, status]


def _geqrf(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    return build_geqrf(e, args[0])


def _orgqr(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    a, tau = args
    if len(a.shape) < 2 or tau.shape[:-1] != a.shape[:-2] or tau.t != a.t:
        raise UnsupportedError(f"orgqr of {a.ty} and {tau.ty} (expected a [*batch, m, n] matrix and "
                               "[*batch, k] taus of its element type)")
    return [build_orgqr(e, a, tau)]


def _square(a: V, routine: str) -> None:
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"{routine} of a {a.ty} (expected a square matrix)")


def _syevd(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    _square(args[0], "syevd")
    return build_syevd(e, args[0], config["lower"])


def _sytrd(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    _square(args[0], "sytrd")
    return build_sytrd(e, args[0], config["lower"])


def _gtsv2(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    dl, d, du, b = args
    vector = b.shape[:-1]
    if len(b.shape) < 2 or any(v.shape != vector for v in (dl, d, du)) or len({v.t for v in args}) != 1:
        raise UnsupportedError(f"gtsv2 operands of types {', '.join(v.ty for v in args)} (expected dl, d, du of "
                               "shape [*batch, n] and b of shape [*batch, n, k], one element type)")
    return [build_gtsv(e, dl, d, du, b)[3]]



def _lu_pivots_to_permutation(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    # (the permutation size is the result's last dimension: JAX's lowering passes no attribute for it)
    return [build_lu_pivots_to_permutation(e, args[0], info.result_shapes[0][-1])]


def _threefry2x32(e: Emitter, args: list[V], config: dict, info: OpInfo) -> list[V]:
    return build_threefry2x32(e, *args)


#: Target without its platform prefix (``"cu"`` / ``"hip"``) -> :class:`GpuRoutine`. The two passes'
#: ``illegal_custom_calls`` are the keys spelled with their prefix, for the rows of their platform.
GPU_ROUTINES: dict[str, GpuRoutine] = {
    "solver_potrf_ffi": GpuRoutine(1, {"lower": BOOL}, _potrf),
    "solver_getrf_ffi": GpuRoutine(1, {}, _getrf),
    "solver_geqrf_ffi": GpuRoutine(1, {}, _geqrf),
    "solver_orgqr_ffi": GpuRoutine(2, {}, _orgqr),
    "solver_syevd_ffi": GpuRoutine(1, {"lower": BOOL, "algorithm": (0, 1, 2)}, _syevd),
    "solver_sytrd_ffi": GpuRoutine(1, {"lower": BOOL}, _sytrd),
    "solver_gesvd_ffi": GpuRoutine(1, {"compute_uv": BOOL, "full_matrices": BOOL, "transposed": BOOL},
                                   rewrite_gesvd, column_major=lambda config: not config["transposed"]),
    "solver_gesdd_ffi": GpuRoutine(1, {"compute_uv": BOOL, "full_matrices": BOOL, "transposed": BOOL},
                                   rewrite_gesvd, platforms=("rocm",),
                                   column_major=lambda config: not config["transposed"]),
    "solver_gesvdj_ffi": GpuRoutine(1, {"compute_uv": BOOL, "full_matrices": BOOL}, rewrite_gesvdj),
    "solver_gesvdp_ffi": GpuRoutine(1, {"compute_uv": BOOL, "full_matrices": BOOL}, rewrite_gesvdj),
    "sparse_gtsv2_ffi": GpuRoutine(4, {}, _gtsv2),
    # JAX's lu_pivots_to_permutation and threefry2x32 kernels (default layouts; i32 / ui32 operands; the
    # legacy pivots call, same name, has an opaque 'backend_config' the rewrite does not need)
    "_lu_pivots_to_permutation": GpuRoutine(1, {}, _lu_pivots_to_permutation, types=frozenset({"i32"}),
                                            column_major=False, core_dims=1),
    "_threefry2x32_ffi": GpuRoutine(4, {}, _threefry2x32, types=frozenset({"ui32"}), column_major=False),
    "_threefry2x32": GpuRoutine(4, {}, _threefry2x32, types=frozenset({"ui32"}), column_major=False,
                                legacy=decode_legacy_threefry),
    # jaxlib before the FFI kernels (ROCm, until 2024): an opaque descriptor, results [v, w, info, workspace]
    "solver_syevd": GpuRoutine(1, {"lower": BOOL}, rewrite_legacy_syev, platforms=("rocm",),
                               legacy=decode_legacy_syev),
    "solver_syevj": GpuRoutine(1, {"lower": BOOL}, rewrite_legacy_syev, platforms=("rocm",),
                               legacy=decode_legacy_syev),
}


def _targets(platform: str) -> frozenset[str]:
    prefix = FAMILIES[platform][0]
    return frozenset(prefix + key for key, row in GPU_ROUTINES.items() if platform in row.platforms)


#: The targets each pass removes.
CUDA_TARGETS = _targets("cuda")
ROCM_TARGETS = _targets("rocm")


def gpu_routine(op, platform: str) -> str | None:
    """The :data:`GPU_ROUTINES` key of a custom call of ``platform``'s families (``"solver_potrf_ffi"`` for
    ``@cusolver_potrf_ffi`` and ``"cuda"``), whether the table has it or not; None for another op or target."""
    if op.name != "stablehlo.custom_call":
        return None
    prefix, families = FAMILIES[platform]
    target = attributes.str_value(op, "call_target_name", "")
    return target[len(prefix):] if target.startswith(families) else None


def _check_batch(op, core_dims: int = 2) -> None:
    """``num_batch_dims`` (when present) must be the rank of the highest-rank operand minus ``core_dims``."""
    fa = attributes.get(op, "mhlo.frontend_attributes", None)
    if isinstance(fa, ir.DictAttr) and "num_batch_dims" in fa:
        try:
            nb = int(ir.StringAttr(fa["num_batch_dims"]).value)
        except (ValueError, TypeError):
            raise fail("num_batch_dims is not an integer string", op) from None
        rank = max((v.type.rank for v in op.operands if isinstance(v.type, ir.RankedTensorType)), default=None)
        if rank is not None and nb != rank - core_dims:
            raise fail(f"num_batch_dims {nb} does not match operand rank {rank}", op)


class _GpuCustomCalls(TemplatePass):
    """The shared implementation of the two passes; :attr:`platform` selects the target families."""

    platform: str = ""
    options = (
        Option("strict", bool, False, "refuse a custom call of the platform's solver families this pass "
                                      "cannot legalize"),
    )

    def matches(self, op: ir.Operation) -> bool:
        return gpu_routine(op, self.platform) is not None

    def _row(self, op) -> tuple[str, GpuRoutine]:
        key = gpu_routine(op, self.platform)
        return key, GPU_ROUTINES[key]

    def plan_op(self, cache: TemplateCache, op: ir.Operation, index: int):
        if not self.is_illegal(op):
            if self.strict:
                raise fail(
                    f"cannot legalize custom_call @{attributes.str_value(op, 'call_target_name')} "
                    f"(legalized targets: {', '.join(sorted(self.illegal_custom_calls))})", op)
            return None
        return super().plan_op(cache, op, index)

    def _config(self, op, row: GpuRoutine) -> dict:
        target = attributes.str_value(op, "call_target_name")
        try:
            if row.legacy is not None:
                raw = attributes.get(op, "backend_config", None)
                if not isinstance(raw, ir.StringAttr):
                    raise ValueError("expected the opaque descriptor as a string 'backend_config'")
                config = row.legacy(ir.StringAttr(raw).value_bytes, op)
            else:
                config = ffi_config(op)
        except (ValueError, attributes.AttributeReadError) as exc:
            raise fail(f"{target}: {exc}", op) from None
        for key in config:
            if key not in row.flags:
                raise fail(f"{target}: unknown backend_config flag '{key}' (expected "
                           f"{', '.join(row.flags) or 'none'})", op)
        for key, values in row.flags.items():
            if key not in config or config[key] not in values or type(config[key]) is not type(values[0]):
                raise fail(f"{target}: backend_config '{key}' is {config.get(key)!r}, expected one of "
                           f"{', '.join(map(repr, values))}", op)
        return config

    def check(self, op: ir.Operation) -> None:
        key, row = self._row(op)
        target = attributes.str_value(op, "call_target_name")
        if len(op.operands) != row.operands:
            raise fail(f"{target} with {len(op.operands)} operands (expected {row.operands})", op)
        config = self._config(op, row)
        _check_batch(op, row.core_dims)
        for what, values in (("operand", op.operands), ("result", op.results)):
            for i, v in enumerate(values):
                if not isinstance(v.type, ir.RankedTensorType):
                    raise fail(f"{target} {what} #{i} of type {v.type} (expected a ranked tensor)", op)
                if not ir.RankedTensorType(v.type).has_static_shape:
                    raise fail(f"{target} {what} #{i} of type {v.type}: dynamic shapes are not supported "
                               "(the expansions are built for static shapes)", op)
        if row.types is not None:
            elem = str(ir.RankedTensorType(op.operands[0].type).element_type)
            if elem not in row.types:
                raise fail(f"{target} of element type {elem} (expected one of {', '.join(sorted(row.types))})", op)
        major = row.column_major(config) if callable(row.column_major) else row.column_major
        if major is not None:
            problem = check_layouts(op, major)
            if problem:
                raise fail(f"{target}: {problem}", op)

    def attributes(self, op: ir.Operation) -> tuple:
        """``(routine key, backend_config items)``: with the types, the template's signature."""
        key, row = self._row(op)
        return (key, tuple(sorted(self._config(op, row).items())))

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> list[V]:
        key, config = info.attrs
        values = GPU_ROUTINES[key].rewrite(e, operands, dict(config), info)
        name = FAMILIES[self.platform][0] + key
        if len(info.result_types) != len(values):
            raise UnsupportedError(
                f"{name} of {', '.join(info.operand_types)} has {len(info.result_types)} results, "
                f"expected {len(values)}: {', '.join(v.ty for v in values)}")
        for i, (old, new) in enumerate(zip(info.result_types, values)):
            if old != new.ty:
                raise UnsupportedError(f"{name}: result #{i} has type {old}, expected {new.ty}")
        return values


@register_pass
class StablehloLegalizeCudaCustomCalls(_GpuCustomCalls):
    """Rewrite jaxlib's CUDA custom calls (``cusolver_*``, ``cusparse_*``, ``cu_*`` in :data:`GPU_ROUTINES`)
    as StableHLO (see the module docstring). Raises :class:`~hlokit.diagnostics.PassError` located at a
    refused call, before anything changes."""

    argument = "stablehlo-legalize-cuda-custom-calls"
    summary = ("Legalize jaxlib's CUDA custom calls (cuSOLVER potrf, getrf, geqrf, orgqr, syevd, sytrd, gesvd, "
               "gesvdj, gesvdp; cuSPARSE gtsv2) to StableHLO")
    platform = "cuda"
    illegal_custom_calls = CUDA_TARGETS


@register_pass
class StablehloLegalizeRocmCustomCalls(_GpuCustomCalls):
    """Rewrite jaxlib's ROCm custom calls (``hipsolver_*``, ``hipsparse_*``, ``hip_*`` in
    :data:`GPU_ROUTINES`, the legacy ``hipsolver_syevd`` / ``hipsolver_syevj`` included) as StableHLO (see
    the module docstring). Raises :class:`~hlokit.diagnostics.PassError` located at a refused call, before
    anything changes."""

    argument = "stablehlo-legalize-rocm-custom-calls"
    summary = ("Legalize jaxlib's ROCm custom calls (hipSOLVER potrf, getrf, geqrf, orgqr, syevd, syevj, sytrd, "
               "gesvd, gesvdj, gesvdp, gesdd; hipSPARSE gtsv2) to StableHLO")
    platform = "rocm"
    illegal_custom_calls = ROCM_TARGETS
