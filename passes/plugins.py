"""Pass plugins: a user's Python file or module that registers passes, loaded by name (``mlir-opt``'s
``--load-pass-plugin``, here for Python instead of shared libraries).

A plugin is an ordinary Python file (``my_passes.py``) or importable module (``package.module``) whose
import registers one or more passes with :func:`hlokit.passes.registry.register_pass`: a plain
:class:`~hlokit.passes.registry.Pass`, a :class:`~hlokit.passes.registry.PatternPass` or a
:class:`~hlokit.passes.template_pass.TemplatePass`. Once loaded, its passes run like hlokit's own: as
``hlokit-opt --<name>[=opt=value]`` flags, inside ``--pass-pipeline`` (at any anchor), and through
:func:`hlokit.passes.run_pipeline`; ``hlokit-opt --help`` lists them.

Rules (checked at load, before anything of the plugin stays registered):

* the plugin imports without error (a syntax error or an exception is reported at the plugin's own
  ``FILE:LINE:COL``, never as a traceback);
* each name it registers is new: not one of hlokit's passes or named pipelines, not one of another plugin,
  and not the name of an upstream C++ pass of jaxlib's MLIR (``canonicalize``): where a Python pass shares
  an upstream pass's name the Python pass runs, so a plugin must not silently shadow one;
* each name is usable as a flag and in a pipeline (letters, digits, ``-``, ``_``, ``.``).

A plugin that breaks a rule registers nothing (what it registered before failing is removed again) and
its module is forgotten, so a corrected file can be loaded again in the same process. Loading the same
plugin (the same resolved file, or the same module name) twice is idempotent: the module is not run
again and the same pass names are returned.

The file form follows :func:`importlib.util.spec_from_file_location` (Python's documented recipe
"Importing a source file directly", https://docs.python.org/3/library/importlib.html); the upstream
counterpart is MLIR's ``PassPlugin::Load`` (``mlir/lib/Tools/Plugins/PassPlugin.cpp``) behind
``mlir-opt --load-pass-plugin``.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
import re
import sys
import traceback
from types import ModuleType, TracebackType

from hlokit.diagnostics import Diagnostic, HlokitError
from hlokit.passes import registry

__all__ = [
    "PluginError",
    "Plugin",
    "load_pass_plugin",
    "unload_pass_plugin",
    "loaded_plugins",
    "plugin_of",
]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class PluginError(HlokitError):
    """A pass plugin could not be loaded: located at the plugin's file and line where known
    (``my_passes.py:12:1: error: ...``), else at the plugin as given (``my_passes.py: error: ...``)."""


@dataclasses.dataclass
class Plugin:
    """One loaded plugin: ``source`` as given, ``key`` (resolved file path or module name), the imported
    ``module`` and the pass names it registered, in registration order."""

    source: str
    key: str
    module: ModuleType
    passes: list[str]
    #: the named pipelines it registered (:func:`~hlokit.passes.registry.register_pipeline`), in order
    pipelines: list[str] = dataclasses.field(default_factory=list)
    #: the module was imported by the load (so unloading removes it from ``sys.modules``)
    owns_module: bool = True


#: key (resolved path or module name) -> loaded plugin, in load order.
_PLUGINS: dict[str, Plugin] = {}


def loaded_plugins() -> list[Plugin]:
    """Every plugin loaded in this process, in load order."""
    return list(_PLUGINS.values())


def plugin_of(name: str) -> Plugin | None:
    """The loaded plugin that registered pass ``name``, or None (a pass of hlokit's own, or unknown)."""
    for plugin in _PLUGINS.values():
        if name in plugin.passes or name in plugin.pipelines:
            return plugin
    return None


def _is_file(source: str) -> bool:
    return source.endswith(".py") or os.sep in source or "/" in source or os.path.isfile(source)


def _key(source: str) -> str:
    return os.path.realpath(source) if _is_file(source) else source


def _error(message: str, file: str, line: int = 0, col: int = 0) -> PluginError:
    return PluginError([Diagnostic("error", message, file, line, col)])


def _frame_in(tb: TracebackType | None, files: set[str]) -> traceback.FrameSummary | None:
    """The innermost frame of ``tb`` in one of ``files`` (real paths), or None."""
    found = None
    for frame in traceback.extract_tb(tb):
        if frame.filename and os.path.realpath(frame.filename) in files:
            found = frame
    return found


def _located(message: str, exc: BaseException, source: str, files: set[str], shown: dict[str, str]) -> PluginError:
    """``message`` located at the innermost frame of ``exc``'s traceback in the plugin's ``files``
    (the file named as the user named it, ``shown``), else at the plugin as given."""
    frame = _frame_in(exc.__traceback__, files)
    if frame is None or not frame.lineno:
        return _error(message, source)
    real = os.path.realpath(frame.filename)
    col = (getattr(frame, "colno", None) or 0) + 1
    return _error(message, shown.get(real, frame.filename), frame.lineno, col)


def _class_position(cls: type) -> tuple[str | None, int]:
    """(file, line) where ``cls`` is defined (its first decorator), or (None, 0)."""
    import inspect

    try:
        file = inspect.getsourcefile(cls)
        _, line = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return None, 0
    return file, line


def _upstream_names(names: list[str]) -> set[str]:
    """Those of ``names`` that MLIR's pipeline parser knows as upstream C++ passes (at module or
    function level), asked in a context of hlokit's (making one registers MLIR's and StableHLO's passes)."""
    from jaxlib.mlir import passmanager

    from hlokit.core import make_context

    ctx = make_context()
    found = set()
    for name in names:
        for text in (f"builtin.module({name})", f"builtin.module(func.func({name}))"):
            try:
                passmanager.PassManager.parse(text, context=ctx)
            except ValueError:
                continue
            found.add(name)
            break
    return found


def _rollback(names: list[str], module_name: str, had_module: bool) -> None:
    for name in names:
        registry.PASSES.pop(name, None)
        registry.PIPELINES.pop(name, None)
    if not had_module:
        for mod in [m for m in sys.modules if m == module_name or m.startswith(module_name + ".")]:
            del sys.modules[mod]


def _import(source: str, key: str, module_name: str, file: str | None) -> ModuleType:
    """Import the plugin (from ``file`` when it is a file plugin); exceptions propagate."""
    if file is None:
        return importlib.import_module(source)
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise _error("cannot load pass plugin: not a Python source file", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def load_pass_plugin(source: str) -> list[str]:
    """Load the pass plugin ``source``: a Python file (``my_passes.py``, ``dir/passes.py``) or an
    importable module name (``package.module``), whose import registers passes with ``@register_pass``.

    Returns the names of the passes the plugin registered (``["my-pass"]``), in registration order, then
    those of the named pipelines it registered (:func:`~hlokit.passes.registry.register_pipeline`); a
    plugin loaded before (the same real path, or module name) is not run again and gives the same list.
    hlokit's own passes are loaded first, so a clash with one of them is seen.

    Raises :class:`PluginError` — and leaves no pass of the plugin registered — when the file does not
    exist or the module is not found (``my_passes.py: error: ...``); when the plugin has a syntax error or
    raises while it is imported (located at the plugin's file, line and column of the innermost frame in
    it); when it registers a name that is taken (hlokit's pass or pipeline, another plugin's pass, an
    upstream C++ pass such as ``canonicalize``), a class that is no Pass, or a name that cannot be a flag
    (located at the class's ``@register_pass``).
    """
    registry.load_builtin_passes()
    source = str(source)
    key = _key(source)
    if key in _PLUGINS:
        return _PLUGINS[key].passes + _PLUGINS[key].pipelines
    file = key if _is_file(source) else None
    if file is not None:
        if not os.path.isfile(file):
            why = "it is a directory" if os.path.isdir(file) else "no such file"
            raise _error(f"cannot load pass plugin: {why}", source)
        stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(file))[0])
        import hashlib  # (lazy: hashlib loads OpenSSL, and only a plugin file needs it)

        module_name = f"hlokit_pass_plugin_{stem}_{hashlib.sha1(key.encode()).hexdigest()[:10]}"
    else:
        module_name = source
    had_module = module_name in sys.modules
    before = list(registry.PASSES) + list(registry.PIPELINES)
    files: set[str] = set()
    shown: dict[str, str] = {}
    if file is not None:
        files.add(file)
        shown[file] = source
    try:
        try:
            module = _import(source, key, module_name, file)
        except PluginError:
            raise
        except SyntaxError as exc:  # IndentationError and TabError too
            where = exc.filename or source
            shown_file = shown.get(os.path.realpath(where), where) if os.path.exists(where) else where
            raise _error(f"cannot load pass plugin: {type(exc).__name__}: {exc.msg}", shown_file,
                         exc.lineno or 0, exc.offset or 0) from None
        except ModuleNotFoundError as exc:
            if file is None and exc.name and (source == exc.name or source.startswith(exc.name + ".")):
                raise _error(f"cannot load pass plugin: no module named '{source}'", source) from None
            if file is None:
                _add_module_files(module_name, files)
            raise _located(f"cannot load pass plugin: {type(exc).__name__}: {exc}", exc, source, files, shown) from None
        except Exception as exc:
            if file is None:
                _add_module_files(module_name, files)
            if _is_registration_error(exc):
                raise _located(f"cannot load pass plugin: {_taken(str(exc))}", exc, source, files, shown) from None
            raise _located(f"cannot load pass plugin: {type(exc).__name__} raised while importing it: {exc}",
                           exc, source, files, shown) from None
        new = [n for n in registry.PASSES if n not in before]
        pipelines = [n for n in registry.PIPELINES if n not in before]
        _check_names(new, source, shown)
        _check_pipelines(pipelines, source)
    except BaseException:
        _rollback([n for n in [*registry.PASSES, *registry.PIPELINES] if n not in before], module_name, had_module)
        raise
    if file is None and had_module and not new:
        # imported earlier by other means: its passes are the ones its classes define
        new = [n for n, cls in registry.PASSES.items() if cls.__module__ == module_name]
    _PLUGINS[key] = Plugin(source, key, module, new, pipelines, owns_module=not had_module)
    return new + pipelines


