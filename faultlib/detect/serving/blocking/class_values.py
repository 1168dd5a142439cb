"""A class attribute whose value is a class: ``self.codec.read_file(path)`` calls that class's method.

``class Clip: codec: type[Codec] = AvCodec`` (or a plain ``codec = AvCodec``) keeps a class, not an instance, in
the attribute; the instances then call its class methods and static methods through it
(``self.codec.read_file(self.path)``). The annotation, when there is one, names the abstract base (``type[Codec]``),
whose method may only raise ``NotImplementedError``; the default value names the class that actually runs. So the
attribute is typed by the value when the value is a class of the analysed files, before the annotation is read.
Used by :meth:`~faultlib.detect.serving.blocking.index.Index.attributes`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass, dotted

__all__ = ["class_valued"]


def class_valued(index, klass: Klass) -> dict[str, Klass]:
    """``{attribute: class}`` for the class-body assignments of ``klass`` whose value names a class of the files
    (one plain name target; a dotted value such as ``codecs.AvCodec`` resolves through the module's imports)."""
    found: dict[str, Klass] = {}
    for stmt in klass.node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        parts = dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if not isinstance(target, ast.Name) or not parts:
            continue
        named = index.resolve_parts(parts, klass.module, None)
        if isinstance(named, Klass):
            found[target.id] = named
    return found
