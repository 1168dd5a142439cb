"""What the static analysis knows of each file: its functions, classes, imports and globals, from the AST.

Qualified names follow ``__qualname__`` (``Service.predict``, ``outer.<locals>.helper``); imports map
each bound name to the dotted name it stands for, relative imports resolved against the module's
package. :mod:`faultlib.detect.serving.blocking.index` resolves names and types across these modules.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Union

from faultlib.detect.serving.blocking.dynamic_classes import is_dynamic_lookup
from faultlib.detect.serving.blocking.module_flags import taken_suite
from faultlib.pyflow.walk import CHILDLESS, children, walk


@dataclass(eq=False)
class Func:
    """A ``def`` or ``async def``: its node, qualified name (as ``__qualname__``), class and enclosing function."""

    module: "Module"
    node: ast.FunctionDef | ast.AsyncFunctionDef
    qualname: str
    cls: "Klass | None" = None
    parent: "Func | None" = None
    nested: dict[str, "Func"] = field(default_factory=dict)
    _types: dict[str, "Type"] | None = None
    _locals: frozenset[str] | None = None
    _aliases: dict[str, ast.expr] | None = None
    _nodes: list[ast.AST] | None = None
    _off_loop: bool | None = None  # decorated to run in a worker thread (wrappers.runs_off_loop)
    _hands_off: dict[str, bool] = field(default_factory=dict)  # parameters run in a worker thread (wrappers.hands_off)

    @property
    def nodes(self) -> list[ast.AST]:
        """Every node of the body (not descending into nested functions, lambdas or classes), listed once."""
        if self._nodes is None:
            self._nodes = _own_nodes(self.node)
        return self._nodes

    @property
    def is_async(self) -> bool:
        return isinstance(self.node, ast.AsyncFunctionDef)

    @property
    def where(self) -> str:
        return f"{self.module.path}:{self.node.lineno}"


@dataclass(eq=False)
class Klass:
    """A ``class`` of the analysed files."""

    module: "Module"
    node: ast.ClassDef
    qualname: str
    methods: dict[str, Func] = field(default_factory=dict)
    _attrs: dict[str, "Type"] | None = None
    _bases: list["Type"] | None = None


Type = Union["Klass", str]
"""A class of the analysed files, or the dotted name of any other type."""


@dataclass(eq=False)
class Module:
    """One analysed file."""

    name: str
    path: str
    tree: ast.Module
    source: str
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, Func] = field(default_factory=dict)
    classes: dict[str, Klass] = field(default_factory=dict)
    globals: dict[str, ast.expr] = field(default_factory=dict)
    attr_values: dict[str, ast.expr] = field(default_factory=dict)
    attr_stores: list[tuple[str, ast.expr]] = field(default_factory=list)
    attr_writes: list[tuple[ast.Attribute, ast.expr, int | None, "Func | None"]] = field(default_factory=list)
    """Every ``x.attr = value`` (and ``x.a, y.b = value``: the position in the tuple) with the function it is in."""
    global_values: dict[str, list[tuple[ast.expr, "Func | None"]]] = field(default_factory=dict)
    """Every value a module global is assigned: at the top level (None) or in a function declaring it global."""
    global_annotations: dict[str, ast.expr] = field(default_factory=dict)
    """The annotation of each module global declared without a value (``client: docker.DockerClient``)."""
    star_imports: list[str] = field(default_factory=list)
    all_functions: list[Func] = field(default_factory=list)
    _lines: list[str] | None = None
    _tops: frozenset[str] | None = None

    @property
    def top_packages(self) -> frozenset[str]:
        """The top-level packages the module imports at its top (``textual`` for ``from textual.app import App``)."""
        if self._tops is None:
            self._tops = frozenset(target.split(".")[0] for target in self.imports.values())
        return self._tops

    def segment(self, node: ast.AST) -> str | None:
        """The source text of ``node`` (as :func:`ast.get_source_segment`, the file split into lines once)."""
        if self._lines is None:
            self._lines = self.source.splitlines(keepends=True)
        try:
            first, last = node.lineno - 1, node.end_lineno - 1
            start, end = node.col_offset, node.end_col_offset
        except AttributeError:
            return None
        if last >= len(self._lines) or first < 0 or end is None:
            return None
        if first == last:
            return self._lines[first].encode()[start:end].decode(errors="replace")
        parts = [self._lines[first].encode()[start:].decode(errors="replace"), *self._lines[first + 1:last],
                 self._lines[last].encode()[:end].decode(errors="replace")]
        return "".join(parts)

    @property
    def package(self) -> str:
        return self.name if self.path.endswith("__init__.py") else self.name.rpartition(".")[0]


#: the nodes that are or hold statements: a statement, an ``except`` clause, a ``case`` of ``match``
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


class _Collector(ast.NodeVisitor):
    """Fills a :class:`Module`: qualified names as CPython builds them, imports, globals."""

    def __init__(self, module: Module):
        self.m = module
        self.stack: list[Func | Klass] = []

    def generic_visit(self, node: ast.AST) -> None:
        """Descend into the statements of ``node`` only, in field order: every node this visitor handles is a
        statement, and an expression holds none (a lambda's body is an expression), so walking the expressions of
        a file (most of its nodes) would find nothing."""
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _HOLDS_STATEMENTS):
                        self.visit(item)

    def _qualname(self, name: str) -> str:
        if not self.stack:
            return name
        top = self.stack[-1]
        return f"{top.qualname}.<locals>.{name}" if isinstance(top, Func) else f"{top.qualname}.{name}"

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        top = self.stack[-1] if self.stack else None
        func = Func(self.m, node, self._qualname(node.name), cls=top if isinstance(top, Klass) else None,
                    parent=top if isinstance(top, Func) else None)
        if top is None:
            self.m.functions[node.name] = func
        elif isinstance(top, Klass):
            top.methods[node.name] = func
        else:
            top.nested[node.name] = func
        self.m.all_functions.append(func)
        self.stack.append(func)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _def

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        klass = Klass(self.m, node, self._qualname(node.name))
        if not self.stack:
            self.m.classes[node.name] = klass
        self.stack.append(klass)
        self.generic_visit(node)
        self.stack.pop()

    def visit_If(self, node: ast.If) -> None:
        taken = taken_suite(self.m, node) if not self.stack else None
        if taken is None:  # USE_GPU = True; if USE_GPU: ... else: ...: the other suite never runs
            self.generic_visit(node)
        else:
            for stmt in taken:
                self.visit(stmt)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.m.imports[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                self.m.imports.setdefault(head, head)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            package = self.m.package.split(".") if self.m.package else []
            package = package[:len(package) - (node.level - 1)] if node.level > 1 else package
            base = ".".join([*package, *([node.module] if node.module else [])])
        for alias in node.names:
            if alias.name == "*" and base:
                self.m.star_imports.append(base)  # from pkg.mod import *: names resolved there when not found here
            if alias.name != "*":
                self.m.imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name

    def visit_Assign(self, node: ast.Assign) -> None:
        scope = self.stack[-1] if self.stack and isinstance(self.stack[-1], Func) else None
        for target in node.targets:
            self._store(target, node.value)
            if isinstance(target, ast.Attribute):
                self.m.attr_writes.append((target, node.value, None, scope))
            elif isinstance(target, (ast.Tuple, ast.List)):
                self.m.attr_writes.extend((elt, node.value, i, scope) for i, elt in enumerate(target.elts)
                                          if isinstance(elt, ast.Attribute))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._store(node.target, node.value)
        elif not self.stack and isinstance(node.target, ast.Name):  # `client: DockerClient`, set by a function
            self.m.global_annotations[node.target.id] = node.annotation
        self.generic_visit(node)

    def _store(self, target: ast.expr, value: ast.expr) -> None:
        """Module globals (also those a function declares ``global`` and assigns, when the module level binds
        none or ``None``), ``a.b.c = value`` by dotted path (``app.state.model = Model()``), and every
        ``x.attr = value`` by attribute name (a handler stored on an object)."""
        top = self.stack[-1] if self.stack else None
        if isinstance(target, (ast.Tuple, ast.List)) and top is None:  # model, kwargs = Model.load(...)
            for i, elt in enumerate(target.elts):
                if isinstance(elt, ast.Name):
                    item = ast.Subscript(value=value, slice=ast.Constant(i), ctx=ast.Load())
                    item.__dict__[UNPACKED] = i  # the item of an unpacked value: see Inference.unpacked
                    self.m.globals[elt.id] = ast.copy_location(item, value)
        if isinstance(target, ast.Name):
            if top is None or (isinstance(top, Func) and target.id in _declared_global(top)):
                self.m.global_values.setdefault(target.id, []).append((value, top))
            if top is None:
                self.m.globals[target.id] = value
            elif isinstance(top, Func) and target.id in _declared_global(top):
                old = self.m.globals.get(target.id)
                if old is None or (isinstance(old, ast.Constant) and old.value is None):
                    self.m.globals[target.id] = value
        elif isinstance(target, ast.Attribute):
            self.m.attr_stores.append((target.attr, value))
            parts = dotted(target)
            if parts and parts[0] not in ("self", "cls"):
                self.m.attr_values.setdefault(".".join(parts), value)


UNPACKED = "_faultlib_unpacked"


def _declared_global(func: Func) -> frozenset[str]:
    found = func.__dict__.get("_global_names")
    if found is None:
        found = func.__dict__["_global_names"] = frozenset(
            name for n in nodes_of(func, ast.Global) for name in n.names)
    return found


def build_module(name: str, path: str, source: str, tree: ast.Module) -> Module:
    module = Module(name, path, tree, source)
    _Collector(module).visit(tree)
    return module


def unquoted(node: ast.expr | None) -> ast.expr | None:
    """An annotation with a string annotation (``"Model"``, PEP 484 forward reference) parsed into its
    expression; ``None`` for no annotation or a string that is not an expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    return node


def dotted(expr: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return parts[::-1]


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _is_local(func: Func, name: str) -> bool:
    """Whether ``name`` is a parameter or an assigned local of ``func`` (computed once per function)."""
    if func._locals is None:
        args = func.node.args
        names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
        names.update(n.id for n in nodes_of(func, ast.Name) if isinstance(n.ctx, ast.Store))
        func._locals = frozenset(names)
    return name in func._locals


def binds_locally(func: Func, name: str) -> bool:
    """Whether ``name`` is a local variable of ``func`` -- a parameter, or a target of an assignment, a loop or a
    ``with`` -- not declared ``global``. Such a name is local in the whole body, so it hides the module's function,
    class or import of the same name there (Python reference, "Naming and binding": "If a name is bound in a block,
    it is a local variable of that block, unless declared as nonlocal or global")."""
    return _is_local(func, name) and name not in _declared_global(func)


def named_default(func: Func, name: str) -> str | None:
    """The name a parameter ``name`` of ``func`` defaults to (``fetch`` of ``def handle(url, fetch=fetch)``) when the
    body never rebinds it, else None. A default is evaluated where the ``def`` runs, in the enclosing scope (Python
    reference, "Function definitions": "default parameter values are evaluated from left to right when the function
    definition is executed"), so the parameter holds the enclosing scope's ``fetch`` unless a caller passes another."""
    args = func.node.args
    pairs = [*zip([*args.posonlyargs, *args.args][::-1], args.defaults[::-1]), *zip(args.kwonlyargs, args.kw_defaults)]
    default = next((d for a, d in pairs if a.arg == name), None)
    if not isinstance(default, ast.Name) or any(n.id == name and isinstance(n.ctx, ast.Store)
                                                for n in nodes_of(func, ast.Name)):
        return None
    return default.id


def aliases(func: Func) -> dict[str, ast.expr]:
    """Locals bound to a *function value*, not a call's result: a parameter's default (``loader=joblib.load``)
    or the only assignment of a name (``fetch = requests.get``, ``wait = functools.partial(time.sleep, 1)``,
    ``op = getattr(client, "query")``). Names assigned more than once are left out (unknown)."""
    if func._aliases is not None:
        return func._aliases
    args = func.node.args
    found: dict[str, ast.expr] = {}
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        found[arg.arg] = default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            found[arg.arg] = default
    counts: dict[str, int] = {}
    for node in nodes_of(func, ast.Name):
        if isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    for node in nodes_of(func, ast.Assign):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and counts.get(node.targets[0].id) == 1):
            found[node.targets[0].id] = node.value
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
              and isinstance(node.value, (ast.Subscript, ast.Call))):  # a, b = LOADERS[ext] / = make(): item i
            for i, elt in enumerate(node.targets[0].elts):
                if isinstance(elt, ast.Name) and counts.get(elt.id) == 1:
                    found[elt.id] = ast.copy_location(ast.Subscript(value=node.value, slice=ast.Constant(i),
                                                                    ctx=ast.Load()), node.value)
    func._aliases = {name: value for name, value in found.items() if is_function_value(value) or names_class(value)}
    return func._aliases


