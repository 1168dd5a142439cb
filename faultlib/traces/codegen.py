"""Source generated from untrusted text, and the proof that the text stayed data.

``faultlib new --from-trace`` writes Python, YAML, a compose command and Markdown from a trace a
user hands it; a span or service name is attacker-controlled text. The rules here:

- **Python**: untrusted text reaches a generated module only as the literal of a module-level
  constant (``SERVICE = 'checkout'``), written with :func:`repr`; comments and docstrings hold only our
  own words. :func:`python_module` fills a template's ``NAME = {NAME}`` lines, parses the result back
  and checks that (1) every constant's literal evaluates to the intended value and (2) the module's
  syntax tree is the template's, rendered with harmless placeholder values, constants aside: no text
  can add, remove or change a statement (a newline that ends a comment, ``\"\"\"`` that ends a docstring).
- **A command** (``python -c CODE``): :func:`python_command` builds ``CODE`` the same way and checks
  it parses to exactly the statement intended.
- **YAML**: emitted by PyYAML's safe emitter and loaded back (:func:`yaml_document`): the document read
  equals the data written.
- **PromQL**: untrusted text only inside double-quoted label values, Go-escaped (:func:`promql_string`).
- **Markdown**: untrusted text only inside code spans whose fence is longer than any backtick run in it,
  with control characters, newlines and tabs escaped (:func:`md_code`).

Any check that fails raises :class:`~faultlib.errors.InputError` before anything is written.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import yaml

from faultlib.errors import InputError
from faultlib.text import printable

_LITERAL_LINE = re.compile(r"^([A-Z][A-Z0-9_]*) = \{\1\}", re.M)


def _benign(value: Any) -> Any:
    """``value`` with every string replaced by ``"x"``: the same shape of literal, no untrusted text."""
    if isinstance(value, str):
        return "x"
    if isinstance(value, tuple):
        return tuple(_benign(v) for v in value)
    if isinstance(value, list):
        return [_benign(v) for v in value]
    if isinstance(value, dict):
        return {_benign_key(k, i): _benign(v) for i, (k, v) in enumerate(value.items())}
    return value


def _benign_key(key: Any, index: int) -> Any:
    return f"x{index}" if isinstance(key, str) else key


def literal(value: Any) -> str:
    """The Python literal of ``value`` (str, int, float, bool, None, and tuples, lists, dicts of them).

    Raises:
        InputError: ``repr`` does not round-trip (a value that is not a plain literal).
    """
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        same = False
    if not same:
        raise InputError(f"cannot write {type(value).__name__} value as a Python literal")
    return text


class _Blank(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant(value=None)


def _shape(source: str) -> str:
    return ast.dump(_Blank().visit(ast.parse(source)), include_attributes=False)


def _fill(template: str, values: dict[str, Any], trusted: dict[str, Any]) -> str:
    return template.format(**{k: literal(v) for k, v in values.items()}, **trusted)


def python_module(template: str, values: dict[str, Any], *, trusted: dict[str, Any] | None = None,
                  name: str) -> str:
    """Fill ``template`` (``str.format`` syntax, literal braces doubled) and prove the result.

    Args:
        template: Python source; each key of ``values`` appears exactly once, in a line ``KEY = {KEY}``
            at the start of a line (a module-level constant).
        values: the untrusted values, written as literals with :func:`literal`.
        trusted: values of ours substituted as text (a validated case id, our numbers).
        name: the generated file's name, for errors.

    Returns:
        The module's source.

    Raises:
        InputError: a placeholder that is not a ``KEY = {KEY}`` line, a literal that does not read back as its
            value, or a tree that differs from the template's (see the module docstring).
    """
    trusted = trusted or {}
    declared = _LITERAL_LINE.findall(template)
    if (sorted(declared) != sorted(values) or len(set(declared)) != len(declared)
            or any(template.count("{" + key + "}") != 1 for key in values)):
        raise InputError(f"{name}: every untrusted value must be one `KEY = {{KEY}}` line "
                         f"(template has {sorted(declared)}, values {sorted(values)})")
    source = _fill(template, values, trusted)
    try:
        tree = ast.parse(source, filename=name)
        same = _shape(source) == _shape(_fill(template, {k: _benign(v) for k, v in values.items()}, trusted))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise InputError(f"{name}: the generated module does not parse ({type(exc).__name__}: {exc})") from None
    if not same:
        raise InputError(f"{name}: text from the input changed the generated module's code; nothing was written")
    constants = {node.targets[0].id: node.value for node in tree.body
                 if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}
    for key, value in values.items():
        if key not in constants or ast.literal_eval(constants[key]) != value:
            raise InputError(f"{name}: the constant {key} does not hold the intended value; nothing was written")
    return source


def python_command(statement: str, values: dict[str, Any]) -> str:
    """Code for ``python -c``: one statement whose ``{KEY}`` placeholders are filled with literals.

    Raises:
        InputError: the code is not one statement of the template's shape.
    """
    code = statement.format(**{k: literal(v) for k, v in values.items()})
    benign = statement.format(**{k: literal(_benign(v)) for k, v in values.items()})
    try:
        ok = len(ast.parse(code).body) == 1 and _shape(code) == _shape(benign)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        ok = False
    if not ok:
        raise InputError("text from the input changed a generated command; nothing was written")
    return code


def yaml_document(data: Any, *, header: str = "", name: str) -> str:
    """``data`` as YAML by the safe emitter, after ``header`` (our own comment lines), proven to load back equal.

    Raises:
        InputError: the text does not load back to ``data``.
    """
    if any(not line.startswith("#") for line in header.splitlines()):
        raise InputError(f"{name}: a header may hold only comment lines")
    text = header + yaml.safe_dump(data, sort_keys=False, width=120, allow_unicode=False)
    try:
        same = yaml.safe_load(text) == data
    except yaml.YAMLError:
        same = False
    if not same:
        raise InputError(f"{name}: the generated YAML does not read back as written; nothing was written")
    return text


def md_code(text: str) -> str:
    """``text`` as one Markdown code span: newlines, tabs and control characters escaped, and a
    backtick fence longer than any run of backticks inside, so the text can never become markup."""
    shown = printable(str(text)).replace("\n", "\\n").replace("\t", "\\t")
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {shown} {fence}"


_PROMQL_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def promql_string(text: str) -> str:
    """``text`` as the inside of a PromQL double-quoted string (Go escapes; other unprintables as ``\\uXXXX``)."""
    return "".join(_PROMQL_ESCAPES.get(c) or (c if c.isprintable() else
                   f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}") for c in text)
