"""An absolute import of a module that several services side by side define: the importer's own tree's module
(issue 17, held-out wave 74).

A repository of small services keeps each in its own folder, each with the same layout and the same top-level
package: ``colab/app/routes.py``, ``hybrid/app/routes.py``, ``popularity/app/routes.py``, each ``main.py`` saying
``from app.routes import load_model``. Each service runs from its own folder (``uvicorn app.main:app`` there, or its
Dockerfile's ``WORKDIR``), so ``app`` is that folder's package: the import system searches ``sys.path`` in order and
the first entry -- the folder of the script or the working directory the server was started in -- holding ``app``
wins (https://docs.python.org/3/reference/import.html#the-path-based-finder and
https://docs.python.org/3/library/sys_path_init.html: "the directory containing the script ... or the current
directory" comes first). Indexed under its short name, ``app.routes`` named only one of the namesakes, so the other
services' lifespans reached another service's code (or none) and their S3 downloads went unreported.

:func:`prefer_own_services` rewrites such an import: when the module an import names (``app.routes``) is the tail
of several analysed modules' full names, the one under the nearest enclosing folder of the importer
(``hybrid.app.routes`` for ``hybrid/app/main.py``) is meant. Imports naming one module only are left alone, as are
imports that no enclosing folder of the importer defines, and folders that are packages themselves (an
``__init__.py``): a package's folder is never a ``sys.path`` entry, its parent is, so ``import git`` in
``tool/core/git.py`` means the installed GitPython, not ``tool/git/`` (absolute imports, PEP 328). Used by :func:`faultlib.detect.serving.blocking._analyze`
after its single-folder rule (``_prefer_siblings``).
"""

from __future__ import annotations

__all__ = ["prefer_own_services"]


def prefer_own_services(modules: dict) -> None:
    """Point each import of a module several analysed trees define at the importer's own tree's module."""
    full = {module.name: module for module in modules.values()}
    tails: dict[str, int] = {}
    for name in full:
        parts = name.split(".")
        for cut in range(len(parts)):
            tail = ".".join(parts[cut:])
            tails[tail] = tails.get(tail, 0) + 1
    for module in full.values():
        for alias, target in list(module.imports.items()):
            named = _module_part(target, modules)
            if named is None or tails.get(named, 0) < 2 or named in full and _under(module.name, named):
                continue
            own = _nearest(module.package, named, full, module.name)
            if own is not None and own != named:
                module.imports[alias] = own + target[len(named):]


def _module_part(target: str, modules: dict) -> str | None:
    """The longest leading part of ``target`` that names an analysed module (``app.routes`` of
    ``app.routes.load_model``)."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        head = ".".join(parts[:end])
        if head in modules:
            return head
    return None


def _under(importer: str, named: str) -> bool:
    """``named`` is a full module name in the importer's own tree (its import is already the tree's own)."""
    return importer.partition(".")[0] == named.partition(".")[0] and "." in named


def _nearest(package: str, named: str, full: dict, importer: str) -> str | None:
    """``<enclosing folder>.<named>`` for the nearest enclosing folder of the importer's package that has it, the
    importer itself aside (``from store import Client`` in ``bot/plugins/store.py`` means another ``store``), and a
    folder that is a package (its ``__init__`` analysed under the folder's name) aside: not a root of ``sys.path``."""
    parts = package.split(".") if package else []
    for end in range(len(parts), 0, -1):
        folder = ".".join(parts[:end])
        candidate = folder + "." + named
        if candidate in full and candidate != importer and folder not in full:
            return candidate
    return None
