"""JAX's serialized ``Exported``: the bytes ``jax.export.Exported.serialize()`` writes, read by content.

What users keep from ``jax.export`` is usually not the bare module but this container: a FlatBuffer (table
``Exported`` of jax's schema ``jax/_src/export/serialization.fbs``; https://docs.jax.dev/en/latest/export/export.html,
"Serialization") around the module's StableHLO portable artifact (``mlir_module_serialized``, VHLO bytecode),
with the platforms it was lowered for, the device count (``nr_devices``), the argument and result shardings, the
input and output pytrees, the calling convention version and the indices of the arguments the module kept
(``module_kept_var_idx``). jax writes no FlatBuffer file identifier, so the container is recognised by its
structure (:func:`sniff`): a FlatBuffer root table whose field 13 (``mlir_module_serialized``) is a byte vector
holding MLIR bytecode (``ML\\xefR``). The rest is read by jax's public ``jax.export.deserialize``
(:func:`read_container`); jax is imported only when such a file is met.

:func:`annotate` writes what the container carries onto the module it holds, so every tool reads it from the
module, as from one written by hand: ``jax.platforms`` (the platforms in export order, read by ``hlokit-run``'s
multi-platform index), ``jax.nr_devices`` and ``jax.calling_convention_version`` (module attributes),
``mhlo.num_partitions`` / ``mhlo.num_replicas`` where the module has neither, ``jax.arg_info`` (jax's pytree path
of each argument, ``args[0]['w']``) and ``mhlo.sharding`` of an argument or result that declares none; a
sharding the module declares is checked against the container's (the pieces each dimension is cut into).

A core module: it imports only core (and, inside :func:`read_container`, jax's public ``jax.export``);
``hlokit.core.parse`` calls it for bytes that are neither MLIR text nor MLIR bytecode.
"""

from __future__ import annotations

import dataclasses
import re
import struct
from typing import Sequence

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.diagnostics import ParseError

__all__ = ["WHAT", "ExportedContainer", "sniff", "is_container", "read_container", "annotate"]

#: How errors name the container.
WHAT = "JAX serialized Exported (jax.export.Exported.serialize())"

_MLIR_MAGIC = b"ML\xefR"

#: Field slots of table ``Exported`` (jax/_src/export/serialization.fbs; FlatBuffers never renumber a field) and
#: what each holds: a string, a table, or a vector with its element size (scalars are not listed).
_FIELD_NAMES = {
    0: "serialization_version", 1: "function_name", 2: "in_tree", 3: "in_avals", 4: "out_tree", 5: "out_avals",
    6: "nr_devices_short", 7: "in_shardings", 8: "out_shardings", 9: "platforms", 10: "ordered_effects",
    11: "unordered_effects", 12: "disabled_checks", 13: "mlir_module_serialized", 14: "calling_convention_version",
    15: "module_kept_var_idx", 16: "uses_global_constants", 17: "vjp", 18: "nr_devices", 19: "unique_avals",
    20: "unique_abstract_meshes", 21: "unique_named_shardings", 22: "in_avals_idxs", 23: "out_avals_idxs",
    24: "in_shardings_idxs", 25: "out_shardings_idxs",
}
_MODULE_SLOT = 13
_STRING_SLOTS = frozenset({1})
_TABLE_SLOTS = frozenset({2, 4, 17})
_VECTOR_SLOTS = {3: 4, 5: 4, 7: 4, 8: 4, 9: 4, 10: 4, 11: 4, 12: 4, 13: 1, 15: 2, 19: 4, 20: 4, 21: 4, 22: 4,
                 23: 4, 24: 4, 25: 4}
#: More fields than any schema version could plausibly have: a vtable claiming more is not jax's.
_MAX_FIELDS = 256


def _u32(data: bytes, at: int) -> int:
    return struct.unpack_from("<I", data, at)[0]


