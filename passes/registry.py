"""The registry of hlokit's Python passes: the one place a pass is named.

A pass is a subclass of :class:`Pass` decorated with :func:`register_pass`::

    @register_pass
    class LegalizeDotToDotGeneral(PatternPass):
        argument = "stablehlo-legalize-dot-to-dot-general"
        summary = "Rewrite stablehlo.dot as stablehlo.dot_general"
        anchor = "func.func"

        def populate(self, patterns):
            patterns.add(stablehlo.DotOp, rewrite_dot)

``argument`` is the command-line flag (``--stablehlo-legalize-dot-to-dot-general`` and the name inside
``--pass-pipeline``); when it equals an upstream pass's flag, hlokit's pass is the one that runs.
``anchor`` is the op the pass runs on (``func.func``, ``builtin.module``, or ``any``).

Every pass declares what it removes: :attr:`Pass.illegal_ops` (full op names) and
:attr:`Pass.illegal_custom_calls` (``stablehlo.custom_call`` targets), tested by :meth:`Pass.is_illegal`;
what needs a pass, and what must be gone after a pipeline, is derived from these declarations. A
legalization pass is a :class:`~hlokit.passes.template_pass.TemplatePass` (one template per op signature,
every op checked before any rewrite); :class:`PatternPass` runs MLIR rewrite patterns.

Every pass module is named in :data:`PASS_MODULES` and imported by name on first use (no directory
discovery), and every flag it registers in :data:`BUILTIN_PASSES` / :data:`BUILTIN_PIPELINES` (flag -> module):
:func:`get_pass` and :func:`get_pipeline` import only the module of the flag asked for (a one-pass
``hlokit-opt`` run loads one pass module, not all of them), and :func:`pass_names` answers without importing
any; :func:`all_passes` loads them all. A new pass is one module plus its lines there (a test keeps the tables
equal to what the modules register). :func:`register_pass` refuses a second pass under the same ``argument``,
a builtin flag included.
"""

from __future__ import annotations

import dataclasses
import importlib
import shlex
import sys
from typing import Any, Callable, ClassVar, Sequence

from jaxlib.mlir import ir

from hlokit.diagnostics import PassError
from hlokit.jax_private import rewrite as _rewrite

__all__ = [
    "Option",
    "Pass",
    "PatternPass",
    "PASSES",
    "PASS_MODULES",
    "register_pass",
    "get_pass",
    "parse_options",
    "BUILTIN_PASSES",
    "BUILTIN_PIPELINES",
    "load_builtin_passes",
    "load_pass_plugin",
    "pass_names",
]


@dataclasses.dataclass(frozen=True)
class Option:
    """A pass option: ``name``, Python ``type`` (bool, int, float, str), default and help text."""

    name: str
    type: type
    default: Any
    help: str = ""

    def convert(self, text: str) -> Any:
        """Convert the option's text (from ``name=value``) to its type; ValueError when malformed."""
        if self.type is bool:
            if text.lower() in ("1", "true", "on", ""):
                return True
            if text.lower() in ("0", "false", "off"):
                return False
            raise ValueError(f"invalid value '{text}' for boolean option '{self.name}'")
        try:
            return self.type(text)
        except ValueError:
            raise ValueError(
                f"invalid value '{text}' for option '{self.name}' of type {self.type.__name__}"
            ) from None


