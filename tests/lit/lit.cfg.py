# lit configuration of hlokit's own lit tests (tests/lit/**). Run: lit -v tests/lit
import os
import shutil
import sys
import sysconfig

import lit.formats

config.name = "hlokit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".hlo", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

# The tools are the console scripts that `pip install` put beside this Python.
scripts = sysconfig.get_path("scripts")
config.environment["PATH"] = os.pathsep.join([scripts, os.path.dirname(sys.executable), os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR", "JAX_PLATFORMS", "XLA_FLAGS", "HLOKIT_TRACEBACK"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment.setdefault("JAX_PLATFORMS", "cpu")

filecheck = shutil.which("filecheck", path=config.environment["PATH"]) or "filecheck"
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%python", sys.executable))
project_root = os.path.dirname(os.path.dirname(config.test_source_root))
config.substitutions.append(("%examples", os.path.join(project_root, "examples")))
shared = os.path.join(os.path.dirname(project_root), "shared")
if os.path.isdir(shared):
    config.available_features.add("shared")
    config.substitutions.append(("%shared", shared))
