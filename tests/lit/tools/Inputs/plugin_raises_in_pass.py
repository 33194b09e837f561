# A pass plugin whose passes fail while running (tests/lit/tools/pass_plugin_errors.mlir).
from hlokit.passes.registry import Pass, fail, register_pass


@register_pass
class Crashes(Pass):
    argument = "plugin-test-crash"
    summary = "a bug: raises an exception on every function"

    def run_on_operation(self, op):
        return {}["missing"]


@register_pass
class Refuses(Pass):
    argument = "plugin-test-refuse-divide"
    summary = "refuses the first stablehlo.divide, located at it"

    def run_on_operation(self, op):
        divides = [o for o in op.regions[0].blocks[0].operations if o.name == "stablehlo.divide"]
        if divides:
            raise fail("plugin-test-refuse-divide: I do not like this divide", divides[0])
