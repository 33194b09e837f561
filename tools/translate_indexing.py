"""``hlokit-translate --indexing-maps``: print XLA's HLO indexing maps (https://openxla.org/xla/indexing)
of each op, or of a function taken as one fusion.

    hlokit-translate --indexing-maps FILE [--direction=output-to-input|input-to-output] [--fusion]
                     [--function NAME] [--input-format=mlir|hlo]

FILE is MLIR (StableHLO) or XLA HLO text (``.hlo`` files, or ``--input-format=hlo``), imported through
jaxlib's XLA. HLO text may be a whole module, a bare computation (``f { ... }``, taken as the entry), or
bare instructions (wrapped in an entry computation; the last one is the root). HLO ``fusion``
instructions are read as calls of their fused computation.

Output, per op (``name = dialect.op`` header, then one block per operand)::

    bc0 = stablehlo.broadcast_in_dim
    output -> operand 0 (p0):
    (d0, d1, d2) -> (d1)
    domain:
    ...

With ``--fusion`` the header is ``function @NAME`` and the blocks are ``result I -> argument J (name):``
(or ``argument J (name) -> result I:``). An op without an indexing map is an error located at the op
(exit 1); the other ops are still printed.
"""

from __future__ import annotations

import re
import sys

from jaxlib.mlir import ir

import hlokit
from hlokit import attributes
from hlokit.analysis.indexing import IndexingError
from hlokit.analysis.indexing_ops import (
    function_input_to_output,
    function_output_to_input,
    input_to_output,
    op_label,
    output_to_input,
    value_name,
)
from hlokit.diagnostics import Diagnostic, HlokitError, location_position
from hlokit.tools.common import finish, process_chunks
from hlokit.tools.translate_hlo_text import hlo_text_to_stablehlo
from hlokit.tools.translate_registry import register_translate_mode


def add_arguments(parser) -> None:
    """The options of ``--indexing-maps``: ``--direction``, ``--fusion``, ``--function``, ``--input-format``."""
    g = parser.add_argument_group("--indexing-maps options")
    g.add_argument(
        "--direction",
        choices=["output-to-input", "input-to-output"],
        default="output-to-input",
        help="map outputs to the inputs they read (default), or inputs to the outputs that read them",
    )
    g.add_argument("--fusion", action="store_true", help="analyse each function as one fusion")
    g.add_argument("--function", default=None, metavar="NAME", help="only this function (default: all)")
    g.add_argument(
        "--input-format",
        choices=["mlir", "hlo"],
        default=None,
        help="input language (default: hlo for .hlo files, else mlir)",
    )


# ----------------------------------------------------------------------------------------------
# HLO text


_COMPUTATION = re.compile(r"^\s*(ENTRY\s+)?%?([\w.\-]+)\s*(\([^)]*\)\s*->\s*[^{]*)?\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?[\w.\-]+\s*=\s*(\(|\w+\[|[\w\-]+\()")
_FUSION = re.compile(r"\bfusion\(")
_FUSION_ATTRS = re.compile(r",\s*kind=k\w+\s*,\s*calls=")


def normalize_hlo_text(text: str) -> str:
    """Make HLO snippets as XLA's indexing documentation writes them (https://openxla.org/xla/indexing:
    bare instructions, computations without ``ENTRY`` or ``ROOT``, ``fusion`` instructions) parseable by
    XLA's HLO parser (line numbers are kept).

    Adds ``HloModule``; bare instructions get an ``ENTRY`` computation (the last instruction becomes
    ``ROOT``); without ``ENTRY`` the last computation is the entry; a computation without ``ROOT`` gets
    its last instruction as root; ``fusion(...), kind=kX, calls=f`` becomes ``call(...), to_apply=f``
    (jaxlib's importer cannot represent fusions).
    """
    lines = text.split("\n")
    has_module = any(l.strip().startswith("HloModule") for l in lines)
    comps = [i for i, l in enumerate(lines) if _COMPUTATION.match(l)]
    if not comps:
        instrs = [i for i, l in enumerate(lines) if _INSTRUCTION.match(l)]
        if not instrs:
            return text
        first, last = instrs[0], _last_instruction_line(lines, instrs[-1])
        lines[first] = "ENTRY __entry { " + lines[first]
        lines[last] = lines[last] + " }"
        comps = [first]
        bodies = [(first, last)]
    else:
        bodies = []
        for c in comps:
            end = next((j for j in range(c + 1, len(lines)) if lines[j].strip() == "}"), len(lines) - 1)
            bodies.append((c, end))
        if not any("ENTRY" in lines[c] for c in comps):
            c = comps[-1]
            lines[c] = "ENTRY " + lines[c].lstrip()
    for start, end in bodies:
        body = range(start, end + 1)
        if any(re.match(r"^\s*(ENTRY __entry \{ )?ROOT\s", lines[j]) for j in body):
            continue
        instrs = [j for j in body if _INSTRUCTION.match(lines[j].replace("ENTRY __entry { ", ""))]
        if instrs:
            j = instrs[-1]
            lines[j] = re.sub(r"^(\s*(?:ENTRY __entry \{ )?)", r"\1ROOT ", lines[j], count=1)
    out = "\n".join(lines)
    out = _FUSION_ATTRS.sub(", to_apply=", _FUSION.sub("call(", out))
    if not has_module:
        out = "HloModule m " + out if out and not out.startswith("\n") else "HloModule m" + out
    return out


