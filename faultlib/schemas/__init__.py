"""faultlib's JSON Schemas (2020-12): ``case``, ``run``, ``finding``, ``manifest`` and ``promql``; top-level ``schemas/`` links here."""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

NAMES = ("case", "run", "finding", "manifest", "promql")


@functools.cache
def load(name: str) -> dict[str, Any]:
    """The schema ``name`` (one of :data:`NAMES`) as a dict."""
    return json.loads(resources.files(__name__).joinpath(f"{name}.schema.json").read_text())


@functools.cache
def validator(name: str):
    """A ``jsonschema.Draft202012Validator`` for ``name`` that resolves references between our schemas."""
    import jsonschema
    from referencing import Registry, Resource

    registry = Registry().with_resources(
        (load(n)["$id"], Resource.from_contents(load(n))) for n in NAMES)
    return jsonschema.Draft202012Validator(load(name), registry=registry,
                                           format_checker=jsonschema.FormatChecker())


#: a number with an exponent that YAML 1.1 (PyYAML) reads as text: it wants a '.' in the mantissa and a sign in the
#: exponent (``1.0e+3``), so ``1e3``, ``1e+3`` and ``1.0e3`` are strings
_EXPONENT = re.compile(r"([-+]?)(\d[\d_]*)?(?:\.(\d[\d_]*)?)?[eE]([-+]?)(\d+)")


def error_message(error) -> str:
    """The words for one ``jsonschema`` error, for a document a user wrote (case.yaml, shim params).

    A number field holding text that YAML 1.1 would have read as a number had it been written its way
    (``timeout_s: 1e3`` is the string ``'1e3'``) says so and what to write (``1.0e+3`` or ``1000``); every other
    error keeps ``jsonschema``'s message.
    """
    types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    if error.validator != "type" or not isinstance(error.instance, str) or not {"number", "integer"} & set(types):
        return error.message
    match = _EXPONENT.fullmatch(error.instance.strip())
    if not match or not (match[2] or match[3]):
        return error.message
    sign, whole, fraction, exp_sign, exponent = match.groups()
    as_float = f"{sign}{whole or '0'}.{fraction or '0'}e{exp_sign or '+'}{exponent}"
    value = float(error.instance.replace("_", ""))
    digits = str(int(value)) if value.is_integer() and abs(value) < 1e18 else None
    if "number" in types:
        fix = f"write {as_float}" + (f" or {digits}" if digits else "")
    elif digits:
        fix = f"write {digits}"
    else:
        fix = "write a whole number in digits"
    return (f"{error.instance!r} is text, not a number, in YAML 1.1 (a number with an exponent needs a '.' and a "
            f"signed exponent): {fix}")