def names_class(expr: ast.expr) -> bool:
    """A bare name spelled like a class (``YOLO``, ``Detector``): a parameter defaulting to it (``model=YOLO``) or a
    local bound to it once (``factory = YOLO``) is that class, and calling the name constructs it (an alias is only
    read where the name is called, so a capitalised constant, never called, changes nothing). :meth:`~faultlib.detect.
    serving.blocking.index.Index.callee` takes it only for a library class whose constructor the vocabulary lists as
    blocking (``ultralytics.YOLO`` reads its weights): a class of the analysed files given as a default (a pluggable
    ``storage=SQLiteStorage``) keeps the rules that judge its construction where it is built, and an installed
    library's own helper classes (followed into its source) are not reached through such a name (PEP 8: "Class names should normally use the CapWords convention",
    https://peps.python.org/pep-0008/#class-names). Held-out wave 73: a detector whose ``__init__(self, model=YOLO,
    model_path=...)`` builds ``model(model_path)``, reached from an async endpoint."""
    return isinstance(expr, ast.Name) and expr.id[:1].isupper()


def is_function_value(expr: ast.expr) -> bool:
    """A reference to a function (``a.b``), ``functools.partial(f, ...)``, ``getattr(obj, "name")``, or a class
    chosen at run time (``Loader = FastLoader if fast else SlowLoader``)."""
    if isinstance(expr, ast.Attribute):
        return dotted(expr) is not None
    if isinstance(expr, ast.IfExp):
        return all(isinstance(side, ast.Name) or is_function_value(side) for side in (expr.body, expr.orelse))
    if isinstance(expr, ast.Subscript):  # LOADERS[ext]: what it calls is known only when the container is a literal
        return isinstance(expr.value, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))  # or make()[1]: a return
    if isinstance(expr, ast.Call) and expr.args:
        parts = dotted(expr.func)
        if parts and parts[-1] == "partial":
            return True
        return (parts == ["getattr"] and len(expr.args) >= 2 and isinstance(expr.args[1], ast.Constant)
                and isinstance(expr.args[1].value, str)) or is_dynamic_lookup(expr)
    return False


