"""What ``Cls(...)`` runs when ``Cls`` has a metaclass of the analysed files that defines ``__call__``.

"The call of a class object runs the metaclass's ``__call__``; ``type.__call__`` is what then calls ``__new__`` and
``__init__``" (https://docs.python.org/3/reference/datamodel.html#metaclasses and #object.__call__). A singleton
metaclass whose ``__call__`` returns the instance it stored (``return cls._instance``), or raises until a setup
method made it, never runs ``__init__`` on that call: following ``Cls()`` into ``__init__`` reports I/O the call does
not do (held-out wave 43: a Spotify client singleton whose ``__init__`` reads a cache file only at start-up). The
metaclass's ``__call__`` is followed instead; ``__init__``/``__new__`` too when it hands on to ``super().__call__``
or ``type.__call__``, as most metaclasses do.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.actor_classes import replaced_by_handle
from faultlib.detect.serving.blocking.default_factories import factory_functions
from faultlib.detect.serving.blocking.model import Func, Klass
from faultlib.detect.serving.blocking.model_validators import validator_functions
from faultlib.detect.serving.blocking.orm_events import init_listeners

MAX_DEPTH = 8


def metaclass_call(index, klass: Klass, depth: int = 0) -> Func | None:
    """The ``__call__`` of ``klass``'s metaclass (declared on it or on a base of the analysed files), or None."""
    for keyword in klass.node.keywords:
        if keyword.arg == "metaclass":
            meta = index.callee(keyword.value, None) if isinstance(keyword.value, (ast.Name, ast.Attribute)) else None
            if meta is None and isinstance(keyword.value, ast.Name):
                meta = klass.module.classes.get(keyword.value.id)
            return index.method(meta, "__call__") if isinstance(meta, Klass) else None
    if depth < MAX_DEPTH:
        for base in index.bases(klass):
            if isinstance(base, Klass):
                found = metaclass_call(index, base, depth + 1)
                if found is not None:
                    return found
    return None


def _hands_on(call_method: Func) -> bool:
    """Whether the metaclass ``__call__`` builds the instance the usual way (``super().__call__(...)``,
    ``type.__call__(cls, ...)``, ``super(Meta, cls).__call__(...)``)."""
    for node in ast.walk(call_method.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__call__":
            owner = node.func.value
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                return True
            if isinstance(owner, ast.Name) and owner.id == "type":
                return True
    return False


def constructor_functions(index, klass: Klass, call: ast.Call | None = None) -> list[Func]:
    """The sync functions ``klass(...)`` runs: the metaclass's ``__call__`` when one of the files defines it (and
    ``__init__``/``__new__`` only when that ``__call__`` hands on), else ``__init__`` and ``__new__`` (and the SQLAlchemy
    ``init`` listeners of the class, :mod:`~faultlib.detect.serving.blocking.orm_events`, and a pydantic model's
    validators that ``call`` runs, :mod:`~faultlib.detect.serving.blocking.model_validators`); none for a class
    a Ray decorator replaced (:mod:`~faultlib.detect.serving.blocking.actor_classes`: the call raises)."""
    if replaced_by_handle(index, klass):
        return []
    inits = [m for m in (index.method(klass, "__init__"), index.method(klass, "__new__"))
             if m is not None and not m.is_async] + factory_functions(index, klass)  # field(default_factory=...)
    inits += [f for f in init_listeners(index, klass) if f not in inits]  # @event.listens_for(klass, "init")
    inits += [f for f in validator_functions(index, klass, call) if f not in inits]  # a pydantic model's validators
    meta_call = metaclass_call(index, klass)
    if meta_call is None or meta_call.is_async:
        return inits
    return [meta_call, *inits] if _hands_on(meta_call) else [meta_call]