def sniff(data: bytes | bytearray) -> tuple[bool, str | None]:
    """Whether ``data`` is JAX's serialized ``Exported``, and what is wrong with it: ``(False, None)`` for other
    input, ``(True, None)`` for a whole container, ``(True, problem)`` for one that is truncated or whose
    offsets point outside it. Reads only the FlatBuffer's layout (https://flatbuffers.dev/internals/: a
    little-endian root offset, the root table's offset to its vtable, the vtable's field offsets, each vector a
    length and its elements). Raises nothing; costs microseconds."""
    n = len(data)
    if n < 12 or bytes(data[:4]) == _MLIR_MAGIC:
        return False, None
    root = _u32(data, 0)
    if root < 4 or root + 4 > n:
        return False, None
    vt = root - struct.unpack_from("<i", data, root)[0]
    if vt < 4 or vt + 4 > n:
        return False, None
    vt_size, obj_size = struct.unpack_from("<HH", data, vt)
    nfields = (vt_size - 4) // 2
    if vt_size % 2 or not _MODULE_SLOT < nfields <= _MAX_FIELDS or vt + vt_size > n or obj_size < 4:
        return False, None
    slots = struct.unpack_from(f"<{nfields}H", data, vt + 4)
    if not slots[0] or not slots[_MODULE_SLOT] or slots[_MODULE_SLOT] + 4 > obj_size:
        return False, None
    if root + obj_size > n:
        return True, f"truncated or corrupt: its root table ends at byte {root + obj_size}, past the end ({n} bytes)"
    field = root + slots[_MODULE_SLOT]
    vec = field + _u32(data, field)
    if vec + 8 > n:
        return True, (f"truncated or corrupt: its field mlir_module_serialized starts at byte {vec}, past the end "
                      f"({n} bytes)")
    if bytes(data[vec + 4:vec + 8]) != _MLIR_MAGIC:
        return False, None
    for slot, voff in enumerate(slots):
        if not voff or not (slot in _STRING_SLOTS or slot in _TABLE_SLOTS or slot in _VECTOR_SLOTS):
            continue
        name = _FIELD_NAMES.get(slot, f"#{slot}")
        if voff + 4 > obj_size:
            return True, f"corrupt: field {name} lies outside its table"
        pos = root + voff
        target = pos + _u32(data, pos)
        if slot in _TABLE_SLOTS:
            end = target + 4
        elif target + 4 > n:
            end = target + 4
        else:
            size = 1 if slot in _STRING_SLOTS else _VECTOR_SLOTS[slot]
            end = target + 4 + _u32(data, target) * size + (1 if slot in _STRING_SLOTS else 0)
        if end > n:
            return True, f"truncated or corrupt: its field {name} ends at byte {end}, past the end ({n} bytes)"
    return True, None


def is_container(data: bytes | bytearray | str) -> bool:
    """Whether ``data`` (bytes) looks like JAX's serialized ``Exported``, whole or damaged (:func:`sniff`)."""
    return isinstance(data, (bytes, bytearray)) and sniff(data)[0]


@dataclasses.dataclass
class ExportedContainer:
    """What a serialized ``Exported`` carries (``jax.export.Exported``'s fields of the same names).

    ``module``: the portable artifact (VHLO bytecode). ``arg_names``: jax's pytree path of each flattened input
    (``args[0]['w']``, ``kwargs['x']``), ``in_avals`` / ``out_avals`` their abstract values as jax prints them
    (``float32[b,4]``), ``in_shardings`` / ``out_shardings`` one ``HloSharding`` or None (unspecified) each;
    ``kept``: the inputs the module takes, as indices into those lists (``module_kept_var_idx``)."""

    module: bytes
    function_name: str
    platforms: tuple[str, ...]
    nr_devices: int
    calling_convention_version: int
    kept: tuple[int, ...]
    arg_names: list[str]
    in_avals: list[str]
    out_avals: list[str]
    in_shardings: list
    out_shardings: list
    ordered_effects: int = 0

    def describe(self) -> str:
        """``jax.export for cpu, cuda; 2 devices; calling convention 10``."""
        devices = f"{self.nr_devices} device{'s' if self.nr_devices != 1 else ''}"
        return (f"jax.export of {self.function_name} for {', '.join(self.platforms)}; {devices}; "
                f"calling convention {self.calling_convention_version}")


def _path_name(path) -> str:
    """jax's name of an input at pytree ``path`` of ``(args, kwargs)``: ``args[0]['w']``, ``kwargs['x']``."""
    import jax.tree_util as tree_util

    head = getattr(path[0], "idx", None) if path else None
    if head in (0, 1):
        return ("args" if head == 0 else "kwargs") + tree_util.keystr(tuple(path[1:]))
    return tree_util.keystr(tuple(path)) or "args"


