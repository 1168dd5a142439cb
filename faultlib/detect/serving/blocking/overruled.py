"""A parameter annotated with one library's type while every caller passes another library's value: the callers win.

An annotation is a claim nobody checks at run time; what arrives is what the callers pass. When every call site of
the analysed files passes a value whose type the analysis knows (a FastAPI ``Depends(get_db)`` session, a client
built with its constructor) and that type belongs to another top-level package than the annotation's, the
annotation is a slip -- ``from requests import Session`` in a module whose ``db: Session`` parameters receive
SQLAlchemy sessions (Shaunwei/RealChar; its own fix commit adbf307 treats them as database sessions) -- and the
callers' type is the one whose calls run. A caller passing a subclass or an object of the annotation's own package
changes nothing (that is what the annotation allows); standard-library and builtin annotations are never overruled
(their values are what they say, and a wrong one breaks the program at once). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.local_types`.
"""

from __future__ import annotations

import sys

from faultlib.detect.serving.blocking.model import Func

__all__ = ["overruled"]


def overruled(index, func: Func, name: str, annotated):
    """The type of ``func``'s parameter ``name`` annotated as ``annotated``: the callers' agreed type when it
    contradicts the annotation (see the module docstring), else ``annotated``."""
    if not isinstance(annotated, str):
        return annotated
    head = annotated.partition(".")[0]
    if head in sys.stdlib_module_names or head in ("builtins", "typing", "typing_extensions"):
        return annotated
    passed = index.infer.parameter(func, name)
    if isinstance(passed, str) and passed.partition(".")[0] not in (head, "builtins", "typing"):
        return passed
    return annotated
