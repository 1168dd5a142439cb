"""The class a parameter annotated ``Any`` holds when every caller in the analysed files fills it with one class.

``async def discover(store: Any, *, embedder: Any)`` called only as ``discover(store, embedder=MiniLmEmbedder())``
(or with a local, attribute or call whose type is known in the caller) holds a ``MiniLmEmbedder``:
``embedder.embed(texts)`` inside runs that class's ``embed`` (a ``typing.Protocol`` the callers' values are
typed with runs its implementers'). A constructor's parameter is filled where the class
is constructed (``Session(agent=HarnessAgent(...))``), so ``self._agent = agent`` is typed too. Every call site of
the function in the analysed files must pass a value of the same class of the files (a site that omits the
parameter, or passes ``None``, says nothing); one site passing a value of unknown or other type, ``*args``/
``**kwargs``, or a call whose callee cannot be resolved answers nothing. Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.types` for parameters annotated ``Any``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["caller_type", "untyped"]

MAX_CALLERS = 16
"""Call sites examined for one parameter (a function called from more places answers nothing)."""


def untyped(annotation: ast.expr | None) -> bool:
    """Annotated ``Any`` / ``typing.Any``: the annotation says nothing about the value (a parameter with no
    annotation at all is left alone: measured on the corpus, typing those from the callers lost 10 true findings
    in 4 services, where a class of the files the callers pass replaced the reading of ``model.forward(...)`` on a
    receiver of unknown type)."""
    if annotation is None:
        return False
    name = annotation.id if isinstance(annotation, ast.Name) else getattr(annotation, "attr", None)
    return name == "Any"


def caller_type(index, func: Func, name: str, accept=None):
    """The one class of the analysed files every call site of ``func`` passes for its parameter ``name``, or None
    (memoised per function and name; a cycle through the call sites answers None). ``accept``: another test of the
    callers' type than being a class of the files (a library type: :mod:`~faultlib.detect.serving.blocking.
    lazy_generators`), memoised apart."""
    table = func.__dict__.setdefault("_faultlib_caller_types", {})
    key = name if accept is None else (name, accept)  # accept: a module-level function (index, type) -> bool
    if key not in table:
        table[key] = None
        table[key] = _compute(index, func, name, accept or _own_class)
    return table[key]


def _own_class(index, typed) -> bool:
    return isinstance(typed, Klass)


def _compute(index, func: Func, name: str, accept) -> Klass | None:
    args = func.node.args
    if args.vararg is not None and args.vararg.arg == name or args.kwarg is not None and args.kwarg.arg == name:
        return None
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if name not in positional and name not in [a.arg for a in args.kwonlyargs]:
        return None
    bound = func.cls is not None and not any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                             for d in func.node.decorator_list)
    position = positional.index(name) - (1 if bound else 0) if name in positional else None
    constructor = func.cls is not None and func.node.name == "__init__"
    key = func.cls.node.name if constructor else func.node.name
    calls = index.infer.sites().get(key, [])
    if not calls or len(calls) > MAX_CALLERS:
        return None
    found: Klass | None = None
    for call, caller in calls:
        target = index.callee(call.func, caller)
        if target is not (func.cls if constructor else func):
            if target is None and not constructor:
                return None  # may be this function, through a receiver of unknown type
            continue
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        value = next((k.value for k in call.keywords if k.arg == name), None)
        if value is None and position is not None and 0 <= position < len(call.args):
            value = call.args[position]
        if value is None or isinstance(value, ast.Constant) and value.value is None:
            continue
        typed = index.type_of(value, caller)
        if not accept(index, typed) or found is not None and typed != found:
            return None
        found = typed
    return found
