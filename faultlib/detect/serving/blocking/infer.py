"""Types the code does not write down, inferred from how the analysed files use a function or a container.

* A parameter without annotation takes the type of the arguments passed at the call sites of the analysed
  files (``Conductor(self)`` types ``Conductor.__init__``'s ``researcher``), when every typed argument agrees.
* The wrapper a decorator returns receives the decorated function's arguments: its ``self`` is an instance of
  the class whose methods the decorator wraps, its other parameters take the decorated parameters' types.
* A parameter annotated ``Callable[..., T]`` returns a ``T`` when called.
* An element of a literal container (``{"pdf": PdfLoader(p), "txt": TextLoader(p)}[ext]``, ``.get(ext)``) has
  the type its values share; a container of functions or classes calls what its values call.
* An element of a dict held in an attribute or a module global and filled elsewhere (``self.models[k] = Asr(...)``
  in a loader, ``self.models: dict[str, Asr]``, ``MODELS["vad"] = load()``) has the type stored under that
  constant key, else the type every store agrees on (:meth:`Inference.stored_element`).

Each answer is memoised per function and name; a cycle or disagreement answers "unknown".
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Module, Type, _is_static, dotted


MAX_SITES = 40        # call sites examined for one parameter
MAX_NESTING = 3       # call-site inference inside call-site inference
CONTAINER_GETTERS = frozenset({"get", "pop", "setdefault", "__getitem__"})


class Inference:
    """The inferences above over one :class:`~faultlib.detect.serving.blocking.index.Index`."""

    def __init__(self, index):  # an index.Index (not imported: it imports this module)
        self.index = index
        self._sites: dict[str, list[tuple[ast.Call, Func]]] | None = None
        self._wrapped: dict[int, list[Func]] | None = None
        self._params: dict[tuple[int, str], Type | None] = {}
        self._module_funcs: dict[int, Func] = {}
        self._attr_callees: dict[tuple[int, str], list] = {}
        self._stores: dict[tuple[int, str], list[tuple[ast.expr | None, ast.expr, Func]]] = {}
        self._writes: dict[str, list] | None = None
        self._candidates: dict[tuple, list[Type]] = {}
        self._nesting = 0

    # -- parameters -------------------------------------------------------------------------------------
    def parameter(self, func: Func, name: str) -> Type | None:
        """The type of ``func``'s unannotated parameter ``name`` from its wrappers' or its call sites' arguments."""
        key = (id(func), name)
        if key in self._params:
            return self._params[key]
        self._params[key] = None  # a cycle answers "unknown"
        params = _positional(func.node)
        found = None
        if self._nesting < MAX_NESTING:
            self._nesting += 1
            try:
                found = self._injected(func, name)
                if found is None and name in params:
                    found = self._from_wrapped(func, params.index(name)) or self._from_calls(func, name, params)
            finally:
                self._nesting -= 1
        self._params[key] = found
        return found

    def _injected(self, func: Func, name: str) -> Type | None:
        """A parameter a decorator's wrapper supplies itself: ``kwargs["session"] = get_session()`` before
        ``return func(*args, **kwargs)`` types the decorated function's ``session``."""
        found = []
        for decorator in func.node.decorator_list:
            for wrapper in self._wrappers(decorator, self.module_func(func.module) if func.parent is None else func):
                star = wrapper.node.args.kwarg.arg if wrapper.node.args.kwarg is not None else None
                for node in wrapper.nodes if star else []:
                    if isinstance(node, ast.Assign) and any(
                            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == star
                            and isinstance(t.slice, ast.Constant) and t.slice.value == name for t in node.targets):
                        typed = self.index.type_of(node.value, wrapper)
                        if typed is not None:
                            found.append(typed)
        return _agreed(found, strict=True)

    def callable_return(self, func: Func, name: str) -> Type | None:
        """``name`` is a parameter annotated ``Callable[..., T]``: the ``T`` a call of it returns."""
        args = func.node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            note = arg.annotation
            if arg.arg == name and isinstance(note, ast.Subscript) and (dotted(note.value) or [""])[-1] == "Callable":
                if isinstance(note.slice, ast.Tuple) and len(note.slice.elts) == 2:
                    return self.index.annotation_type(note.slice.elts[1], func.module)
        return None

    def _from_calls(self, func: Func, name: str, params: list[str]) -> Type | None:
        if func.parent is not None:
            return None  # a nested def is called where it is defined: its arguments are its parent's business
        klass = func.cls
        if klass is not None and func.node.name == "__init__":
            key, offset, want = klass.node.name, 1, klass
        elif klass is None:
            key, offset, want = func.node.name, 0, func
        elif not _is_static(func.node):
            key, offset, want = func.node.name, 1, func
        else:
            key, offset, want = func.node.name, 0, func
        position = params.index(name) - offset
        if position < 0:
            return None
        found: list[Type] = []
        sites = [(call, caller, want) for call, caller in self.sites().get(key, [])[:MAX_SITES]]
        if klass is not None and func.node.name == "__init__":  # super().__init__(model) in a subclass
            for sub in self.index.subclasses(klass)[:MAX_SITES]:
                init = sub.methods.get("__init__")
                sites += [(n, init, func) for n in (init.nodes if init is not None else []) if isinstance(n, ast.Call)
                          and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__"
                          and isinstance(n.func.value, ast.Call) and dotted(n.func.value.func) == ["super"]]
        for call, caller, expected in sites:
            if self.index.callee(call.func, caller) is not expected:
                continue
            arg = _argument(call, name, position)
            if arg is None or (isinstance(arg, ast.Constant) and arg.value is None):
                continue
            typed = self.index.type_of(arg, caller)
            if typed is None:
                continue
            found.append(typed)
        return _agreed(found, strict=True)

    def _from_wrapped(self, func: Func, position: int) -> Type | None:
        if func.parent is None:
            return None
        found = []
        for wrapped in self.wrapped().get(id(func), []):
            params = _positional(wrapped.node)
            if position >= len(params):
                continue
            if position == 0 and wrapped.cls is not None and not _is_static(wrapped.node):
                found.append(wrapped.cls)
                continue
            typed = self.index.local_types(wrapped).get(params[position])
            if typed is not None:
                found.append(typed)
        return _agreed(found, strict=True)

    # -- tables built once ------------------------------------------------------------------------------
    def sites(self) -> dict[str, list[tuple[ast.Call, Func]]]:
        """Every call of the analysed files by the last name of what it calls (``a.b.Service(...)`` under
        ``Service``), with the function it is made in (a module's top level as a function of its own)."""
        if self._sites is None:
            self._sites = sites = {}
            for module in self.index.distinct_modules():
                scopes = [(f, f.nodes) for f in module.all_functions]
                scopes.append((self.module_func(module), _top_level_nodes(module.tree)))
                for scope, nodes in scopes:
                    for node in nodes:
                        if isinstance(node, ast.Call):
                            parts = dotted(node.func)
                            if parts:
                                sites.setdefault(parts[-1], []).append((node, scope))
        return self._sites

    def wrapped(self) -> dict[int, list[Func]]:
        """Wrapper function (by id) -> the functions decorated with the decorator that returns it."""
        if self._wrapped is None:
            self._wrapped = table = {}
            for module in self.index.distinct_modules():
                for func in module.all_functions:
                    for decorator in func.node.decorator_list:
                        for wrapper in self._wrappers(decorator, func):
                            table.setdefault(id(wrapper), []).append(func)
        return self._wrapped

    def _wrappers(self, decorator: ast.expr, func: Func) -> list[Func]:
        scope = func.parent or self.module_func(func.module)
        factory = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted(factory) is None:
            return []
        target = self.index.callee(factory, scope)
        if not isinstance(target, Func):
            return []
        decorators = _returned(target) if isinstance(decorator, ast.Call) else [target]
        return [w for d in decorators for w in _returned(d)]

    def module_func(self, module: Module) -> Func:
        """A module's top level seen as a function without locals (its names are the module's globals)."""
        found = self._module_funcs.get(id(module))
        if found is None:
            node = ast.FunctionDef(name="<module>", args=ast.arguments(
                posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                body=[], decorator_list=[], lineno=1, col_offset=0)
            found = self._module_funcs[id(module)] = Func(module, node, "<module>", _types={})
        return found

    # -- attributes stored from outside ------------------------------------------------------------------
    def stored_attribute(self, expr: ast.Attribute, func: Func) -> Type | None:
        """The type of ``a.b.c`` assigned by that same dotted path somewhere in the module (``app.state.chat =
        Chat()`` in a startup hook, read in an endpoint)."""
        parts = dotted(expr)
        value = func.module.attr_values.get(".".join(parts)) if parts and parts[0] not in ("self", "cls") else None
        return self.index.type_of(value, self.module_func(func.module)) if value is not None else None

    def attribute_callees(self, klass, attr: str) -> list:
        """The functions of the analysed files stored in attribute ``attr`` of ``klass``'s instances: by its own
        methods (``self.handler = extract``) and, when it owns such an attribute, by anyone (``creator.handler =
        other``): a handler picked at run time may be any of them."""
        key = (id(klass), attr)
        found = self._attr_callees.get(key)
        if found is not None:
            return found
        self._attr_callees[key] = found = []
        own = [v for m in klass.methods.values() for n in m.nodes if isinstance(n, (ast.Assign, ast.AnnAssign))
               for v in _self_stores(n, m, attr)]
        if not own:
            return found
        values = [(v, self.module_func(klass.module)) for v in own]
        for module in self.index.distinct_modules():
            values.extend((v, self.module_func(module)) for name, v in module.attr_stores if name == attr)
        for value, scope in values:
            if dotted(value) is None:
                found.extend(f for f in self.made_functions(value, scope) if all(f is not t for t in found))
                continue
            target = self.index.callee(value, scope)
            if target is not None and all(target is not t for t in found):
                found.append(target)
        return found

    def made_functions(self, value: ast.expr, scope: Func) -> list[Func]:
        """The nested functions a factory of the analysed files returns, when ``value`` calls one
        (``engine = load_engine(path)`` returning its inner ``def run(inputs)``): calling ``engine`` runs them."""
        if not isinstance(value, ast.Call):
            return []
        target = self.index.callee(value.func, scope)
        if not isinstance(target, Func):
            return []
        found = _returned(target)
        for node in target.nodes:  # `return generate_stream`: a function of the files returned by name
            if isinstance(node, ast.Return) and isinstance(node.value, (ast.Name, ast.Attribute)):
                named = self.index.callee(node.value, target)
                if isinstance(named, Func) and all(named is not f for f in found):
                    found.append(named)
        return found

    def registered(self, klass, attr: str) -> list:
        """The functions a registry decorator of ``klass`` stores in ``self.<attr>[key]``: a method returning a
        nested ``decorator(func)`` that does ``self.<attr>[key] = func``, applied as ``@router.<method>(...)`` to
        functions anywhere in the analysed files (``router`` typed ``klass`` or a subclass)."""
        key = (id(klass), "[]" + attr)
        found = self._attr_callees.get(key)
        if found is not None:
            return found
        self._attr_callees[key] = found = []
        decorators = set()
        for method in klass.methods.values():
            owner = _positional(method.node)[:1]
            for nested in method.nested.values():
                params = set(_positional(nested.node))
                if any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id in params
                       and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute)
                               and t.value.attr == attr and dotted(t.value.value) == owner for t in n.targets)
                       for n in nested.nodes):
                    decorators.add(method.node.name)
        if not decorators:
            return found
        for module in self.index.distinct_modules():
            scope = self.module_func(module)
            for func in module.all_functions:
                for decorator in func.node.decorator_list:
                    applied = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if isinstance(applied, ast.Attribute) and applied.attr in decorators:
                        router = self.index.type_of(applied.value, scope)
                        if router is klass or any(router is sub for sub in self.index.subclasses(klass)):
                            found.append(func)
        return found

    def module_attribute(self, module: Module, attr: str) -> Type | None:
        """The type of ``module.attr`` (a module global read as ``shared.model`` in another module): its value at
        the module's top level or in a ``global`` statement's function, and every ``alias.attr = value`` or
        ``alias.attr, other = value`` anywhere in the analysed files where ``alias`` names that module; the
        types must agree (``None`` placeholders left out)."""
        key = (id(module), "." + attr)
        if key in self._params:
            return self._params[key]
        self._params[key] = None  # a cycle answers "unknown"
        found: list[Type] = []
        value = module.globals.get(attr)
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            typed = self.index.type_of(value, self.module_func(module))
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
                scope = scope or self.module_func(other)
                if self.index._module_of(target.value, scope) is not module:
                    continue
                typed = (self.index.type_of(value, scope) if position is None
                         else self.unpacked(value, position, scope))
                if typed is None:
                    return None
                found.append(typed)
        self._params[key] = result = _agreed(found, strict=False)
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
                values += [(v, s or self.module_func(m), p) for m, (t, v, p, s) in (self._writes or {}).get(
                    expr.attr, []) if self.index._module_of(t.value, s or self.module_func(m)) is holder]
            elif isinstance(expr.value, ast.Name) and func.cls is not None and _positional(func.node)[:1] == [
                    expr.value.id]:
                values = [(v, m, None) for v, m in self._self_values(func.cls).get(expr.attr, [])]
        for value, scope, position in values[:32]:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            scope = scope or self.module_func(func.module)
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
                for node in method.nodes if params else []:
                    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                        for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                    and target.value.id == params[0]):
                                table.setdefault(target.attr, []).append((node.value, method))
        return table

    def unpacked(self, value: ast.expr, position: int, func: Func) -> Type | None:
        """The type of item ``position`` of ``value`` unpacked (``a, b = value``): a tuple display's item, or the
        item every ``return x, y`` of the called function of the analysed files agrees on."""
        if isinstance(value, (ast.Tuple, ast.List)):
            items = value.elts
            return self.index.type_of(items[position], func) if position < len(items) else None
        if not isinstance(value, ast.Call):
            return None
        target = self.index.callee(value.func, func)
        if not isinstance(target, Func) or self._nesting >= MAX_NESTING:
            return None
        found = []
        self._nesting += 1
        try:
            for node in target.nodes:
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
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
        return _agreed(found, strict=False)

    # -- containers -------------------------------------------------------------------------------------
    def element_type(self, container: ast.expr, func: Func) -> Type | None:
        """The type the values of a literal container (bound to ``container``) share."""
        literal = self.literal(container, func)
        if literal is None:
            return None
        scope = func if literal_scope_is_func(container, func) else self.module_func(func.module)
        found = []
        for value in _values(literal):
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            typed = self.index.type_of(value, scope)
            if typed is None:
                return None
            found.append(typed)
        return _agreed(found, strict=False)

    def element_callee(self, container: ast.expr, func: Func):
        """What calling a value of a literal container of functions/classes calls, when the values agree."""
        literal = self.literal(container, func)
        if literal is None:
            return None
        scope = func if literal_scope_is_func(container, func) else self.module_func(func.module)
        found = []
        for value in _values(literal):
            if dotted(value) is None:
                return None
            target = self.index.callee(value, scope)
            if target is None:
                return None
            found.append(target)
        if not found:
            return None
        if all(t is found[0] or t == found[0] for t in found):
            return found[0]
        if all(isinstance(t, str) and t in self.index.vocab.calls for t in found):
            return found[0]  # every value is a blocking call of the vocabulary
        return _agreed(found, strict=False) if all(isinstance(t, str) for t in found) else None

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
        return _agreed(found, strict=False)

    def _container_stores(self, container: ast.expr, func: Func) -> list[tuple[ast.expr | None, ast.expr, Func]]:
        """``(key or None, value, scope)`` of every store into the dict ``container`` names (see
        :meth:`stored_element`); an annotation's value type appears as a value marked ``_faultlib_note``."""
        if isinstance(container, ast.Attribute) and isinstance(container.value, ast.Name):
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
                scopes = [*func.module.all_functions, self.module_func(func.module)]
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
                    found.extend((k, v, self.module_func(func.module)) for k, v in zip(value.keys, value.values))
            return self._stores[key]
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
        found = []
        for stmt in klass.node.body:  # models: dict[str, Asr]
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                found.extend(_noted_values(stmt.annotation, self.module_func(klass.module)))
        for method in klass.methods.values():
            params = _positional(method.node)
            if not params:
                continue
            for node in method.nodes:
                if isinstance(node, ast.AnnAssign) and _is_self_attr(node.target, params[0], attr):
                    found.extend(_noted_values(node.annotation, method))
                if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                    continue
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(target, ast.Subscript) and _is_self_attr(target.value, params[0], attr):
                        found.append((target.slice, node.value, method))
                    elif _is_self_attr(target, params[0], attr) and isinstance(node.value, ast.Dict):
                        found.extend((k, v, method) for k, v in zip(node.value.keys, node.value.values))
        return found

    def literal(self, expr: ast.expr, func: Func) -> ast.expr | None:
        """The dict/list/tuple/set display ``expr`` is, or the one a name is bound to once."""
        if isinstance(expr, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
            return expr
        if not isinstance(expr, ast.Name):
            return None
        bound = _single_assignment(func, expr.id)
        if bound is None and expr.id in func.module.globals and not _assigned_in(func, expr.id):
            bound = func.module.globals[expr.id]
        return bound if isinstance(bound, (ast.Dict, ast.List, ast.Tuple, ast.Set)) else None


def literal_scope_is_func(container: ast.expr, func: Func) -> bool:
    return not (isinstance(container, ast.Name) and _single_assignment(func, container.id) is None
                and container.id in func.module.globals)


def _self_stores(node: ast.Assign | ast.AnnAssign, method: Func, attr: str) -> list[ast.expr]:
    """The value of ``self.<attr> = value`` in ``method``."""
    params = _positional(method.node)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if node.value is None or not params:
        return []
    return [node.value for t in targets if isinstance(t, ast.Attribute) and t.attr == attr
            and isinstance(t.value, ast.Name) and t.value.id == params[0]]


def _candidate_key(expr: ast.expr, func: Func) -> tuple:
    """What :meth:`Inference.candidates` answers depends on: ``self.attr`` on the class, a global on the module."""
    if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and func.cls is not None
            and _positional(func.node)[:1] == [expr.value.id]):
        return ("self", id(func.cls), expr.attr)
    if isinstance(expr, ast.Name) and not _is_param_or_local(func, expr.id):
        return ("global", id(func.module), expr.id)
    return (id(expr), id(func))


