"""Checks by name: the ``faultlib.checks`` entry-point group (built-ins register there too).

Each entry point names a module attribute that is a click command made by
:func:`faultlib.check.base.check_command`; the module also defines ``KINDS``: ``{kind: what it means}``.
"""

from __future__ import annotations

import functools
import importlib
from importlib import metadata

import click

from faultlib.errors import FaultlibError

GROUP = "faultlib.checks"


@functools.cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    """The group's entry points, read once per process (reading them scans every installed distribution:
    ~75 ms on 2 cores with 173 of them; click asks for a command more than once per invocation)."""
    return {ep.name: ep for ep in metadata.entry_points(group=GROUP)}


def available() -> list[str]:
    """Registered check names, sorted (no check module is imported)."""
    return sorted(_entry_points())


def load(name: str) -> click.Command:
    """The click command of the check called ``name``.

    Raises:
        FaultlibError: no such check (the message lists the registered ones), or its entry point is broken.
    """
    found = _entry_points().get(name)
    if found is None:
        raise FaultlibError(f"unknown check {name!r}: choose one of {', '.join(available()) or '(none registered)'}")
    try:
        command = found.load()
    except (ImportError, AttributeError) as exc:
        raise FaultlibError(f"check {name!r} ({found.value}) cannot be loaded: {exc}") from exc
    if not isinstance(command, click.Command):
        raise FaultlibError(f"check {name!r} ({found.value}) is not a click command made by check_command")
    return command


def kinds() -> dict[str, dict[str, str]]:
    """``{check: {kind: description}}`` for every registered check (imports each check's module)."""
    out: dict[str, dict[str, str]] = {}
    for name, ep in sorted(_entry_points().items()):
        try:
            module = importlib.import_module(ep.value.split(":")[0])
        except ImportError as exc:  # a broken third-party check must not hide the others
            out[name] = {"unavailable": f"the check cannot be loaded ({ep.value}): {exc}"}
            continue
        out[name] = dict(getattr(module, "KINDS", {}))
    return out
