"""Receivers that may hold one of several classes: a ``Union[A, B]``/``A | B`` annotation, a local assigned a class
reference in several branches (``Loader = AutoModel`` / ``Loader = AutoModelForCausalLM``), and the nearest common
base of classes chosen at run time. Used by :mod:`~faultlib.detect.serving.blocking.index` (callees) and
:mod:`~faultlib.detect.serving.blocking.reach` (a Union receiver runs each member's method)."""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.generics import origin
from faultlib.detect.serving.blocking.infer import _single_assignment
from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["chosen", "common_base", "union_members"]


def common_base(index, classes: list[Klass]) -> Klass | None:
    """The nearest class of the analysed files that every one of ``classes`` is or derives from (a class chosen
    at run time among them is at least that), or None."""
    def lineage(klass: Klass) -> list[Klass]:
        out, todo = [], [origin(klass)]
        while todo and len(out) < 32:
            k = todo.pop(0)
            if all(k is not seen for seen in out):
                out.append(k)
                todo.extend(b for b in index.bases(k) if isinstance(b, Klass))
        return out
    first, *rest = [lineage(k) for k in classes]
    for candidate in first:
        if all(any(candidate is k for k in other) for other in rest):
            return candidate
    return None


def union_members(index, expr: ast.expr, func: Func) -> list[Klass]:
    """The classes of the analysed files a name annotated ``Union[A, B]``/``A | B`` (a parameter, or a local
    annotated where it is assigned) may hold; empty for anything else."""
    if not isinstance(expr, ast.Name):
        return []
    args = func.node.args
    notes = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == expr.id]
    notes += [n.annotation for n in func.nodes if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
              and n.target.id == expr.id]
    found: list[Klass] = []
    todo = [n for n in notes if n is not None]
    while todo and len(found) < 8:
        note = todo.pop(0)
        if isinstance(note, ast.Constant) and isinstance(note.value, str):
            try:
                note = ast.parse(note.value, mode="eval").body
            except SyntaxError:
                continue
        if isinstance(note, ast.BinOp) and isinstance(note.op, ast.BitOr):
            todo += [note.left, note.right]
        elif isinstance(note, ast.Subscript) and (dotted(note.value) or [""])[-1] in ("Union", "Optional"):
            todo += list(note.slice.elts) if isinstance(note.slice, ast.Tuple) else [note.slice]
        elif len(notes) == 1 and note is notes[0]:
            return []  # a plain annotation: type_of answers it
        else:
            klass = index.annotation_type(note, func.module)
            if isinstance(klass, Klass) and all(klass is not k for k in found):
                found.append(klass)
    return found if len(found) > 1 else []


def chosen(index, func: Func, name: str) -> list:
    """The classes a local assigned more than once, each time a class reference (``Loader = AutoModel`` in one
    branch, ``Loader = AutoModelForCausalLM`` in another), may hold: every value, when each names a class."""
    table = func.__dict__.setdefault("_faultlib_chosen", {})
    if name in table:
        return table[name]
    table[name] = found = []
    values = [n.value for n in func.nodes if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    if len(values) < 2 or sum(1 for n in func.nodes if isinstance(n, ast.Name) and n.id == name
                              and isinstance(n.ctx, ast.Store)) != len(values):
        return found
    for value in values:
        parts = dotted(value)
        target = index.resolve_parts(parts, func.module, func) if parts and parts[0] != name else None
        if not (isinstance(target, Klass) or (isinstance(target, str) and target.rpartition(".")[2][:1].isupper()
                                              and not target.startswith("builtins."))):
            found.clear()
            return found
        found.append(target)
    return found


def picked(index, expr: ast.expr, func: Func) -> list:
    """What a call of ``expr`` may run when ``expr`` picks from a literal dict of functions or classes:
    ``loaders[name]``, ``loaders.get(name)``, a local bound once to either (``cls = self.CLASSES[name]``), the dict
    a name or the class body binds. The callees of the values (:class:`Func`, :class:`Klass`), in order."""
    if isinstance(expr, ast.Name):  # cls = self.CLASSES[name]; cls(path): the same choice, through a local
        expr = _single_assignment(func, expr.id)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get":
        container = expr.func.value
    elif isinstance(expr, ast.Subscript):
        container = expr.value
    else:
        return []
    literal = index.infer.literal(container, func)
    if not isinstance(literal, ast.Dict):
        return []
    found = []
    for value in literal.values:
        target = index.callee(value, func) if dotted(value) else None
        if isinstance(target, (Func, Klass)) and all(target is not f for f in found):
            found.append(target)
    return found
