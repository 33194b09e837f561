# lit configuration of the upstream StableHLO interpreter suite, run against hlokit's tools.
#
# The tests are data in ../shared/conformance/interpret (relative to the repository root), never
# copied into the project. RUN lines call stablehlo-translate / stablehlo-opt / FileCheck; they are
# substituted by hlokit-translate / hlokit-opt / the `filecheck` package.
#
# Run: lit -v tests/conformance        (the suite is UNSUPPORTED when ../shared is absent)
import os
import sys

import lit.formats

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lit_tools import configure_tools  # noqa: E402

config.name = "hlokit-conformance-interpret"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "README.md", "Output"]

here = os.path.dirname(os.path.abspath(__file__))
project_root = os.path.dirname(os.path.dirname(here))
suite = os.path.join(os.path.dirname(project_root), "shared", "conformance", "interpret")
if os.path.isdir(suite):
    config.test_source_root = suite
else:
    config.test_source_root = here
    config.unsupported = True
config.test_exec_root = os.path.join(here, "Output")

filecheck = configure_tools(config)
# Word boundaries: "stablehlo-translate" must not match inside another word.
config.substitutions.append((r"\bstablehlo-translate\b", "hlokit-translate"))
config.substitutions.append((r"\bstablehlo-opt\b", "hlokit-opt"))
config.substitutions.append((r"\bFileCheck\b", filecheck))
