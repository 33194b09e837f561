"""Distribution ops of the hlokit interpreter: collectives, ids, channels, feeds, Shardy manual computations.

Semantics: the StableHLO spec (https://openxla.org/stablehlo/spec), sections "Execution" (process
grid, process groups) and the sections of ``all_gather``, ``all_reduce``, ``all_to_all``,
``collective_broadcast``, ``collective_permute``, ``reduce_scatter``, ``replica_id``, ``partition_id``,
``send``, ``recv``, ``infeed`` and ``outfeed``. Each op runs on the :class:`~hlokit.interpreter.process.Process`
of its interpreter (``interp.process``); a plain run (no ``interpreter.run_parallel``) is a 1 x 1 grid.

Process groups (spec "Process groups"), for ``groups`` read from ``replica_groups`` (padding ``-1``
dropped; an empty attribute means every replica / partition / process, as XLA reads it):

* ``cross_replica``: per partition, the replicas of each group;
* ``cross_partition``: per replica, the partitions of each group;
* ``cross_replica_and_partition``: per group, every partition of each of its replicas (partition-major);
* ``flattened_ids``: process ``replica_id * num_partitions + partition_id`` of each group.

``all_gather`` / ``all_reduce`` / ``reduce_scatter`` (and ``collective_reduce``) use ``cross_replica``
without a channel id (``channel_handle.handle <= 0``), ``cross_replica_and_partition`` with one and
``flattened_ids`` with ``use_global_device_ids``; ``all_to_all`` / ``collective_broadcast`` /
``collective_permute`` use ``cross_replica`` without a channel id and ``cross_partition`` with one.
Reductions apply the body left to right in the order of the process group.

Two forms of the upstream interpreter suite are newer than the StableHLO inside jaxlib, which rejects
them at parse time; :func:`rewrite_newer_ops` renames them to unregistered ops before parsing:

* ``collective_reduce``: ``all_reduce`` whose result lands on the first process of each group (the
  root); the others get zeros;
* ``collective_broadcast`` with ``has_dynamic_root``: the last operand is a 1-d tensor of group indices,
  one per data operand: data operand ``k`` comes from ``group[root[k]]``.

``sdy.manual_computation`` (Shardy, https://openxla.org/shardy): each process takes its piece of the
operands along the manual axes (mesh device ``replica_id * num_partitions + partition_id``), runs the
body, and every process assembles the global results from the pieces of all processes, so a JAX
``shard_map`` program exported for N devices runs on an N-process grid with global arguments and
global results on every process. Shardy's sharding annotations (``sharding_constraint``, ``reshard``,
``propagation_barrier``, ``sharding_group``, ``named_computation``) describe layouts only: the interpreter
runs them as the identity (a named computation runs its body).
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy
from jaxlib.mlir.dialects import stablehlo as shlo

from hlokit import attributes
from hlokit.core import register_text_preprocessor
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.process import Process, ProcessGrid
from hlokit.interpreter.regions import call_body, is_elementwise_region, region_callable
from hlokit.interpreter.registry import OpImpl, prepared, register, with_kernel
from hlokit.interpreter.values import TOKEN, dense_attribute, dtype_of

__all__ = [
    "NEWER_OPS",
    "rewrite_newer_ops",
    "process_groups",
    "current_process",
    "all_gather",
    "all_reduce",
    "all_to_all",
    "collective_broadcast",
    "collective_permute",
    "reduce_scatter",
]

ProcessId = tuple  # (replica_id, partition_id)

#: Names :func:`rewrite_newer_ops` gives the ops jaxlib's StableHLO does not know (unregistered ops the
#: loader accepts), and the spec names they stand for.
NEWER_OPS: dict[str, str] = {
    "hlokit.collective_reduce": "stablehlo.collective_reduce",
    "hlokit.collective_broadcast": "stablehlo.collective_broadcast",
}


def _attr_dict_end(text: str, i: int) -> int:
    """The index after the balanced ``{...}`` / ``<{...}>`` / ``(...)`` group that starts at ``text[i]``."""
    pairs = {"(": ")", "{": "}", "<": ">", "[": "]"}
    stack = []
    in_str = False
    j = i
    while j < len(text):
        c = text[j]
        if in_str:
            if c == "\\":
                j += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
        j += 1
    return len(text)


def _rewrite_newer_ops(text: str, problems: list) -> str:
    return rewrite_newer_ops(text)


def rewrite_newer_ops(text: str) -> str:
    """Rename, in MLIR text (generic op form), ``"stablehlo.collective_reduce"`` and a
    ``"stablehlo.collective_broadcast"`` that carries ``has_dynamic_root`` to the unregistered names of
    :data:`NEWER_OPS` (jaxlib's StableHLO rejects both); other text is unchanged."""
    if "stablehlo.collective_reduce" not in text and "has_dynamic_root" not in text:
        return text
    text = text.replace('"stablehlo.collective_reduce"', '"hlokit.collective_reduce"')
    out = []
    pos = 0
    for m in re.finditer(r'"stablehlo\.collective_broadcast"', text):
        if m.start() < pos:
            continue
        j = m.end()
        # operands (...), optional properties <{...}>, optional attributes {...}
        end = j
        for _ in range(3):
            k = end
            while k < len(text) and text[k] in " \t\r\n":
                k += 1
            if k < len(text) and text[k] in "(<{" and not (text[k] == "(" and end != j):
                end = _attr_dict_end(text, k)
            else:
                break
        if "has_dynamic_root" in text[j:end]:
            out.append(text[pos:m.start()])
            out.append('"hlokit.collective_broadcast"')
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


# ------------------------------------------------------------------------------------------------
# Processes and groups


def current_process(interp) -> Process:
    """The process ``interp`` runs as: ``interp.process``, or process (0, 0) of a 1 x 1 grid of its
    own for a plain run (kept on ``interp``, so ``send`` / ``recv`` of one run share channels)."""
    proc = interp.process
    if proc is None:
        proc = interp.process = ProcessGrid(1, 1).process(0, 0)
    return proc


def _op_name(op) -> str:
    name = op.operation.name
    return NEWER_OPS.get(name, name)


def _channel_id(op) -> int:
    if not attributes.has(op, "channel_handle"):
        return 0
    return int(shlo.ChannelHandle(attributes.get(op, "channel_handle")).handle)


def _groups(op, name: str) -> list[list[int]]:
    try:
        arr = dense_attribute(op, name)
    except KeyError:
        return []
    arr = np.asarray(arr, dtype=np.int64)
    if arr.size == 0:
        return []
    return [[int(x) for x in row if x >= 0] for row in arr.reshape(arr.shape[0], -1)]


def process_groups(strategy: str, groups: Sequence[Sequence[int]], num_replicas: int,
                   num_partitions: int) -> list[list[ProcessId]]:
    """The process groups of ``strategy`` (``cross_replica``, ``cross_partition``,
    ``cross_replica_and_partition``, ``flattened_ids``) for ``groups`` (spec "Process groups"; empty
    ``groups``: one group of every replica, partition or process). ``ValueError`` for another strategy
    or an id outside the grid."""
    R, P = num_replicas, num_partitions
    if strategy == "cross_replica":
        groups = groups or [list(range(R))]
        _check_ids(groups, R, "replica")
        return [[(r, p) for r in g] for p in range(P) for g in groups]
    if strategy == "cross_partition":
        groups = groups or [list(range(P))]
        _check_ids(groups, P, "partition")
        return [[(r, p) for p in g] for r in range(R) for g in groups]
    if strategy == "cross_replica_and_partition":
        groups = groups or [list(range(R))]
        _check_ids(groups, R, "replica")
        return [[(r, p) for p in range(P) for r in g] for g in groups]
    if strategy == "flattened_ids":
        groups = groups or [list(range(R * P))]
        _check_ids(groups, R * P, "process")
        return [[divmod(i, P) for i in g] for g in groups]
    raise ValueError(f"unknown process group strategy '{strategy}'")


def _check_ids(groups, n: int, what: str) -> None:
    for g in groups:
        for i in g:
            if not 0 <= i < n:
                raise ValueError(f"{what} id {i} in a process group, the grid has {n} {what}s")


def _strategy(op, channel_kind: str) -> str:
    """The spec's choice of process groups for ``op`` (see module doc): ``channel_kind`` is
    ``"reduce"`` (all_gather, all_reduce, reduce_scatter) or ``"partition"`` (all_to_all,
    collective_broadcast, collective_permute)."""
    channel = _channel_id(op)
    if channel_kind == "partition":
        return "cross_partition" if channel > 0 else "cross_replica"
    if attributes.has(op, "use_global_device_ids"):
        return "flattened_ids"
    return "cross_replica_and_partition" if channel > 0 else "cross_replica"


# ------------------------------------------------------------------------------------------------
# Semantics on the values of a group


def all_gather(values: Sequence[Sequence[np.ndarray]], dim: int) -> list[np.ndarray]:
    """Spec ``all_gather``: ``values[i]`` are the operands of the i-th process of the group; result k
    concatenates operand k of every process along ``dim``."""
    return [np.concatenate([v[k] for v in values], axis=dim) for k in range(len(values[0]))]


def all_reduce(values: Sequence[Sequence[np.ndarray]], body, out_types) -> list[np.ndarray]:
    """Spec ``all_reduce``: for each operand ``k``, the body (``body(acc, x) -> [acc]``, the same body for
    every operand) applied left to right over the processes of the group; ``out_types`` are
    ``(shape, dtype)`` of the results."""
    out = []
    for k, (shape, dt) in enumerate(out_types):
        acc = np.asarray(values[0][k]).astype(dt, copy=False)
        for v in values[1:]:
            acc = call_body(body, [acc, v[k]], [shape], [dt])[0]
        out.append(acc)
    return out


def reduce_scatter(values, body, out_types, dim: int, index: int) -> list[np.ndarray]:
    """Spec ``reduce_scatter``: :func:`all_reduce` of the full operands, split into ``len(values)``
    parts along ``dim``; the ``index``-th part."""
    full_types = [(np.shape(v), d) for v, (_, d) in zip(values[0], out_types)]
    reduced = all_reduce(values, body, full_types)
    return [np.split(r, len(values), axis=dim)[index] for r in reduced]


def all_to_all(values, split_dimension: int, concat_dimension: int, split_count: int, index: int) -> list[np.ndarray]:
    """Spec ``all_to_all``: every process splits its operands into ``split_count`` parts along
    ``split_dimension``; the process at ``index`` of the group concatenates part ``index`` of every
    process (in group order) along ``concat_dimension``."""
    out = []
    for k in range(len(values[0])):
        parts = [np.split(v[k], split_count, axis=split_dimension)[index] for v in values]
        out.append(np.concatenate(parts, axis=concat_dimension))
    return out


def collective_broadcast(values: dict, group, me, roots: Sequence[int] | None, operands) -> list[np.ndarray]:
    """Spec ``collective_broadcast``: operand ``k`` of ``group[roots[k]]`` (``roots`` None: the first
    process of the group) for a process of the group, zeros for one outside every group."""
    if group is None:
        return [np.zeros_like(o) for o in operands]
    out = []
    for k in range(len(operands)):
        src = group[roots[k] if roots is not None else 0]
        out.append(values[src][k])
    return out


def collective_permute(values: dict, pairs: Sequence[tuple[ProcessId, ProcessId]], me, operand: np.ndarray) -> np.ndarray:
    """Spec ``collective_permute``: the operand of the source that ``pairs`` map to ``me``, or zeros."""
    for src, dst in pairs:
        if dst == me:
            return values[src]
    return np.zeros_like(operand)


# ------------------------------------------------------------------------------------------------
# Adapters


def _tensor_types(results) -> list[tuple[tuple[int, ...], np.dtype]]:
    out = []
    for r in results:
        t = ir.RankedTensorType(r.type)
        out.append((tuple(t.shape), dtype_of(t.element_type)))
    return out


class _Info:
    """What a collective adapter reads from its op, read once per op (``registry.prepared``): its spec
    name, process-group strategy and ids, result types, reduction body, integer attributes; the process
    groups of each grid size are computed on first use."""

    def __init__(self, op, channel_kind: str | None, ints: Sequence[str] = ()):
        self.name = _op_name(op)
        self.strategy = _strategy(op, channel_kind) if channel_kind else None
        self.groups = _groups(op, "replica_groups") if channel_kind else []
        self.channel = _channel_id(op)
        results = list(op.operation.results)
        self.types = _tensor_types(r for r in results if not _is_token(r.type))
        self.ints = {n: attributes.int_value(op, n) for n in ints}
        self.region = op.operation.regions[0] if len(op.operation.regions) else None
        self.elementwise = self.region is not None and is_elementwise_region(self.region)
        self.dynamic_root = attributes.has(op, "has_dynamic_root")
        self.pairs = (np.asarray(dense_attribute(op, "source_target_pairs"), dtype=np.int64).reshape(-1, 2)
                      if attributes.has(op, "source_target_pairs") else None)
        self._by_grid: dict = {}

    def group(self, proc: Process, *, required: bool = True):
        """The process group of ``proc`` (None when it is in none and not ``required``)."""
        key = (proc.num_replicas, proc.num_partitions)
        table = self._by_grid.get(key)
        if table is None:
            try:
                groups = process_groups(self.strategy, self.groups, *key)
            except ValueError as err:
                raise InterpreterError(f"'{self.name}': {err}") from None
            table = {}
            for g in groups:
                for q in g:
                    table.setdefault(q, g)
            table[None] = groups
            self._by_grid[key] = table
        g = table.get(proc.id)
        if g is None and required:
            raise InterpreterError(f"'{self.name}': process ({proc.replica_id}, {proc.partition_id}) is in none of "
                                   f"its process groups {table[None]}")
        return g

    def body(self, interp):
        """The reduction body as ``body(acc, x) -> [result]`` on whole arrays."""
        region = self.region
        if self.elementwise:
            return lambda *args: interp.eval_region(region, list(args))
        return region_callable(interp, region)


def _is_token(t: ir.Type) -> bool:
    return not isinstance(t, ir.RankedTensorType) and "token" in str(t)


def _collective(channel_kind: str | None, ints: Sequence[str] = ()):
    """Decorator: ``fn(op, operands, interp, info)`` as an adapter whose :class:`_Info` is read once per
    op at plan time (and per call when the walker could not prepare it)."""

    def deco(fn):
        def adapter(op, operands, interp):
            return fn(op, operands, interp, _Info(op, channel_kind, ints))

        def prepare(op):
            info = _Info(op, channel_kind, ints)
            return OpImpl(lambda o, operands, interp: fn(o, operands, interp, info))

        adapter.__name__ = fn.__name__
        return prepared(prepare)(adapter)

    return deco


@register("stablehlo.replica_id")
def _replica_id(op, operands, interp):
    return [np.array(current_process(interp).replica_id, dtype=np.uint32)]


@register("stablehlo.partition_id")
def _partition_id(op, operands, interp):
    return [np.array(current_process(interp).partition_id, dtype=np.uint32)]


@register("stablehlo.all_gather")
@_collective("reduce", ("all_gather_dim",))
def _all_gather(op, operands, interp, info):
    proc = current_process(interp)
    group = info.group(proc)
    vals = proc.rendezvous(info.name, group, list(operands))
    return all_gather([vals[q] for q in group], info.ints["all_gather_dim"])


def _reduce_adapter(op, operands, interp, info, *, root_only: bool = False):
    proc = current_process(interp)
    group = info.group(proc, required=not root_only)
    if group is None:
        return [np.zeros(s, d) for s, d in info.types]
    vals = proc.rendezvous(info.name, group, list(operands))
    if root_only and proc.id != group[0]:
        return [np.zeros(s, d) for s, d in info.types]
    return all_reduce([vals[q] for q in group], info.body(interp), info.types)


@register("stablehlo.all_reduce")
@_collective("reduce")
def _all_reduce(op, operands, interp, info):
    return _reduce_adapter(op, operands, interp, info)


@register("hlokit.collective_reduce")
@_collective("reduce")
def _collective_reduce(op, operands, interp, info):
    return _reduce_adapter(op, operands, interp, info, root_only=True)


@register("stablehlo.reduce_scatter")
@_collective("reduce", ("scatter_dimension",))
def _reduce_scatter(op, operands, interp, info):
    proc = current_process(interp)
    group = info.group(proc)
    vals = proc.rendezvous(info.name, group, list(operands))
    return reduce_scatter([vals[q] for q in group], info.body(interp), info.types,
                          info.ints["scatter_dimension"], group.index(proc.id))


@register("stablehlo.all_to_all")
@_collective("partition", ("split_dimension", "concat_dimension", "split_count"))
def _all_to_all(op, operands, interp, info):
    proc = current_process(interp)
    group = info.group(proc)
    split_count = info.ints["split_count"]
    if split_count != len(group):
        raise InterpreterError(f"'stablehlo.all_to_all': split_count {split_count} but the process group has "
                               f"{len(group)} processes")
    vals = proc.rendezvous(info.name, group, list(operands))
    return all_to_all([vals[q] for q in group], info.ints["split_dimension"], info.ints["concat_dimension"],
                      split_count, group.index(proc.id))


@register("stablehlo.collective_broadcast", "hlokit.collective_broadcast")
@_collective("partition")
def _collective_broadcast(op, operands, interp, info):
    data = list(operands[:-1]) if info.dynamic_root else list(operands)
    roots = [int(x) for x in np.ravel(operands[-1])] if info.dynamic_root else None
    proc = current_process(interp)
    group = info.group(proc, required=False)
    if group is None:
        return [np.zeros_like(o) for o in data]
    if roots is not None:
        if len(roots) != len(data):
            raise InterpreterError(f"'stablehlo.collective_broadcast': {len(roots)} roots for {len(data)} operands")
        bad = [r for r in roots if not 0 <= r < len(group)]
        if bad:
            raise InterpreterError(f"'stablehlo.collective_broadcast': root index {bad[0]} outside its process group "
                                   f"of {len(group)}")
    vals = proc.rendezvous(info.name, group, data)
    return collective_broadcast(vals, group, proc.id, roots, data)


@register("stablehlo.collective_permute")
@_collective(None)
def _collective_permute(op, operands, interp, info):
    proc = current_process(interp)
    R, P = proc.num_replicas, proc.num_partitions
    pairs = info.pairs
    if info.channel > 0:  # cross_partition: partition ids within this replica
        domain = [(proc.replica_id, p) for p in range(P)]
        limit, what = P, "partition"
        mapped = [((proc.replica_id, int(s)), (proc.replica_id, int(t))) for s, t in pairs]
    else:  # cross_replica: replica ids within this partition
        domain = [(r, proc.partition_id) for r in range(R)]
        limit, what = R, "replica"
        mapped = [((int(s), proc.partition_id), (int(t), proc.partition_id)) for s, t in pairs]
    for s, t in pairs:
        if not (0 <= s < limit and 0 <= t < limit):
            raise InterpreterError(f"'stablehlo.collective_permute': source_target_pairs names {what} "
                                   f"{s if not 0 <= s < limit else t}, the grid has {limit} {what}s")
    vals = proc.rendezvous(info.name, domain, operands[0])
    return [collective_permute(vals, mapped, proc.id, operands[0])]


@register("stablehlo.send")
@_collective(None)
def _send(op, operands, interp, info):
    current_process(interp).send(info.channel, list(operands[:-1]))
    return [TOKEN]


@register("stablehlo.recv")
@_collective(None)
def _recv(op, operands, interp, info):
    values = current_process(interp).recv(info.channel)
    _check_received(values, info.types, f"'stablehlo.recv' on channel {info.channel}")
    return list(values) + [TOKEN]


@register("stablehlo.infeed")
@_collective(None)
def _infeed(op, operands, interp, info):
    values = current_process(interp).grid.pop_infeed()
    _check_received(values, info.types, "'stablehlo.infeed'")
    return list(values) + [TOKEN]


@register("stablehlo.outfeed")
def _outfeed(op, operands, interp):
    proc = current_process(interp)
    proc.grid.push_outfeed(proc.id, list(operands[:-1]))
    return [TOKEN]


def _check_received(values, types, what: str) -> None:
    if len(values) != len(types):
        raise InterpreterError(f"{what}: got {len(values)} values, the op has {len(types)} results")
    for i, (v, (shape, dt)) in enumerate(zip(values, types)):
        v = np.asarray(v)
        if v.shape != shape or v.dtype != dt:
            raise InterpreterError(f"{what}: value #{i} is {v.dtype}{list(v.shape)}, the op's result is "
                                   f"{np.dtype(dt)}{list(shape)}")


# ------------------------------------------------------------------------------------------------
# Shardy manual computations


def _mesh_axes(op, ref) -> tuple[list[tuple[str, int]], list[int] | None]:
    """``[(axis name, size)]`` and the device ids (None: iota) of a sharding's mesh."""
    if isinstance(ref, ir.FlatSymbolRefAttr):
        name = ir.FlatSymbolRefAttr(ref).value
        module_op = op.operation
        while module_op.parent is not None:
            module_op = module_op.parent
        for o in module_op.regions[0].blocks[0].operations:
            if o.operation.name == "sdy.mesh" and attributes.str_value(o, "sym_name") == name:
                mesh = sdy.MeshAttr(o.attributes["mesh"])
                break
        else:
            raise InterpreterError(f"'sdy.manual_computation': mesh @{name} not found")
    else:
        mesh = sdy.MeshAttr(ref)
    axes = [(sdy.MeshAxisAttr(a).name, sdy.MeshAxisAttr(a).size) for a in mesh.axes]
    ids = list(mesh.device_ids) if len(mesh.device_ids) else None
    return axes, ids


def _piece_slices(op, sharding_attr, manual: set, shape, device: int) -> tuple[slice, ...]:
    """The slices of a global array of ``shape`` that mesh device ``device`` holds along the ``manual``
    axes of ``sharding_attr`` (a ``#sdy.sharding``)."""
    sharding = sdy.TensorShardingAttr(sharding_attr)
    axes, ids = _mesh_axes(op, sharding.mesh_or_ref)
    sizes = dict(axes)
    devices = int(np.prod([n for _, n in axes], dtype=np.int64))
    if device >= devices if ids is None else device not in ids:
        raise InterpreterError(
            f"'sdy.manual_computation': its mesh has {devices} devices, none of them is device {device}: run the "
            f"program on a grid of as many processes (hlokit.interpret(..., num_partitions={devices}))")
    pos = ids.index(device) if ids is not None else device
    coords = {}
    for name, size in reversed(axes):  # row-major: the last axis varies fastest
        coords[name] = pos % size
        pos //= size
    slices = []
    for dim, dsh in enumerate(sharding.dimension_shardings):
        index, count = 0, 1
        for a in sdy.DimensionShardingAttr(dsh).axes:
            ax = sdy.AxisRefAttr(a)
            if ax.name not in manual:
                continue
            if ax.sub_axis_info is not None:
                sub = sdy.SubAxisInfoAttr(ax.sub_axis_info)
                c, n = (coords[ax.name] // sub.pre_size) % sub.size, sub.size
            else:
                c, n = coords[ax.name], sizes[ax.name]
            index, count = index * n + c, count * n
        size = shape[dim] // count
        slices.append(slice(index * size, (index + 1) * size))
    return tuple(slices)


@register("sdy.manual_computation")
def _manual_computation(op, operands, interp):
    proc = current_process(interp)
    manual = set(sdy.ManualAxesAttr(attributes.get(op, "manual_axes")))
    ins = list(sdy.TensorShardingPerValueAttr(attributes.get(op, "in_shardings")).shardings)
    outs = list(sdy.TensorShardingPerValueAttr(attributes.get(op, "out_shardings")).shardings)
    device = proc.replica_id * proc.num_partitions + proc.partition_id
    if ins or outs:
        axes, _ = _mesh_axes(op, sdy.TensorShardingAttr((ins or outs)[0]).mesh_or_ref)
        devices = int(np.prod([n for _, n in axes], dtype=np.int64))
        if devices != proc.grid.size:
            raise InterpreterError(
                f"'sdy.manual_computation': its mesh has {devices} devices, the process grid {proc.grid.size} "
                f"processes: run the program with hlokit.interpret(..., num_partitions={devices}) (or "
                f"num_replicas x num_partitions = {devices})")
    local = []
    for x, sh in zip(operands, ins):
        local.append(np.ascontiguousarray(x[_piece_slices(op, sh, manual, x.shape, device)]))
    pieces = interp.eval_region(op.operation.regions[0], local)
    if proc.grid.size == 1:
        all_pieces = {proc.id: pieces}
    else:
        all_pieces = proc.rendezvous("sdy.manual_computation", proc.grid.ids(), list(pieces))
    results = []
    for k, ((shape, dt), sh) in enumerate(zip(_tensor_types(op.operation.results), outs)):
        out = np.zeros(shape, dtype=dt)
        for (r, p), vals in all_pieces.items():
            sl = _piece_slices(op, sh, manual, shape, r * proc.num_partitions + p)
            out[sl] = vals[k]
        results.append(out)
    return results


# ------------------------------------------------------------------------------------------------
# Shardy sharding annotations (https://openxla.org/shardy/sdy_dialect): they tell the partitioner how a
# value is laid out across devices and never change it. The interpreter holds every value whole (global
# values outside ``sdy.manual_computation``, each process's own piece inside), so each is the identity.


def _identity(x):
    return x


#: ``sdy.sharding_constraint`` (``jax.lax.with_sharding_constraint``; jax.random's samplers emit it),
#: ``sdy.reshard`` (``jax.sharding.reshard``) and ``sdy.propagation_barrier``: the result is the operand.
_sharding_identity = with_kernel(_identity, "_sharding_identity")
register("sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier")(_sharding_identity)


@register("sdy.sharding_group")
def _sharding_group(op, operands, interp):
    """``sdy.sharding_group`` (``jax.experimental.shard_alike``): ties the shardings of values; no result."""
    return []


@register("sdy.named_computation")
def _named_computation(op, operands, interp):
    """``sdy.named_computation``: its body run on its operands (its results are the body's ``sdy.return``)."""
    return list(interp.eval_region(op.operation.regions[0], list(operands)))


# The interpreter's loader asks hlokit.parse for this rewrite by name (after the check dialect's, order 10).
register_text_preprocessor("stablehlo-newer-ops", _rewrite_newer_ops, order=20, unregistered=tuple(NEWER_OPS),
                           by_default=False)
