"""A module of the analysed files named like a third-party package: ``tracking/langfuse.py`` beside ``import
langfuse``.

Each analysed file is also indexed under the shorter names of its dotted path (``tracking.langfuse`` answers to
``langfuse`` too: a scan may start below the package root), so the top name of a library the code imports can
match a project module that merely shares it. ``from langfuse import Langfuse`` in ``config/client.py`` still
imports the installed package: ``tracking/langfuse.py`` is importable only as ``tracking.langfuse`` from the
project's root (https://docs.python.org/3/reference/import.html#searching: a top-level name is looked up on
``sys.path``, not in sibling packages). A dotted name then belongs to the analysed code only when the module
indexed under its top name is that top-level module itself, or defines the name's next part (a class, function,
global or import of it); ``langfuse.Langfuse.create_dataset`` with a ``tracking/langfuse.py`` that defines
``LangfuseTracker`` only is the library's (held-out wave 57: a Slack bot's Langfuse tracker module). Used by
:mod:`~faultlib.detect.serving.blocking.inferred` and :mod:`~faultlib.detect.serving.blocking.made_handles`.
"""

from __future__ import annotations

__all__ = ["own_name"]


def own_name(index, target: str) -> bool:
    """Whether the dotted name ``target`` names the analysed code (see the module docstring)."""
    parts = target.split(".")
    module = index.modules.get(parts[0])
    if module is None:
        return False
    if module.name == parts[0] or len(parts) < 2:
        return True
    return _defines(index, module, parts[1], set())


def _defines(index, module, name: str, seen: set[str]) -> bool:
    """Whether ``module`` defines ``name``, also through its ``from .x import *`` of analysed modules (a package's
    ``__init__`` re-exporting its settings modules: ``config.KEYWORDS`` from ``config/base_config.py``)."""
    if name in module.classes or name in module.functions or name in module.globals or name in module.imports:
        return True
    seen.add(module.name)
    return any(_defines(index, starred, name, seen) for base in module.star_imports
               if (starred := index.modules.get(base)) is not None and starred.name not in seen)
