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
"""

from __future__ import annotations

import dataclasses
import shlex
from typing import Any, Callable, ClassVar

from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs._mlir import rewrite as _rewrite

from hlokit.diagnostics import PassError

__all__ = [
    "Option",
    "Pass",
    "PatternPass",
    "PASSES",
    "register_pass",
    "get_pass",
    "parse_options",
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
    A pass must fail before it changes anything (so the IR stays verified) or finish its rewrite.
    """

    argument: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    anchor: ClassVar[str] = "func.func"
    options: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, **options: Any):
        known = {o.name: o for o in self.options}
        for name in options:
            if name not in known:
                raise ValueError(f"pass '{self.argument}' has no option '{name}'")
        for opt in self.options:
            setattr(self, opt.name.replace("-", "_"), options.get(opt.name, opt.default))

    def run_on_operation(self, op: ir.Operation) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def describe_options(cls) -> str:
        return " ".join(f"{o.name}={o.default}" for o in cls.options)


class PatternPass(Pass):
    """A pass made of rewrite patterns applied by MLIR's greedy driver.

    Subclasses implement :meth:`populate` adding ``(root op, fn)`` patterns to a
    ``RewritePatternSet``; ``fn(op, rewriter)`` returns a falsy value when it rewrote ``op``
    (MLIR's binding convention) and True when it does not match. The frozen set is built once per
    (pass instance, context) and reused for every anchor op.
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
    """Class decorator: add a :class:`Pass` subclass to :data:`PASSES` under its ``argument``."""
    if not cls.argument:
        raise ValueError(f"{cls.__name__} has no 'argument'")
    if cls.argument in PASSES and PASSES[cls.argument] is not cls:
        raise ValueError(f"pass '{cls.argument}' registered twice")
    PASSES[cls.argument] = cls
    return cls


def get_pass(argument: str) -> type[Pass] | None:
    """The registered Python pass named ``argument``, or None."""
    _load_builtin_passes()
    return PASSES.get(argument)


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


_LOADED = False


def _load_builtin_passes() -> None:
    """Import every pass module of hlokit once (each registers itself)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib
    import pkgutil

    import hlokit.passes as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name not in ("registry", "pipeline"):
            importlib.import_module(f"hlokit.passes.{info.name}")


def all_passes() -> dict[str, type[Pass]]:
    """Every registered Python pass (argument -> class), builtin ones loaded."""
    _load_builtin_passes()
    return dict(PASSES)


Rewrite = Callable[[ir.Operation, Any], Any]


def fail(message: str, op: ir.Operation | ir.OpView) -> PassError:
    """Make the :class:`PassError` a pass raises for ``op`` (located at the op)."""
    return PassError(message, op.location)
