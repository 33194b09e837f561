"""The StableHLO ``check`` dialect: parsing its custom syntax and its semantics in the interpreter.

jaxlib registers no ``check`` dialect, so its ops are parsed as unregistered ops in generic form:
:func:`to_generic` rewrites the custom assembly of upstream's ``CheckOps.td`` (seed 002 "Testing")
in the text, op by op, before parsing, keeping every line where it was (multi-line constants keep
their newlines), so diagnostics stay located::

    check.expect_eq %a, %b : tensor<3xi64>
      -> "check.expect_eq"(%a, %b) : (tensor<3xi64>, tensor<3xi64>) -> ()
    check.expect_almost_eq_const %x, dense<5.1> : tensor<f64> {tolerance = 0.1 : f64}
      -> "check.expect_almost_eq_const"(%x) {value = dense<5.1> : tensor<f64>, tolerance = 0.1 : f64}
         : (tensor<f64>) -> ()
    check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
    check.expect_serialized_eq %p, probe_id = "x" : tensor<3xi1>     (optionally ``, iter = N``)

The ops (``expect_eq``, ``expect_eq_const``: bitwise equality; ``expect_almost_eq``,
``expect_almost_eq_const``: ``|a - b| <= tolerance`` (default 1e-4) per element, NaNs equal NaNs;
``expect_close``: the ULP distance within ``[min_ulp_difference, max_ulp_difference]`` (default
``[0, 3]``); ``expect_serialized_eq``: the value equals what ``interpreter.probe`` wrote) raise
:class:`~hlokit.interpreter.InterpreterError` at the op on failure.

The ``stablehlo.custom_call @check.expect_*`` forms that JAX-generated tests use are registered
too: ``@check.expect_eq`` (bitwise), ``@check.expect_almost_eq`` (tolerance 1e-3),
``@check.expect_close`` (<= 3 ULP), with the expected value as the second operand.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
from hlokit.interpreter.evaluator import InterpreterError
from hlokit.interpreter.registry import (
    float_attr,
    int_attr,
    register,
    register_custom_call,
    str_attr,
)
from hlokit.interpreter.values import (
    Token,
    Value,
    dense_attribute,
    format_dense,
    is_complex,
    is_float,
    type_str,
)
from hlokit.interpreter.values import bit_width

__all__ = [
    "OPS",
    "to_generic",
    "expect_eq",
    "expect_almost_eq",
    "expect_close",
    "ulp_distance",
]

#: The check ops and their custom-syntax keyword parameters (name -> attribute type).
OPS = {
    "expect_eq": {},
    "expect_eq_const": {},
    "expect_almost_eq": {"tolerance": "f64"},
    "expect_almost_eq_const": {"tolerance": "f64"},
    "expect_close": {"min_ulp_difference": "i64", "max_ulp_difference": "i64"},
    "expect_serialized_eq": {"probe_id": "str", "iter": "i64"},
}

_OP_RE = re.compile(r"(?m)^([ \t]*)check\.(expect_[a-z_]+)\b")


def _scan(text: str, start: int) -> int:
    """Index of the end of the statement starting at ``start``: the first newline at bracket depth 0
    after a top-level ``:`` (the type), skipping a trailing attribute dictionary on the same line."""
    depth = 0
    seen_colon = False
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = text.find('"', i + 1)
            while j != -1 and text[j - 1] == "\\":
                j = text.find('"', j + 1)
            i = (j if j != -1 else n - 1) + 1
            continue
        if c == "/" and text.startswith("//", i) and depth == 0:
            # a trailing comment ends the statement at its line end
            j = text.find("\n", i)
            return i if seen_colon else (n if j == -1 else j)
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            if c == ">" and i > 0 and text[i - 1] == "-":
                pass
            else:
                depth -= 1
        elif c == ":" and depth == 0:
            seen_colon = True
        elif c == "\n" and depth == 0 and seen_colon:
            return i
        i += 1
    return n


def split_top_level(text: str, sep: str) -> list[str]:
    """Split at ``sep`` characters outside brackets and strings."""
    parts, depth, cur, i = [], 0, [], 0
    in_str = False
    for i, c in enumerate(text):
        if c == '"' and (i == 0 or text[i - 1] != "\\"):
            in_str = not in_str
        elif not in_str:
            if c in "<([{":
                depth += 1
            elif c in ">)]}" and not (c == ">" and i > 0 and text[i - 1] == "-"):
                depth -= 1
            elif c == sep and depth == 0:
                parts.append("".join(cur))
                cur = []
                continue
        cur.append(c)
    parts.append("".join(cur))
    return parts


class CheckSyntaxError(ValueError):
    """The custom syntax of a check op could not be read (reported by the parser at that line)."""


def _attr_text(key: str, value: str, kind: str) -> str:
    value = value.strip()
    if kind == "str":
        return f"{key} = {value}"
    if ":" in value:
        return f"{key} = {value}"
    if kind == "f64":
        if re.fullmatch(r"[-+]?\d+", value):
            value += ".0"
        return f"{key} = {value} : f64"
    return f"{key} = {value} : i64"


def _rewrite_one(name: str, body: str) -> str:
    """Generic form of ``check.<name> <body>`` (body: everything after the op name)."""
    params = OPS[name]
    attrs: list[str] = []
    if name.endswith("_const"):
        items = split_top_level(body, ",")
        if len(items) < 2:
            raise CheckSyntaxError(f"check.{name}: expected '%operand, dense<...> : type'")
        if not items[0].strip().startswith("%"):
            raise CheckSyntaxError(f"check.{name}: expected an operand, got '{items[0].strip()}'")
        operand = items[0].strip()
        rest = ",".join(items[1:]).strip()
        # optional trailing attribute dictionary
        if rest.endswith("}"):
            depth = 0
            for k in range(len(rest) - 1, -1, -1):
                if rest[k] == "}":
                    depth += 1
                elif rest[k] == "{":
                    depth -= 1
                    if depth == 0:
                        break
            extra = rest[k + 1 : -1].strip()
            rest = rest[:k].rstrip()
            if extra:
                attrs.append(extra)
        pieces = split_top_level(rest, ":")
        if len(pieces) < 2:
            raise CheckSyntaxError(f"check.{name}: expected a typed dense attribute")
        type_text = pieces[-1].strip()
        attrs.insert(0, f"value = {rest}")
        return f'"check.{name}"({operand}) {{{", ".join(attrs)}}} : ({type_text}) -> ()'
    pieces = split_top_level(body, ":")
    if len(pieces) != 2:
        raise CheckSyntaxError(f"check.{name}: expected 'operands : types'")
    head, types_text = pieces
    types_text = types_text.strip()
    extra = ""
    m = re.search(r"\{(.*)\}\s*$", types_text)
    if m and not types_text.startswith("{"):
        extra = m.group(1).strip()
        types_text = types_text[: m.start()].strip()
    operands = []
    for item in split_top_level(head, ","):
        item = item.strip()
        if not item:
            continue
        if item.startswith("%"):
            operands.append(item)
            continue
        km = re.fullmatch(r"(\w+)\s*=\s*(.+)", item, re.S)
        if not km or km.group(1) not in params:
            raise CheckSyntaxError(f"check.{name}: unexpected '{item}'")
        attrs.append(_attr_text(km.group(1), km.group(2), params[km.group(1)]))
    if extra:
        attrs.append(extra)
    types = [t.strip() for t in split_top_level(types_text, ",") if t.strip()]
    if len(types) == 1 and len(operands) > 1:
        types = types * len(operands)
    attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
    return f'"check.{name}"({", ".join(operands)}){attr_text} : ({", ".join(types)}) -> ()'


def to_generic(text: str, errors: list | None = None) -> str:
    """Rewrite every check op written in custom syntax to generic form (same lines; see module doc).

    Statements that cannot be read are left alone (the MLIR parser then reports them at their
    line); when ``errors`` is a list, a ``(line, col, message)`` explaining each is appended to it.
    """
    if "check." not in text:
        return text
    out = []
    pos = 0
    for m in _OP_RE.finditer(text):
        if m.start() < pos:
            continue
        name = m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        col = len(m.group(1)) + 1
        if name not in OPS:
            if errors is not None:
                errors.append((line, col, f"unknown op 'check.{name}' (the check dialect has: "
                               + ", ".join(sorted(OPS)) + ")"))
            continue
        end = _scan(text, m.end())
        stmt_body = text[m.end() : end]
        newlines = stmt_body.count("\n")
        try:
            generic = _rewrite_one(name, stmt_body.strip())
        except CheckSyntaxError as err:
            if errors is not None:
                errors.append((line, col, str(err)))
            continue
        if generic.count("\n") < newlines:
            generic += "\n" * (newlines - generic.count("\n"))
        out.append(text[pos : m.start()])
        out.append(m.group(1) + generic)
        pos = end
    out.append(text[pos:])
    return "".join(out)


# ------------------------------------------------------------------------------------------------
# semantics


def _describe(v: Value) -> str:
    if isinstance(v, np.ndarray):
        return format_dense(v)
    return type_str(v)


def _same_type(actual: Value, expected: Value) -> str | None:
    if type(actual) is not type(expected):
        return f"expected a {type_str(expected)}, got {type_str(actual)}"
    if isinstance(actual, np.ndarray):
        if actual.dtype != expected.dtype or actual.shape != expected.shape:
            return f"type mismatch: {type_str(actual)} vs {type_str(expected)}"
    return None


def expect_eq(actual: Value, expected: Value) -> str | None:
    """Bitwise equality of two values (every type; tuples elementwise; tokens equal).

    Returns None when equal, otherwise a message naming the first differing element.
    """
    if isinstance(actual, Token) and isinstance(expected, Token):
        return None
    if isinstance(actual, tuple) and isinstance(expected, tuple):
        if len(actual) != len(expected):
            return f"tuple sizes differ: {len(actual)} vs {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            msg = expect_eq(a, e)
            if msg:
                return f"tuple element {i}: {msg}"
        return None
    msg = _same_type(actual, expected)
    if msg:
        return msg
    a = np.asarray(actual, order="C")
    e = np.asarray(expected, order="C")
    if a.size == 0:
        return None
    if a.dtype == np.bool_:
        diff = a != e
    else:
        diff = (a.reshape(-1).view(np.uint8).reshape(a.size, -1) != e.reshape(-1).view(np.uint8).reshape(e.size, -1)).any(axis=1).reshape(a.shape)
    return _first_difference(a, e, diff)


def _first_difference(a: np.ndarray, e: np.ndarray, diff: np.ndarray) -> str | None:
    if not diff.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(diff)[0]) if a.ndim else ()
    av, ev = a[idx], e[idx]
    return (
        f"element {list(idx)} is {_describe(np.array(av, dtype=a.dtype))[6:].split('>')[0]}"
        f", expected {_describe(np.array(ev, dtype=e.dtype))[6:].split('>')[0]}"
        f" ({int(diff.sum())} of {diff.size} elements differ)\n"
        f"  actual:   {_describe(a)}\n  expected: {_describe(e)}"
    )


_FLOATS = object()


def _non_float_verdict(actual: Value, expected: Value):
    """The verdict of the tolerant checks when they do not apply: bitwise :func:`expect_eq` for
    non-tensors and non-float types, a type-mismatch message; ``_FLOATS`` when both are float tensors
    of the same type (the caller compares them)."""
    if not isinstance(actual, np.ndarray) or not isinstance(expected, np.ndarray):
        return expect_eq(actual, expected)
    msg = _same_type(actual, expected)
    if msg:
        return msg
    if not (is_float(actual.dtype) or is_complex(actual.dtype)):
        return expect_eq(actual, expected)
    return _FLOATS


def expect_almost_eq(actual: Value, expected: Value, tolerance: float = 1e-4) -> str | None:
    """Per-element ``|actual - expected| <= tolerance`` for floats and complex (both parts), NaN
    matches NaN and infinities must be equal; other element types compare bitwise."""
    early = _non_float_verdict(actual, expected)
    if early is not _FLOATS:
        return early
    if is_complex(actual.dtype):
        a, e = actual.astype(np.complex128), expected.astype(np.complex128)
        parts = [(a.real, e.real), (a.imag, e.imag)]
    else:
        parts = [(actual.astype(np.float64), expected.astype(np.float64))]
    diff = np.zeros(actual.shape, dtype=bool)
    for x, y in parts:
        both_nan = np.isnan(x) & np.isnan(y)
        with np.errstate(invalid="ignore"):
            close = (np.abs(x - y) <= tolerance) | (x == y) | both_nan
        diff |= ~close
    return _first_difference(actual, expected, diff)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in ULPs between two float arrays of the same dtype (as unsigned ints).

    Maps each value to a monotonic integer (sign-magnitude -> offset), so +0 and -0 are 0 apart.
    NaN vs NaN is 0; NaN vs a number is the maximum. Complex: the max over both parts.
    """
    if is_complex(a.dtype):
        part = np.float32 if a.dtype == np.complex64 else np.float64
        return np.maximum(ulp_distance(a.real.astype(part), b.real.astype(part)), ulp_distance(a.imag.astype(part), b.imag.astype(part)))
    nbytes = a.dtype.itemsize
    it = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[nbytes]
    bits = 8 * nbytes
    ai = np.asarray(a, order="C").view(it).astype(np.uint64)
    bi = np.asarray(b, order="C").view(it).astype(np.uint64)
    # ml_dtypes sub-byte floats live in the low bits of a byte; the sign is their top bit.
    width = bit_width(a.dtype)
    sign = np.uint64(1) << np.uint64(width - 1)
    if a.dtype == np.dtype(ml_dtypes.float8_e8m0fnu):  # unsigned: no sign bit
        sign = np.uint64(0)
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1) if width < 64 else np.uint64(2**64 - 1)
    ai &= mask
    bi &= mask

    # Exact integer arithmetic (a float64 detour would round 64-bit patterns to multiples of 2**11):
    # same sign -> |ma - mb|; opposite signs -> ma + mb (magnitudes < 2**63, so no overflow).
    ma, mb = ai & ~sign & mask, bi & ~sign & mask
    same_sign = (ai & sign) == (bi & sign)
    d = np.where(same_sign, np.where(ma >= mb, ma - mb, mb - ma), ma + mb).astype(np.float64)
    na, nb = np.isnan(a.astype(np.float64)), np.isnan(b.astype(np.float64))
    return np.where(na & nb, 0, np.where(na | nb, float(2**bits), d))


