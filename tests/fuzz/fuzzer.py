"""Deterministic robustness fuzzer for hlokit-opt, hlokit-translate and hlokit-run.

A *case* is one tool command line (``argv`` with ``{input}``, ``{output}``, ``{npz}`` placeholders) plus
the bytes of its input file (and of an ``--inputs`` ``.npz`` where used). Cases are generated from a seed:
case ``i`` of seed ``s`` is the same on every machine. Inputs are mutations of the committed
``examples/*.mlir``, ``examples/lower_to_core/**.mlir`` and of the upstream interpreter conformance files in ``../shared/conformance/interpret``
(when present): byte flips, line deletion / duplication, truncation, token swaps, changed shapes and element
types, swapped op names, huge / negative integers, invalid UTF-8, empty input, binary junk, deep nesting of
brackets, regions, types and attributes, truncated and bit-flipped MLIR bytecode (``--serialize`` and
``--emit-bytecode`` output); and bad command lines (pipelines, option values, ``--inputs`` files).

Every case runs in a subprocess with a timeout and is classified (:data:`CLASSES`):

``success``           exit 0, no ``error:`` on stderr
``clean_error``       exit 1 and the first ``error:`` line is ``FILE:LINE:COL: error: <reason>`` or
                      ``FILE: error: <reason>`` / ``hlokit-xxx: error: <reason>`` (a non-empty reason)
``internal_error``    exit 1 through a tool's catch-all ``internal error`` line (no location, a Python
                      exception name)
``unprefixed_error``  exit 1 but the error line has no file / tool prefix, an empty reason, or no
                      ``error:`` line at all
``wrong_exit``        exit code other than 0 / 1 (argparse's 2), or exit 0 with ``error:`` on stderr
``partial_output``    the ``-o`` / ``--output`` file exists after a failed run
``traceback``         a Python traceback on stderr
``abort``             killed by a signal (segmentation fault, ``terminate called ...``)
``hang``              still running at the timeout

The *program* cases (:func:`make_program_case`, ``run_many(programs=True)``, mode ``engine-both``) run a random
valid program of :mod:`fuzz.programs` with ``hlokit-run --engine both --max-ulp 0`` on its own inputs; besides
the classes above (``clean_error`` there is ``refused``: a valid program must run):

``mismatch``          the interpreter and XLA differ (more than 0 ULP in an output)
``refused``           exit 1 with a clean error other than the comparison's
``ftz``               they differ only where XLA CPU flushed a subnormal to zero (not a failure)

Everything but ``success``, ``clean_error`` (crash cases) and ``ftz`` is a failure; failures are saved as JSON
reproducers (:func:`save_reproducer`) that :func:`replay` runs again.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import io
import json
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import zipfile
from typing import Callable

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED_INTERPRET = REPO.parent / "shared" / "conformance" / "interpret"
REPRODUCERS = pathlib.Path(__file__).resolve().parent / "reproducers"

CLASSES = (
    "success",
    "clean_error",
    "internal_error",
    "unprefixed_error",
    "wrong_exit",
    "partial_output",
    "traceback",
    "abort",
    "hang",
    "mismatch",
    "refused",
    "ftz",
)
OK_CLASSES = ("success", "clean_error", "ftz")

TOOLS = {
    "hlokit-opt": "hlokit.tools.hlokit_opt",
    "hlokit-translate": "hlokit.tools.hlokit_translate",
    "hlokit-run": "hlokit.tools.hlokit_run",
}

PIPELINE = (
    "builtin.module(func.func(stablehlo-legalize-dot-to-dot-general,canonicalize),"
    "chlo-legalize-to-stablehlo,cse)"
)

# mode name -> (tool, argv template, input kind). Input kinds: "mlir" (a program), "interp" (one
# conformance test function), "bytecode" (a portable artifact), "hlo" (XLA HLO text), "run" (a program
# for hlokit-run, with an optional --inputs .npz).
MODES: dict[str, tuple[str, list[str], str]] = {
    "opt": ("hlokit-opt", ["{input}", "-o", "{output}"], "mlir"),
    "opt-python-pass": ("hlokit-opt", ["{input}", "--chlo-legalize-to-stablehlo", "-o", "{output}"], "mlir"),
    "opt-pipeline": ("hlokit-opt", ["{input}", f"--pass-pipeline={PIPELINE}", "-o", "{output}"], "mlir"),
    "opt-lower-to-core": ("hlokit-opt", ["{input}", "--stablehlo-lower-to-core", "-o", "{output}"], "mlir"),
    "opt-quant-to-math": ("hlokit-opt", ["{input}", "--stablehlo-legalize-quant-to-math", "-o", "{output}"], "mlir"),
    "opt-bytecode-in": ("hlokit-opt", ["{input}", "-o", "{output}"], "bytecode"),
    "translate-serialize": ("hlokit-translate", ["--serialize", "--target=current", "{input}", "-o", "{output}"], "mlir"),
    "translate-deserialize": ("hlokit-translate", ["--deserialize", "{input}", "-o", "{output}"], "bytecode"),
    "translate-to-hlo": ("hlokit-translate", ["--stablehlo-to-hlo-text", "{input}", "-o", "{output}"], "mlir"),
    "translate-from-hlo": ("hlokit-translate", ["--hlo-text-to-stablehlo", "{input}", "-o", "{output}"], "hlo"),
    "translate-interpret": ("hlokit-translate", ["--interpret", "{input}", "-o", "{output}"], "interp"),
    "translate-indexing": ("hlokit-translate", ["--indexing-maps", "{input}", "-o", "{output}"], "mlir"),
    "run": ("hlokit-run", ["{input}", "--output", "{output}"], "run"),
}

# Relative weights of the modes (hlokit-run starts XLA: about 4x the cost of the others).
MODE_WEIGHTS = {m: 1.0 for m in MODES}
MODE_WEIGHTS["run"] = 0.5
CMDLINE_WEIGHT = 1.5  # bad command lines, relative to one mode


@dataclasses.dataclass
class Case:
    """One fuzz case: ``tool`` run with ``argv`` (placeholders filled in by :func:`run_case`)."""

    seed: int
    index: int
    mode: str
    mutation: str
    tool: str
    argv: list[str]
    input: bytes
    npz: bytes | None = None
    input_name: str = "input.mlir"

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["input"] = base64.b64encode(self.input).decode()
        d["npz"] = base64.b64encode(self.npz).decode() if self.npz is not None else None
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Case":
        d = dict(d)
        d["input"] = base64.b64decode(d["input"])
        d["npz"] = base64.b64decode(d["npz"]) if d.get("npz") is not None else None
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in fields})


@dataclasses.dataclass
class Result:
    """What running a case gave: its class, exit code and the tail of stderr."""

    case: Case
    cls: str
    returncode: int | None
    stderr: str
    seconds: float


# ----------------------------------------------------------------------------------------------
# corpus


@functools.lru_cache(maxsize=None)
def corpus() -> dict[str, list[tuple[str, bytes]]]:
    """Seed inputs per kind: ``mlir`` programs, ``interp`` single conformance tests, ``bytecode``, ``hlo``."""
    programs = [(p.name, p.read_bytes()) for p in sorted((REPO / "examples").glob("*.mlir"))]
    # the ops stablehlo-lower-to-core removes: shape computations, deprecated ops, batch norm, rng, linalg
    programs += [(str(p.relative_to(REPO / "examples")).replace("/", "_"), p.read_bytes())
                 for p in sorted((REPO / "examples" / "lower_to_core").rglob("*.mlir"))]
    extra = REPO / "tests" / "lit" / "tools" / "run_function_platform.mlir"
    if extra.exists():
        programs.append((extra.name, extra.read_bytes()))
    interp: list[tuple[str, bytes]] = []
    if SHARED_INTERPRET.is_dir():
        for p in sorted(SHARED_INTERPRET.glob("*.mlir")):
            text = p.read_text(errors="replace")
            chunks = [c for c in re.split(r"(?m)^// -----\s*$", text) if "func.func" in c]
            for j, chunk in enumerate(chunks[:3]):
                interp.append((f"{p.name}#{j}", chunk.encode()))
    if not interp:  # no conformance files: the examples' simpler functions stand in
        interp = list(programs)
    hlo = [(p.name, p.read_bytes()) for p in sorted((REPO / "tests" / "lit" / "tools" / "Inputs").glob("*.hlo"))]
    hlo += [(n + ".hlo", t) for n, t in _derived("hlo")]
    bytecode = _derived("serialize") + _derived("emit-bytecode")
    return {
        "mlir": programs + interp[:: max(1, len(interp) // 20)],
        "interp": interp,
        "bytecode": bytecode,
        "hlo": hlo,
        "run": [(n, t) for n, t in programs if n in ("mlp.mlir", "run_function_platform.mlir", "cnn.mlir")]
        or programs,
    }


@functools.lru_cache(maxsize=None)
def _derived(kind: str) -> list[tuple[str, bytes]]:
    """Bytecode (``--serialize`` / ``--emit-bytecode``) or HLO text made from the valid example programs,
    by the tools themselves in a subprocess (the fuzzer process stays free of MLIR state)."""
    out = []
    names = ["mlp.mlir", "transformer_block.mlir"] + (["cnn.mlir"] if kind != "hlo" else [])
    for name in names:
        src = REPO / "examples" / name
        if not src.exists():
            continue
        if kind == "serialize":
            argv = ["hlokit-translate", "--serialize", "--target=current", str(src)]
        elif kind == "emit-bytecode":
            argv = ["hlokit-opt", "--emit-bytecode", "--chlo-legalize-to-stablehlo", str(src)]
        else:
            argv = ["hlokit-translate", "--stablehlo-to-hlo-text", str(src)]
        with tempfile.TemporaryDirectory(prefix="hlokit-fuzz-") as tmp:
            target = os.path.join(tmp, "derived.out")
            rc, _ = _deriver().run(argv[0], argv[1:] + ["-o", target], tmp, 120)
            if rc == 0 and os.path.exists(target):
                with open(target, "rb") as f:
                    out.append((f"{name}.{kind}", f.read()))
    return out


@functools.lru_cache(maxsize=None)
def _deriver() -> "ForkServer":
    return ForkServer()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.pop("HLOKIT_TRACEBACK", None)
    env["PYTHONFAULTHANDLER"] = ""
    return env


def _command(tool: str, argv: list[str]) -> list[str]:
    return [sys.executable, "-m", TOOLS[tool], *argv]


# ----------------------------------------------------------------------------------------------
# mutations (bytes -> bytes, deterministic given the Random)

_TYPES = [b"f32", b"f16", b"bf16", b"f64", b"i1", b"i8", b"i32", b"i64", b"ui8", b"complex<f32>", b"f8E4M3FN", b"i4", b"index", b"f7", b"i0"]
_OPS = [b"add", b"multiply", b"dot_general", b"reduce", b"broadcast_in_dim", b"reshape", b"transpose", b"convert",
        b"constant", b"while", b"case", b"slice", b"concatenate", b"gather", b"scatter", b"custom_call", b"iota",
        b"compare", b"select", b"return", b"tuple", b"get_tuple_element", b"sort", b"fft", b"rng", b"bogus_op"]
_INTS = [b"-1", b"0", b"-9223372036854775808", b"9223372036854775807", b"18446744073709551616",
         b"99999999999999999999999999", b"4294967296", b"-2147483649", b"100000", b"2147483647"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def m_byte_flip(r: random.Random, d: bytes) -> bytes:
    if not d:
        return b"\xff"
    b = bytearray(d)
    for _ in range(r.randint(1, 4)):
        i = r.randrange(len(b))
        b[i] ^= 1 << r.randrange(8)
    return bytes(b)


def m_line_delete(r, d):
    ls = _lines(d)
    for _ in range(r.randint(1, 3)):
        if len(ls) > 1:
            del ls[r.randrange(len(ls))]
    return b"\n".join(ls)


def m_line_dup(r, d):
    ls = _lines(d)
    i = r.randrange(len(ls))
    ls.insert(r.randrange(len(ls) + 1), ls[i])
    return b"\n".join(ls)


def m_truncate(r, d):
    return d[: r.randrange(len(d) + 1)] if d else d


def m_token_swap(r, d):
    toks = re.split(rb"(\s+|[(),<>:\[\]{}=])", d)
    idx = [i for i, t in enumerate(toks) if t.strip()]
    if len(idx) < 2:
        return d
    a, b = r.sample(idx, 2)
    toks[a], toks[b] = toks[b], toks[a]
    return b"".join(toks)


def m_shape(r, d):
    ms = list(re.finditer(rb"tensor<([0-9x?]*)", d))
    if not ms:
        return d
    m = r.choice(ms)
    new = r.choice([b"", b"0x", b"1x", b"7x3x", b"?x", b"100000x100000x100000x", b"-1x", b"4294967296x",
                    b"1x" * r.randint(1, 70), b"3x5x"])
    return d[: m.start(1)] + new + d[m.end(1):]


def m_elem_type(r, d):
    ms = list(re.finditer(rb"\b(f32|f64|f16|bf16|i1|i8|i32|i64|ui8|ui32|c64)\b", d))
    if not ms:
        return d
    m = r.choice(ms)
    return d[: m.start()] + r.choice(_TYPES) + d[m.end():]


def m_op_swap(r, d):
    ms = list(re.finditer(rb"(stablehlo|chlo)\.([a-z_]+)", d))
    if not ms:
        return d
    m = r.choice(ms)
    return d[: m.start(2)] + r.choice(_OPS) + d[m.end(2):]


def m_huge_int(r, d):
    ms = list(re.finditer(rb"(?<![\w.%#@])\d+(?![\w.])", d))
    if not ms:
        return d
    m = r.choice(ms)
    return d[: m.start()] + r.choice(_INTS) + d[m.end():]


def m_invalid_utf8(r, d):
    i = r.randrange(len(d) + 1)
    return d[:i] + r.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x00", b"\xe2\x82"]) + d[i:]


def m_empty(r, d):
    return r.choice([b"", b"\n", b"   ", b"// only a comment\n", b"module {}", b"\x00"])


def m_junk(r, d):
    n = r.choice([1, 16, 256, 4096])
    junk = bytes(r.randrange(256) for _ in range(n))
    return r.choice([junk, b"ML\xefR" + junk, d[: len(d) // 2] + junk])


def _deep(r) -> tuple[bytes, bytes]:
    depth = r.choice([100, 600, 3000, 20000, 100000])
    kind = r.choice(["paren", "bracket", "tuple", "dense", "array_attr", "region", "loc", "brace"])
    if kind == "paren":
        return b"(" * depth, b")" * depth
    if kind == "bracket":
        return b"[" * depth, b"]" * depth
    if kind == "tuple":
        return b"tuple<" * depth + b"f32" + b">" * depth, b""
    if kind == "dense":
        return b"stablehlo.constant dense<" + b"[" * depth + b"1" + b"]" * depth + b"> : tensor<f32>", b""
    if kind == "array_attr":
        return b"#a = " + b"[" * depth + b"]" * depth, b""
    if kind == "region":
        body = b'"stablehlo.while"() ({' * depth + b"}) : () -> ()" * depth
        return body, b""
    if kind == "loc":
        return b'loc(' + b'callsite(' * depth + b'"x"' + b' at "y")' * depth + b")", b""
    return b"{" * depth, b"}" * depth


def m_deep_nesting(r, d):
    opening, closing = _deep(r)
    ls = _lines(d)
    i = r.randrange(len(ls) + 1)
    if closing:
        return b"\n".join(ls[:i] + [opening + closing] + ls[i:])
    if opening.startswith(b"#a"):
        return opening + b"\n" + d
    if opening.startswith(b"tuple<"):
        ms = list(re.finditer(rb"tensor<[^>]*>", d))
        if ms:
            m = r.choice(ms)
            return d[: m.start()] + opening + d[m.end():]
    return b"\n".join(ls[:i] + [opening] + ls[i:])


def m_bytecode_truncate(r, d):
    return d[: r.randrange(max(1, len(d)))]


def m_bytecode_flip(r, d):
    b = bytearray(d)
    for _ in range(r.randint(1, 3)):
        i = r.randrange(4, len(b)) if len(b) > 4 else 0
        if r.random() < 0.5:
            b[i] ^= 1 << r.randrange(8)
        else:
            b[i] = r.choice([0x00, 0xFF, 0x80, 0x7F, r.randrange(256)])
    return bytes(b)


TEXT_MUTATIONS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "byte_flip": m_byte_flip,
    "line_delete": m_line_delete,
    "line_dup": m_line_dup,
    "truncate": m_truncate,
    "token_swap": m_token_swap,
    "shape": m_shape,
    "elem_type": m_elem_type,
    "op_swap": m_op_swap,
    "huge_int": m_huge_int,
    "invalid_utf8": m_invalid_utf8,
    "empty": m_empty,
    "junk": m_junk,
    "deep_nesting": m_deep_nesting,
    "unmutated": lambda r, d: d,
}
BYTECODE_MUTATIONS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "bytecode_truncate": m_bytecode_truncate,
    "bytecode_flip": m_bytecode_flip,
    "junk": m_junk,
    "empty": m_empty,
    "unmutated": lambda r, d: d,
}


# ----------------------------------------------------------------------------------------------
# bad command lines

_BAD_PIPELINES = [
    "builtin.module(func.func(canonicalize)",
    "builtin.module(func.func(canonicalize)))",
    "builtin.module(canonicalize{",
    "builtin.module(canonicalize})",
    "builtin.module(no-such-pass)",
    "builtin.module(canonicalize{no-such-option=1})",
    "builtin.module(canonicalize{max-iterations=abc})",
    "builtin.module(canonicalize{max-iterations=-5})",
    "builtin.module(chlo-legalize-to-stablehlo{bogus=1})",
    "builtin.module(inline{default-pipeline=((((})",
    "builtin.module(inline{default-pipeline=canonicalize)}",
    "builtin.module(,)",
    "builtin.module()",
    "",
    "(",
    ")",
    "{}",
    "builtin.module(func.func(chlo-legalize-to-stablehlo))",
    "func.func(canonicalize)",
    "builtin.module(func.func(func.func(canonicalize)))",
    "builtin.module(cse,,cse)",
    "builtin.module(cse cse)",
    "builtin.module(\u00e9)",
    "builtin.module(canonicalize{top-down=maybe})",
    "builtin.module(symbol-dce{)",
]


def _deep_pipeline(r: random.Random) -> str:
    depth = r.choice([50, 600, 2000, 9000])  # one argv string stays below Linux's 128 KiB
    kind = r.choice(["anchor", "braces", "parens"])
    if kind == "anchor":
        return "builtin.module(" + "func.func(" * depth + "canonicalize" + ")" * (depth + 1)
    if kind == "braces":
        return "builtin.module(canonicalize{" + "{" * depth + "}" * depth + "})"
    return "(" * depth + ")" * depth


def _random_pipeline(r: random.Random) -> str:
    if r.random() < 0.3:
        return _deep_pipeline(r)
    if r.random() < 0.6:
        return r.choice(_BAD_PIPELINES)
    s = list(PIPELINE)
    for _ in range(r.randint(1, 3)):
        i = r.randrange(len(s))
        op = r.random()
        if op < 0.4:
            del s[i]
        elif op < 0.8:
            s.insert(i, r.choice("(){},=x- '\""))
        else:
            s[i] = r.choice("(){}")
    return "".join(s)


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


# The hlokit-run program for --inputs cases: two arguments, one result.
RUN_PROGRAM = b"""func.func @main(%a: tensor<3xi32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.add %b, %b : tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}
"""


def _good_inputs() -> dict[str, np.ndarray]:
    return {"arg_0": np.arange(3, dtype=np.int32), "arg_1": np.ones((2, 2), np.float32)}


def _bad_npz(r: random.Random) -> tuple[str, bytes]:
    good = _npz(_good_inputs())
    kind = r.choice(["truncated", "bit_flip", "empty", "npy", "object", "missing", "extra", "shape", "dtype",
                     "junk", "good", "corrupt_member", "text", "zero_d", "fortran"])
    if kind == "truncated":
        return kind, good[: r.randrange(len(good))]
    if kind == "bit_flip":
        return kind, m_byte_flip(r, good)
    if kind == "empty":
        return kind, r.choice([b"", _npz({})])
    if kind == "npy":
        buf = io.BytesIO()
        np.save(buf, np.arange(3, dtype=np.int32))
        return kind, buf.getvalue()
    if kind == "object":
        return kind, _npz({"arg_0": np.array([1, "x", None], dtype=object), "arg_1": np.ones((2, 2), np.float32)})
    if kind == "missing":
        return kind, _npz({"arg_0": np.arange(3, dtype=np.int32)})
    if kind == "extra":
        return kind, _npz({**_good_inputs(), "arg_2": np.zeros(1), "weights": np.zeros(2)})
    if kind == "shape":
        return kind, _npz({"arg_0": np.arange(4, dtype=np.int32), "arg_1": np.ones((2, 2), np.float32)})
    if kind == "dtype":
        return kind, _npz({"arg_0": np.arange(3, dtype=np.int64), "arg_1": np.ones((2, 2), np.float16)})
    if kind == "junk":
        return kind, bytes(r.randrange(256) for _ in range(200))
    if kind == "corrupt_member":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("arg_0.npy", b"\x93NUMPY garbage")
            z.writestr("arg_1.npy", b"")
        return kind, buf.getvalue()
    if kind == "text":
        return kind, b"arg_0 = [1, 2, 3]\n"
    if kind == "zero_d":
        return kind, _npz({"arg_0": np.int32(1), "arg_1": np.ones((2, 2), np.float32)})
    if kind == "fortran":
        return kind, _npz({"arg_0": np.arange(3, dtype=np.int32), "arg_1": np.asfortranarray(np.ones((2, 2), np.float32))})
    return kind, good


def _cmdline_case(r: random.Random, seed: int, index: int) -> Case:
    """A bad (or odd) command line for one of the tools, with a valid input."""
    programs = corpus()["mlir"]
    name, text = r.choice(programs[:6] or programs)
    kind = r.choice(["pipeline", "opt_flag", "translate_flag", "run_flag", "run_inputs", "run_inputs", "pipeline"])
    npz = None
    if kind == "pipeline":
        tool = "hlokit-opt"
        argv = ["{input}", f"--pass-pipeline={_random_pipeline(r)}", "-o", "{output}"]
        if r.random() < 0.2:
            argv.insert(1, "--canonicalize")
    elif kind == "opt_flag":
        tool = "hlokit-opt"
        argv = ["{input}", "-o", "{output}"] + r.choice([
            ["--canonicalize=max-iterations=abc"], ["--canonicalize={max-iterations=abc}"], ["--no-such-pass"],
            ["--chlo-legalize-to-stablehlo=bogus=1"], ["--mlir-elide-elementsattrs-if-larger=abc"],
            ["--mlir-elide-elementsattrs-if-larger=-1"], ["extra_positional"], ["-o", "{missing_dir}/out.mlir"],
            ["--split-input-file", "--verify-diagnostics"], ["--emit-bytecode", "--mlir-print-op-generic"],
            ["--pass-pipeline"], ["---"], ["--inline=default-pipeline=(((("], ["--cse", "--cse"],
            ["-"], ["--help-nonsense"],
        ])
    elif kind == "translate_flag":
        tool = "hlokit-translate"
        argv = ["{input}", "-o", "{output}"] + r.choice([
            ["--serialize", "--target=abc"], ["--serialize"], ["--serialize", "--target=99.99.99"],
            ["--serialize", "--target=0.0.0"], ["--serialize", "--deserialize"], [],
            ["--indexing-maps", "--direction=bogus"], ["--indexing-maps", "--input-format=xml"],
            ["--indexing-maps", "--function=nope"], ["--interpret", "--args=[dense<1> : tensor<2xi32>"],
            ["--interpret", "--args=garbage"], ["--interpret", "--entry-function=nope"],
            ["--interpret", "--probe-output-dir={missing_dir}"], ["--serialize", "--target=current", "-o", "{missing_dir}/x"],
            ["--stablehlo-to-hlo-text", "--target"], ["--hlo-text-to-stablehlo"], ["--bogus-mode"],
        ])
    elif kind == "run_flag":
        tool = "hlokit-run"
        name, text = "run_program.mlir", RUN_PROGRAM
        argv = ["{input}", "--output", "{output}"] + r.choice([
            ["--seed", "-1"], ["--seed", "abc"], ["--seed", str(2**70)], ["--repeat", "0"], ["--repeat", "-3"],
            ["--repeat", "x"], ["--platform", "nonsense"], ["--platform", "rocm"], ["--function", "nope"],
            ["--function", ""], ["--output", "{missing_dir}/out.npz"], ["--inputs", "{missing_dir}/in.npz"],
            ["--inputs"], ["--bogus"],
        ])
    else:
        tool = "hlokit-run"
        name, text = "run_program.mlir", RUN_PROGRAM
        sub, npz = _bad_npz(r)
        kind = f"run_inputs_{sub}"
        argv = ["{input}", "--inputs", "{npz}", "--output", "{output}"]
    return Case(seed, index, f"cmdline-{tool}", kind, tool, argv, text, npz, name)


# ----------------------------------------------------------------------------------------------
# case generation


def make_case(seed: int, index: int) -> Case:
    """Case ``index`` of ``seed`` (deterministic)."""
    r = random.Random(f"hlokit-fuzz:{seed}:{index}")
    modes = list(MODES)
    weights = [MODE_WEIGHTS[m] for m in modes] + [CMDLINE_WEIGHT]
    choice = r.choices(modes + ["cmdline"], weights)[0]
    if choice == "cmdline":
        return _cmdline_case(r, seed, index)
    tool, argv, kind = MODES[choice]
    pool = corpus()[kind] or corpus()["mlir"]
    name, data = r.choice(pool)
    if kind == "bytecode" and r.random() < 0.85:
        mname = r.choice(list(BYTECODE_MUTATIONS))
        data = BYTECODE_MUTATIONS[mname](r, data)
    else:
        mname = r.choice(list(TEXT_MUTATIONS))
        data = TEXT_MUTATIONS[mname](r, data)
    npz = None
    argv = list(argv)
    return Case(seed, index, choice, mname, tool, argv, data, npz, name.replace("#", "_"))


#: The program cases' command line (see the module doc).
PROGRAM_ARGV = ["{input}", "--inputs", "{npz}", "--engine", "both", "--max-ulp", "0"]


def make_program_case(seed: int, index: int, max_ops: int = 16) -> Case:
    """Program case ``index`` of ``seed`` (deterministic): a random program of up to ``max_ops`` ops and its
    inputs (:func:`fuzz.programs.random_program`) for ``hlokit-run --engine both``."""
    from fuzz import programs

    r = random.Random(f"hlokit-programs:{seed}:{index}")
    text, inputs = programs.random_program(r, max_ops)
    return Case(seed, index, "engine-both", "program", "hlokit-run", list(PROGRAM_ARGV), text.encode(),
                programs.inputs_npz(inputs), "program.mlir")


def classify_program(cls: str, stderr: str) -> str:
    """The class of a program case from :func:`classify`'s (see the module doc)."""
    if cls != "clean_error":
        return cls
    line = next((l for l in stderr.splitlines() if "differ by more than --max-ulp" in l), None)
    if line is None:
        return "refused"
    outputs = line.split("--max-ulp", 1)[1].split("; ")
    return "ftz" if all("a subnormal against zero" in o for o in outputs) else "mismatch"


