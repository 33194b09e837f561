"""hlokit-run's files and values: the inputs it reads (``--inputs`` ``.npz``, ``--input`` in the forms of
``iree-run-module`` and XLA's ``run_hlo_module``), the recorded outputs of ``--expected``, the outputs it writes
(``--output``: an ``.npz``, a directory or a pattern of ``.npy`` files), the one-line summary and the printed
values of each output (``--print-outputs``), and the progress shown on a terminal for long work.

``--input`` forms (:func:`parse_input_options`):

- ``NAME=FILE.npy`` / ``NAME=@FILE.npy``: argument NAME (``arg_<i>`` or jax's name of it) from an ``.npy``;
- ``@FILE.npy``: positional, the argument after the one the previous ``--input`` gave (``arg_0`` first);
- ``TYPE=VALUES`` (``2x2xf32=1,2,3,4``, ``f32=3``, ``4xi1=true,false,1,0``, ``2xcomplex<f32>=1+2j,3``):
  positional, values given inline as ``iree-run-module --input=2x2xf32=1 2 3 4`` takes them (commas or spaces,
  brackets ignored; one value splats over the shape); ``NAME=TYPE=VALUES`` names the argument. TYPE is the
  tensor type's MLIR spelling without ``tensor<>`` (IREE's ``c64`` / ``c128`` are read as ``complex<f32>`` /
  ``complex<f64>``). See https://iree.dev/developers/general/developer-overview/#iree-run-module.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import sys
import threading
import time
from typing import Sequence

import numpy as np

import hlokit
from hlokit import dtypes
from hlokit.backend import TensorSpec
from hlokit.tools.common import write_output

def random_input(spec: TensorSpec, rng: np.random.Generator) -> np.ndarray:
    """A seeded random array for ``spec``: normal floats, small ints (|x| <= 10), random bools."""
    dt = spec.dtype
    if dt == np.bool_:
        return rng.integers(0, 2, size=spec.shape).astype(np.bool_)
    if np.issubdtype(dt, np.complexfloating):
        return (rng.standard_normal(spec.shape) + 1j * rng.standard_normal(spec.shape)).astype(dt)
    small = {"int2": (-2, 2), "int4": (-8, 8), "uint2": (0, 4), "uint4": (0, 16)}
    if dt.name in small:
        lo, hi = small[dt.name]
        return rng.integers(lo, hi, size=spec.shape).astype(dt)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -10
        return rng.integers(lo, 11, size=spec.shape).astype(dt)
    return rng.standard_normal(spec.shape).astype(dt)


def load_inputs(path: str, specs: list[TensorSpec], names: Sequence[str | None] = (),
                partial: bool = False) -> list[np.ndarray] | dict[int, np.ndarray]:
    """Read ``arg_0``, ``arg_1``, ... from an ``.npz`` (no pickled objects); ``names``: jax's argument names
    (:func:`argument_names`), named in the messages. ``partial``: keys may be missing (other arguments come
    from ``--input``); the result is then a dict argument index -> array.

    Raises HlokitError (``PATH: error: --inputs: ...``) for a file that is missing or not a readable
    ``.npz`` (truncated, corrupt, empty, a single ``.npy`` array), an object array, or a missing, extra,
    wrongly shaped or wrongly typed key.
    """

    def fail(msg: str) -> hlokit.HlokitError:
        return hlokit.HlokitError(f"--inputs: {msg}", file=path)

    try:
        npz = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise fail("no such file") from None
    except IsADirectoryError:
        raise fail("is a directory, expected an .npz file") from None
    except Exception as exc:  # zipfile / numpy raise many kinds for a damaged file
        raise fail(f"not a readable .npz file (numpy.savez): {type(exc).__name__}: {exc or 'no data'}") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise fail("is a single .npy array; expected an .npz archive with keys arg_0, arg_1, ... (numpy.savez)")
    with npz:
        keys = set(npz.files)
        expected = [f"arg_{i}" for i in range(len(specs))]
        missing = [k for k in expected if k not in keys]
        extra = sorted(keys - set(expected))
        if missing and not partial:
            want = ", ".join(described_arg(int(k[4:]), names, specs) for k in missing)
            raise fail(f"missing input(s) {want}; the program takes {len(specs)} argument(s)")
        if extra:
            raise fail(
                f"unexpected input(s) {', '.join(extra)}: the program takes {len(specs)} argument(s): "
                f"{described_args(names, specs)}" if specs else f"unexpected input(s) {', '.join(extra)}: the program takes no arguments"
            )
        out = {}
        for i, (k, spec) in enumerate(zip(expected, specs)):
            if k not in keys:
                continue
            try:
                a = npz[k]
            except ValueError as exc:
                if "allow_pickle" in str(exc):
                    raise fail(f"input {k} is an object array (pickled Python objects are not read); expected {spec}") from None
                raise fail(f"input {k} cannot be read: {exc}") from None
            except Exception as exc:
                raise fail(f"input {k} cannot be read: {type(exc).__name__}: {exc or 'no data'}") from None
            out[i] = _check_array(a, spec, fail, f"input {k}")
        return out if partial else [out[i] for i in range(len(specs))]


def load_expected(path: str, specs: list[TensorSpec]) -> list[np.ndarray]:
    """Read the recorded outputs ``output_0``, ``output_1``, ... (as ``--output`` writes them) from an ``.npz``.

    Raises HlokitError (``PATH: error: --expected: ...``) for a file that is not a readable ``.npz``, an
    object array, or a missing, extra, wrongly shaped or wrongly typed output (naming it and the program's
    result type).
    """

    def fail(msg: str) -> hlokit.HlokitError:
        return hlokit.HlokitError(f"--expected: {msg}", file=path)

    try:
        npz = np.load(path, allow_pickle=False)
    except Exception as exc:  # zipfile / numpy raise many kinds for a damaged file
        raise fail(f"not a readable .npz file (numpy.savez): {type(exc).__name__}: {exc or 'no data'}") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise fail("is a single .npy array; expected an .npz archive with keys output_0, output_1, ... (as --output writes)")
    with npz:
        names = [f"output_{i}" for i in range(len(specs))]
        missing = [k for k in names if k not in npz.files]
        extra = sorted(set(npz.files) - set(names))
        if missing:
            want = ", ".join(f"{k} ({specs[int(k[7:])]})" for k in missing)
            raise fail(f"missing output(s) {want}; the program has {len(specs)} result(s)")
        if extra:
            raise fail(f"unexpected output(s) {', '.join(extra)}: the program has {len(specs)} result(s)"
                       + (f" (output_0..output_{len(specs) - 1})" if specs else ""))
        out = []
        for k, spec in zip(names, specs):
            try:
                a = npz[k]
            except Exception as exc:
                raise fail(f"output {k} cannot be read (pickled objects are not read): {type(exc).__name__}: {exc}") from None
            out.append(_check_array(a, spec, fail, f"output {k}", ("the program gives", "the file has")))
        return out


def described_arg(i: int, names: Sequence[str | None], specs: Sequence[TensorSpec]) -> str:
    """``arg_1 (params['w']: tensor<2x3xf32>)`` for an error message: jax's name where the module carries it."""
    n = names[i] if i < len(names) else None
    return f"arg_{i} ({n}: {specs[i]})" if n else f"arg_{i} ({specs[i]})"


