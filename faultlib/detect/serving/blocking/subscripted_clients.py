"""Annotations that wrap a client's class: ``ClassVar[T]``, ``Final[T]`` and a client class subscripted.

A class-level session is declared ``session: ClassVar[scoped_session[Session]]`` (often through an alias,
``SessionType = scoped_session[Session]``) and assigned once at start-up elsewhere; every ``Trade.session.scalars(
...)`` then runs on that scoped session (a trading bot's Telegram handlers, held-out wave 52). ``ClassVar[T]`` and
``Final[T]`` qualify an attribute of type ``T`` ("ClassVar ... indicates that a given attribute is intended to be
used as a class variable", https://docs.python.org/3/library/typing.html#typing.ClassVar; ``Final``,
https://docs.python.org/3/library/typing.html#typing.Final). ``scoped_session[Session]`` parametrises the generic
class ``scoped_session`` (SQLAlchemy declares it ``Generic[_S]``,
https://docs.sqlalchemy.org/en/20/orm/contextual.html#sqlalchemy.orm.scoped_session): its instances are
``scoped_session``'s. Only a class the vocabulary knows (a family owns it, or a call returns it) is taken so: a
container (``list[Session]``) or a mapped column (``Mapped[int]``) is not an instance of its parameter.
Used by :meth:`~faultlib.detect.serving.blocking.index.Index.annotation_type`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import dotted

__all__ = ["QUALIFIERS", "known_client", "qualified_type"]

QUALIFIERS = frozenset({"ClassVar", "Final"})


def qualified_type(node: ast.Subscript) -> ast.expr | None:
    """The type ``ClassVar[T]``/``Final[T]`` qualifies (``T``), or None when ``node`` is neither."""
    parts = dotted(node.value)
    return node.slice if parts and parts[-1] in QUALIFIERS else None


def known_client(index, node: ast.Subscript, module) -> str | None:
    """The dotted class of the subscripted annotation ``node`` (``scoped_session[Session]``) when it is a class the
    vocabulary knows, else None."""
    parts = dotted(node.value)
    found = index.resolve_parts(parts, module, None) if parts else None
    if not isinstance(found, str) or found.startswith(("builtins.", "typing.", "collections.")):
        return None
    vocab = index.vocab
    return found if vocab.owned(found) or found in index._returned() else None
