"""hlokit's robustness fuzzer: mutated programs and bad command lines through every tool, in subprocesses.

* :mod:`tests.fuzz.fuzzer` — the corpus, the mutations, the tool modes, running and classifying a case,
  saving and replaying reproducers.
* ``python -m tests.fuzz --seed 0 --count 2000 --jobs 2`` (or ``benchmarks/fuzz.py``) prints the counts
  per tool mode and class.
* ``tests/pytest/test_fuzz.py`` runs a few hundred cases in CI, thousands with ``-m slow``, and replays
  every saved reproducer in ``tests/fuzz/reproducers/``.
"""
