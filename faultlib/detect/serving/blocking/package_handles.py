"""What a package family's objects hand back: another object of the same package, whose named methods block too.

A package family with named methods (``_pkg("llama_index", ..., methods=("query", ...))``) owns every class of
the package, but the analysis only knew the type of what a constructor or a ``from_*`` classmethod returns. The
objects a library hands back from its own non-blocking methods and functions are the library's too:
``index.as_query_engine()`` is a LlamaIndex query engine, ``load_index_from_storage(ctx)`` an index, so
``index.as_query_engine().query(q)`` runs the query (https://docs.llamaindex.ai/en/stable/module_guides/deploying/
query_engine/). Such a result is typed ``"<the call's dotted name>()"`` (``llama_index.core.VectorStoreIndex.
as_query_engine()``), a name inside the package, so the same family judges its methods.

Only for families with named methods (a ``*`` family's every call blocks, its results are already at the blocker),
only for calls that do not block themselves, and not for methods that export plain data (``to_dict``, ``json``).
Used by :class:`~faultlib.detect.serving.blocking.typeof.TypeOf`.
"""

from __future__ import annotations

__all__ = ["returned_handle"]

DATA_EXPORTS = ("to_", "dict", "json", "model_dump", "keys", "items", "values", "copy")
"""Method name prefixes that return plain data (dicts, strings, copies), not a handle of the library."""


def returned_handle(vocab, target: str) -> str | None:
    """The type of what the library call ``target`` (``pkg.Class.method`` or ``pkg.module.function``) returns when
    a package family with named methods owns it (see the module docstring), else None."""
    owner, _, last = target.rpartition(".")
    if not owner or last.startswith(("_", *DATA_EXPORTS)) or last[:1].isupper() or "async" in last.lower():
        return None
    families = [f for f in vocab._families_of(owner) if f.package and "*" not in f.methods]  # memoised per type
    if not families or vocab.family_kind(owner, last) is not None:
        return None
    module_function = not owner.rpartition(".")[2][:1].isupper() and not owner.endswith("()")
    if module_function and not all(f.functions for f in families):
        return None
    return f"{target}()"
