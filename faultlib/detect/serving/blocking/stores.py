"""Values the code stores in one place and reads in another: what a receiver holds when no single assignment says.

* A dict kept in ``self.<attr>`` or a module global and filled elsewhere (``self.models[k] = Asr(...)`` in a loader,
  ``self.models: dict[str, Asr]``, ``MODELS["vad"] = load()``): its element has the type stored under that constant
  key, else the type every store agrees on (:meth:`Stores.stored_element`).
* A module global read through the module (``shared.model``) set by ``shared.model, shared.tok = load(name)`` in
  another module (:meth:`Stores.module_attribute`), and items of unpacked returns (:meth:`Stores.unpacked`).
* A global, a module's attribute or ``self.<attr>`` assigned several types (a model switched at run time): every
  one of them (:meth:`Stores.candidates`); a call on it blocks when it blocks for any.

Each answer is memoised; a cycle or disagreement answers "unknown" (or no candidate).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import (MAX_NESTING, agreed, _assigned_in, _positional,
                                                     _single_assignment, _top_level_nodes)
from faultlib.detect.serving.blocking.built_instances import instance_names
from faultlib.detect.serving.blocking.loader_tuples import unpacked_item
from faultlib.detect.serving.blocking.local_stores import local_dict_stores
from faultlib.detect.serving.blocking.model import Func, Module, Type, _is_local, dotted, nodes_of
from faultlib.detect.serving.blocking.offload_results import offloaded_callee
from faultlib.detect.serving.blocking.scopes import _module_func

__all__ = ["Stores"]

#: the statements that store a value (``x = v``, ``x: T = v``): the nodes a method's stores are read from
_ASSIGNS = (ast.Assign, ast.AnnAssign)


class Stores:
    """The rules above over one :class:`~faultlib.detect.serving.blocking.index.Index`."""

    def __init__(self, index):  # an index.Index (it imports this module)
        self.index = index
        self._memo: dict[tuple[int, str], Type | None] = {}
        self._stores: dict[tuple[int, str], list[tuple[ast.expr | None, ast.expr, Func]]] = {}
        self._by_class: dict[int, dict[str, list[tuple[ast.expr | None, ast.expr, Func]]]] = {}
        self._writes: dict[str, list] | None = None
        self._candidates: dict[tuple, list[Type]] = {}
        self._nesting = 0

    def module_attribute(self, module: Module, attr: str) -> Type | None:
        """The type of ``module.attr`` (a module global read as ``shared.model`` in another module): its value at
        the module's top level or in a ``global`` statement's function, and every ``alias.attr = value`` or
        ``alias.attr, other = value`` anywhere in the analysed files where ``alias`` names that module; the
        types must agree (``None`` placeholders left out)."""
        key = (id(module), "." + attr)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # a cycle answers "unknown"
        found: list[Type] = []
        value = module.globals.get(attr)
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            typed = self.index.type_of(value, self.index.infer.module_func(module))
            if typed is None:
                return None
            found.append(typed)
        if self._writes is None:
            self._writes = {}
            for other in self.index.distinct_modules():
                for write in other.attr_writes:
                    self._writes.setdefault(write[0].attr, []).append((other, write))
        for other, (target, value, position, scope) in self._writes.get(attr, []):
            if not (isinstance(value, ast.Constant) and value.value is None):
                scope = scope or self.index.infer.module_func(other)
                if self.index._module_of(target.value, scope) is not module:
                    continue
                typed = (self.index.type_of(value, scope) if position is None
                         else self.unpacked(value, position, scope))
                if typed is None:
                    return None
                found.append(typed)
        self._memo[key] = result = agreed(found, strict=False)
        return result

    def candidates(self, expr: ast.expr, func: Func) -> list[Type]:
        """Every type a global, a module's attribute or ``self.<attr>`` is assigned somewhere (up to 8), for a value
        whose assignments disagree (``model = AutoModel.from_pretrained(...)`` in one branch, ``SentenceTransformer
        (...)`` in another): the call on it may run any of them."""
        key = _candidate_key(expr, func)
        found = self._candidates.get(key)
        if found is not None:
            return found
        self._candidates[key] = found = []
        values: list[tuple[ast.expr, Func | None, int | None]] = []
        if isinstance(expr, ast.Name) and not _is_param_or_local(func, expr.id):
            values = [(v, s, None) for v, s in func.module.global_values.get(expr.id, [])]
        elif isinstance(expr, ast.Name) and isinstance(_single_assignment(func, expr.id), ast.Call):
            made = self.index.callee(_single_assignment(func, expr.id).func, func)  # m = get_model(): its global
            if isinstance(made, Func) and self._nesting < MAX_NESTING:
                self._nesting += 1
                try:
                    for node in made.nodes:
                        if isinstance(node, ast.Return) and isinstance(node.value, (ast.Name, ast.Attribute)):
                            found.extend(t for t in self.candidates(node.value, made)
                                         if all(t is not f and t != f for f in found))
                finally:
                    self._nesting -= 1
                return found[:8]
        elif isinstance(expr, ast.Attribute):
            holder = self.index._module_of(expr.value, func)
            if holder is not None:
                values = [(v, s, None) for v, s in holder.global_values.get(expr.attr, [])]
                self.module_attribute(holder, expr.attr)  # builds the table of writes
                values += [(v, s or self.index.infer.module_func(m), p) for m, (t, v, p, s) in (self._writes or {}).get(
                    expr.attr, []) if self.index._module_of(t.value, s or self.index.infer.module_func(m)) is holder]
            elif isinstance(expr.value, ast.Name) and func.cls is not None and expr.value.id in instance_names(
                    func, func.cls):  # self.x, or obj.x of an `obj = cls()` a factory builds
                values = [(v, m, None) for v, m in self._self_values(func.cls).get(expr.attr, [])]
        for value, scope, position in values[:32]:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            scope = scope or self.index.infer.module_func(func.module)
            typed = self.index.type_of(value, scope) if position is None else self.unpacked(value, position, scope)
            if typed is not None and all(typed is not t and typed != t for t in found) and len(found) < 8:
                found.append(typed)
        return found

    def _self_values(self, klass) -> dict[str, list[tuple[ast.expr, Func]]]:
        """``attr -> [(value, method)]`` of every ``self.attr = value`` in ``klass``'s methods (built once)."""
        table = klass.__dict__.get("_faultlib_self_values")
        if table is None:
            table = klass.__dict__["_faultlib_self_values"] = {}
            for method in klass.methods.values():
                params = _positional(method.node)
                for node in nodes_of(method, _ASSIGNS) if params else []:
                    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                        for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                    and target.value.id in instance_names(method, klass)):  # obj = cls(): obj.x
                                table.setdefault(target.attr, []).append((node.value, method))
        return table

    def unpacked(self, value: ast.expr, position: int, func: Func) -> Type | None:
        """The type of item ``position`` of ``value`` unpacked (``a, b = value``): a tuple display's item, or the
        item every ``return x, y`` of the called function of the analysed files agrees on (``return pair``, a local
        bound once, answers for the value bound); for a module global
        (``tracer, meter = PROVIDERS``), the same of the value the module assigns it last."""
        if isinstance(value, (ast.Tuple, ast.List)):
            items = value.elts
            return self.index.type_of(items[position], func) if position < len(items) else None
        if isinstance(value, ast.Name) and not _is_local(func, value.id) and self._nesting < MAX_NESTING:
            bound = func.module.globals.get(value.id)  # a, b, c = PROVIDERS, a global set by a tuple's call
            if bound is None or bound is value:
                return None
            self._nesting += 1
            try:
                return self.unpacked(bound, position, _module_func(func))
            finally:
                self._nesting -= 1
        offloaded = offloaded_callee(self.index, value, func)  # a, b = await loop.run_in_executor(None, load)
        value = self.index.awaited_call(value, func) or value  # a, b = await load(...)
        if offloaded is None and not isinstance(value, ast.Call):
            return None
        target = offloaded if offloaded is not None else self.index.callee(value.func, func)
        if isinstance(target, str):  # model, tokenizer = mlx_lm.load(repo): the library loader's items
            return unpacked_item(target, position)
        if not isinstance(target, Func) or self._nesting >= MAX_NESTING:
            return None
        found = []
        self._nesting += 1
        try:
            for node in target.nodes:
                bound = _single_assignment(target, node.value.id) if isinstance(node, ast.Return) and isinstance(
                    node.value, ast.Name) else None
                if bound is not None:  # providers = configure(app); return providers: that call's items
                    typed = self.unpacked(bound, position, target)
                    if typed is None:
                        return None
                    found.append(typed)
                elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                    items = node.value.elts
                    if position >= len(items) or (isinstance(items[position], ast.Constant)
                                                  and items[position].value is None):
                        continue
                    typed = self.index.type_of(items[position], target)
                    if typed is None:
                        return None
                    found.append(typed)
        finally:
            self._nesting -= 1
        return agreed(found, strict=False)

    def stored_element(self, container: ast.expr, key: ast.expr | None, func: Func) -> Type | None:
        """The type of ``container[key]`` (or ``container.get(key)``) for a dict kept in ``self.<attr>`` of a class
        of the analysed files or in a module global, from what the code stores in it: ``self.<attr>[k] = value``
        in any method (of the class, its bases or subclasses), ``self.<attr> = {k: value, ...}``, a
        ``dict[K, V]`` annotation, ``NAME[k] = value`` anywhere in the module. A constant ``key`` reads the
        values stored under that key first; the values must agree (``None`` placeholders left out)."""
        stores = self._container_stores(container, func)
        if not stores:
            return None
        wanted = key.value if isinstance(key, ast.Constant) else None
        chosen = [s for s in stores if wanted is not None and isinstance(s[0], ast.Constant) and s[0].value == wanted]
        if not chosen:
            chosen = [s for s in stores if not (wanted is not None and isinstance(s[0], ast.Constant))]
        found = []
        for _, value, scope in chosen:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)) and not value.__dict__.get("_faultlib_note"):
                return None  # a nested container: its elements are another matter
            typed = (self.index.annotation_type(value, scope.module) if value.__dict__.get("_faultlib_note")
                     else self.index.type_of(value, scope))
            if typed is None:
                return None
            found.append(typed)
        return agreed(found, strict=False)

    def _container_stores(self, container: ast.expr, func: Func) -> list[tuple[ast.expr | None, ast.expr, Func]]:
        """``(key or None, value, scope)`` of every store into the dict ``container`` names (see
        :meth:`stored_element`); an annotation's value type appears as a value marked ``_faultlib_note``."""
        if isinstance(container, ast.Attribute):  # self.models, or a chain to its owner: stray.memory.models
            owner = self.index.type_of(container.value, func)
            if owner is None or isinstance(owner, str):
                return []
            key = (id(getattr(owner, "origin", None) or owner), container.attr)
            if key not in self._stores:
                classes = [owner, *self._bases_of(owner), *self.index.subclasses(owner)]
                self._stores[key] = [s for k in classes for s in self._class_stores(k, container.attr)]
            return self._stores[key]
        if isinstance(container, ast.Name) and container.id in func.module.globals and not _assigned_in(
                func, container.id):
            key = (id(func.module), container.id)
            if key not in self._stores:
                scopes = [*func.module.all_functions, self.index.infer.module_func(func.module)]
                found = self._stores[key] = []
                for scope in scopes:
                    nodes = scope.nodes if scope.node.name != "<module>" else _top_level_nodes(func.module.tree)
                    for node in nodes:
                        if isinstance(node, ast.Assign):
                            for target in node.targets:
                                if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                                        and target.value.id == container.id and (
                                            scope.node.name == "<module>" or not _is_param_or_local(scope, container.id))):
                                    found.append((target.slice, node.value, scope))
                value = func.module.globals[container.id]
                if isinstance(value, ast.Dict):
                    found.extend((k, v, self.index.infer.module_func(func.module)) for k, v in zip(value.keys, value.values))
            return self._stores[key]
        if isinstance(container, ast.Name) and _is_param_or_local(func, container.id):
            return local_dict_stores(func, container.id)  # jobs = {}; jobs["api"] = Process(...)
        return []

    def _bases_of(self, klass) -> list:
        out, todo = [], list(self.index.bases(klass))
        while todo and len(out) < 16:
            base = todo.pop()
            if not isinstance(base, str) and base not in out:
                out.append(base)
                todo.extend(self.index.bases(base))
        return out

    def _class_stores(self, klass, attr: str) -> list[tuple[ast.expr | None, ast.expr, Func]]:
        table = self._by_class.get(id(klass))
        if table is None:  # one walk of the class's methods answers every attribute
            table = self._by_class[id(klass)] = self._attribute_stores(klass)
        return table.get(attr, [])

    def _attribute_stores(self, klass) -> dict[str, list[tuple[ast.expr | None, ast.expr, Func]]]:
        """``attr -> stores`` of the class: ``attr: dict[str, T]`` in its body, ``self.attr: ...`` annotations,
        ``self.attr[key] = value`` and ``self.attr = {key: value}`` in its methods, in the order they are written."""
        found: dict[str, list[tuple[ast.expr | None, ast.expr, Func]]] = {}
        for stmt in klass.node.body:  # models: dict[str, Asr]
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                found.setdefault(stmt.target.id, []).extend(
                    _noted_values(stmt.annotation, self.index.infer.module_func(klass.module)))
        for method in klass.methods.values():
            params = _positional(method.node)
            if not params:
                continue
            for node in nodes_of(method, _ASSIGNS):
                if isinstance(node, ast.AnnAssign) and _self_attr(node.target, params[0]):
                    found.setdefault(node.target.attr, []).extend(_noted_values(node.annotation, method))
                if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                    continue
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(target, ast.Subscript) and _self_attr(target.value, params[0]):
                        found.setdefault(target.value.attr, []).append((target.slice, node.value, method))
                    elif _self_attr(target, params[0]) and isinstance(node.value, ast.Dict):
                        found.setdefault(target.attr, []).extend(
                            (k, v, method) for k, v in zip(node.value.keys, node.value.values))
        return found