def _add_module_files(module_name: str, files: set[str]) -> None:
    """The files of a module plugin (its package's files included), for locating errors in them."""
    spec = None
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        pass
    if spec is not None and spec.origin:
        files.add(os.path.realpath(spec.origin))
        root = os.path.dirname(os.path.realpath(spec.origin))
        for mod in list(sys.modules.values()):
            path = getattr(mod, "__file__", None)
            if path and os.path.realpath(path).startswith(root + os.sep):
                files.add(os.path.realpath(path))


def _is_registration_error(exc: BaseException) -> bool:
    """``exc`` was raised by :func:`~hlokit.passes.registry.register_pass` itself (a taken or missing name)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return (isinstance(exc, ValueError) and bool(frames) and frames[-1].name in ("register_pass", "register_pipeline")
            and os.path.realpath(frames[-1].filename) == os.path.realpath(registry.__file__))


def _taken(message: str) -> str:
    """register_pass's refusal reworded to say who owns the name."""
    m = re.match(r"(?:pass|pipeline) '([^']+)' registered twice", message)
    if not m:
        return message
    name = m.group(1)
    owner = plugin_of(name)
    if owner is not None:
        who = f"a pass of the pass plugin '{owner.source}'"
    elif name in registry.PIPELINES:
        who = "a named pipeline of hlokit"
    else:
        cls = registry.PASSES.get(name)
        who = f"hlokit's pass {cls.__name__}" if cls is not None else "another pass"
    return f"pass '{name}' is already registered ({who}); choose another name"


