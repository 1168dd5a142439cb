"""Flask-SQLAlchemy's models: ``Model.query`` is a query of the extension's synchronous session.

``db = SQLAlchemy(app)`` gives ``db.session``, a ``scoped_session`` of SQLAlchemy's sync ``Session``, and
``db.Model``, the declarative base whose subclasses carry a class attribute ``query``: a ``Query`` bound to that
session, so ``User.query.filter_by(...).first()`` and ``User.query.get(pk)`` run the SQL and wait for the rows in the
calling thread (https://flask-sqlalchemy.readthedocs.io/en/stable/queries/ and
https://flask-sqlalchemy.readthedocs.io/en/stable/api/#flask_sqlalchemy.model.Model.query). Used under Quart (the
extension as such, or through ``quart.flask_patch``), every one of these runs on the event loop: "Flask extensions
... are synchronous and will block the event loop" (https://quart.palletsprojects.com/en/latest/how_to_guides/
flask_extensions.html). The session and engine attributes of the extension are typed in
:data:`~faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`; this module types ``Model.query`` for the models of
the analysed files (held-out wave 54: a Quart messenger and a Quart voting app on SQLite).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass
from faultlib.detect.serving.blocking.scopes import MAX_RESOLVE_DEPTH

EXTENSIONS = frozenset({"flask_sqlalchemy.SQLAlchemy", "flask_sqlalchemy.extension.SQLAlchemy"})
"""Flask-SQLAlchemy's extension class, as imported (``flask_sqlalchemy``) and where it is defined (3.x)."""

QUERY = "sqlalchemy.orm.Query"
"""``Model.query``: Flask-SQLAlchemy's ``Query`` subclasses SQLAlchemy's (its ``first``/``all``/``get`` run the SQL)."""


def model_query(index, klass: Klass, name: str) -> str | None:
    """The type of ``klass.query`` when ``klass`` is a model of a Flask-SQLAlchemy extension (it derives, perhaps
    through its own classes, from ``db.Model`` of a ``db`` the analysis types as the extension), else None."""
    return QUERY if name == "query" and _flask_model(index, klass, 0) else None


def _flask_model(index, klass: Klass, depth: int) -> bool:
    scope = index.infer.module_func(klass.module)
    for base in klass.node.bases:
        if isinstance(base, ast.Attribute) and base.attr == "Model" and index.type_of(base.value, scope) in EXTENSIONS:
            return True
    return depth < MAX_RESOLVE_DEPTH and any(
        isinstance(b, Klass) and _flask_model(index, b, depth + 1) for b in index.bases(klass))
