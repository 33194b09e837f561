"""The calling conventions of jaxlib's GPU solver kernels (cuSOLVER / hipSOLVER) that differ from LAPACK's.

Used by :mod:`hlokit.passes.stablehlo_legalize_gpu_custom_calls`; the algorithms are the LAPACK library's
(:mod:`hlokit.passes.lapack`). Sources: JAX's ``jax/_src/lax/linalg.py`` (``_linalg_ffi_lowering``,
``_svd_gpu_sub_lowering``, ``_eigh_cpu_gpu_lowering``) and, for the legacy ROCm eigh targets, the descriptor
``SyevdDescriptor`` / ``SyevjDescriptor`` of jaxlib's ``jaxlib/gpu/solver_kernels.h`` (before the FFI
kernels): ``{Type type; gpusolverFillMode_t uplo; int batch, n, lwork;}``, packed as five little-endian int32.
"""

from __future__ import annotations

import math
import struct

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.dtypes import element_types
from hlokit.passes.builder import V, Emitter, UnsupportedError
from hlokit.passes.lapack.spectral import build_gesdd, build_syevd
from hlokit.passes.lapack.matrix import adjoint, splat

__all__ = [
    "LEGACY_TYPES",
    "SOLVER_TYPES",
    "check_layouts",
    "column_major_layout",
    "decode_legacy_syev",
    "ffi_config",
    "rewrite_gesvd",
    "rewrite_gesvdj",
    "rewrite_legacy_syev",
]

#: The element types jaxlib's solver kernels are instantiated for (f32, f64, complex<f32>, complex<f64>).
SOLVER_TYPES = frozenset(element_types("float", min_bits=32) + element_types("complex"))

#: The legacy descriptor's ``Type`` enum (``F32, F64, C64, C128``) -> element type.
LEGACY_TYPES = ("f32", "f64", "complex<f32>", "complex<f64>")

#: hipSOLVER's ``hipsolverFillMode_t``: ``HIPSOLVER_FILL_MODE_UPPER`` = 121, ``HIPSOLVER_FILL_MODE_LOWER`` = 122.
HIP_FILL_UPPER, HIP_FILL_LOWER = 121, 122


def ffi_config(op) -> dict:
    """The ``mhlo.backend_config`` dictionary of an FFI call as Python values (``BoolAttr`` -> bool,
    ``IntegerAttr`` -> int); ``{}`` when absent. Raises ValueError for another attribute kind."""
    raw = attributes.get(op, "mhlo.backend_config", None)
    if raw is None:
        return {}
    if not isinstance(raw, ir.DictAttr):
        raise ValueError("'mhlo.backend_config' is not a dictionary")
    out = {}
    for named in raw:
        a = named.attr
        if isinstance(a, ir.BoolAttr):
            out[named.name] = bool(ir.BoolAttr(a).value)
        elif isinstance(a, ir.IntegerAttr):
            out[named.name] = int(ir.IntegerAttr(a).value)
        else:
            raise ValueError(f"'mhlo.backend_config.{named.name}' is {a}, expected a bool or an integer")
    return out


def column_major_layout(rank: int) -> list[int]:
    """The minor-to-major layout JAX gives a column-major ``[*batch, m, n]`` tensor: ``[r-2, r-1, r-3, ..., 0]``
    (``_column_major_matrix_layout`` of JAX's ``linalg.py``)."""
    return [rank - 2, rank - 1] + list(range(rank - 3, -1, -1)) if rank >= 2 else list(range(rank - 1, -1, -1))


def check_layouts(op, column_major: bool) -> str | None:
    """Compare the call's ``operand_layouts`` / ``result_layouts`` with what JAX writes
    (``_linalg_ffi_lowering``): with ``column_major``, every operand and result of the operands' highest rank
    :func:`column_major_layout`, the others the default ``[r-1, ..., 0]``; without, the default everywhere (an
    absent attribute means default layouts). Returns None when they agree, else what differs (a message)."""
    top = max((ir.RankedTensorType(v.type).rank for v in op.operands), default=0)
    for name, values in (("operand_layouts", op.operands), ("result_layouts", op.results)):
        raw = attributes.get(op, name, None)
        ranks = [ir.RankedTensorType(v.type).rank for v in values]
        if raw is None:
            actual = [list(range(r - 1, -1, -1)) for r in ranks]
        else:
            if not isinstance(raw, ir.ArrayAttr) or len(raw) != len(ranks):
                return f"'{name}' is not a list of {len(ranks)} layouts"
            actual = [attributes.int_array_of(a) for a in raw]
        for i, (r, got) in enumerate(zip(ranks, actual)):
            want = column_major_layout(r) if column_major and r == top else list(range(r - 1, -1, -1))
            if got != want:
                what = name.split("_")[0]
                return (f"{what} #{i} has layout {got}, expected {want} (the layout JAX writes for this kernel: "
                        f"{'column-major matrices' if column_major else 'row-major'})")
    return None


