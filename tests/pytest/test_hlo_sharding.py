"""hlokit.hlo_sharding: XLA's HloSharding text as jax writes it."""

import numpy as np
import pytest

from hlokit.hlo_sharding import parse_tiled, tile_dims_in


@pytest.mark.parametrize("text,tiles,ids,replicate", [
    ("{devices=[2,1]0,1}", [2, 1], [0, 1], False),
    ("{devices=[2,2]3,2,1,0}", [2, 2], [3, 2, 1, 0], False),
    ("{devices=[4,1]<=[4]}", [4, 1], [0, 1, 2, 3], False),
    ("{devices=[2,2]<=[2,2]T(1,0)}", [2, 2], [0, 2, 1, 3], False),
    (" {devices=[1,2,2]<=[4] last_tile_dim_replicate} ", [1, 2, 2], [0, 1, 2, 3], True),
])
def test_parse_tiled(text, tiles, ids, replicate):
    s = parse_tiled(text)
    assert (s.tiles, s.device_ids, s.replicate) == (tiles, ids, replicate)


def test_iota_with_transpose_is_numpy_transpose():
    s = parse_tiled("{devices=[2,3,4]<=[2,3,4]T(2,0,1)}")
    assert s.device_ids == list(np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1).reshape(-1))


@pytest.mark.parametrize("text", ["{replicated}", "{maximal device=0}", "{manual}", "devices=[2]0,1", ""])
def test_not_tiled(text):
    assert parse_tiled(text) is None


def test_tile_dims_in_attribute_text():
    text = '[{mhlo.sharding = "{devices=[2,1]0,1}"}, {mhlo.sharding = "{devices=[1,4]<=[4]}"}, {}]'
    assert tile_dims_in(text) == [(2, 1), (1, 4)]
    assert tile_dims_in('{mhlo.sharding = "{replicated}"}') == []