def _aval_text(aval) -> str:
    """``float32[b,4]``: jax's short form of an abstract value."""
    short = getattr(aval, "str_short", None)
    return short() if callable(short) else str(aval)


def read_container(data: bytes | bytearray, *, source_name: str = "-") -> ExportedContainer:
    """Read JAX's serialized ``Exported`` through jax's public ``jax.export.deserialize`` (jax and its
    ``flatbuffers`` dependency are imported here, on first use).

    Raises :class:`ParseError` (``source_name: error: ...``) for input that is not such a container, one that is
    truncated or corrupt (:func:`sniff`, or what ``deserialize`` refused, with its message), and when jax cannot
    read containers here (``flatbuffers`` missing, naming the package to install)."""
    found, problem = sniff(data)
    if not found:
        raise ParseError(f"not a {WHAT}", file=source_name)
    if problem:
        raise ParseError(f"{WHAT}: {problem}", file=source_name)
    try:
        from jax import export as jax_export
        from jax import tree_util
    except ImportError as err:  # pragma: no cover (jax is a dependency)
        raise ParseError(f"{WHAT}: reading it needs jax: {err}", file=source_name) from None
    try:
        exp = jax_export.deserialize(bytearray(data))
        leaves = tree_util.tree_unflatten(exp.in_tree, list(range(exp.in_tree.num_leaves)))
        names = [_path_name(p) for p, _ in tree_util.tree_flatten_with_path(leaves)[0]]
        # (HloShardings; a jax without them gives None each: unspecified)
        in_shardings = list(getattr(exp, "in_shardings_hlo", None) or [None] * len(exp.in_avals))
        out_shardings = list(getattr(exp, "out_shardings_hlo", None) or [None] * len(exp.out_avals))
        kept = tuple(int(i) for i in exp.module_kept_var_idx)
        container = ExportedContainer(
            module=bytes(exp.mlir_module_serialized), function_name=str(exp.fun_name),
            platforms=tuple(str(p) for p in exp.platforms), nr_devices=int(exp.nr_devices),
            calling_convention_version=int(exp.calling_convention_version), kept=kept, arg_names=names,
            in_avals=[_aval_text(a) for a in exp.in_avals], out_avals=[_aval_text(a) for a in exp.out_avals],
            in_shardings=in_shardings, out_shardings=out_shardings, ordered_effects=len(exp.ordered_effects))
    except ImportError as err:
        raise ParseError(f"{WHAT}: jax.export.deserialize needs the Python package 'flatbuffers' "
                         f"(pip install flatbuffers): {err}", file=source_name) from None
    except Exception as err:  # a FlatBuffer reader over bad offsets fails with any of many errors
        first = (str(err).strip().splitlines() or [""])[0][:300]
        raise ParseError(f"{WHAT}: corrupt: jax.export.deserialize failed: {type(err).__name__}"
                         + (f": {first}" if first else ""), file=source_name) from None
    if not container.module.startswith(_MLIR_MAGIC):
        raise ParseError(f"{WHAT}: corrupt: its mlir_module_serialized is not MLIR bytecode", file=source_name)
    bad = [i for i in kept if not 0 <= i < len(names)]
    if bad or len(in_shardings) != len(names) or len(out_shardings) != len(container.out_avals):
        raise ParseError(f"{WHAT}: corrupt: its module_kept_var_idx, shardings and inputs do not agree "
                         f"({len(names)} inputs, kept {list(kept)}, {len(in_shardings)} input shardings)",
                         file=source_name)
    return container


# ----------------------------------------------------------------------------------------------
# What the container carries, written onto its module


def _hlo_pieces(sharding, rank: int) -> tuple[int, ...] | None:
    """The pieces each of ``rank`` dimensions is cut into by an XLA ``HloSharding`` (None: unspecified, maximal or
    manual, nothing to compare)."""
    if sharding is None or sharding.is_maximal() or sharding.is_manual():
        return None
    if sharding.is_replicated():
        return (1,) * rank
    if not sharding.is_tiled():
        return None
    dims = list(sharding.tile_assignment_dimensions())
    extra = 1 if sharding.replicate_on_last_tile_dim() else len(list(sharding.subgroup_types()))
    return tuple(dims[:len(dims) - extra])


