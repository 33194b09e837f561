"""``python -m fuzz`` (with ``tests/`` on the path) — see :mod:`fuzz.runner`."""

import sys

from fuzz.runner import main

sys.exit(main())