def described_args(names: Sequence[str | None], specs: Sequence[TensorSpec]) -> str:
    """Every argument as :func:`described_arg` says it, comma-separated."""
    return ", ".join(described_arg(i, names, specs) for i in range(len(specs)))


def _check_array(a: np.ndarray, spec: TensorSpec, fail, what: str,
                 words: tuple[str, str] = ("expected", "got")) -> np.ndarray:
    """``a`` (an input or a recorded output read from a file) checked against ``spec``: ml_dtypes arrays that
    numpy read as raw bytes are viewed as their type; another element type or shape raises ``fail(message)``
    (a dimension of -1, a dynamic result's, matches any size). ``words``: how the message names the
    program's side and the file's."""
    ours, theirs = words
    if a.dtype.kind == "V" and a.dtype.itemsize == spec.dtype.itemsize:
        a = a.view(spec.dtype)  # ml_dtypes arrays (bf16, f8, ...) come back from .npy / .npz as raw bytes
    if a.dtype != spec.dtype:
        raise fail(f"{what}: {ours} element type {spec.dtype} ({spec}) but {theirs} {a.dtype}")
    if len(a.shape) != len(spec.shape) or any(s >= 0 and s != d for s, d in zip(spec.shape, a.shape)):
        raise fail(f"{what}: {ours} shape {spec.shape} ({spec}) but {theirs} {tuple(a.shape)}")
    return a


