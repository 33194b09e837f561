"""The op table of the hlokit interpreter: one :class:`OpImpl` per op name.

The split into an op table and pure semantics functions follows the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md); this module is the table, and the
protocol between it and the two executors (:mod:`~hlokit.interpreter.evaluator`'s plain walker and
:mod:`~hlokit.interpreter.compiled`'s planner and code generator).

An op's implementation is an :class:`OpImpl`. Its ``run`` is the *adapter*: it unpacks one MLIR op and calls
the op's pure semantics function::

    @register("stablehlo.clamp")
    def _clamp(op: ir.OpView, operands: list[Value], interp) -> list[Value]:
        return [clamp(*operands)]

* ``op`` is the MLIR op (an ``ir.OpView``); ``operands`` are the runtime values of its operands
  (see :mod:`hlokit.interpreter.values`); ``interp`` is the running
  :class:`~hlokit.interpreter.evaluator.Interpreter` (for regions: ``interp.eval_region``, calls:
  ``interp.call``). The adapter returns the result values in order. :func:`register` on a function
  registers ``OpImpl(run=function)``; on an :class:`OpImpl` (what :func:`prepared` and :func:`with_kernel`
  make), that record.
* Semantics functions (named after the spec op, taking the spec's operands and attributes as plain
  arrays / Python values) live beside the adapters in the family modules (``elementwise``,
  ``data_movement``, ``reduce``, ``linalg``, ``convolution``, ``fft``, ``control_flow``, ...; see
  :mod:`hlokit.interpreter`); they know nothing about MLIR. Helpers that several families share live in
  lower modules (:mod:`~hlokit.interpreter.arrays`, :mod:`~hlokit.interpreter.numerics`): families do not
  import each other.
* ``stablehlo.custom_call`` is dispatched on its ``call_target_name`` through :data:`CUSTOM_CALLS`
  (decorator :func:`register_custom_call`; a target's adapter is a plain function): the check forms
  (``@check.expect_*``) live in :mod:`hlokit.interpreter.check_ops`; any other target raises
  "unsupported custom_call @name".
* Adapters raise :class:`~hlokit.interpreter.errors.InterpreterError` (the executors add the op's location
  when the error has none) for runtime errors the spec defines.

The other fields of :class:`OpImpl` are what the compiled executor may use instead of ``run``; the plain
walker (``Interpreter(executor="plain")``) calls ``run`` and nothing else, so each field must compute exactly
what ``run`` computes:

* ``prepare(op) -> OpImpl`` (decorator :func:`prepared`): called once per op when the compiled executor plans
  a block; the record it returns runs every time the op executes (attributes read once, not once per
  iteration).
* ``folded``: the results, computed by ``prepare``, of an op without operands (``constant``): a plan-time
  constant; the op never runs.
* ``kernel(*operands) -> value`` of a one-result op (:func:`with_kernel`): the same computation without the
  op, the interpreter and the lists, which the executor calls directly. ``specialize(*operands) -> function |
  None``: for the runtime values of one call, a function that computes the kernel's result for every call
  whose operands have the same element types and ranks (an op's types are static), with no dispatch of its
  own. ``broadcasting(shape) -> OpImpl``: for a two-operand elementwise kernel, the kernel (a record with
  ``kernel`` and ``specialize``) for operands one of which is 0-d and stands for its broadcast to ``shape``.
* ``scalar_broadcast``: the result shape of a ``broadcast_in_dim`` of a 0-d operand, which the executor may
  drop in a loop body, handing the 0-d value to readers that have ``broadcasting``.
* ``isolated_regions``: the op's regions read nothing but their own block arguments (a ``reduce`` whose body
  is one ``add`` of its arguments): the planner does not plan them to learn what they capture.

Registration is explicit: a family module decorates its adapters, and :mod:`hlokit.interpreter` imports
every family module by name; a second implementation for a name raises ``ValueError`` at import.
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable, NamedTuple

from jaxlib.mlir import ir

from hlokit.interpreter.errors import InterpreterError

__all__ = [
    "OPS",
    "CUSTOM_CALLS",
    "TERMINATORS",
    "UNSUPPORTED",
    "Adapter",
    "OpImpl",
    "Wrapper",
    "impl_of",
    "register",
    "register_custom_call",
    "prepared",
    "with_kernel",
    "lookup",
    "WRAPPERS",
    "register_wrapper",
]

#: ``(op, operands, interp) -> results``: an ``ir.OpView``, the runtime values of its operands, the running
#: interpreter; the list of its results' runtime values.
Adapter = Callable[[Any, list, Any], list]


class OpImpl:
    """How the interpreter runs one op (see the module doc for each field; only ``run`` is required).

    ``run``: the adapter, the reference that the plain walker calls; ``prepare(op) -> OpImpl``: the record to run
    for one op, made when the compiled executor plans its block; ``folded``: the results of an op that never
    runs (a plan-time constant); ``kernel(*operands) -> value``: a one-result op's computation on its operands
    alone, with ``specialize(*operands) -> function | None`` and ``broadcasting(shape) -> OpImpl``;
    ``scalar_broadcast``: the result shape of a broadcast of a 0-d operand; ``isolated_regions``: the op's
    regions read only their own arguments.

    A mutable record with slots, compared by identity (written out rather than a ``dataclass``: making a
    dataclass costs about 0.5 ms of ``import hlokit.interpreter``, issue 40).
    """

    __slots__ = ("run", "prepare", "folded", "kernel", "specialize", "broadcasting", "scalar_broadcast",
                 "isolated_regions")

    run: Adapter
    prepare: Callable[[Any], "OpImpl"] | None
    folded: tuple | None
    kernel: Callable[..., Any] | None
    specialize: Callable[..., Callable | None] | None
    broadcasting: Callable[[tuple], "OpImpl"] | None
    scalar_broadcast: tuple | None
    isolated_regions: bool

    def __init__(self, run: Adapter, prepare: Callable[[Any], "OpImpl"] | None = None, folded: tuple | None = None,
                 kernel: Callable[..., Any] | None = None, specialize: Callable[..., Callable | None] | None = None,
                 broadcasting: Callable[[tuple], "OpImpl"] | None = None, scalar_broadcast: tuple | None = None,
                 isolated_regions: bool = False):
        self.run = run
        self.prepare = prepare
        self.folded = folded
        self.kernel = kernel
        self.specialize = specialize
        self.broadcasting = broadcasting
        self.scalar_broadcast = scalar_broadcast
        self.isolated_regions = isolated_regions

    def __repr__(self) -> str:
        return "OpImpl(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"


def _unsupported(op, operands, interp):
    raise InterpreterError(f"unsupported op '{op.operation.name}' in the interpreter", op.location)


#: The implementation of an op the table does not have: a located error when the op runs.
UNSUPPORTED = OpImpl(_unsupported)

#: Block terminators: the executors return their operands' values.
TERMINATORS = frozenset({"func.return", "stablehlo.return", "sdy.return"})

#: op name (e.g. ``"stablehlo.add"``) -> implementation.
OPS: dict[str, OpImpl] = {}

#: ``stablehlo.custom_call`` target name (e.g. ``"check.expect_close"``) -> adapter.
CUSTOM_CALLS: dict[str, Adapter] = {}


def register(*names: str):
    """Decorator: make an adapter function (``OpImpl(run=function)``) or an :class:`OpImpl` the implementation
    of the op(s) ``names``; returns what it decorates.

    Raises ``ValueError`` when a name already has an implementation (two families must not both claim an op).
    """

    def deco(fn):
        impl = fn if isinstance(fn, OpImpl) else OpImpl(fn)
        for name in names:
            old = OPS.get(name)
            if old is not None and old is not impl and old.run is not impl.run:
                raise ValueError(
                    f"interpreter op '{name}' registered twice ({old.run.__module__} and {impl.run.__module__})")
            OPS[name] = impl
        return fn

    return deco


def register_custom_call(*targets: str) -> Callable[[Adapter], Adapter]:
    """Decorator: make the function the adapter of ``stablehlo.custom_call @target`` for ``targets``.

    Raises ``ValueError`` when a target already has an adapter.
    """

    def deco(fn: Adapter) -> Adapter:
        for name in targets:
            if name in CUSTOM_CALLS and CUSTOM_CALLS[name] is not fn:
                raise ValueError(
                    f"custom_call target '{name}' registered twice ({CUSTOM_CALLS[name].__module__} and {fn.__module__})"
                )
            CUSTOM_CALLS[name] = fn
        return fn

    return deco


def prepared(prepare: Callable[[Any], OpImpl]) -> Callable[[Adapter], OpImpl]:
    """Decorator: the :class:`OpImpl` of an adapter with ``prepare`` (op -> the :class:`OpImpl` to run for that
    op; see the module doc)."""

    def deco(fn: Adapter) -> OpImpl:
        return OpImpl(fn, prepare=prepare)

    return deco


def with_kernel(kernel: Callable[..., Any], name: str | None = None, *, specialize=None, broadcasting=None,
                scalar_broadcast: tuple | None = None, isolated_regions: bool = False) -> OpImpl:
    """The :class:`OpImpl` of a one-result op computed by ``kernel`` (the operands' runtime values -> the one
    result): its adapter is ``(op, operands, interp) -> [kernel(*operands)]``; the other arguments are the
    fields of the same names (see the module doc). ``name``: the adapter's name (for tracebacks)."""

    def adapter(op, operands, interp):
        return [kernel(*operands)]

    adapter.__module__ = kernel.__module__  # (the family module that made it, as for any other adapter)
    if name:
        adapter.__name__ = adapter.__qualname__ = name
    # (positional: this runs for every op the compiled executor prepares, keyword arguments cost more)
    return OpImpl(adapter, None, None, kernel, specialize, broadcasting, scalar_broadcast, isolated_regions)


