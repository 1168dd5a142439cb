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
from faultlib.detect.serving.blocking.annotated_items import loop_item_types
from faultlib.detect.serving.blocking.generics import Generics, origin
from faultlib.detect.serving.blocking.infer import CONTAINER_GETTERS, Inference
from faultlib.detect.serving.blocking.iterables import iterated
from faultlib.detect.serving.blocking.caller_types import caller_type, untyped
from faultlib.detect.serving.blocking.lazy_generators import lazy_parameter
from faultlib.detect.serving.blocking.module_annotations import names_a_module, returned_types
from faultlib.detect.serving.blocking.callable_defaults import holds_function
from faultlib.detect.serving.blocking.stores import Stores
from faultlib.detect.serving.blocking.choices import chosen, common_base
from faultlib.detect.serving.blocking.library_twins import library_twin
from faultlib.detect.serving.blocking.class_values import class_valued, held_class, instance_valued
from faultlib.detect.serving.blocking.dynamic_classes import module_wildcard
from faultlib.detect.serving.blocking.module_attrs import module_held
from faultlib.detect.serving.blocking.factory_annotations import factory_made
from faultlib.detect.serving.blocking.fallbacks import fallback_names
from faultlib.detect.serving.blocking.frameworks import handler_attribute
from faultlib.detect.serving.blocking.django_models import model_manager
from faultlib.detect.serving.blocking.flask_models import model_query
from faultlib.detect.serving.blocking.library_attrs import library_attribute
from faultlib.detect.serving.blocking.partial_attrs import PartialAttributes
from faultlib.detect.serving.blocking.holders import overridden_store
from faultlib.detect.serving.blocking.task_runs import ran_task
from faultlib.detect.serving.blocking.inherited import inherited_name
from faultlib.detect.serving.blocking.overruled import overrule
from faultlib.detect.serving.blocking.passed import passed_classes, passed_names
from faultlib.detect.serving.blocking.returned_items import returned_item
from faultlib.detect.serving.blocking.model import (Func, Klass, Module, Type, names_class, _is_local, _is_static,
                                                   aliases, binds_locally, build_module, dotted, local_imports,
                                                   named_default, nodes_of, unquoted)
from faultlib.detect.serving.blocking.shapes import is_property, protocol_implementations, sets_attributes
from faultlib.detect.serving.blocking.star_exports import documented_re_export, star_lookup
from faultlib.detect.serving.blocking.subscripted_clients import known_client, qualified_type
from faultlib.detect.serving.blocking.listed_elements import listed_loop_types
from faultlib.detect.serving.blocking.literal_loop_types import literal_loop_types, loop_aliases
from faultlib.detect.serving.blocking.stored_callables import stored_callable
from faultlib.detect.serving.blocking.bound_functions import bound_function
from faultlib.detect.serving.blocking.stored_locals import local_names, stores_locals
from faultlib.detect.serving.blocking.method_aliases import bound_method
from faultlib.detect.serving.blocking.library_supers import library_base_method
from faultlib.detect.serving.blocking.own_root import under_own_name
from faultlib.detect.serving.blocking.remote_methods import remote_method
from faultlib.detect.serving.blocking.rebound_submodules import rebound_submodule
from faultlib.detect.serving.blocking.scopes import MAX_RESOLVE_DEPTH, _all_classes, _is_classmethod, _is_cls
from faultlib.detect.serving.blocking.typeof import TypeOf
from faultlib.detect.serving.blocking.built_instances import instance_names
from faultlib.detect.serving.blocking.typealiases import annotated_type, type_alias

__all__ = ["Func", "Index", "Klass", "Module", "Type", "build_module", "dotted"]


