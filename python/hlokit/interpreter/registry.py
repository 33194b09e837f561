"""The op table of the hlokit interpreter: one adapter per op name.

The split into an op table and pure semantics functions follows the interpreter design document
(https://github.com/openxla/stablehlo/blob/main/docs/interpreter.md); this module is the table.

An *adapter* unpacks one MLIR op and calls the op's pure semantics function::

    @register("stablehlo.clamp")
    def _clamp(op: ir.OpView, operands: list[Value], interp: Interpreter) -> list[Value]:
        return [clamp(*operands)]

* ``op`` is the MLIR op (an ``ir.OpView``); ``operands`` are the runtime values of its operands
  (see :mod:`hlokit.interpreter.values`); ``interp`` is the running
  :class:`~hlokit.interpreter.evaluator.Interpreter` (for regions: ``interp.eval_region``, calls:
  ``interp.call``). The adapter returns the result values in order.
* Semantics functions (named after the spec op, taking the spec's operands and attributes as plain
  arrays / Python values) live beside the adapters in the family modules (``elementwise``,
  ``data_movement``, ``reduce``, ``linalg``, ``convolution``, ``fft``, ``control_flow``, ...; see
  :mod:`hlokit.interpreter`); they know nothing about MLIR.
* ``stablehlo.custom_call`` is dispatched on its ``call_target_name`` through
  :data:`CUSTOM_CALLS` (decorator :func:`register_custom_call`); the check forms
  (``@check.expect_*``) live in :mod:`hlokit.dialects.check`; any other target raises
  "unsupported custom_call @name".
* An adapter may carry a ``prepare(op) -> adapter`` attribute (decorator :func:`prepared`): the
  walker calls it once per op when it compiles a block and runs the returned adapter (which has the
  same signature) every time the op executes, so attributes are read once, not once per iteration.
* A prepared adapter of an op without operands may carry ``folded``, its results computed by ``prepare``
  (``constant``): the planner keeps them as plan-time constants and never runs the op.
* An adapter of a one-result op may carry a ``kernel(*operands) -> value`` attribute (made by
  :func:`with_kernel`): the same computation without the op, the interpreter and the lists; the walker calls
  it directly (the adapter itself stays the reference). A kernel may carry ``specialize(*operands) -> function
  | None``: for the runtime values of one call, a function that computes the kernel's result for every call
  whose operands have the same element types and ranks (an op's types are static: every call of the op), with
  no dispatch of its own; the walker runs it in place of the kernel from the step's second call on.
* An adapter whose op's regions read nothing but their own block arguments (e.g. a ``reduce`` whose body is
  one ``add`` of its arguments) may say so with ``isolated_regions = True``: the planner then does not plan
  those regions to learn which enclosing values they capture (they are planned if and when they run).
* Adapters raise :class:`~hlokit.interpreter.evaluator.InterpreterError` (the walker adds the op's
  location when the error has none) for runtime errors the spec defines.

Adapters read op attributes with :mod:`hlokit.attributes` (the one attribute reader of hlokit).
Registration is explicit: a family module decorates its adapters, and :mod:`hlokit.interpreter` imports
every family module by name; a second adapter for a name raises ``ValueError`` at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from jaxlib.mlir import ir

if TYPE_CHECKING:  # pragma: no cover
    from hlokit.interpreter.evaluator import Interpreter
    from hlokit.interpreter.values import Value

__all__ = [
    "OPS",
    "CUSTOM_CALLS",
    "Adapter",
    "register",
    "register_custom_call",
    "prepared",
    "with_kernel",
    "lookup",
    "WRAPPERS",
    "register_wrapper",
]

Adapter = Callable[["ir.OpView", list, "Interpreter"], list]

#: op name (e.g. ``"stablehlo.add"``) -> adapter.
OPS: dict[str, Adapter] = {}

#: ``stablehlo.custom_call`` target name (e.g. ``"check.expect_close"``) -> adapter.
CUSTOM_CALLS: dict[str, Adapter] = {}


def register(*names: str) -> Callable[[Adapter], Adapter]:
    """Decorator: make the function the adapter of the op(s) ``names``.

    Raises ``ValueError`` when a name already has an adapter (two families must not both claim an op).
    """

    def deco(fn: Adapter) -> Adapter:
        for name in names:
            if name in OPS and OPS[name] is not fn:
                raise ValueError(f"interpreter op '{name}' registered twice ({OPS[name].__module__} and {fn.__module__})")
            OPS[name] = fn
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


def prepared(prepare: Callable[["ir.OpView"], Adapter]) -> Callable[[Adapter], Adapter]:
    """Decorator: attach ``prepare`` (op -> specialized adapter) to an adapter (see module doc)."""

    def deco(fn: Adapter) -> Adapter:
        fn.prepare = prepare  # type: ignore[attr-defined]
        return fn

    return deco


def with_kernel(kernel: Callable[..., "Value"], name: str | None = None) -> Adapter:
    """The adapter ``(op, operands, interp) -> [kernel(*operands)]`` of a one-result op, carrying ``kernel``
    (see module doc): ``kernel`` takes the operands' runtime values and returns the one result."""

    def adapter(op, operands, interp):
        return [kernel(*operands)]

    adapter.kernel = kernel  # type: ignore[attr-defined]
    adapter.__module__ = kernel.__module__  # (the family module that made it, as for any other adapter)
    if name:
        adapter.__name__ = adapter.__qualname__ = name
    return adapter


#: Plan-time wrappers ``(op, adapter) -> adapter`` (decorator :func:`register_wrapper`): the walker passes
#: every op it compiles through each, before ``prepare``; a wrapper returns ``adapter`` itself for the ops it
#: leaves alone (:mod:`~hlokit.interpreter.quantization` wraps ops on quantized tensors).
WRAPPERS: list[Callable[["ir.OpView", Adapter], Adapter]] = []


def register_wrapper(fn=None, *, text_marker: str | None = None):
    """Decorator (bare, or called with ``text_marker``): add a plan-time adapter wrapper to :data:`WRAPPERS`;
    ``ValueError`` when added twice. ``text_marker``: a string that the text of every program the wrapper
    changes contains (``"!quant."`` for quantized types): the planner skips the wrapper for programs parsed
    from text without it (:func:`wrappers_for`)."""

    def deco(fn):
        if fn in WRAPPERS:
            raise ValueError(f"interpreter wrapper {fn.__module__}.{fn.__name__} registered twice")
        fn.text_marker = text_marker
        WRAPPERS.append(fn)
        return fn

    return deco(fn) if fn is not None else deco


def wrappers_for(text: str | None) -> list:
    """The :data:`WRAPPERS` a program parsed from ``text`` may need (all of them when ``text`` is None)."""
    if text is None:
        return list(WRAPPERS)
    return [w for w in WRAPPERS if getattr(w, "text_marker", None) is None or w.text_marker in text]


def lookup(name: str) -> Adapter | None:
    """The adapter of op ``name``, or None."""
    return OPS.get(name)
