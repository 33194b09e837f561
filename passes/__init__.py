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
  declare illegal.
* one module per pass flag (``stablehlo_legalize_dot_to_dot_general.py`` for
  ``--stablehlo-legalize-dot-to-dot-general``, ...), listed in ``registry.PASS_MODULES``.
"""

from hlokit.passes.pipeline import (
    PipelineElement,
    PipelineError,
    build_pass_manager,
    parse_pipeline,
    run_pass_manager,
    run_pipeline,
)
from hlokit.passes.plugins import load_pass_plugin  # (also sets up hlokit.passes.registry.load_pass_plugin)
from hlokit.passes.registry import (
    Option,
    Pass,
    PassPipeline,
    PatternPass,
    all_passes,
    all_pipelines,
    fail,
    get_pass,
    get_pipeline,
    register_pass,
    register_pipeline,
)

__all__ = [
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
    "register_pass",
    "register_pipeline",
    "run_pass_manager",
    "run_pipeline",
]