def _check_names(new: list[str], source: str, shown: dict[str, str]) -> None:
    """Refuse a registered class that is no Pass, a name that cannot be a flag, and an upstream pass's name."""

    def at(cls, message):
        file, line = _class_position(cls)
        if file is None:
            return _error(message, source)
        return _error(message, shown.get(os.path.realpath(file), file), line, 1)

    for name in new:
        cls = registry.PASSES[name]
        if not (isinstance(cls, type) and issubclass(cls, registry.Pass)):
            raise at(cls, f"cannot load pass plugin: '{name}' is registered with {cls!r}, which is no "
                          "subclass of hlokit.passes.registry.Pass")
        if not _NAME.match(name):
            raise at(cls, f"cannot load pass plugin: pass name '{name}' cannot be a flag or a pipeline element "
                          "(letters, digits, '-', '_' and '.' only)")
    for name in sorted(_upstream_names(new), key=new.index):
        raise at(registry.PASSES[name], f"cannot load pass plugin: pass '{name}' is already an upstream MLIR "
                                        "pass; a plugin may not shadow it (choose another name)")


def _check_pipelines(new: list[str], source: str) -> None:
    """Refuse a named pipeline whose name cannot be a flag or is an upstream pass's (located at the plugin)."""
    for name in new:
        if not _NAME.match(name):
            raise _error(f"cannot load pass plugin: pipeline name '{name}' cannot be a flag or a pipeline element "
                         "(letters, digits, '-', '_' and '.' only)", source)
    for name in sorted(_upstream_names(new), key=new.index):
        raise _error(f"cannot load pass plugin: pipeline '{name}' is already an upstream MLIR pass; a plugin may "
                     "not shadow it (choose another name)", source)


