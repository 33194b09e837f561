"""mlir-opt's pass instrumentation for hlokit's pipelines: IR printing around passes, pass statistics.

hlokit's Python passes run inside the same MLIR ``PassManager`` as the upstream C++ passes
(:func:`hlokit.passes.pipeline.build_pass_manager` adds each one with ``PassManager.add(callable, ...)``),
so MLIR's own instrumentation sees them as passes. What jaxlib's ``PassManager`` offers is used as it is:

- ``PassManager.enable_ir_printing`` (``print_before_all``, ``print_after_all``, ``print_after_change``,
  ``print_after_failure``, ``print_module_scope``, ``tree_printing_dir_path``, ``large_elements_limit``,
  ``enable_debug_info``, ``print_generic_op_form``) prints the IR around every pass, Python or C++, in
  MLIR's format (mlir/lib/Pass/IRPrinting.cpp: ``// -----// IR Dump After <name>: <pass> //----- //``);
- ``PassManager.enable_timing`` and ``PassManager.enable_statistics``.

What it does not offer is done here:

- ``--mlir-print-ir-before=<pass>[,...]`` / ``--mlir-print-ir-after=<pass>[,...]`` (mlir-opt's filters,
  mlir/lib/Pass/PassManagerOptions.cpp ``addPrinterInstrumentation``): the bindings take no filter
  function, so the IR is printed around every pass and the dumps of other passes are dropped from the
  captured stream (:func:`filter_dumps`). The kept dumps are the ones mlir-opt prints, byte for byte;
- statistics of Python passes (:class:`PassStatistics`): MLIR's ``Pass::Statistic`` is not reachable from
  Python passes, so hlokit counts ops erased / created per pass and, for template passes
  (:class:`hlokit.passes.template_pass.TemplatePass`), ops rewritten and templates built / reused, and
  prints them in the layout of MLIR's report (mlir/lib/Pass/PassStatistics.cpp, pipeline mode).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import re
import sys
from typing import Iterator, Sequence

from jaxlib.mlir import ir, passmanager

from hlokit.diagnostics import HlokitError
from hlokit.passes.pipeline import captured_stderr

__all__ = ["IRPrinting", "PassStatistics", "filter_dumps", "check_pass_names", "instrumented_run", "add_arguments",
           "from_arguments", "pipeline_dump"]

_HEADER = re.compile(r"^// -----// IR Dump (Before|After) (\S+?)( Failed)?: ([A-Za-z0-9_.\-]+)")


@dataclasses.dataclass
class IRPrinting:
    """mlir-opt's ``--mlir-print-ir-*`` options (mlir/lib/Pass/PassManagerOptions.cpp).

    ``before`` / ``after`` are pass arguments (``cse``, ``stablehlo-legalize-dot-to-dot-general``); an empty
    tuple means no filter. ``tree_dir``: one file per dump under this directory, named as MLIR names them
    (``<op>_<symbol>/.../<counters>_<pass>.mlir``).
    """

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    before_all: bool = False
    after_all: bool = False
    after_change: bool = False
    after_failure: bool = False
    module_scope: bool = False
    tree_dir: str | None = None
    elide_if_larger: int | None = None
    debug_info: bool = False
    generic: bool = False

    def prints_before(self) -> bool:
        return self.before_all or bool(self.before)

    def prints_after(self) -> bool:
        return self.after_all or self.after_failure or bool(self.after)

    def enabled(self) -> bool:
        """Whether any dump is printed: as in mlir-opt, ``--mlir-print-ir-after-change`` or
        ``--mlir-print-ir-module-scope`` alone print nothing."""
        return self.prints_before() or self.prints_after()

    def filtered(self) -> bool:
        """Whether dumps must be filtered by pass (a ``before`` / ``after`` list not overridden by an
        ``*-all`` / ``after-failure`` flag)."""
        return (bool(self.before) and not self.before_all) or (
            bool(self.after) and not (self.after_all or self.after_failure))

    def validate(self) -> None:
        """Raises :class:`HlokitError` for a combination hlokit cannot print as mlir-opt does: a pass
        filter with ``tree_dir`` (MLIR numbers the files by the dumps it writes, which a filter changes)."""
        if self.filtered() and self.tree_dir:
            raise HlokitError("--mlir-print-ir-tree-dir cannot be combined with --mlir-print-ir-before=<pass> / "
                              "--mlir-print-ir-after=<pass> (use --mlir-print-ir-before-all / -after-all)")

    def apply(self, pm: passmanager.PassManager, context: ir.Context) -> None:
        """Enable MLIR's IR printing on ``pm`` for these options (nothing when :meth:`enabled` is false).
        Module scope needs multi-threading off in ``context`` (MLIR aborts otherwise); it is turned off."""
        if not self.enabled():
            return
        if self.module_scope:
            context.enable_multithreading(False)
        pm.enable_ir_printing(
            print_before_all=self.prints_before(),
            print_after_all=self.prints_after(),
            print_module_scope=self.module_scope,
            print_after_change=self.after_change,
            print_after_failure=self.after_failure,
            large_elements_limit=self.elide_if_larger,
            enable_debug_info=self.debug_info,
            print_generic_op_form=self.generic,
            tree_printing_dir_path=self.tree_dir,
        )


def filter_dumps(text: str, printing: IRPrinting) -> str:
    """Keep the dumps of ``text`` (MLIR's IR printing output) that ``printing``'s pass filters select.

    A dump is its header line up to the next header; text before the first header is kept. A ``Before``
    dump is kept when ``before_all`` is set or its pass argument is in ``before``; an ``After`` dump when
    ``after_all`` / ``after_failure`` is set or its argument is in ``after``.
    """
    out: list[str] = []
    keep = True
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line)
        if m:
            when, argument = m.group(1), m.group(4)
            if when == "Before":
                keep = printing.before_all or argument in printing.before
            else:
                keep = printing.after_all or printing.after_failure or argument in printing.after
        if keep:
            out.append(line)
    return "".join(out)


def check_pass_names(names: Sequence[str], flag: str, known_python: Sequence[str]) -> None:
    """Raises :class:`HlokitError` (``--<flag>: unknown pass 'x'``) for a name that is neither one of
    ``known_python`` (hlokit's pass arguments) nor a pass MLIR's pipeline parser accepts."""
    ctx = ir.Context()
    for name in names:
        if name in known_python:
            continue
        ok = False
        for text in (f"builtin.module({name})", f"builtin.module(func.func({name}))"):
            try:
                with captured_stderr([]):
                    passmanager.PassManager.parse(text, context=ctx)
                ok = True
                break
            except ValueError:
                continue
        if not ok:
            raise HlokitError(f"--{flag}: unknown pass '{name}'")


@dataclasses.dataclass
class _Entry:
    name: str
    template: bool
    stats: dict[str, int] = dataclasses.field(default_factory=lambda: collections.Counter())


_DESCRIPTIONS = {
    "num-ops-erased": "Number of operations erased (by op name, before vs after)",
    "num-ops-created": "Number of operations created (by op name, before vs after)",
    "num-ops-rewritten": "Number of operations rewritten by a template",
    "num-templates-built": "Number of templates built (template cache misses)",
    "num-templates-reused": "Number of rewrites that reused a cached template",
}


def _op_names(op: ir.Operation) -> collections.Counter:
    counts: collections.Counter = collections.Counter()

    def visit(o):
        counts[o.name] += 1
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return counts


class PassStatistics:
    """Counters of hlokit's Python passes, one entry per pass of the pipeline (in pipeline order).

    Every Python pass counts ``num-ops-erased`` / ``num-ops-created`` (the op-name multiset of the pass's
    root before and after it: an op replaced by one of the same name counts in neither). Template passes
    also count ``num-ops-rewritten`` (ops replaced by a template), ``num-templates-built`` (templates
    parsed into the pass's cache) and ``num-templates-reused`` (rewrites that found theirs cached).
    :meth:`report` prints them as MLIR's pipeline-mode statistics report.
    """

    def __init__(self, *, count: bool = True) -> None:
        self.entries: dict[int, _Entry] = {}
        self.count = count
        #: the pass manager's top-level entries in order: a Python pass's argument or an upstream pipeline text
        self.structure: list[tuple[str, str]] = []

    def added(self, instance) -> None:
        """Register a Python pass instance added to the pass manager (the report lists it)."""
        from hlokit.passes.template_pass import TemplatePass

        self.structure.append(("python", instance.argument))
        if self.count:
            self.entries[id(instance)] = _Entry(type(instance).__name__, isinstance(instance, TemplatePass))

    def recording(self, pm: passmanager.PassManager) -> "_Recording":
        """A stand-in for ``pm`` whose ``add(text)`` adds the upstream pipeline text and records it."""
        return _Recording(pm, self.structure)

    @contextlib.contextmanager
    def running(self, instance, root: ir.Operation) -> Iterator[None]:
        """Count what ``instance`` does to ``root`` while the body runs it."""
        entry = self.entries.get(id(instance))
        if entry is None or not self.count:
            yield
            return
        before = _op_names(root)
        caches: list = []
        rewritten = [0]
        if entry.template:
            orig_cache, orig_inst = instance.template_cache, instance.instantiate

            def template_cache(context):
                cache = orig_cache(context)
                if all(c is not cache for c, _ in caches):
                    caches.append((cache, len(cache.funcs)))
                return cache

            def instantiate(*args, **kwargs):
                rewritten[0] += 1
                return orig_inst(*args, **kwargs)

            instance.template_cache, instance.instantiate = template_cache, instantiate
        try:
            yield
        finally:
            if entry.template:
                del instance.template_cache, instance.instantiate  # back to the class's methods
                built = sum(len(c.funcs) - n for c, n in caches)
                entry.stats["num-ops-rewritten"] += rewritten[0]
                entry.stats["num-templates-built"] += built
                entry.stats["num-templates-reused"] += max(rewritten[0] - built, 0)
            after = _op_names(root)
            entry.stats["num-ops-erased"] += sum((before - after).values())
            entry.stats["num-ops-created"] += sum((after - before).values())

    def entry_lines(self) -> list[str]:
        """The report's lines for the Python passes (name, then ``(S) value name - description`` sorted by
        name, values and names aligned as MLIR aligns them)."""
        lines = []
        for entry in self.entries.values():
            lines.append(entry.name)
            names = sorted(set(entry.stats) | {"num-ops-erased", "num-ops-created"})
            width_n = max(len(n) for n in names)
            width_v = max(len(str(entry.stats[n])) for n in names)
            lines += [f"  (S) {entry.stats[n]:>{width_v}} {n:<{width_n}} - {_DESCRIPTIONS[n]}" for n in names]
        return lines

    def merge_into(self, report: str) -> str:
        """Insert the Python passes' entries into MLIR's statistics ``report`` (after its 3-line header);
        a whole report of their own when ``report`` has none."""
        rule = "===" + "-" * 73 + "==="
        title = "... Pass statistics report ..."
        header = f"{rule}\n{' ' * ((80 - len(title)) // 2)}{title}\n{rule}\n"
        body = "".join(line + "\n" for line in self.entry_lines())
        at = report.find(header)
        if at < 0:
            return report + header + body + "\n"
        at += len(header)
        return report[:at] + body + report[at:]


class _Recording:
    def __init__(self, pm: passmanager.PassManager, structure: list) -> None:
        self.pm, self.structure = pm, structure

    def add(self, text: str) -> None:
        self.pm.add(text)
        self.structure.append(("upstream", text))


_PROBE = "module {\n  func.func @main() {\n    return\n  }\n}\n"
_PROBE_HEADER = re.compile(r"^// -----// IR Dump Before \S+?: (.*) //----- //$", re.M)


def _textual(el, path: tuple[str, ...], root: str, context: ir.Context, cache: dict) -> str:
    """How MLIR prints upstream pass ``el`` (a leaf :class:`PipelineElement` at anchor ``path``) as a textual
    pipeline, every option shown (``canonicalize{... max-iterations=10 ...}``): read from the header MLIR's
    IR printing writes before the pass runs on a probe module with one empty ``@main``; ``el.text()`` when
    the pass does not run there."""
    key = (path, el.text())
    if key not in cache:
        text = el.text()
        nested = el.text()
        for name in reversed(path):
            nested = f"{name}({nested})"
        captured: list[str] = []
        try:
            with captured_stderr(captured):
                pm = passmanager.PassManager.parse(f"{root}({nested})", context=context)
                pm.enable_ir_printing(print_before_all=True, print_after_all=False)
                probe = ir.Module.parse(_PROBE, context=context)
                try:
                    pm.run(probe.operation)
                except ir.MLIRError:
                    pass
        except ValueError:
            pass
        m = _PROBE_HEADER.search(captured[0] if captured else "")
        cache[key] = m.group(1) if m else text
    return cache[key]


def pipeline_dump(recorder: PassStatistics, context: ir.Context, root: str = "builtin.module") -> str:
    """The text ``mlir-opt --dump-pass-pipeline`` writes to stderr for the pass manager ``recorder`` watched
    being built (mlir/lib/Pass/Pass.cpp ``OpPassManager::dump``, pretty form, then mlir-opt's blank line):
    ``Pass Manager with N passes:`` and the pipeline, one pass per line, nested anchors indented by two.
    Python passes show as their argument (as MLIR prints an external pass); upstream passes with all their
    options (:func:`_textual`)."""
    from hlokit.passes.pipeline import parse_pipeline

    cache: dict = {}
    items: list[tuple[tuple[str, ...], object]] = []
    for kind, text in recorder.structure:
        if kind == "python":
            items.append(((), text))
        else:
            items += [((), el) for el in parse_pipeline(text)]

    def render(el, path: tuple[str, ...], depth: int) -> list[str]:
        pad = "  " * depth
        if isinstance(el, str):
            return [pad + el]
        if el.children is None:
            return [pad + _textual(el, path, root, context, cache)]
        lines = [pad + el.name + "("]
        for i, child in enumerate(el.children):
            sub = render(child, path + (el.name,), depth + 1)
            if i < len(el.children) - 1:
                sub[-1] += ","
            lines += sub
        return lines + [pad + ")"]

    body = []
    for i, (path, el) in enumerate(items):
        sub = render(el, path, 1)
        if i < len(items) - 1:
            sub[-1] += ","
        body += sub
    body = body or [""]  # (no pass: MLIR still breaks the line after the anchor and before ')')
    return f"Pass Manager with {len(items)} passes:\n{root}(\n" + "".join(l + "\n" for l in body) + ")\n\n"


@contextlib.contextmanager
def instrumented_run(printing: IRPrinting | None, statistics: PassStatistics | None) -> Iterator[None]:
    """Run the body (a ``PassManager.run``) with its stderr output post-processed: dumps filtered by
    ``printing``'s pass lists, the Python passes' statistics merged into MLIR's report. The result goes to
    ``sys.stderr`` even when the body raises. Nothing is captured when neither needs it."""
    if not ((printing is not None and printing.filtered()) or statistics is not None):
        yield
        return
    captured: list[str] = []
    try:
        with captured_stderr(captured):
            yield
    finally:
        text = captured[0] if captured else ""
        if printing is not None and printing.filtered():
            text = filter_dumps(text, printing)
        if statistics is not None:
            text = statistics.merge_into(text)
        sys.stderr.write(text)
        sys.stderr.flush()


def _pass_list(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def add_arguments(parser) -> None:
    """Add mlir-opt's instrumentation flags (but ``--mlir-print-ir-after-all`` and ``--mlir-timing``, which
    the tool defines) to an ``argparse`` parser; read them back with :func:`from_arguments`."""
    g = parser.add_argument_group("pass instrumentation (mlir-opt's flags; IR dumps and reports go to stderr)")
    g.add_argument("--mlir-print-ir-before", "-mlir-print-ir-before", action="append", default=[], metavar="PASS[,...]",
                   help="print the IR before these passes")
    g.add_argument("--mlir-print-ir-after", "-mlir-print-ir-after", action="append", default=[], metavar="PASS[,...]",
                   help="print the IR after these passes")
    g.add_argument("--mlir-print-ir-before-all", "-mlir-print-ir-before-all", action="store_true",
                   help="print the IR before every pass")
    g.add_argument("--mlir-print-ir-after-change", "-mlir-print-ir-after-change", action="store_true",
                   help="with an after-flag: print only when the pass changed the IR")
    g.add_argument("--mlir-print-ir-after-failure", "-mlir-print-ir-after-failure", action="store_true",
                   help="print the IR after a pass fails (only then)")
    g.add_argument("--mlir-print-ir-module-scope", "-mlir-print-ir-module-scope", action="store_true",
                   help="print the whole module, not just the op the pass ran on")
    g.add_argument("--mlir-print-ir-tree-dir", "-mlir-print-ir-tree-dir", default=None, metavar="DIR",
                   help="write each dump to a file under DIR (a tree mirroring the IR's nesting) instead of stderr")
    g.add_argument("--dump-pass-pipeline", "-dump-pass-pipeline", action="store_true",
                   help="print the pass pipeline that will run, before running it")
    g.add_argument("--mlir-pass-statistics", "-mlir-pass-statistics", action="store_true",
                   help="report pass statistics (Python passes: ops erased / created / rewritten, templates "
                   "built / reused) after the passes run")


def from_arguments(args, known_python: Sequence[str]) -> IRPrinting:
    """The :class:`IRPrinting` of parsed ``args`` (see :func:`add_arguments`; ``mlir_print_ir_after_all``,
    ``mlir_elide_elementsattrs_if_larger``, ``mlir_print_debuginfo``, ``mlir_print_op_generic`` read too).
    Raises :class:`HlokitError` for an unknown pass name in a list or an unsupported combination."""
    before = tuple(n for t in args.mlir_print_ir_before for n in _pass_list(t))
    after = tuple(n for t in args.mlir_print_ir_after for n in _pass_list(t))
    check_pass_names(before, "mlir-print-ir-before", known_python)
    check_pass_names(after, "mlir-print-ir-after", known_python)
    printing = IRPrinting(
        before=before, after=after, before_all=args.mlir_print_ir_before_all, after_all=args.mlir_print_ir_after_all,
        after_change=args.mlir_print_ir_after_change, after_failure=args.mlir_print_ir_after_failure,
        module_scope=args.mlir_print_ir_module_scope, tree_dir=args.mlir_print_ir_tree_dir,
        elide_if_larger=args.mlir_elide_elementsattrs_if_larger, debug_info=args.mlir_print_debuginfo,
        generic=args.mlir_print_op_generic)
    printing.validate()
    return printing
