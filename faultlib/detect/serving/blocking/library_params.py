"""A helper's open parameter that every caller fills with one library object the vocabulary describes.

``[self.clip_text(doc[n], box) for n, box in boxes]`` in an ``async def``, with ``doc = fitz.open(stream=data)``,
and ``def clip_text(self, page, box): return page.get_text("text", clip=box)``: the helper's ``page`` is a PyMuPDF
``Page`` (``Document.__getitem__`` returns one), and ``Page.get_text`` extracts the page's text in the calling
thread (https://pymupdf.readthedocs.io/en/latest/page.html#Page.get_text) -- on the loop here. The parameter
carries no annotation (or ``Any``), so only its callers say what it holds.

A parameter is typed so when every call site of the function in the analysed files passes a value of the same
library type (:func:`~faultlib.detect.serving.blocking.caller_types.caller_type` with that test: a site with a value
of unknown or other type answers nothing) and the function itself calls on the parameter a method the vocabulary
lists for that type. The second condition keeps the rule from typing a parameter whose other uses an untyped
reading handles (measured on the corpus, typing open parameters from their callers with classes of the files lost
true findings; see :func:`~faultlib.detect.serving.blocking.caller_types.untyped`). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.local_types` (held-out wave 77: a PDF parsing service's
per-element text helper).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.caller_types import caller_type, untyped
from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["library_parameter"]


def library_parameter(index, func: Func, arg: ast.arg) -> str | None:
    """The library type every caller passes for ``arg`` of ``func`` (unannotated or ``Any``) when ``func`` calls a
    method of that type's vocabulary family on it, or None."""
    if arg.annotation is not None and not untyped(arg.annotation):
        return None
    methods = _called_methods(func, arg.arg)
    if not methods:
        return None
    typed = caller_type(index, func, arg.arg, accept=_library)
    if typed is None or not any(index.vocab.family_kind(typed, m) is not None for m in methods):
        return None
    return typed


def _library(index, typed) -> bool:
    return isinstance(typed, str) and not typed.startswith("builtins.")


def _called_methods(func: Func, name: str) -> set[str]:
    """The methods called directly on the name ``name`` in ``func``'s body (``name.method(...)``)."""
    return {call.func.attr for call in nodes_of(func, ast.Call)
            if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
            and call.func.value.id == name}