class Pass:
    """Base class of hlokit's Python passes.

    Subclasses set ``argument``, ``summary``, ``anchor`` and ``options`` and implement
    :meth:`run_on_operation`, which receives one anchor op (e.g. one ``func.func``) and either
    rewrites it or raises :class:`~hlokit.diagnostics.PassError` with the failing op's location.
    A pass must fail before it changes anything (so the IR stays verified) or finish its rewrite. It raises
    outside ``Operation.walk`` callbacks (collect the ops, then check them): the bindings turn an exception
    raised inside a callback into a ``RuntimeError`` that carries a Python traceback as its message.
    """

    argument: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    anchor: ClassVar[str] = "func.func"
    options: ClassVar[tuple[Option, ...]] = ()
    #: Full names of the ops this pass removes (``"stablehlo.cholesky"``): MLIR's ``addIllegalOp`` as data,
    #: read without running the pass (the interpreter's automatic legalizations, ``stablehlo-lower-to-core``,
    #: ``hlokit-run``'s policy). Empty for a pass that removes no op kind (a pure rewrite).
    illegal_ops: ClassVar[frozenset[str]] = frozenset()
    #: ``call_target_name``\ s of the ``stablehlo.custom_call`` ops this pass removes.
    illegal_custom_calls: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, **options: Any):
        known = {o.name: o for o in self.options}
        for name in options:
            if name not in known:
                raise ValueError(f"pass '{self.argument}' has no option '{name}'")
        for opt in self.options:
            setattr(self, opt.name.replace("-", "_"), options.get(opt.name, opt.default))

    @classmethod
    def is_illegal(cls, op: ir.Operation | ir.OpView) -> bool:
        """Whether this pass removes ``op``: its name is in :attr:`illegal_ops`, or it is a
        ``stablehlo.custom_call`` whose ``call_target_name`` is in :attr:`illegal_custom_calls`."""
        name = op.name
        if name in cls.illegal_ops:
            return True
        if name == "stablehlo.custom_call" and cls.illegal_custom_calls:
            attrs = op.attributes
            if "call_target_name" not in attrs or not isinstance(attrs["call_target_name"], ir.StringAttr):
                return False
            return ir.StringAttr(attrs["call_target_name"]).value in cls.illegal_custom_calls
        return False

    def run_on_operation(self, op: ir.Operation) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def run_on_anchors(self, ops: Sequence[ir.Operation]) -> None:
        """Run the pass on every anchor op one pipeline element reaches (e.g. each ``func.func`` of the module
        for ``func.func(name)``), in order: :meth:`run_on_operation` on each. A pass whose rewrite of one
        anchor must not happen when another anchor fails (e.g. it changes function signatures that calls in
        other functions use) overrides this to check every anchor before changing any."""
        for op in ops:
            self.run_on_operation(op)


class PatternPass(Pass):
    """A pass made of rewrite patterns, applied by MLIR's greedy driver or by one walk.

    Subclasses implement :meth:`populate` adding ``(root op, fn)`` patterns to a
    ``RewritePatternSet``; ``fn(op, rewriter)`` returns a falsy value when it rewrote ``op``
    (MLIR's binding convention) and True when it does not match. The frozen set is built once per
    (pass instance, context) and reused for every anchor op. The driver is
    ``apply_patterns_and_fold_greedily`` (``greedy = True``: folds and iterates to a fixpoint) or one
    ``walk_and_apply_patterns`` (``greedy = False``).

    A legalization that must refuse an op before changing anything is a
    :class:`~hlokit.passes.template_pass.TemplatePass` instead (the bindings do not roll back what a
    Python pattern created, so MLIR's dialect conversion could not give that guarantee).
    """

    #: Apply with the greedy driver (fold + iterate to fixpoint) or a single walk.
    greedy: ClassVar[bool] = True

    def populate(self, patterns: _rewrite.RewritePatternSet) -> None:  # pragma: no cover
        raise NotImplementedError

    def _frozen(self, context: ir.Context):
        cache = self.__dict__.setdefault("_frozen_cache", {})
        key = id(context)
        if key not in cache:
            patterns = _rewrite.RewritePatternSet(context)
            self.populate(patterns)
            cache[key] = patterns.freeze()
        return cache[key]

    def run_on_operation(self, op: ir.Operation) -> None:
        frozen = self._frozen(op.context)
        if self.greedy:
            _rewrite.apply_patterns_and_fold_greedily(op, frozen)
        else:
            _rewrite.walk_and_apply_patterns(op, frozen)


#: argument -> pass class, in registration order.
PASSES: dict[str, type[Pass]] = {}


def register_pass(cls: type[Pass]) -> type[Pass]:
    """Class decorator: add a :class:`Pass` subclass to :data:`PASSES` under its ``argument``.

    Raises ValueError when ``argument`` is empty or already registered (by any class)."""
    if not cls.argument:
        raise ValueError(f"{cls.__name__} has no 'argument'")
    builtin = BUILTIN_PASSES.get(cls.argument) or BUILTIN_PIPELINES.get(cls.argument)
    if cls.argument in PASSES or cls.argument in PIPELINES or (builtin and cls.__module__ != builtin):
        first = (PASSES[cls.argument].__name__ if cls.argument in PASSES else
                 "a named pipeline" if cls.argument in PIPELINES else f"builtin {builtin}")
        raise ValueError(f"pass '{cls.argument}' registered twice ({first} and {cls.__name__})")
    PASSES[cls.argument] = cls
    return cls


def _builtin_lookup(registered: dict, builtins: dict[str, str], argument: str):
    """``registered[argument]``, importing the builtin module that registers ``argument`` first (and no other
    module) when it is not registered yet; None for a name neither registered nor builtin."""
    found = registered.get(argument)
    if found is None and argument in builtins:
        importlib.import_module(builtins[argument])
        found = registered.get(argument)
    return found


