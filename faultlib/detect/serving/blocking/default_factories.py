"""A dataclass field's ``default_factory`` runs when the dataclass is built without that field.

``reranker: Ranker = field(default_factory=lambda: Ranker("acme/tiny"))`` in a ``@dataclass``: the generated
``__init__`` calls the factory for every instance built without a ``reranker`` argument ("default_factory: If
provided, it must be a zero-argument callable that will be called when a default value is needed for this field",
https://docs.python.org/3/library/dataclasses.html#dataclasses.field); pydantic's ``Field(default_factory=...)`` does
the same for a model (https://docs.pydantic.dev/latest/concepts/fields/#default-values). So ``Config()`` in a
coroutine runs each factory on the loop. :func:`factory_functions` answers the factories as functions to follow: a
``def`` of the analysed files, a class's constructor, or the lambda's body seen as a function of its own. Used by
:func:`~faultlib.detect.serving.blocking.metaclasses.constructor_functions`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["factory_functions"]

FIELD_FUNCTIONS = frozenset({"dataclasses.field", "pydantic.Field", "pydantic.fields.Field"})
"""What a field's declaration calls, resolved."""


def factory_functions(index, klass: Klass) -> list[Func]:
    """The sync functions building ``klass`` runs for the default factories of its fields."""
    memo = index.__dict__.setdefault("_faultlib_default_factories", {})
    if id(klass) not in memo:
        memo[id(klass)] = [f for factory in _factories(index, klass) for f in _as_functions(index, factory, klass)]
    return memo[id(klass)]


def _factories(index, klass: Klass) -> list[ast.expr]:
    out = []
    for stmt in klass.node.body:
        value = stmt.value if isinstance(stmt, (ast.AnnAssign, ast.Assign)) else None
        if not isinstance(value, ast.Call) or not dotted(value.func):
            continue
        made_by = index.resolve_parts(dotted(value.func), klass.module, None)
        if made_by not in FIELD_FUNCTIONS or (made_by == "dataclasses.field" and "__init__" in klass.methods):
            continue  # a dataclass that writes its own __init__ gets no generated one to call the factory
        out += [k.value for k in value.keywords if k.arg == "default_factory"]
    return out


def _as_functions(index, factory: ast.expr, klass: Klass) -> list[Func]:
    if isinstance(factory, ast.Lambda):
        node = ast.copy_location(ast.FunctionDef(
            name="<default_factory>", args=factory.args, body=[ast.copy_location(ast.Return(value=factory.body),
                                                                                  factory.body)],
            decorator_list=[], returns=None, type_params=[]), factory)
        return [Func(klass.module, node, f"{klass.qualname}.<default_factory>")]
    parts = dotted(factory)
    found = index.resolve_parts(parts, klass.module, None) if parts else None
    if isinstance(found, Func):
        return [] if found.is_async else [found]
    if isinstance(found, Klass):
        return [m for m in (index.method(found, "__init__"),) if m is not None and not m.is_async]
    return []