def expect_close(actual: Value, expected: Value, min_ulp: int = 0, max_ulp: int = 3) -> str | None:
    """The ULP distance of every element is within ``[min_ulp, max_ulp]`` (floats / complex);
    other element types compare bitwise."""
    early = _non_float_verdict(actual, expected)
    if early is not _FLOATS:
        return early
    d = ulp_distance(actual, expected)
    bad = (d < min_ulp) | (d > max_ulp)
    msg = _first_difference(actual, expected, bad)
    if msg:
        return f"ULP distance {int(d[bad].max()) if bad.any() else 0} not in [{min_ulp}, {max_ulp}]: " + msg
    return None


def _fail(op, kind: str, msg: str):
    raise InterpreterError(f"check.{kind} failed: {msg}", op.location)


@register("check.expect_eq")
def _expect_eq(op, operands, interp):
    msg = expect_eq(operands[0], operands[1])
    if msg:
        _fail(op, "expect_eq", msg)
    return []


@register("check.expect_eq_const")
def _expect_eq_const(op, operands, interp):
    msg = expect_eq(operands[0], dense_attribute(op, "value"))
    if msg:
        _fail(op, "expect_eq_const", msg)
    return []


@register("check.expect_almost_eq")
def _expect_almost_eq(op, operands, interp):
    msg = expect_almost_eq(operands[0], operands[1], float_attr(op, "tolerance", 1e-4))
    if msg:
        _fail(op, "expect_almost_eq", msg)
    return []