class Index(TypeOf):
    """Every analysed module, and name and type resolution across them.

    Args:
        modules: the modules, by dotted name (a module may be registered under several names).
    """

    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self.outside: frozenset[str] = frozenset()  # paths of modules read from outside the scanned directory
        self.installed = None  # the installed libraries calls are followed into (installed.Installed), or None
        self.vocab = vocab.vocabulary()
        self._subclasses: dict[int, list[Klass]] | None = None
        self._callee: dict[tuple[int, int], Func | Klass | Module | str | None] = {}
        self._type: dict[tuple[int, int], Type | None] = {}
        self._inferring = 0  # > 0 while some function's local types are being inferred: answers are provisional
        self._partial = PartialAttributes()  # locals typed off half-typed class attributes (partial_attrs.py)
        self.infer = Inference(self)
        self.generics = Generics(self)
        self.stores = Stores(self)

    def distinct_modules(self) -> list[Module]:
        """Every analysed module once (:attr:`modules` may register one under several names)."""
        return list({id(m): m for m in self.modules.values()}.values())

    # -- names ------------------------------------------------------------------------------------
    def lookup(self, name: str, depth: int = 0) -> Func | Klass | Module | str:
        """What the dotted ``name`` denotes: a function, class or module of the analysed files,
        or, for anything else, the canonical dotted name itself."""
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.modules.get(".".join(parts[:cut]))
            rebound = rebound_submodule(self, parts, depth) if module is not None and cut == len(parts) else None
            if rebound is not None:  # from pkg.mod import mod as mod in pkg/__init__.py: pkg.mod is that function
                return rebound
            if module is not None and not documented_re_export(self, module, parts[cut:], name):
                return self.member(module, parts[cut:], depth) or name
            if module is not None:
                return name
        return (under_own_name(self, parts, depth) if depth < MAX_RESOLVE_DEPTH else None) or name

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
            method = self.method(klass, tail[0])  # else Engine.from_config inherited from a third-party base
            return method if method is not None and len(tail) == 1 else (
                inherited_name(self, klass, tail[0]) if len(tail) == 1 and method is None else None)
        if head in module.imports and depth < MAX_RESOLVE_DEPTH:
            return self.lookup(".".join([module.imports[head], *tail]), depth + 1)
        bound = bound_method(self, module, head) if head in module.globals and not tail else None
        if bound is not None:  # from . import upload, where upload = uploader.upload_file
            return bound
        return star_lookup(self, module, rest, depth) if depth < MAX_RESOLVE_DEPTH else None  # a re-export

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
                parts = dotted(base.value if isinstance(base, ast.Subscript) else base)  # Runnable[In, Out]
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
        while scope is not None:  # nested defs of the enclosing functions, and their own imports
            if head in scope.nested:
                return scope.nested[head] if not rest else None
            imported = local_imports(scope).get(head)
            if imported is not None:  # `from llama_cpp import Llama` inside a function named Llama
                return self.lookup(".".join([imported, *rest]))
            if binds_locally(scope, head) and (head in module.functions or head in module.classes):
                default = named_default(scope, head)  # def run(fetch=fetch): the enclosing scope's fetch
                return self.resolve_parts([default, *rest], module, scope.parent) if default is not None else None
            scope = scope.parent
        if head in module.functions or head in module.classes:
            if head in module.imports and head in fallback_names(module):  # the stub of a failed import: not here
                imported = self.lookup(".".join([module.imports[head], *rest]))
                if isinstance(imported, (Func, Klass)):
                    return imported
            return self.member(module, parts)
        if head in module.imports:
            return self.lookup(".".join([module.imports[head], *rest]))
        if head in module.globals and not rest and not (func is not None and _is_local(func, head)):
            return bound_method(self, module, head)  # upload = uploader.upload_file; upload(path)
        if head in module.globals or (func is not None and _is_local(func, head)):
            return None
        found = star_lookup(self, module, parts, 0)  # from pkg.mod import *
        if found is not None:
            return found
        if hasattr(builtins, head):
            return ".".join(["builtins", head, *rest])
        return None

    # -- types ------------------------------------------------------------------------------------
    def annotation_type(self, node: ast.expr | None, module: Module, depth: int = 0) -> Type | None:
        node = unquoted(node)
        if node is None or depth > MAX_RESOLVE_DEPTH:
            return None
        alias = type_alias(node, module, self.modules)
        if alias is not None:  # ModelFuture = Future[Model] at module level (or imported), then `x: ModelFuture`
            return self.annotation_type(alias[0], alias[1], depth + 1)
        if isinstance(node, ast.Subscript):  # Optional[X], list[X]: only Optional is a value of X
            inner = annotated_type(node)  # Annotated[Session, Depends(get_session)]: a Session
            if inner is not None:
                return self.annotation_type(inner, module, depth + 1)
            parts = dotted(node.value)
            if parts and parts[-1] == "Optional" or qualified_type(node) is not None:  # ClassVar[X], Final[X]
                return self.annotation_type(node.slice, module, depth + 1)
            return self.generics.subscripted(node, module) or known_client(self, node, module)  # Handle[SileroVad]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
            left = self.annotation_type(node.left, module, depth + 1)
            return left if left is not None else self.annotation_type(node.right, module, depth + 1)
        parts = dotted(node)
        if not parts or parts[-1] in ("Any", "object"):
            return None  # says nothing: the call sites' arguments may (see _unannotated_param)
        found = self.resolve_parts(parts, module, None)
        if isinstance(found, str) and names_a_module(self.vocab, found):
            return None  # `driver: webdriver`: a package, not a class (module_annotations)
        if isinstance(found, str) and (made := factory_made(self.vocab, found)) is not None:
            return made  # `-> boto3.client`: a factory function, so what it makes (factory_annotations)
        if isinstance(found, str) and found.rpartition(".")[2] == self.vocab.returns.get(found, "").rpartition(".")[2]:
            return self.vocab.returns[found]  # openpyxl.Workbook: the class re-exported from openpyxl.workbook...
        if isinstance(found, str) and (same := f"{found}.{found.rpartition('.')[2]}") in self._returned():
            return same  # `img: Image` after `from PIL import Image`: the module named for its class PIL.Image.Image
        if isinstance(found, str) and not found.startswith("builtins."):
            return self.vocab.spelling(found)  # pandas.core.frame.DataFrame: the vocabulary's pandas.DataFrame
        return found if isinstance(found, Klass) else None

    def _returned(self) -> frozenset[str]:
        """Every type the vocabulary says a call returns (the classes it knows instances of)."""
        return returned_types(self.vocab)

    def local_types(self, func: Func) -> dict[str, Type]:
        """Types of ``func``'s parameters (annotations; ``self``/``cls``) and locals (the first assignment
        with a known type)."""
        if func._types is not None:
            return func._types
        func._types = types = {}
        self._inferring += 1
        outer = self._partial.locals_started()
        try:
            self._infer_locals(func, types)
        finally:
            self._inferring -= 1
            self._partial.locals_done(func, outer)
        return types

    def _infer_locals(self, func: Func, types: dict[str, Type]) -> None:
        args = func.node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
        defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
        for i, arg in enumerate(params):
            if i == 0 and func.cls is not None and not _is_static(func.node):
                if not _is_classmethod(func.node):  # ``cls`` is the class itself: see callee()
                    types[arg.arg] = func.cls
                continue
            found = self._dependency(defaults.get(arg.arg), func) or (
                None if holds_function(self, defaults.get(arg.arg), func)  # renderer: Alias = render_text
                else self.annotation_type(arg.annotation, func.module))
            if found is None and untyped(arg.annotation):  # `embedder: Any` every caller fills with one class
                found = caller_type(self, func, arg.arg)
            # def build(segments: Iterable): [s for s in segments] -- a lazy iterable every caller passes
            found = lazy_parameter(self, func, arg) or found
            if found is not None:
                types[arg.arg] = found
        nodes = nodes_of(func, (ast.Assign, ast.AnnAssign, ast.With, ast.AsyncWith, ast.NamedExpr))
        for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):  # source order: x = A(); y = x | z
            if isinstance(node, ast.NamedExpr):  # `if conn := connect(path):` binds like `conn = connect(path)`
                if node.target.id not in types and (found := self.type_of(node.value, func)) is not None:
                    types[node.target.id] = found
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id not in types:
                        found = self.type_of(node.value, func)
                        if found is not None:
                            types[target.id] = found
                    elif isinstance(target, (ast.Tuple, ast.List)):  # model, tokenizer = load(name)
                        for i, elt in enumerate(target.elts):
                            if isinstance(elt, ast.Name) and elt.id not in types:
                                found = self.stores.unpacked(node.value, i, func)
                                if found is not None:
                                    types[elt.id] = found
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found = self.annotation_type(node.annotation, func.module) or (
                    self.type_of(node.value, func) if node.value is not None else None)
                if found is not None:
                    types.setdefault(node.target.id, found)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        found = self.generics.bound_by_with(item.context_expr, func, isinstance(node, ast.AsyncWith))
                        if isinstance(node, ast.AsyncWith) and isinstance(found, str):
                            found = None  # `async with factory() as s`: an async session, not the sync type
                        if found is not None:
                            types.setdefault(item.optional_vars.id, found)
        for node in nodes_of(func, (ast.For, ast.comprehension)):  # for page in doc / enumerate(doc): a library
            for name, source in iterated(node):  # object whose items have a known type
                owner = self.type_of(source, func) if name not in types else None
                if isinstance(owner, str) and f"{owner}.__iter__" in self.vocab.returns:
                    types[name] = self.vocab.returns[f"{owner}.__iter__"]
        types.update(loop_item_types(self, func, types))  # for s in cls._open.values(), _open: dict[str, Store]
        types.update(literal_loop_types(self, func, types))  # for path in [DEFAULT, folder / "app.yaml"]
        types.update(listed_loop_types(self, func, types))  # for w in self.workers, [Worker(p) for p in ports]
        types.update(loop_aliases(func, types))  # current = w, inside that loop
        overrule(self, func, types, [a.arg for a in params if a.annotation is not None and a.arg not in defaults])

    def attributes(self, klass: Klass) -> dict[str, Type]:
        """Types of ``self.X`` attributes: class-level annotations and assignments, ``self.X = ...`` in any method."""
        if klass._attrs is not None:
            self._partial.read(klass)
            return klass._attrs
        self._partial.opening(klass)
        try:
            return self._typed_attributes(klass)
        finally:
            self._partial.closing(klass)

    def _typed_attributes(self, klass: Klass) -> dict[str, Type]:
        klass._attrs = attrs = class_valued(self, klass)  # codec: type[Codec] = AvCodec: the class that runs
        for stmt in klass.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id not in attrs:
                found = self.annotation_type(stmt.annotation, klass.module)
                if found is not None:
                    attrs[stmt.target.id] = found
        self._inferring += 1  # partial answers (an attribute typed from one not typed yet) are not memoised
        try:
            for _ in range(2):  # a second pass types `self.b = self.a.x()` written before `self.a = ...` is known
                for method in klass.methods.values():
                    self._store_attributes(method, attrs, klass)
                for name, getter in klass.methods.items():  # `self.model` read through a @property: what it
                    if name not in attrs and not getter.is_async and is_property(getter):  # returns; in each pass:
                        found = self.return_type(getter)  # a lazy `self._t = self.db.Table(n)` needs `db` typed
                        if found is not None:
                            attrs[name] = found
            for name, found in instance_valued(self, klass).items():  # llm = Llama(...) in the class body
                attrs.setdefault(name, found)  # after the methods' stores: `self.llm = ...` there wins
        finally:
            self._inferring -= 1
        return attrs

    def _store_attributes(self, method: Func, attrs: dict[str, Type], klass: Klass) -> None:
        """Add to ``attrs`` the types of the ``self.X = ...`` (``ClassName.X = ...`` too: a cache shared by the
        instances; ``obj.X = ...`` of an instance a factory builds in a local, built_instances.py) and ``self.register_modules(X=...)`` in ``method`` that are not typed yet."""
        self_name = method.node.args.args[0].arg if method.node.args.args else None
        for node in nodes_of(method, (ast.Assign, ast.AnnAssign, ast.Call)):  # a store, or a setter's call
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) else [])
            for target in targets:
                if isinstance(target, ast.Tuple) and self_name:  # self.tok, self.model = load(name)
                    attrs.update((t.attr, typed) for i, t in enumerate(target.elts) if isinstance(t, ast.Attribute)
                                 and dotted(t.value) == [self_name] and t.attr not in attrs
                                 and (typed := self.stores.unpacked(node.value, i, method)) is not None)
                elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.attr not in attrs
                        and (target.value.id == klass.node.name or target.value.id in instance_names(method, klass))):
                    found = (self.annotation_type(node.annotation, klass.module)
                             if isinstance(node, ast.AnnAssign) else None)
                    value = getattr(node, "value", None)
                    found = found or (self.type_of(value, method) if value is not None else None)
                    if found is not None:
                        attrs[target.attr] = found
            if stores_locals(node, self_name):  # self.__dict__.update(locals()): every local is an attribute
                types = self.local_types(method)
                attrs.update((name, types[name]) for name in local_names(method, self_name)
                             if name not in attrs and types.get(name) is not None)
            if sets_attributes(node, self_name):  # self.register_modules(unet=unet): self.unet
                for keyword in node.keywords:
                    if keyword.arg and keyword.arg not in attrs:
                        found = self.type_of(keyword.value, method)
                        if found is not None:
                            attrs[keyword.arg] = found

    def attribute_type(self, klass: Klass, name: str, depth: int = 0) -> Type | None:
        """The type of ``self.<name>`` for an instance of ``klass``: its own attributes, then its bases',
        then (``self`` may be a subclass instance) those of its subclasses in the analysed files."""
        found = self.attributes(klass).get(name) or remote_method(self, klass, name)  # a Modal method's handle
        if found is not None or depth > MAX_RESOLVE_DEPTH:
            return found
        if depth == 0:  # self.model = self.load_model() in a base; this class's load_model says what it is
            found = overridden_store(self, klass, name)
            if found is not None:
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
            for sub in self.subclasses(klass):  # a mixin's `self.client`, set by a sibling base of the class that
                found = self.attribute_type(sub, name, depth + 1)  # composes them (composed_mixins.py)
                if found is not None:
                    return found
            return (handler_attribute(self, klass, name) or model_query(self, klass, name)  # Model.query
                    or model_manager(self, klass, name)  # a Django model's default manager, Model.objects
                    or library_attribute(self, klass, name))  # Base(DeclarativeBase).metadata (library_attrs.py)
        return None

    def subclasses(self, klass: Klass) -> list[Klass]:
        """Classes of the analysed files that have ``klass`` among their bases (transitively)."""
        if self._subclasses is None:
            self._subclasses = {}
            every = {id(k): k for m in self.distinct_modules() for k in _all_classes(m)}
            for k in every.values():
                for base in self.bases(k):
                    if isinstance(base, Klass):
                        self._subclasses.setdefault(id(base), []).append(k)
            for protocol, found in protocol_implementations(self, list(every.values())):
                known = self._subclasses.setdefault(id(protocol), [])
                known += [k for k in found if k not in known]
        out, todo = [], list(self._subclasses.get(id(origin(klass)), []))
        while todo and len(out) < 64:
            k = todo.pop(0)
            if k not in out:
                out.append(k)
                todo.extend(self._subclasses.get(id(k), []))
        return out

    def callee(self, expr: ast.expr, func: Func | None, depth: int = 0) -> Func | Klass | Module | str | None:
        """What a call of ``expr`` calls: a function or class of the analysed files, a dotted name
        (``time.sleep``; ``requests.Session.get`` for a method of a typed instance), or None. A local bound to a
        function value (``loader=joblib.load``, ``functools.partial(f, ...)``, ``getattr(obj, "name")``) calls
        what it is bound to. Memoised per node."""
        if depth > MAX_RESOLVE_DEPTH:
            return None
        if func is not None and func._types is None:
            self.local_types(func)
        key = (id(expr), id(func))
        if key in self._callee:
            return self._callee[key]
        self._callee[key] = None  # a cycle of aliases answers "unknown"
        found = self._callee_of(expr, func, depth)
        if self._inferring:
            del self._callee[key]
        else:
            self._callee[key] = found
        return found

    def _callee_of(self, expr: ast.expr, func: Func | None, depth: int) -> Func | Klass | Module | str | None:
        module = func.module if func is not None else None
        if isinstance(expr, ast.Call):  # functools.partial(f, ...)(...), getattr(obj, "name")(...)
            parts = dotted(expr.func)
            if parts and parts[-1] == "partial" and expr.args:
                return self.callee(expr.args[0], func, depth + 1)
            if (parts == ["getattr"] and len(expr.args) >= 2 and isinstance(expr.args[1], ast.Constant)
                    and isinstance(expr.args[1].value, str) and expr.args[1].value.isidentifier()):
                attr = ast.Attribute(value=expr.args[0], attr=expr.args[1].value, ctx=ast.Load())
                ast.copy_location(attr, expr)
                expr.__dict__.setdefault("_faultlib_getattr", attr)  # keep the node alive: memo keys are ids
                return self.callee(expr.__dict__["_faultlib_getattr"], func, depth + 1)
            if isinstance(expr.func, ast.Attribute) and expr.func.attr in CONTAINER_GETTERS and func is not None:
                return self.infer.element_callee(expr.func.value, func)  # handlers.get(name)(...)
            return module_wildcard(self, expr, func)  # getattr(ccxt, exchange_id)(...): "ccxt.*"
        if isinstance(expr, ast.Subscript) and func is not None:  # handlers[name](...); pairs[ext][0](...)
            return (self.infer.element_callee(expr.value, func) or self.infer.item_callee(expr, func)
                    or returned_item(self, expr, func))  # tok, embed = make_pipeline(): item 1 of its return
        if isinstance(expr, ast.IfExp) and func is not None:  # (FastLoader if fast else SlowLoader)(...)
            sides = [self.callee(side, func, depth + 1) for side in (expr.body, expr.orelse)]
            if sides[0] is sides[1] or (isinstance(sides[0], str) and sides[0] == sides[1]):
                return sides[0]
            return common_base(self, sides) if all(isinstance(s, Klass) for s in sides) else library_twin(sides)
        if isinstance(expr, ast.Name):
            if func is not None and _is_local(func, expr.id):
                bound = aliases(func).get(expr.id)
                found = self.callee(bound, func, depth + 1) if bound is not None else None
                if bound is not None and (not names_class(bound) or (isinstance(found, str) and (
                        found in self.vocab.calls or self.vocab.family_kind(found, "__init__") is not None))):
                    return found  # model=YOLO: a library class whose construction blocks; others: the rules below
                if _is_cls(func, expr.id):
                    return func.cls
                picked = chosen(self, func, expr.id)
                if picked:  # Loader = AutoModel / Loader = AutoModelForCausalLM in branches: either runs
                    return picked[0] if all(c is picked[0] or c == picked[0] for c in picked) else (
                        common_base(self, picked) if all(isinstance(c, Klass) for c in picked) else picked[0])
                named = passed_names(self, func, expr.id)
                if named:  # _batch(op=self.collection.upsert): op(...) runs what every caller passes
                    return named[0]
            if func is not None and expr.id in self.local_types(func):
                return None  # a local value called: see instance_type()
            return self.resolve_parts([expr.id], module, func) if module is not None else None
        if not isinstance(expr, ast.Attribute):
            return None
        if isinstance(expr.value, ast.Name) and func is not None and _is_cls(func, expr.value.id):
            return self.method(func.cls, expr.attr)
        if (isinstance(expr.value, ast.Call) and isinstance(expr.value.func, ast.Name) and expr.value.func.id == "super"
                and func is not None and func.cls is not None):
            for base in self.bases(func.cls):
                if isinstance(base, Klass):
                    found = self.method(base, expr.attr)
                    if found is not None:
                        return found
            return library_base_method(self, func.cls, expr.attr)  # super().add_documents(...) of a library's store
        held = module_held(expr.value, func)
        if held is not None:  # self._torch.load, or torch.no_grad after torch = self._torch: the module's function
            return f"{held}.{expr.attr}"
        owner = self.type_of(expr.value, func, depth + 1) if func is not None else None
        if isinstance(owner, Klass):  # a method, or a library callable the instance holds (self.Reader = Reader)
            return (self.method(owner, expr.attr) or stored_callable(self, owner, expr.attr)
                    or held_class(self, owner, expr.attr)  # self.scheduler_class(...): the class it holds
                    or bound_function(self, owner, expr.attr))  # db.name = name.__get__(db) at startup
        if isinstance(owner, str):  # a module of the analysed files a helper imported and returned: its member
            return self.lookup(f"{owner}.{expr.attr}") if owner in self.modules else f"{owner}.{expr.attr}"
        parts = dotted(expr)
        if parts and len(parts) == 2 and func is not None and _is_local(func, parts[0]):
            for klass in chosen(self, func, parts[0]):  # LoaderClass.from_pretrained(...), chosen in branches
                found = f"{klass}.{parts[1]}" if isinstance(klass, str) else self.method(klass, parts[1])
                if found is not None:
                    return found
            if parts[0] not in self.local_types(func):  # a class its callers hand in: ORTClass.from_pretrained(...)
                for klass in passed_classes(self, func, parts[0]):
                    found = f"{klass}.{parts[1]}" if isinstance(klass, str) else self.method(klass, parts[1])
                    if found is not None:
                        return found
        if parts and module is not None and not (func is not None and parts[0] in self.local_types(func)):
            found = self.resolve_parts(parts, module, func)
            if found is not None:
                return found
        return ran_task(self, expr, func)  # crawl.run(url): a Celery task's body, run inline
