"""XLA backend, the part that needs jax: compile a StableHLO module with XLA through jaxlib and run it.

Imported by :mod:`hlokit.backend` on first use of one of its names (``compile``, ``initialize``, ...), so that
tools that never run XLA (``hlokit-run --engine interpreter``, ``hlokit-opt``) do not import jax. See
:mod:`hlokit.backend` for the interface.
"""

from __future__ import annotations

import collections
import hashlib
import os
import threading
import time
from typing import Sequence

import jax
import numpy as np
from jax.experimental import multihost_utils
from jax.extend import backend as jax_backend
from jaxlib import xla_client
from jaxlib.mlir import ir

from hlokit.backend import PLATFORMS, BackendError, TensorSpec, find_function, signature
from hlokit import jax_private
from hlokit.backend.guards import guarded_text, may_crash_xla
from hlokit.backend.layout import (
    LayoutError,
    ShardSpec,
    check_declared_shardings,
    module_device_needs,
    uses_shardy,
)
from hlokit.dtypes import SUB_BYTE_UINTS, bit_width, dtype_of, type_str

__all__ = ["compile", "initialize", "prepare_devices", "set_host_device_count", "Executable", "COMPILE_CACHE_SIZE"]

def _entry_text(module: ir.Module, function: str) -> str:
    """Module text whose public ``@main`` is ``function`` (XLA compiles ``@main``)."""
    if function == "main":
        return module.operation.get_asm(enable_debug_info=True)
    clone = ir.Module.parse(module.operation.get_asm(enable_debug_info=True), module.context)
    main = find_function(clone, "main")
    if main is not None:
        ir.SymbolTable.set_symbol_name(main, "__hlokit_original_main")
        ir.SymbolTable.replace_all_symbol_uses("main", "__hlokit_original_main", clone.operation)
    fn = find_function(clone, function)
    ir.SymbolTable.replace_all_symbol_uses(function, "main", clone.operation)
    ir.SymbolTable.set_symbol_name(fn, "main")
    if "sym_visibility" in fn.attributes:
        del fn.attributes["sym_visibility"]  # public
    return clone.operation.get_asm(enable_debug_info=True)


def _sub_byte_results(out_specs: Sequence["TensorSpec"]) -> list[int]:
    """The results of 2 or 4 bits that are not unsigned integers (``i2``, ``i4``, ``f4E2M1FN``): see
    :func:`_results_as_unsigned_bits`."""
    return [i for i, s in enumerate(out_specs) if bit_width(s.dtype) in (2, 4) and s.dtype not in SUB_BYTE_UINTS]


def _results_as_unsigned_bits(text: str, context: ir.Context, which: Sequence[int]) -> str:
    """``text`` with the results ``which`` of its ``@main`` returned as their bits, ``bitcast_convert`` to the
    unsigned integer type of the same width. XLA CPU's ``rng_bit_generator`` hands back a sub-byte result in
    that unsigned type whatever type the program declares (as it does a u32 for an f32, see :func:`_as_spec`),
    and jax 0.12 refuses to copy such a buffer to the host as the declared type ("Shape mismatch during
    ToLiteral conversion u4[...] vs s4[...]"); returned as unsigned bits, every result copies, and
    :func:`_as_spec` reinterprets them (ml_dtypes keeps a sub-byte value's bits in the low bits of its byte)."""
    from jaxlib.mlir.dialects import stablehlo

    clone = ir.Module.parse(text, context)
    fn = find_function(clone, "main")
    ret = list(fn.regions[0].blocks[0].operations)[-1].operation
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    results = list(ftype.results)
    with context, ir.Location.unknown(context), ir.InsertionPoint(ret):
        for i in which:
            t = ir.RankedTensorType(results[i])
            bits = ir.RankedTensorType.get(t.shape, ir.IntegerType.get_unsigned(bit_width(dtype_of(t))), t.encoding)
            ret.operands[i] = stablehlo.BitcastConvertOp(bits, ret.operands[i]).result
            results[i] = bits
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(ftype.inputs), results))
    return clone.operation.get_asm(enable_debug_info=True)


