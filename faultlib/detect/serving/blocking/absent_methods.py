"""A method called on an instance of an installed library's class that the class does not have: no request is assumed.

The guesses that a third-party object is a synchronous client -- by its class name
(:mod:`~faultlib.detect.serving.blocking.client_names`) or by the server the code gives it
(:mod:`~faultlib.detect.serving.blocking.inferred`) -- take every public method called on it for a request. A method
the class does not have raises ``AttributeError`` before anything is sent (held-out wave 64: ``zot.library()`` on
pyzotero's ``Zotero``, whose API is ``items``/``top``/``collections``/``groups``... and no ``library``; a
``disconnect()`` behind ``hasattr(client, "disconnect")`` on dingtalk_stream's ``DingTalkStreamClient``, which has
none). Where the library is installed (:mod:`~faultlib.detect.serving.blocking.installed`), its source answers: the
class and every base of it, read there, define no attribute of that name. Where it is not installed, the vocabulary
answers: a family that owns the type lists the methods that block, and a method it leaves out is never guessed
(:func:`~faultlib.detect.serving.blocking.sites.named_site`; the two classes above are described in
:mod:`~faultlib.detect.serving.blocking.libraries.scholarly` and :mod:`~faultlib.detect.serving.blocking.libraries.
messaging`).

"Does not have" is said only when the source leaves no other way in: every base is a class read in an installed
library (or ``object``), none defines the name -- as a ``def``, a class-level assignment, an attribute set anywhere in
its module (``self.name = ...``, ``Cls.name = ...``) --, and none can add attributes the source does not spell out
(``__getattr__``/``__getattribute__``, ``setattr``, a metaclass, a class decorator other than ``dataclass``). Otherwise
the guess stands.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass, Module, dotted

__all__ = ["lacks_method"]

MAX_CLASSES = 32
"""Classes of one hierarchy read at most; a longer one is not judged (the guess stands)."""
OPEN_ENDED = frozenset({"__getattr__", "__getattribute__"})
"""Methods whose definition lets a class answer attributes its source does not spell out (so does a ``setattr`` call
anywhere in its module)."""
PLAIN_DECORATORS = frozenset({"dataclass", "dataclasses.dataclass", "total_ordering", "functools.total_ordering"})
"""Class decorators that add no public method (``__init__``/``__eq__``/comparisons only)."""


def lacks_method(index, owner: str, method: str) -> bool:
    """Whether ``owner`` (a dotted class name) is a class of an installed library whose source shows it has no
    attribute ``method`` (see the module docstring); False when not installed, not read, or not sure."""
    installed = index.installed
    if installed is None or installed.inside_library or not method.isidentifier():
        return False
    memo = index.__dict__.setdefault("_absent_methods", {})
    key = (owner, method)
    if key not in memo:
        memo[key] = _lacks(installed, owner, method)
    return memo[key]


def _lacks(installed, owner: str, method: str) -> bool:
    found = installed.library_class(owner)
    if found is None:
        return False
    library, klass = found
    todo, seen = [klass], []
    while todo:
        current = todo.pop(0)
        seen.append(current)
        if (len(seen) > MAX_CLASSES or _open_ended(current) or method in _class_names(current)
                or method in _module_names(current.module)):
            return False
        for base in library.bases(current):
            if isinstance(base, str):
                if base in ("object", "builtins.object"):
                    continue
                deeper = installed.library_class(base)
                if deeper is None:
                    return False  # a base nobody read: it may define the method
                library, base = deeper
            if base not in seen and base not in todo:
                todo.append(base)
    return True


def _open_ended(klass: Klass) -> bool:
    """Whether ``klass`` can have attributes its source does not spell out."""
    node = klass.node
    if any(k.arg == "metaclass" for k in node.keywords):
        return True
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ".".join(dotted(target) or []) not in PLAIN_DECORATORS:
            return True
    return bool(_class_names(klass) & OPEN_ENDED) or "setattr" in _module_names(klass.module)


def _class_names(klass: Klass) -> frozenset[str]:
    """The names ``klass``'s body defines: its ``def``s (nested ones included), class-level and ``self.x``
    assignments (memoised on the class)."""
    cached = klass.__dict__.get("_defined_names")
    if cached is None:
        names = set()
        for node in ast.walk(klass.node):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not klass.node:
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
        cached = klass.__dict__["_defined_names"] = frozenset(names)
    return cached


def _module_names(module: Module) -> frozenset[str]:
    """The attributes ``module`` sets on anything (``Cls.name = ...``) and ``setattr`` when it calls it (memoised on
    the module)."""
    cached = module.__dict__.get("_attribute_stores")
    if cached is None:
        names = {node.attr for node in ast.walk(module.tree)
                 if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
        if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
               for node in ast.walk(module.tree)):
            names.add("setattr")
        cached = module.__dict__["_attribute_stores"] = frozenset(names)
    return cached
