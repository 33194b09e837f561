"""``hlokit-translate --interpret``: run a program with hlokit's reference interpreter.

The flags of upstream ``stablehlo-translate --interpret`` (its conformance suite uses them):

* ``--args="[dense<1> : tensor<2xi32>, ...]"`` — the arguments of the entry function;
* ``--probe-output-dir=DIR`` — where ``interpreter.probe`` writes (and
  ``check.expect_serialized_eq`` reads);
* ``--interpreter-print-dense`` — print results as ``dense<...> : tensor<...>``;
* ``--entry-function=NAME`` (hlokit) — the function to run (default ``main``, or the only one);
* with the shared ``-split-input-file`` and ``-allow-unregistered-dialect``.

The input is MLIR text or bytecode, a StableHLO portable artifact included (``hlokit.parse`` converts its
VHLO to StableHLO). The entry function's results are printed (``tensor<2xi32> {\n  [3, 3]\n}``); a chunk without
functions prints nothing. A failed check, a bad argument or an unsupported op is a located error;
the exit code is 1 when any chunk failed.
"""

from __future__ import annotations

import io
import re
import sys

import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit import attributes
from hlokit.diagnostics import HlokitError
from hlokit.tools.common import finish, process_chunks
from hlokit.tools.translate_registry import register_translate_mode

_ARGS_EXAMPLE = "i.e. --args=[dense<1> : tensor<2xi32>, ...]"


#: ``--max-steps`` default: loop iterations of one ``while``; it stops a runaway loop, not a real program's.
DEFAULT_MAX_STEPS = 10_000_000


def add_arguments(parser) -> None:
    """The options of ``--interpret``: ``--args``, ``--probe-output-dir``, ``--interpreter-print-dense``,
    ``--entry-function``."""
    g = parser.add_argument_group("--interpret options")
    g.add_argument("--args", "-args", default=None, metavar="ATTRS",
                   help="arguments of the entry function: '[dense<...> : tensor<...>, ...]'")
    g.add_argument("--probe-output-dir", "-probe-output-dir", default=None, metavar="DIR",
                   help="directory for interpreter.probe output")
    g.add_argument("--interpreter-print-dense", "-interpreter-print-dense", action="store_true",
                   help="print results as dense<...> attributes")
    g.add_argument("--max-steps", "-max-steps", type=int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help="the most iterations one stablehlo.while may run before the run fails with an error "
                        f"(default {DEFAULT_MAX_STEPS:,}; 0: no limit)")
    g.add_argument("--entry-function", "-entry-function", default="main", metavar="NAME",
                   help="function to run (default: main, or the module's only function)")


def parse_args(text: str, context: ir.Context) -> list[np.ndarray]:
    """``[dense<...> : tensor<...>, ...]`` -> arrays (any element type, complex included).

    Raises :class:`~hlokit.diagnostics.HlokitError` with upstream's messages for a string that is
    not an array, or an element that is not a dense elements attribute.
    """
    from hlokit.interpreter.values import dtype_of, parse_dense

    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        # upstream stablehlo-translate's wording, typo included: the conformance suite checks this text
        raise HlokitError(f"expectected array attribute string for args, {_ARGS_EXAMPLE}")
    body = s[1:-1].strip()
    if not body:
        return []
    from hlokit.dialects.check import split_top_level  # commas outside brackets and strings

    out = []
    with context:
        for item in split_top_level(body, ","):
            item = item.strip()
            m = re.fullmatch(r"(dense<.*>)\s*:\s*(tensor<.*>)", item, re.S)
            if not m:
                raise HlokitError(f"expected dense elements attribute for args elements, {_ARGS_EXAMPLE}")
            try:
                t = ir.RankedTensorType(ir.Type.parse(m.group(2)))
                out.append(parse_dense(m.group(1), dtype_of(t.element_type), tuple(t.shape)))
            except (ValueError, TypeError, ir.MLIRError) as err:
                raise HlokitError(f"invalid argument '{item}': {err}") from None
    return out


@register_translate_mode(
    "--interpret",
    help="run the program with hlokit's reference interpreter and print the results",
    add_arguments=add_arguments,
)
def run(args) -> int:
    """Entry of the ``--interpret`` mode (see the module docstring); returns the exit code."""
    from hlokit.interpreter import Interpreter
    from hlokit.interpreter.api import entry_function, load_program, prepare_module
    from hlokit.interpreter.values import format_result

    if args.max_steps < 0:
        raise HlokitError(f"--max-steps: expected a number of iterations >= 0 (0: no limit), got {args.max_steps}")
    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)
    arg_values = parse_args(args.args, ctx) if args.args is not None else []

    def one_chunk(text, offset, name):
        module = load_program(
            text, context=ctx, source_name=name, line_offset=offset,
            allow_unregistered=args.allow_unregistered_dialect,
        )
        prepare_module(module, name)
        buf = sys.stdout if args.output == "-" else io.StringIO()
        interp = Interpreter(module, probe_dir=args.probe_output_dir, out=buf,
                             print_dense=args.interpreter_print_dense, max_steps=args.max_steps or None)
        if not interp.functions:
            return None
        fn = entry_function(interp, args.entry_function)
        with np.errstate(all="ignore"):
            results = interp.call(fn, arg_values)
        # a quantized result prints its declared type over its storage values
        result_types = ir.FunctionType(attributes.type_value(interp.functions[fn], "function_type")).results
        for r, t in zip(results, result_types):
            buf.write(format_result(r, t, dense=args.interpreter_print_dense) + "\n")
        if buf is sys.stdout:  # written as the chunks run: in order with the errors of later chunks
            sys.stdout.flush()
            return None
        return buf.getvalue() or None

    ok, output = process_chunks(
        args.input, one_chunk, split=args.split_input_file,
        verify_diagnostics=args.verify_diagnostics, context=ctx, separator="",
    )
    return finish(args.output, ok, output)
