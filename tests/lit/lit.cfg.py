# lit configuration of hlokit's own lit tests (tests/lit/**). Run: lit -v tests/lit
import os
import sys

import lit.formats

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lit_tools import configure_tools  # noqa: E402

config.name = "hlokit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".hlo", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

filecheck = configure_tools(config)
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%python", sys.executable))
project_root = os.path.dirname(os.path.dirname(config.test_source_root))
config.substitutions.append(("%examples", os.path.join(project_root, "examples")))
shared = os.path.join(os.path.dirname(project_root), "shared")
if os.path.isdir(shared):
    config.available_features.add("shared")
    config.substitutions.append(("%shared", shared))
