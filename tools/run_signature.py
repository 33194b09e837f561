"""The signature of a program that hlokit-run reads beyond its types: jax's multi-platform exports (the
``_platform_index`` argument, a ``jax.global_constant``) and jax's argument names (``jax.arg_info``, name
locations). See ``jax.export`` (https://docs.jax.dev/en/latest/export/export.html, "Cross-platform and
multi-platform export")."""

from __future__ import annotations

import dataclasses
import re

from jaxlib.mlir import ir

import hlokit

__all__ = ["PLATFORM_INDEX", "PlatformChoice", "function_op", "module_platforms", "fill_platform_index",
           "argument_names", "ExportedFacts", "exported_facts"]


#: The ``jax.global_constant`` argument jax.export adds to a module lowered for several platforms
#: (``platforms=("cpu", "cuda")``): the index of the platform in that tuple, which a ``case`` over the lowerings reads.
PLATFORM_INDEX = "_platform_index"


@dataclasses.dataclass
class PlatformChoice:
    """The lowering chosen in a multi-platform export (:func:`fill_platform_index`): ``index`` into
    ``platforms`` (the platforms of the export, in order)."""

    index: int
    platforms: list[str]

    def describe(self) -> str:
        """``platform index 0 (cpu) of the export's lowerings cpu, cuda``."""
        return (f"platform index {self.index} ({self.platforms[self.index]}) of the export's lowerings "
                f"{', '.join(self.platforms)}")


def function_op(module: ir.Module, function: str):
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == function:
            return op
    return None


def _arg_attr(fn, i: int, key: str) -> ir.Attribute | None:
    if "arg_attrs" not in fn.attributes:
        return None
    attrs = ir.ArrayAttr(fn.attributes["arg_attrs"])
    if i >= len(attrs):
        return None
    d = ir.DictAttr(attrs[i])
    return d[key] if key in d else None


def module_platforms(module: ir.Module) -> list[str] | None:
    """The platforms a module was exported for, where the module records them (an array of strings in its
    ``mhlo.platforms`` or ``jax.platforms`` attribute); None where it does not (jax.export keeps them in
    ``Exported.platforms``, outside the module text)."""
    for key in ("mhlo.platforms", "jax.platforms"):
        if key in module.operation.attributes:
            try:
                return [ir.StringAttr(a).value for a in ir.ArrayAttr(module.operation.attributes[key])]
            except (ValueError, TypeError):
                return None
    return None


def fill_platform_index(module: ir.Module, function: str, platform: str, platforms: list[str] | None,
                        name: str) -> PlatformChoice | None:
    """Fill in jax's ``_platform_index`` argument of ``function`` (a scalar ``tensor<i32>`` argument with
    ``jax.global_constant = "_platform_index"``, which ``jax.export(..., platforms=(...))`` adds first) with
    the index of ``platform`` in the export's platforms, in place: the argument becomes a
    ``stablehlo.constant`` and leaves the signature, so the remaining arguments are the function's real ones.

    ``platforms``: the export's platforms in order (``--exported-platforms``), else those the module records
    (:func:`module_platforms`). Returns None for a module without such an argument. Other
    ``jax.global_constant`` arguments (jax passes its dimension variables so, to inner functions) stay
    ordinary arguments. Raises HlokitError (``NAME: error: ...``) where the platforms are unknown,
    ``platform`` is not one of them (naming them), or the argument is not a ``tensor<i32>``. jax's convention:
    ``jax/_src/export/_export.py`` (``_wrap_main_func``, public docs of ``jax.export`` multi-platform).
    """
    fn = function_op(module, function)
    if fn is None:
        return None  # (signature() reports the missing function)
    block = fn.regions[0].blocks[0]
    index_arg = None
    for i in range(len(block.arguments)):
        attr = _arg_attr(fn, i, "jax.global_constant")
        if attr is None:
            continue
        try:
            what = ir.StringAttr(attr).value
        except (ValueError, TypeError):
            continue
        if what == PLATFORM_INDEX:  # (other global constants, jax's dimension variables of inner functions,
            index_arg = i           # stay ordinary arguments: only the user can know them)
            break
    if index_arg is None:
        return None
    platforms = platforms or module_platforms(module)
    if not platforms:
        raise hlokit.HlokitError(
            f"@{function} is a multi-platform export (argument {index_arg} is jax's '{PLATFORM_INDEX}'), but the "
            "module does not record the platforms of its lowerings (jax.export keeps them in Exported.platforms); "
            "give them in export order with --exported-platforms, e.g. --exported-platforms cpu,cuda", file=name)
    if platform not in platforms:
        raise hlokit.HlokitError(
            f"this multi-platform export has no lowering for {platform}: its lowerings are for "
            f"{', '.join(platforms)} (pick one with --platform)", file=name)
    index = platforms.index(platform)
    arg = block.arguments[index_arg]
    if str(arg.type) != "tensor<i32>":
        raise hlokit.HlokitError(f"argument {index_arg} of @{function} ('{PLATFORM_INDEX}') has type {arg.type}, "
                                 "expected tensor<i32>", file=name)
    with module.context, ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        value = ir.DenseElementsAttr.get_splat(arg.type, ir.IntegerAttr.get(i32, index))
        first = block.operations[0]
        const = ir.Operation.create("stablehlo.constant", results=[arg.type], attributes={"value": value},
                                    ip=ir.InsertionPoint(first))
        arg.replace_all_uses_with(const.result)
        block.erase_argument(index_arg)
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        inputs = [t for k, t in enumerate(ftype.inputs) if k != index_arg]
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, list(ftype.results)))
        if "arg_attrs" in fn.attributes:
            attrs = [a for k, a in enumerate(ir.ArrayAttr(fn.attributes["arg_attrs"])) if k != index_arg]
            fn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
    return PlatformChoice(index, list(platforms))


