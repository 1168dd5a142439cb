"""Database administration helpers over a synchronous engine: SQLAlchemy-Utils' ``database_exists``,
``create_database`` and ``drop_database``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
Each one builds a synchronous SQLAlchemy engine for the URL it is given (or its server's maintenance database),
connects and runs its query (``SELECT 1 FROM pg_database ...``, ``CREATE DATABASE``, ``DROP DATABASE``) in the
calling thread, so a coroutine that calls them waits for the database server on the loop; the library has no
async twin.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

D = "blocking_db"

SQLALCHEMY_UTILS = ("https://sqlalchemy-utils.readthedocs.io/en/latest/database_helpers.html (database_exists, "
                    "create_database and drop_database connect to the database server given by the URL and run "
                    "their statement)")

_HELPERS = ("database_exists", "create_database", "drop_database")

DB_HELPERS = Vocabulary(calls={
    **{f"sqlalchemy_utils.{name}": (D, SQLALCHEMY_UTILS) for name in _HELPERS},
    **{f"sqlalchemy_utils.functions.{name}": (D, SQLALCHEMY_UTILS) for name in _HELPERS},
    **{f"sqlalchemy_utils.functions.database.{name}": (D, SQLALCHEMY_UTILS) for name in _HELPERS},
})
