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
decorator of the same name elsewhere means something else.

A field validator runs only for the fields the constructor is given: "validators won't run when the default value is
used" unless the field or the decorator asks for it (``validate_default=True``, v1's ``always=True``;
https://docs.pydantic.dev/latest/concepts/validators/#validation-of-default-values). So ``ToolSpec(name=n)`` does not
run a ``@field_validator("event_adapter", mode="before")`` that imports the adapter class its string names (a
deserialisation step for a spec read back from JSON); a call that spreads ``**data`` may pass any field, and runs them
all. Model validators (``@model_validator``, ``@root_validator``) run on every construction. Used by
:func:`~faultlib.detect.serving.blocking.metaclasses.constructor_functions`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["validator_functions"]

MODEL_VALIDATORS = frozenset({"model_validator", "root_validator"})
"""Pydantic's decorators of the validators every construction runs (v2 and v1)."""
FIELD_VALIDATORS = frozenset({"field_validator", "validator"})
"""Pydantic's decorators of the validators of named fields (v2 and v1)."""
ON_DEFAULTS = frozenset({"validate_default", "always"})
"""Decorator keywords that make a field validator run on a default value too."""
PYDANTIC_BASES = ("pydantic.", "pydantic_settings.", "sqlmodel.")
MAX_CLASSES = 16


def validator_functions(index, klass: Klass, call: ast.Call | None = None) -> list[Func]:
    """The sync validators building ``klass`` runs, when it is a pydantic model (see the module docstring): with
    ``call`` (the constructor's call), only the field validators of the fields it passes."""
    memo = index.__dict__.setdefault("_faultlib_model_validators", {})
    if id(klass) not in memo:
        chain = _own_chain(index, klass)
        pydantic = any(isinstance(b, str) and b.startswith(PYDANTIC_BASES) for k in chain for b in index.bases(k))
        memo[id(klass)] = [(m, found) for k in chain for m in k.methods.values()
                           if pydantic and isinstance(m, Func) and not m.is_async
                           and (found := _validated(m)) is not None]
    passed = None if call is None or call.args or any(k.arg is None for k in call.keywords) else {
        k.arg for k in call.keywords}
    return [m for m, fields in memo[id(klass)] if fields is ALL or passed is None or fields & passed]


def _own_chain(index, klass: Klass) -> list[Klass]:
    """``klass`` and its bases among the analysed files, breadth first."""
    chain, todo = [], [klass]
    while todo and len(chain) < MAX_CLASSES:
        current = todo.pop(0)
        chain.append(current)
        todo.extend(b for b in index.bases(current) if isinstance(b, Klass) and b not in chain and b not in todo)
    return chain


ALL = frozenset({"*"})
"""What :func:`_validated` answers for a validator every construction runs."""


def _validated(method: Func) -> frozenset[str] | None:
    """The fields whose value runs the validator ``method`` (:data:`ALL`: every construction), or None when it is
    no validator."""
    for decorator in method.node.decorator_list:
        parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if not parts or parts[-1] not in MODEL_VALIDATORS | FIELD_VALIDATORS:
            continue
        if parts[-1] in MODEL_VALIDATORS or not isinstance(decorator, ast.Call):
            return ALL
        if any(k.arg in ON_DEFAULTS and not (isinstance(k.value, ast.Constant) and not k.value.value)
               for k in decorator.keywords):
            return ALL
        fields = frozenset(a.value for a in decorator.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
        return ALL if "*" in fields or len(fields) < len(decorator.args) else fields
    return None
