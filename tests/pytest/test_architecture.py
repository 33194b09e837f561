"""Architecture rules of docs/architecture.md, checked on the source tree.

* The import graph of the ``hlokit`` package has no cycle: module-level imports, and also the imports
  inside functions (a function-local import must never be a way to dodge a cycle).
* No module imports another module's private (``_``-prefixed) name.
* Registries refuse a second entry of the same name (pass, interpreter op, indexing rule, translate mode).
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: top-level source folders and the package each one is installed as (pyproject.toml's package-dir).
PACKAGE_DIRS = {
    "hlokit": ROOT / "python" / "hlokit",
    "hlokit.passes": ROOT / "passes",
    "hlokit.dialects": ROOT / "dialects",
    "hlokit.tools": ROOT / "tools",
}


def _modules() -> dict[str, pathlib.Path]:
    """Every module of the hlokit package: dotted name -> file."""
    mods: dict[str, pathlib.Path] = {}
    for pkg, folder in PACKAGE_DIRS.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([pkg, *parts])
            # a nested mapped package (hlokit.passes inside python/hlokit) is not double counted
            mods.setdefault(name, path)
    return mods


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not MODULES[module].name == "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, *, local: bool) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) for each import of ``module``.

    ``local=False``: module-level imports only (also inside module-level ``if``/``try``, never under
    ``if TYPE_CHECKING``); ``local=True``: every import, function bodies included.
    """
    tree = ast.parse(MODULES[module].read_text(), str(MODULES[module]))
    out: list[tuple[str, list[str], int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            fn = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if fn and not local:
                continue
            if isinstance(child, ast.Import):
                out.extend((a.name, [], child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                out.append((_resolve(module, child), [a.name for a in child.names], child.lineno))
            visit(child, fn)

    visit(tree, False)
    return out


def _graph(*, local: bool) -> dict[str, set[str]]:
    """Edges between hlokit modules. ``from pkg import sub`` counts as an edge to the submodule ``pkg.sub``;
    the implicit import of a module's parent packages is not an edge (Python runs a package's
    ``__init__`` before its submodules, and that is never a cycle by itself)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for target, names, _ in _imports(module, local=local):
            if target not in MODULES:
                continue
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
            attrs = [n for n in names if f"{target}.{n}" not in MODULES]
            graph[module].update(subs)
            if attrs or not names:
                if not module.startswith(target + ".") or attrs:
                    graph[module].add(target)
    for module in graph:
        graph[module].discard(module)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def _path_in(graph: dict[str, set[str]], comp: list[str]) -> str:
    """One concrete cycle inside the component, for the failure message."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return " -> ".join(reversed(path)) + f" -> {start}"
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return " <-> ".join(comp)


def test_the_walker_sees_the_whole_package():
    for name in ("hlokit", "hlokit.core", "hlokit.passes.registry", "hlokit.tools.hlokit_opt",
                 "hlokit.interpreter.evaluator", "hlokit.analysis.indexing", "hlokit.dialects.check"):
        assert name in MODULES, name
    assert len(MODULES) > 30


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    comps = _cycles(graph)
    assert comps == [["a", "b", "c"]]
    assert _path_in(graph, comps[0]) == "a -> b -> c -> a"


@pytest.mark.parametrize("local", [False, True], ids=["module-level", "with-function-local"])
def test_no_import_cycle(local):
    graph = _graph(local=local)
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(_path_in(graph, c) for c in cycles)


def test_no_private_name_imported_across_modules():
    bad = []
    for module in MODULES:
        for target, names, line in _imports(module, local=True):
            if not target.startswith("hlokit"):
                continue
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    bad.append(f"{MODULES[module].relative_to(ROOT)}:{line}: imports {target}.{n}")
    assert not bad, "\n".join(bad)


def test_no_private_attribute_of_another_module():
    """``import hlokit.x as m`` then ``m._name``: the same rule, reached through a module alias."""
    bad = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in MODULES and a.asname:
                        aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, node)
                for a in node.names:
                    if f"{target}.{a.name}" in MODULES:
                        aliases[a.asname or a.name] = f"{target}.{a.name}"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and aliases[node.value.id] != module
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: uses {aliases[node.value.id]}.{node.attr}")
    assert not bad, "\n".join(bad)


# -- layer order (docs/architecture.md, "Layers") ------------------------------------------------------------

#: The layers between core and tools; each imports core (and dialects) and never another one of them.
MIDDLE_LAYERS = ("hlokit.passes", "hlokit.interpreter", "hlokit.analysis", "hlokit.backend")
#: The layer above the middle ones and below the package face and tools (test-case reduction, numerical
#: bisection): it imports core, dialects, the middle layers and itself; nothing below it imports it.
TRIAGE_LAYER = "hlokit.triage"
#: Modules of the ``hlokit`` package folder that are not core: the package façade (its lazy
#: ``hlokit.interpret`` reaches the interpreter) and program preparation, which drives passes and engines.
ABOVE_CORE_TOP_LEVEL = frozenset({"hlokit", "hlokit.prepare"})
#: The documented exception: the interpreter legalizes ops it has no kernel for through the public entry
#: points of the pass package (the package itself, the registry / pipeline modules it re-exports, and
#: ``hlokit.passes.prepare``, the one program-preparation path ``hlokit.interpret`` takes).
INTERPRETER_MAY_IMPORT = frozenset({"hlokit.passes", "hlokit.passes.registry", "hlokit.passes.pipeline",
                                    "hlokit.passes.prepare"})
#: The interpreter's op-family modules: each imports the interpreter's core types, never another family.
OP_FAMILIES = frozenset(f"hlokit.interpreter.{m}" for m in (
    "elementwise", "data_movement", "reduce", "linalg", "convolution", "fft", "control_flow", "custom_call",
    "rng", "collectives", "quantization", "check_ops", "probe_ops", "dynamic_ops"))


def _layer(module: str) -> str:
    """``core``, ``dialects``, one of :data:`MIDDLE_LAYERS`, ``tools``, or ``above-core`` (the façade)."""
    if module in ABOVE_CORE_TOP_LEVEL:
        return "above-core"
    for top in ("hlokit.tools", "hlokit.dialects", TRIAGE_LAYER, *MIDDLE_LAYERS):
        if module == top or module.startswith(top + "."):
            return top.split(".")[1]
    assert module.count(".") == 1, module  # a module directly in python/hlokit/
    return "core"


def _hlokit_edges(module: str):
    """(imported hlokit module, line) for every import of ``module``, function-local ones included; ``from
    pkg import sub`` is an edge to ``pkg.sub``, ``from pkg import name`` an edge to ``pkg``."""
    for target, names, line in _imports(module, local=True):
        if target != "hlokit" and not target.startswith("hlokit."):
            continue
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
        for sub in subs:
            yield sub, line
        if target == "hlokit" and {"interpret", "InterpreterError"} & set(names):
            yield "hlokit.interpreter", line  # the façade's lazy names are the interpreter's
        if not names or len(subs) < len(names):
            yield target, line


def _layer_violation(module: str, target: str) -> str | None:
    """Why ``module`` may not import ``target``, or None where the layer order allows it."""
    src, dst = _layer(module), _layer(target)
    if dst == "core" or src == "tools":
        return None
    if target == "hlokit":  # the façade's names are core's (its interpreter names are edges to the interpreter)
        return None
    if src == "core":
        return f"core imports {dst}"
    if src == "dialects":
        return None if dst == "dialects" else f"dialects import {dst}"
    if src == "above-core":
        return None if dst != "tools" else "the package imports tools"
    if src == "triage":
        return None if dst in ("dialects", "triage", *(m.split(".")[1] for m in MIDDLE_LAYERS)) \
            else f"triage imports {dst}"
    if dst == "tools":
        return f"{src} imports tools"
    if dst in ("dialects", src):
        if module in OP_FAMILIES and module != target and (target in OP_FAMILIES or target == "hlokit.interpreter"):
            return "an interpreter op family imports another family"  # the package imports every family
        return None
    if dst == "above-core":
        return f"{src} imports {target}"
    if src == "interpreter" and target in INTERPRETER_MAY_IMPORT:
        return None
    return f"{src} imports {dst}"


def _layer_violations() -> list[str]:
    bad = []
    for module in sorted(MODULES):
        for target, line in _hlokit_edges(module):
            why = _layer_violation(module, target)
            if why:
                bad.append(f"{MODULES[module].relative_to(ROOT)}:{line} -> {target} ({why})")
    return sorted(set(bad))


def test_the_layer_classifier_knows_every_layer():
    assert _layer("hlokit.core") == _layer("hlokit.dtypes") == _layer("hlokit.quant") == "core"
    assert _layer("hlokit.dialects.check_syntax") == "dialects"
    assert _layer("hlokit.passes.chlo.table") == "passes"
    assert _layer("hlokit.interpreter.elementwise") == "interpreter"
    assert _layer("hlokit.analysis.indexing") == "analysis"
    assert _layer("hlokit.backend.layout") == "backend"
    assert _layer("hlokit.tools.hlokit_opt") == "tools"
    assert _layer("hlokit.triage.reduce") == _layer("hlokit.triage") == "triage"
    assert _layer("hlokit") == "above-core"
    assert OP_FAMILIES <= set(MODULES), sorted(OP_FAMILIES - set(MODULES))  # a renamed family is noticed
    assert INTERPRETER_MAY_IMPORT <= set(MODULES)


@pytest.mark.parametrize("module, target, allowed", [
    ("hlokit.core", "hlokit.dtypes", True),
    ("hlokit.core", "hlokit.dialects.check_syntax", False),
    ("hlokit.core", "hlokit.passes", False),
    ("hlokit.dialects.check", "hlokit.interpreter.registry", False),
    ("hlokit.dialects.check", "hlokit.dialects.check_syntax", True),
    ("hlokit.passes.builder", "hlokit.dialects.check_syntax", True),
    ("hlokit.passes.builder", "hlokit.interpreter", False),
    ("hlokit.backend.xla", "hlokit.passes.registry", False),
    ("hlokit.analysis.indexing", "hlokit.backend.layout", False),
    ("hlokit.interpreter.api", "hlokit.passes", True),
    ("hlokit.interpreter.api", "hlokit.passes.stablehlo_legalize_lapack_custom_calls", False),
    ("hlokit.interpreter.linalg", "hlokit.interpreter.values", True),
    ("hlokit.interpreter.linalg", "hlokit.interpreter.elementwise", False),
    ("hlokit.interpreter.linalg", "hlokit.interpreter", False),
    ("hlokit.interpreter.api", "hlokit.interpreter.linalg", True),
    ("hlokit.passes.builder", "hlokit", True),
    ("hlokit.tools.hlokit_run", "hlokit.interpreter.api", True),
    ("hlokit.passes.registry", "hlokit.tools.common", False),
    ("hlokit.triage.reduce", "hlokit.passes.pipeline", True),
    ("hlokit.triage.reduce", "hlokit.interpreter", True),
    ("hlokit.triage.reduce", "hlokit.backend", True),
    ("hlokit.triage.reduce", "hlokit.triage.reductions", True),
    ("hlokit.triage.reduce", "hlokit.tools.common", False),
    ("hlokit.passes.pipeline", "hlokit.triage.reduce", False),
    ("hlokit.interpreter.api", "hlokit.triage", False),
    ("hlokit.core", "hlokit.triage.reduce", False),
    ("hlokit", "hlokit.triage.reduce", True),
])
def test_the_layer_rule_on_known_edges(module, target, allowed):
    assert (_layer_violation(module, target) is None) == allowed


def test_imports_follow_the_layer_order():
    """core imports nothing above it; dialects import core; passes, interpreter, analysis and backend import
    core and dialects and never each other (the interpreter may use the pass package's public entry
    points); the interpreter's op families never import each other; tools import anything. Function-local
    imports count. Each violation is listed as ``file:line -> imported module (rule)``."""
    bad = _layer_violations()
    assert not bad, f"{len(bad)} imports break the layer order of docs/architecture.md:\n" + "\n".join(bad)


def test_every_pass_flag_has_a_lit_test_showing_its_output():
    """One ``tests/lit/passes/<flag>.mlir`` per registered pass flag and named pipeline, running that flag
    and FileCheck-ing its output."""
    from hlokit.passes import all_passes, all_pipelines

    flags = [*all_passes(), *all_pipelines()]
    assert len(flags) >= 12
    missing = []
    for flag in flags:
        path = ROOT / "tests" / "lit" / "passes" / (flag.replace("-", "_") + ".mlir")
        text = path.read_text() if path.exists() else ""
        runs = [ln for ln in text.splitlines() if ln.startswith("// RUN:")]
        if not any(f"--{flag}" in r or f"({flag})" in r for r in runs) or "// CHECK" not in text:
            missing.append(f"{flag}: {path.relative_to(ROOT)}")
    assert not missing, "pass flags without a lit test of their output:\n" + "\n".join(missing)


def test_no_product_file_is_over_1000_lines():
    """A file past 1,000 lines is split by what it holds (docs/architecture.md); the product's folders only."""
    long = [f"{p.relative_to(ROOT)}: {n} lines"
            for folder in ("python", "passes", "dialects", "tools")
            for p in sorted((ROOT / folder).rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > 1000]
    assert not long, long
