"""Django's ORM: ``Model.objects.get(...)``, ``queryset.update(...)``, ``instance.save()`` query the database.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Django's
ORM is synchronous: a manager or queryset method that evaluates the query (``get``, ``first``, ``count``,
``exists``, ``create``, ``update``, ``delete``...) and a model instance's ``save``/``delete``/``refresh_from_db``
send SQL and wait for the rows in the calling thread. Django's documentation: "you cannot use the ORM from an
async context: write or wrap the query in ``sync_to_async``", and the async twins are the ``a``-prefixed methods
(``aget``, ``acreate``, ``asave``...), which are other names and stay silent. Methods that only build a query
(``filter``, ``exclude``, ``all``, ``order_by``, ``select_related``...) return a ``QuerySet`` and run nothing; the
queryset runs when it is evaluated: iterated (``for room in rooms``) or indexed (``rooms[0]``: a ``LIMIT 1`` query;
a slice ``rooms[:10]`` stays lazy, https://docs.djangoproject.com/en/stable/ref/models/querysets/#when-querysets-
are-evaluated). A
model's default manager ``objects`` is typed by :mod:`~faultlib.detect.serving.blocking.django_models`; a
project's own manager class (``objects = RoomManager()``, a ``models.Manager`` subclass) inherits these entries.
Calls inside a function handed to ``sync_to_async``/``database_sync_to_async`` (decorated or wrapped) run in a
thread and stay silent. Found by held-out wave 57 (Django Channels consumers querying in ``async def receive``).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"
ASYNC_SAFETY = ("https://docs.djangoproject.com/en/stable/topics/async/#async-safety (the ORM is synchronous: "
                "\"you must use sync_to_async\" from an async context; the a-prefixed methods are the async API) "
                "and https://docs.djangoproject.com/en/stable/ref/models/querysets/#methods-that-do-not-return-"
                "querysets (these evaluate the query)")
INSTANCE = ("https://docs.djangoproject.com/en/stable/ref/models/instances/#saving-objects (save, delete and "
            "refresh_from_db run SQL; asave/adelete/arefresh_from_db are the async twins) and " + ASYNC_SAFETY)

MANAGERS = ("django.db.models.Manager", "django.db.models.manager.Manager", "django.db.models.QuerySet",
            "django.db.models.query.QuerySet")
"""Django's manager and queryset classes, as imported from ``django.db.models`` and where they are defined."""

MODELS = ("django.db.models.Model", "django.db.models.base.Model")
"""Django's model base class, as imported and where it is defined."""

EVALUATING = ("get", "first", "last", "earliest", "latest", "count", "exists", "contains", "aggregate", "in_bulk",
              "create", "get_or_create", "update_or_create", "bulk_create", "bulk_update", "update", "delete",
              "explain")
"""Manager/QuerySet methods that send SQL when called (of the "methods that do not return QuerySets"; ``iterator``
and ``raw`` return lazy objects that query when iterated)."""

BUILDING = ("all", "filter", "exclude", "order_by", "reverse", "distinct", "values", "values_list", "annotate",
            "alias", "select_related", "prefetch_related", "defer", "only", "using", "select_for_update", "none",
            "union", "intersection", "difference", "extra", "dates", "datetimes")
"""Manager/QuerySet methods that return a new, lazy QuerySet (no SQL until it is evaluated)."""

ROW_GETTERS = ("get", "first", "last", "earliest", "latest", "create")
"""Manager/QuerySet methods that return one model instance (typed as Django's ``Model``: its ``save``/``delete``
then query too; which model is not known here)."""

DJANGO_ORM = Vocabulary(
    families=(
        Family(MANAGERS, {**{m: D for m in EVALUATING}, "__getitem__": D, "__next__": D}, ASYNC_SAFETY),
        Family(MODELS, {m: D for m in ("save", "delete", "refresh_from_db")},
               INSTANCE),
    ),
    returns={**{f"{t}.{m}": "django.db.models.QuerySet" for t in MANAGERS for m in BUILDING},
             **{f"{t}.{m}": MODELS[0] for t in MANAGERS for m in ROW_GETTERS}},
)
