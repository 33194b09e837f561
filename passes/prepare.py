"""``hlokit.prepare``: bring a parsed program to what one engine runs, and say what was done.

An engine does not run every op a program may carry: hlokit's reference interpreter has no kernel for
CHLO, jaxlib's ``lapack_*`` custom calls, the deprecated ops, shape computations or batch norm; XLA cannot
compile quantized element types, and jaxlib's LAPACK kernels exist only for XLA CPU. :func:`prepare` runs
the hlokit passes that remove what the engine cannot run, only when the program has it, and returns a
:class:`Prepared`: the module and one :class:`Action` per pass run, with the reason.

What a pass removes is what it declares (:attr:`hlokit.passes.registry.Pass.illegal_ops` and
:attr:`~hlokit.passes.registry.Pass.illegal_custom_calls`); which engine needs which pass, on which
platform, is the data of :data:`POLICY`. The interpreter's legalizations are the passes of
``stablehlo-lower-to-core`` (:mod:`hlokit.passes.stablehlo_lower_to_core`) for the declared ops it has no
kernel for: an engine says which ops it runs itself with :func:`register_engine` (the interpreter does so
when :mod:`hlokit.interpreter` is imported; the function lives in the ``hlokit.passes`` package, so registering
loads neither this module nor the pass registry).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Sequence

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.core import parse
from hlokit.diagnostics import location_position
from hlokit.passes.pipeline import parse_pipeline, run_pipeline
from hlokit.passes import ENGINE_KERNELS as _KERNELS  # (engine -> the ops it runs itself: register_engine)
from hlokit.passes import ENGINES, register_engine  # (re-exported: kept in the package, see register_engine)
from hlokit.passes import registry
from hlokit.passes.registry import Pass, get_pass, get_pipeline
from hlokit.passes.refine import dynamic_arguments, refine_arguments  # (re-exported: the interpreter's way in)

__all__ = [
    "ENGINES",
    "POLICY",
    "Rule",
    "Legalization",
    "Action",
    "Prepared",
    "prepare",
    "plan",
    "survey",
    "legalizations",
    "register_engine",
    "reset",
    "pipeline_passes",
    "index",
    "dynamic_arguments",
    "refine_arguments",
]

#: Conditions of a :class:`Rule`: an op its pass declares illegal is present (``DECLARED``); such an op that
#: the engine has no kernel for is present (``NO_KERNEL``); a quantized element type is present (``QUANTIZED``).
DECLARED = "declared"
NO_KERNEL = "no-kernel"
QUANTIZED = "quantized"


@dataclasses.dataclass(frozen=True)
class Rule:
    """One row of :data:`POLICY`: for ``engine`` on ``platform``, run the passes ``flag`` names when
    ``condition`` holds, because ``reason``.

    ``flag``: a registered pass, or a named pipeline standing for each of its Python passes in order (its
    upstream passes, e.g. ``canonicalize``, are not legalizations and are skipped). ``platform``: ``"*"``
    (every platform), a platform name, or ``"!name"`` (every platform but that one)."""

    engine: str
    flag: str
    condition: str
    reason: str
    platform: str = "*"

    def applies(self, engine: str, platform: str) -> bool:
        """Whether this row is one for ``engine`` on ``platform``."""
        if engine != self.engine:
            return False
        if self.platform == "*":
            return True
        if self.platform.startswith("!"):
            return platform != self.platform[1:]
        return platform == self.platform


#: Which engine needs which pass, where, and why, in the order the passes run. jaxlib registers its LAPACK
#: kernels (the ``lapack_*_ffi`` custom-call targets ``jnp.linalg`` emits) with XLA's CPU client only; XLA
#: compiles no ``!quant.uniform`` element type (StableHLO spec, "Types": quantized types are StableHLO's own).
POLICY: tuple[Rule, ...] = (
    Rule("interpreter", "stablehlo-lower-to-core", NO_KERNEL, "the interpreter has no kernel for these ops"),
    Rule("xla", "stablehlo-legalize-lapack-custom-calls", DECLARED, "jaxlib's LAPACK kernels run only on XLA CPU",
         platform="!cpu"),
    Rule("xla", "stablehlo-legalize-cuda-custom-calls", DECLARED,
         "jaxlib's cuSOLVER / cuSPARSE (and own CUDA) kernels run only on XLA CUDA", platform="!cuda"),
    Rule("xla", "stablehlo-legalize-rocm-custom-calls", DECLARED,
         "jaxlib's hipSOLVER / hipSPARSE (and own HIP) kernels run only on XLA ROCm", platform="!rocm"),
    Rule("xla", "stablehlo-legalize-tpu-only-custom-calls", DECLARED,
         "XLA expands TPU's LuDecomposition only on TPU", platform="!tpu"),
    Rule("xla", "stablehlo-legalize-quant-to-math", QUANTIZED, "XLA cannot compile quantized types"),
)


#: Options an engine runs a pass with, ``(engine, flag) -> option text``. The interpreter evaluates CHLO's
#: special functions through f64 (``precision=wide``): numpy is as fast in f64 as in f32, the f64 kernels
#: are smaller (a 4-layer transformer's erfc: 0.29 s against 0.56 s per call) and correctly rounded, and
#: the interpreter is the reference. Programs prepared for XLA keep the default (f32 arithmetic).
ENGINE_PASS_OPTIONS: dict[tuple[str, str], str] = {("interpreter", "chlo-legalize-to-stablehlo"): "precision=wide"}


def _pipeline_element(engine: str, flag: str) -> str:
    """``flag`` as a pipeline element for ``engine``, with its :data:`ENGINE_PASS_OPTIONS` (``flag{...}``)."""
    options = ENGINE_PASS_OPTIONS.get((engine, flag))
    return f"{flag}{{{options}}}" if options else flag


@dataclasses.dataclass(frozen=True)
class Legalization:
    """One pass an engine needs on a platform (a :class:`Rule` resolved against the pass's declarations):
    run ``flag`` when the program has an op named in ``ops``, a ``stablehlo.custom_call`` whose target is in
    ``custom_calls``, or (``quantized``) a quantized element type."""

    flag: str
    reason: str
    ops: frozenset[str] = frozenset()
    custom_calls: frozenset[str] = frozenset()
    quantized: bool = False


@dataclasses.dataclass(frozen=True)
class Action:
    """One pass that :func:`prepare` runs: its ``flag``, the ``reason``, and ``ops``, the names of the ops
    that made it run in walk order (a custom call by its target; empty for a type condition)."""

    flag: str
    reason: str
    ops: tuple[str, ...] = ()

    def __str__(self) -> str:
        """``flag: reason (the distinct ops found, sorted)``."""
        found = sorted(set(self.ops))
        return f"{self.flag}: {self.reason}" + (f" ({', '.join(found)})" if found else "")


@dataclasses.dataclass
class Prepared:
    """What :func:`prepare` gives: ``module``, the program ``engine`` runs on ``platform``; ``actions``, the
    passes run on it in order (empty: the program was runnable as it was); ``copied``: ``module`` is a new
    module (the input is unchanged) rather than the input prepared in place."""

    module: ir.Module
    engine: str
    platform: str
    actions: list[Action]
    copied: bool = False

    @property
    def flags(self) -> list[str]:
        """The flags of :attr:`actions`, in the order they ran."""
        return [a.flag for a in self.actions]

    def action(self, flag: str) -> Action | None:
        """The action that ran ``flag``, or None."""
        for a in self.actions:
            if a.flag == flag:
                return a
        return None


def pipeline_passes(flag: str) -> list[type[Pass]]:
    """The Python pass classes ``flag`` runs, in order: the pass itself, or the Python passes of the named
    pipeline ``flag`` (upstream passes skipped). Raises ``ValueError`` for a flag that is neither."""
    cls = get_pass(flag)
    if cls is not None:
        return [cls]
    pipeline = get_pipeline(flag)
    if pipeline is None:
        raise ValueError(f"'{flag}' is neither a registered pass nor a named pipeline")
    out: list[type[Pass]] = []

    def collect(elements):
        for el in elements:
            if el.children is not None:
                collect(el.children)
            elif get_pass(el.name) is not None:
                out.append(get_pass(el.name))
            elif get_pipeline(el.name) is not None:
                out.extend(pipeline_passes(el.name))

    collect(parse_pipeline(pipeline.text))
    return out


def legalizations(engine: str, platform: str = "cpu") -> tuple[Legalization, ...]:
    """The passes ``engine`` may need on ``platform``, in the order they run, each with the ops that make it
    run (:data:`POLICY` resolved against the passes' declarations; a pass with nothing left to trigger it,
    e.g. one whose every op the interpreter runs itself, is left out). Raises ``ValueError`` for an unknown
    engine or a ``NO_KERNEL`` rule of an engine that has not called :func:`register_engine`."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine '{engine}' (engines: {', '.join(ENGINES)})")
    kernels = _KERNELS.get(engine)
    # (the key follows what the answer depends on: the registered passes and the engine's op table)
    key = (engine, platform, id(kernels), len(registry.PASSES)) + ((len(kernels[0]), len(kernels[1])) if kernels else ())
    return _legalizations(key, engine, platform)