def _svd_mode(config: dict) -> str:
    return ("A" if config["full_matrices"] else "S") if config["compute_uv"] else "N"


def _five_results(info, routine: str) -> list[list[int]]:
    shapes = list(info.result_shapes)
    if len(shapes) != 5:
        raise UnsupportedError(f"{routine} with {len(shapes)} results (expected 5: a, s, u, v, info)")
    return shapes


def rewrite_gesvd(e: Emitter, args: list[V], config: dict, info) -> list[V]:
    """``gesvd`` / ``gesdd`` (``full_matrices``, ``compute_uv``, ``transposed``): results
    ``[a, s, u, vt, info]``, or ``[a, s, vt, u, info]`` when ``transposed`` (JAX gives the call row-major
    layouts then: the kernel factors ``A^T``, and its ``U`` / ``V^H`` are the logical ``V^H`` / ``U`` of ``A``).
    With ``compute_uv`` false the two are 0-d or unread: zeros of the call's types. The SVD is
    :func:`~hlokit.passes.lapack.spectral.build_gesdd` (``s`` descending, ``info`` 1 where ``s`` has a NaN)."""
    (a,) = args
    shapes = _five_results(info, "gesvd")
    transposed = config.get("transposed", False)
    x, y = (3, 2) if transposed else (2, 3)
    out = build_gesdd(e, a, _svd_mode(config), [shapes[0], shapes[1], shapes[x], shapes[y], shapes[4]])
    a_out, s, u, vt, status = out
    return [a_out, s, vt, u, status] if transposed else [a_out, s, u, vt, status]


def rewrite_gesvdj(e: Emitter, args: list[V], config: dict, info) -> list[V]:
    """``gesvdj`` / ``gesvdp`` (``full_matrices`` = not econ, ``compute_uv``): results
    ``[a, s, u, v, info]`` with ``v`` itself, not ``v^H`` (JAX transposes and conjugates it after the call),
    ``u`` ``[*b, m, m]`` and ``v`` ``[*b, n, n]`` (econ: ``[*b, m, k]``, ``[*b, n, k]``). Allocated even when
    ``compute_uv`` is false: zeros then (JAX does not read them)."""
    (a,) = args
    shapes = _five_results(info, "gesvdj")
    mode = _svd_mode(config)
    a_out, s, u, vt, status = build_gesdd(e, a, mode, shapes)
    return [a_out, s, u, vt if mode == "N" else adjoint(e, vt), status]


def decode_legacy_syev(data: bytes, op) -> dict:
    """The config of a legacy ``hipsolver_syevd`` / ``hipsolver_syevj`` call from its opaque descriptor (five
    little-endian int32: type, uplo, batch, n, lwork): ``{"lower": bool}``. Raises ValueError when the
    descriptor is not 20 bytes or disagrees with the operand (element type, ``n``, batch size) or ``uplo`` is
    not a hipSOLVER fill mode."""
    if len(data) != 20:
        raise ValueError(f"opaque descriptor of {len(data)} bytes (expected 20: type, uplo, batch, n, lwork "
                         "as little-endian int32)")
    kind, uplo, batch, n, _lwork = struct.unpack("<5i", data)
    if not op.operands or not isinstance(op.operands[0].type, ir.RankedTensorType):
        raise ValueError("expected a ranked matrix operand")
    t = ir.RankedTensorType(op.operands[0].type)
    elem, shape = str(t.element_type), list(t.shape)
    if not 0 <= kind < len(LEGACY_TYPES) or LEGACY_TYPES[kind] != elem:
        raise ValueError(f"descriptor type {kind} does not match the operand's element type {elem}")
    if uplo not in (HIP_FILL_UPPER, HIP_FILL_LOWER):
        raise ValueError(f"descriptor uplo {uplo} (expected {HIP_FILL_UPPER} upper or {HIP_FILL_LOWER} lower)")
    if len(shape) < 2 or n != shape[-1] or batch != math.prod(shape[:-2]):
        raise ValueError(f"descriptor batch {batch}, n {n} do not match the operand shape {shape}")
    return {"lower": uplo == HIP_FILL_LOWER}


def rewrite_legacy_syev(e: Emitter, args: list[V], config: dict, info) -> list[V]:
    """Legacy ``syevd`` / ``syevj``: results ``[v, w, info, workspace]`` (``info`` of the batch shape; the
    workspace, which JAX does not read, zeros) from :func:`~hlokit.passes.lapack.spectral.build_syevd`."""
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"syevd of a {a.ty} (expected a square matrix)")
    shapes, elems = list(info.result_shapes), list(info.result_elems)
    if len(shapes) != 4:
        raise UnsupportedError(f"legacy syevd with {len(shapes)} results (expected 4: v, w, info, workspace)")
    v, w, status = build_syevd(e, a, config["lower"])
    if status.shape != shapes[2] and math.prod(status.shape) == math.prod(shapes[2]):
        status = e.reshape(status, shapes[2])
    return [v, w, status, splat(e, 0, elems[3], shapes[3])]
