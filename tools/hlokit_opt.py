"""hlokit-opt: parse, verify, transform and print StableHLO/CHLO programs (mlir-opt conventions).

    hlokit-opt [options] [--<pass>[=<options>] ...] [INPUT | -]

Pass flags run in the order given; ``--pass-pipeline='builtin.module(...)'`` takes MLIR's textual
pipeline syntax. Both accept hlokit's Python passes and the upstream C++ passes shipped in jaxlib
(canonicalize, cse, inline, symbol-dce, stablehlo-refine-shapes, ...); where a name belongs to both,
hlokit's Python pass runs.

``--refine-arguments`` gives a program with symbolic argument shapes (``jax.export`` with
``jax.export.symbolic_shape``) concrete ones before any pass runs, by the pipeline ``hlokit-run`` uses
(:func:`hlokit.passes.refine.refine_arguments`: ``stablehlo-refine-arguments``, calls inlined,
``stablehlo-refine-shapes``, jax's ``shape_assertion`` checks): ``'tensor<8x16xf32>,tensor<8xi32>'`` (every
argument of ``@main``, in order), ``'NAME=TYPE,...'`` (NAME ``arg_<i>`` or jax's name of the argument,
``jax.arg_info`` / a name location / the pytree path a serialized ``Exported`` carries; the arguments not
named keep their types) or ``FILE.npz`` (the shapes and element types of its arrays, keyed as NAME).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from typing import Sequence

import numpy as np

import hlokit
from hlokit import dtypes
from hlokit.passes import all_passes, all_pipelines, build_pass_manager, parse_pipeline, run_pass_manager
from hlokit.passes.pipeline import PipelineElement
from hlokit.passes.refine import entry_function, refine_arguments
from hlokit.tools.common import check_output_path, finish, process_chunks, tool_main
from hlokit.tools.run_signature import argument_names

#: Upstream C++ passes that --help names (hlokit's own passes of the same flag are listed above them).
#: Only those MLIR's pipeline parser accepts are shown (:func:`runnable_upstream_passes`):
#: jaxlib does not register every StableHLO pass (``stablehlo-aggressive-simplification`` is missing).
UPSTREAM_CANDIDATES = (
    "canonicalize", "cse", "inline", "symbol-dce", "symbol-privatize", "sccp", "loop-invariant-code-motion",
    "remove-dead-values", "stablehlo-refine-arguments", "stablehlo-refine-shapes",
    "stablehlo-check-shape-assertions", "stablehlo-canonicalize-dynamism", "stablehlo-aggressive-simplification",
    "stablehlo-aggressive-folder", "stablehlo-compatibility-expander", "stablehlo-complex-math-expander",
    "stablehlo-convert-to-signless", "stablehlo-legalize-composite-to-call", "stablehlo-wrap-in-composite",
    "stablehlo-legalize-to-linalg", "stablehlo-legalize-to-vhlo", "vhlo-legalize-to-stablehlo", "vhlo-to-version",
)

_RUNNABLE_CACHE: dict[str, str] | None = None


def runnable_upstream_passes() -> dict[str, str]:
    """The upstream passes of :data:`UPSTREAM_CANDIDATES` that run here, each with its anchor op.

    Returns ``{name: anchor}`` in the candidates' order, ``anchor`` being ``"builtin.module"`` when
    ``builtin.module(NAME)`` parses and ``"func.func"`` when only ``builtin.module(func.func(NAME))``
    does (a pass restricted to functions); names MLIR's pipeline parser rejects (passes jaxlib does not
    register) and names hlokit registers itself are left out. Computed once per process (under a millisecond for the
    whole list), so ``--help`` stays fast. Raises nothing.
    """
    global _RUNNABLE_CACHE
    if _RUNNABLE_CACHE is None:
        from jaxlib.mlir import ir, passmanager  # (hlokit.passes.pipeline, imported above, registers StableHLO's passes)

        # Pass registrations are process-wide and parsing a pipeline loads no dialect, so a bare context
        # answers as hlokit's does, without the ~20 ms of loading every dialect (tests check both agree).
        ctx = ir.Context()
        own = set(all_passes()) | set(all_pipelines())
        found: dict[str, str] = {}
        for name in UPSTREAM_CANDIDATES:
            if name in own:
                continue
            for anchor, text in (("builtin.module", f"builtin.module({name})"),
                                 ("func.func", f"builtin.module(func.func({name}))")):
                try:
                    passmanager.PassManager.parse(text, context=ctx)  # rejects with ValueError, prints nothing
                except ValueError:
                    continue
                found[name] = anchor
                break
        _RUNNABLE_CACHE = found
    return dict(_RUNNABLE_CACHE)


def _upstream_epilog() -> str:
    runnable = runnable_upstream_passes()
    module = ", ".join(n for n, a in runnable.items() if a == "builtin.module")
    func = ", ".join(n for n, a in runnable.items() if a == "func.func")
    return (
        "Upstream C++ passes of jaxlib's MLIR, as --<name> or inside --pass-pipeline; among them:\n"
        + textwrap.fill(module, width=100, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False)
        + "\nand on func.func (nested as func.func(<name>) in --pass-pipeline; as flags, nested for you):\n"
        + textwrap.fill(func, width=100, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False)
        + "\n"
    )


class _Parser(argparse.ArgumentParser):
    """Builds the list of upstream passes only when the help is printed (it needs an MLIR context)."""

    def format_help(self) -> str:
        self.epilog = self.epilog.replace("{upstream}", _upstream_epilog())
        return super().format_help()


def _parser() -> argparse.ArgumentParser:
    passes = all_passes()
    pipelines = all_pipelines()
    width = max([len(a) for a in [*passes, *pipelines]] + [10]) + 4
    listing = "\n".join(f"  --{a:<{width}}{cls.summary}" for a, cls in passes.items())
    named = "\n".join(f"  --{a:<{width}}{p.summary}" for a, p in pipelines.items())
    p = _Parser(
        prog="hlokit-opt",
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Parse, verify, transform and print StableHLO / CHLO programs.",
        epilog=(
            "hlokit's Python passes (also valid inside --pass-pipeline):\n"
            f"{listing}\n\n"
            "hlokit's named pipelines (also valid inside --pass-pipeline):\n"
            f"{named}\n\n"
            "{upstream}"
            "Pass options: --<name>='opt1=v1 opt2=v2' or <name>{opt1=v1} in a pipeline."
        ),
    )
    p.add_argument("input", nargs="?", default="-", help="input file (MLIR text or bytecode; '-' = stdin)")
    p.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file (written only on success)")
    p.add_argument("--pass-pipeline", default=None, metavar="PIPELINE", help="textual pass pipeline, e.g. 'builtin.module(func.func(canonicalize))'")
    p.add_argument("--split-input-file", "-split-input-file", action="store_true", help="split the input on '// -----' lines and process each chunk on its own")
    p.add_argument("--verify-diagnostics", "-verify-diagnostics", action="store_true", help="check emitted diagnostics against '// expected-error {{...}}' annotations")
    p.add_argument("--allow-unregistered-dialect", "-allow-unregistered-dialect", action="store_true", help="allow ops of dialects hlokit does not know")
    p.add_argument("--mlir-print-op-generic", "-mlir-print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument("--mlir-print-debuginfo", "-mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--mlir-pretty-debuginfo", action="store_true", help="print locations inline in pretty form")
    p.add_argument("--mlir-print-ir-after-all", "-mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (to stderr)")
    p.add_argument("--mlir-timing", "-mlir-timing", action="store_true", help="report the time of every pass (to stderr)")
    p.add_argument("--mlir-elide-elementsattrs-if-larger", type=int, default=None, metavar="N", help="elide constants with more than N elements")
    p.add_argument("--emit-bytecode", action="store_true", help="write MLIR bytecode instead of text")
    p.add_argument("--refine-arguments", default=None, metavar="TYPES|NAME=TYPE,...|FILE.npz",
                   help="refine @main's symbolic argument shapes to these (every argument's type, comma-separated; "
                   "NAME=TYPE pairs by arg_<i> or jax's argument names; or an .npz of inputs) before the passes, "
                   "checking jax's shape assertions, as hlokit-run does")
    return p


def split_types(text: str) -> list[str]:
    """``'tensor<8x16xf32>,tensor<8xi32>'`` -> its items, split at the commas outside brackets (``<>``, ``()``,
    ``[]``, ``{}``) and quotes; items stripped, an empty text gives []."""
    items, depth, start, quote = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif quote:
            continue
        elif ch in "<([{":
            depth += 1
        elif ch in ">)]}" and not (ch == ">" and i and text[i - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [] if items == [""] else items


def _argument_table(module, name: str):
    """(@main's argument types, {NAME: index} for arg_<i> and jax's names, a listing for messages)."""
    fn = entry_function(module, "main")
    if fn is None:
        raise hlokit.HlokitError("--refine-arguments: the module has no @main function (stablehlo-refine-arguments "
                                 "refines @main)", file=name)
    from jaxlib.mlir import ir

    types = list(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs)
    names = argument_names(module, "main")
    by_name = {f"arg_{i}": i for i in range(len(types))}
    for i, n in enumerate(names[:len(types)]):
        if n and n not in by_name:
            by_name[n] = i
    listing = ", ".join(f"arg_{i}" + (f" ({names[i]})" if i < len(names) and names[i] else "") + f": {t}"
                        for i, t in enumerate(types)) or "none"
    return types, by_name, listing


def _checked(new, old, what: str, name: str):
    """``new`` (an ``ir.Type``) where it can replace argument type ``old``: a ranked tensor of static shape, of
    ``old``'s element type and rank, agreeing with its static dimensions; HlokitError naming ``what`` else."""
    from jaxlib.mlir import ir

    def fail(msg):
        return hlokit.HlokitError(f"--refine-arguments: {what}: {msg}", file=name)

    if not isinstance(new, ir.RankedTensorType) or not new.has_static_shape:
        raise fail(f"'{new}' is not a tensor type of static shape")
    if not isinstance(old, ir.RankedTensorType):
        if new != old:
            raise fail(f"the argument has type {old}, which is not a ranked tensor")
        return new
    if new.element_type != old.element_type or new.rank != old.rank or any(
            not ir.ShapedType.is_dynamic_size(d) and d != e for d, e in zip(old.shape, new.shape)):
        raise fail(f"'{new}' does not fit the argument's type {old} (same element type and rank, and the static "
                   "dimensions as they are)")
    return new


