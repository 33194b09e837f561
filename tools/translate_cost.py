"""``hlokit-translate --cost-analysis``: FLOPs, transcendental ops and bytes per op and per function of a
StableHLO program, with ``while`` trip counts and a roofline line (:func:`hlokit.analysis.cost.cost`).

    hlokit-translate --cost-analysis [--function NAME] [--peak-flops F --peak-bandwidth B]
                     [--cost-rules=hlokit|xla] FILE

The table lists every op in program order (callees and region bodies indented under their op): flops,
transcendentals, bytes read (per operand when there are several), bytes written, how many times it
runs (``trips``: counted loops multiply it), its location and what is estimated ("trip count 10",
"trip count unknown: counted once", "custom call ...: flops unknown"). Then each function's totals per
call, the entry's totals, and the roofline: time bound by compute (``flops / F``) or by memory
(``bytes / B``); F (FLOP/s) and B (bytes/s) default to peaks measured once with numpy on this CPU (a matmul
and a large copy), which the line says. ``--cost-rules=xla`` counts as XLA's ``HloCostAnalysis`` does (one
trip per loop, ...; see docs/cost_analysis.md).
"""

from __future__ import annotations

import argparse

import hlokit
from hlokit.analysis.cost import cost
from hlokit.diagnostics import HlokitError
from hlokit.tools.common import finish, process_chunks
from hlokit.tools.translate_registry import register_translate_mode


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: '{text}'") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number: '{text}'")
    return v


def add_arguments(parser) -> None:
    """The options of ``--cost-analysis``: ``--peak-flops``, ``--peak-bandwidth``, ``--cost-rules`` (and
    ``--function``, shared with ``--indexing-maps``)."""
    g = parser.add_argument_group("--cost-analysis options")
    try:
        g.add_argument("--function", default=None, metavar="NAME", help="the function to analyse (default: main)")
    except argparse.ArgumentError:
        pass  # another mode defines --function with the same meaning
    g.add_argument("--peak-flops", type=_positive, default=None, metavar="F",
                   help="peak FLOP/s for the roofline (default: measured with numpy on this CPU)")
    g.add_argument("--peak-bandwidth", type=_positive, default=None, metavar="B",
                   help="peak memory bandwidth in bytes/s for the roofline (default: measured with numpy)")
    g.add_argument("--cost-rules", choices=["hlokit", "xla"], default="hlokit",
                   help="hlokit's counting rules (default) or XLA HloCostAnalysis's exactly")


@register_translate_mode(
    "--cost-analysis",
    help="print FLOPs, transcendentals and bytes per op and function, and a roofline line",
    add_arguments=add_arguments,
)
def run(args) -> int:
    """Entry of the ``--cost-analysis`` mode (see the module docstring); returns the exit code."""
    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)
    function = getattr(args, "function", None) or "main"

    def one_chunk(text, offset, name):
        module = hlokit.parse(text, context=ctx, source_name=name, line_offset=offset)
        try:
            report = cost(module, function, rules=args.cost_rules)
        except HlokitError as err:
            for d in err.diagnostics:
                d.file = d.file or name
            raise
        roof = report.roofline(args.peak_flops, args.peak_bandwidth)
        return report.table() + "\n" + roof.line(report.flops, report.bytes_accessed) + "\n"

    ok, output = process_chunks(
        args.input, one_chunk, split=args.split_input_file, verify_diagnostics=args.verify_diagnostics, context=ctx
    )
    return finish(args.output, ok, output)
