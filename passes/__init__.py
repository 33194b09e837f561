"""hlokit's passes, written in Python, and the pipeline machinery that runs them with upstream passes.

* :mod:`hlokit.passes.registry` — :class:`Pass` (with the ops it declares illegal: ``illegal_ops``,
  ``illegal_custom_calls``, ``is_illegal``), :class:`PatternPass`, :func:`register_pass`, and named
  pipelines (:func:`register_pipeline`, e.g. ``stablehlo-lower-to-core``).
* :mod:`hlokit.passes.template_pass` — :class:`~hlokit.passes.template_pass.TemplatePass`, the base of
  the legalization passes (find, check every op, build one template per signature, then rewrite).
* :mod:`hlokit.passes.plugins` — :func:`load_pass_plugin`: a user's file or module of passes
  (``hlokit-opt --load-pass-plugin``).
* :mod:`hlokit.passes.pipeline` — textual pipelines mixing Python and C++ passes in one PassManager.
* :mod:`hlokit.passes.builder` — the IR-building layer every pass uses (``Emitter``, ``V``).
* :mod:`hlokit.passes.chlo` — CHLO lowerings (one ``build_<op>`` per op, indexed by ``chlo.table``) and
  ``find_chlo_ops``, a walker that lists CHLO ops.
* :mod:`hlokit.passes.prepare` — :func:`hlokit.prepare`: the passes an engine needs, derived from what the passes
  declare illegal; :func:`register_engine` (here: an engine says which ops it runs itself without loading it).
* one module per pass flag (``stablehlo_legalize_dot_to_dot_general.py`` for
  ``--stablehlo-legalize-dot-to-dot-general``, ...), listed in ``registry.PASS_MODULES``.
"""

import importlib
from typing import Collection

#: Where each public name of the package lives: it is imported on first use (PEP 562 ``__getattr__``), so that
#: ``import hlokit.passes.refine`` or the interpreter's :func:`register_engine` do not load the pipeline runner,
#: the plugin loader and the registry (about 4 ms; issue 40, item 5).
_LAZY = {
    "PipelineElement": "pipeline",
    "PipelineError": "pipeline",
    "build_pass_manager": "pipeline",
    "parse_pipeline": "pipeline",
    "run_pass_manager": "pipeline",
    "run_pipeline": "pipeline",
    "load_pass_plugin": "plugins",
    "Option": "registry",
    "Pass": "registry",
    "PassPipeline": "registry",
    "PatternPass": "registry",
    "all_passes": "registry",
    "all_pipelines": "registry",
    "fail": "registry",
    "get_pass": "registry",
    "get_pipeline": "registry",
    "register_pass": "registry",
    "register_pipeline": "registry",
}


def __getattr__(name):
    """The names of :data:`_LAZY` (imported from their module on first use) and the package's submodules."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"hlokit.passes.{module}"), name)
        globals()[name] = value  # later reads skip this function
        return value
    if name.startswith("_"):
        raise AttributeError(f"module 'hlokit.passes' has no attribute '{name}'")
    try:
        return importlib.import_module(f"hlokit.passes.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"hlokit.passes.{name}":
            raise
    raise AttributeError(f"module 'hlokit.passes' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


#: The engines a program is prepared for (:mod:`hlokit.passes.prepare`): XLA (:mod:`hlokit.backend`) and hlokit's
#: reference interpreter.
ENGINES: tuple[str, ...] = ("xla", "interpreter")

#: engine -> (op names, custom-call targets) it runs itself: see :func:`register_engine`.
ENGINE_KERNELS: dict[str, tuple[Collection[str], Collection[str]]] = {}


def register_engine(engine: str, ops: Collection[str], custom_calls: Collection[str] = ()) -> None:
    """Say which ops ``engine`` (one of :data:`ENGINES`) runs itself: ``ops`` (full op names) and
    ``custom_calls`` (``stablehlo.custom_call`` targets), live collections read at each use (an op table
    that grows is seen). A ``NO_KERNEL`` rule of :data:`hlokit.passes.prepare.POLICY` for an engine that has not
    registered raises ``ValueError`` at use. Raises ``ValueError`` for an unknown engine. (Kept here, in the
    package, so that an engine registers at its import without loading :mod:`hlokit.passes.prepare`;
    :func:`hlokit.passes.prepare.register_engine` is this function.)"""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine '{engine}' (engines: {', '.join(ENGINES)})")
    ENGINE_KERNELS[engine] = (ops, custom_calls)


__all__ = [
    "ENGINES",
    "ENGINE_KERNELS",
    "Option",
    "Pass",
    "PassPipeline",
    "PatternPass",
    "PipelineElement",
    "PipelineError",
    "all_passes",
    "all_pipelines",
    "build_pass_manager",
    "fail",
    "get_pass",
    "get_pipeline",
    "load_pass_plugin",
    "parse_pipeline",
    "register_engine",
    "register_pass",
    "register_pipeline",
    "run_pass_manager",
    "run_pipeline",
]
