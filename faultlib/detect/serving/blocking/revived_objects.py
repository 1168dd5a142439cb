"""LangChain's serialisation functions revive objects from memory: no loader, no file.

``langchain_core.load.load(obj)`` "Revive a LangChain class from a JSON object" (a dict already in memory) and
``loads(text)`` from a JSON string; ``dumpd``/``dumps`` go the other way
(https://python.langchain.com/api_reference/core/load.html). The LangChain family of the vocabulary
(:mod:`~faultlib.detect.serving.blocking.libraries.models`) reports ``load`` as a document loader's read; the module
function of the same name is not one (a streamed chunk revived per item, held-out wave 52).
"""

from __future__ import annotations

__all__ = ["REVIVERS", "revives_in_memory"]

_MODULES = ("langchain_core.load", "langchain_core.load.load", "langchain_core.load.dump", "langchain.load",
            "langchain.load.load", "langchain.load.dump")
REVIVERS = frozenset(f"{m}.{f}" for m in _MODULES for f in ("load", "loads", "dumpd", "dumps"))


def revives_in_memory(target: str) -> bool:
    """``target`` is one of LangChain's (de)serialisation functions (:data:`REVIVERS`)."""
    return target in REVIVERS
