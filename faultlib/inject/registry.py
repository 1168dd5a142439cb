"""Registry of injectors, filled from the ``faultlib.injectors`` entry-point group."""

from __future__ import annotations

import functools
import inspect
import re
from importlib import metadata
from typing import Any

from faultlib import schemas
from faultlib.errors import InjectionError
from faultlib.inject.base import Injector

GROUP = "faultlib.injectors"


@functools.cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=GROUP)}


def available() -> list[str]:
    """Names of every registered injector, sorted."""
    return sorted(_entry_points())


@functools.cache
def injector_class(name: str) -> type[Injector]:
    """The injector class registered as ``name``.

    Raises:
        InjectionError: no injector has that name (the message lists those that do),
            or the entry point does not load a :class:`Injector` subclass.
    """
    eps = _entry_points()
    if name not in eps:
        known = ", ".join(available()) or "none (is faultlib-ml installed? pip install -e .)"
        raise InjectionError(f"unknown shim {name!r}; registered shims: {known}")
    cls = eps[name].load()
    if not (isinstance(cls, type) and issubclass(cls, Injector)) or cls.name != name:
        raise InjectionError(f"entry point {name!r} in group {GROUP} does not load an Injector named {name!r}")
    return cls


def param_errors(name: str, params: dict[str, Any]) -> list[tuple[list, str]]:
    """Schema errors of ``params`` for injector ``name`` as (json path, message) pairs."""
    import jsonschema  # here: a phase without faults (every control phase) never validates, nor pays for it

    validator = jsonschema.Draft202012Validator(injector_class(name).params_schema)
    return [(list(e.absolute_path), schemas.error_message(e)) for e in validator.iter_errors(params)]


def build(name: str, params: dict[str, Any] | None = None) -> Injector:
    """Validate ``params`` and construct the injector ``name``.

    Raises:
        InjectionError: unknown name or invalid parameters.
    """
    params = dict(params or {})
    errors = param_errors(name, params)
    if errors:
        path, message = errors[0]
        field = ".".join(str(p) for p in path) or "params"
        raise InjectionError(f"shim {name!r}: {field}: {message}")
    return injector_class(name)(**params)


def _param_docs(cls: type) -> dict[str, str]:
    """``{param: description}`` from the ``Params:`` section of the class docstring."""
    doc = inspect.getdoc(cls) or ""
    section = re.search(r"^Params:\n((?:[ \t]+.*\n?|\n)*)", doc, re.M)
    out: dict[str, str] = {}
    current = None
    for line in (section.group(1) if section else "").splitlines():
        found = re.match(r"\s{4}(\w+)(?: \(([^)]*)\))?:\s*(.*)", line)
        if found:
            current = found.group(1)
            out[current] = found.group(3).strip()
        elif current and line.strip():
            out[current] += " " + line.strip()
    return out


def describe(name: str) -> dict[str, Any]:
    """What ``faultlib shims`` shows of one injector: name, summary, docstring and parameters
    (``{name, type, required, default, minimum, maximum, enum, description}``) from its closed schema.

    Raises:
        InjectionError: no injector has that name.
    """
    cls = injector_class(name)
    schema = cls.params_schema
    required = set(schema.get("required", []))
    docs = _param_docs(cls)
    params = []
    for param, spec in schema.get("properties", {}).items():
        kind = spec.get("type", "enum" if "enum" in spec else "any")
        params.append({"name": param, "type": kind if isinstance(kind, str) else "|".join(kind),
                       "required": param in required, "default": spec.get("default"),
                       **{k: spec[k] for k in ("minimum", "maximum", "enum") if k in spec},
                       "description": docs.get(param, spec.get("description", ""))})
    doc = inspect.getdoc(cls) or ""
    return {"name": name, "summary": getattr(cls, "summary", "") or doc.split("\n\n")[0],
            "doc": doc, "params": params}