def parse_shape_options(values: Sequence[str]) -> list[tuple[str, tuple[int, ...]]]:
    """``--shape NAME=8x16`` values as (NAME, shape) pairs (``NAME=`` is a scalar); HlokitError for one
    without ``=`` or with a dimension that is not an integer >= 0."""
    out = []
    for v in values:
        name, sep, dims = v.partition("=")
        try:
            shape = tuple(int(d) for d in dims.split("x")) if dims else ()
            if not sep or not name or any(d < 0 for d in shape):
                raise ValueError
        except ValueError:
            raise hlokit.HlokitError(f"--shape: expected NAME=D0xD1x... (NAME: arg_0, arg_1, ... or jax's argument "
                                     f"name; dimensions integers >= 0), got '{v}'") from None
        out.append((name, shape))
    return out


def peek_shape(path: str, key: str | None) -> tuple[int, ...] | None:
    """The shape of array ``key`` of the ``.npz`` ``path`` (of the ``.npy`` ``path`` for None); None where it
    cannot be read (the loaders report why later)."""
    try:
        if key is None:
            return tuple(np.load(path, mmap_mode="r", allow_pickle=False).shape)
        with np.load(path, allow_pickle=False) as npz:
            return tuple(npz[key].shape) if key in npz.files else None
    except Exception:
        return None


def nbytes(spec: TensorSpec) -> int:
    """Bytes of one array of ``spec`` (Python ints: no overflow for absurd shapes)."""
    n = spec.dtype.itemsize
    for d in spec.shape:
        n *= max(int(d), 1)  # (a dynamic result dimension, -1: counted as 1)
    return n


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(name: str, specs: list[TensorSpec], out_specs: list[TensorSpec], limit: int | None) -> None:
    """Refuse a program whose arguments plus results need more than ``limit`` bytes, before allocating."""
    if limit is None:
        return
    need = sum(nbytes(s) for s in specs) + sum(nbytes(s) for s in out_specs)
    if need > limit:
        big = max(list(specs) + list(out_specs), key=nbytes)
        raise hlokit.HlokitError(
            f"the arguments and results of this program need {_size(need)}, more than this machine's "
            f"memory ({_size(limit)}); the largest is {big} ({_size(nbytes(big))})",
            file=name,
        )


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:.4g} {unit}" if unit != "bytes" else f"{n} bytes"
        n /= 1024
    return str(n)


def summarize(a: np.ndarray) -> str:
    """One line: shape, dtype, min / max / mean, NaN count."""
    shape = "x".join(map(str, a.shape)) or "scalar"
    if a.size == 0:
        return f"shape={shape} dtype={a.dtype} (empty)"
    if np.issubdtype(a.dtype, np.complexfloating):
        mag = np.abs(a)
        nans = int(np.isnan(a).sum())
        return f"shape={shape} dtype={a.dtype} |min|={mag.min():.6g} |max|={mag.max():.6g} mean={a.mean():.6g} nan={nans}"
    f = a.astype(np.float64)
    nans = int(np.isnan(f).sum())
    finite = f[~np.isnan(f)]
    if finite.size == 0:
        return f"shape={shape} dtype={a.dtype} all NaN nan={nans}"
    return (
        f"shape={shape} dtype={a.dtype} min={finite.min():.6g} max={finite.max():.6g} "
        f"mean={finite.mean():.6g} nan={nans}"
    )



