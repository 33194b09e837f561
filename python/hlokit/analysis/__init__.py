"""hlokit analyses: XLA's HLO indexing maps (https://openxla.org/xla/indexing) for StableHLO.

* :mod:`hlokit.analysis.indexing` — the model: :class:`Interval`, :class:`DimVar`, :class:`RangeVar`,
  :class:`RTVar`, :class:`IndexingMap` (composition, range-aware simplifier, text form) on
  ``jaxlib.mlir.ir.AffineMap``.
* :mod:`hlokit.analysis.indexing_ops` — per-op maps of StableHLO ops in both directions and the maps of
  a whole function taken as one fusion; the rules it runs are registered in
  :mod:`hlokit.analysis.indexing_rules` by :mod:`hlokit.analysis.indexing_data_movement` (elementwise and
  data-movement ops) and :mod:`hlokit.analysis.indexing_structured` (reduce, sort, gather, dot, pad,
  reduce_window, convolution).
* :mod:`hlokit.analysis.cost` — cost analysis (FLOPs, transcendentals, bytes, trip counts, roofline) with
  XLA's ``HloCostAnalysis`` rules: :func:`cost` (docs/cost_analysis.md; ``hlokit-translate --cost-analysis``).

See docs/indexing.md; the CLI is ``hlokit-translate --indexing-maps``.
"""

from hlokit.analysis.indexing import (
    DimVar,
    Expr,
    IndexingError,
    IndexingMap,
    Interval,
    RangeVar,
    RTVar,
    const,
    dim,
    sym,
)
from hlokit.analysis.cost import CostReport, cost
from hlokit.analysis.indexing_ops import (
    function_input_to_output,
    function_output_to_input,
    input_to_output,
    output_to_input,
    supported_ops,
)

__all__ = [
    "CostReport",
    "cost",
    "DimVar",
    "Expr",
    "IndexingError",
    "IndexingMap",
    "Interval",
    "RangeVar",
    "RTVar",
    "const",
    "dim",
    "sym",
    "function_input_to_output",
    "function_output_to_input",
    "input_to_output",
    "output_to_input",
    "supported_ops",
]
