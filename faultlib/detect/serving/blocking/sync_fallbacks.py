"""LlamaIndex's async methods that run their sync twin: ``await retriever.aretrieve(q)`` blocks all the same.

Awaiting a call is never a blocker in itself (an async client's coroutine), but LlamaIndex's base classes implement
several async methods by calling the sync one inside the coroutine, so awaiting them runs the sync work on the loop
(llama-index-core: ``BaseRetriever._aretrieve`` "Implemented by the user" returns ``self._retrieve(query_bundle)``;
``CustomQueryEngine.acustom_query`` "by default, just run the synchronous version"; ``BasePydanticVectorStore.aquery``
"not implemented for all vector stores. If not implemented, it will just call query synchronously"). Two ways in:

* a class of the analysed files derives from such a base (:data:`FALLBACKS`), defines the sync hook and not its async
  twin: awaiting the public async method runs the class's sync hook, followed as a call of it
  (:func:`fallback_hooks`; ``await MyRetriever().aretrieve(q)`` runs ``MyRetriever._retrieve``);
* a retriever, query engine or chat engine of the library whose index sits on a vector store that keeps the base's
  fallback (:data:`SYNC_QUERY_STORES`): ``aretrieve``/``aquery``/``achat``... reach the store's ``aquery``, which sends
  the sync query (a ``blocking_http`` site at the awaited call, :func:`store_fallback`; held-out wave 64: a
  CondensePlusContextChatEngine subclass awaiting ``self._retriever.aretrieve`` over a ``PineconeVectorStore``, one
  Pinecone query per chat message). An engine of a subclass that writes ``async def`` overrides is not reported where
  it is awaited: the library's coroutine runs those overrides, entries of their own, where the query is reported. An
  index does not carry its store's type, so the store is known for the whole scan: every LlamaIndex vector store the
  analysed code constructs is one of them (a scan that also builds a store with a native async query says nothing).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.inherited import library_bases
from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["FALLBACKS", "SYNC_QUERY_STORES", "fallback_hooks", "store_fallback"]

FALLBACKS: dict[str, dict[str, tuple[str, str]]] = {
    "BaseRetriever": {"aretrieve": ("_aretrieve", "_retrieve")},
    "CustomQueryEngine": {"aquery": ("acustom_query", "custom_query")},
    "BasePydanticVectorStore": {"aquery": ("aquery", "query")},
}
"""LlamaIndex base class (last name) -> ``{public async method: (its async hook, the sync hook the base's hook
calls)}`` (llama-index-core ``base/base_retriever.py``, ``query_engine/custom.py``, ``vector_stores/types.py``)."""

SYNC_QUERY_STORES = frozenset({"PineconeVectorStore"})
"""LlamaIndex vector stores without an ``aquery`` of their own: the base's runs their sync ``query``
(llama-index-vector-stores-pinecone ``base.py`` defines ``query`` -- ``self._pinecone_index.query(...)``, a request
with the sync Pinecone client -- and no ``aquery``)."""

STORE_REACHING = frozenset({"aretrieve", "aquery", "achat", "astream_chat", "aquery_stream", "astream_query"})
"""Async methods of retrievers and engines that query the index's vector store."""
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
ENGINE_TYPES = ("llama_index.core.base.base_retriever.BaseRetriever",
                "llama_index.core.base.base_query_engine.BaseQueryEngine",
                "llama_index.core.chat_engine.types.BaseChatEngine")
"""What the vocabulary types ``index.as_retriever()``/``as_query_engine()``/``as_chat_engine()`` (and an engine's
retriever) as."""


def fallback_hooks(index, call: ast.Call, func: Func) -> list[Func]:
    """The sync hook a call of a LlamaIndex async method on an instance of a class of the analysed files runs (see
    the module docstring), or ``[]``."""
    if not isinstance(call.func, ast.Attribute):
        return []
    owner = index.type_of(call.func.value, func)
    if not isinstance(owner, Klass) or index.method(owner, call.func.attr) is not None:
        return []
    for base in library_bases(index, owner):
        if not base.startswith("llama_index."):
            continue
        hooks = FALLBACKS.get(base.rpartition(".")[2], {}).get(call.func.attr)
        if hooks is None or index.method(owner, hooks[0]) is not None:
            continue
        sync = index.method(owner, hooks[1])
        return [sync] if sync is not None and not sync.is_async else []
    return []


def store_fallback(index, call: ast.Call, func: Func):
    """The :class:`~faultlib.detect.serving.blocking.sites.Site` of an awaited ``aretrieve``/``aquery``/``achat``...
    of a LlamaIndex retriever or engine when every vector store the scan builds keeps the sync fallback, else None."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in STORE_REACHING:
        return None
    owner = index.type_of(call.func.value, func)
    if not (isinstance(owner, str) and owner in ENGINE_TYPES) and not (
            isinstance(owner, Klass) and any(b.startswith("llama_index.") for b in library_bases(index, owner))
            and not _own_coroutines(index, owner)):
        return None  # a subclass's own async overrides run on the way: they are entries, analysed where they query
    stores = _built_stores(index)
    if not stores or not stores <= SYNC_QUERY_STORES:
        return None
    from faultlib.detect.serving.blocking.sites import Site

    store = sorted(stores)[0]
    what = (f"{call.func.attr} of a LlamaIndex {'engine' if call.func.attr != 'aretrieve' else 'retriever'} over a "
            f"{store} (it has no async query: the base's aquery runs its sync query inside the coroutine)")
    return Site("blocking_http", what, func, call)


def _own_coroutines(index, klass: Klass) -> bool:
    """Whether ``klass`` or one of its bases of the analysed files defines an ``async def``."""
    todo, seen = [klass], []
    while todo and len(seen) < 16:
        current = todo.pop(0)
        seen.append(current)
        if any(m.is_async for m in current.methods.values()):
            return True
        todo += [b for b in index.bases(current) if isinstance(b, Klass) and b not in seen and b not in todo]
    return False


def _built_stores(index) -> frozenset[str]:
    """The class names (last part) of the LlamaIndex vector stores the analysed code constructs (memoised)."""
    memo = index.__dict__.get("_llama_stores")
    if memo is None:
        found = set()
        for module in index.distinct_modules():
            if "llama_index" not in module.source:
                continue
            top = index.infer.module_func(module)  # the module's own statements, then its functions
            scopes = [(top, [n for s in module.tree.body if not isinstance(s, _DEFS) for n in ast.walk(s)])]
            scopes += [(f, f.nodes) for f in module.all_functions]
            for scope, nodes in scopes:
                for node in nodes:
                    target = index.callee(node.func, scope) if isinstance(node, ast.Call) else None
                    if (isinstance(target, str) and target.startswith("llama_index.vector_stores.")
                            and target.endswith("VectorStore")):
                        found.add(target.rpartition(".")[2])
        memo = index.__dict__["_llama_stores"] = frozenset(found)
    return memo