# -- --input in its several forms

#: IREE's element type spellings that differ from MLIR's (``iree_hal_element_type_t`` names).
_TYPE_ALIASES = {"c64": "complex<f32>", "c128": "complex<f64>"}
_INLINE_TYPE = re.compile(r"((?:[0-9]+x)*)([a-zA-Z][a-zA-Z0-9]*(?:<f(?:32|64)>)?)")
_FORMS = ("NAME=FILE.npy, NAME=@FILE.npy, @FILE.npy, TYPE=VALUES (2x2xf32=1,2,3,4) or NAME=TYPE=VALUES "
          "(NAME: arg_0, arg_1, ... or jax's argument name)")


@dataclasses.dataclass
class InputOption:
    """One ``--input``: ``name`` (None: positional), and either ``path`` (an ``.npy``) or ``shape`` /
    ``dtype`` / ``values`` (inline). ``text`` is the option as given."""

    text: str
    name: str | None
    path: str | None = None
    shape: tuple[int, ...] = ()
    dtype: np.dtype | None = None
    values: str = ""

    @property
    def label(self) -> str:
        """How messages name it: ``--input NAME`` or ``--input TEXT`` (positional)."""
        return f"--input {self.name if self.name is not None else self.text}"


def _inline_type(text: str) -> tuple[tuple[int, ...], np.dtype] | None:
    """(shape, dtype) of ``2x2xf32`` (``f32``: a scalar); None when ``text`` is not a tensor type spelling."""
    m = _INLINE_TYPE.fullmatch(text)
    if not m:
        return None
    elem = _TYPE_ALIASES.get(m.group(2), m.group(2))
    if elem not in dtypes.DTYPES:
        return None
    return tuple(int(d) for d in m.group(1).split("x")[:-1]), dtypes.DTYPES[elem]


def parse_input_options(values: Sequence[str]) -> list[InputOption]:
    """The ``--input`` values (the forms of this module's docstring) as :class:`InputOption` s. A head
    before ``=`` that spells a tensor type is read as an inline value, else as an argument's name.

    Raises HlokitError (``error: --input: expected ...``) for a value of none of the forms."""
    out = []
    for v in values:
        head, sep, rest = v.partition("=")
        typed = _inline_type(head) if sep else None
        if v.startswith("@") and len(v) > 1:
            out.append(InputOption(v, None, path=v[1:]))
        elif typed is not None:
            out.append(InputOption(v, None, shape=typed[0], dtype=typed[1], values=rest))
        elif sep and head and rest:
            ty, sep2, vals = rest.partition("=")
            typed = _inline_type(ty) if sep2 else None
            if typed is not None:
                out.append(InputOption(v, head, shape=typed[0], dtype=typed[1], values=vals))
            elif rest != "@":
                out.append(InputOption(v, head, path=rest[1:] if rest.startswith("@") else rest))
            else:
                out = None
        else:
            out = None
        if out is None:
            raise hlokit.HlokitError(f"--input: expected NAME=FILE.npy or one of {_FORMS}, got '{v}'")
    return out


