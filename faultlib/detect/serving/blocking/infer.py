"""Types the code does not write down, inferred from how the analysed files use a function or a container.

* A parameter without annotation takes the type of the arguments passed at the call sites of the analysed
  files (``Conductor(self)`` types ``Conductor.__init__``'s ``researcher``), when every typed argument agrees.
* The wrapper a decorator returns receives the decorated function's arguments: its ``self`` is an instance of
  the class whose methods the decorator wraps, its other parameters take the decorated parameters' types.
* A parameter annotated ``Callable[..., T]`` returns a ``T`` when called.
* An element of a literal container (``{"pdf": PdfLoader(p), "txt": TextLoader(p)}[ext]``, ``.get(ext)``) has
  the type its values share; a container of functions or classes calls what its values call.
* (Values stored in one place and read in another: :mod:`~faultlib.detect.serving.blocking.stores`.)

Each answer is memoised per function and name; a cycle or disagreement answers "unknown".
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.callback_args import handed_arguments
from faultlib.detect.serving.blocking.class_values import named_class
from faultlib.detect.serving.blocking.decorator_args import leading_arguments
from faultlib.detect.serving.blocking.handed_in import lineage, stored_arguments
from faultlib.detect.serving.blocking.model import (Func, Module, Type, _is_static, dotted, module_nodes, module_nodes_of,
                                                    nodes_of)
from faultlib.pyflow.walk import children


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
        self._nesting = 0
        self.cuts = 0  # lookups cut short by MAX_NESTING so far: an answer built on one is not memoised

    # -- parameters -------------------------------------------------------------------------------------
    def parameter(self, func: Func, name: str) -> Type | None:
        """The type of ``func``'s unannotated parameter ``name`` from its wrappers' or its call sites' arguments."""
        key = (id(func), name)
        if key in self._params:
            return self._params[key]
        self._params[key] = None  # a cycle answers "unknown"
        params = _positional(func.node)
        found = None
        cuts = self.cuts
        if self._nesting >= MAX_NESTING:  # too deep to look here: "unknown" for now, not for good
            self.cuts += 1
        else:
            self._nesting += 1
            try:
                found = self._injected(func, name)
                if found is None and name in params:
                    found = self._from_wrapped(func, params.index(name)) or self._from_calls(func, name, params)
            finally:
                self._nesting -= 1
        if self.cuts != cuts:  # this answer, or one it was built on, was cut short: ask again next time
            del self._params[key]
        else:
            self._params[key] = found
        return found

    def _injected(self, func: Func, name: str) -> Type | None:
        """A parameter a decorator's wrapper supplies itself: ``kwargs["session"] = get_session()`` before
        ``return func(*args, **kwargs)`` types the decorated function's ``session``, and so does
        ``func(session, *args, **kwargs)`` for the first parameter (:mod:`~faultlib.detect.serving.blocking.
        decorator_args`)."""
        found = []
        params = _positional(func.node)
        position = params.index(name) if name in params else -1  # a method's wrapper passes its ``self`` too
        for decorator in func.node.decorator_list:
            for wrapper in self._wrappers(decorator, self.module_func(func.module) if func.parent is None else func):
                for value in leading_arguments(wrapper, position) if position >= 0 else []:
                    typed = self.index.type_of(value, wrapper)
                    if typed is not None:
                        found.append(typed)
                star = wrapper.node.args.kwarg.arg if wrapper.node.args.kwarg is not None else None
                for node in wrapper.nodes if star else []:
                    if isinstance(node, ast.Assign) and any(
                            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == star
                            and isinstance(t.slice, ast.Constant) and t.slice.value == name for t in node.targets):
                        typed = self.index.type_of(node.value, wrapper)
                        if typed is not None:
                            found.append(typed)
        return agreed(found, strict=True)

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
        if func.parent is not None and func.cls is None:  # a nested def is called where it is defined:
            return self._from_parent_calls(func, name, params)  # typed from its parent's calls of it
        if func.parent is not None:
            return None
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
        if klass is not None and func.node.name == "__init__":  # cls(model=...) in the class's own classmethod
            sites += [(call, caller, want) for call, caller in self.sites().get("cls", [])
                      if caller.cls is klass][:MAX_SITES]
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
        return agreed(found, strict=True)

    def _from_parent_calls(self, func: Func, name: str, params: list[str]) -> Type | None:
        """``name`` of a nested def from the arguments its enclosing function passes it (``fmt(inspector, t) for t
        in names`` inside the function that defines ``fmt``), when every such call agrees."""
        parent, position = func.parent, params.index(name) if name in params else -1
        if position < 0 or not isinstance(parent, Func):
            return None
        found = []
        for node in parent.nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == func.node.name:
                arg = _argument(node, name, position)
                typed = self.index.type_of(arg, parent) if arg is not None else None
                if typed is not None:
                    found.append(typed)
        found += handed_arguments(self.index, func, position)  # run_with(fn) calls fn(conn): the callback's conn
        return agreed(found, strict=True)

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
        return agreed(found, strict=True)

    # -- tables built once ------------------------------------------------------------------------------
    def sites(self) -> dict[str, list[tuple[ast.Call, Func]]]:
        """Every call of the analysed files by the last name of what it calls (``a.b.Service(...)`` under
        ``Service``), with the function it is made in (a module's top level as a function of its own)."""
        if self._sites is None:
            self._sites = sites = {}
            for module in self.index.distinct_modules():
                scopes = [(f, nodes_of(f, ast.Call)) for f in module.all_functions]
                scopes.append((self.module_func(module), _top_level_nodes(module.tree)))
                for scope, nodes in scopes:
                    for node in nodes:
                        if isinstance(node, ast.Call):
                            called = node.func  # the last name of its dotted name; Model(...).save(db): `save` too
                            last = called.attr if isinstance(called, ast.Attribute) else (
                                called.id if isinstance(called, ast.Name) else None)
                            if last:
                                sites.setdefault(last, []).append((node, scope))
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
        Chat()`` in a startup hook, read in an endpoint); in a function bound to an object with
        ``types.MethodType(func, obj)``, its first parameter is ``obj``."""
        parts = dotted(expr)
        bound = _bound_object(func) if parts and _positional(func.node)[:1] == parts[:1] else None
        if bound:  # types.MethodType(func, interpreter): its `self.stt` is `interpreter.stt`
            parts = [*bound, *parts[1:]]
        value = func.module.attr_values.get(".".join(parts)) if parts and parts[0] not in ("self", "cls") else None
        if value is not None:
            return self.index.type_of(value, self.module_func(func.module))
        if parts and len(parts) >= 3 and parts[-3] == "app" and parts[-2] in APP_STATES:  # request.app.state.x
            return self._app_state(parts[-2], parts[-1])
        return None

    def _app_state(self, holder: str, name: str) -> Type | None:
        """The type of ``<app>.state.<name>`` (``<app>.ctx.<name>``) assigned in any analysed module (a startup hook
        in ``main.py``, read as ``request.app.state.<name>`` in a router): see :data:`APP_STATES`."""
        found = []
        for module in self.index.distinct_modules():
            for key, value in module.attr_values.items():
                if key.split(".")[-3:] == ["app", holder, name]:  # app.ctx.Service = Service: the class itself
                    typed = self.index.type_of(value, self.module_func(module)) or named_class(self.index, value,
                                                                                              module)
                    if typed is not None:
                        found.append(typed)
        return agreed(found, strict=True)

    def attribute_callees(self, klass, attr: str) -> list:
        """The functions of the analysed files stored in attribute ``attr`` of ``klass``'s instances: by its own
        methods (``self.handler = extract``) and, when it owns such an attribute, by anyone (``creator.handler =
        other``): a handler picked at run time may be any of them."""
        key = (id(klass), attr)
        found = self._attr_callees.get(key)
        if found is not None:
            return found
        self._attr_callees[key] = found = []
        own = [(v, m) for k in lineage(self.index, klass) for m in k.methods.values() for n in m.nodes
               if isinstance(n, (ast.Assign, ast.AnnAssign)) for v in _self_stores(n, m, attr)]  # a base's too
        if not own:
            return found
        found.extend(f for v, m in own for f in stored_arguments(self.index, m, v))  # self._run = lru_cache()(fn)
        values = [(v, self.module_func(klass.module)) for v, _ in own]
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
        return agreed(found, strict=False)

    def element_callee(self, container: ast.expr, func: Func):
        """What calling a value of a literal container of functions/classes calls, when the values agree (the
        container may be a global another analysed module binds: ``from .registry import ROUTERS``)."""
        literal = self.literal(container, func)
        scope = func if literal_scope_is_func(container, func) else self.module_func(func.module)
        if literal is None:
            literal, scope = self.imported_display(container, func)
        if literal is None:
            return None
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
        return agreed(found, strict=False) if all(isinstance(t, str) for t in found) else None

    def item_callee(self, expr: ast.Subscript, func: Func):
        """What calling ``container[key][i]`` calls when ``container`` is a literal whose values are all tuples or
        lists (``{".pdf": (PdfLoader, {}), ".txt": (TextLoader, {"encoding": "utf8"})}``): item ``i`` of each,
        when they agree as :meth:`element_callee` asks."""
        if not (isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, int)
                and isinstance(expr.value, ast.Subscript)):
            return None
        literal = self.literal(expr.value.value, func)
        rows = _values(literal) if literal is not None else []
        if not rows or not all(isinstance(r, (ast.Tuple, ast.List)) and expr.slice.value < len(r.elts) for r in rows):
            return None
        column = ast.copy_location(ast.List(elts=[r.elts[expr.slice.value] for r in rows], ctx=ast.Load()), expr)
        expr.__dict__["_faultlib_column"] = column  # kept alive: memo keys are node ids
        scope = func if literal_scope_is_func(expr.value.value, func) else self.module_func(func.module)
        return self.element_callee(column, scope)

    def imported_display(self, expr: ast.expr, func: Func) -> tuple[ast.expr | None, Func | None]:
        """The dict/list/tuple/set display an imported name is bound to in the analysed module it comes from, with
        that module's scope; (None, None) otherwise."""
        if not (isinstance(expr, ast.Name) and expr.id in func.module.imports) or _assigned_in(func, expr.id):
            return None, None
        module_name, _, name = func.module.imports[expr.id].rpartition(".")
        module = self.index.modules.get(module_name)
        bound = module.globals.get(name) if module is not None else None
        if not isinstance(bound, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
            return None, None
        return bound, self.module_func(module)

    def literal(self, expr: ast.expr, func: Func) -> ast.expr | None:
        """The dict/list/tuple/set display ``expr`` is, or the one a name is bound to once."""
        if isinstance(expr, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
            return expr
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls") \
                and func.cls is not None:  # self.CLASSES: a display the class body binds
            bound = next((n.value for n in func.cls.node.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                          and any(isinstance(t, ast.Name) and t.id == expr.attr
                                  for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))), None)
            return bound if isinstance(bound, (ast.Dict, ast.List, ast.Tuple, ast.Set)) else None
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


def _values(literal: ast.expr) -> list[ast.expr]:
    return list(literal.values) if isinstance(literal, ast.Dict) else list(literal.elts)


APP_STATES = frozenset({"state", "ctx"})
"""The one namespace an application keeps for its own values: Starlette's ``app.state``
(https://www.starlette.io/applications/#storing-state-on-the-app-instance) and Sanic's ``app.ctx``
(https://sanic.dev/en/guide/basics/app.html#application-context: "a place to attach ... e.g. a database
connection", read back as ``request.app.ctx.db``; held-out wave 54)."""


def stored_type(index, stores: list) -> Type | None:
    """The one type every ``(value, scope)`` store of a keyed mapping gives (``app["db"] = ...``, a Tornado
    handler's ``settings``), or None when a store's value is untyped or two stores disagree."""
    found = [typed for value, scope in stores if (typed := index.type_of(value, scope)) is not None]
    return agreed(found, strict=True) if found and len(found) == len(stores) else None


def agreed(found: list, *, strict: bool):
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
    """The value of the one ``name = value`` (or ``name: T = value``) of ``func`` (None when ``name`` is stored more
    than once)."""
    table = func.__dict__.get("_single")
    if table is None:
        stores: dict[str, int] = {}
        for n in nodes_of(func, ast.Name):
            if isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        table = {n.targets[0].id: n.value for n in nodes_of(func, ast.Assign) if len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and stores.get(n.targets[0].id) == 1}
        table.update({n.target.id: n.value for n in nodes_of(func, ast.AnnAssign) if n.value is not None  # x: T = v
                      and isinstance(n.target, ast.Name) and stores.get(n.target.id) == 1})
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
            todo.extend(children(node))


__all__ = ["Inference", "agreed", "stored_type"]


def _may_name(module: Module, name: str) -> bool:
    """Whether ``module``'s text may spell the identifier ``name`` (ASCII text without it cannot: Python reads an
    identifier as written, after NFKC normalisation of non-ASCII ones, https://docs.python.org/3/reference/
    lexical_analysis.html#identifiers), so a module that cannot is not walked for it."""
    return name in module.source or not module.source.isascii()


def _bound_object(func: Func) -> list[str] | None:
    """The dotted name ``obj`` of ``types.MethodType(func, obj)`` in ``func``'s module (the function bound to an
    object as a method: https://docs.python.org/3/library/types.html#types.MethodType), or None."""
    bindings = func.module.__dict__.get("_faultlib_method_types")
    if bindings is None:
        module = func.module
        found = _method_types(module_nodes_of(module, ast.Call) if _may_name(module, "MethodType") else [])
        if len({name for name, _ in found}) < len({(name, tuple(obj)) for name, obj in found}):
            found = _method_types(module_nodes(module))  # one name bound to two objects: the first in the walk wins
        bindings = module.__dict__["_faultlib_method_types"] = {}
        for name, obj in found:
            bindings.setdefault(name, obj)
    return bindings.get(func.node.name)


def _method_types(nodes: list[ast.AST]) -> list[tuple[str, list[str]]]:
    """``(function name, dotted object)`` of each ``types.MethodType(function, obj)`` among ``nodes``, in their order
    (the calls from the per-function tables, :func:`~faultlib.detect.serving.blocking.model.module_nodes_of`, with no
    walk of the module, unless a name is bound twice)."""
    return [(node.args[0].id, dotted(node.args[1])) for node in nodes
            if isinstance(node, ast.Call) and (dotted(node.func) or [""])[-1] == "MethodType" and len(node.args) == 2
            and isinstance(node.args[0], ast.Name) and dotted(node.args[1])]