def refinement_types(spec: str, module, name: str) -> list:
    """The argument types ``--refine-arguments=spec`` gives ``@main`` of ``module`` (one ``ir.Type`` per argument):
    from every argument's type, from ``NAME=TYPE`` pairs (the arguments not named keep theirs) or from the
    arrays of an ``.npz`` file (keyed as NAME).

    Raises HlokitError (``NAME: error: --refine-arguments: ...``) for a wrong number of types, type text that
    does not parse, a type that cannot be the argument's (another element type or rank, a dynamic or
    contradicted dimension), an unknown or repeated NAME, an unreadable ``.npz``, and an argument left with a
    symbolic shape."""
    from jaxlib.mlir import ir

    types, by_name, listing = _argument_table(module, name)
    given: dict[int, ir.Type] = {}

    def index_of(key: str) -> int:
        if key not in by_name:
            raise hlokit.HlokitError(f"--refine-arguments: no argument named '{key}'; @main takes {len(types)} "
                                     f"argument(s): {listing}", file=name)
        if by_name[key] in given:
            raise hlokit.HlokitError(f"--refine-arguments: argument arg_{by_name[key]} is given twice", file=name)
        return by_name[key]

    with module.context, ir.Location.unknown():
        if spec.endswith(".npz") or os.path.isfile(spec):
            try:
                with np.load(spec, allow_pickle=False) as npz:
                    arrays = {k: (tuple(npz[k].shape), npz[k].dtype) for k in npz.files}
            except Exception as exc:
                raise hlokit.HlokitError(f"--refine-arguments: not a readable .npz file: {type(exc).__name__}: {exc}",
                                         file=spec) from None
            for key, (shape, dtype) in arrays.items():
                i = index_of(key)
                try:
                    text = dtypes.type_str(shape, dtype)
                except (KeyError, TypeError, dtypes.UnsupportedTypeError):
                    raise hlokit.HlokitError(f"--refine-arguments: array '{key}' has dtype {dtype}, which is no "
                                             "StableHLO element type", file=spec) from None
                given[i] = _checked(ir.Type.parse(text), types[i], f"array '{key}' of {spec}", name)
        else:
            items = split_types(spec)
            named = [it for it in items if "=" in it.split("<", 1)[0]]
            if named and len(named) != len(items):
                raise hlokit.HlokitError("--refine-arguments: give every argument's type in order, or NAME=TYPE "
                                         f"pairs, not both: '{spec}'", file=name)
            if not named and len(items) != len(types):
                raise hlokit.HlokitError(f"--refine-arguments: @main takes {len(types)} argument(s), got "
                                         f"{len(items)} type(s); its arguments: {listing}", file=name)
            for k, item in enumerate(items):
                key, text = (s.strip() for s in item.split("=", 1)) if named else (f"arg_{k}", item)
                i = index_of(key)
                try:
                    t = ir.Type.parse(text)
                except (ir.MLIRError, ValueError) as exc:
                    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
                    why = lines[-1].split(": ", 2)[-1] if lines else ""  # ('error: "TEXT":1:12: expected ...')
                    col = next((ln.split(":")[-2] for ln in lines if ln.startswith("error:") and ln.count(":") >= 3), "")
                    where = f" at column {col}" if col.strip().isdigit() else ""
                    raise hlokit.HlokitError(f"--refine-arguments: '{text}' (for {key}) is not a type"
                                             + (f": {why}{where}" if why else ""), file=name) from None
                given[i] = _checked(t, types[i], key, name)
        out = []
        for i, t in enumerate(types):
            if i in given:
                out.append(given[i])
            elif isinstance(t, ir.RankedTensorType) and not t.has_static_shape:
                raise hlokit.HlokitError(f"--refine-arguments: argument arg_{i} has symbolic shape {t}: give its "
                                         f"type; @main's arguments: {listing}", file=name)
            else:
                out.append(t)
    return out


