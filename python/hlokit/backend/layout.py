"""Device layout of multi-device programs: replicas × partitions, and where each shard of an array lives.

A StableHLO module states its device needs in module attributes (``mhlo.num_replicas``,
``mhlo.num_partitions``) and its argument/result shardings in ``sdy.sharding`` (Shardy) or ``mhlo.sharding``
(GSPMD) attributes. XLA resolves those into one ``HloSharding`` per parameter and result of the compiled
executable (``LoadedExecutable.get_parameter_shardings`` / ``get_output_shardings``); :class:`ShardSpec`
reads one of them and answers which slice of the global array each partition holds. Sharding semantics:
https://openxla.org/xla/shardy and XLA's ``hlo_sharding.h`` (tile assignment, ``last_tile_dim_replicate``).

Devices are numbered as XLA's device assignment: device ``r * num_partitions + p`` runs replica ``r``,
partition ``p``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from jaxlib import xla_client
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from hlokit import attributes
from hlokit.diagnostics import HlokitError

__all__ = ["ShardSpec", "LayoutError", "module_device_needs", "uses_shardy", "declared_pieces",
           "check_declared_shardings"]


class LayoutError(HlokitError):
    """A sharding hlokit cannot map onto the devices (does not divide a dimension, or is unsupported)."""


def module_device_needs(module: ir.Module) -> tuple[int, int]:
    """``(num_replicas, num_partitions)`` from the module attributes (1 where absent)."""
    op = module.operation
    return attributes.int_value(op, "mhlo.num_replicas", 1), attributes.int_value(op, "mhlo.num_partitions", 1)


def _names(attrs) -> list[str]:
    return [a if isinstance(a, str) else a.name for a in attrs]


def _walk_attr_names(module: ir.Module):
    for op in module.body.operations:
        yield op.operation.name, _names(op.operation.attributes)
        if op.operation.name == "func.func":
            for key in ("arg_attrs", "res_attrs"):
                if key in op.attributes:
                    for d in ir.ArrayAttr(op.attributes[key]):
                        yield key, _names(ir.DictAttr(d)) if isinstance(d, ir.DictAttr) else []


def uses_shardy(module: ir.Module) -> bool:
    """True when the module carries Shardy (``sdy``) meshes or shardings: compile with the Shardy partitioner."""
    for op_name, names in _walk_attr_names(module):
        if op_name.startswith("sdy.") or any(n.startswith("sdy.") for n in names):
            return True
    return False


@dataclasses.dataclass(frozen=True)
class ShardSpec:
    """Which part of a global array each partition holds, read from one XLA ``HloSharding``.

    ``tile_dims`` has one entry per array dimension (how many pieces it is cut into); ``replication`` is how
    many partitions hold each piece (``last_tile_dim_replicate``); ``tile_partitions`` lists the partition
    of every tile in row-major tile order, replication innermost. A replicated array has all tile dims 1.
    """

    tile_dims: tuple[int, ...]
    replication: int
    tile_partitions: tuple[int, ...]

    @staticmethod
    def replicated(rank: int, num_partitions: int) -> "ShardSpec":
        """Every partition holds the whole array."""
        return ShardSpec((1,) * rank, num_partitions, tuple(range(num_partitions)))

    @staticmethod
    def from_xla(sharding, rank: int, num_partitions: int, what: str) -> "ShardSpec":
        """Read an ``OpSharding`` / ``HloSharding`` of an array of ``rank`` dims (None = replicated)."""
        if sharding is None:
            return ShardSpec.replicated(rank, num_partitions)
        h = sharding if isinstance(sharding, xla_client.HloSharding) else xla_client.HloSharding.from_proto(sharding)
        if h.is_replicated():
            return ShardSpec.replicated(rank, num_partitions)
        if h.is_maximal() or not h.is_tiled():
            raise LayoutError(f"{what} has sharding {h}: only tiled and replicated shardings can be fed from host arrays")
        dims = tuple(h.tile_assignment_dimensions())
        subgroups = list(h.subgroup_types())
        replicate = h.replicate_on_last_tile_dim()
        extra = 1 if replicate else len(subgroups)
        if subgroups and any(str(t).rsplit(".", 1)[-1] != "REPLICATED" for t in subgroups):
            raise LayoutError(f"{what} has sharding {h}: manual or unreduced sub-groups are not supported")
        if len(dims) != rank + extra:
            raise LayoutError(f"{what} has sharding {h} of {len(dims) - extra} dims for a rank-{rank} array")
        replication = math.prod(dims[rank:])
        return ShardSpec(dims[:rank], replication, tuple(h.tile_assignment_devices()))

    def check_divides(self, shape: tuple[int, ...], what: str) -> None:
        """LayoutError when a dimension is not a multiple of its number of pieces (XLA would pad)."""
        for d, (n, t) in enumerate(zip(shape, self.tile_dims)):
            if n % t:
                raise LayoutError(
                    f"{what}: its sharding cuts dimension {d} (size {n}) into {t} pieces, which does not divide "
                    f"it; use a size that is a multiple of {t}"
                )

    def shard_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Shape of the piece every partition holds."""
        return tuple(n // t for n, t in zip(shape, self.tile_dims))

    def index(self, shape: tuple[int, ...], partition: int) -> tuple[slice, ...]:
        """Slices of the global array of ``shape`` held by ``partition``."""
        pos = self.tile_partitions.index(partition) // self.replication
        tile = np.unravel_index(pos, self.tile_dims) if self.tile_dims else ()
        piece = self.shard_shape(shape)
        return tuple(slice(int(i) * s, (int(i) + 1) * s) for i, s in zip(tile, piece))

    def mesh_shape(self) -> tuple[int, ...]:
        """Tile grid including the replication dim (its product is the number of partitions)."""
        return self.tile_dims + (self.replication,)

    def describe(self) -> str:
        """``replicated`` or e.g. ``tiled 2x1 (x2 replicated)``."""
        if all(t == 1 for t in self.tile_dims):
            return "replicated"
        rep = f" (x{self.replication} replicated)" if self.replication > 1 else ""
        return "tiled " + "x".join(map(str, self.tile_dims)) + rep


def _mesh_sizes(module: ir.Module) -> dict[str, dict[str, int]]:
    meshes = {}
    for op in module.body.operations:
        if op.operation.name == "sdy.mesh":
            mesh = sdy.MeshAttr(op.attributes["mesh"])
            name = ir.StringAttr(op.attributes["sym_name"]).value
            meshes[name] = {sdy.MeshAxisAttr(a).name: sdy.MeshAxisAttr(a).size for a in mesh.axes}
    return meshes


def _sdy_pieces(attr: ir.Attribute, meshes: dict[str, dict[str, int]]) -> tuple[int, ...] | None:
    sharding = sdy.TensorShardingAttr(attr)
    ref = sharding.mesh_or_ref
    if isinstance(ref, ir.FlatSymbolRefAttr) or ir.FlatSymbolRefAttr.isinstance(ref):
        sizes = meshes.get(ir.FlatSymbolRefAttr(ref).value)
    else:
        sizes = {sdy.MeshAxisAttr(a).name: sdy.MeshAxisAttr(a).size for a in sdy.MeshAttr(ref).axes}
    if sizes is None:
        return None
    pieces = []
    for dim in sharding.dimension_shardings:
        n = 1
        for a in sdy.DimensionShardingAttr(dim).axes:
            ax = sdy.AxisRefAttr(a)
            n *= sdy.SubAxisInfoAttr(ax.sub_axis_info).size if ax.sub_axis_info is not None else sizes[ax.name]
        pieces.append(n)
    return tuple(pieces)


def declared_pieces(module: ir.Module, fn) -> list[tuple[str, int, tuple[int, ...]]]:
    """``(kind, index, pieces per dim)`` of every argument/result of ``fn`` that declares a sharding.

    Reads ``sdy.sharding`` (with the module's ``sdy.mesh`` sizes) and GSPMD ``mhlo.sharding`` strings; the
    pieces of a dimension are the product of the mesh axes (or tile count) that split it.
    """
    meshes = _mesh_sizes(module)
    found = []
    with module.context:
        for kind, key in (("argument", "arg_attrs"), ("result", "res_attrs")):
            if key not in fn.attributes:
                continue
            for i, d in enumerate(ir.ArrayAttr(fn.attributes[key])):
                attrs = ir.DictAttr(d)
                pieces = None
                if "sdy.sharding" in attrs:
                    pieces = _sdy_pieces(attrs["sdy.sharding"], meshes)
                elif "mhlo.sharding" in attrs:
                    h = xla_client.HloSharding.from_string(ir.StringAttr(attrs["mhlo.sharding"]).value)
                    if h.is_tiled():
                        dims = list(h.tile_assignment_dimensions())
                        extra = 1 if h.replicate_on_last_tile_dim() else len(list(h.subgroup_types()))
                        pieces = tuple(dims[: len(dims) - extra])
                if pieces is not None:
                    found.append((kind, i, pieces))
    return found


def check_declared_shardings(module: ir.Module, fn, in_shapes, out_shapes) -> None:
    """LayoutError when a declared sharding cuts a dimension into pieces that do not divide it.

    XLA would pad such a dimension (or Shardy drop the sharding); hlokit feeds and assembles whole pieces.
    """
    for kind, i, pieces in declared_pieces(module, fn):
        shape = (in_shapes if kind == "argument" else out_shapes)[i]
        ShardSpec(tuple(pieces), 1, ()).check_divides(tuple(shape), f"{kind} {i} ({'x'.join(map(str, shape))})")