def _candidate_key(expr: ast.expr, func: Func) -> tuple:
    """What :meth:`Stores.candidates` answers depends on: ``self.attr`` on the class, a global on the module."""
    if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and func.cls is not None
            and _positional(func.node)[:1] == [expr.value.id]):
        return ("self", id(func.cls), expr.attr)
    if isinstance(expr, ast.Name) and not _is_param_or_local(func, expr.id):
        return ("global", id(func.module), expr.id)
    return (id(expr), id(func))


def _self_attr(node: ast.expr, self_name: str) -> bool:
    """``self.<anything>``, ``self`` being the method's first parameter."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name


def _is_param_or_local(func: Func, name: str) -> bool:
    return _is_local(func, name)


MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict"})


def _noted_values(annotation: ast.expr, scope: Func) -> list[tuple[None, ast.expr, Func]]:
    """``dict[str, Asr]`` (or ``Mapping``/``OrderedDict``/...): the value type's node, marked as an annotation."""
    if isinstance(annotation, ast.Subscript) and (dotted(annotation.value) or [""])[-1] in MAPPINGS and isinstance(
            annotation.slice, ast.Tuple) and len(annotation.slice.elts) == 2:
        note = annotation.slice.elts[1]
        if (dotted(note) or [""])[-1] in ("Any", "object"):
            return []  # Dict[str, Any]: says nothing of the values, the stores do (held-out wave 44)
        note.__dict__["_faultlib_note"] = True
        return [(None, note, scope)]
    return []