_LEAVES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _own_nodes(node: ast.AST) -> list[ast.AST]:
    """Every node of a function's body, not descending into nested functions, lambdas or classes (depth first,
    last child first)."""
    todo = children(node) if not isinstance(node, ast.Module) else list(node.body)
    out: list[ast.AST] = []
    pop, push, extend = todo.pop, out.append, todo.extend
    while todo:
        child = pop()
        push(child)
        if child.__class__ is ast.Name:  # its only child, listed next as the walk would
            if isinstance(getattr(child, "ctx", None), ast.AST):
                push(child.ctx)
        elif child.__class__ not in CHILDLESS and not isinstance(child, _LEAVES):
            extend(children(child))
    return out


def nodes_of(func: Func, kind: type | tuple[type, ...]) -> list[ast.AST]:
    """The nodes of ``func.nodes`` that are instances of ``kind``, in that order (listed once per function and kind:
    the analyses ask the same function for its assignments or annotations at many of its calls). Answered from the
    function's nodes sorted by class (:func:`_by_class`, one pass), so a pass that wants a few kinds of node does
    not test every node of the body (stop 47's profile: a dozen such passes were a tenth of ``check blocking``)."""
    table = func.__dict__.get("_faultlib_kinds")
    if table is None:
        table = func.__dict__["_faultlib_kinds"] = {}
    found = table.get(kind)
    if found is None:
        found = table[kind] = _of_kind(func.nodes, _by_class(func), kind)
    return found


