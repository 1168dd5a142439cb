"""What an async ORM's query on a model class of the analysed files gives when awaited: one instance of that class.

Async ORMs query through the model class itself, and the awaited query of one row is an instance of the class it was
asked on:

* Tortoise ORM: ``await User.get(username=name)``, ``get_or_none``, ``create``, ``first``/``last``/``earliest``/
  ``latest`` (``User.filter(...).first()``), the queryset builders in between (``filter``, ``exclude``, ``all``,
  ``order_by``, ``select_related``...; https://tortoise.github.io/models.html#tortoise.models.Model.get and
  https://tortoise.github.io/query.html: "``get`` ... Fetch exactly one object matching the parameters",
  ``QuerySetSingle[MODEL]``);
* Beanie: ``await Doc.get(id)``, ``await Doc.find_one(...)`` (https://beanie-odm.dev/api-documentation/document/);
* ormar: ``await Item.objects.get(...)``, ``.filter(...).first()``, ``get_or_none``, ``create``
  (https://collerek.github.io/ormar/latest/queries/read/);
* Piccolo: ``await Band.objects().get(...)``, ``.first()`` (https://piccolo-orm.readthedocs.io/en/latest/piccolo/
  query_types/objects.html).

The instance's own methods are the project's code and run where it is used: held-out wave 83, a login coroutine's
``user = await db_models.User.get(username=...)`` then ``user.verify_password(pw)``, which hashes with passlib's
bcrypt on the loop. A query that gives several rows (``await User.filter(...)``, ``find(...).to_list()``) or a pair
(``get_or_create``) is left untyped. Used by :mod:`~faultlib.detect.serving.blocking.typeof` for an awaited call.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["orm_instance"]

ORM_PACKAGES = frozenset({"tortoise", "beanie", "ormar", "piccolo"})
"""The async ORMs whose model classes query through themselves."""
MODEL_BASES = frozenset({"Model", "Document", "Table"})
"""The names of those ORMs' model base classes (``tortoise.models.Model``, ``beanie.Document``, ``ormar.Model``,
``piccolo.table.Table``)."""
ONE_ROW = frozenset({"get", "get_or_none", "create", "first", "last", "earliest", "latest", "find_one"})
"""Query methods whose awaited result is one instance of the model (or None)."""
BUILDERS = frozenset({"filter", "exclude", "all", "order_by", "select_related", "prefetch_related", "only", "annotate",
                      "using_db", "select_for_update", "distinct", "limit", "offset", "where", "objects", "find",
                      "group_by", "exclude_fields", "fields", "select_all"})
"""Queryset builders between the class and the one-row method: each returns a query of the same model."""
MAX_CHAIN = 8


def orm_instance(index, call: ast.expr, func: Func) -> Klass | None:
    """The model class of the analysed files that ``await call`` gives one instance of (``call`` is the awaited
    expression: ``User.get(...)``, ``User.filter(...).first()``, ``Item.objects.get(...)``), else None."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ONE_ROW):
        return None
    node: ast.expr = call.func.value
    for _ in range(MAX_CHAIN):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BUILDERS:
            node = node.func.value  # User.filter(...).first(), Band.objects().get(...)
        elif isinstance(node, ast.Attribute) and node.attr == "objects":
            node = node.value  # ormar's Item.objects.get(...)
        else:
            break
    found = index.callee(node, func) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return found if isinstance(found, Klass) and index.subclass_of(found, _orm_base) else None


def _orm_base(name: str) -> bool:
    """A model base class of one of the async ORMs (:data:`ORM_PACKAGES`, :data:`MODEL_BASES`)."""
    return name.partition(".")[0] in ORM_PACKAGES and name.rpartition(".")[2] in MODEL_BASES
