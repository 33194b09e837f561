"""Triage: finding and shrinking problems in StableHLO programs (issue 38).

A layer above passes / interpreter / analysis / backend and below the package face and the tools: its
modules may import any of those four (and core, dialects), and nothing below imports it.

* :mod:`hlokit.triage.reduce` — the test-case reducer's driver (``hlokit.reduce``, ``hlokit-reduce``);
* :mod:`hlokit.triage.reductions` — the IR reductions the driver tries;
* :mod:`hlokit.triage.predicates` — the interestingness tests (a script, ``xla-crash``, ``engines-differ``,
  ``error-matches``, ``pass-fails``).

Submodules are imported by name; this package imports none of them, so importing it is cheap.
"""
