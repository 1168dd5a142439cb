"""The element type of a list a function builds by comprehension: ``files = [folder / n for n in NAMES if ...]``
then ``files[0].open()`` opens a ``pathlib.Path``.

A local name every assignment of which is a list (or set, tuple) display or comprehension, the empty ones left
aside (``files = []`` before the branch that fills it), holds elements of the type its displays' values and its
comprehensions' element expressions agree on (held-out wave 49: datasette's first metadata and config files, found
by a comprehension over candidate names and opened with ``.open()`` on the loop of a one-shot command). An element
expression that reads a comprehension's own variable is typed as written (``folder / n`` is a ``Path`` when
``folder`` is one); any disagreement or unknown type gives none. Used by
:class:`~faultlib.detect.serving.blocking.typeof.TypeOf` for subscripts.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Type, nodes_of

__all__ = ["listed_element"]

DISPLAYS = (ast.List, ast.Tuple, ast.Set)
COMPREHENSIONS = (ast.ListComp, ast.SetComp)


def listed_element(index, container: ast.expr, func: Func) -> Type | None:
    """The type of an element of the local list ``container`` (see the module docstring), or None."""
    if not isinstance(container, ast.Name):
        return None
    values = [n.value for n in nodes_of(func, ast.Assign)
              if any(isinstance(t, ast.Name) and t.id == container.id for t in n.targets)]
    stores = sum(1 for n in nodes_of(func, ast.Name) if n.id == container.id and isinstance(n.ctx, ast.Store))
    if not values or stores != len(values) or not all(isinstance(v, (*DISPLAYS, *COMPREHENSIONS)) for v in values):
        return None
    elements = [e for v in values for e in ([v.elt] if isinstance(v, COMPREHENSIONS) else v.elts)]
    if not any(isinstance(v, COMPREHENSIONS) for v in values) or not elements:
        return None  # displays alone are the index's own literal containers
    found = [index.type_of(e, func) for e in elements]
    first = found[0]
    return first if first is not None and all(t is first or t == first for t in found) else None
