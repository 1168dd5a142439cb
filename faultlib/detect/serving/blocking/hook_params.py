"""An attribute that holds a notification hook: a callable the caller may pass, typed to return nothing.

``def __init__(self, ..., on_text: Optional[Callable[[Tensor], None]] = None): self.on_text = on_text`` and later
``self.on_text(token)`` inside the generation step (kyutai-labs/moshi's ``LMGen`` hooks): the parameter's annotation
says the callable returns ``None`` (https://docs.python.org/3/library/typing.html#annotating-callable-objects:
``Callable[[int], str]`` "signifies a function that takes a single parameter of type int and returns a str"), so it is
a callback told about a result, not a model whose output the step goes on with. A call of such an attribute is no
"model forward under ``torch.no_grad()``" (:meth:`~faultlib.detect.serving.blocking.reach.Reachability._wrapped_model`);
what the hook does is the code of whoever passes it, analysed where it is written. The attribute counts when every
``self.<attr> = value`` in the class stores either ``None`` or a parameter of the method annotated so.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass, dotted

__all__ = ["calls_hook", "notification_hook"]

CALLABLES = frozenset({"Callable", "typing.Callable", "tp.Callable", "t.Callable", "collections.abc.Callable",
                       "abc.Callable"})
OPTIONALS = frozenset({"Optional", "typing.Optional", "tp.Optional", "t.Optional"})


def calls_hook(call: ast.Call, func) -> bool:
    """Whether ``call`` is ``self.<attr>(...)`` in a method of a class whose ``attr`` is a notification hook."""
    parts = dotted(call.func)
    return (func.cls is not None and parts is not None and len(parts) == 2 and parts[0] == "self"
            and notification_hook(func.cls, parts[1]))


def notification_hook(klass: Klass, attr: str) -> bool:
    """Whether every store of ``self.<attr>`` in ``klass`` is ``None`` or a parameter annotated as a callable that
    returns ``None`` (with at least one such parameter); memoised per class and attribute (asked at every
    ``self.<attr>(...)`` call of the class's methods)."""
    memo = klass.__dict__.setdefault("_faultlib_hooks", {})
    if attr not in memo:
        memo[attr] = _notification_hook(klass, attr)
    return memo[attr]


def _notification_hook(klass: Klass, attr: str) -> bool:
    hooks = 0
    for method in klass.methods.values():
        params = {a.arg: a.annotation for a in [*method.node.args.posonlyargs, *method.node.args.args,
                                                  *method.node.args.kwonlyargs]}
        for node in ast.walk(method.node):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                       and t.value.id == "self" for t in targets):
                continue
            value = node.value
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            if isinstance(value, ast.Name) and value.id in params and _returns_none(params[value.id]):
                hooks += 1
                continue
            return False
    return hooks > 0


def _returns_none(annotation: ast.expr | None) -> bool:
    """``Callable[[...], None]``, optionally in ``Optional[...]`` or ``... | None``."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [annotation.left, annotation.right]
        return any(_returns_none(s) for s in sides) and all(
            _returns_none(s) or (isinstance(s, ast.Constant) and s.value is None) for s in sides)
    if not isinstance(annotation, ast.Subscript):
        return False
    name = ".".join(dotted(annotation.value) or [])
    if name in OPTIONALS:
        return _returns_none(annotation.slice)
    if name in CALLABLES and isinstance(annotation.slice, ast.Tuple) and len(annotation.slice.elts) == 2:
        result = annotation.slice.elts[1]
        return isinstance(result, ast.Constant) and result.value is None
    return False
