"""A method looked up by a name built from a fixed prefix, then called: any method of that prefix may run.

``getattr(self, f"command_{name}")(argument)`` (or ``getattr(self, "do_" + verb)(...)``) dispatches a command to
the method whose name the user typed, the way ``cmd.Cmd`` runs ``do_<command>``
(https://docs.python.org/3/library/cmd.html#cmd.Cmd.onecmd). The name is not known, its prefix is: every method of
the receiver's class (and of its bases and subclasses in the analysed files) whose name starts with the prefix (and
ends with the literal suffix, if any) may be the one called. A prefix must be written (a bare ``getattr(self,
name)`` names nothing). Held-out wave 67: a Textual browser's omnibox running ``command_<word>`` for what was
submitted, one of which opens the browser. Used by :mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.handed_in import lineage
from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["named_methods"]

MAX_METHODS = 64


def named_methods(index, called: ast.expr, func: Func) -> list[Func]:
    """The sync methods ``getattr(receiver, <prefix + name + suffix>)`` (``called``, evaluated in ``func``) may
    return, when the receiver is a class of the analysed files and the name has a written prefix; else []."""
    if not (isinstance(called, ast.Call) and dotted(called.func) == ["getattr"] and len(called.args) >= 2):
        return []
    affixes = _affixes(called.args[1])
    if affixes is None:
        return []
    prefix, suffix = affixes
    owner = index.type_of(called.args[0], func)
    if not isinstance(owner, Klass):
        return []
    found: list[Func] = []
    for klass in [*lineage(index, owner), *index.subclasses(owner)]:
        for name, method in klass.methods.items():
            if (name.startswith(prefix) and name.endswith(suffix) and len(name) > len(prefix) + len(suffix)
                    and not method.is_async and method not in found and len(found) < MAX_METHODS):
                found.append(method)
    return found


def _affixes(name: ast.expr) -> tuple[str, str] | None:
    """``(prefix, suffix)`` of a name built as ``f"pre_{x}_suf"`` or ``"pre_" + x``; None without a prefix."""
    if isinstance(name, ast.JoinedStr) and len(name.values) >= 2 and isinstance(name.values[0], ast.Constant):
        last = name.values[-1]
        suffix = last.value if isinstance(last, ast.Constant) and len(name.values) >= 3 else ""
        prefix = name.values[0].value
    elif (isinstance(name, ast.BinOp) and isinstance(name.op, ast.Add) and isinstance(name.left, ast.Constant)
          and not isinstance(name.right, ast.Constant)):
        prefix, suffix = name.left.value, ""
    else:
        return None
    if not (isinstance(prefix, str) and isinstance(suffix, str) and prefix.isidentifier()):
        return None
    return prefix, suffix

