"""Lazy public names for a package door (PEP 562): ``import faultlib.detect`` imports no torch.

A package lists its public names and the submodule that defines each; the submodule is imported the
first time one of its names is read, so a door can name everything without paying for it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``.

    Args:
        package: the package's ``__name__``.
        exports: ``{public name: submodule}``, the submodule relative to ``package`` (``"sentinel"``,
            ``"leakage.runtime"``); the name is read from that submodule.

    Returns:
        Functions to assign to the package's ``__getattr__`` and ``__dir__``.

    Raises:
        AttributeError: (from ``__getattr__``) a name the package does not export.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        return value

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
