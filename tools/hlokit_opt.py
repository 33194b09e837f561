"""hlokit-opt: parse, verify, transform and print StableHLO/CHLO programs (mlir-opt conventions).

    hlokit-opt [options] [--<pass>[=<options>] ...] [INPUT | -]

Pass flags run in the order given; ``--pass-pipeline='builtin.module(...)'`` takes MLIR's textual
pipeline syntax. Both accept hlokit's Python passes and the upstream C++ passes shipped in jaxlib
(canonicalize, cse, inline, symbol-dce, stablehlo-refine-shapes, ...); where a name belongs to both,
hlokit's Python pass runs. ``--load-pass-plugin=FILE.py|MODULE`` (repeatable) first loads a user's passes
(:mod:`hlokit.passes.plugins`); they then work as flags and in pipelines, and ``--help`` lists them.

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

import hlokit
from hlokit.passes import all_passes, all_pipelines, build_pass_manager, get_pass, parse_pipeline, run_pass_manager
from hlokit.passes import instrument
from hlokit.passes.pipeline import PipelineElement
from hlokit.passes.plugins import load_pass_plugin, loaded_plugins, plugin_of
from hlokit.passes.registry import pass_names
from hlokit.passes import reproducer
from hlokit.tools.common import (
    add_version_argument, check_output_path, finish,
    llvm_style_flags, process_chunks, tool_main,
)

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
    """Builds the epilog (hlokit's passes, with their summaries, and the upstream ones) only when the help is
    printed: listing the passes imports every pass module, and the upstream list needs an MLIR context."""

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = _epilog()
        return super().format_help()


def plugin_sources(argv: Sequence[str]) -> list[str]:
    """The ``--load-pass-plugin=SOURCE`` / ``--load-pass-plugin SOURCE`` values of ``argv``, in order: read
    before the parser is built, so the plugins' passes are in the registry (and in ``--help``) by then."""
    out = []
    for i, arg in enumerate(argv):
        for flag in ("--load-pass-plugin", "-load-pass-plugin"):
            if arg.startswith(flag + "="):
                out.append(arg[len(flag) + 1:])
            elif arg == flag and i + 1 < len(argv):
                out.append(argv[i + 1])
    return out


def _plugin_listing() -> str:
    """The help's section on the loaded plugins' passes (with their options), or ''."""
    lines = []
    for plugin in loaded_plugins():
        lines.append(f"Passes of the pass plugin {plugin.source} (also valid inside --pass-pipeline):")
        for name in plugin.passes:
            cls = get_pass(name)
            lines.append(f"  --{name:<40}{cls.summary}")
            lines += [f"      {o.name}={o.type.__name__} (default {o.default!r}){': ' + o.help if o.help else ''}"
                      for o in cls.options]
        lines += [f"  --{name:<40}{all_pipelines()[name].summary} (pipeline)" for name in plugin.pipelines]
    return "\n".join(lines) + "\n\n" if lines else ""


def _epilog() -> str:
    """The help's epilog: hlokit's passes and pipelines, the plugins', the upstream ones (imports every pass)."""
    passes = {a: c for a, c in all_passes().items() if plugin_of(a) is None}
    pipelines = {a: p for a, p in all_pipelines().items() if plugin_of(a) is None}
    width = max([len(a) for a in [*passes, *pipelines]] + [10]) + 4
    listing = "\n".join(f"  --{a:<{width}}{cls.summary}" for a, cls in passes.items())
    named = "\n".join(f"  --{a:<{width}}{p.summary}" for a, p in pipelines.items())
    return (
        "hlokit's Python passes (also valid inside --pass-pipeline):\n"
        f"{listing}\n\n"
        "hlokit's named pipelines (also valid inside --pass-pipeline):\n"
        f"{named}\n\n"
        f"{_plugin_listing()}"
        f"{_upstream_epilog()}"
        "Pass options: --<name>='opt1=v1 opt2=v2' or <name>{opt1=v1} in a pipeline."
    )


def _bool_flag(text: str) -> bool:
    """An LLVM boolean option's value: true / false (also 1 / 0, as LLVM's ``cl::opt<bool>`` takes)."""
    low = text.lower()
    if low in ("true", "1"):
        return True
    if low in ("false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"'{text}' is not a boolean (true or false)")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="hlokit-opt",
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Parse, verify, transform and print StableHLO / CHLO programs.",
        epilog=None,  # (built by _Parser.format_help)
    )
    p.add_argument("input", nargs="?", default="-", help="input file (MLIR text or bytecode; '-' = stdin)")
    add_version_argument(p)
    p.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file (written only on success)")
    p.add_argument("--load-pass-plugin", "-load-pass-plugin", action="append", default=[], metavar="FILE.py|MODULE",
                   help="load a Python pass plugin (a file or module registering passes with @register_pass) "
                   "before the passes run; repeatable")
    p.add_argument("--pass-pipeline", default=None, metavar="PIPELINE", help="textual pass pipeline, e.g. 'builtin.module(func.func(canonicalize))'")
    p.add_argument("--split-input-file", "-split-input-file", action="store_true", help="split the input on '// -----' lines and process each chunk on its own")
    p.add_argument("--verify-diagnostics", "-verify-diagnostics", action="store_true", help="check emitted diagnostics against '// expected-error {{...}}' annotations")
    p.add_argument("--allow-unregistered-dialect", "-allow-unregistered-dialect", action="store_true", help="allow ops of dialects hlokit does not know")
    p.add_argument("--mlir-print-op-generic", "-mlir-print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument("--mlir-print-debuginfo", "-mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--mlir-pretty-debuginfo", action="store_true", help="print locations inline in pretty form")
    p.add_argument("--mlir-print-ir-after-all", "-mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (to stderr)")
    p.add_argument("--mlir-timing", "-mlir-timing", action="store_true", help="report the time of every pass (to stderr)")
    instrument.add_arguments(p)  # --mlir-print-ir-before=, --mlir-pass-statistics, ... (hlokit.passes.instrument)
    p.add_argument("--mlir-elide-elementsattrs-if-larger", type=int, default=None, metavar="N", help="elide constants with more than N elements")
    p.add_argument("--mlir-elide-resource-strings-if-larger", type=int, default=None, metavar="N",
                   help="elide dialect resources (dense_resource blobs) larger than N bytes")
    p.add_argument("--mlir-print-local-scope", action="store_true",
                   help="print types and attributes inline instead of as aliases (#map = ..., !t = ...)")
    p.add_argument("--mlir-print-skip-regions", action="store_true", help="print ops without their regions")
    p.add_argument("--mlir-use-nameloc-as-prefix", action="store_true",
                   help="name SSA values after their NameLoc locations (%%x = ... for loc(\"x\"))")
    p.add_argument("--mlir-print-assume-verified", action="store_true",
                   help="print without verifying first (hlokit-opt's output is verified already, unless "
                   "--verify-each=false)")
    p.add_argument("--verify-each", default=True, type=_bool_flag, nargs="?", const=True, metavar="BOOL",
                   help="run the verifier after every pass (default true; --verify-each=false: only the output is "
                   "verified, as it is printed)")
    p.add_argument("--mlir-disable-threading", action="store_true",
                   help="run passes on one thread (hlokit-opt always does: its Python passes hold the GIL)")
    p.add_argument("--show-dialects", action="store_true", help="list the dialects hlokit-opt loads and exit")
    p.add_argument("--emit-bytecode", action="store_true", help="write MLIR bytecode instead of text")
    p.add_argument("--refine-arguments", default=None, metavar="TYPES|NAME=TYPE,...|FILE.npz",
                   help="refine @main's symbolic argument shapes to these (every argument's type, comma-separated; "
                   "NAME=TYPE pairs by arg_<i> or jax's argument names; or an .npz of inputs) before the passes, "
                   "checking jax's shape assertions, as hlokit-run does")
    r = p.add_argument_group("crash and failure reproducers (hlokit.passes.reproducer)")
    r.add_argument("--mlir-pass-pipeline-crash-reproducer", "-mlir-pass-pipeline-crash-reproducer", default=None,
                   metavar="FILE", help="when a pass fails, write the IR before the pipeline and the pipeline to FILE "
                   "(as mlir-opt: {-# external_resources: { mlir_reproducer: ... } #-})")
    r.add_argument("--mlir-pass-pipeline-local-reproducer", "-mlir-pass-pipeline-local-reproducer",
                   action="store_true", help="narrow the reproducer to the failing pass (the IR just before it)")
    r.add_argument("--run-reproducer", "-run-reproducer", action="store_true",
                   help="run the pipeline a reproducer file (the input) holds")
    g = p.add_argument_group("numerical bisection (hlokit.triage.bisect: run the program after every pass, stop "
                             "at the first pass that changes its results)")
    g.add_argument("--check-numerics", default=None, metavar="ENGINE", help="--check-numerics[=interpreter|xla]: "
                   "check the results on this engine (default: interpreter) after every pass")
    g.add_argument("--max-ulp", type=float, default=None, metavar="N", help="tolerance: at most N ULPs (default: "
                   "floats 4 ULPs, integers exact)")
    g.add_argument("--rtol", type=float, default=None, metavar="X", help="tolerance: |diff| <= X * max|reference| + atol")
    g.add_argument("--atol", type=float, default=None, metavar="Y", help="tolerance: absolute part")
    g.add_argument("--inputs", default=None, metavar="IN.npz", help="inputs (keys arg_0, arg_1, ...; default: seeded random)")
    g.add_argument("--seed", type=int, default=None, metavar="N", help="seed of the random inputs (default: 0)")
    g.add_argument("--check-numerics-dir", default=None, metavar="DIR", help="where the IR before and after the "
                   "departing pass is written (default: a new temporary directory)")
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
    from hlokit.passes.refine import entry_function
    from hlokit.tools.run_signature import argument_names

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
    import numpy as np
    from jaxlib.mlir import ir

    from hlokit import dtypes

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
    for source in plugin_sources(argv):
        load_pass_plugin(source)
    argv = ["--check-numerics=interpreter" if a in ("--check-numerics", "-check-numerics") else a for a in argv]
    parser = _parser()
    args, unknown = parser.parse_known_args(llvm_style_flags(parser, argv))
    check_output_path(args.output)
    numerics = (args.check_numerics, args.max_ulp, args.rtol, args.atol, args.inputs, args.seed, args.check_numerics_dir)
    tolerance = None
    if any(v is not None for v in numerics):  # (hlokit.triage.bisect, ~10 ms to import, only when asked for)
        from hlokit.triage import bisect

        tolerance = bisect.check_options(args.check_numerics, max_ulp=args.max_ulp, rtol=args.rtol, atol=args.atol,
                                         inputs=args.inputs, seed=args.seed, directory=args.check_numerics_dir)
    flag_elements = _pass_flags(unknown)
    if args.pass_pipeline and flag_elements:
        raise hlokit.HlokitError("--pass-pipeline cannot be combined with pass flags")
    if args.run_reproducer and (args.pass_pipeline or flag_elements or args.check_numerics is not None):
        raise hlokit.HlokitError("--run-reproducer runs the reproducer's own pipeline: it cannot be combined with "
                                 "--pass-pipeline, pass flags or --check-numerics")
    if args.mlir_pass_pipeline_local_reproducer and not args.mlir_pass_pipeline_crash_reproducer:
        raise hlokit.HlokitError("--mlir-pass-pipeline-local-reproducer needs --mlir-pass-pipeline-crash-reproducer=FILE")
    if args.mlir_pass_pipeline_crash_reproducer and args.check_numerics is not None:
        raise hlokit.HlokitError("--mlir-pass-pipeline-crash-reproducer cannot be combined with --check-numerics "
                                 "(which runs the passes one by one)")
    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)
    if args.show_dialects:  # (mlir-opt's --show-dialects: the registered dialects, one line)
        print("Available Dialects: " + ", ".join(sorted({*hlokit.DIALECTS, "quant"})))
        return 0
    if args.pass_pipeline:
        elements, implicit = parse_pipeline(args.pass_pipeline), False
    else:
        elements, implicit = flag_elements, True
    # Build once up front so a bad pipeline is reported before any input is read.
    build_pass_manager(elements, context=ctx, implicit_nesting=implicit)
    printing = instrument.from_arguments(args, pass_names())  # (imports no pass module)

    def one_chunk(text, offset, name):
        chunk_elements, nesting, config = elements, implicit, None
        if args.run_reproducer:  # (the pipeline and its settings come from the file)
            chunk_elements, config = reproducer.reproducer_pipeline(text, context=ctx, source_name=name,
                                                                    line_offset=offset)
            nesting = False
        module = hlokit.parse(text, context=ctx, source_name=name, line_offset=offset)
        if args.refine_arguments is not None:
            from hlokit.passes.refine import refine_arguments  # (only for --refine-arguments)

            types = refinement_types(args.refine_arguments, module, name)
            with module.context:
                refine_arguments(module, types, source_name=name)
        if args.check_numerics is not None:
            from hlokit.tools.hlokit_run import load_inputs

            def configure(pm):
                printing.apply(pm, ctx)

            with instrument.instrumented_run(printing, None):  # (--mlir-print-ir-before=<pass>: dumps filtered)
                checked = bisect.check_pipeline(
                    module, elements, engine=args.check_numerics, tolerance=tolerance, seed=args.seed,
                    inputs=(lambda specs: load_inputs(args.inputs, specs)) if args.inputs else None,
                    directory=args.check_numerics_dir, implicit_nesting=implicit, source_name=name, configure=configure)
            print(f"{name}: note: numerics checked after {checked.checked} passes on {checked.engine}, within "
                  f"{checked.tolerance}", file=sys.stderr)
        elif chunk_elements or args.dump_pass_pipeline:
            statistics = instrument.PassStatistics() if args.mlir_pass_statistics else None
            recorder = statistics or (instrument.PassStatistics(count=False) if args.dump_pass_pipeline else None)
            pm = build_pass_manager(chunk_elements, context=ctx, implicit_nesting=nesting, observer=recorder)
            if args.dump_pass_pipeline:
                sys.stderr.write(instrument.pipeline_dump(recorder, ctx))
            if (config is not None and not config.verify_each) or not args.verify_each:
                pm.enable_verifier(False)
            printing.apply(pm, ctx)
            if statistics is not None:
                pm.enable_statistics()
            if args.mlir_timing:
                pm.enable_timing()
            with instrument.instrumented_run(printing, statistics):
                if args.mlir_pass_pipeline_crash_reproducer:
                    reproducer.run_with_reproducer(
                        pm, module.operation, chunk_elements, args.mlir_pass_pipeline_crash_reproducer,
                        local=args.mlir_pass_pipeline_local_reproducer, implicit_nesting=nesting, source_name=name,
                        debug_info=args.mlir_print_debuginfo, verify_each=config is None or config.verify_each)
                else:
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
            large_resource_limit=args.mlir_elide_resource_strings_if_larger,
            local_scope=args.mlir_print_local_scope,
            skip_regions=args.mlir_print_skip_regions,
            name_loc_as_prefix=args.mlir_use_nameloc_as_prefix,
            # verified after parsing and (unless --verify-each=false) after every pass
            assume_verified=args.verify_each or args.mlir_print_assume_verified,
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
