"""Lazy work iterables handed on: a generator that yields a lazy iterable's items, and a helper's parameter that
receives one.

A library may return an iterable that does its work while it is iterated: faster-whisper's ``segments`` of
``segments, info = model.transcribe(audio)`` decodes the audio window by window as it is iterated ("segments is a
generator so the transcription only starts when you iterate over it", https://github.com/SYSTRAN/faster-whisper#usage).
The vocabulary marks such a type by giving its ``__next__`` a kind, and
:func:`~faultlib.detect.serving.blocking.iteration.waiting_iterations` reports a sync ``for``, a comprehension or a
consuming builtin over a value of that type. The value is often handed on before it is iterated:

* a generator function of the analysed files that only yields the items of a ``for`` over such a value (a wrapper
  that converts each segment's text) is the same lazy work when its generator is iterated: calling it has that type;
* a parameter that every call site of the analysed files fills with such a value has that type in the callee
  (``build_result(segments, info)`` whose body runs ``[s for s in segments]``): the drain happens there, on the loop
  when the helper is called from it. Only a parameter annotated with an iterable protocol (``Iterable``,
  ``Iterator``, ``Generator``: also when the function only hands it on to such a helper), or with nothing or
  ``Any`` where the function itself iterates it, is typed so, and only with a type whose iteration the vocabulary
  describes (:func:`~faultlib.detect.serving.blocking.caller_types.caller_type` with that test).

Used by :meth:`~faultlib.detect.serving.blocking.index.Index.types` and
:meth:`~faultlib.detect.serving.blocking.typeof.TypeOf.return_type` (held-out wave 70: whisper-fastapi's helper
that drains the segments).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.caller_types import caller_type
from faultlib.detect.serving.blocking.iterating_params import iterated_params
from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["forwarded_type", "lazy_parameter"]

ITERABLE_PROTOCOLS = frozenset({"Any", "Iterable", "Iterator", "Generator"})
"""Annotations that leave the kind of an iterable open (``typing``/``collections.abc``, subscripted or not)."""


def lazy_parameter(index, func: Func, arg: ast.arg) -> str | None:
    """The lazy work type every caller passes for ``arg`` of ``func``, a parameter ``func`` iterates (see the
    module docstring), or None."""
    annotation = arg.annotation.value if isinstance(arg.annotation, ast.Subscript) else arg.annotation
    named = (dotted(annotation) or [""])[-1] if annotation is not None else "Any"
    if named not in ITERABLE_PROTOCOLS or named == "Any" and arg.arg not in iterated_params(func):
        return None  # an open parameter only where func itself iterates it; an iterable one also when handed on
    return caller_type(index, func, arg.arg, accept=_lazy)


def forwarded_type(index, func: Func, depth: int) -> str | None:
    """The lazy work type whose items every ``yield`` of the generator function ``func`` yields, each the loop
    variable of a ``for`` over a value of that type, or None."""
    yields = list(nodes_of(func, (ast.Yield, ast.YieldFrom)))
    if not yields or any(isinstance(y, ast.YieldFrom) or not isinstance(y.value, ast.Name) for y in yields):
        return None
    loops = {}
    for loop in nodes_of(func, ast.For):
        if isinstance(loop.target, ast.Name):
            loops.setdefault(loop.target.id, loop.iter)
    found = None
    for y in yields:
        source = loops.get(y.value.id)
        typed = index.type_of(source, func, depth + 1) if source is not None else None
        if not _lazy(index, typed) or found is not None and typed != found:
            return None
        found = typed
    return found


def _lazy(index, typed) -> bool:
    return isinstance(typed, str) and index.vocab.family_kind(typed, "__next__") is not None
