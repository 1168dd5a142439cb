"""Names a module binds through ``from pkg.mod import *``: found in the star-imported module, and re-exported on.

``from core.base import AuthProvider`` where ``core/base/__init__.py`` says ``from .providers import *`` and
``core/base/providers/__init__.py`` says ``from .auth import AuthProvider``: the class is ``core.base.providers.auth.
AuthProvider``. A star import binds the module's public names (every name in a literal ``__all__``, or, without
one, every name not starting with ``_``; https://docs.python.org/3/reference/simple_stmts.html#the-import-statement),
its own definitions and the names it imported alike, so a chain of re-exporting packages is followed hop by hop.
Used by :class:`~faultlib.detect.serving.blocking.index.Index` both for a bare name used in the importing module and
for a dotted name looked up through the package (a subclass's base, an annotation) -- unless the vocabulary
describes that dotted name: scanning a library's own package (``llama_cpp``), ``llama_cpp.Llama`` stays the
documented class rather than the code behind it.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Module

__all__ = ["documented_re_export", "star_exported", "star_lookup"]


def star_lookup(index, module: Module, parts: list[str], depth: int):
    """What ``parts`` (``[name, *attributes]``) denotes when ``module`` binds ``name`` only through one of its star
    imports (a function, class or module of the analysed files, or a dotted name), or None."""
    head, rest = parts[0], parts[1:]
    for found in filter(None, map(index.modules.get, module.star_imports)):
        if found is module:
            continue
        if head in found.functions or head in found.classes:
            return index.member(found, parts, depth + 1)
        if head in found.imports and star_exported(found, head):
            return index.lookup(".".join([found.imports[head], *rest]), depth + 1)  # its `import mido` comes along
    return None


def documented_re_export(index, module: Module, rest: list[str], name: str) -> bool:
    """Whether the dotted ``name`` (``module`` + ``rest``) reaches ``module``'s member only through a star import
    while the vocabulary describes ``name`` itself: it stays the documented name."""
    return bool(rest) and not (rest[0] in module.functions or rest[0] in module.classes or rest[0] in module.imports
                               ) and bool(module.star_imports) and index.vocab.owned(name)


def star_exported(module: Module, name: str) -> bool:
    """Whether ``from module import *`` binds ``name``: listed in a literal ``__all__``, or, without one, any
    name not starting with ``_``."""
    listed = module.globals.get("__all__")
    if isinstance(listed, (ast.List, ast.Tuple)):
        return any(isinstance(e, ast.Constant) and e.value == name for e in listed.elts)
    return not name.startswith("_")