# ----------------------------------------------------------------------------------------------
# running and classifying

_LOCATED = re.compile(r"^[^\s:][^:\n]*(?::\d+:\d+)?: error: \S")
_INTERNAL = re.compile(r": error: internal error: ")


def classify(returncode: int | None, stderr: str, output_exists: bool) -> str:
    """The class of one run (see the module docstring)."""
    if returncode is None:
        return "hang"
    if returncode < 0:
        return "abort"
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    if returncode != 0 and output_exists:
        return "partial_output"
    error_lines = [l for l in stderr.splitlines() if "error:" in l]
    if returncode == 0:
        return "wrong_exit" if error_lines else "success"
    if returncode != 1:
        return "wrong_exit" if returncode not in (134, 139) else "abort"
    if not error_lines:
        return "unprefixed_error"
    first = error_lines[0]
    if _INTERNAL.search(first):
        return "internal_error"
    if not _LOCATED.match(first):
        return "unprefixed_error"
    return "clean_error"


class ForkServer:
    """A running :mod:`fuzz.forkserver` (one per worker thread): ``run`` forks a tool run from it."""

    def __init__(self):
        env = _env()
        env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")])
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fuzz.forkserver"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
            text=True,
        )

    def run(self, tool: str, argv: list[str], cwd: str, timeout: float) -> tuple[int | None, str]:
        out, err = os.path.join(cwd, ".stdout"), os.path.join(cwd, ".stderr")
        req = {"tool": tool, "argv": argv, "cwd": cwd, "stdout": out, "stderr": err, "timeout": timeout}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError("the fuzzer's fork server died")
        with open(err, "rb") as f:
            stderr = f.read().decode("utf-8", "replace")
        for p in (out, err):
            os.unlink(p)
        return json.loads(reply)["returncode"], stderr

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def run_case(case: Case, *, timeout: float = 60.0, server: ForkServer | None = None) -> Result:
    """Run ``case`` in a fresh temporary directory and classify it (in a new Python process, or forked
    from ``server``)."""
    import time

    with tempfile.TemporaryDirectory(prefix="hlokit-fuzz-") as tmp:
        inp = os.path.join(tmp, case.input_name)
        with open(inp, "wb") as f:
            f.write(case.input)
        out = os.path.join(tmp, "result.out")
        npz = os.path.join(tmp, "inputs.npz")
        if case.npz is not None:
            with open(npz, "wb") as f:
                f.write(case.npz)
        subst = {"{input}": inp, "{output}": out, "{npz}": npz, "{missing_dir}": os.path.join(tmp, "no", "such")}
        argv = []
        for a in case.argv:
            for k, v in subst.items():
                a = a.replace(k, v)
            argv.append(a)
        t0 = time.perf_counter()
        if server is not None:
            rc, stderr = server.run(case.tool, argv, tmp, timeout)
        else:
            try:
                proc = subprocess.run(
                    _command(case.tool, argv), capture_output=True, timeout=timeout, env=_env(), cwd=tmp,
                    stdin=subprocess.DEVNULL,
                )
                rc, stderr = proc.returncode, proc.stderr.decode("utf-8", "replace")
            except subprocess.TimeoutExpired as exc:
                rc, stderr = None, (exc.stderr or b"").decode("utf-8", "replace")
        seconds = time.perf_counter() - t0
        leftovers = [f for f in os.listdir(tmp) if f.startswith(".hlokit-") and f.endswith(".tmp")]
        cls = classify(rc, stderr, os.path.exists(out) or bool(leftovers))
        if case.mode == "engine-both":
            cls = classify_program(cls, stderr)
        return Result(case, cls, rc, stderr[-4000:], seconds)