def _is_self_attr(node: ast.expr, self_name: str, attr: str) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name)
            and node.value.id == self_name)


def _is_param_or_local(func: Func, name: str) -> bool:
    from faultlib.detect.serving.blocking.model import _is_local
    return _is_local(func, name)


MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict"})


def _noted_values(annotation: ast.expr, scope: Func) -> list[tuple[None, ast.expr, Func]]:
    """``dict[str, Asr]`` (or ``Mapping``/``OrderedDict``/...): the value type's node, marked as an annotation."""
    if isinstance(annotation, ast.Subscript) and (dotted(annotation.value) or [""])[-1] in MAPPINGS and isinstance(
            annotation.slice, ast.Tuple) and len(annotation.slice.elts) == 2:
        note = annotation.slice.elts[1]
        note.__dict__["_faultlib_note"] = True
        return [(None, note, scope)]
    return []


def _values(literal: ast.expr) -> list[ast.expr]:
    return list(literal.values) if isinstance(literal, ast.Dict) else list(literal.elts)


def _agreed(found: list, *, strict: bool):
    """One type when every candidate is the same; with ``strict`` False, also when all are dotted names of one
    top-level package (``langchain_community.document_loaders.PyMuPDFLoader``, ``...TextLoader``)."""
    if not found:
        return None
    first = found[0]
    if all(t is first or t == first for t in found):
        return first
    if not strict and all(isinstance(t, str) for t in found):
        heads = {t.split(".")[0] for t in found}
        return first if len(heads) == 1 and first.split(".")[0] not in ("builtins", "typing") else None
    return None


def _positional(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in [*node.args.posonlyargs, *node.args.args]]


def _argument(call: ast.Call, name: str, position: int) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return call.args[position]
    return None


def _returned(func: Func) -> list[Func]:
    """The nested functions ``func`` returns by name (a decorator's wrapper, a decorator factory's decorator)."""
    found = []
    for node in func.nodes:
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id in func.nested:
            found.append(func.nested[node.value.id])
    return found


def _single_assignment(func: Func, name: str) -> ast.expr | None:
    """The value of the one ``name = value`` of ``func`` (None when ``name`` is stored more than once)."""
    table = func.__dict__.get("_single")
    if table is None:
        stores: dict[str, int] = {}
        for n in func.nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        table = {n.targets[0].id: n.value for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and stores.get(n.targets[0].id) == 1}
        func.__dict__["_single"] = table
        func.__dict__["_stored"] = frozenset(stores)
    return table.get(name)


def _assigned_in(func: Func, name: str) -> bool:
    _single_assignment(func, name)
    return name in func.__dict__["_stored"]


def _top_level_nodes(tree: ast.Module):
    """The nodes of a module's top level, not descending into functions, lambdas or classes' methods."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


__all__ = ["Inference"]
