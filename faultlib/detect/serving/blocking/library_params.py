"""A method called on a helper's open parameter that every caller fills with one library object.

``[self.clip_text(doc[n], box) for n, box in boxes]`` in an ``async def``, with ``doc = fitz.open(stream=data)``,
and ``def clip_text(self, page, box): return page.get_text("text", clip=box)``: the helper's ``page`` is a PyMuPDF
``Page`` (``Document.__getitem__`` returns one), and ``Page.get_text`` extracts the page's text in the calling
thread (https://pymupdf.readthedocs.io/en/latest/page.html#Page.get_text) -- on the loop here. The parameter
carries no annotation (or ``Any``), so only its callers say what it holds.

``param.method(...)`` whose receiver has no type otherwise is the library's ``Type.method`` when every call site of
the function in the analysed files passes a value of the same library type for that parameter
(:func:`~faultlib.detect.serving.blocking.caller_types.caller_type` with that test: a site with a value of unknown
or other type answers nothing). The parameter is not typed for the rest of the analysis, only this call is named
(measured on the corpus, typing open parameters from their callers with classes of the files lost true findings,
see :func:`~faultlib.detect.serving.blocking.caller_types.untyped`; and typing every open parameter from its callers
while the locals are typed walked up long chains of helpers past the recursion limit on a 95-file service). Used by
:meth:`~faultlib.detect.serving.blocking.reach.Reachability._blocking` for a call it resolved to nothing (held-out
wave 77: a PDF parsing service's per-element text helper).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.caller_types import caller_type, untyped
from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["parameter_target"]


def parameter_target(index, call: ast.Call, func: Func) -> str | None:
    """``"pkg.Type.method"`` for ``call`` = ``param.method(...)`` on an open parameter of ``func`` (unannotated or
    ``Any``) that every caller fills with one library type, when the vocabulary lists that method for the type;
    else None."""
    if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)):
        return None
    arg = _open_parameter(func, call.func.value.id)
    if arg is None or index.type_of(call.func.value, func) is not None:
        return None
    typed = caller_type(index, func, arg.arg, accept=_library)
    if typed is None or index.vocab.family_kind(typed, call.func.attr) is None:
        return None
    return f"{typed}.{call.func.attr}"


def _open_parameter(func: Func, name: str) -> ast.arg | None:
    """``func``'s parameter ``name`` when it is annotated with nothing or ``Any`` and never rebound in the body
    (``self``/``cls`` excluded)."""
    args = func.node.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if func.cls is not None and params and params[0].arg == name:
        return None
    arg = next((a for a in params if a.arg == name), None)
    if arg is None or not (arg.annotation is None or untyped(arg.annotation)):
        return None
    rebound = any(isinstance(n.ctx, ast.Store) and n.id == name for n in nodes_of(func, ast.Name))
    return None if rebound else arg  # `page = other` in the body: no longer what the callers passed


def _library(index, typed) -> bool:
    return isinstance(typed, str) and not typed.startswith("builtins.")
