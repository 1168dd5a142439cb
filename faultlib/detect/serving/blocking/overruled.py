"""A parameter annotated with one library's type while every caller passes another library's value: the callers win.

An annotation is a claim nobody checks at run time; what arrives is what the callers pass. When every call site of
the analysed files passes a value whose type the analysis knows (a FastAPI ``Depends(get_db)`` session, a client
built with its constructor) and that type belongs to another top-level package than the annotation's, the
annotation may be a slip -- ``from requests import Session`` in a module whose ``db: Session`` parameters receive
SQLAlchemy sessions (Shaunwei/RealChar; its own fix commit adbf307 treats them as database sessions). The evidence
that it is one: the vocabulary describes the annotated type, and a method the function calls on the parameter
(``db.query``) is one it knows for the callers' type and not for the annotated one; then the callers' type is the one whose calls run. Otherwise the
annotation stands (``model: PreTrainedModel`` receiving a wrapper library's model: the annotation describes its
``stream_generate``). A caller passing a subclass or an object of the annotation's own package
changes nothing (that is what the annotation allows); standard-library and builtin annotations are never overruled
(their values are what they say, and a wrong one breaks the program at once). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.local_types`, once the function's other locals are known.
"""

from __future__ import annotations

import ast
import sys

from faultlib.detect.serving.blocking.model import Func

__all__ = ["overrule", "overruled"]


def overrule(index, func: Func, types: dict, annotated: list[str]) -> None:
    """Settle each parameter of ``annotated`` (annotated, without a default) in ``func``'s finished local ``types``
    (see :func:`overruled`): asked once every local is known, so that the callers' own inference, which may come
    back to ``func``'s return type, never sees it half done."""
    for name in annotated:
        if name in types:
            types[name] = overruled(index, func, name, types[name])


def overruled(index, func: Func, name: str, annotated):
    """The type of ``func``'s parameter ``name`` annotated as ``annotated``: the callers' agreed type when it
    contradicts the annotation (see the module docstring), else ``annotated``."""
    if not isinstance(annotated, str):
        return annotated
    head = annotated.partition(".")[0]
    if head in sys.stdlib_module_names or head in ("builtins", "typing", "typing_extensions"):
        return annotated
    used = {n.func.attr for n in func.nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == name}
    if not used or not index.vocab.owned(annotated) or all(_known(index, annotated, m) for m in used):
        return annotated  # the vocabulary cannot tell, or every method it calls is the annotated type's
    passed = index.infer.parameter(func, name)
    if (isinstance(passed, str) and passed.partition(".")[0] not in (head, "builtins", "typing")
            and any(_known(index, passed, m) and not _known(index, annotated, m) for m in used)):
        return passed
    return annotated


def _known(index, type_name: str, method: str) -> bool:
    """The vocabulary describes ``type_name.method`` (it blocks, or it returns a known type)."""
    name = f"{type_name}.{method}"
    vocabulary = index.vocab
    return (name in vocabulary.calls or name in vocabulary.returns
            or vocabulary.family_kind(type_name, method) is not None)
