"""``import helpers`` then ``helpers.f(...)``, for a session of scripts joined into one program.

A session (:mod:`~faultlib.detect.data.leakage.session`) runs its scripts in one namespace, so a member's
top-level function ``f`` is just ``f`` there. A script that imports the member as a module (``import helpers``,
``import helpers as h``) calls it qualified: ``helpers.f(x)``. Before the join, each such reference to a name the
member defines at top level is rewritten in place to the bare name, padded with spaces so that every other column
of the line stays where it was (``helpers.f(x)`` -> ``f        (x)``, which Python reads the same). The import line
itself is blanked with the ``from member import`` lines. Attributes the member does not define (a module-level
constant assigned, a submodule) are left as they are.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def unqualify_members(text: list[str], tree: ast.Module, defined: dict[str, set[str]],
                      more: dict[str, str] | None = None) -> None:
    """Rewrite ``alias.name`` to ``name`` in ``text`` (the lines ``tree`` was parsed from) for every ``import
    member [as alias]`` of a session member whose top-level functions and classes are ``defined[member]``, and for
    every other name that stands for a member module (``more``: ``alias -> member``, from ``from pkg import member
    as alias`` or ``import pkg.member as alias``)."""
    aliases = {a.asname or a.name: a.name for n in walk_once(tree) if isinstance(n, ast.Import) for a in n.names
               if a.name in defined}
    aliases.update({k: v for k, v in (more or {}).items() if v in defined})
    if not aliases:
        return
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases and \
                n.attr in defined[aliases[n.value.id]] and n.lineno == n.end_lineno and n.end_col_offset is not None:
            edits.setdefault(n.lineno - 1, []).append((n.col_offset, n.end_col_offset, n.attr))
    for index, spans in edits.items():
        raw = text[index].encode("utf-8")  # ast columns are UTF-8 byte offsets
        for start, end, name in sorted(spans, reverse=True):
            raw = raw[:start] + name.encode() + b" " * (end - start - len(name)) + raw[end:]
        text[index] = raw.decode("utf-8")


def blank_module_imports(tree: ast.Module, names: set[str]) -> list[ast.Import]:
    """``import member`` statements whose every module is a session member (they become ``pass``)."""
    return [n for n in walk_once(tree) if isinstance(n, ast.Import) and all(a.name in names for a in n.names)]


__all__ = ["blank_module_imports", "unqualify_members"]