_LOCK = threading.Lock()
#: The executables :func:`compile` made last, most recent last (text hash, platform, function, devices ->
#: executable), at most :data:`COMPILE_CACHE_SIZE`: each executable holds XLA's JIT code in memory mappings of
#: its own, so an unbounded cache made a long-running process (the test suite: ~1,500 programs) pass the
#: kernel's limit of 65,530 mappings (``vm.max_map_count``), where XLA's next compile crashed.
_CACHE: "collections.OrderedDict[tuple, Executable]" = collections.OrderedDict()
#: How many executables :func:`compile` keeps (see ``_CACHE``).
COMPILE_CACHE_SIZE = 32
_JAX_READY = False


def _prepare_jax() -> None:
    """Import jax and do what jax does before running programs that call jaxlib's CPU kernels."""
    global _JAX_READY
    if _JAX_READY:
        return
    jax_private.initialize_lapack()  # jaxlib's LAPACK kernels (FFI targets are registered by `import jax`)
    _JAX_READY = True


_COUNT_FLAG = "--xla_force_host_platform_device_count"


def set_host_device_count(count: int) -> None:
    """Give XLA's CPU platform ``count`` host devices (``XLA_FLAGS``); effective only before jax starts it."""
    import os

    flags = [f for f in os.environ.get("XLA_FLAGS", "").split() if not f.startswith(_COUNT_FLAG + "=")]
    os.environ["XLA_FLAGS"] = " ".join(flags + [f"{_COUNT_FLAG}={count}"])


def prepare_devices(module: ir.Module, platform: str = "cpu", devices: int | None = None, num_processes: int = 1,
                    process_id: int = 0, coordinator: str | None = None, timeout: float = 60.0) -> None:
    """Before jax starts: give the CPU platform the devices ``module`` needs and join a multi-process job.

    ``devices`` is the total device count (default: ``mhlo.num_replicas`` × ``mhlo.num_partitions``); with
    ``num_processes`` P > 1 each process gets ``devices / P`` of them and joins the job at ``coordinator``
    (``HOST:PORT``; process 0 serves it) through ``jax.distributed``, waiting at most ``timeout`` seconds for
    the others (CPU collectives across processes use gloo). Raises :class:`BackendError` for a count below
    what the program needs, a count that the processes do not share evenly, or a job that does not form.
    """
    num_replicas, num_partitions = module_device_needs(module)
    needed = num_replicas * num_partitions
    total = needed if devices is None else devices
    if total < 1:
        raise BackendError(f"--devices must be at least 1 (got {total})")
    if total < needed:
        raise BackendError(
            f"the program needs {needed} devices (mhlo.num_replicas = {num_replicas} x mhlo.num_partitions = "
            f"{num_partitions}) but --devices gives {total}")
    if num_processes < 1 or not 0 <= process_id < num_processes:
        raise BackendError(f"--process-id must be in 0..{num_processes - 1} (got {process_id})")
    if num_processes > 1 and total % num_processes:
        raise BackendError(f"{total} devices cannot be shared evenly by {num_processes} processes")
    if platform == "cpu" and total > 1:
        set_host_device_count(total // num_processes)
    if num_processes > 1:
        if not coordinator:
            raise BackendError("a multi-process run needs --coordinator HOST:PORT")
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        try:
            jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                                       process_id=process_id, initialization_timeout=max(1, int(timeout)))
        except Exception as exc:  # jax raises RuntimeError / XlaRuntimeError / ValueError here
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise BackendError(
                f"process {process_id} of {num_processes} could not join the job at {coordinator} within "
                f"{timeout:g} s: {first}") from None


