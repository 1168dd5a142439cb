"""The small AST toolkit behind the resume analysis: scopes, imports, dotted names, and value flow.

A script is parsed once (:func:`parse`); each function (and the module body) is a :class:`Scope`
whose assignments are indexed, so that :meth:`Index.closure` can answer "which names and string
keys does this expression carry?", following local variables (``ckpt = {...}; ckpt["x"] = y``),
the return values of the file's own functions and methods (``trainer.state(step)``) and, one call
level up, the arguments bound to a function's parameters (``save(model, opt, path)``).

This is deliberately a name-based over-approximation (an identifier ``scheduler`` anywhere in the
dict handed to ``torch.save`` counts as saving the object named ``scheduler``), which is how people
write checkpoint code; it never imports or runs the user's code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


MAX_CLOSURE = 4_000
"""Most names one closure collects before it stops growing (a bound on pathological files)."""


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

    def closure(self, expr: ast.AST, scope: Scope, *, up: int = 1) -> set[str]:
        """Identifiers and string constants ``expr`` carries, through local assignments, the file's own
        functions' returns and (``up`` levels) the arguments callers bind to ``scope``'s parameters."""
        seen: set[str] = set()
        visited: set[tuple[str, str]] = set()
        self._collect(expr, scope, seen, visited, up)
        return seen

    def _collect(self, expr: ast.AST, scope: Scope, seen: set[str], visited: set, up: int) -> None:
        stack: list[tuple[ast.AST, Scope]] = [(expr, scope)]
        while stack and len(seen) < MAX_CLOSURE:
            node, sc = stack.pop()
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name):
                    name = sub.id
                elif isinstance(sub, ast.Attribute):
                    name = sub.attr
                elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and len(sub.value) < 80:
                    seen.add(sub.value)
                    continue
                else:
                    if isinstance(sub, ast.Call):
                        callee = tail(sub.func)
                        for fn in self.by_short.get(callee or "", [])[:4]:
                            if ("ret", fn.name) not in visited:
                                visited.add(("ret", fn.name))
                                stack.extend((r, fn) for r in fn.returns)
                    continue
                seen.add(name)
                if (sc.name, name) in visited:
                    continue
                visited.add((sc.name, name))
                stack.extend((value, sc) for _, value in sc.assigns.get(name, []))
                if up > 0 and name in sc.params:
                    for arg in self.bound_args(sc, name):
                        stack.append(arg)

    def bound_args(self, scope: Scope, param: str) -> list[tuple[ast.AST, Scope]]:
        """The argument expressions callers pass for ``param`` of ``scope`` (by position or keyword)."""
        short = scope.name.rsplit(".", 1)[-1]
        is_method = bool(scope.params) and scope.params[0] in ("self", "cls")
        out: list[tuple[ast.AST, Scope]] = []
        index = scope.params.index(param)
        for call, caller in self.calls:
            if tail(call.func) != short:
                continue
            position = index - 1 if is_method else index
            if 0 <= position < len(call.args) and not isinstance(call.args[position], ast.Starred):
                out.append((call.args[position], caller))
            out.extend((k.value, caller) for k in call.keywords if k.arg == param)
        return out

    def callers_names(self, scope: Scope, param: str) -> set[str]:
        """Tail names callers pass for ``param`` (``save(net, ...)`` -> ``{"net"}``)."""
        return {t for arg, _ in self.bound_args(scope, param) if (t := tail(arg))}


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