def _meshes(module: ir.Module) -> dict[str, dict[str, int]]:
    from jaxlib.mlir.dialects import sdy

    out = {}
    for op in module.body.operations:
        if op.operation.name == "sdy.mesh":
            mesh = sdy.MeshAttr(op.attributes["mesh"])
            out[ir.StringAttr(op.attributes["sym_name"]).value] = {
                sdy.MeshAxisAttr(a).name: sdy.MeshAxisAttr(a).size for a in mesh.axes}
    return out


def _declared_pieces(attrs: dict, meshes) -> tuple[str, tuple[int, ...] | None] | None:
    """(attribute name, pieces per dimension) of the sharding an argument / result declares (``sdy.sharding``
    with the module's ``sdy.mesh`` sizes, or an ``mhlo.sharding`` string); None where it declares none."""
    if "sdy.sharding" in attrs:
        from jaxlib.mlir.dialects import sdy

        sharding = sdy.TensorShardingAttr(attrs["sdy.sharding"])
        ref = sharding.mesh_or_ref
        if isinstance(ref, ir.FlatSymbolRefAttr):
            sizes = meshes.get(ir.FlatSymbolRefAttr(ref).value)
        else:
            sizes = {sdy.MeshAxisAttr(a).name: sdy.MeshAxisAttr(a).size for a in sdy.MeshAttr(ref).axes}
        if sizes is None:
            return "sdy.sharding", None
        pieces = []
        for dim in sharding.dimension_shardings:
            count = 1
            for a in sdy.DimensionShardingAttr(dim).axes:
                ax = sdy.AxisRefAttr(a)
                count *= (sdy.SubAxisInfoAttr(ax.sub_axis_info).size if ax.sub_axis_info is not None
                          else sizes.get(ax.name, 1))
            pieces.append(count)
        return "sdy.sharding", tuple(pieces)
    if "mhlo.sharding" in attrs:
        from jaxlib import xla_client

        try:
            sharding = xla_client.HloSharding.from_string(ir.StringAttr(attrs["mhlo.sharding"]).value)
        except Exception:
            return "mhlo.sharding", None
        return "mhlo.sharding", _hlo_pieces(sharding, 1 << 30)
    return None


def _main(module: ir.Module):
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    return None


def _attr_dicts(fn, key: str, count: int) -> list[dict]:
    dicts: list[dict] = [{} for _ in range(count)]
    if key in fn.attributes:
        for i, d in enumerate(ir.ArrayAttr(fn.attributes[key])):
            if i < count:
                dd = ir.DictAttr(d)
                dicts[i] = {dd[k].name: dd[k].attr for k in range(len(dd))}
    return dicts


def _rank(t: ir.Type) -> int | None:
    return ir.RankedTensorType(t).rank if isinstance(t, ir.RankedTensorType) else None


def _pieces_text(pieces: Sequence[int]) -> str:
    return "x".join(map(str, pieces)) if pieces else "scalar"


def _shardings(module: ir.Module, fn, key: str, types: list[ir.Type], which: list[tuple[int, str, object]],
               kind: str, source_name: str) -> None:
    """Check (and, where the module declares none, write) the shardings of ``fn``'s arguments or results:
    ``which`` lists (position in the function, jax's name, the container's ``HloSharding``)."""
    meshes = _meshes(module)
    shardy = bool(meshes)
    dicts = _attr_dicts(fn, key, len(types))
    changed = False
    for pos, name, sharding in which:
        rank = _rank(types[pos])
        if rank is None or sharding is None:
            continue
        ours = _hlo_pieces(sharding, rank)
        declared = _declared_pieces(dicts[pos], meshes)
        if declared is None:
            if ours is not None and any(p != 1 for p in ours) and not shardy:
                dicts[pos]["mhlo.sharding"] = ir.StringAttr.get(str(sharding))
                changed = True
            continue
        attr, theirs = declared
        if ours is None or theirs is None:
            continue
        theirs = tuple(theirs[:rank]) + (1,) * (rank - len(theirs))
        if tuple(ours) != theirs:
            raise ParseError(
                f"{WHAT}: the sharding of {kind} {pos} ({name}) in the container, {sharding} (pieces "
                f"{_pieces_text(ours)}), disagrees with the module's {attr} (pieces {_pieces_text(theirs)})",
                file=source_name)
    if changed:
        fn.attributes[key] = ir.ArrayAttr.get([ir.DictAttr.get(d) for d in dicts])


