"""The one reader of XLA's HLO sharding text (``HloSharding::ToString``, ``xla/hlo/ir/hlo_sharding.h``),
as jax writes it in ``mhlo.sharding`` attributes and ``@Sharding`` custom calls: ``{replicated}``,
``{maximal device=0}``, ``{devices=[2,1]0,1}``, ``{devices=[2,2]<=[4]}``, ``{devices=[2,1,2]<=[2,2]T(1,0)
last_tile_dim_replicate}``. Used by ``--stablehlo-legalize-tpu-custom-calls`` (pieces of a tiled array)
and ``hlokit-run`` (how many devices a program's shardings name).
"""

from __future__ import annotations

import math
import re

__all__ = ["TiledSharding", "parse_tiled", "tile_dims_in"]

#: ``{devices=[t0,t1,...]<device list>[ last_tile_dim_replicate]}``; the device list is explicit
#: (``0,1,2,3``) or an iota (``<=[4]``, ``<=[2,2]T(1,0)``: the iota reshaped to [2,2], transposed (1,0)).
_TILED = re.compile(r"^\{devices=\[([0-9,]+)\]([0-9,]+|<=\[[0-9,]+\](?:T\([0-9,]+\))?)"
                    r"( last_tile_dim_replicate)?\}$")
_IOTA = re.compile(r"^<=\[([0-9,]+)\](?:T\(([0-9,]+)\))?$")
_TILE_DIMS = re.compile(r"devices=\[([0-9,]+)\]")


class TiledSharding:
    """A tiled HLO sharding: ``tiles`` (pieces per dimension, the replication group size last when
    ``replicate``), ``device_ids`` (the tile assignment in row-major order of ``tiles``)."""

    __slots__ = ("tiles", "device_ids", "replicate")

    def __init__(self, tiles: list[int], device_ids: list[int], replicate: bool):
        self.tiles = tiles
        self.device_ids = device_ids
        self.replicate = replicate


def _iota(dims: list[int], perm: list[int] | None) -> list[int]:
    """The device ids of ``<=[dims]T(perm)``: 0..prod(dims)-1 laid out as ``dims``, transposed by ``perm``,
    read in row-major order."""
    strides = [math.prod(dims[i + 1:]) for i in range(len(dims))]
    order = perm if perm is not None else list(range(len(dims)))
    shape = [dims[p] for p in order]
    out = []
    for pos in range(math.prod(shape)):
        index, rest = 0, pos
        for axis in reversed(range(len(shape))):
            rest, c = divmod(rest, shape[axis])
            index += c * strides[order[axis]]
        out.append(index)
    return out


def parse_tiled(text: str) -> TiledSharding | None:
    """The :class:`TiledSharding` of sharding text ``text`` (whitespace around it ignored), or None when it
    is not a tiled sharding (replicated, maximal, manual, another form)."""
    m = _TILED.match(text.strip())
    if not m:
        return None
    tiles = [int(t) for t in m.group(1).split(",")]
    ids_text = m.group(2)
    if ids_text.startswith("<="):
        im = _IOTA.match(ids_text)
        dims = [int(d) for d in im.group(1).split(",")]
        perm = [int(p) for p in im.group(2).split(",")] if im.group(2) else None
        ids = _iota(dims, perm)
    else:
        ids = [int(i) for i in ids_text.split(",")]
    return TiledSharding(tiles, ids, bool(m.group(3)))


def tile_dims_in(text: str) -> list[tuple[int, ...]]:
    """Every tile shape (``devices=[2,1]`` -> ``(2, 1)``) that occurs in ``text`` (an attribute's text, which
    may hold several shardings, e.g. a function's ``arg_attrs``)."""
    return [tuple(int(d) for d in dims.split(",")) for dims in _TILE_DIMS.findall(text)]
