"""hlokit analyses: HLO indexing maps (seed 004)."""