_QUOTED = re.compile(rb'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(rb'\\(\\|"|[0-9A-Fa-f]{2})')


def _check_strings(module: ir.Module, source_name: str) -> None:
    """ParseError when a quoted name or string of ``module`` is not UTF-8: the bindings abort the process when
    they hand such a name to Python (a corrupt container can hold one). Reads the module's printed text
    (constants elided), where MLIR writes every byte outside printable ASCII as a ``\\XX`` escape."""
    text = module.operation.get_asm(binary=True, large_elements_limit=16, assume_verified=True)
    for m in _QUOTED.finditer(text):
        body = m.group(1)
        if b"\\" not in body:
            continue
        raw = _ESCAPE.sub(lambda e: e.group(1) if len(e.group(1)) == 1 else bytes([int(e.group(1), 16)]), body)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError(f"{WHAT}: corrupt: its module holds a name or string that is not UTF-8: "
                             f"\"{body[:80].decode('ascii', 'replace')}\"", file=source_name) from None


def annotate(module: ir.Module, container: ExportedContainer, *, source_name: str = "-") -> None:
    """Write what ``container`` carries onto ``module`` (the module it holds, just parsed), in place: see the
    module docstring for the attributes. Raises :class:`ParseError` where the container and the module
    disagree: platforms the module records otherwise, a device count other than ``mhlo.num_replicas`` x
    ``mhlo.num_partitions``, an argument count the kept inputs cannot explain, a sharding that cuts a dimension
    into other pieces than the module's ``sdy.sharding`` / ``mhlo.sharding``."""
    op = module.operation
    _check_strings(module, source_name)
    with module.context, ir.Location.unknown(module.context):
        i32 = ir.IntegerType.get_signless(32)
        for key in ("mhlo.platforms", "jax.platforms"):
            if key in op.attributes:
                try:
                    recorded = [ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes[key])]
                except (ValueError, TypeError):
                    continue
                if [p.lower() for p in recorded] != [p.lower() for p in container.platforms]:
                    raise ParseError(f"{WHAT}: its platforms {', '.join(container.platforms)} disagree with the "
                                     f"module's {key} {', '.join(recorded)}", file=source_name)
        op.attributes["jax.platforms"] = ir.ArrayAttr.get([ir.StringAttr.get(p) for p in container.platforms])
        op.attributes["jax.nr_devices"] = ir.IntegerAttr.get(i32, container.nr_devices)
        op.attributes["jax.calling_convention_version"] = ir.IntegerAttr.get(i32, container.calling_convention_version)
        if "mhlo.num_partitions" in op.attributes or "mhlo.num_replicas" in op.attributes:
            replicas = attributes.int_value(op, "mhlo.num_replicas", 1)
            partitions = attributes.int_value(op, "mhlo.num_partitions", 1)
            if replicas * partitions != container.nr_devices:
                raise ParseError(f"{WHAT}: it was exported for {container.nr_devices} device(s), but its module "
                                 f"needs mhlo.num_replicas {replicas} x mhlo.num_partitions {partitions}",
                                 file=source_name)
        elif container.nr_devices > 1:
            op.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, container.nr_devices)
            op.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        fn = _main(module)
        if fn is None:
            return
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        inputs, results = list(ftype.inputs), list(ftype.results)
        # @main takes jax's _platform_index (several platforms) and effect tokens first, then the kept inputs
        prefix = len(inputs) - len(container.kept)
        if prefix < 0:
            raise ParseError(f"{WHAT}: its module's @main takes {len(inputs)} argument(s), fewer than the "
                             f"{len(container.kept)} inputs the container says it kept", file=source_name)
        dicts = _attr_dicts(fn, "arg_attrs", len(inputs))
        for k, flat in enumerate(container.kept):
            if "jax.arg_info" not in dicts[prefix + k]:
                dicts[prefix + k]["jax.arg_info"] = ir.StringAttr.get(container.arg_names[flat])
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(d) for d in dicts])
        _shardings(module, fn, "arg_attrs", inputs,
                   [(prefix + k, container.arg_names[flat], container.in_shardings[flat])
                    for k, flat in enumerate(container.kept)], "argument", source_name)
        # results: jax's effect tokens first, then the outputs
        rprefix = len(results) - len(container.out_shardings)
        if rprefix >= 0:
            _shardings(module, fn, "res_attrs", results,
                       [(rprefix + k, f"result[{k}]", s) for k, s in enumerate(container.out_shardings)],
                       "result", source_name)
