"""Cost analysis of StableHLO programs: FLOPs, transcendental ops and bytes read / written per op and per
function, ``while`` trip counts of counted loops, and a roofline estimate.

The counting rules are those of XLA's ``HloCostAnalysis`` (``xla/service/hlo_cost_analysis.cc`` in
https://github.com/openxla/xla), applied to the StableHLO program as written (no fusion: the unoptimised
program, as ``jax.jit(f).lower(...).cost_analysis()`` reports it):

* elementwise ops (compare, select, clamp, convert, bitcast_convert, reduce_precision included): one flop per
  result element, or one *transcendental* per element for exp, expm1, log, log1p, logistic, power, sqrt,
  rsqrt, cbrt, tanh, sine, cosine, tan, atan2 (and CHLO's erf, acosh);
* ``dot_general`` / ``dot``: ``2 * elements(result) * product(contracting sizes)`` (batch dimensions are
  in the result);
* ``convolution``: ``2 * (C_in / feature_group_count) * C_out * (N / batch_group_count) * product over
  spatial dimensions of the (output, kernel) position pairs that read a real input element`` (padding and
  dilation holes excluded);
* ``reduce``: the body's cost times ``elements(input) - elements(result)`` (N-1 applications per result
  element of N reduced elements); ``reduce_window``: times ``(window size - 1) * elements(result)`` (with
  XLA's special case of a reduce-then-broadcast window); ``select_and_scatter``: the select body
  ``elements(source) * (window - 1)`` times, the scatter body ``elements(source)`` times; ``scatter``:
  the body per update element; ``map``: per result element;
* ``sort``: ``N * ceil(log2 N)`` flops; ``fft``: ``8 * product(floor(log2 fft_length)) * elements``;
  ``cholesky``: ``n * elements / 3``; ``triangular_solve``: ``2 * n * elements(b)``; ``rng`` /
  ``rng_bit_generator``: one transcendental per generated element; ``all_reduce``: one flop per element;
* bytes: every operand's bytes read plus every result's bytes written, except: constants, tuples' elements
  and ``get_tuple_element`` touch nothing; ``slice``, ``dynamic_slice`` and ``gather`` read what they
  produce (plus the indices); ``dynamic_update_slice`` and ``scatter`` write what they update (the
  operand is aliased); a ``transpose`` that only moves size-1 dimensions is free (a bitcast); a call,
  ``while`` or ``case`` / ``if`` counts what its regions count, not its own operands;
* ``case`` / ``if``: the maximum over the branches, per quantity.

Where hlokit's rules (``rules="hlokit"``, the default) differ from XLA's (``rules="xla"`` gives XLA's
numbers for the same program), and why (docs/cost_analysis.md has the full table):

* ``while``: counted loops (an induction variable compared against a constant bound, or against a carried
  value the body passes through unchanged, stepped by a constant, starting from a constant: what
  ``jax.lax.fori_loop`` / ``scan`` write) count ``trips`` applications of the body and ``trips + 1`` of the
  condition; XLA counts one of each. A loop that is not counted says ``unknown`` and counts one trip.
* ``custom_call``: XLA reports -1 flops and -1 bytes, which *lower* the totals; hlokit counts 0 flops and
  the bytes of its operands and results, and marks the op "flops unknown".
* ``slice``, ``dynamic_slice``, ``gather``, ``real_dynamic_slice``: bytes read from the operand are the
  distinct elements the op's indexing maps (:func:`hlokit.analysis.indexing_ops.output_to_input`) reach,
  capped by the operand, so a gather whose result is larger than its operand reads at most the operand
  (XLA: the result's size). ``dynamic_slice`` / ``dynamic_update_slice`` read every start index (XLA only
  the first); ``case`` / ``if`` read their index.
* XLA's tuples: XLA adds 8 bytes per element of each tuple its HLO builds (a ``while`` carrying several
  values, a ``case`` branch capturing several, a function returning several); hlokit counts the arrays.
* CHLO ops count one op per element (a transcendental for the special functions); jaxlib's converter
  expands them into StableHLO before XLA counts.

jaxlib's StableHLO -> HLO converter also rewrites some programs (a ``broadcast_in_dim`` expanding a size-1
dimension becomes three HLO ops; identity broadcasts, ``x + 0`` and ops on constants are folded; transposes
get layouts that make them bitcasts), so XLA's numbers for a module as written can differ for those reasons
too; on the HLO it counts (imported back into StableHLO, where layouts are ``result_layout`` attributes),
``rules="xla"`` gives XLA's numbers (tests/pytest/test_cost_analysis.py).

XLA's own totals are sums of ``float`` (32-bit) values, so totals above 2**24 agree to about 1e-7.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes, dtypes
from hlokit.diagnostics import Diagnostic, HlokitError, location_position
from hlokit.analysis.indexing import IndexingError, expr_range
from hlokit.analysis.indexing_ops import output_to_input

__all__ = ["OpCost", "FunctionCost", "CostReport", "Roofline", "cost", "measure_peaks", "TRANSCENDENTAL_OPS"]

#: Ops that count one transcendental per result element (XLA's list, in StableHLO / CHLO names).
TRANSCENDENTAL_OPS = frozenset(
    "stablehlo." + n
    for n in (
        "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "power", "sqrt",
        "rsqrt", "cbrt", "tanh", "sine", "cosine", "tan", "atan2", "erf",
    )
) | frozenset({"chlo.erf", "chlo.acosh"})

#: Ops that count one flop per result element.
_ELEMENTWISE = frozenset(
    "stablehlo." + n
    for n in (
        "abs", "add", "and", "ceil", "clamp", "compare", "complex", "convert", "count_leading_zeros",
        "divide", "floor", "imag", "is_finite", "maximum", "minimum", "multiply", "negate", "not", "or",
        "popcnt", "real", "reduce_precision", "remainder", "round_nearest_afz", "round_nearest_even",
        "select", "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "subtract", "xor",
        "bitcast_convert",
    )
)

#: Ops that move data only: no flops, their operands' and results' bytes.
_DATA_MOVEMENT = frozenset(
    "stablehlo." + n
    for n in (
        "broadcast_in_dim", "broadcast", "concatenate", "pad", "reshape", "reverse", "iota", "copy",
        "get_dimension_size", "batch_norm_training", "batch_norm_inference", "batch_norm_grad",
        "all_gather", "all_to_all", "reduce_scatter", "collective_permute", "collective_broadcast",
        "partition_id", "replica_id", "send", "recv", "infeed", "outfeed", "optimization_barrier",
    )
)

#: Ops that touch no memory and do no work.
_FREE = frozenset({"stablehlo.constant", "stablehlo.get_tuple_element", "stablehlo.after_all",
                   "stablehlo.create_token", "func.return", "stablehlo.return"})

_POINTER_BYTES = 8  # XLA's tuple element (a pointer)

#: Ops whose regions are bodies applied per element (counted by their op's rule), not code run once.
_REGION_OPS = frozenset(
    "stablehlo." + n
    for n in ("reduce", "reduce_window", "map", "scatter", "select_and_scatter", "all_reduce", "sort",
              "reduce_scatter")
)

@dataclass
class OpCost:
    """The cost of one op, as counted once (``trips`` says how often it runs).

    ``function``: the function it is in; ``label``: ``%name = dialect.op``; ``location``: ``file:line:col``;
    ``flops``, ``transcendentals``: per run, nested regions included (a reduce's body per application);
    ``operand_bytes`` / ``result_bytes``: bytes read per operand / written per result, per run;
    ``trips``: runs per run of the analysed function (product of enclosing counted loops' trip counts, and
    of repeated calls); ``note``: what is estimated or unknown about it ("trip count 10", "unknown trip
    count", "custom call: flops unknown", ...).
    """

    function: str
    label: str
    name: str
    location: str
    flops: float = 0.0
    transcendentals: float = 0.0
    operand_bytes: tuple = ()
    result_bytes: tuple = ()
    trips: int = 1
    depth: int = 0
    note: str = ""
    own: bool = True  # False for a call / while / case row whose costs are its regions' (listed below it)

    @property
    def bytes_read(self) -> float:
        return float(sum(self.operand_bytes))

    @property
    def bytes_written(self) -> float:
        return float(sum(self.result_bytes))

    @property
    def bytes_accessed(self) -> float:
        return self.bytes_read + self.bytes_written


@dataclass
class FunctionCost:
    """Totals of one function per call (its callees and loops included): ``flops``, ``transcendentals``,
    ``bytes_read``, ``bytes_written``; ``calls``: how many times the analysed entry calls it."""

    name: str
    flops: float = 0.0
    transcendentals: float = 0.0
    bytes_read: float = 0.0
    bytes_written: float = 0.0
    calls: int = 0

    @property
    def bytes_accessed(self) -> float:
        return self.bytes_read + self.bytes_written


@dataclass
class Roofline:
    """Time bounds of a program on a machine: ``compute_s = flops / peak_flops``, ``memory_s =
    bytes / peak_bandwidth``; ``bound`` is ``"compute"`` or ``"memory"``; ``measured`` says whether the peaks
    were measured on this CPU (:func:`measure_peaks`, True) or given (False), or names the one measured
    (``"flops"`` / ``"bandwidth"``)."""

    peak_flops: float
    peak_bandwidth: float
    compute_s: float
    memory_s: float
    measured: bool | str

    @property
    def bound(self) -> str:
        return "compute" if self.compute_s >= self.memory_s else "memory"

    def line(self, flops: float, bytes_accessed: float) -> str:
        """The one-line summary the translate mode prints."""
        intensity = flops / bytes_accessed if bytes_accessed else float("inf")
        ridge = self.peak_flops / self.peak_bandwidth
        source = {True: "measured on this CPU with numpy", False: "given"}.get(
            self.measured, f"given, peak {self.measured} measured on this CPU with numpy")
        return (
            f"roofline: {self.bound}-bound, >= {_seconds(max(self.compute_s, self.memory_s))} "
            f"(compute {_seconds(self.compute_s)} at {_si(self.peak_flops)}FLOP/s, memory "
            f"{_seconds(self.memory_s)} at {_si(self.peak_bandwidth)}B/s; intensity {intensity:.3g} flop/byte, "
            f"ridge {ridge:.3g}; peaks {source})"
        )


@dataclass
class CostReport:
    """What :func:`cost` returns.

    ``function``: the analysed entry; ``rules``: ``"hlokit"`` or ``"xla"``; ``ops``: one :class:`OpCost`
    per op in program order, callees and regions nested under their op (``depth``); ``functions``: per
    function reached, its :class:`FunctionCost` per call; ``flops``, ``transcendentals``, ``bytes_read``,
    ``bytes_written``: the entry's totals; ``unknown_trip_counts``: labels of loops counted once because
    their trip count is not known.
    """

    function: str
    rules: str
    ops: list = field(default_factory=list)
    functions: dict = field(default_factory=dict)
    flops: float = 0.0
    transcendentals: float = 0.0
    bytes_read: float = 0.0
    bytes_written: float = 0.0
    unknown_trip_counts: list = field(default_factory=list)

    @property
    def bytes_accessed(self) -> float:
        return self.bytes_read + self.bytes_written

    def roofline(self, peak_flops: float | None = None, peak_bandwidth: float | None = None) -> Roofline:
        """The roofline bound given peaks in FLOP/s and bytes/s; a peak left out is measured
        (:func:`measure_peaks`, once per process)."""
        measured = peak_flops is None or peak_bandwidth is None
        if measured and (peak_flops is not None or peak_bandwidth is not None):
            measured = "flops" if peak_flops is None else "bandwidth"
        if measured:
            mf, mb = measure_peaks()
            peak_flops = peak_flops or mf
            peak_bandwidth = peak_bandwidth or mb
        if peak_flops <= 0 or peak_bandwidth <= 0:
            raise HlokitError("peak FLOP/s and bandwidth must be positive")
        return Roofline(peak_flops, peak_bandwidth, self.flops / peak_flops, self.bytes_accessed / peak_bandwidth, measured)

    def table(self) -> str:
        """The per-op and per-function table the translate mode prints."""
        rows = [("op", "flops", "transc", "bytes read (per operand)", "bytes written", "trips", "location / note")]
        for o in self.ops:
            indent = "  " * o.depth
            if o.own:
                read = _num(o.bytes_read) + (" (" + " + ".join(_num(b) for b in o.operand_bytes) + ")" if len(o.operand_bytes) > 1 else "")
                written = _num(o.bytes_written)
                fl, tr = _num(o.flops), _num(o.transcendentals)
            else:
                read = written = fl = tr = "-"
            note = o.location + (f"  {o.note}" if o.note else "")
            rows.append((indent + o.label, fl, tr, read, written, str(o.trips), note))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
        lines = [f"cost of @{self.function} ({self.rules} rules; no fusion)"]
        for r in rows:
            cells = [r[0].ljust(widths[0])] + [r[i].rjust(widths[i]) for i in range(1, len(widths))]
            lines.append(("  ".join(cells) + "  " + r[-1]).rstrip())
        lines.append("")
        lines.append("per function (per call, callees and loops included):")
        for f in self.functions.values():
            lines.append(
                f"  @{f.name}: calls {f.calls}, flops {_num(f.flops)}, transcendentals {_num(f.transcendentals)}, "
                f"bytes read {_num(f.bytes_read)}, bytes written {_num(f.bytes_written)}"
            )
        lines.append(
            f"total @{self.function}: flops {_num(self.flops)}, transcendentals {_num(self.transcendentals)}, "
            f"bytes read {_num(self.bytes_read)}, bytes written {_num(self.bytes_written)}, "
            f"bytes accessed {_num(self.bytes_accessed)}"
        )
        if self.unknown_trip_counts:
            lines.append("while loops with an unknown trip count (counted once): " + ", ".join(self.unknown_trip_counts))
        return "\n".join(lines)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.6g}"


def _si(v: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.3g} "


def _seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} us"


_PEAKS: tuple | None = None


def measure_peaks() -> tuple[float, float]:
    """(FLOP/s, bytes/s) of this CPU measured with numpy, once per process: the best of a few float32
    1024x1024 matmuls (``2 n**3`` flops each) and of a few copies of a 64 MiB array (read + write)."""
    global _PEAKS
    if _PEAKS is None:
        n = 1024
        a = np.ones((n, n), np.float32)
        b = np.ones((n, n), np.float32)
        best = math.inf
        for _ in range(4):
            t = time.perf_counter()
            a @ b
            best = min(best, time.perf_counter() - t)
        flops = 2 * n**3 / best
        src = np.ones(16 << 20, np.float32)
        dst = np.empty_like(src)
        best = math.inf
        for _ in range(4):
            t = time.perf_counter()
            np.copyto(dst, src)
            best = min(best, time.perf_counter() - t)
        _PEAKS = (flops, 2 * src.nbytes / best)
    return _PEAKS


# ----------------------------------------------------------------------------------------------
# sizes


def _elements(t: ir.Type) -> int:
    if not isinstance(t, ir.RankedTensorType):
        return 0
    return int(np.prod(ir.RankedTensorType(t).shape, dtype=np.int64))


def _bytes(t: ir.Type) -> int:
    """XLA's byte size of a value of type ``t``: elements times whole bytes per element (i1 and sub-byte
    types take a byte); tokens and tuples of nothing 0; a tuple its pointer table."""
    if isinstance(t, ir.TupleType):
        return _POINTER_BYTES * ir.TupleType(t).num_types
    if not isinstance(t, ir.RankedTensorType):
        return 0
    t = ir.RankedTensorType(t)
    if any(d < 0 for d in t.shape):
        raise HlokitError(f"cost analysis needs static shapes, got {t}")
    try:
        bits = dtypes.ELEMENT_TYPES[dtypes.element_type_name(t)].bits
    except KeyError:
        bits = dtypes.bit_width(dtypes.dtype_of(t))
    return _elements(t) * max(1, (bits + 7) // 8)


def _shape(v) -> list[int]:
    return list(ir.RankedTensorType(v.type).shape)


# ----------------------------------------------------------------------------------------------
# the walker


class _Totals:
    __slots__ = ("flops", "trans", "read", "written")

    def __init__(self, flops=0.0, trans=0.0, read=0.0, written=0.0):
        self.flops, self.trans, self.read, self.written = flops, trans, read, written

    def add(self, other: "_Totals", k: float = 1) -> None:
        self.flops += other.flops * k
        self.trans += other.trans * k
        self.read += other.read * k
        self.written += other.written * k

    def max_with(self, other: "_Totals") -> None:
        self.flops = max(self.flops, other.flops)
        self.trans = max(self.trans, other.trans)
        self.read = max(self.read, other.read)
        self.written = max(self.written, other.written)


class _Analysis:
    def __init__(self, module: ir.Module, rules: str):
        self.rules = rules
        self.xla = rules == "xla"
        self.funcs = {}
        self.declared = set()
        for op in module.body.operations:
            op = op.operation
            if op.name == "func.func":
                if op.regions[0].blocks:
                    self.funcs[attributes.str_value(op, "sym_name")] = op
                else:
                    self.declared.add(attributes.str_value(op, "sym_name"))
        self.report: CostReport | None = None
        self.states: dict = {}
        self.stack: list[str] = []

    # -- naming
    def label(self, op, fname: str) -> str:
        state = self.states.get(fname)
        if state is None:
            state = self.states[fname] = ir.AsmState(self.funcs[fname])
        if len(op.results) == 0:
            return op.name
        names = [op.results[0].get_name(state)] if len(op.results) == 1 else [r.get_name(state) for r in op.results[:1]] + ["..."]
        return f"{', '.join(names)} = {op.name}"

    @staticmethod
    def location(op) -> str:
        file, line, col = location_position(op.location)
        return f"{file}:{line}:{col}" if file else ""

    # -- functions and blocks
    def function(self, fname: str, trips: int, depth: int) -> _Totals:
        if fname not in self.funcs:
            raise HlokitError(f"no function named '{fname}'")
        if fname in self.stack:
            raise HlokitError(f"recursive call of @{fname}: cost analysis needs a call graph without cycles")
        self.stack.append(fname)
        try:
            func = self.funcs[fname]
            total = self.block(func.regions[0].blocks[0], fname, trips, depth)
        finally:
            self.stack.pop()
        fc = self.report.functions.get(fname)
        if fc is None:
            fc = self.report.functions[fname] = FunctionCost(fname, total.flops, total.trans, total.read, total.written)
        fc.calls += trips
        return total

    def block(self, block: ir.Block, fname: str, trips: int, depth: int, body_of: str = "") -> _Totals:
        total = _Totals()
        for op in block.operations:
            op = op.operation
            try:
                total.add(self.op(op, fname, trips, depth, body_of))
            except HlokitError as err:
                if any(d.line for d in err.diagnostics):
                    raise
                file, line, col = location_position(op.location)
                raise HlokitError([Diagnostic("error", d.message, file, line, col) for d in err.diagnostics]) from None
            except (ValueError, TypeError, KeyError, IndexError, IndexingError) as err:  # malformed attributes
                file, line, col = location_position(op.location)
                raise HlokitError(Diagnostic("error", f"cost analysis of '{op.name}': {err}", file, line, col)) from None
        return total

    def region_scalar(self, region: ir.Region, fname: str, depth: int) -> _Totals:
        """A reduction body's cost per application (its bytes are not counted, as XLA)."""
        t = self.block(region.blocks[0], fname, 0, depth)
        return _Totals(t.flops, t.trans)

    # -- one op
    def row(self, op, fname, trips, depth, **kw) -> OpCost:
        r = OpCost(fname, self.label(op, fname), op.name, self.location(op), trips=trips, depth=depth, **kw)
        if trips:  # rows of reduction bodies (trips 0) are summarised by their op
            self.report.ops.append(r)
        return r

    def default_bytes(self, op):
        return tuple(_bytes(v.type) for v in op.operands), self.result_bytes(op)

    def result_bytes(self, op):
        return tuple(_bytes(r.type) for r in op.results)

    def op(self, op, fname: str, trips: int, depth: int, body_of: str = "") -> _Totals:
        name = op.name
        if name.startswith("mhlo."):  # XLA's importer writes the ops StableHLO lacks (erf, ...) as mhlo
            name = "stablehlo." + name[5:]
        if name in ("func.return", "stablehlo.return"):
            if self.xla and len(op.operands) > 1 and body_of != "body":
                r = self.row(op, fname, trips, depth, result_bytes=(_POINTER_BYTES * len(op.operands),), note="tuple")
                return _Totals(0, 0, 0, r.bytes_written)
            return _Totals()
        if name == "func.call":
            return self.call(op, fname, trips, depth)
        if name == "stablehlo.while":
            return self.while_(op, fname, trips, depth)
        if name in ("stablehlo.case", "stablehlo.if"):
            return self.case(op, fname, trips, depth)
        if name == "stablehlo.composite":
            callee = attributes.str_value(op, "decomposition", None) or str(attributes.get(op, "decomposition")).strip("@")
            r = self.row(op, fname, trips, depth, own=False, note=f"decomposition @{callee}")
            del r
            return self.function(callee.lstrip("@"), trips, depth + 1)
        if op.regions and name not in _REGION_OPS:
            # an op of another dialect holding code (sdy.manual_computation, ...): its regions, once each
            self.row(op, fname, trips, depth, own=False, note="not modelled: its regions counted once")
            total = _Totals()
            for reg in op.regions:
                for block in reg.blocks:
                    total.add(self.block(block, fname, trips, depth + 1, body_of="region"))
            return total
        flops = trans = 0.0
        note = ""
        operand_bytes, result_bytes = self.default_bytes(op)
        nested: _Totals | None = None
        if name in _FREE:
            operand_bytes, result_bytes = tuple(0 for _ in op.operands), tuple(0 for _ in op.results)
        elif name in TRANSCENDENTAL_OPS:
            trans = _elements(op.results[0].type)
        elif name in _ELEMENTWISE:
            flops = _elements(op.results[0].type)
        elif name.startswith("chlo.") and len(op.results) == 1 and name not in ("chlo.constant", "chlo.constant_like"):
            n = _elements(op.results[0].type)
            if name in _CHLO_TRANSCENDENTAL:
                trans = n
            else:
                flops = n
            note = "CHLO: one op per element"
        elif name in ("stablehlo.dot_general", "stablehlo.dot"):
            flops = _dot_flops(op)
        elif name == "stablehlo.convolution":
            flops = _conv_flops(op)
        elif name in ("stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.map", "stablehlo.scatter",
                      "stablehlo.select_and_scatter", "stablehlo.all_reduce"):
            nested, flops, trans, operand_bytes, result_bytes, note = self.structured(op, fname, depth, operand_bytes, result_bytes)
        elif name == "stablehlo.sort":
            n = _elements(op.operands[0].type)
            flops = n * math.ceil(math.log2(n)) if n > 1 else 0
        elif name == "stablehlo.fft":
            lengths = attributes.i64_array(op, "fft_length")
            flops = 2 * 4 * math.prod(int(math.floor(math.log2(n))) if n > 0 else 0 for n in lengths) * _elements(op.operands[0].type)
        elif name == "stablehlo.cholesky":
            shape = _shape(op.operands[0])
            half = _bytes(op.operands[0].type) / 2
            operand_bytes, result_bytes = (half,), (half,)
            flops = shape[-1] * _elements(op.operands[0].type) // 3
        elif name == "stablehlo.triangular_solve":
            a = _shape(op.operands[0])
            operand_bytes = (_bytes(op.operands[0].type) / 2, _bytes(op.operands[1].type))
            flops = 2 * a[-1] * _elements(op.operands[1].type)
        elif name == "stablehlo.rng":
            trans = _elements(op.results[0].type)
        elif name == "stablehlo.rng_bit_generator":
            trans = sum(_elements(r.type) for r in op.results)
        elif name in ("stablehlo.slice", "stablehlo.gather", "stablehlo.dynamic_slice", "stablehlo.real_dynamic_slice"):
            operand_bytes, note = self.sliced(op)
        elif name == "stablehlo.dynamic_update_slice":
            update = _bytes(op.operands[1].type)
            idx = [_bytes(v.type) for v in op.operands[2:]]
            if self.xla:
                idx = idx[:1] + [0] * (len(idx) - 1)
            operand_bytes, result_bytes = (0, update, *idx), (update,)
        elif name == "stablehlo.transpose":
            if _transpose_is_bitcast(op):
                operand_bytes, result_bytes = (0,), (0,)
                note = "bitcast"
        elif name == "stablehlo.tuple":
            operand_bytes = tuple(0 for _ in op.operands)
        elif name == "stablehlo.custom_call":
            target = attributes.str_value(op, "call_target_name", "?")
            if self.xla:
                flops = -1  # XLA: -1 flops and -1 bytes accessed in all
                operand_bytes = tuple(-1 if i == 0 else 0 for i in range(max(1, len(op.operands))))
                result_bytes = tuple(0 for _ in op.results)
                note = f"custom call '{target}': XLA's -1 (unknown)"
            else:
                note = f"custom call '{target}': flops unknown"
        elif name in _DATA_MOVEMENT:
            pass
        else:
            note = "not modelled: bytes only"
        if name == "stablehlo.optimization_barrier" and self.xla:
            operand_bytes = (_POINTER_BYTES * len(op.operands),) if len(op.operands) > 1 else operand_bytes
        r = self.row(op, fname, trips, depth, flops=flops, transcendentals=trans, operand_bytes=operand_bytes,
                     result_bytes=result_bytes, note=note)
        return _Totals(r.flops, r.transcendentals, r.bytes_read, r.bytes_written)

    def structured(self, op, fname, depth, operand_bytes, result_bytes):
        """reduce, reduce_window, map, scatter, select_and_scatter, all_reduce: body costs times applications."""
        name = op.name
        note = ""
        flops = trans = 0.0
        if name == "stablehlo.all_reduce":
            return None, float(sum(_elements(r.type) for r in op.results)), 0.0, operand_bytes, tuple(_bytes(r.type) for r in op.results), ""
        bodies = [self.region_scalar(reg, fname, depth + 1) for reg in op.regions]
        if name == "stablehlo.reduce":
            count = _elements(op.operands[0].type) - _elements(op.results[0].type)
            note = f"body x {count}"
            flops, trans = bodies[0].flops * count, bodies[0].trans * count
        elif name == "stablehlo.map":
            count = _elements(op.results[0].type)
            note = f"body x {count}"
            flops, trans = bodies[0].flops * count, bodies[0].trans * count
        elif name == "stablehlo.reduce_window":
            count = _reduce_window_count(op)
            note = f"body x {count}"
            flops, trans = bodies[0].flops * count, bodies[0].trans * count
        elif name == "stablehlo.select_and_scatter":
            source = _elements(op.operands[1].type)
            window = math.prod(attributes.i64_array(op, "window_dimensions"))
            sel = source * (window - 1)
            flops = bodies[0].flops * sel + bodies[1].flops * source
            trans = bodies[0].trans * sel + bodies[1].trans * source
            note = f"select x {sel}, scatter x {source}"
        elif name == "stablehlo.scatter":
            n = (len(op.operands) - 1) // 2
            updates = [_bytes(v.type) for v in op.operands[n + 1:]]
            index = _bytes(op.operands[n].type)
            operand_bytes = tuple(updates) + (index,) + tuple(updates)
            result_bytes = (sum(updates),)
            if not self.xla:
                result_bytes = tuple(updates)
            count = _elements(op.operands[n + 1].type)
            flops, trans = bodies[0].flops * count, bodies[0].trans * count
            note = f"body x {count}"
        return None, flops, trans, operand_bytes, result_bytes, note

    def sliced(self, op):
        """Bytes read by slice / gather / dynamic_slice: XLA's (result bytes plus indices), or (hlokit) the
        distinct operand elements the indexing maps reach, capped at the operand."""
        out = _bytes(op.results[0].type)
        idx = [_bytes(v.type) for v in op.operands[1:]]
        name = op.name
        if self.xla:
            if name == "stablehlo.dynamic_slice":
                idx = idx[:1] + [0] * (len(idx) - 1)
            return (out, *idx), ""
        read = min(out, _bytes(op.operands[0].type))
        note = ""
        try:
            maps = output_to_input(op, 0)[0]
            if maps:
                per_elem = _bytes(op.operands[0].type) // max(1, _elements(op.operands[0].type))
                distinct = min(_distinct_elements(m, _shape(op.operands[0])) for m in maps)
                read = min(read, distinct * per_elem)
                note = "bytes read from indexing maps"
        except IndexingError:
            pass
        return (read, *idx), note

    def call(self, op, fname, trips, depth) -> _Totals:
        callee = str(attributes.get(op, "callee")).lstrip("@")
        if callee not in self.funcs and callee in self.declared:
            operand_bytes, result_bytes = self.default_bytes(op)
            r = self.row(op, fname, trips, depth, operand_bytes=operand_bytes, result_bytes=result_bytes,
                         note=f"calls external @{callee}: flops unknown")
            return _Totals(0, 0, r.bytes_read, r.bytes_written)
        self.row(op, fname, trips, depth, own=False, note=f"calls @{callee}")
        return self.function(callee, trips, depth + 1)

    def while_(self, op, fname, trips, depth) -> _Totals:
        n = None if self.xla else _trip_count(op)
        label = self.label(op, fname)
        if self.xla:
            note = "one trip (XLA's rule)"
        elif n is None:
            note = "trip count unknown: counted once"
            self.report.unknown_trip_counts.append(f"{label} ({self.location(op)})")
        else:
            note = f"trip count {n}"
        body_trips = 1 if n is None else n
        cond_trips = 1 if n is None or self.xla else n + 1
        self.row(op, fname, trips, depth, own=False, note=note)
        total = _Totals()
        total.add(self.block(op.regions[0].blocks[0], fname, trips * cond_trips, depth + 1, body_of="cond"), cond_trips)
        total.add(self.block(op.regions[1].blocks[0], fname, trips * body_trips, depth + 1, body_of="body"), body_trips)
        if self.xla and len(op.operands) > 1:
            # XLA's while carries several values as one tuple: the parent builds it, the body returns it
            total.written += 2 * _POINTER_BYTES * len(op.operands)
        return total

    def case(self, op, fname, trips, depth) -> _Totals:
        self.row(op, fname, trips, depth, own=False, note="max over branches")
        total = None
        for reg in op.regions:
            t = self.block(reg.blocks[0], fname, trips, depth + 1, body_of="branch")
            if total is None:
                total = t
            else:
                total.max_with(t)
        total = total or _Totals()
        if self.xla:
            # XLA passes each branch a tuple of the values it captures (8 bytes per pointer)
            # (one captured value is passed as it is)
            total.written += sum(_POINTER_BYTES * n for n in (len(_captures(reg)) for reg in op.regions) if n > 1)
        else:
            total.read += _bytes(op.operands[0].type)
        return total


_CHLO_TRANSCENDENTAL = frozenset(
    "chlo." + n
    for n in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e", "cosh", "digamma", "erf", "erfc",
              "erf_inv", "lgamma", "polygamma", "sinh", "tan", "zeta")
)