def reset() -> None:
    """Forget the resolved :func:`legalizations`: call it after changing a pass's declarations, a named
    pipeline or :data:`POLICY` at run time (tests do; the answer is otherwise kept per registry size and
    engine op-table size)."""
    _legalizations.cache_clear()


@functools.lru_cache(maxsize=64)
def _legalizations(key: tuple, engine: str, platform: str) -> tuple[Legalization, ...]:
    out: list[Legalization] = []
    for rule in POLICY:
        if not rule.applies(engine, platform):
            continue
        if rule.condition == QUANTIZED:
            out.append(Legalization(rule.flag, rule.reason, quantized=True))
            continue
        if rule.condition == NO_KERNEL:
            if engine not in _KERNELS:
                raise ValueError(f"engine '{engine}' has not said which ops it runs (register_engine)")
            ops_run, calls_run = _KERNELS[engine]
        elif rule.condition == DECLARED:
            ops_run, calls_run = (), ()
        else:
            raise ValueError(f"unknown condition '{rule.condition}' in the policy row of '{rule.flag}'")
        for cls in pipeline_passes(rule.flag):
            ops = frozenset(n for n in cls.illegal_ops if n not in ops_run)
            calls = frozenset(t for t in cls.illegal_custom_calls if t not in calls_run)
            if ops or calls:
                out.append(Legalization(cls.argument, rule.reason, ops, calls))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def index(legs: tuple[Legalization, ...]) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """The lookup tables of ``legs`` (kept per tuple; do not change them): op name -> the flags it triggers,
    custom-call target -> the flag it triggers."""
    by_name: dict[str, tuple[str, ...]] = {}
    by_target: dict[str, str] = {}
    for leg in legs:
        for name in leg.ops:
            by_name[name] = by_name.get(name, ()) + (leg.flag,)
        for target in leg.custom_calls:
            by_target.setdefault(target, leg.flag)
    return by_name, by_target