def resolve_input_indices(options: Sequence[InputOption], count: int, names: Sequence[str | None],
                          program: str = "-", arg_text: Sequence[str] | None = None) -> list[int]:
    """The argument index each ``--input`` gives: a named one its argument (``arg_<i>`` or jax's name,
    :func:`~hlokit.tools.run_signature.argument_names`), a positional one the argument after the previous
    ``--input``'s (``arg_0`` for the first). ``arg_text``: how messages show each argument (its type).

    Raises HlokitError (``PROGRAM: error: --input ...``) for an unknown name (listing the arguments), a
    positional input past the last argument, or an argument given twice."""
    by_name = {f"arg_{i}": i for i in range(count)}
    for i, n in enumerate(names[:count]):
        if n and n not in by_name:
            by_name[n] = i
    shown = arg_text if arg_text is not None else [""] * count

    def describe(i: int) -> str:  # arg_1 (params['w']: tensor<2x3xf32>), as described_arg says it
        n = names[i] if i < len(names) and names[i] else ""
        inner = f"{n}: {shown[i]}" if n and shown[i] else n or shown[i]
        return f"arg_{i} ({inner})" if inner else f"arg_{i}"

    listing = ", ".join(describe(i) for i in range(count)) or "none"
    out, previous, seen = [], -1, {}
    for opt in options:
        if opt.name is None:
            i = previous + 1
            if i >= count:
                raise hlokit.HlokitError(f"{opt.label}: positional input for arg_{i}, but the program takes "
                                         f"{count} argument(s): {listing}", file=program)
        elif opt.name in by_name:
            i = by_name[opt.name]
        else:
            raise hlokit.HlokitError(f"{opt.label}: no such argument; the program takes {count} argument(s): "
                                     f"{listing}", file=program)
        if i in seen:
            raise hlokit.HlokitError(f"{opt.label}: argument arg_{i} is given twice (by two --input options: "
                                     f"{seen[i]} and {opt.text})", file=program)
        seen[i] = opt.text
        out.append(i)
        previous = i
    return out


def _parse_scalar(text: str, dtype: np.dtype):
    """One inline value of element type ``dtype``: ``true`` / ``false`` / ``1`` / ``0`` for ``i1``, Python's
    int (``0x..`` too) for integers, float (``nan``, ``inf``) for floats, ``1+2j`` for complex. ValueError else."""
    t = text.strip()
    if dtype == np.bool_:
        low = t.lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise ValueError(f"'{t}' is not a boolean (true, false, 1, 0)")
    if _is_int(dtype):
        v = int(t, 0)
        lo, hi = _int_range(dtype)
        if not lo <= v <= hi:
            raise ValueError(f"{v} is outside the range of {dtypes.type_name(dtype)} [{lo}, {hi}]")
        return v
    if dtype.kind == "c":
        return complex(t.replace("i", "j") if t.endswith("i") else t)
    return float(t)


def _int_range(dtype: np.dtype) -> tuple[int, int]:
    """The smallest and largest value of an integer dtype (ml_dtypes' 2- and 4-bit ones too)."""
    bits = dtypes.bit_width(dtype)
    return (0, 2**bits - 1) if dtype.name.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _is_int(dtype: np.dtype) -> bool:
    return dtype.kind in "iu" or dtype.name in ("int2", "int4", "uint2", "uint4")


def inline_array(opt: InputOption) -> np.ndarray:
    """The array of an inline ``--input`` (``2x2xf32=1,2,3,4``): values separated by commas or spaces,
    brackets ignored, row-major; one value fills the whole shape. Raises HlokitError (``error: --input
    ...``) for a value that does not parse as the element type or a count other than 1 or the shape's size."""
    words = [w for w in re.split(r"[\s,\[\]]+", opt.values) if w]
    size = int(np.prod(opt.shape, dtype=np.int64))
    type_text = dtypes.type_str(opt.shape, opt.dtype)
    if len(words) not in (1, size):
        raise hlokit.HlokitError(f"{opt.label}: {type_text} takes {size} value(s) (or one, splatted), got "
                                 f"{len(words)}")
    try:
        parsed = [_parse_scalar(w, opt.dtype) for w in words]
    except ValueError as exc:
        raise hlokit.HlokitError(f"{opt.label}: not a value of {type_text}: {exc}") from None
    wide = (np.complex128 if opt.dtype.kind == "c" else np.bool_ if opt.dtype == np.bool_
            else np.uint64 if opt.dtype == np.uint64 else np.int64 if _is_int(opt.dtype) else np.float64)
    a = np.array(parsed, dtype=wide)
    a = np.full(opt.shape, a[0], dtype=wide) if len(parsed) == 1 else a.reshape(opt.shape)
    return a.astype(opt.dtype)


