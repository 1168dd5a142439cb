"""Registry of injectors, filled from the ``faultlib.injectors`` entry-point group."""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

import jsonschema

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
    validator = jsonschema.Draft202012Validator(injector_class(name).params_schema)
    return [(list(e.absolute_path), e.message) for e in validator.iter_errors(params)]


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