def _captures(region: ir.Region) -> list:
    """The values used inside ``region`` (nested regions included) but defined outside it, in first-use order."""
    inside: set = set()
    seen: list = []

    def walk(reg):
        for block in reg.blocks:
            for a in block.arguments:
                inside.add(a)
            for o in block.operations:
                for r in o.results:
                    inside.add(r)
                for v in o.operands:
                    if v not in inside and v not in seen:
                        seen.append(v)
                for inner in o.regions:
                    walk(inner)

    walk(region)
    return [v for v in seen if v not in inside]


# ----------------------------------------------------------------------------------------------
# per-op formulas


def _dot_flops(op) -> float:
    lhs = _shape(op.operands[0])
    if op.name == "stablehlo.dot":
        contracting = [len(lhs) - 1] if len(lhs) else []
    else:
        dn = stablehlo.DotDimensionNumbers(attributes.get(op, "dot_dimension_numbers"))
        contracting = list(dn.lhs_contracting_dimensions)
    k = math.prod(lhs[d] for d in contracting)
    return 2.0 * _elements(op.results[0].type) * k


def _valid_positions(i: int, k: int, o: int, stride: int, lo: int, base: int, dil: int) -> int:
    """How many (output, kernel) position pairs of one spatial dimension read a real input element."""
    if o <= 0 or k <= 0 or i <= 0:
        return 0
    outs = np.arange(o, dtype=np.int64)
    count = 0
    for kk in range(k):
        x = outs * stride - lo + kk * dil
        if base > 1:
            ok = (x % base == 0) & (x >= 0)
            x = x // base
        else:
            ok = x >= 0
        count += int(np.count_nonzero(ok & (x < i)))
    return count


