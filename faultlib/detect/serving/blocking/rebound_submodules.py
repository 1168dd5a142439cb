"""A package whose ``__init__`` rebinds the name of one of its submodules: ``pkg.mod`` is then what the package binds.

``server/utils/__init__.py`` saying ``from server.utils.download import download as download`` (the re-export form
of the typing guides: https://typing.python.org/en/latest/spec/distributing.html#import-conventions) first imports
the submodule ``server.utils.download`` -- which sets the package's attribute ``download`` to the module -- and then
binds ``download`` to the function, replacing it. ``from server.utils import download`` takes the package's
attribute, so it gets the function; only when the package has no such attribute does it fall back to importing the
submodule (https://docs.python.org/3/reference/simple_stmts.html#the-import-statement: "check if the imported module
has an attribute by that name ... if not, attempt to import a submodule with that name"). ``import pkg.mod as m``
looks the attribute up first in the same way (https://docs.python.org/3/whatsnew/3.7.html, bpo-30024).

So a dotted name that spells a submodule exactly (``server.utils.download``, nothing after it) denotes the package's
own binding of the last part when the package's ``__init__`` defines that name (a function or class) or imports it
from elsewhere; a name with more parts after the submodule (``server.utils.download.download``: how ``from
server.utils.download import download`` is recorded) still goes through the submodule, which the import system
loads by its path. Used by :meth:`~faultlib.detect.serving.blocking.index.Index.lookup` (held-out wave 75: a
translation service's Hub download helpers, re-exported under their modules' names, were lost on the way from the
async lifespan).
"""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.serving.blocking.model import Func, Klass
from faultlib.detect.serving.blocking.scopes import MAX_RESOLVE_DEPTH

__all__ = ["rebound_submodule"]


def rebound_submodule(index, parts: list[str], depth: int) -> Func | Klass | None:
    """The function or class of the analysed files that the package ``parts[:-1]`` binds under ``parts[-1]`` in its
    ``__init__``, replacing the submodule ``parts`` (see the module docstring), or None when the package leaves the
    name to the submodule (``from . import download``, or no binding at all)."""
    if len(parts) < 2 or depth >= MAX_RESOLVE_DEPTH:
        return None
    package, name = index.modules.get(".".join(parts[:-1])), parts[-1]
    if package is None or Path(package.path).name != "__init__.py":
        return None
    if name in package.functions or name in package.classes:
        found = index.member(package, [name], depth + 1)
    elif name in package.imports and package.imports[name] != ".".join(parts):
        found = index.lookup(package.imports[name], depth + 1)
    else:
        return None
    return found if isinstance(found, (Func, Klass)) else None
