"""A documented attribute a class of the analysed files inherits from a third-party base: ``Base.metadata``.

:data:`~faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES` types the documented attributes of library objects
(a declarative base's ``.metadata`` is its ``MetaData``), and an object of the library itself finds them there. A
class of the analysed files that derives from such a base has them too without writing them: SQLAlchemy 2's
``class Base(DeclarativeBase): ...`` is the usual way to declare the base of a service's models, and its
``Base.metadata.create_all(engine)`` runs the DDL as ``declarative_base().metadata.create_all(engine)`` does
(https://docs.sqlalchemy.org/en/20/orm/mapping_api.html#sqlalchemy.orm.DeclarativeBase.metadata; held-out wave 64:
a research agent's database wrapper creating its tables from an endpoint's first call). :func:`library_attribute`
answers the type of such an attribute from the nearest third-party base (through the classes of the files, breadth
first) that documents it, for a class that does not set it itself (its own attributes are asked first, by
:meth:`~faultlib.detect.serving.blocking.index.Index.attribute_type`). Only the table of documented attributes is
read: a family's sub-client namespaces and the Mongo handles stay with the library's own objects.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.inherited import library_bases
from faultlib.detect.serving.blocking.model import Klass, Type
from faultlib.detect.serving.blocking.vocab import ATTRIBUTE_TYPES

__all__ = ["library_attribute"]


def library_attribute(index, klass: Klass, name: str) -> Type | None:
    """The documented type of ``name`` on the nearest third-party base of ``klass`` that lists it, or None."""
    return next((ATTRIBUTE_TYPES[base][name] for base in library_bases(index, klass)
                 if name in ATTRIBUTE_TYPES.get(base, {})), None)
