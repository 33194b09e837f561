"""Robustness fuzzer: counts per tool mode and class (see tests/fuzz/fuzzer.py).

    python benchmarks/fuzz.py --seed 0 --count 2000 --jobs 2
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

from fuzz.runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
