# A pass plugin that raises while it is imported (tests/lit/tools/pass_plugin_errors.mlir).
import os

SETTINGS = {"scale": 2, "separator": os.sep}
FACTOR = SETTINGS["factor"]
