"""The static index of the analysed files: modules, functions, classes, imports, and the types of values.

Nothing of the user's code is imported or run: every answer comes from the AST. Names resolve the way
Python would at run time, as far as that is knowable statically: a function's nested ``def``\\ s, then
the module's functions, classes, imports and global assignments, then builtins; ``self.method`` through
the class and its bases (those defined in the analysed files); ``obj.method`` through the type the
analysis inferred for ``obj`` (from ``obj = Class(...)``, a parameter annotation, ``self.obj = ...``
in any method, or a function's return annotation or ``return Class(...)``).

Types are either a :class:`Klass` (a class of the analysed files) or a dotted name (``requests.Session``,
``torch.nn.Linear``) for everything else.
"""

from __future__ import annotations

import ast
import builtins

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.model import (Func, Klass, Module, Type, _is_local, _is_static, _own_nodes,
                                            build_module, dotted)

__all__ = ["Func", "Index", "Klass", "Module", "Type", "build_module", "dotted"]

MAX_RESOLVE_DEPTH = 12  # re-exports followed, bases walked, nested type inference


class Index:
    """Every analysed module, and name and type resolution across them.

    Args:
        modules: the modules, by dotted name (a module may be registered under several names).
    """

    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self._subclasses: dict[int, list[Klass]] | None = None

    # -- names ------------------------------------------------------------------------------------
    def lookup(self, name: str, depth: int = 0) -> Func | Klass | Module | str:
        """What the dotted ``name`` denotes: a function, class or module of the analysed files,
        or, for anything else, the canonical dotted name itself."""
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.modules.get(".".join(parts[:cut]))
            if module is not None:
                return self.member(module, parts[cut:], depth) or name
        return name

    def member(self, module: Module, rest: list[str], depth: int = 0) -> Func | Klass | Module | str | None:
        if not rest:
            return module
        head, tail = rest[0], rest[1:]
        if head in module.functions and not tail:
            return module.functions[head]
        if head in module.classes:
            klass = module.classes[head]
            if not tail:
                return klass
            method = self.method(klass, tail[0])
            return method if method is not None and len(tail) == 1 else None
        if head in module.imports and depth < MAX_RESOLVE_DEPTH:
            return self.lookup(".".join([module.imports[head], *tail]), depth + 1)
        return None

    def method(self, klass: Klass, name: str, depth: int = 0) -> Func | None:
        """``name`` in ``klass`` or its bases of the analysed files (depth first, as a simple MRO)."""
        if name in klass.methods:
            return klass.methods[name]
        if depth < MAX_RESOLVE_DEPTH:
            for base in self.bases(klass):
                if isinstance(base, Klass):
                    found = self.method(base, name, depth + 1)
                    if found is not None:
                        return found
        return None

    def bases(self, klass: Klass) -> list[Type]:
        if klass._bases is None:
            klass._bases = []
            for base in klass.node.bases:
                parts = dotted(base)
                if parts:
                    found = self.resolve_parts(parts, klass.module, None)
                    if isinstance(found, (Klass, str)):
                        klass._bases.append(found)
        return klass._bases

    def subclass_of(self, klass: Klass, test, depth: int = 0) -> bool:
        """Whether ``klass`` has a base (transitively) whose dotted name passes ``test``."""
        for base in self.bases(klass):
            if isinstance(base, str) and test(base):
                return True
            if isinstance(base, Klass) and depth < MAX_RESOLVE_DEPTH and self.subclass_of(base, test, depth + 1):
                return True
        return False

    def resolve_parts(self, parts: list[str], module: Module, func: Func | None) -> Func | Klass | Module | str | None:
        """A dotted reference (``time.sleep``, ``helper``, ``Service``) from inside ``func`` of ``module``."""
        head, rest = parts[0], parts[1:]
        scope = func
        while scope is not None:  # nested defs of the enclosing functions
            if head in scope.nested:
                return scope.nested[head] if not rest else None
            scope = scope.parent
        if head in module.functions or head in module.classes:
            return self.member(module, parts)
        if head in module.imports:
            return self.lookup(".".join([module.imports[head], *rest]))
        if head in module.globals or (func is not None and _is_local(func, head)):
            return None
        if hasattr(builtins, head):
            return ".".join(["builtins", head, *rest])
        return None

    # -- types ------------------------------------------------------------------------------------
    def annotation_type(self, node: ast.expr | None, module: Module) -> Type | None:
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.Subscript):  # Optional[X], list[X]: only Optional is a value of X
            parts = dotted(node.value)
            if parts and parts[-1] == "Optional":
                return self.annotation_type(node.slice, module)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
            left = self.annotation_type(node.left, module)
            return left if left is not None else self.annotation_type(node.right, module)
        parts = dotted(node)
        if not parts:
            return None
        found = self.resolve_parts(parts, module, None)
        return found if isinstance(found, (Klass, str)) and not (isinstance(found, str) and
                                                                 found.startswith("builtins.")) else None

    def local_types(self, func: Func) -> dict[str, Type]:
        """Types of ``func``'s parameters (annotations; ``self``/``cls``) and locals (the first assignment
        with a known type)."""
        if func._types is not None:
            return func._types
        func._types = types = {}
        args = func.node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        for i, arg in enumerate(params):
            if i == 0 and func.cls is not None and not _is_static(func.node):
                types[arg.arg] = func.cls
                continue
            found = self.annotation_type(arg.annotation, func.module)
            if found is not None:
                types[arg.arg] = found
        for node in _own_nodes(func.node):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id not in types:
                        found = self.type_of(node.value, func)
                        if found is not None:
                            types[target.id] = found
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found = self.annotation_type(node.annotation, func.module) or (
                    self.type_of(node.value, func) if node.value is not None else None)
                if found is not None:
                    types.setdefault(node.target.id, found)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        found = self.type_of(item.context_expr, func)
                        if found is not None:
                            types.setdefault(item.optional_vars.id, found)
        return types

    def attributes(self, klass: Klass) -> dict[str, Type]:
        """Types of ``self.X`` attributes: class-level annotations and assignments, ``self.X = ...`` in any method."""
        if klass._attrs is not None:
            return klass._attrs
        klass._attrs = attrs = {}
        for stmt in klass.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                found = self.annotation_type(stmt.annotation, klass.module)
                if found is not None:
                    attrs[stmt.target.id] = found
        for method in klass.methods.values():
            self_name = method.node.args.args[0].arg if method.node.args.args else None
            for node in _own_nodes(method.node):
                targets = node.targets if isinstance(node, ast.Assign) else (
                    [node.target] if isinstance(node, ast.AnnAssign) else [])
                for target in targets:
                    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id == self_name and target.attr not in attrs):
                        found = (self.annotation_type(node.annotation, klass.module)
                                 if isinstance(node, ast.AnnAssign) else None)
                        value = getattr(node, "value", None)
                        found = found or (self.type_of(value, method) if value is not None else None)
                        if found is not None:
                            attrs[target.attr] = found
        return attrs

    def attribute_type(self, klass: Klass, name: str, depth: int = 0) -> Type | None:
        """The type of ``self.<name>`` for an instance of ``klass``: its own attributes, then its bases',
        then (``self`` may be a subclass instance) those of its subclasses in the analysed files."""
        found = self.attributes(klass).get(name)
        if found is not None or depth > MAX_RESOLVE_DEPTH:
            return found
        for base in self.bases(klass):
            if isinstance(base, Klass):
                found = self.attribute_type(base, name, depth + 1)
                if found is not None:
                    return found
        if depth == 0:
            for sub in self.subclasses(klass):
                found = self.attributes(sub).get(name)
                if found is not None:
                    return found
        return None

    def subclasses(self, klass: Klass) -> list[Klass]:
        """Classes of the analysed files that have ``klass`` among their bases (transitively)."""
        if self._subclasses is None:
            self._subclasses = {}
            every = {id(k): k for m in self.modules.values() for k in _all_classes(m)}
            for k in every.values():
                for base in self.bases(k):
                    if isinstance(base, Klass):
                        self._subclasses.setdefault(id(base), []).append(k)
        out, todo = [], list(self._subclasses.get(id(klass), []))
        while todo and len(out) < 64:
            k = todo.pop(0)
            if k not in out:
                out.append(k)
                todo.extend(self._subclasses.get(id(k), []))
        return out

    def type_of(self, expr: ast.expr, func: Func | None, depth: int = 0) -> Type | None:
        """The type of the value of ``expr`` evaluated in ``func``, when the analysis can tell."""
        if depth > MAX_RESOLVE_DEPTH:
            return None
        module = func.module if func is not None else None
        if isinstance(expr, ast.Name):
            if func is not None:
                found = self.local_types(func).get(expr.id)
                if found is not None:
                    return found
            if module is not None and expr.id in module.globals and not (func and _is_local(func, expr.id)):
                return self.type_of(module.globals[expr.id], None if func is None else _module_func(func), depth + 1)
            return None
        if isinstance(expr, ast.Attribute):
            owner = self.type_of(expr.value, func, depth + 1)
            if isinstance(owner, Klass):
                return self.attribute_type(owner, expr.attr)
            return None
        if isinstance(expr, ast.Await):
            return None
        if isinstance(expr, ast.Call):
            callee = expr.func
            if isinstance(callee, ast.Attribute):
                owner = self.type_of(callee.value, func, depth + 1)
                if owner is not None and callee.attr in vocab.SAME_TYPE_METHODS:
                    return owner
            target = self.callee(callee, func, depth + 1) if func is not None else None
            if isinstance(target, Klass):
                return target
            if isinstance(target, Func):
                return self.return_type(target, depth + 1)
            if isinstance(target, str):
                if target in vocab.RETURNS:
                    return vocab.RETURNS[target]
                last = target.rpartition(".")[2]
                return target if last[:1].isupper() and not target.startswith("builtins.") else None
        return None

    def return_type(self, func: Func, depth: int = 0) -> Type | None:
        found = self.annotation_type(func.node.returns, func.module)
        if found is not None or depth > MAX_RESOLVE_DEPTH:
            return found
        for node in _own_nodes(func.node):
            if isinstance(node, ast.Return) and node.value is not None:
                found = self.type_of(node.value, func, depth + 1)
                if found is not None:
                    return found
        return None

    def callee(self, expr: ast.expr, func: Func | None, depth: int = 0) -> Func | Klass | Module | str | None:
        """What a call of ``expr`` calls: a function or class of the analysed files, a dotted name
        (``time.sleep``; ``requests.Session.get`` for a method of a typed instance), or None."""
        module = func.module if func is not None else None
        if isinstance(expr, ast.Name):
            if func is not None and expr.id in self.local_types(func):
                return None  # a local value called: see instance_type()
            return self.resolve_parts([expr.id], module, func) if module is not None else None
        if not isinstance(expr, ast.Attribute):
            return None
        if (isinstance(expr.value, ast.Call) and isinstance(expr.value.func, ast.Name) and expr.value.func.id == "super"
                and func is not None and func.cls is not None):
            for base in self.bases(func.cls):
                if isinstance(base, Klass):
                    found = self.method(base, expr.attr)
                    if found is not None:
                        return found
            return None
        owner = self.type_of(expr.value, func, depth + 1) if func is not None else None
        if isinstance(owner, Klass):
            found = self.method(owner, expr.attr)
            if found is not None:
                return found
            return None
        if isinstance(owner, str):
            return f"{owner}.{expr.attr}"
        parts = dotted(expr)
        if parts and module is not None and not (func is not None and parts[0] in self.local_types(func)):
            found = self.resolve_parts(parts, module, func)
            if found is not None:
                return found
        return None


def _all_classes(module: Module):
    """Every class of ``module``, nested ones included (methods' classes are reached through their functions)."""
    seen = {id(f.cls): f.cls for f in module.all_functions if f.cls is not None}
    for klass in module.classes.values():
        seen.setdefault(id(klass), klass)
    return seen.values()


def _module_func(func: Func) -> Func | None:
    """Globals are evaluated in module scope: no function's locals apply."""
    return Func(func.module, ast.FunctionDef(name="<module>", args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=[],
        decorator_list=[], lineno=1, col_offset=0), "<module>", _types={})