class Wrapper(NamedTuple):
    """A wrapper ``wrap(op, impl) -> OpImpl`` of every op's implementation (decorator :func:`register_wrapper`):
    both executors pass each op through it before anything else; it returns ``impl`` itself for the ops it
    leaves alone (:mod:`~hlokit.interpreter.quantization` wraps ops on quantized tensors). ``text_marker``: a
    string that the text of every program it changes contains (None: any program). (An immutable record: a
    ``NamedTuple`` costs a tenth of a frozen dataclass to make at import.)"""

    wrap: Callable[[Any, OpImpl], OpImpl]
    text_marker: str | None = None


#: The registered wrappers, in order.
WRAPPERS: list[Wrapper] = []


def register_wrapper(fn=None, *, text_marker: str | None = None):
    """Decorator (bare, or called with ``text_marker``): add ``fn`` (op, impl -> impl) to :data:`WRAPPERS` as a
    :class:`Wrapper`; ``ValueError`` when added twice. ``text_marker``: a string that the text of every program
    the wrapper changes contains (``"!quant."`` for quantized types): an interpreter skips the wrapper for
    programs parsed from text without it (:func:`wrappers_for`). Returns ``fn``."""

    def deco(fn):
        if any(w.wrap is fn for w in WRAPPERS):
            raise ValueError(f"interpreter wrapper {fn.__module__}.{fn.__name__} registered twice")
        WRAPPERS.append(Wrapper(fn, text_marker))
        return fn

    return deco(fn) if fn is not None else deco