def argument_names(module: ir.Module, function: str) -> list[str | None]:
    """jax's name of each argument of ``function`` (its ``jax.arg_info`` attribute, else a name location
    such as ``loc("params['w']")``); None for an argument without one, [] for a missing function."""
    fn = function_op(module, function)
    if fn is None:
        return []
    block = fn.regions[0].blocks[0]
    names: list[str | None] = []
    for i, arg in enumerate(block.arguments):
        attr = _arg_attr(fn, i, "jax.arg_info")
        if attr is not None:
            try:
                names.append(ir.StringAttr(attr).value)
                continue
            except (ValueError, TypeError):
                pass
        text = str(arg.location)  # loc("params['w']") or loc("x"(...)); unknown / file locations carry no name
        m = re.match(r'^loc\("((?:[^"\\]|\\.)*)"(\)|\()', text)
        names.append(m.group(1) if m and not re.match(r'^loc\("[^"]*":\d', text) else None)
    return names


@dataclasses.dataclass
class ExportedFacts:
    """What a module read from JAX's serialized ``Exported`` carries (``hlokit.exported.annotate`` writes it
    as module attributes): the platforms of its lowerings in export order, the device count it was exported
    for, jax's calling convention version."""

    platforms: list[str]
    nr_devices: int
    calling_convention_version: int | None

    def describe(self) -> str:
        """``serialized jax.export for cpu, cuda; 2 devices; calling convention 10``."""
        devices = f"{self.nr_devices} device{'s' if self.nr_devices != 1 else ''}"
        version = (f"; calling convention {self.calling_convention_version}"
                   if self.calling_convention_version is not None else "")
        return f"serialized jax.export for {', '.join(self.platforms)}; {devices}{version}"


def exported_facts(module: ir.Module) -> ExportedFacts | None:
    """The facts of a module read from JAX's serialized ``Exported`` (its ``jax.nr_devices``, ``jax.platforms``
    and ``jax.calling_convention_version`` attributes), None for a module without ``jax.nr_devices``."""
    attrs = module.operation.attributes
    if "jax.nr_devices" not in attrs:
        return None
    try:
        devices = ir.IntegerAttr(attrs["jax.nr_devices"]).value
        version = (ir.IntegerAttr(attrs["jax.calling_convention_version"]).value
                   if "jax.calling_convention_version" in attrs else None)
    except (ValueError, TypeError):
        return None
    return ExportedFacts(module_platforms(module) or [], devices, version)
