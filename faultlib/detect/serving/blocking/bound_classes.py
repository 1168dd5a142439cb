"""A module global bound to instances of different classes of the analysed files, one per branch: a method called
on it may run any of those classes' methods.

``if os.environ.get("MODEL", "resnet") == "resnet": predictor = PredictorResNet50() else: predictor = PredictorMLP()``
at a service module's top level, then ``predictor.predict()`` in an async handler: the name's type is read from one
binding, so only that class's ``predict`` was followed and the other branch's model call was missed (held-out wave 72:
the configuration's default branch). Python binds the name to whichever object the branch taken built and looks the
method up on it at run time (https://docs.python.org/3/reference/executionmodel.html#naming-and-binding,
https://docs.python.org/3/reference/datamodel.html#instance-objects), so every class among the bindings counts. The
bindings are those :meth:`~faultlib.detect.serving.blocking.stores.Stores.candidates` reads (a global's module-level
and ``global`` assignments, a module's attribute written from elsewhere, ``self.<attr>`` in the class's methods;
``None`` placeholders aside). Used by :func:`~faultlib.detect.serving.blocking.choices.union_members` for a name no
annotation types.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["bound_classes"]


def bound_classes(index, expr: ast.expr, func: Func) -> list[Klass]:
    """The classes of the analysed files whose instances the global ``expr`` is bound to, when there are at least
    two; else []."""
    if not isinstance(expr, ast.Name):
        return []
    found: list[Klass] = []
    for typed in index.stores.candidates(expr, func):
        if isinstance(typed, Klass) and all(typed is not k for k in found):
            found.append(typed)
    return found if len(found) > 1 else []
