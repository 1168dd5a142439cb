"""faultlib's JSON Schemas (2020-12): ``case``, ``run``, ``finding``, ``manifest`` and ``promql``; top-level ``schemas/`` links here."""

from __future__ import annotations

import functools
import json
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