def get_pass(argument: str) -> type[Pass] | None:
    """The registered Python pass named ``argument``, or None (a builtin pass's module is imported first, and
    no other: :data:`BUILTIN_PASSES`)."""
    return _builtin_lookup(PASSES, BUILTIN_PASSES, argument)


def parse_options(cls: type[Pass], text: str) -> dict[str, Any]:
    """Parse ``opt1=v1 opt2=v2`` (MLIR's pass-option syntax inside ``{}``) for pass ``cls``."""
    known = {o.name: o for o in cls.options}
    out: dict[str, Any] = {}
    for item in shlex.split(text or ""):
        name, _, value = item.partition("=")
        if name not in known:
            raise ValueError(f"no such option '{name}' for pass '{cls.argument}'")
        out[name] = known[name].convert(value)
    return out


@dataclasses.dataclass(frozen=True)
class PassPipeline:
    """A named pipeline (MLIR's ``PassPipelineRegistration``): one flag that stands for a sequence of
    passes, e.g. ``stablehlo-lower-to-core``.

    ``text`` is the body in MLIR's textual pipeline syntax, relative to the anchor the flag appears at
    (``"chlo-legalize-to-stablehlo,func.func(canonicalize),cse"``); Python and upstream passes mix as in
    any pipeline. A named pipeline takes no options."""

    argument: str
    summary: str
    text: str


#: argument -> named pipeline, in registration order.
PIPELINES: dict[str, PassPipeline] = {}


def register_pipeline(argument: str, summary: str, text: str) -> PassPipeline:
    """Register the named pipeline ``argument`` (valid as ``--argument`` and inside ``--pass-pipeline``).

    Raises ValueError when the name is empty or already names a pass or a pipeline."""
    if not argument:
        raise ValueError("a pipeline needs a name")
    builtin = BUILTIN_PASSES.get(argument) or BUILTIN_PIPELINES.get(argument)
    if argument in PIPELINES or argument in PASSES or (builtin and builtin != _caller_module()):
        raise ValueError(f"pipeline '{argument}' registered twice (the name is already taken)")
    pipeline = PassPipeline(argument, summary, text)
    PIPELINES[argument] = pipeline
    return pipeline


def get_pipeline(argument: str) -> PassPipeline | None:
    """The registered named pipeline ``argument``, or None (a builtin pipeline's module is imported first, and
    no other: :data:`BUILTIN_PIPELINES`)."""
    return _builtin_lookup(PIPELINES, BUILTIN_PIPELINES, argument)


def all_pipelines() -> dict[str, PassPipeline]:
    """Every registered named pipeline (argument -> :class:`PassPipeline`), builtin ones loaded."""
    load_builtin_passes()
    return dict(PIPELINES)


#: Every module of hlokit that defines passes, imported by name (each registers its passes).
PASS_MODULES: tuple[str, ...] = (
    "hlokit.passes.chlo_legalize_to_stablehlo",
    "hlokit.passes.stablehlo_legalize_dot_to_dot_general",
    "hlokit.passes.stablehlo_legalize_deprecated_ops",
    "hlokit.passes.stablehlo_legalize_lapack_custom_calls",
    "hlokit.passes.stablehlo_legalize_tpu_custom_calls",
    "hlokit.passes.stablehlo_legalize_gpu_custom_calls",
    "hlokit.passes.shape_legalize_to_stablehlo",
    "hlokit.passes.stablehlo_expand_cholesky",
    "hlokit.passes.stablehlo_expand_triangular_solve",
    "hlokit.passes.stablehlo_expand_rng_bit_generator",
    "hlokit.passes.stablehlo_expand_rng",
    "hlokit.passes.stablehlo_expand_batch_norm",
    "hlokit.passes.stablehlo_legalize_quant_to_math",
    "hlokit.passes.stablehlo_lower_to_core",
)

_P = "hlokit.passes."

