"""``super().method(...)`` in a subclass of a library's class: the library's method, when the vocabulary describes it.

A service that subclasses a library's client to adjust it (``class AtlasMongoVector(MongoDBAtlasVectorSearch)``
overriding ``add_documents`` to derive the ids, then ``return super().add_documents(documents, ids)``) runs the
library's method through ``super()``: "return a proxy object that delegates method calls to a parent or sibling
class of type" (https://docs.python.org/3/library/functions.html#super). When no class of the analysed files along
the bases defines the method, the call is the library base's ``method``, and it blocks as the vocabulary says that
method blocks (held-out wave 71: a RAG API's MongoDB Atlas store, whose ``add_documents`` embeds the texts and
inserts them through pymongo). A base the vocabulary does not describe gives nothing (no guess from a class name
for a ``super().__init__()``). Used by :meth:`~faultlib.detect.serving.blocking.index.Index.callee`.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.inherited import library_bases
from faultlib.detect.serving.blocking.model import Klass

__all__ = ["library_base_method"]


def library_base_method(index, klass: Klass, name: str) -> str | None:
    """``"pkg.Base.name"`` for the nearest library base of ``klass`` (:func:`~faultlib.detect.serving.blocking.
    inherited.library_bases`) whose ``name`` the vocabulary describes, or None."""
    for base in library_bases(index, klass):
        target = f"{base}.{name}"
        if target in index.vocab.calls or index.vocab.family_kind(base, name) is not None:
            return target
    return None
