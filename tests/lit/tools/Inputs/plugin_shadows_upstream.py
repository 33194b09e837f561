# A pass plugin that takes an upstream MLIR pass's name (tests/lit/tools/pass_plugin_errors.mlir).
from hlokit.passes.registry import Pass, register_pass


@register_pass
class Fine(Pass):
    argument = "plugin-test-fine"
    summary = "a valid name, registered first (and removed again when the plugin is refused)"


@register_pass
class MyCanonicalize(Pass):
    argument = "canonicalize"
    summary = "would shadow MLIR's canonicalizer"