#: Every builtin pass flag -> the module of :data:`PASS_MODULES` that registers it, in the order a full load
#: registers them (:func:`all_passes` lists them in this order). ``tests/pytest/test_opt_startup.py`` checks that
#: it equals what the modules register.
BUILTIN_PASSES: dict[str, str] = {
    "chlo-legalize-to-stablehlo": _P + "chlo_legalize_to_stablehlo",
    "stablehlo-legalize-dot-to-dot-general": _P + "stablehlo_legalize_dot_to_dot_general",
    "stablehlo-legalize-deprecated-ops": _P + "stablehlo_legalize_deprecated_ops",
    "stablehlo-legalize-lapack-custom-calls": _P + "stablehlo_legalize_lapack_custom_calls",
    "stablehlo-legalize-tpu-custom-calls": _P + "stablehlo_legalize_tpu_custom_calls",
    "stablehlo-legalize-tpu-only-custom-calls": _P + "stablehlo_legalize_tpu_custom_calls",
    "stablehlo-expand-rng-bit-generator": _P + "stablehlo_expand_rng_bit_generator",
    "stablehlo-legalize-cuda-custom-calls": _P + "stablehlo_legalize_gpu_custom_calls",
    "stablehlo-legalize-rocm-custom-calls": _P + "stablehlo_legalize_gpu_custom_calls",
    "shape-legalize-to-stablehlo": _P + "shape_legalize_to_stablehlo",
    "stablehlo-expand-cholesky": _P + "stablehlo_expand_cholesky",
    "stablehlo-expand-triangular-solve": _P + "stablehlo_expand_triangular_solve",
    "stablehlo-expand-rng": _P + "stablehlo_expand_rng",
    "stablehlo-expand-batch-norm": _P + "stablehlo_expand_batch_norm",
    "stablehlo-legalize-quant-to-math": _P + "stablehlo_legalize_quant_to_math",
}

#: Every builtin named pipeline -> the module of :data:`PASS_MODULES` that registers it (as
#: :data:`BUILTIN_PASSES`).
BUILTIN_PIPELINES: dict[str, str] = {
    "stablehlo-lower-to-core": _P + "stablehlo_lower_to_core",
}

_LOADED = False


def _caller_module() -> str:
    """``__name__`` of the module that called the caller of this function (who registers a pipeline)."""
    return sys._getframe(2).f_globals.get("__name__", "")


def load_builtin_passes() -> None:
    """Import every module of :data:`PASS_MODULES` once (each registers itself); a missing module
    raises ImportError. :data:`PASSES` and :data:`PIPELINES` are then in the order of :data:`BUILTIN_PASSES` and
    :data:`BUILTIN_PIPELINES`, other passes (plugins', tests') after them in registration order, as if every
    module had been imported before any pass was asked for."""
    global _LOADED
    if _LOADED:
        return
    for name in PASS_MODULES:
        importlib.import_module(name)
    for table, builtin in ((PASSES, BUILTIN_PASSES), (PIPELINES, BUILTIN_PIPELINES)):
        ordered = {a: table[a] for a in builtin if a in table}
        ordered.update((a, v) for a, v in table.items() if a not in ordered)
        table.clear()
        table.update(ordered)
    _LOADED = True


def pass_names() -> list[str]:
    """The flags of every Python pass (builtin ones from :data:`BUILTIN_PASSES`, then the other registered ones),
    in :func:`all_passes`' order, importing no pass module (e.g. to check ``--mlir-print-ir-before=`` names)."""
    return [*BUILTIN_PASSES, *(a for a in PASSES if a not in BUILTIN_PASSES)]


#: The plugin loader, :func:`hlokit.passes.plugins.load_pass_plugin`, registered when that module is imported
#: (:func:`load_pass_plugin` imports it by name when needed), so that this module imports no module that imports it.
_PLUGIN_LOADER: Callable[[str], list[str]] | None = None


def register_plugin_loader(loader: Callable[[str], list[str]]) -> None:
    """Make ``loader`` the function :func:`load_pass_plugin` calls (done by :mod:`hlokit.passes.plugins`)."""
    global _PLUGIN_LOADER
    _PLUGIN_LOADER = loader


def load_pass_plugin(source: str) -> list[str]:
    """Load a user's pass plugin (a ``.py`` file or a module name) and return the names of the passes it
    registered; :func:`hlokit.passes.plugins.load_pass_plugin` (rules, and the PluginError it raises)."""
    if _PLUGIN_LOADER is None:  # (imported by name: hlokit.passes.plugins imports this module)
        importlib.import_module("hlokit.passes.plugins")
    return _PLUGIN_LOADER(source)


def all_passes() -> dict[str, type[Pass]]:
    """Every registered Python pass (argument -> class), builtin ones loaded."""
    load_builtin_passes()
    return dict(PASSES)


Rewrite = Callable[[ir.Operation, Any], Any]


def fail(message: str, op: ir.Operation | ir.OpView) -> PassError:
    """Make the :class:`PassError` a pass raises for ``op`` (located at the op)."""
    return PassError(message, op.location)