def _physical_memory() -> int:
    """This machine's physical memory in bytes (``sysconf``; 2**62 where it does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


#: Results larger than this many bytes are refused (:func:`refuse_oversized`): the machine's physical memory.
MEMORY_LIMIT = _physical_memory()


#: The ops whose results can outgrow their operands (the others' results are the size of an operand, or
#: smaller: what is already in memory), the ones :func:`refuse_oversized` reads the result types of.
GROWING_OPS = frozenset("stablehlo." + n for n in (
    "broadcast_in_dim", "broadcast", "dynamic_broadcast_in_dim", "iota", "dynamic_iota", "constant", "pad",
    "dynamic_pad", "rng", "rng_bit_generator", "dot_general", "dot", "convolution", "concatenate", "gather",
    "dynamic_gather", "torch_index_select", "all_gather", "custom_call", "einsum", "unary_einsum",
    "reduce_window"))


@register_wrapper
def refuse_oversized(op, impl: OpImpl) -> OpImpl:
    """The wrapper that refuses an op of :data:`GROWING_OPS` whose static result types need more bytes than
    :data:`MEMORY_LIMIT`: it then runs an implementation that raises ``MemoryError`` (the executors report a
    located "out of memory") before numpy tries the allocation. Numpy refuses such an allocation itself only
    where the kernel does (Linux's default overcommit heuristic); where the kernel grants any address space
    (``vm.overcommit_memory = 1``, as on a GPU machine this ran on), filling the array got the process killed.
    ``impl`` itself for every other op."""
    if op.operation.name not in GROWING_OPS:
        return impl
    limit = MEMORY_LIMIT
    total = 0
    for result in op.operation.results:
        shaped = result.type  # (the bindings give the type downcast: RankedTensorType for ranked tensors)
        if not isinstance(shaped, ir.RankedTensorType) or not shaped.has_static_shape:
            continue
        count = math.prod(shaped.shape)
        if count > limit >> 5:  # (32 bytes: two results of the widest element, complex<f64>)
            from hlokit.dtypes import dtype_of

            try:
                total += count * dtype_of(shaped.element_type).itemsize  # (numpy's storage: what is allocated)
            except (TypeError, ValueError):
                total += count
    if total <= limit:
        return impl
    def refuse(op, operands, interp):
        raise MemoryError(f"its results need {total / 2**30:.4g} GiB, more than this machine's "
                          f"{limit / 2**30:.4g} GiB of memory")

    return OpImpl(refuse)


def wrappers_for(text: str | None) -> list[Callable[[Any, OpImpl], OpImpl]]:
    """The wrap functions of the :data:`WRAPPERS` a program parsed from ``text`` may need (all of them when
    ``text`` is None)."""
    return [w.wrap for w in WRAPPERS if text is None or w.text_marker is None or w.text_marker in text]


def lookup(name: str) -> OpImpl | None:
    """The implementation of op ``name``, or None."""
    return OPS.get(name)


def impl_of(op, wrappers) -> OpImpl:
    """The implementation of ``op`` (an ``ir.OpView``; :data:`UNSUPPORTED` for a name the table lacks) passed
    through ``wrappers`` (:func:`wrappers_for`)."""
    impl = OPS.get(op.operation.name, UNSUPPORTED)
    for wrap in wrappers:  # e.g. quantized types: dequantize -> op -> quantize
        impl = wrap(op, impl)
    return impl
