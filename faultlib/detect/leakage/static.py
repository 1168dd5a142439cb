"""Static leakage analysis of a Python script or notebook: an abstract interpreter over its AST.

The analysis runs the module body once, abstractly: every variable holds an abstract value
(:mod:`faultlib.detect.leakage.values`): data with its row set and the fits that shaped it, an
estimator with its latest fit, a tuple, a function. Assignments, tuple unpacking, attribute
assignment on ``self``, function calls (inlined, with their arguments bound to the parameters) and
returns are followed, so a scaler fitted inside a helper and returned through two calls is still the
same fit. Functions the module never calls are analysed afterwards with opaque arguments.

Findings (kinds in :data:`faultlib.detect.leakage.KINDS`), each at the fit call (file, line,
column, function) with the estimator named:

* ``fit_before_split``: a transformer/selector fitted on rows that a later split (``train_test_split``,
  a slice, a named test set) sends to test;
* ``fit_on_test``: fitted on the test rows themselves, or on rows stacked with them;
* ``fit_outside_cv``: fitted on the rows (and labels) that are then cross-validated
  (``cross_val_score``, ``GridSearchCV.fit``, a ``for train, test in cv.split(X)`` loop);
* ``reused_across_folds``: fitted once, outside a cross-validation loop, and applied inside it.

Healthy patterns stay silent: fit on the training part and transform the test part; fit on a
training slice and transform the whole series; anything inside a ``Pipeline`` handed to a CV
function or search (scikit-learn clones and refits it per fold). Loops run once (a body that only
fits in its first iteration is not modelled); ``if``/``else`` branches run in order. When the
analysis cannot show two row sets overlap it says nothing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from faultlib.detect.leakage import vocab
from faultlib.detect.leakage.values import (
    UNKNOWN, Bound, ClassVal, Const, Data, Enum, Est, FitRef, FoldIdx, FoldIter, Func, Indexer, Instance, Opaque,
    Ref, RowUnion, Rows, Step, Tup, covers, is_test_rows, new_id, parts, test_step)
from faultlib.findings import Finding, Severity

DETECTOR = "leakage"
MAX_DEPTH = 24          # nested inlined calls (recursion is cut at the first repeat)
MAX_OPERATIONS = 400_000  # abstract evaluations per file: a generated 1 MB script stays under a second or two


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


class _Budget(Exception):
    pass


@dataclass
class SourceMap:
    """Lines of the analysed text back to the user's file: a script's lines, or a notebook's cells.

    Attributes:
        file: the file the user passed.
        cells: for a notebook, ``(cell number, first line in the joined text, line count)`` per code cell
            (cell numbers count every cell from 1, as a notebook shows them).
    """

    file: str
    cells: list[tuple[int, int, int]] | None = None

    def where(self, line: int) -> dict[str, Any]:
        if not self.cells:
            return {"file": self.file, "line": line}
        for number, start, count in self.cells:
            if start <= line < start + count:
                return {"file": self.file, "line": line - start + 1, "index": number}
        return {"file": self.file, "line": line}

    def describe(self, line: int) -> str:
        at = self.where(line)
        return f"cell {at['index']} line {at['line']}" if "index" in at else f"line {line}"


@dataclass
class FitSite:
    """A fit the analysis saw (reported as ``fits`` by ``faultlib check leakage``)."""

    estimator: str
    variable: str | None
    location: dict[str, Any]
    rows: str | None
    supervised: bool

    def to_json(self) -> dict[str, Any]:
        return {"estimator": self.estimator, "variable": self.variable, **self.location, "rows": self.rows,
                "supervised": self.supervised}


@dataclass
class StaticReport:
    """Findings and the fits seen; ``complete`` is False when the operation budget ran out."""

    findings: list[Finding] = field(default_factory=list)
    fits: list[FitSite] = field(default_factory=list)
    complete: bool = True


@dataclass
class _Frame:
    locals: dict[str, Any]
    qualname: str
    loops: list[tuple[int, int]] = field(default_factory=list)  # (loop id, line) of open CV loops


class Analyzer:
    """Run the abstract interpretation of one module.

    Args:
        tree: the parsed module.
        smap: maps lines back to the user's file (and notebook cells).
    """

    def __init__(self, tree: ast.Module, smap: SourceMap):
        self.tree = tree
        self.smap = smap
        self.globals: dict[str, Any] = {}
        self.report = StaticReport()
        self._seen: set[tuple[str, int, int]] = set()
        self._reused: set[tuple[int, int]] = set()
        self._stack: list[int] = []
        self._executed: set[int] = set()
        self._ops = 0
        self._fit_sites: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ driver

    def run(self) -> StaticReport:
        frame = _Frame(self.globals, "<module>")
        try:
            self._block(self.tree.body, frame)
            for value in list(self.globals.values()):  # functions and methods the module never called
                for func in self._functions_of(value):
                    if id(func.node) not in self._executed:
                        self._call_opaque(func)
        except _Budget:
            self.report.complete = False
        except _Return:
            pass
        return self.report

    def _functions_of(self, value: Any) -> list[Func]:
        if isinstance(value, Func):
            return [value]
        if isinstance(value, ClassVal):
            return list(value.methods.values())
        return []

    def _call_opaque(self, func: Func) -> None:
        args = func.node.args
        names = [a.arg for a in args.posonlyargs + args.args]
        values: list[Any] = []
        for i, name in enumerate(names):
            if i == 0 and func.owner is not None and name in ("self", "cls"):
                values.append(Instance(func.owner))
            else:
                values.append(Opaque(name, func.node.lineno))
        try:
            self._invoke(func, values, {}, func.node.lineno)
        except _Return:
            pass

    def _tick(self) -> None:
        self._ops += 1
        if self._ops > MAX_OPERATIONS:
            raise _Budget

    # ------------------------------------------------------------------ statements

    def _block(self, body: list[ast.stmt], frame: _Frame) -> None:
        for stmt in body:
            self._stmt(stmt, frame)

    def _stmt(self, node: ast.stmt, frame: _Frame) -> None:
        self._tick()
        if isinstance(node, ast.Assign):
            value = self._expr(node.value, frame)
            for target in node.targets:
                self._bind(target, value, frame, node.lineno)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self._bind(node.target, self._expr(node.value, frame), frame, node.lineno)
        elif isinstance(node, ast.AugAssign):
            current = self._expr(node.target, frame) if isinstance(node.target, ast.Name) else UNKNOWN
            value = self._combine([current, self._expr(node.value, frame)])
            self._bind(node.target, value, frame, node.lineno)
        elif isinstance(node, ast.Expr):
            self._expr(node.value, frame)
        elif isinstance(node, ast.Return):
            raise _Return(self._expr(node.value, frame) if node.value is not None else Const(None))
        elif isinstance(node, ast.If):
            self._expr(node.test, frame)
            if _is_main_guard(node.test):
                self._block(node.body, frame)
            else:
                self._block(node.body, frame)
                self._block(node.orelse, frame)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._for(node, frame)
        elif isinstance(node, ast.While):
            self._expr(node.test, frame)
            self._block(node.body, frame)
            self._block(node.orelse, frame)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self._expr(item.context_expr, frame)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, value, frame, node.lineno)
            self._block(node.body, frame)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._block(node.body, frame)
            for handler in node.handlers:
                self._block(handler.body, frame)
            self._block(node.orelse, frame)
            self._block(node.finalbody, frame)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qual = node.name if frame.qualname == "<module>" else f"{frame.qualname}.{node.name}"
            frame.locals[node.name] = Func(node, qual)
        elif isinstance(node, ast.ClassDef):
            frame.locals[node.name] = self._class(node, frame)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    frame.locals[alias.asname] = Ref(alias.name)
                else:
                    top = alias.name.split(".")[0]
                    frame.locals[top] = Ref(top)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    frame.locals[alias.asname or alias.name] = Ref(f"{node.module or ''}.{alias.name}".lstrip("."))
        elif type(node).__name__ == "Match":
            self._expr(node.subject, frame)
            for case in node.cases:
                self._block(case.body, frame)

    def _class(self, node: ast.ClassDef, frame: _Frame) -> Any:
        qual = node.name if frame.qualname == "<module>" else f"{frame.qualname}.{node.name}"
        cls = ClassVal(node, qual)
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                cls.methods[item.name] = Func(item, f"{qual}.{item.name}", owner=cls)
        bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
        if {"TransformerMixin", "SelectorMixin", "OneToOneFeatureMixin"} & bases or (
                "fit" in cls.methods and "transform" in cls.methods):
            cls.methods.setdefault("__faultlib_transformer__", cls.methods.get("fit"))  # marks a user transformer
        return cls

    def _for(self, node: ast.For, frame: _Frame) -> None:
        source = self._expr(node.iter, frame)
        inner = source.inner if isinstance(source, Enum) else source
        if isinstance(inner, FoldIter):
            loop = (inner.loop, node.lineno)
            pair = Tup((FoldIdx(inner.loop, "train", node.lineno), FoldIdx(inner.loop, "test", node.lineno)))
            self._bind(node.target, Tup((Opaque("i", node.lineno), pair)) if isinstance(source, Enum) else pair,
                       frame, node.lineno)
            frame.loops.append(loop)
            try:
                self._block(node.body, frame)
            finally:
                frame.loops.pop()
        elif isinstance(inner, Tup) and 0 < len(inner.items) <= 8:
            for i, item in enumerate(inner.items):  # a short literal list: run the body once per item
                self._bind(node.target, Tup((Const(i), item)) if isinstance(source, Enum) else item, frame,
                           node.lineno)
                self._block(node.body, frame)
        else:
            self._bind(node.target, UNKNOWN, frame, node.lineno)
            self._block(node.body, frame)
        self._block(node.orelse, frame)

    def _bind(self, target: ast.expr, value: Any, frame: _Frame, line: int) -> None:
        if isinstance(target, ast.Name):
            frame.locals[target.id] = self._named(target.id, value, line)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            if isinstance(value, Tup) and len(value.items) == len(elts) and not any(
                    isinstance(e, ast.Starred) for e in elts):
                for elt, item in zip(elts, value.items):
                    self._bind(elt, item, frame, line)
            else:
                for elt in elts:
                    self._bind(elt.value if isinstance(elt, ast.Starred) else elt, UNKNOWN, frame, line)
        elif isinstance(target, ast.Attribute):
            owner = self._expr(target.value, frame)
            if isinstance(owner, Instance):
                owner.attrs[target.attr] = value
        elif isinstance(target, ast.Starred):
            self._bind(target.value, UNKNOWN, frame, line)

    def _named(self, name: str, value: Any, line: int) -> Any:
        if value is UNKNOWN:
            return Opaque(name, line)
        if isinstance(value, Est):
            value.variable = name
        if isinstance(value, Data) and not value.is_test and vocab.looks_like_test(name):
            value = value.with_(test=True)
            self._check_test(value, line, "the variable name")
        return value

    # ------------------------------------------------------------------ expressions

    def _expr(self, node: ast.expr | None, frame: _Frame) -> Any:
        self._tick()
        if node is None:
            return Const(None)
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            return self._lookup(node.id, frame)
        if isinstance(node, ast.Attribute):
            return self._attribute(self._expr(node.value, frame), node.attr)
        if isinstance(node, ast.Subscript):
            return self._subscript(self._expr(node.value, frame), node.slice, frame, node.lineno)
        if isinstance(node, ast.Call):
            return self._call(node, frame)
        if isinstance(node, (ast.Tuple, ast.List)):
            return Tup(tuple(self._expr(e.value if isinstance(e, ast.Starred) else e, frame) for e in node.elts))
        if isinstance(node, ast.BinOp):
            left, right = self._expr(node.left, frame), self._expr(node.right, frame)
            if isinstance(left, Const) and isinstance(right, Const):
                return _fold(node.op, left.value, right.value)
            return self._combine([left, right])
        if isinstance(node, ast.UnaryOp):
            operand = self._expr(node.operand, frame)
            if isinstance(operand, Const) and isinstance(node.op, ast.USub) and isinstance(operand.value, (int, float)):
                return Const(-operand.value)
            return self._combine([operand])
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            values = [self._expr(v, frame) for v in ([node.left, *node.comparators] if isinstance(node, ast.Compare)
                                                      else node.values)]
            return self._combine(values)
        if isinstance(node, ast.IfExp):
            self._expr(node.test, frame)
            body, orelse = self._expr(node.body, frame), self._expr(node.orelse, frame)
            return body if body is not UNKNOWN and not isinstance(body, Const) else orelse
        if isinstance(node, ast.NamedExpr):
            value = self._expr(node.value, frame)
            self._bind(node.target, value, frame, node.lineno)
            return value
        if isinstance(node, (ast.Await, ast.Starred)):
            return self._expr(node.value, frame)
        if isinstance(node, ast.Dict):
            for v in node.values:
                self._expr(v, frame)
            return UNKNOWN
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return UNKNOWN
        return UNKNOWN

    def _lookup(self, name: str, frame: _Frame) -> Any:
        if name in frame.locals:
            return frame.locals[name]
        if name in self.globals:
            return self.globals[name]
        return Ref(name)

    def _attribute(self, base: Any, attr: str) -> Any:
        if isinstance(base, Ref):
            return Ref(f"{base.name}.{attr}")
        if isinstance(base, Instance):
            if attr in base.attrs:
                return base.attrs[attr]
            if attr in base.cls.methods:
                return Bound(base, attr)
            return UNKNOWN
        data = _as_data(base)
        if data is not None and attr in ("iloc", "loc"):
            return Indexer(data)
        if data is not None and attr in ("shape", "columns", "dtypes", "index", "size", "ndim", "dtype"):
            return UNKNOWN
        if isinstance(base, (Est, Data, Opaque, Indexer)):
            return Bound(base, attr)
        return UNKNOWN

    def _subscript(self, base: Any, index_node: ast.expr, frame: _Frame, line: int) -> Any:
        if isinstance(base, Tup):
            index = self._expr(index_node, frame)
            if isinstance(index, Const) and isinstance(index.value, int) and -len(base.items) <= index.value < len(
                    base.items):
                return base.items[index.value]
            return UNKNOWN
        data = base.data if isinstance(base, Indexer) else _as_data(base)
        if data is None:
            self._expr(index_node, frame)
            return UNKNOWN
        if isinstance(index_node, ast.Tuple) and index_node.elts:
            index_node = index_node.elts[0]  # X[rows, columns]: the rows
        if isinstance(index_node, ast.Slice):
            if index_node.lower is None and index_node.upper is None:
                return data
            lo, hi = self._bound(index_node.lower, frame), self._bound(index_node.upper, frame)
            return self._derive(data, data_rows_child(data, Step("slice", lo=lo, hi=hi, line=line)), line)
        index = self._expr(index_node, frame)
        if isinstance(index, Const) and isinstance(index.value, str):
            return data  # a column
        if isinstance(index, Tup) and all(isinstance(i, Const) and isinstance(i.value, str) for i in index.items):
            return data  # columns
        if isinstance(index, FoldIdx):
            return self._derive(data, data_rows_child(data, Step("fold", index.loop, index.part, line=index.line)),
                                line)
        selector = _as_data(index)
        if selector is not None:
            for p in parts(selector.rows):  # an index array from a split: take the same part of these rows
                chosen = next((s for s in reversed(p.steps) if s.kind in ("split", "fold")), None)
                if chosen is not None:
                    return self._derive(data, data_rows_child(data, chosen), line, taints=selector.taints)
        return self._derive(data, data_rows_child(data, Step("filter", new_id(), line=line)), line)

    def _bound(self, node: ast.expr | None, frame: _Frame) -> Any:
        if node is None:
            return None
        value = self._expr(node, frame)
        if isinstance(value, Const) and isinstance(value.value, int) and not isinstance(value.value, bool):
            return value.value
        return ast.unparse(node)

    def _derive(self, data: Data, rows: Any, line: int, *, taints: frozenset = frozenset()) -> Data:
        out = Data(rows, data.taints | taints, data.test)
        self._check_test(out, line, "a row selection")
        return out

    def _combine(self, values: list[Any]) -> Any:
        datas = [d for d in (_as_data(v) for v in values) if d is not None]
        if not datas:
            return UNKNOWN
        first = datas[0]
        return Data(first.rows, frozenset().union(*(d.taints for d in datas)), first.test)

    # ------------------------------------------------------------------ calls

    def _args(self, node: ast.Call, frame: _Frame) -> tuple[list[Any], dict[str, Any]]:
        args = [self._expr(a.value if isinstance(a, ast.Starred) else a, frame) for a in node.args]
        kwargs = {k.arg: self._expr(k.value, frame) for k in node.keywords if k.arg is not None}
        for k in node.keywords:
            if k.arg is None:
                self._expr(k.value, frame)
        return args, kwargs

    def _call(self, node: ast.Call, frame: _Frame) -> Any:
        func = self._expr(node.func, frame)
        args, kwargs = self._args(node, frame)
        line = node.lineno
        if isinstance(func, Func):
            return self._invoke(func, args, kwargs, line)
        if isinstance(func, ClassVal):
            return self._instantiate(func, args, kwargs, line)
        if isinstance(func, Bound):
            return self._method(func.receiver, func.name, args, kwargs, node, frame)
        if isinstance(func, Ref):
            return self._library(func, args, kwargs, node, frame)
        return self._combine(args + list(kwargs.values()))

    def _invoke(self, func: Func, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        key = id(func.node)
        self._executed.add(key)
        if key in self._stack or len(self._stack) >= MAX_DEPTH:
            return UNKNOWN
        params = func.node.args
        positional = params.posonlyargs + params.args
        local: dict[str, Any] = {}
        defaults = [None] * (len(positional) - len(params.defaults)) + list(params.defaults)
        outer = _Frame(self.globals, func.qualname)
        for i, param in enumerate(positional):
            if i < len(args):
                value = args[i]
            elif param.arg in kwargs:
                value = kwargs[param.arg]
            elif defaults[i] is not None:
                value = self._expr(defaults[i], outer)
            else:
                value = UNKNOWN
            local[param.arg] = self._named(param.arg, value, func.node.lineno)
        for param, default in zip(params.kwonlyargs, params.kw_defaults):
            value = kwargs.get(param.arg, self._expr(default, outer) if default is not None else UNKNOWN)
            local[param.arg] = self._named(param.arg, value, func.node.lineno)
        if params.vararg:
            local[params.vararg.arg] = Tup(tuple(args[len(positional):]))
        if params.kwarg:
            local[params.kwarg.arg] = UNKNOWN
        frame = _Frame(local, func.qualname)
        self._stack.append(key)
        try:
            self._block(func.node.body, frame)
        except _Return as ret:
            return ret.value
        finally:
            self._stack.pop()
        return Const(None)

    def _instantiate(self, cls: ClassVal, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        if "__faultlib_transformer__" in cls.methods:
            return Est(cls.node.name, "transformer", preprocessing=True)
        instance = Instance(cls)
        init = cls.methods.get("__init__")
        if init is not None:
            self._invoke(init, [instance, *args], kwargs, line)
        return instance

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: _Frame) -> Any:
        name, line = ref.last, node.lineno
        if name in vocab.SPLIT_FUNCTIONS:
            return self._split(args, line)
        if name in vocab.CV_FUNCTIONS:
            x = args[1] if len(args) > 1 else kwargs.get("X")
            self._check_cv(_as_data(x), line, f"{name}()")
            return UNKNOWN
        if name in vocab.PIPELINES:
            steps = args[0].items if name == "Pipeline" and args and isinstance(args[0], Tup) else args
            if name == "Pipeline" and "steps" in kwargs and isinstance(kwargs["steps"], Tup):
                steps = kwargs["steps"].items
            ests = [s.items[1] if isinstance(s, Tup) and len(s.items) >= 2 else s for s in steps]
            ests = [e for e in ests if isinstance(e, Est)]
            label = f"Pipeline({', '.join(e.cls for e in ests)})"
            return Est(label, "pipeline", preprocessing=any(e.preprocessing for e in ests),
                       supervised=any(e.supervised for e in ests), steps=ests)
        if name in vocab.SPLITTERS:
            return Est(name, "splitter")
        if name in ("FrozenEstimator", "deepcopy") and args and isinstance(args[0], Est):
            return args[0]
        if name == "clone" and args and isinstance(args[0], Est):
            e = args[0]
            return Est(e.cls, e.category, e.preprocessing, e.supervised, list(e.steps))
        if name == "enumerate" and args:
            return Enum(args[0])
        if name in vocab.ROW_STACKS and not _columns_axis(kwargs):
            items = args[0].items if args and isinstance(args[0], Tup) else args
            datas = [d for d in (_as_data(i) for i in items) if d is not None]
            if len(datas) > 1:
                rows = RowUnion(tuple(p for d in datas for p in parts(d.rows)))
                return Data(rows, frozenset().union(*(d.taints for d in datas)), False)
        if vocab.is_search(name):
            return Est(name, "search")
        if vocab.is_preprocessing(name) or name in vocab.STATELESS:
            pre = vocab.is_preprocessing(name)
            return Est(name, "transformer", preprocessing=pre, supervised=pre and vocab.is_supervised(name))
        if vocab.is_model(name, ref.module):
            return Est(name, "model")
        if name in ("len", "int", "float", "str", "range", "print", "isinstance", "round", "min", "max", "sum"):
            return UNKNOWN
        flat = []
        for a in args:
            flat.extend(a.items if isinstance(a, Tup) else [a])
        return self._combine(flat)

    def _split(self, args: list[Any], line: int) -> Any:
        ident = new_id()
        out: list[Any] = []
        for arg in args:
            data = _as_data(arg)
            if data is None:
                out.extend([UNKNOWN, UNKNOWN])
                continue
            train = Data(data_rows_child(data, Step("split", ident, "train", line=line)), data.taints, False)
            test = Data(data_rows_child(data, Step("split", ident, "test", line=line)), data.taints, True)
            self._check_test(test, line, "train_test_split")
            out.extend([train, test])
        return Tup(tuple(out))

    def _method(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                frame: _Frame) -> Any:
        line = node.lineno
        if isinstance(receiver, Instance):
            method = receiver.cls.methods.get(name)
            return self._invoke(method, [receiver, *args], kwargs, line) if method else UNKNOWN
        if isinstance(receiver, Est):
            return self._estimator(receiver, name, args, kwargs, node, frame)
        if name == "split" and args and _as_data(args[0]) is not None and not isinstance(receiver, (Data, Indexer)):
            data = _as_data(args[0])
            self._check_cv(data, line, "the cross-validation loop")
            return FoldIter(new_id(), line, data)
        data = receiver.data if isinstance(receiver, Indexer) else _as_data(receiver)
        if data is None:
            return UNKNOWN
        if name in (vocab.FIT, *vocab.FIT_TRANSFORM, *vocab.FIT_RESAMPLE, *vocab.TRANSFORM, *vocab.EVALUATE):
            return UNKNOWN  # an estimator the analysis does not know: not tracked
        if name == "head":
            n = args[0] if args else kwargs.get("n", Const(5))
            hi = n.value if isinstance(n, Const) else ast.unparse(node.args[0]) if node.args else None
            return self._derive(data, data_rows_child(data, Step("slice", hi=hi, line=line)), line)
        if name == "tail":
            n = args[0] if args else kwargs.get("n", Const(5))
            lo = -n.value if isinstance(n, Const) and isinstance(n.value, int) else None
            return self._derive(data, data_rows_child(data, Step("slice", lo=lo, line=line)), line)
        if name in ("sample", "query") or (name == "drop" and not _drops_columns(kwargs)):
            frac = kwargs.get("frac")
            if name == "sample" and isinstance(frac, Const) and frac.value == 1:
                return data
            return self._derive(data, data_rows_child(data, Step("filter", new_id(), line=line)), line)
        others = [d for d in (_as_data(a) for a in args) if d is not None]
        if name == "append" and others:
            rows = RowUnion(tuple(p for d in [data, *others] for p in parts(d.rows)))
            return Data(rows, frozenset().union(data.taints, *(d.taints for d in others)), False)
        return Data(data.rows, data.taints.union(*(d.taints for d in others)), data.test)

    # ------------------------------------------------------------------ estimators

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: _Frame) -> Any:
        line = node.lineno
        x = _as_data(args[0] if args else kwargs.get("X", kwargs.get("x")))
        has_y = len(args) > 1 or "y" in kwargs
        if est.category == "splitter":
            if name == "split" and x is not None:
                self._check_cv(x, line, "the cross-validation loop")
                return FoldIter(new_id(), line, x)
            return UNKNOWN
        if name in ("set_params", "set_output"):
            return est
        if name == vocab.FIT or name in vocab.FIT_TRANSFORM or name in vocab.FIT_RESAMPLE:
            # y makes a fit supervised unless the class is known to ignore it (a scaler, an imputer)
            reads_y = est.supervised or (has_y and est.category == "transformer" and
                                         est.cls not in vocab.LEARNING_TRANSFORMERS)
            fit = self._fit(est, x, reads_y, name, node, frame)
            if name == vocab.FIT:
                if est.category == "search" and x is not None:
                    self._check_cv(x, line, f"{est.cls}.fit()")
                return est
            out = self._apply(est, fit, x, line, frame)
            if name in vocab.FIT_RESAMPLE:
                y = _as_data(args[1] if len(args) > 1 else kwargs.get("y"))
                return Tup((out, Data(y.rows, y.taints | ({fit} if fit else set()), y.test) if y else UNKNOWN))
            return out
        if name in vocab.TRANSFORM or name == "inverse_transform":
            return self._apply(est, est.fit, x, line, frame)
        if name in vocab.EVALUATE:
            if x is None:
                return UNKNOWN
            if est.fit is not None and not x.is_test and not self._within(x, est.fit):
                x = x.with_(test=True)  # evaluated on rows it was not fitted on: they are held out
            if est.preprocessing and est.fit is not None:
                self._reuse(est.fit, x, line, frame)
                x = x.with_(taints=x.taints | {est.fit})
            self._check_test(x, line, f"{est.cls}.{name}()")
            return UNKNOWN
        return UNKNOWN

    def _within(self, x: Data, fit: FitRef) -> bool:
        fit_parts = parts(fit.rows)
        return bool(parts(x.rows)) and all(any(covers(f, p) for f in fit_parts) for p in parts(x.rows))

    def _fit(self, est: Est, x: Data | None, supervised: bool, method: str, node: ast.Call,
             frame: _Frame) -> FitRef | None:
        fit = FitRef(est.cls, est.variable, x.rows if x is not None else None, bool(supervised), node.lineno,
                     node.col_offset + 1, frame.qualname, method, tuple(loop for loop, _ in frame.loops))
        est.fit = fit
        for step in est.steps:  # a Pipeline fits its steps in place
            step.fit = FitRef(step.cls, step.variable, fit.rows, fit.supervised or step.supervised, fit.line,
                              fit.column, fit.function, method, fit.loops)
        if est.preprocessing and (node.lineno, node.col_offset) not in self._fit_sites:
            self._fit_sites.add((node.lineno, node.col_offset))
            self.report.fits.append(FitSite(est.cls, est.variable, {**self.smap.where(node.lineno),
                                                                    "function": frame.qualname},
                                            x.rows.describe() if x is not None and x.rows is not None else None,
                                            fit.supervised))
        if est.preprocessing and x is not None:
            for p in parts(x.rows):
                if p.root.test or test_step(p) is not None:
                    step = test_step(p)
                    self._emit("fit_on_test", fit, line=node.lineno, data=x,
                               why=f"those rows are held out ({p.describe()}"
                                   f"{', ' + self.smap.describe(step.line) if step else ''})")
                    break
            else:
                if x.test:
                    self._emit("fit_on_test", fit, line=node.lineno, data=x, why="the variable is named for held-out rows")
        return fit

    def _apply(self, est: Est, fit: FitRef | None, x: Data | None, line: int, frame: _Frame) -> Any:
        if x is None:
            return UNKNOWN
        if fit is None or not est.preprocessing:
            return x
        self._reuse(fit, x, line, frame)
        out = Data(x.rows, x.taints | {fit}, x.test)
        self._check_test(out, line, f"{est.cls}.transform()")
        return out

    def _reuse(self, fit: FitRef, x: Data, line: int, frame: _Frame) -> None:
        for loop, loop_line in frame.loops:
            if loop in fit.loops:
                continue
            if any(s.kind == "fold" and s.ident == loop for p in parts(x.rows) for s in p.steps) and \
                    self._overlaps(fit, x):
                self._reused.add((fit.uid, loop))
                self._emit("reused_across_folds", fit, line=line, data=x,
                           why=f"it is applied inside the cross-validation loop on {self.smap.describe(loop_line)} "
                               f"({self.smap.describe(line)}) without being refitted on each fold's training rows")

    # ------------------------------------------------------------------ leak checks

    def _overlaps(self, fit: FitRef, x: Data) -> bool:
        return any(covers(f, p) for f in parts(fit.rows) for p in parts(x.rows))

    def _check_test(self, data: Data, line: int, how: str) -> None:
        """``data`` is held out: report every fit that shaped it and saw (a superset of) its rows."""
        if not data.is_test:
            return
        for fit in data.taints:
            for f in parts(fit.rows):
                for p in parts(data.rows):
                    if not covers(f, p):
                        continue
                    if f.root.test or test_step(f) is not None:
                        self._emit("fit_on_test", fit, line=line, data=data,
                                   why=f"it was fitted on held-out rows ({f.describe()})")
                        break
                    step = test_step(p, len(f.steps))
                    if step is not None and step.kind == "fold":
                        if (fit.uid, step.ident) in self._reused:
                            continue
                        self._emit("fit_outside_cv", fit, line=step.line, data=data,
                                   why=f"the cross-validation loop on {self.smap.describe(step.line)} scores folds "
                                       "whose test rows it had already seen")
                    elif step is not None:
                        what = "train_test_split" if step.kind == "split" else "a row selection"
                        self._emit("fit_before_split", fit, line=step.line, data=data,
                                   why=f"{what} on {self.smap.describe(step.line)} then sends some of those rows to "
                                       f"test ({p.describe()})")
                    else:
                        self._emit("fit_before_split", fit, line=line, data=data,
                                   why=f"rows {p.describe()} among them are then held out ({how}, "
                                       f"{self.smap.describe(line)})")
                    break

    def _check_cv(self, data: Data | None, line: int, how: str) -> None:
        """``data`` is cross-validated: report every fit that shaped it after seeing its rows."""
        if data is None:
            return
        for fit in data.taints:
            if self._overlaps(fit, data):
                self._emit("fit_outside_cv", fit, line=line, data=data,
                           why=f"{how} on {self.smap.describe(line)} then cross-validates those rows: every fold "
                               "is scored on rows that shaped its features")

    def _emit(self, kind: str, fit: FitRef, *, line: int, data: Data, why: str) -> None:
        key = (kind, fit.line, fit.column)
        if key in self._seen:
            return
        self._seen.add(key)
        rows = fit.rows.describe() if fit.rows is not None else "unknown rows"
        name = f"{fit.estimator} `{fit.variable}`" if fit.variable else fit.estimator
        labels = " and labels" if fit.supervised else ""
        advice = {
            "fit_before_split": "split first and fit it on the training part only, or put it in a Pipeline",
            "fit_on_test": "fit it on the training rows only and only transform the test rows",
            "fit_outside_cv": "put it inside the Pipeline you cross-validate so each fold refits it",
            "reused_across_folds": "refit it on each fold's training rows, or put it in a Pipeline",
        }[kind]
        message = (f"{name} is fitted ({fit.method} on {self.smap.describe(fit.line)}) on rows {rows}{labels}; "
                   f"{why}: {advice}")
        location = {**self.smap.where(fit.line), "column": fit.column, "function": fit.function}
        evidence = {"estimator": fit.estimator, "variable": fit.variable, "method": fit.method,
                    "supervised": fit.supervised, "fit_rows": rows,
                    "held_out_rows": data.rows.describe() if data.rows is not None else None,
                    "at": self.smap.where(line)}
        self.report.findings.append(Finding(DETECTOR, Severity.ERROR if fit.supervised else Severity.WARNING, message,
                                            location, evidence, kind=kind))


def _as_data(value: Any) -> Data | None:
    if isinstance(value, Data):
        return value
    if isinstance(value, Opaque):
        return value.as_data()
    if isinstance(value, Indexer):
        return value.data
    return None


def data_rows_child(data: Data, step: Step) -> Any:
    if isinstance(data.rows, Rows):
        return data.rows.child(step)
    if isinstance(data.rows, RowUnion):
        return RowUnion(tuple(p.child(step) for p in data.rows.parts))
    return None


def _columns_axis(kwargs: dict[str, Any]) -> bool:
    axis = kwargs.get("axis")
    return isinstance(axis, Const) and axis.value in (1, "columns")


def _drops_columns(kwargs: dict[str, Any]) -> bool:
    return "columns" in kwargs or _columns_axis(kwargs)


def _fold(op: ast.operator, a: Any, b: Any) -> Any:
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
        return UNKNOWN
    try:
        value = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                 ast.FloorDiv: lambda: a // b}.get(type(op), lambda: None)()
    except (ZeroDivisionError, OverflowError):
        return UNKNOWN
    return UNKNOWN if value is None else Const(value)


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def analyze_source(source: str, smap: SourceMap) -> StaticReport:
    """Analyse Python source text.

    Args:
        source: the module's text (a notebook's code cells joined, see
            :func:`faultlib.detect.leakage.notebook.notebook_source`).
        smap: how lines map back to the user's file.

    Returns:
        :class:`StaticReport` (findings ordered by line).

    Raises:
        SyntaxError, RecursionError, ValueError: from :func:`ast.parse`; the caller turns them into
            :class:`~faultlib.errors.InputError` with the file and line.
    """
    tree = ast.parse(source, filename=smap.file)
    report = Analyzer(tree, smap).run()
    report.findings.sort(key=lambda f: (f.location.get("index", 0), f.location.get("line", 0), f.kind))
    return report


__all__ = ["Analyzer", "FitSite", "SourceMap", "StaticReport", "analyze_source", "is_test_rows"]