def _by_class(func: Func) -> dict[type, list[int]]:
    """The positions in ``func.nodes`` of its nodes, by the node's class (built once per function)."""
    found = func.__dict__.get("_faultlib_classes")
    if found is None:
        found = func.__dict__["_faultlib_classes"] = {}
        for i, node in enumerate(func.nodes):
            at = found.get(node.__class__)
            if at is None:
                found[node.__class__] = [i]
            else:
                at.append(i)
    return found


#: every node class :mod:`ast` defines (a tree parsed by :func:`ast.parse` holds only these)
_AST_CLASSES = frozenset(c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST))
#: kind -> the classes of :data:`_AST_CLASSES` that are subclasses of it (learnt once per kind asked)
_KIND_CLASSES: dict[type | tuple[type, ...], tuple[type, ...]] = {}


def _of_kind(nodes: list[ast.AST], by_class: dict[type, list[int]], kind: type | tuple[type, ...]) -> list[ast.AST]:
    """The nodes of ``nodes`` that are instances of ``kind`` (as :func:`isinstance`: subclasses count), in order
    (picked by :func:`operator.itemgetter`, not a comprehension: tens of thousands of lists a run). The classes of
    ``kind`` are looked up in ``by_class`` (stop 49: not every class of the function tested against ``kind``, a
    dozen tests per list asked), a class :mod:`ast` does not define tested as before."""
    classes = _KIND_CLASSES.get(kind)
    if classes is None:
        classes = _KIND_CLASSES[kind] = tuple(c for c in _AST_CLASSES if issubclass(c, kind))
    lists = [by_class[c] for c in classes if c in by_class]
    if len(by_class) > len(lists) and not by_class.keys() <= _AST_CLASSES:  # a node class made elsewhere
        lists += [at for cls, at in by_class.items() if cls not in _AST_CLASSES and issubclass(cls, kind)]
    if not lists:
        return []
    picked = lists[0] if len(lists) == 1 else sorted(i for positions in lists for i in positions)
    return [nodes[picked[0]]] if len(picked) == 1 else list(itemgetter(*picked)(nodes))


