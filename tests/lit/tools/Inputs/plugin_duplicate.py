# A pass plugin that takes the name of one of hlokit's passes (tests/lit/tools/pass_plugin_errors.mlir).
from hlokit.passes.registry import Pass, register_pass


@register_pass
class MyDotLegalization(Pass):
    argument = "stablehlo-legalize-dot-to-dot-general"
    summary = "clashes with hlokit's pass"