def initialize(platform: str = "cpu") -> None:
    """Start jax's XLA client for ``platform`` (done by :func:`compile` too; call it to time start-up apart)."""
    _prepare_jax()
    _backend(platform)


def _backend(platform: str):
    if platform not in PLATFORMS:
        raise BackendError(f"unknown platform '{platform}' (choose one of {', '.join(PLATFORMS)})")
    try:
        return jax_backend.get_backend(platform)
    except RuntimeError as exc:
        available = ", ".join(sorted(jax_backend.backends()))
        raise BackendError(
            f"platform '{platform}' is not available: jax has no working '{platform}' plugin here "
            f"(available: {available}); install the matching jax plugin (e.g. jax[cuda12])"
        ) from exc


class Executable:
    """A program compiled by XLA, for one device or for replicas × partitions; call it with numpy arrays.

    ``in_specs`` / ``out_specs`` give the shapes and dtypes of the arguments and results as the caller sees
    them: global arrays. A partitioned program (``mhlo.num_partitions`` > 1) takes and returns whole arrays;
    hlokit cuts each argument into the pieces its sharding gives every device and assembles each result.
    A multi-replica program (``mhlo.num_replicas`` = R > 1) runs the function once per replica, as ``pmap``
    does: every argument and result gets a leading replica axis of size R (``x[r]`` is replica r's value).
    Calling raises :class:`BackendError` for a missing, extra, wrongly shaped or typed argument.
    """

    def __init__(self, loaded, devices, in_specs: list[TensorSpec], out_specs: list[TensorSpec], platform: str,
                 num_replicas: int = 1, num_partitions: int = 1):
        self._loaded = loaded
        self.devices = list(devices)
        self._device = self.devices[0]
        self.platform = platform
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions
        self.local_in_specs = in_specs
        self.local_out_specs = out_specs
        lead = (num_replicas,) if num_replicas > 1 else ()
        self.in_specs = [TensorSpec(lead + s.shape, s.dtype) for s in in_specs]
        self.out_specs = [TensorSpec(lead + s.shape, s.dtype) for s in out_specs]
        self.device_times: list[float] = []  # seconds per local device, of the last execute()
        self.in_shardings: list[ShardSpec] = []
        self.out_shardings: list[ShardSpec] = []
        if self.multi_device:
            self._read_shardings()

    @property
    def multi_device(self) -> bool:
        """True when the program runs on more than one device."""
        return self.num_replicas * self.num_partitions > 1

    def _read_shardings(self) -> None:
        p = self.num_partitions
        params = self._loaded.get_parameter_shardings() if p > 1 else None
        outs = self._loaded.get_output_shardings() if p > 1 else None
        for i, spec in enumerate(self.local_in_specs):
            what = f"argument {i} ({spec})"
            sh = ShardSpec.from_xla(params[i] if params else None, len(spec.shape), p, what)
            sh.check_divides(spec.shape, what)
            self.in_shardings.append(sh)
        for i, spec in enumerate(self.local_out_specs):
            what = f"result {i} ({spec})"
            sh = ShardSpec.from_xla(outs[i] if outs else None, len(spec.shape), p, what)
            sh.check_divides(spec.shape, what)
            self.out_shardings.append(sh)

    def layout(self) -> str:
        """One line per argument/result: the device grid and how each array is cut."""
        lines = [f"devices: {self.num_replicas} replica(s) x {self.num_partitions} partition(s) on "
                 f"{', '.join(str(d) for d in self.devices)}"]
        for kind, specs, shards in (("arg", self.in_specs, self.in_shardings),
                                    ("output", self.out_specs, self.out_shardings)):
            for i, (spec, sh) in enumerate(zip(specs, shards)):
                lines.append(f"  {kind}_{i}: {spec} {sh.describe()} -> per device "
                             f"{type_str(sh.shard_shape(spec.shape[1:] if self.num_replicas > 1 else spec.shape), spec.dtype)}")
        return "\n".join(lines)

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
                extra = " (leading axis: one entry per replica)" if self.num_replicas > 1 else ""
                raise BackendError(
                    f"argument {i}: expected shape {spec.shape} ({spec}){extra} but got {tuple(a.shape)}")
            out.append(a)
        return out

    def put(self, args: Sequence[np.ndarray]):
        """Copy validated arguments to the device(s) (returns device buffers for :meth:`execute`)."""
        args = self.check_args(args)
        # Without x64 enabled (jax's default), device_put would narrow 64-bit types to 32 bits;
        # enable it for this transfer only, leaving the user's jax configuration as it is.
        with jax.enable_x64(True):
            if not self.multi_device:
                return [jax.device_put(a, self._device) for a in args]
            return [self._put_sharded(a, spec, sh) for a, spec, sh in zip(args, self.local_in_specs, self.in_shardings)]

    def _put_sharded(self, a: np.ndarray, spec: TensorSpec, sh: ShardSpec):
        r_count, p_count = self.num_replicas, self.num_partitions
        pieces = []
        me = jax.process_index()
        for r in range(r_count):
            value = a[r] if r_count > 1 else a
            for p in range(p_count):
                device = self.devices[r * p_count + p]
                if device.process_index == me:  # in a multi-process job, each process feeds its own devices
                    piece = np.array(value[sh.index(spec.shape, p)], order="C")  # (ascontiguousarray makes 0-d 1-d)
                    pieces.append(jax.device_put(piece, device))
        # The executable takes, per argument, one buffer per device in device-assignment order. A jax Array
        # whose mesh lists the devices in that order and cuts the array into the same piece shape carries
        # them there (XLA reads the buffers; the pieces' placement is ours, above).
        names = tuple(f"d{i}" for i in range(len(spec.shape) + 2))
        mesh = jax.sharding.Mesh(np.array(self.devices, dtype=object).reshape((r_count,) + sh.mesh_shape()), names)
        carrier = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*names[1:len(spec.shape) + 1]))
        return jax.make_array_from_single_device_arrays(spec.shape, carrier, pieces)

    def execute(self, buffers) -> list:
        """Run on device buffers; return device arrays (pass them to :meth:`fetch` for numpy arrays).

        One device: one array per result. Several: per result, the list of its per-device arrays.
        Waits until the results are computed: XLA runs asynchronously and reads ``buffers`` meanwhile,
        so they must stay referenced (here, by this call) until the results are ready. Afterwards
        ``device_times`` holds, per local device in device-assignment order, the seconds from dispatch
        until that device's results were ready.
        """
        start = time.perf_counter()
        results = self._loaded.execute_sharded(buffers)
        per_device = results.disassemble_into_single_device_arrays()
        if not self.multi_device:
            for outs in per_device:
                for o in outs:
                    o.block_until_ready()
            self.device_times = [time.perf_counter() - start]
            return [outs[0] for outs in per_device]
        self.device_times = self._wait_per_device(per_device, start)
        return per_device

    def _wait_per_device(self, per_device, start: float) -> list[float]:
        """Wait for every result; return, per local device (in device-assignment order), the seconds from
        dispatch until all of that device's results were ready (polled every 20 µs)."""
        by_device: dict = {}
        for outs in per_device:  # per result: one array per device
            for o in outs:
                by_device.setdefault(next(iter(o.devices())), []).append(o)
        pending = dict(by_device)
        ready: dict = {}
        while pending:
            for d in list(pending):
                if all(a.is_ready() for a in pending[d]):
                    ready[d] = time.perf_counter() - start
                    del pending[d]
            if pending:
                time.sleep(2e-5)
        for arrays in by_device.values():
            for a in arrays:
                a.block_until_ready()  # raises the device's error, if any
        return [ready[d] for d in self.devices if d in ready]

    def fetch(self, outs) -> list[np.ndarray]:
        """Numpy results from :meth:`execute`'s device arrays (assembled from shards when partitioned)."""
        if not self.multi_device:
            return [_as_spec(np.asarray(o), spec) for o, spec in zip(outs, self.out_specs)]
        index = {d: k for k, d in enumerate(self.devices)}
        result = []
        for shards, spec, sh, gspec in zip(outs, self.local_out_specs, self.out_shardings, self.out_specs):
            full = np.empty(gspec.shape, gspec.dtype)
            done = set()
            for k, piece in self._all_pieces(shards, index):
                piece = _as_spec(piece, gspec)
                r, p = divmod(k, self.num_partitions)
                where = sh.index(spec.shape, p)
                key = (r, tuple((s.start, s.stop) for s in where))
                if key in done:
                    continue  # a replicated piece: every holder has the same value
                done.add(key)
                if self.num_replicas > 1:
                    full[r][where] = piece
                else:
                    full[where] = piece
            result.append(full)
        return result

    def _all_pieces(self, shards, index):
        """``(device number, numpy piece)`` of every device; across processes through an all-gather."""
        local = sorted(((index[next(iter(o.devices()))], o) for o in shards), key=lambda t: t[0])
        if jax.process_count() == 1:
            return [(k, np.asarray(o)) for k, o in local]
        with jax.enable_x64(True):
            gathered = np.asarray(multihost_utils.process_allgather(np.stack([np.asarray(o) for _, o in local])))
        owners = [[k for k, d in enumerate(self.devices) if d.process_index == q] for q in range(jax.process_count())]
        return [(k, gathered[q][j]) for q, ks in enumerate(owners) for j, k in enumerate(ks)]

    def __call__(self, *args: np.ndarray) -> list[np.ndarray]:
        buffers = self.put(args)
        return self.fetch(self.execute(buffers))