def survey(
    module: ir.Module | ir.Operation,
    legs: Sequence[Legalization],
    *,
    first_of_name: Callable[[ir.Operation], None] | None = None,
) -> list[Action]:
    """The actions of ``legs`` that ``module`` needs, in their order: one walk of the module (a second, which
    stops at the first hit, for a ``quantized`` one). ``first_of_name(op)`` is called on the first op of
    each name (a caller's own check in the same walk; it must not raise: the bindings turn an exception
    inside a walk into a traceback)."""
    legs = tuple(legs)
    by_name, by_target = index(legs)
    found: dict[str, list[str]] = {}
    seen: set[str] = set()

    def visit(op):
        name = op.name
        if name not in seen:
            seen.add(name)
            if first_of_name is not None:
                first_of_name(op)
        flags = by_name.get(name)
        if flags is not None:
            for flag in flags:
                found.setdefault(flag, []).append(name)
        if by_target and name == "stablehlo.custom_call":
            target = attributes.str_value(op, "call_target_name", "")
            flag = by_target.get(target)
            if flag is not None:
                found.setdefault(flag, []).append(target)
        return ir.WalkResult.ADVANCE

    root = module.operation
    if by_name or by_target or first_of_name is not None:
        root.walk(visit)
    actions = []
    for leg in legs:
        if leg.quantized:
            # (imported here: the pass module, and its builder, load only for an engine with a quantized rule)
            from hlokit.passes.stablehlo_legalize_quant_to_math import has_quantized_types

            if has_quantized_types(root):
                actions.append(Action(leg.flag, leg.reason))
        elif leg.flag in found:
            actions.append(Action(leg.flag, leg.reason, tuple(found[leg.flag])))
    return actions


def plan(module: ir.Module, *, engine: str = "xla", platform: str = "cpu") -> list[Action]:
    """What :func:`prepare` would do to ``module`` for ``engine`` on ``platform``, without doing it."""
    return survey(module, legalizations(engine, platform))


def prepare(
    module: ir.Module,
    *,
    engine: str = "xla",
    platform: str = "cpu",
    copy: bool = False,
    source_name: str | None = None,
    actions: Sequence[Action] | None = None,
) -> Prepared:
    """Turn the parsed program ``module`` into one that ``engine`` (``"xla"`` or ``"interpreter"``) runs on
    ``platform`` (``"cpu"``, ``"cuda"``, ``"rocm"``, ``"tpu"``): run, in one pipeline, the passes of
    :data:`POLICY` whose condition the program meets (:func:`plan`; ``actions``: that plan, when the caller
    has it already).

    In place by default; with ``copy``, on a copy made when there is something to do (the input then stays
    as it was; :attr:`Prepared.copied` says which). Ops of dialects the context does not register but
    the parse accepted (the interpreter's ``check`` ops) stay accepted while the passes run.

    Raises :class:`hlokit.diagnostics.PassError` (located at the op) when a pass refuses an op: the module
    is then unchanged (a pass fails before it changes anything); ``ValueError`` for an unknown engine."""
    if actions is None:
        actions = plan(module, engine=engine, platform=platform)
    actions = list(actions)
    copied = False
    if actions:
        name = source_name or location_position(module.operation.location)[0] or "-"
        ctx = module.context
        saved = ctx.allow_unregistered_dialects
        ctx.allow_unregistered_dialects = True
        try:
            if copy:  # (printed with its locations: errors and results name the input's lines)
                module = parse(module.operation.get_asm(enable_debug_info=True), context=ctx, source_name=name)
                copied = True
            elements = ",".join(_pipeline_element(engine, a.flag) for a in actions)
            run_pipeline(module, f"builtin.module({elements})", source_name=name)
        finally:
            ctx.allow_unregistered_dialects = saved
    return Prepared(module, engine, platform, actions, copied)