def _pass_flags(unknown: Sequence[str]) -> list[PipelineElement]:
    """Turn the leftover ``--name`` / ``--name=opts`` flags into pipeline elements, in order."""
    elements = []
    for flag in unknown:
        if not flag.startswith("-") or flag in ("-", "--"):
            raise hlokit.HlokitError(f"unexpected argument '{flag}'")
        name, _, opts = flag.lstrip("-").partition("=")
        if opts.startswith("{") and opts.endswith("}"):
            opts = opts[1:-1]
        elements.append(PipelineElement(name, opts.strip("'\"")))
    return elements


def run(argv: Sequence[str]) -> int:
    args, unknown = _parser().parse_known_args(argv)
    check_output_path(args.output)
    flag_elements = _pass_flags(unknown)
    if args.pass_pipeline and flag_elements:
        raise hlokit.HlokitError("--pass-pipeline cannot be combined with pass flags")
    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)
    if args.pass_pipeline:
        elements, implicit = parse_pipeline(args.pass_pipeline), False
    else:
        elements, implicit = flag_elements, True
    # Build once up front so a bad pipeline is reported before any input is read.
    build_pass_manager(elements, context=ctx, implicit_nesting=implicit)

    def one_chunk(text, offset, name):
        module = hlokit.parse(text, context=ctx, source_name=name, line_offset=offset)
        if args.refine_arguments is not None:
            types = refinement_types(args.refine_arguments, module, name)
            with module.context:
                refine_arguments(module, types, source_name=name)
        if elements:
            pm = build_pass_manager(elements, context=ctx, implicit_nesting=implicit)
            if args.mlir_print_ir_after_all:
                pm.enable_ir_printing(print_after_all=True, enable_debug_info=args.mlir_print_debuginfo)
            if args.mlir_timing:
                pm.enable_timing()
            run_pass_manager(pm, module.operation, source_name=name)
            del pm  # timing is reported when the pass manager goes away
        if args.emit_bytecode:
            import io

            buf = io.BytesIO()
            module.operation.write_bytecode(buf)
            return buf.getvalue()
        return hlokit.print_module(
            module,
            generic=args.mlir_print_op_generic,
            debug_info=args.mlir_print_debuginfo or args.mlir_pretty_debuginfo,
            pretty_debug_info=args.mlir_pretty_debuginfo,
            large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
            assume_verified=True,  # verified after parsing and after every pass
        )

    ok, output = process_chunks(
        args.input,
        one_chunk,
        split=args.split_input_file,
        verify_diagnostics=args.verify_diagnostics,
        context=ctx,
    )
    if isinstance(output, str) and output and not output.endswith("\n"):
        output += "\n"
    return finish(args.output, ok, output)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point of ``hlokit-opt``."""
    return tool_main("hlokit-opt", run, argv)


if __name__ == "__main__":
    sys.exit(main())
