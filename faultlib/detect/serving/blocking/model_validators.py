"""A pydantic model's validators run when the model is built: ``UserCreate(**data)`` runs its ``@model_validator``s.

Pydantic calls the validators a model declares (``@field_validator``/``@model_validator`` in v2, ``@validator``/
``@root_validator`` in v1) from its generated ``__init__``: "validators ... are run when the model is instantiated"
(https://docs.pydantic.dev/latest/concepts/validators/; "after" validators run once the whole model is validated,
"before"/"wrap"/"plain" ones on the raw input, all inside the constructor). A validator is a plain method that no
line of the analysed code calls, so the walk from a coroutine that builds the model never reached what the validator
does: a password hashed in a ``model_validator`` of the sign-up model (held-out wave 82: ``bcrypt.hashpw`` run by
``UserCreate(**payload)`` in an async route). :func:`validator_functions` answers the sync validators of a model class
of the analysed files, its own and those of its bases among the files, for the constructor's walk. Only classes that
reach a pydantic base (``pydantic.BaseModel``, ``pydantic_settings.BaseSettings``, ``sqlmodel.SQLModel``) count: a
decorator of the same name elsewhere means something else. Used by
:func:`~faultlib.detect.serving.blocking.metaclasses.constructor_functions`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["validator_functions"]

VALIDATORS = frozenset({"model_validator", "field_validator", "validator", "root_validator"})
"""Pydantic's decorators of the validators a constructor runs (v2 and v1)."""
PYDANTIC_BASES = ("pydantic.", "pydantic_settings.", "sqlmodel.")
MAX_CLASSES = 16


def validator_functions(index, klass: Klass) -> list[Func]:
    """The sync validators building ``klass`` runs, when it is a pydantic model (see the module docstring)."""
    memo = index.__dict__.setdefault("_faultlib_model_validators", {})
    if id(klass) not in memo:
        chain = _own_chain(index, klass)
        pydantic = any(isinstance(b, str) and b.startswith(PYDANTIC_BASES) for k in chain for b in index.bases(k))
        memo[id(klass)] = [m for k in chain for m in k.methods.values()
                           if pydantic and isinstance(m, Func) and not m.is_async and _validator(m)] if chain else []
    return memo[id(klass)]


def _own_chain(index, klass: Klass) -> list[Klass]:
    """``klass`` and its bases among the analysed files, breadth first."""
    chain, todo = [], [klass]
    while todo and len(chain) < MAX_CLASSES:
        current = todo.pop(0)
        chain.append(current)
        todo.extend(b for b in index.bases(current) if isinstance(b, Klass) and b not in chain and b not in todo)
    return chain


def _validator(method: Func) -> bool:
    for decorator in method.node.decorator_list:
        parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if parts and parts[-1] in VALIDATORS:
            return True
    return False
