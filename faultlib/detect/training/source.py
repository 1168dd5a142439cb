"""The syntactic index behind the resume analysis: scopes, imports, dotted names, calls and loops.

A script is parsed once; each function (and the module body) is a :class:`Scope` whose assignments
(by the target's last identifier), parameters and returns are indexed, with every call and the scope it
is in. Where values flow (what a checkpoint's contents carry, which object a ``load_state_dict`` reaches
through parameters) is the shared interpreter's job (:mod:`faultlib.detect.training.flow`); this index
answers where things are written. It never imports or runs the user's code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


def tail(node: ast.AST) -> str | None:
    """The last identifier of ``x``, ``self.x``, ``a.b.x`` (``None`` for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


@dataclass
class Scope:
    """One function (or the module body): its name, parameters, and where each name is assigned."""

    name: str
    node: ast.AST
    params: list[str] = field(default_factory=list)
    assigns: dict[str, list[tuple[int, ast.AST]]] = field(default_factory=dict)  # tail name -> [(line, value)]
    returns: list[ast.AST] = field(default_factory=list)


class Index:
    """Imports, scopes and calls of one parsed file.

    Args:
        tree: the parsed module.
    """

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.aliases: dict[str, str] = {}
        self.scopes: dict[str, Scope] = {}
        self.scope_of: dict[int, Scope] = {}  # id(node) -> innermost scope
        self.by_short: dict[str, list[Scope]] = {}
        self.calls: list[tuple[ast.Call, Scope]] = []
        self._visit(tree, Scope("<module>", tree), "")

    # -- building -------------------------------------------------------------------------------------
    def _visit(self, node: ast.AST, scope: Scope, prefix: str) -> None:
        self.scopes.setdefault(scope.name, scope)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                inner = Scope(name, child, [a.arg for a in (*child.args.posonlyargs, *child.args.args,
                                                             *child.args.kwonlyargs)])
                self.by_short.setdefault(child.name, []).append(inner)
                self.scope_of[id(child)] = scope
                self._visit(child, inner, name + ".")
                continue
            if isinstance(child, ast.ClassDef):
                self.scope_of[id(child)] = scope
                self._visit(child, scope, f"{prefix}{child.name}.")
                continue
            self.scope_of[id(child)] = scope
            self._record(child, scope)
            self._visit(child, scope, prefix)

    def _record(self, node: ast.AST, scope: Scope) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    base = t.value if isinstance(t, ast.Subscript) else t
                    name = tail(base)
                    if name:
                        scope.assigns.setdefault(name, []).append((node.lineno, node.value))
                        if isinstance(t, ast.Subscript):
                            scope.assigns[name].append((node.lineno, t.slice))
        elif isinstance(node, ast.Return) and node.value is not None:
            scope.returns.append(node.value)
        elif isinstance(node, ast.Call):
            self.calls.append((node, scope))
            # d.update(...), d.setdefault(k, v), lst.append(v): the receiver carries the arguments
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("update", "setdefault", "append", "extend"):
                name = tail(node.func.value)
                if name:
                    for arg in (*node.args, *(k.value for k in node.keywords)):
                        scope.assigns.setdefault(name, []).append((node.lineno, arg))

    # -- queries --------------------------------------------------------------------------------------
    def dotted(self, node: ast.AST) -> str:
        """``torch.optim.SGD`` for ``optim.SGD`` after ``from torch import optim``; ``""`` when not a name chain."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.insert(0, node.attr)
            node = node.value
        if isinstance(node, ast.Call):  # torch.amp.GradScaler(...).x or get_x()(...)
            return ""
        if not isinstance(node, ast.Name):
            return ""
        return ".".join([self.aliases.get(node.id, node.id), *parts])

    def scope(self, node: ast.AST) -> Scope:
        return self.scope_of.get(id(node)) or self.scopes["<module>"]


def enclosing_loops(tree: ast.AST) -> dict[int, list[ast.AST]]:
    """``id(node) -> [for/while loops around it]`` (outermost first), within its own function."""
    out: dict[int, list[ast.AST]] = {}

    def walk(node: ast.AST, loops: list[ast.AST]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                walk(child, [])
                continue
            out[id(child)] = loops
            walk(child, [*loops, child] if isinstance(child, (ast.For, ast.While, ast.AsyncFor)) else loops)

    walk(tree, [])
    return out
