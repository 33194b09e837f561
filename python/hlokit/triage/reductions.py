"""IR reductions for the test-case reducer (:mod:`hlokit.triage.reduce`), after the reductions of MLIR's
``mlir-reduce`` (https://mlir.llvm.org/docs/Tools/mlir-reduce/) and C-Reduce's passes, on StableHLO.

Interface (the driver relies on exactly this):

* a reduction has ``name: str`` (a flag-like name, e.g. ``"erase-unused-ops"``);
* ``sites(module) -> list``: candidate places in deterministic order, as plain values (ints / tuples / str)
  valid for *this* module (op indices in a pre-order walk, function names, dimension sizes); the driver
  recomputes them after every accepted change;
* ``apply(module, sites) -> None``: rewrite ``module`` (a fresh copy the driver made) in place at these sites,
  all of them (any subset of ``sites(module)`` is well defined), or raise :class:`ReductionNotApplicable`;
  the driver verifies afterwards and drops a candidate that does not verify;
* :data:`REDUCTIONS` lists them in the order the driver tries them (big wins first).

The reductions (their modules say how each applies a set of sites):

==========================  ===================================================================  ========
name                        rewrite                                                              module
==========================  ===================================================================  ========
``drop-results``            drop a result of a function (``@main``: a returned value)            structure
``erase-unused-functions``  erase a function nothing refers to (not ``@main``)                   structure
``erase-unused-ops``        erase dead, effect-free ops (dead chains at once)                    ops
``inline-calls``            inline a ``func.call`` of a single-block function                    structure
``inline-regions``          ``while`` -> its body once, ``case`` / ``if`` -> one branch          structure
``replace-with-operand``    replace a result by an operand of the same type                      ops
``replace-with-earlier``    replace a result by an earlier value of its block of the same type   values
``fold-broadcast-constant`` a broadcast of a splat constant -> one splat constant                values
``replace-with-zero``       replace a result by a splat 0 of its type                            ops
``replace-with-one``        replace a result by a splat 1 of its type                            ops
``replace-with-argument``   replace a result by a new argument of an uncalled function           ops
``drop-unused-arguments``   erase a function argument nothing uses (and the calls' operand)      structure
``shrink-shapes``           halve a dimension size through the program, types re-inferred        shapes
``simplify-constants``      a dense constant -> its first value's splat / fewer distinct values  ops
==========================  ===================================================================  ========
"""

from __future__ import annotations

from hlokit.triage.reductions_base import Reduction, ReductionNotApplicable
from hlokit.triage.reductions_ops import (
    EraseUnusedOps,
    ReplaceWithArgument,
    ReplaceWithConstant,
    ReplaceWithOperand,
    SimplifyConstants,
)
from hlokit.triage.reductions_shapes import ShrinkShapes
from hlokit.triage.reductions_values import FoldBroadcastConstant, ReplaceWithEarlier
from hlokit.triage.reductions_structure import (
    DropResults,
    DropUnusedArguments,
    EraseUnusedFunctions,
    InlineCalls,
    InlineRegions,
)

__all__ = ["Reduction", "ReductionNotApplicable", "REDUCTIONS", "by_name"]

#: The reductions the driver tries, in order (big wins first).
REDUCTIONS: tuple[Reduction, ...] = (
    DropResults(),
    EraseUnusedFunctions(),
    EraseUnusedOps(),
    InlineCalls(),
    InlineRegions(),
    ReplaceWithOperand(),
    ReplaceWithEarlier(),
    FoldBroadcastConstant(),
    ReplaceWithConstant(0),
    ReplaceWithConstant(1),
    ReplaceWithArgument(),
    DropUnusedArguments(),
    ShrinkShapes(),
    SimplifyConstants(),
)


def by_name(name: str) -> Reduction:
    """The reduction of :data:`REDUCTIONS` called ``name``; ``KeyError`` for another name."""
    for r in REDUCTIONS:
        if r.name == name:
            return r
    raise KeyError(name)
