"""The custom syntax of the StableHLO ``check`` dialect, rewritten to MLIR's generic form.

jaxlib registers no ``check`` dialect, so its ops are parsed as unregistered ops in generic form:
:func:`to_generic` rewrites the custom assembly of upstream's check ops (``stablehlo/tests/CheckOps.td``
in https://github.com/openxla/stablehlo) in the text, op by op, before parsing, keeping every line
where it was (multi-line constants keep their newlines), so diagnostics stay located::

    check.expect_eq %a, %b : tensor<3xi64>
      -> "check.expect_eq"(%a, %b) : (tensor<3xi64>, tensor<3xi64>) -> ()
    check.expect_almost_eq_const %x, dense<5.1> : tensor<f64> {tolerance = 0.1 : f64}
      -> "check.expect_almost_eq_const"(%x) {value = dense<5.1> : tensor<f64>, tolerance = 0.1 : f64}
         : (tensor<f64>) -> ()
    check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
    check.expect_serialized_eq %p, probe_id = "x" : tensor<3xi1>     (optionally ``, iter = N``)

This module is text only (it imports nothing of the interpreter); :mod:`hlokit.dialects.check` registers
:func:`to_generic` with :mod:`hlokit.core` as the text pre-processor ``check``, and the ops' semantics live in
:mod:`hlokit.interpreter.check_ops`.
"""

from __future__ import annotations

import re

__all__ = ["OPS", "CheckSyntaxError", "split_top_level", "to_generic"]

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