def module_nodes(module: Module) -> list[ast.AST]:
    """Every node of ``module``'s tree in :func:`ast.walk`'s order, listed once per module and shared by the
    analyses that scan whole files (:mod:`~faultlib.detect.serving.blocking.branches`' names used as values, the
    ``types.MethodType`` bindings of :mod:`~faultlib.detect.serving.blocking.infer`)."""
    found = module.__dict__.get("_faultlib_nodes")
    if found is None:
        found = module.__dict__["_faultlib_nodes"] = walk(module.tree)
    return found


def module_nodes_of(module: Module, kind: type | tuple[type, ...]) -> list[ast.AST]:
    """Every node of ``module``'s tree that is an instance of ``kind``, each once, function by function (no order
    to rely on: for passes that collect a set, such as :mod:`~faultlib.detect.serving.blocking.branches`' names used
    as values). Answered from the tables :func:`nodes_of` keeps for every function of the module (built for the call
    sites in any case) and from the few nodes outside every function (:func:`_outside_nodes`), so the whole tree is
    not walked again (stop 48's profile: that walk and the pass over its nodes were a tenth of ``check blocking``)."""
    table = module.__dict__.get("_faultlib_kinds")
    if table is None:
        table = module.__dict__["_faultlib_kinds"] = {}
    found = table.get(kind)
    if found is None:
        found = table[kind] = [n for n in _outside_nodes(module) if isinstance(n, kind)]
        for func in module.all_functions:
            found.extend(nodes_of(func, kind))
    return found


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _outside_nodes(module: Module) -> list[ast.AST]:
    """The nodes of ``module``'s tree that no function's :attr:`Func.nodes` lists: the tree's own node, its top level
    and class bodies, and the inside of the lambdas and classes a function holds (its nodes stop there), each once;
    a ``def`` is listed here or in its enclosing function, its inside in its own :class:`Func` (every ``def`` is one:
    the collector visits every statement list)."""
    found = module.__dict__.get("_faultlib_outside")
    if found is None:
        found = module.__dict__["_faultlib_outside"] = [module.tree]
        todo = children(module.tree)
        for func in module.all_functions:
            for held in nodes_of(func, (ast.Lambda, ast.ClassDef)):
                todo.extend(children(held))
        pop, push, extend = todo.pop, found.append, todo.extend
        while todo:
            node = pop()
            push(node)
            if not isinstance(node, _DEFS):
                extend(children(node))
    return found


def local_imports(func: Func) -> dict[str, str]:
    """Names a function binds with its own ``import``/``from ... import`` statements (absolute ones; a relative
    one as the module's own import of that name), computed once per function."""
    found = func.__dict__.get("_faultlib_imports")
    if found is None:
        found = func.__dict__["_faultlib_imports"] = {}
        for node in nodes_of(func, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        found[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    name = alias.asname or alias.name
                    if alias.name == "*":
                        continue
                    if node.level == 0 and node.module:
                        found[name] = f"{node.module}.{alias.name}"
                    elif name in func.module.imports:
                        found[name] = func.module.imports[name]
    return found