def _conv_flops(op) -> float:
    fg = attributes.int_value(op, "feature_group_count", 1)
    bg = attributes.int_value(op, "batch_group_count", 1)
    dn = stablehlo.ConvDimensionNumbers(attributes.get(op, "dimension_numbers"))
    lhs, rhs, out = _shape(op.operands[0]), _shape(op.operands[1]), _shape(op.results[0])
    ins, ks, outs = list(dn.input_spatial_dimensions), list(dn.kernel_spatial_dimensions), list(dn.output_spatial_dimensions)
    ns = len(ins)
    strides = attributes.i64_array(op, "window_strides", [1] * ns)
    pad = attributes.i64_array(op, "padding", [0] * (2 * ns))
    lhs_dil = attributes.i64_array(op, "lhs_dilation", [1] * ns)
    rhs_dil = attributes.i64_array(op, "rhs_dilation", [1] * ns)
    positions = 1
    for s in range(ns):
        positions *= _valid_positions(lhs[ins[s]], rhs[ks[s]], out[outs[s]], strides[s], pad[2 * s], lhs_dil[s], rhs_dil[s])
    c_in = lhs[dn.input_feature_dimension]
    c_out = out[dn.output_feature_dimension]
    batch = lhs[dn.input_batch_dimension]
    return 2.0 * (c_in // fg) * c_out * (batch // bg) * positions


def _reduce_window_count(op) -> int:
    """Applications of a reduce_window body: ``(window - 1) * elements(result)``, or XLA's count for a
    window that reduces one dimension and broadcasts it back (``size == 2 * pad + 1``, ``pad == n - 1``)."""
    win = attributes.i64_array(op, "window_dimensions")
    rank = len(win)
    pad = attributes.i64_array(op, "padding", [0] * (2 * rank))
    out_shape = _shape(op.results[0])
    out = _elements(op.results[0].type)
    count = (math.prod(win) - 1) * out
    reduced = [d for d in range(rank) if win[d] != 1]
    padded = [d for d in range(rank) if pad[2 * d] or pad[2 * d + 1]]
    if len(reduced) == 1 and len(padded) == 1 and len(op.results) == 1:
        for d in range(rank):
            lo, hi = pad[2 * d], pad[2 * d + 1]
            if win[d] != 1 and lo and hi and lo == hi and win[d] == 2 * lo + 1:
                if lo == out_shape[d] - 1:
                    n = out_shape[d]
                    count = out // n + (n - 1)
                break
    return count


def _layout(v) -> list[int]:
    """Minor-to-major layout of a value: the ``result_layout`` attribute XLA's importer writes on its
    producer, else row-major."""
    rank = len(_shape(v))
    owner = v.owner if isinstance(v, ir.OpResult) else None
    if owner is not None and "result_layout" in owner.attributes and len(owner.results) == 1:
        try:
            return [int(x) for x in ir.DenseIntElementsAttr(owner.attributes["result_layout"])]
        except (TypeError, ValueError):
            pass
    return list(range(rank - 1, -1, -1))


def _transpose_is_bitcast(op) -> bool:
    """XLA's ``IsEffectiveBitcast``: the transposed dimensions, read minor to major in the result's
    layout, are the operand's minor-to-major order (size-1 dimensions ignored)."""
    perm = attributes.i64_array(op, "permutation")
    shape = _shape(op.operands[0])
    out_order = [perm[d] for d in _layout(op.results[0])]
    in_order = _layout(op.operands[0])
    return [d for d in out_order if shape[d] != 1] == [d for d in in_order if shape[d] != 1]


def _distinct_elements(m, operand_shape: Sequence[int]) -> int:
    """An upper bound on the distinct operand elements an output-to-input map reaches: per operand
    dimension, the size of the one output dimension it follows (a stride is one-to-one), else its range."""
    total = 1
    used: set = set()
    for r, e in enumerate(m.results):
        extent = operand_shape[r] if r < len(operand_shape) else 1
        dvars = [(a, c) for a, c in e.terms if getattr(a, "kind", None) == "d"]
        others = [a for a, c in e.terms if getattr(a, "kind", None) != "d"]
        # runtime variables that are one value per run (a dynamic_slice start), not one per output index
        only_rt = all(
            getattr(a, "kind", None) == "s" and a.index >= len(m.range_vars)
            and not any(t.terms for t in m.rt_vars[a.index - len(m.range_vars)].map)
            for a in others
        )
        if len(dvars) == 1 and len(e.terms) - len(others) == 1 and only_rt and dvars[0][0].index not in used:
            used.add(dvars[0][0].index)
            b = m.dim_vars[dvars[0][0].index].bounds
            count = b.upper - b.lower + 1
        elif not dvars and only_rt:
            count = 1
        else:
            iv = expr_range(e, m.var_bounds)
            count = iv.upper - iv.lower + 1
        total *= max(0, min(count, extent))
    return total


# ----------------------------------------------------------------------------------------------
# trip counts


def _int_constant(v: ir.Value) -> int | None:
    """The integer of a scalar (or splat) ``stablehlo.constant``, else None."""
    owner = v.owner
    if not isinstance(owner, ir.Operation) and not hasattr(owner, "name"):
        return None
    try:
        op = owner.operation if hasattr(owner, "operation") else owner
    except Exception:
        return None
    if getattr(op, "name", None) != "stablehlo.constant":
        return None
    a = op.attributes["value"]
    if not isinstance(a, ir.DenseIntElementsAttr):
        return None
    dense = ir.DenseIntElementsAttr(a)
    if not dense.is_splat and len(dense) != 1:
        return None
    return int(dense[0]) if len(dense) else int(ir.IntegerAttr(dense.get_splat_value()).value)


def _resolve_bound(v: ir.Value, op, body_ret) -> int | None:
    """A loop bound: a constant, or a loop-carried value that the body passes through unchanged and
    that starts as a constant."""
    c = _int_constant(v)
    if c is not None:
        return c
    if isinstance(v, ir.BlockArgument):
        j = v.arg_number
        body = op.regions[1].blocks[0]
        if j < len(body_ret.operands) and body_ret.operands[j] == body.arguments[j]:
            return _int_constant(op.operands[j])
    return None


def _trip_count(op) -> int | None:
    """Trip count of a counted ``while``: the condition compares a carried value ``i`` with a constant
    bound, the body returns ``i + c`` / ``i - c`` for a constant ``c`` at the same position, and ``i`` starts
    as a constant. None otherwise."""
    cond = op.regions[0].blocks[0]
    body = op.regions[1].blocks[0]
    cond_ret = list(cond.operations)[-1]
    body_ret = list(body.operations)[-1]
    if len(cond_ret.operands) != 1:
        return None
    cmp = cond_ret.operands[0].owner
    if not hasattr(cmp, "name") or cmp.name != "stablehlo.compare":
        return None
    direction = attributes.enum_value(cmp, "comparison_direction", None)
    lhs, rhs = cmp.operands[0], cmp.operands[1]
    swap = {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE", "NE": "NE", "EQ": "EQ"}
    if isinstance(lhs, ir.BlockArgument) and lhs.owner == cond and _resolve_bound(lhs, op, body_ret) is None:
        k, bound_v = lhs.arg_number, rhs
    elif isinstance(rhs, ir.BlockArgument) and rhs.owner == cond:
        k, bound_v = rhs.arg_number, lhs
        direction = swap.get(direction, direction)
    else:
        return None
    bound = _resolve_bound(bound_v, op, body_ret)
    start = _int_constant(op.operands[k])
    if bound is None or start is None or k >= len(body_ret.operands):
        return None
    nxt = body_ret.operands[k].owner
    if not hasattr(nxt, "name") or nxt.name not in ("stablehlo.add", "stablehlo.subtract"):
        return None
    a, b = nxt.operands[0], nxt.operands[1]
    iv = body.arguments[k]
    if a == iv and _int_constant(b) is not None:
        step = _int_constant(b)
    elif b == iv and nxt.name == "stablehlo.add" and _int_constant(a) is not None:
        step = _int_constant(a)
    else:
        return None
    if nxt.name == "stablehlo.subtract":
        step = -step
    if step == 0:
        return None
    if direction == "LT":
        span = bound - start
    elif direction == "LE":
        span = bound - start + 1
    elif direction == "GT":
        span, step = start - bound, -step
    elif direction == "GE":
        span, step = start - bound + 1, -step
    elif direction == "NE":
        if (bound - start) % step or (bound - start) // step < 0:
            return None
        return (bound - start) // step
    else:
        return None
    if step <= 0:
        return None if span > 0 else 0
    return max(0, -(-span // step))


# ----------------------------------------------------------------------------------------------
# entry point


def cost(module: ir.Module, function: str = "main", *, rules: str = "hlokit") -> CostReport:
    """Cost analysis of ``function`` of ``module`` (a parsed StableHLO module with static shapes).

    ``rules="hlokit"`` (default) counts counted loops' trips and the bytes the indexing maps say slices
    and gathers read; ``rules="xla"`` reproduces XLA's ``HloCostAnalysis`` on the HLO jaxlib converts
    the module into (one trip per loop, tuples' pointer tables, -1 for custom calls): see the module
    docstring and docs/cost_analysis.md for every difference and its reason.

    Returns a :class:`CostReport`. Raises :class:`~hlokit.diagnostics.HlokitError` for an unknown
    function, a recursive call graph or a dynamic shape, and ``ValueError`` for unknown ``rules``.
    """
    if rules not in ("hlokit", "xla"):
        raise ValueError(f"rules must be 'hlokit' or 'xla', not {rules!r}")
    with module.context:
        a = _Analysis(module, rules)
        if function not in a.funcs:
            raise HlokitError(f"no function named '{function}'")
        a.report = CostReport(function, rules)
        total = a.function(function, 1, 0)
    r = a.report
    r.flops, r.transcendentals, r.bytes_read, r.bytes_written = total.flops, total.trans, total.read, total.written
    return r
