# lit configuration of the upstream StableHLO interpreter suite, run against hlokit's tools.
#
# The tests are data in ../shared/conformance/interpret (relative to the repository root), never
# copied into the project. RUN lines call stablehlo-translate / stablehlo-opt / FileCheck; they are
# substituted by hlokit-translate / hlokit-opt / the `filecheck` package.
#
# Run: lit -v tests/conformance        (the suite is UNSUPPORTED when ../shared is absent)
import os
import shutil
import sys
import sysconfig

import lit.formats

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

scripts = sysconfig.get_path("scripts")
config.environment["PATH"] = os.pathsep.join([scripts, os.path.dirname(sys.executable), os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR", "JAX_PLATFORMS", "XLA_FLAGS", "HLOKIT_TRACEBACK"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment.setdefault("JAX_PLATFORMS", "cpu")

filecheck = shutil.which("filecheck", path=config.environment["PATH"]) or "filecheck"
# Word boundaries: "stablehlo-translate" must not match inside another word.
config.substitutions.append((r"\bstablehlo-translate\b", "hlokit-translate"))
config.substitutions.append((r"\bstablehlo-opt\b", "hlokit-opt"))
config.substitutions.append((r"\bFileCheck\b", filecheck))