def run_many(seed: int, count: int, *, jobs: int = 2, timeout: float = 60.0, start: int = 0,
             progress: Callable[[Result], None] | None = None, fork: bool = True, programs: bool = False,
             max_ops: int = 16) -> list[Result]:
    """Run cases ``start .. start+count-1`` of ``seed`` on ``jobs`` workers (results in index order).

    ``fork`` (default) forks each run from a per-worker :class:`ForkServer`; ``fork=False`` starts a new
    Python process per case (slower, the exact console-script path). ``programs``: the program cases
    (:func:`make_program_case`, programs of up to ``max_ops`` ops) instead of the crash cases.
    """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    corpus()  # build the derived inputs once, before the workers start
    _deriver().close()
    _deriver.cache_clear()
    local = threading.local()
    servers: list[ForkServer] = []
    lock = threading.Lock()

    def one(index: int) -> Result:
        server = None
        if fork:
            server = getattr(local, "server", None)
            if server is None:
                server = local.server = ForkServer()
                with lock:
                    servers.append(server)
        case = make_program_case(seed, index, max_ops) if programs else make_case(seed, index)
        return run_case(case, timeout=timeout, server=server)

    results: list[Result] = []
    try:
        # Each case is its own process, so threads are enough to keep ``jobs`` of them running.
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for res in pool.map(one, range(start, start + count)):
                results.append(res)
                if progress:
                    progress(res)
    finally:
        for s in servers:
            s.close()
    return results


