"""A method a class of the analysed files inherits from a third-party base runs that base's documented method.

``class Segmenter(VoiceActivityDetection)`` (a pyannote pipeline) defines only ``apply``; ``self.vad(audio)`` on an
instance runs the inherited ``Pipeline.__call__``, and ``class Engine(AsyncLLM)`` then ``Engine.from_vllm_config(c)``
runs vLLM's classmethod: what the vocabulary says of the base's method holds for the subclass that does not override
it. :func:`inherited_name` answers ``"<base>.<method>"`` for the nearest third-party base (through the classes of the
files, breadth first) whose method the vocabulary lists (a call entry or a family's method), or None; a method the
class or one of its analysed bases defines is never asked about (it is followed as code). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.callee` and, for calling an instance, by
:func:`called_instance`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["called_instance", "inherited_name", "library_bases"]

MAX_CLASSES = 16


def inherited_name(index, klass: Klass, method: str) -> str | None:
    """``"<third-party base>.<method>"`` when ``klass`` (without its own ``method``) inherits a vocabulary method."""
    if index.method(klass, method) is not None:
        return None
    for base in library_bases(index, klass):
        name = f"{base}.{method}"
        if name in index.vocab.calls or index.vocab.family_kind(base, method) is not None:
            return name
    return None


def library_bases(index, klass: Klass) -> Iterator[str]:
    """The third-party bases of ``klass``, nearest first: breadth first through its classes of the analysed files
    (at most :data:`MAX_CLASSES` of them); ``builtins`` bases left out."""
    seen: list[Klass] = []
    todo = [klass]
    while todo and len(seen) < MAX_CLASSES:
        current = todo.pop(0)
        seen.append(current)
        for base in index.bases(current):
            if isinstance(base, Klass):
                if base not in seen and base not in todo:
                    todo.append(base)
            elif isinstance(base, str) and not base.startswith("builtins."):
                yield base


def called_instance(index, call: ast.Call, func: Func):
    """The type of the value ``call`` calls (``self.vad(audio)``): the third-party base's name when its class only
    inherits a documented ``__call__``, else what :meth:`type_of` says."""
    instance = index.type_of(call.func, func) if not isinstance(call.func, ast.Lambda) else None
    if isinstance(instance, Klass):
        inherited = inherited_name(index, instance, "__call__")
        if inherited is not None:
            return inherited.rpartition(".")[0]
    return instance
