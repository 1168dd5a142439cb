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
import re

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.generics import Generics, origin
from faultlib.detect.serving.blocking.infer import CONTAINER_GETTERS, Inference
from faultlib.detect.serving.blocking.stores import Stores
from faultlib.detect.serving.blocking.choices import chosen, common_base
from faultlib.detect.serving.blocking.model import (UNPACKED, Func, Klass, Module, Type, _is_local, _is_static,
                                                   aliases, build_module, dotted, local_imports)
from faultlib.detect.serving.blocking.shapes import protocol_implementations, sets_attributes

__all__ = ["Func", "Index", "Klass", "Module", "Type", "build_module", "dotted"]

_LOADED_MODEL = re.compile(r"^load_(?:\w+_)?model$")
"""A third-party function that loads and returns a model object whose class the code does not name."""
MAX_RESOLVE_DEPTH = 12  # re-exports followed, bases walked, nested type inference


class Index:
    """Every analysed module, and name and type resolution across them.

    Args:
        modules: the modules, by dotted name (a module may be registered under several names).
    """

    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self.vocab = vocab.vocabulary()
        self._subclasses: dict[int, list[Klass]] | None = None
        self._callee: dict[tuple[int, int], Func | Klass | Module | str | None] = {}
        self._type: dict[tuple[int, int], Type | None] = {}
        self._inferring = 0  # > 0 while some function's local types are being inferred: answers are provisional
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
            scope = scope.parent
        if head in module.functions or head in module.classes:
            return self.member(module, parts)
        if head in module.imports:
            return self.lookup(".".join([module.imports[head], *rest]))
        if head in module.globals or (func is not None and _is_local(func, head)):
            return None
        for found in filter(None, map(self.modules.get, module.star_imports)):  # from pkg.mod import *
            if found is not module and (head in found.functions or head in found.classes):
                return self.member(found, parts)
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
            return self.generics.subscripted(node, module)  # Handle[SileroVad]: a generic class of the files
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
            left = self.annotation_type(node.left, module)
            return left if left is not None else self.annotation_type(node.right, module)
        parts = dotted(node)
        if not parts or parts[-1] in ("Any", "object"):
            return None  # says nothing: the call sites' arguments may (see _unannotated_param)
        found = self.resolve_parts(parts, module, None)
        return found if isinstance(found, (Klass, str)) and not (isinstance(found, str) and
                                                                 found.startswith("builtins.")) else None

    def local_types(self, func: Func) -> dict[str, Type]:
        """Types of ``func``'s parameters (annotations; ``self``/``cls``) and locals (the first assignment
        with a known type)."""
        if func._types is not None:
            return func._types
        func._types = types = {}
        self._inferring += 1
        try:
            self._infer_locals(func, types)
        finally:
            self._inferring -= 1
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
            found = self._dependency(defaults.get(arg.arg), func) or self.annotation_type(arg.annotation, func.module)
            if found is not None:
                types[arg.arg] = found
        nodes = [n for n in func.nodes if isinstance(n, (ast.Assign, ast.AnnAssign, ast.With, ast.AsyncWith))]
        for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):  # source order: x = A(); y = x | z
            if isinstance(node, ast.Assign):
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
                        found = self.generics.bound_by_with(item.context_expr, func)
                        if isinstance(node, ast.AsyncWith) and isinstance(found, str):
                            found = None  # `async with factory() as s`: an async session, not the sync type
                        if found is not None:
                            types.setdefault(item.optional_vars.id, found)

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
        self._inferring += 1  # partial answers (an attribute typed from one not typed yet) are not memoised
        try:
            for _ in range(2):  # a second pass types `self.b = self.a.x()` written before `self.a = ...` is known
                for method in klass.methods.values():
                    self._store_attributes(method, attrs, klass)
        finally:
            self._inferring -= 1
        return attrs

    def _store_attributes(self, method: Func, attrs: dict[str, Type], klass: Klass) -> None:
        """Add to ``attrs`` the types of the ``self.X = ...`` (and ``self.register_modules(X=...)``) in ``method``
        that are not typed yet."""
        self_name = method.node.args.args[0].arg if method.node.args.args else None
        for node in method.nodes:
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
            if sets_attributes(node, self_name):  # self.register_modules(unet=unet): self.unet
                for keyword in node.keywords:
                    if keyword.arg and keyword.arg not in attrs:
                        found = self.type_of(keyword.value, method)
                        if found is not None:
                            attrs[keyword.arg] = found

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

    def type_of(self, expr: ast.expr, func: Func | None, depth: int = 0) -> Type | None:
        """The type of the value of ``expr`` evaluated in ``func``, when the analysis can tell (memoised per node)."""
        if depth > MAX_RESOLVE_DEPTH:
            return None
        if func is not None and func._types is None:
            self.local_types(func)  # first, so that no placeholder below stands in for one of its answers
        key = (id(expr), id(func))
        if key in self._type:
            return self._type[key]
        self._type[key] = None  # a cycle (x = x.y) answers "unknown"
        found = self._type_of(expr, func, depth)
        if self._inferring:
            del self._type[key]
        else:
            self._type[key] = found
        return found

    def _type_of(self, expr: ast.expr, func: Func | None, depth: int) -> Type | None:
        module = func.module if func is not None else None
        if isinstance(expr, ast.Name):
            if func is not None:
                found = self.local_types(func).get(expr.id)
                if found is not None:
                    return found
                if _unannotated_param(func, expr.id):  # from the call sites, or the function it wraps
                    return self.infer.parameter(func, expr.id)
                outer = _enclosing_scope(func, expr.id)
                if outer is not None:  # a closure's free variable: the enclosing function's local
                    return self.type_of(expr, outer, depth + 1)
            if module is not None and expr.id in module.globals and not (func and _is_local(func, expr.id)):
                return self.type_of(module.globals[expr.id], None if func is None else _module_func(func), depth + 1)
            if module is not None and expr.id in module.imports and not (func and _is_local(func, expr.id)):
                return self._imported_global(module.imports[expr.id], depth)  # from app.db import engine
            return None
        if isinstance(expr, ast.Subscript) and UNPACKED in expr.__dict__ and func is not None:
            return self.stores.unpacked(expr.value, expr.__dict__[UNPACKED], func)  # a global of `a, b = load()`
        if isinstance(expr, (ast.Attribute, ast.Subscript)):
            owner = self.type_of(expr.value, func, depth + 1)
            if isinstance(owner, Klass) and isinstance(expr, ast.Attribute):
                return self.attribute_type(owner, expr.attr)
            if isinstance(owner, str):  # a sub-client: client.chat.completions, mongo["db"]["collection"]
                return self.vocab.sub_resource(owner, expr.attr if isinstance(expr, ast.Attribute) else "[]")
            if owner is None and isinstance(expr, ast.Subscript) and func is not None:
                return (self.infer.element_type(expr.value, func)  # {"pdf": PdfLoader(p), ...}[ext]
                        or self.stores.stored_element(expr.value, expr.slice, func))  # self.models[k] = Asr()
            if owner is None and func is not None and isinstance(expr, ast.Attribute):
                holder = self._module_of(expr.value, func)
                if holder is not None:  # shared.model, set by `shared.model, shared.tok = load(name)` elsewhere
                    return self.stores.module_attribute(holder, expr.attr)
            if owner is None and func is not None:  # app.state.model = Model() in a startup hook
                return self.infer.stored_attribute(expr, func)
            return None
        if isinstance(expr, ast.IfExp):  # Wrapper(x) if x else None
            return self.type_of(expr.body, func, depth + 1) or self.type_of(expr.orelse, func, depth + 1)
        if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):  # client or Client()
            for value in expr.values:
                found = self.type_of(value, func, depth + 1)
                if found is not None:
                    return found
            return None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):  # Path(__file__).parent / "model.json"
            return "pathlib.Path" if self.type_of(expr.left, func, depth + 1) == "pathlib.Path" else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):  # LangChain: prompt | model | parser
            for side in (expr.left, expr.right):
                found = self.type_of(side, func, depth + 1)
                if isinstance(found, str) and found.startswith("langchain"):
                    return "langchain_core.runnables.base.RunnableSequence"
            return None
        if isinstance(expr, ast.Await):
            return None
        if isinstance(expr, ast.Call):
            callee = expr.func
            if (dotted(callee) == ["getattr"] and len(expr.args) >= 2 and isinstance(expr.args[1], ast.Constant)
                    and isinstance(expr.args[1].value, str) and expr.args[1].value.isidentifier()):
                attr = expr.__dict__.setdefault("_faultlib_getattr", ast.copy_location(ast.Attribute(
                    value=expr.args[0], attr=expr.args[1].value, ctx=ast.Load()), expr))  # getattr(x, "a", None)
                return self.type_of(attr, func, depth + 1)
            if isinstance(callee, ast.Attribute):
                owner = self.type_of(callee.value, func, depth + 1)
                if owner is not None and callee.attr in vocab.SAME_TYPE_METHODS:
                    return owner
                if callee.attr in vocab.METHOD_RETURNS:
                    return vocab.METHOD_RETURNS[callee.attr]
                if owner is None and callee.attr in CONTAINER_GETTERS and func is not None:
                    found = self.infer.element_type(callee.value, func) or self.stores.stored_element(
                        callee.value, expr.args[0] if expr.args else None, func)  # loaders.get(ext)
                    if found is not None:
                        return found
            elif isinstance(callee, ast.Name) and func is not None:
                scope = func if _is_local(func, callee.id) else _enclosing_scope(func, callee.id)
                if scope is not None and _unannotated_param(scope, callee.id, False):
                    found = self.infer.callable_return(scope, callee.id)  # factory: Callable[..., Session]
                    if found is not None:
                        return found
            target = self.callee(callee, func, depth + 1) if func is not None else None
            if isinstance(target, Klass):
                return target
            if isinstance(target, Func):
                if isinstance(callee, ast.Attribute) and isinstance(owner, Klass) and target.cls is not None:
                    found = self.generics.returned(target, owner)  # -> T on a Manager[SileroVad]
                    if found is not None:
                        return found
                return self.return_type(target, depth + 1)
            if isinstance(target, str):
                if target in self.vocab.returns:
                    return self.vocab.returns[target]
                instance = self._imported_global(target, depth)  # SessionLocal() imported from app.database
                if isinstance(instance, str):
                    return self.vocab.returns.get(f"{instance}.__call__")
                owner, _, last = target.rpartition(".")
                if owner and self.vocab.sub_resource(owner, last) is not None and not last[:1].isupper():
                    return target  # a sub-client's method returns a request of the same client: api.people().get()
                if last == "from_pretrained" and owner.startswith("transformers."):
                    return ("transformers.PreTrainedTokenizer" if "Token" in owner or "Processor" in owner
                            else "transformers.PreTrainedModel")
                if last in vocab.LOAD_METHODS and vocab.is_third_party_instance(owner):
                    return owner  # the convention: AutoencoderKL.from_pretrained(...) is an AutoencoderKL
                if owner and _LOADED_MODEL.match(last) and not owner.startswith("builtins."):
                    return f"{owner}.Model"  # whisperx.load_model(...), mlflow.pyfunc.load_model(...): its model
                return target if last[:1].isupper() and not target.startswith("builtins.") else None
            if target is None and func is not None and not isinstance(callee, ast.Lambda):
                instance = self.type_of(callee, func, depth + 1)  # calling an instance: a sessionmaker() factory
                if isinstance(instance, str):
                    return self.vocab.returns.get(f"{instance}.__call__")
        return None

    def _module_of(self, expr: ast.expr, func: Func) -> Module | None:
        """The analysed module ``expr`` names (``shared`` after ``from modules import shared``), or None."""
        parts = dotted(expr)
        if not parts or _is_local(func, parts[0]) or parts[0] not in func.module.imports:
            return None
        found = self.resolve_parts(parts, func.module, func)
        return found if isinstance(found, Module) else None

    def _imported_global(self, name: str, depth: int) -> Type | None:
        """The type of the global ``pkg.mod.NAME`` of an analysed module (an imported variable)."""
        owner, _, last = name.rpartition(".")
        module = self.modules.get(owner)
        if module is None or last not in module.globals or depth > MAX_RESOLVE_DEPTH:
            return None
        return self.type_of(module.globals[last], self.infer.module_func(module), depth + 1)

    def _dependency(self, default: ast.expr | None, func: Func) -> Type | None:
        """``param = Depends(dep)``: FastAPI passes what ``dep`` returns (or yields), whatever the annotation says
        (https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/)."""
        if not (isinstance(default, ast.Call) and default.args and (dotted(default.func) or [""])[-1] == "Depends"):
            return None
        if not str(self.callee(default.func, func) or "").startswith("fastapi."):
            return None
        dep = self.callee(default.args[0], func)
        if isinstance(dep, Klass):
            return dep
        if not isinstance(dep, Func):
            return None
        for node in dep.nodes:
            if isinstance(node, (ast.Yield, ast.YieldFrom)) and node.value is not None:
                found = self.type_of(node.value, dep)
                if found is not None:
                    return found
        return self.return_type(dep)

    def return_type(self, func: Func, depth: int = 0) -> Type | None:
        found = self.annotation_type(func.node.returns, func.module)
        if found is not None or depth > MAX_RESOLVE_DEPTH:
            return found
        for node in func.nodes:
            if isinstance(node, ast.Return) and node.value is not None:
                found = self.type_of(node.value, func, depth + 1)
                if found is not None:
                    return found
        return None

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
            return None
        if isinstance(expr, ast.Subscript) and func is not None:  # handlers[name](...)
            return self.infer.element_callee(expr.value, func)
        if isinstance(expr, ast.IfExp) and func is not None:  # (FastLoader if fast else SlowLoader)(...)
            sides = [self.callee(side, func, depth + 1) for side in (expr.body, expr.orelse)]
            if sides[0] is sides[1] or (isinstance(sides[0], str) and sides[0] == sides[1]):
                return sides[0]
            return common_base(self, sides) if all(isinstance(s, Klass) for s in sides) else None
        if isinstance(expr, ast.Name):
            if func is not None and _is_local(func, expr.id):
                bound = aliases(func).get(expr.id)
                if bound is not None:
                    return self.callee(bound, func, depth + 1)
                if _is_cls(func, expr.id):
                    return func.cls
                picked = chosen(self, func, expr.id)
                if picked:  # Loader = AutoModel / Loader = AutoModelForCausalLM in branches: either runs
                    return picked[0] if all(c is picked[0] or c == picked[0] for c in picked) else (
                        common_base(self, picked) if all(isinstance(c, Klass) for c in picked) else picked[0])
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
        if parts and len(parts) == 2 and func is not None and _is_local(func, parts[0]):
            for klass in chosen(self, func, parts[0]):  # LoaderClass.from_pretrained(...), chosen in branches
                found = f"{klass}.{parts[1]}" if isinstance(klass, str) else self.method(klass, parts[1])
                if found is not None:
                    return found
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




def _unannotated_param(func: Func, name: str, only_unannotated: bool = True) -> bool:
    """``name`` is a parameter of ``func`` (without an annotation when ``only_unannotated``; ``Any`` and
    ``object`` say nothing about the type, so they count as none)."""
    args = func.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return not only_unannotated or arg.annotation is None or (dotted(arg.annotation) or [""])[-1] in (
                "Any", "object")
    return False



def _enclosing_scope(func: Func, name: str) -> Func | None:
    """The innermost enclosing function of which ``name`` (not local to ``func``) is a local or parameter."""
    if _is_local(func, name):
        return None
    scope = func.parent
    while scope is not None:
        if _is_local(scope, name):
            return scope
        scope = scope.parent
    return None


def _is_classmethod(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list)


def _is_cls(func: Func, name: str) -> bool:
    """``name`` is the ``cls`` parameter of a classmethod of the analysed files (the class, not an instance)."""
    if func.cls is None or not _is_classmethod(func.node):
        return False
    params = [*func.node.args.posonlyargs, *func.node.args.args]
    return bool(params) and params[0].arg == name
