"""hlokit reference interpreter (issue: reference interpreter): StableHLO semantics (seed 000) on numpy arrays."""