@register("check.expect_almost_eq_const")
def _expect_almost_eq_const(op, operands, interp):
    msg = expect_almost_eq(operands[0], dense_attribute(op, "value"), float_attr(op, "tolerance", 1e-4))
    if msg:
        _fail(op, "expect_almost_eq_const", msg)
    return []


@register("check.expect_close")
def _expect_close(op, operands, interp):
    msg = expect_close(
        operands[0], operands[1], int_attr(op, "min_ulp_difference", 0), int_attr(op, "max_ulp_difference", 3)
    )
    if msg:
        _fail(op, "expect_close", msg)
    return []


@register("check.expect_serialized_eq")
def _expect_serialized_eq(op, operands, interp):
    from hlokit.dialects.interpreter import read_probe

    probe_id = str_attr(op, "probe_id")
    it = int_attr(op, "iter", 0)
    if interp.probe_dir is None:
        raise InterpreterError(
            "check.expect_serialized_eq needs a probe directory (--probe-output-dir)", op.location
        )
    expected = read_probe(interp, probe_id, it, operands[0])
    msg = expect_eq(operands[0], expected)
    if msg:
        _fail(op, "expect_serialized_eq", f"probe '{probe_id}' (iteration {it}): {msg}")
    return []


# stablehlo.custom_call @check.expect_* (what JAX's test exporters emit)


# @check.expect_eq compares its two operands bitwise, exactly like check.expect_eq.
register_custom_call("check.expect_eq")(_expect_eq)


@register_custom_call("check.expect_almost_eq")
def _cc_expect_almost_eq(op, operands, interp):
    msg = expect_almost_eq(operands[0], operands[1], 1e-3)
    if msg:
        _fail(op, "expect_almost_eq", msg)
    return []


@register_custom_call("check.expect_close")
def _cc_expect_close(op, operands, interp):
    msg = expect_close(operands[0], operands[1], 0, 3)
    if msg:
        _fail(op, "expect_close", msg)
    return []