def unload_pass_plugin(source: str) -> list[str]:
    """Unregister the passes of the loaded plugin ``source`` (as given to :func:`load_pass_plugin`, resolved
    against the current directory, or its :attr:`Plugin.key`) and
    forget it (its module leaves ``sys.modules`` for a file plugin), so it can be loaded afresh. Returns
    the names removed; [] when ``source`` is not loaded. For tests and long-lived processes."""
    plugin = _PLUGINS.pop(_key(str(source)), None)
    if plugin is None:
        return []
    for name in plugin.passes:
        registry.PASSES.pop(name, None)
    for name in plugin.pipelines:
        registry.PIPELINES.pop(name, None)
    if plugin.owns_module:
        name = plugin.module.__name__
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]
    return plugin.passes + plugin.pipelines


def raised_at(exc: BaseException, argument: str) -> str:
    """Where in its plugin pass ``argument`` raised ``exc``: ``"FILE:LINE:COL"`` of the innermost frame of
    the traceback in the plugin's file (named as the user gave it), or '' (not a plugin's pass, or not
    raised in its file). For the located error of a plugin pass that fails with an exception."""
    plugin = plugin_of(argument)
    if plugin is None:
        return ""
    path = getattr(plugin.module, "__file__", None)
    if not path:
        return ""
    real = os.path.realpath(path)
    files = {real}
    if not plugin.owns_module or not plugin.module.__name__.startswith("hlokit_pass_plugin_"):
        _add_module_files(plugin.module.__name__, files)
    frame = _frame_in(exc.__traceback__, files)
    if frame is None or not frame.lineno:
        return ""
    shown = plugin.source if os.path.realpath(frame.filename) == real and plugin.source.endswith(".py") else frame.filename
    return f"{shown}:{frame.lineno}:{(getattr(frame, 'colno', None) or 0) + 1}"


registry.register_plugin_loader(load_pass_plugin)  # hlokit.passes.registry.load_pass_plugin calls it
