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

A wrapper named after the library it wraps tells which one the top name is: ``utilities/openai.py`` that itself
does ``from openai import OpenAI``, ``openai`` being a package the vocabulary describes, cannot mean itself (a module
importing its own name from its own folder on ``sys.path`` would import a half-initialised copy of itself), so
``openai`` is the installed package for the whole program, and no analysed module answers to the short name
``openai`` (:func:`drop_library_names`): not the wrapper, and not another namesake such as a Discord cog
``cogs/openai.py`` that happens to define a class ``OpenAI`` (held-out wave 62: a py-cord bot's sync OpenAI calls,
resolved to the cog class, were missed). A module whose full name is the top name (``openai.py`` at the scan's root)
keeps it, and so does a name no vocabulary package has (``tools/cache.py`` importing ``cache`` may mean a project
module ``cache.py`` whose folder is on ``sys.path``).
"""

from __future__ import annotations

__all__ = ["drop_library_names", "own_name"]


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


def drop_library_names(modules: dict, packages: frozenset[str]) -> None:
    """Remove from ``modules`` (dotted name -> module, each module also under its shorter names) the short names that
    a namesake wrapper shows to be the name of one of ``packages`` (the vocabulary's; see the module docstring)."""
    library = set()
    for module in {id(m): m for m in modules.values()}.values():
        own = module.name.rpartition(".")[2]
        imported = {target.partition(".")[0] for target in module.imports.values()}
        if own != module.name and own in packages and own in imported:
            library.add(own)
    for name in library:
        module = modules.get(name)
        if module is not None and module.name != name:
            del modules[name]
