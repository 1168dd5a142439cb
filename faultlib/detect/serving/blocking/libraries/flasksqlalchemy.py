"""Flask-SQLAlchemy's own query helpers: ``db.get_or_404``, ``db.paginate``, ``Model.query.first_or_404()``...

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). The
extension's ``db.session`` is SQLAlchemy's sync session and ``Model.query`` a ``Query`` on it (typed in
:data:`~faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES` and by
:mod:`~faultlib.detect.serving.blocking.flask_models`); on top of them the extension adds helpers that run the
statement through that session and wait for the rows: ``SQLAlchemy.get_or_404``/``first_or_404``/``one_or_404``/
``paginate`` (3.x), the legacy ``Query.get_or_404``/``first_or_404``/``one_or_404``/``paginate``, and
``create_all``/``drop_all``/``reflect``, which run DDL on the engine. Found by held-out wave 54 (Flask-SQLAlchemy
used under Quart).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"
HELPERS = ("https://flask-sqlalchemy.readthedocs.io/en/stable/queries/#queries-for-views (get_or_404, first_or_404, "
           "one_or_404 execute the query in the session) and https://flask-sqlalchemy.readthedocs.io/en/stable/"
           "pagination/ (paginate runs the page's query and a count query)")
LEGACY = ("https://flask-sqlalchemy.readthedocs.io/en/stable/legacy-query/ (Model.query: a Query with get_or_404, "
          "first_or_404, one_or_404, paginate, run in the session)")
DDL = ("https://flask-sqlalchemy.readthedocs.io/en/stable/api/#flask_sqlalchemy.SQLAlchemy.create_all (create_all, "
       "drop_all, reflect: DDL and reflection on the engine)")
_EXTENSIONS = ("flask_sqlalchemy.SQLAlchemy", "flask_sqlalchemy.extension.SQLAlchemy")
_QUERIES = ("sqlalchemy.orm.Query", "sqlalchemy.orm.query.Query")

FLASK_SQLALCHEMY = Vocabulary(families=(
    Family(_EXTENSIONS, {m: D for m in ("get_or_404", "first_or_404", "one_or_404", "paginate")}, HELPERS),
    Family(_EXTENSIONS, {m: D for m in ("create_all", "drop_all", "reflect")}, DDL),
    Family(_QUERIES, {m: D for m in ("get_or_404", "first_or_404", "one_or_404", "paginate")}, LEGACY),
))