def _as_spec(a: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """``a`` with the element type the signature declares: XLA may hand back a buffer of another type of
    the same width for the same bits (seen: ``rng_bit_generator`` to f32 returning u32 from a second
    compile in a process; sub-byte results leave XLA as unsigned bits, :func:`_results_as_unsigned_bits`);
    those bits are reinterpreted, never converted."""
    if a.dtype != spec.dtype and a.dtype.itemsize == spec.dtype.itemsize:
        return a.view(spec.dtype)
    return a


def _select_devices(backend, platform: str, needed: int, num_replicas: int, num_partitions: int, devices):
    available = list(backend.devices())
    if devices is None:
        count = needed
    elif isinstance(devices, int):
        count = devices
        if count < needed:
            raise BackendError(
                f"the program needs {needed} devices (mhlo.num_replicas = {num_replicas} x mhlo.num_partitions = "
                f"{num_partitions}) but {count} were given")
    else:
        chosen = list(devices)
        if len(chosen) < needed:
            raise BackendError(
                f"the program needs {needed} devices (mhlo.num_replicas = {num_replicas} x mhlo.num_partitions = "
                f"{num_partitions}) but {len(chosen)} were given")
        return chosen[:needed]
    if len(available) < max(count, needed):
        hint = (" (on CPU: hlokit-run --devices N, or XLA_FLAGS=--xla_force_host_platform_device_count=N "
                "before jax starts)" if platform == "cpu" else "")
        raise BackendError(
            f"the program needs {max(count, needed)} devices (mhlo.num_replicas = {num_replicas} x "
            f"mhlo.num_partitions = {num_partitions}) but platform '{platform}' has {len(available)}{hint}")
    return available[:needed]


_TRIAL = "HLOKIT_TRIAL_COMPILE"


def _trial_compile(text: str, timeout: float = 600.0) -> None:
    """Compile ``text`` for one CPU device in hlokit's worker process first (see ``guards.may_crash_xla``): raise
    :class:`BackendError` when XLA's compiler kills it, instead of losing this process."""
    from hlokit import worker

    try:
        worker.run_job("hlokit.backend.xla:trial_compile_job", text.encode(), timeout=timeout)
    except worker.WorkerTimeout:
        raise BackendError(f"XLA's compiler did not finish within {timeout:g} s") from None
    except worker.WorkerCrashed as err:
        if not err.signal:
            return
        raise BackendError(f"XLA's compiler crashed ({err}) on this program: a bitwise and / or of a "
                           "narrowing signed integer convert, which jaxlib 0.10.2's XLA CPU cannot compile; "
                           "--engine interpreter runs it") from None
    except (worker.JobFailed, worker.JobDiagnostics):
        pass  # an ordinary compile error: the compile in this process reports it


def trial_compile_job(text: bytes) -> bytes:
    """The job of :func:`_trial_compile`, run in the worker process (whose JAX runs on CPU only)."""
    os.environ[_TRIAL] = "1"
    compile(text.decode())
    return b""


def compile(module: ir.Module | str, platform: str = "cpu", *, function: str = "main", devices=None) -> Executable:
    """Compile ``module`` (an ``ir.Module`` or MLIR text) with XLA for ``platform``; the last
    :data:`COMPILE_CACHE_SIZE` executables are kept and returned again for the same program and devices.

    ``function`` names the entry function (default ``main``). The module's ``mhlo.num_replicas`` and
    ``mhlo.num_partitions`` give the devices it needs (R × P); ``devices`` is None (the platform's first
    R × P devices), a device count (at least R × P) or a sequence of jax devices. Programs with ``sdy``
    attributes are partitioned by Shardy, others with ``mhlo.sharding`` by GSPMD (XLA's SPMD partitioner).
    Raises :class:`BackendError` when the platform is unavailable or has too few devices, the signature has
    non-static or non-tensor types, a sharding does not divide its dimension, or XLA rejects the program.
    """
    if isinstance(module, str):
        import hlokit

        module = hlokit.parse(module, context=hlokit.make_context())
    in_specs, out_specs = signature(module, function)
    text = _entry_text(module, function)
    sub_byte = _sub_byte_results(out_specs)
    if sub_byte:
        text = _results_as_unsigned_bits(text, module.context, sub_byte)
    text = guarded_text(text, module.context)
    num_replicas, num_partitions = module_device_needs(module)
    needed = num_replicas * num_partitions
    if num_partitions > 1:
        try:
            check_declared_shardings(module, find_function(module, function), [s.shape for s in in_specs],
                                     [s.shape for s in out_specs])
        except LayoutError as err:
            raise BackendError(err.diagnostics) from None
    _prepare_jax()
    backend = _backend(platform)
    chosen = _select_devices(backend, platform, needed, num_replicas, num_partitions, devices)
    key = (hashlib.sha256(text.encode()).hexdigest(), platform, function, tuple(d.id for d in chosen))
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    options = jax_backend.get_compile_options(
        num_replicas=num_replicas,
        num_partitions=num_partitions,
        device_assignment=np.array(chosen, dtype=object).reshape(num_replicas, num_partitions),
    )
    build = options.executable_build_options
    build.use_spmd_partitioning = num_partitions > 1
    build.use_shardy_partitioner = uses_shardy(module)
    if platform == "cpu" and may_crash_xla(text) and not os.environ.get(_TRIAL):
        _trial_compile(text)
    try:
        loaded = backend.compile_and_load(text, xla_client.DeviceList(tuple(chosen)), options)
    except Exception as exc:
        msg = str(exc).strip().splitlines()
        raise BackendError(f"XLA could not compile the program: {' '.join(msg[:3])}") from None
    try:
        exe = Executable(loaded, chosen, in_specs, out_specs, platform, num_replicas, num_partitions)
    except LayoutError as err:
        raise BackendError(err.diagnostics) from None
    with _LOCK:
        _CACHE[key] = exe
        while len(_CACHE) > COMPILE_CACHE_SIZE:
            _CACHE.popitem(last=False)
    return exe