def _last_instruction_line(lines, start):
    """The last line of the instruction starting at ``start`` (instructions may span lines)."""
    depth = 0
    j = start
    while j < len(lines):
        depth += lines[j].count("(") - lines[j].count(")")
        if depth <= 0:
            nxt = lines[j + 1].strip() if j + 1 < len(lines) else ""
            if not nxt or nxt.startswith("//") or _INSTRUCTION.match(lines[j + 1]):
                return j
        j += 1
    return len(lines) - 1


def _load(text, offset, name, args, ctx) -> ir.Module:
    fmt = args.input_format or ("hlo" if name.endswith(".hlo") else "mlir")
    if fmt == "hlo":
        if isinstance(text, bytes):
            raise HlokitError("HLO input must be text", file=name)
        return hlo_text_to_stablehlo(normalize_hlo_text("\n" * offset + text), ctx, name)
    return hlokit.parse(text, context=ctx, source_name=name, line_offset=offset)


# ----------------------------------------------------------------------------------------------
# printing


def _functions(module: ir.Module, only: str | None, name: str):
    funcs = []
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func" or not op.regions[0].blocks:
            continue
        fname = attributes.str_value(op, "sym_name")
        if only is None or fname == only:
            funcs.append((fname, op))
    if only is not None and not funcs:
        raise HlokitError(f"no function named '{only}'", file=name)
    if only is None:
        # the callees of HLO fusions/calls are analysed through their calls; keep public ones
        public = [(f, op) for f, op in funcs if not attributes.has(op, "sym_visibility")]
        funcs = public or funcs
    return funcs


def _block(header: str, maps) -> list[str]:
    out = [header + ":"]
    if not maps:
        out.append("(not read)\n")
    for m in maps:
        out.append(str(m))
    return out


def _error_at(op, message: str, name: str) -> Diagnostic:
    file, line, col = location_position(op.location if op is not None else None)
    return Diagnostic("error", message, file or name, line, col)


def _per_op(func, args, name, errors) -> list[str]:
    out = []
    block = func.regions[0].blocks[0]
    for op in block.operations:
        op = op.operation
        if op.name in ("func.return", "stablehlo.return"):
            continue
        lines = [op_label(op)]
        try:
            if args.direction == "output-to-input":
                for r in range(len(op.results)):
                    per_operand = output_to_input(op, r)
                    if not per_operand:
                        lines.append("(no operands)\n")
                    for k, maps in enumerate(per_operand):
                        res = "output" if len(op.results) == 1 else f"output {r}"
                        lines += _block(f"{res} -> operand {k} ({value_name(op.operands[k])})", maps)
            else:
                if not len(op.operands):
                    output_to_input(op, 0)  # reject unknown ops the same way
                    lines.append("(no operands)\n")
                for k in range(len(op.operands)):
                    for r, maps in enumerate(input_to_output(op, k)):
                        res = "output" if len(op.results) == 1 else f"output {r}"
                        lines += _block(f"operand {k} ({value_name(op.operands[k])}) -> {res}", maps)
        except IndexingError as err:
            errors.append(_error_at(err.op or op, err.message, name))
            continue
        out.append("\n".join(lines))
    return out


def _fusion(fname, func, args, name, errors) -> list[str]:
    block = func.regions[0].blocks[0]
    lines = [f"function @{fname}"]
    try:
        if args.direction == "output-to-input":
            for r in range(len(block.operations[len(block.operations) - 1].operands)):
                maps = function_output_to_input(func, r)
                for a in sorted(maps):
                    lines += _block(f"result {r} -> argument {a} ({value_name(block.arguments[a])})", maps[a])
        else:
            for a in range(len(block.arguments)):
                maps = function_input_to_output(func, a)
                for r in sorted(maps):
                    lines += _block(f"argument {a} ({value_name(block.arguments[a])}) -> result {r}", maps[r])
    except IndexingError as err:
        errors.append(_error_at(err.op or func, err.message, name))
        return []
    return ["\n".join(lines)]


@register_translate_mode(
    "--indexing-maps",
    help="print XLA's indexing maps of each op (or of a function with --fusion)",
    add_arguments=add_arguments,
)
def run(args) -> int:
    """Entry of the ``--indexing-maps`` mode (see the module docstring); returns the exit code."""
    ctx = hlokit.make_context(allow_unregistered_dialects=True)

    def one_chunk(text, offset, name):
        module = _load(text, offset, name, args, ctx)
        errors: list[Diagnostic] = []
        blocks: list[str] = []
        with ctx:
            for fname, func in _functions(module, args.function, name):
                if args.fusion:
                    blocks += _fusion(fname, func, args, name, errors)
                else:
                    blocks += _per_op(func, args, name, errors)
        text_out = "\n".join(blocks)
        if errors:
            if text_out:
                sys.stdout.write(text_out + "\n")
                sys.stdout.flush()
            raise HlokitError(errors)
        return text_out

    ok, output = process_chunks(
        args.input, one_chunk, split=args.split_input_file, verify_diagnostics=args.verify_diagnostics, context=ctx
    )
    return finish(args.output, ok, output)