def _load_npy(path: str, fail) -> np.ndarray:
    """Read one ``.npy`` (no pickled objects); ``fail(message)`` gives the error to raise."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
        if magic[:4] == b"PK\x03\x04":
            raise fail("is an .npz archive; --input takes one .npy array (numpy.save), --inputs an .npz")
        if magic != b"\x93NUMPY":
            raise fail("not an .npy file (numpy.save): no .npy header")
        return np.load(path, allow_pickle=False)
    except hlokit.HlokitError:
        raise
    except FileNotFoundError:
        raise fail("no such file") from None
    except IsADirectoryError:
        raise fail("is a directory, expected an .npy file") from None
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise fail("is an object array (pickled Python objects are not read)") from None
        raise fail(f"not a readable .npy file (numpy.save): {exc}") from None
    except Exception as exc:
        raise fail(f"not a readable .npy file (numpy.save): {type(exc).__name__}: {exc or 'no data'}") from None


def input_shape(opt: InputOption) -> tuple[int, ...] | None:
    """The shape an ``--input`` gives (what refines a symbolic argument): an inline one's type's, an
    ``.npy``'s header's (None where it cannot be read: :func:`load_single_inputs` says why later)."""
    return opt.shape if opt.path is None else peek_shape(opt.path, None)


def load_single_inputs(options: Sequence[InputOption], specs: list[TensorSpec], names: Sequence[str | None],
                       given: dict[int, np.ndarray], program: str = "-") -> dict[int, np.ndarray]:
    """Read each ``--input`` (:func:`parse_input_options`) into ``given`` (argument index -> array; ``given``
    holds what ``--inputs`` gave), to the argument :func:`resolve_input_indices` assigns it.

    Raises HlokitError (``FILE: error: --input NAME: ...``) for a missing or unreadable ``.npy`` (an ``.npz``,
    an object array), a wrong shape or element type (of a file or of an inline TYPE), a bad inline value;
    (``PROGRAM: error: --input NAME: ...``) for an unknown name (listing the arguments, with jax's names) or
    an argument given twice."""
    indices = resolve_input_indices(options, len(specs), names, program, [str(s) for s in specs])
    for opt, i in zip(options, indices):
        if i in given:
            raise hlokit.HlokitError(f"{opt.label}: argument arg_{i} is given twice (by --input and --inputs, "
                                     "or by two --input options)", file=program)

        def fail(msg: str, opt=opt) -> hlokit.HlokitError:
            return hlokit.HlokitError(f"{opt.label}: {msg}", file=opt.path or program)

        if opt.path is not None:
            given[i] = _check_array(_load_npy(opt.path, fail), specs[i], fail, "the array")
        else:
            value = inline_array(opt)
            given[i] = _check_array(value, specs[i], fail, f"arg_{i}",
                                    ("the program takes", f"{dtypes.type_str(value.shape, value.dtype)} gives"))
    return given


# -- --output, --print-outputs

def output_files(target: str, count: int) -> list[str] | None:
    """The ``.npy`` files ``--output TARGET`` writes, one per output: ``DIR/`` (a trailing slash, or an
    existing directory) -> ``DIR/output_<i>.npy``; a pattern with ``{}`` -> ``{}`` replaced by the output's
    index (``out_{}.npy`` -> ``out_0.npy``, ...). None: ``TARGET`` is one ``.npz`` (keys ``output_<i>``)."""
    if "{}" in target:
        return [target.replace("{}", str(i)) for i in range(count)]
    if target.endswith(("/", os.sep)) or os.path.isdir(target):
        return [os.path.join(target, f"output_{i}.npy") for i in range(count)]
    return None


def check_output_target(target: str | None) -> None:
    """Refuse, before any work, an ``--output`` that cannot be written: a directory form whose parent does
    not exist, a file or pattern whose directory does not exist. Raises HlokitError naming ``--output``."""
    if target is None:
        return
    files = output_files(target, 1)
    if files is None:
        if os.path.isdir(target):  # (output_files reads an existing directory as the directory form)
            return
        directory = os.path.dirname(os.path.abspath(target))
    elif "{}" in target:
        directory = os.path.dirname(os.path.abspath(files[0]))
    else:
        directory = os.path.dirname(os.path.abspath(target.rstrip("/" + os.sep)))
    if not os.path.isdir(directory):
        shown = os.path.dirname(target.rstrip("/" + os.sep) if files is not None and "{}" not in target else target)
        raise hlokit.HlokitError(f"--output: cannot write '{target}': directory '{shown or '.'}' does not exist")


def write_outputs(target: str, outputs: Sequence[np.ndarray]) -> list[str]:
    """Write ``outputs`` as ``--output TARGET`` says (:func:`output_files`); returns the files written.
    Everything is serialized first, then written: a failure to serialize writes nothing."""
    files = output_files(target, len(outputs))
    if files is None:
        buf = io.BytesIO()
        np.savez(buf, **{f"output_{i}": o for i, o in enumerate(outputs)})
        write_output(target, buf.getvalue())
        return [target]
    blobs = []
    for o in outputs:
        buf = io.BytesIO()
        np.save(buf, o, allow_pickle=False)
        blobs.append(buf.getvalue())
    if "{}" not in target:
        os.makedirs(target, exist_ok=True)
    for path, blob in zip(files, blobs):
        write_output(path, blob)
    return files


def format_values(a: np.ndarray, max_elements: int) -> str:
    """The values of ``a`` as numpy prints them, elided (``...``, three items at each end of each axis)
    when ``a`` has more than ``max_elements`` elements, as XLA's ``run_hlo_module
    --output_max_element_count`` does (numpy's ``threshold``); indented by four spaces."""
    f = a.astype(np.float32) if a.dtype.kind == "V" and a.dtype.itemsize <= 2 and not _is_int(a.dtype) else a
    with np.printoptions(threshold=max(max_elements, 0), edgeitems=3, linewidth=100):
        text = np.array2string(f, separator=", ")
    return "\n".join("    " + line for line in text.splitlines())


# -- progress on a terminal

class Progress:
    """Shows what long work is doing on ``stream`` (stderr) when it is a terminal, and nothing otherwise:
    after ``after`` seconds (0: at once), ``hlokit-run: LABEL... N s`` rewritten in place (``\\r``) every half
    second until the work ends, then the line is cleared. Use as a context manager; :meth:`update` changes the
    label (``run 3/100``)."""

    def __init__(self, label: str, stream=None, after: float = 1.0, interval: float = 0.5):
        self.label, self.after, self.interval = label, after, interval
        self.stream = sys.stderr if stream is None else stream
        self.shown = False
        self._stop = threading.Event()
        self._thread = None
        self._t0 = 0.0

    @property
    def active(self) -> bool:
        """Whether progress is shown at all (the stream is a terminal)."""
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False

    def update(self, label: str) -> None:
        """Show ``label`` from the next tick on."""
        self.label = label

    def _show(self) -> None:
        self.stream.write(f"\r\033[Khlokit-run: {self.label}... {time.perf_counter() - self._t0:.0f} s")
        self.stream.flush()
        self.shown = True

    def _tick(self) -> None:
        if self.after > 0:
            if self._stop.wait(self.after):
                return
            self._show()
        while not self._stop.wait(self.interval):
            self._show()

    def __enter__(self) -> "Progress":
        self._t0 = time.perf_counter()
        if self.active:
            if self.after <= 0:  # (shown at once)
                self._show()
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if self.shown:
                self.stream.write("\r\033[K")
                self.stream.flush()


def timing_summary(times: Sequence[float]) -> str:
    """``min 1.200 ms, median 1.300 ms, p90 1.500 ms`` of run times in seconds (p90: numpy's linear
    interpolation between the closest ranks)."""
    t = np.asarray(times, dtype=np.float64) * 1e3
    return f"min {t.min():.3f} ms, median {np.median(t):.3f} ms, p90 {np.percentile(t, 90):.3f} ms"