def table(results: list[Result]) -> str:
    """Counts per mode (rows) and class (columns), as text."""
    modes = sorted({r.case.mode for r in results})
    used = [c for c in CLASSES if any(r.cls == c for r in results)]
    w = max([len(m) for m in modes] + [5]) + 2
    lines = [f"{'mode':<{w}}" + "".join(f"{c:>17}" for c in used) + f"{'total':>8}"]
    for m in modes + ["TOTAL"]:
        rs = [r for r in results if m == "TOTAL" or r.case.mode == m]
        lines.append(f"{m:<{w}}" + "".join(f"{sum(r.cls == c for r in rs):>17}" for c in used) + f"{len(rs):>8}")
    return "\n".join(lines)


def save_reproducer(res: Result, directory: pathlib.Path = REPRODUCERS) -> pathlib.Path:
    """Write a failing case as ``<class>-<mode>-<hash>.json`` (seed, index, tool, argv, input, what it did)."""
    directory.mkdir(parents=True, exist_ok=True)
    d = res.case.to_json()
    digest = hashlib.sha1(json.dumps(d, sort_keys=True).encode()).hexdigest()[:10]
    d["found"] = {"class": res.cls, "returncode": res.returncode, "stderr": res.stderr[-1500:]}
    path = directory / f"{res.cls}-{res.case.mode}-{digest}.json"
    path.write_text(json.dumps(d, indent=1) + "\n")
    return path


def load_reproducer(path: pathlib.Path) -> Case:
    return Case.from_json(json.loads(path.read_text()))


def replay(path: pathlib.Path, *, timeout: float = 60.0) -> Result:
    """Run a saved reproducer again."""
    return run_case(load_reproducer(path), timeout=timeout)
