"""What a SQLAlchemy repository of Advanced Alchemy (and Litestar's re-export of it) gives back: the model class the
repository is declared for.

``class UserRepository(SQLAlchemyAsyncRepository[User]): model_type = User`` binds the repository's type parameter to
``User``; ``get``/``get_one``/``get_one_or_none``/``add``/``update``/``upsert``/``delete`` return one instance of it
(https://docs.advanced-alchemy.litestar.dev/latest/reference/repository.html, ``SQLAlchemyAsyncRepository.get_one``:
"Returns: The retrieved instance", typed ``ModelT``). An instance fetched so on the loop and then asked to run a sync
method of its class (``user.check_password(pw)`` hashing with bcrypt) runs that method there (held-out wave 65: a
Litestar login handler's ``existing_user := await users_repo.get_one_or_none(...)``). The model is the subscript of
the library base (``SQLAlchemyAsyncRepository[User]``) or the class attribute ``model_type``, on the repository class
or one of its bases in the analysed files. Used by :mod:`~faultlib.detect.serving.blocking.typeof` for an awaited
call of the async repository.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["repository_result"]

PACKAGES = ("advanced_alchemy.", "litestar.plugins.sqlalchemy.", "litestar.contrib.sqlalchemy.")
BASES = frozenset({"SQLAlchemyAsyncRepository", "SQLAlchemySyncRepository", "SQLAlchemyAsyncSlugRepository",
                   "SQLAlchemySyncSlugRepository", "SQLAlchemyAsyncRepositoryProtocol",
                   "SQLAlchemySyncRepositoryProtocol"})
"""The repository classes whose type parameter is the model."""
ONE_INSTANCE = frozenset({"get", "get_one", "get_one_or_none", "get_by_slug", "add", "update", "upsert", "delete"})
"""Methods that return one instance of the model (or None)."""
MAX_DEPTH = 6


def repository_result(index, call: ast.expr, func: Func) -> Klass | None:
    """The model class ``await repo.get_one_or_none(...)`` (``call`` is the awaited call) gives when ``repo`` is a repository
    class of the analysed files built on Advanced Alchemy's, else None."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ONE_INSTANCE):
        return None
    owner = index.type_of(call.func.value, func)
    return model_of(index, owner) if isinstance(owner, Klass) else None


def model_of(index, klass: Klass, depth: int = 0) -> Klass | None:
    """The model a repository class is declared for (its ``model_type``, or the library base's subscript)."""
    if depth > MAX_DEPTH:
        return None
    for node in klass.node.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "model_type" for t in node.targets)
                or isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.target.id == "model_type" and node.value is not None):
            found = index.callee(node.value, index.infer.module_func(klass.module))
            if isinstance(found, Klass) and _is_repository(index, klass):
                return found
    for base in klass.node.bases:
        if isinstance(base, ast.Subscript) and _library_base(index, base.value, klass):
            found = index.callee(base.slice, index.infer.module_func(klass.module))
            if isinstance(found, Klass):
                return found
    inherited = (model_of(index, base, depth + 1) for base in index.bases(klass) if isinstance(base, Klass))
    return next((m for m in inherited if m is not None), None)  # declared on a repository base of the files


def _library_base(index, expr: ast.expr, klass: Klass) -> bool:
    parts = dotted(expr)
    found = index.resolve_parts(parts, klass.module, None) if parts else None
    return isinstance(found, str) and found.startswith(PACKAGES) and found.rpartition(".")[2] in BASES


def _is_repository(index, klass: Klass) -> bool:
    """``klass`` derives from one of Advanced Alchemy's repository classes (through classes of the files too)."""
    return index.subclass_of(klass, lambda name: name.startswith(PACKAGES) and name.rpartition(".")[2] in BASES)
