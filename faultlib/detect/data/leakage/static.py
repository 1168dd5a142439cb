"""Static leakage analysis of a Python script or notebook: an abstract interpreter over its AST.

The analysis runs the module body once, abstractly: every variable holds an abstract value
(:mod:`faultlib.detect.data.leakage.values`): data with its row set and the fits that shaped it, an
estimator with its latest fit, a tuple, a function. Assignments, tuple unpacking, attribute
assignment on ``self``, function calls (inlined, with their arguments bound to the parameters) and
returns are followed, so a scaler fitted inside a helper and returned through two calls is still the
same fit. Functions the module never calls are analysed afterwards with opaque arguments.

Findings (kinds in :data:`faultlib.detect.data.leakage.KINDS`), each at the fit call (file, line,
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

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.semantics import EstimatorSemantics, FitSite, _as_data, _maybe_data, data_rows_child
from faultlib.detect.data.leakage.values import (
    UNKNOWN, Bound, ClassVal, Const, Data, Enum, Est, FoldIdx, FoldIter, Func, Indexer, Instance, Opaque, Ref, Step,
    Tup, is_test_rows, new_id, parts)
from faultlib.detect.data.leakage.source import SourceMap
from faultlib.findings import Finding

DETECTOR = "leakage"
MAX_DEPTH = 24          # nested inlined calls (recursion is cut at the first repeat)
MAX_OPERATIONS = 400_000  # abstract evaluations per file: a generated 1 MB script stays under a second or two


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


class _Budget(Exception):
    pass


@dataclass
class StaticReport:
    """Findings and the fits seen; ``complete`` is False (and ``stopped`` says why) when the analysis stopped early."""

    findings: list[Finding] = field(default_factory=list)
    fits: list[FitSite] = field(default_factory=list)
    complete: bool = True
    stopped: str | None = None


@dataclass
class _Frame:
    locals: dict[str, Any]
    qualname: str
    loops: list[tuple[int, int]] = field(default_factory=list)  # (loop id, line) of open CV loops


class Analyzer(EstimatorSemantics):
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
            self.report.stopped = f"operation budget of {MAX_OPERATIONS} exhausted"
        except _Return:
            pass
        except (RecursionError, MemoryError, ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
            # a construct the interpreter does not model: keep what was found, say where it stopped
            self.report.complete = False
            self.report.stopped = f"stopped at an unsupported construct ({type(exc).__name__}: {exc})"
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
            cls.transformer = True
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
        if attr in ("iloc", "loc") and _as_data(base) is not None:
            return Indexer(_as_data(base))
        if attr in ("shape", "columns", "dtypes", "index", "size", "ndim", "dtype"):
            return UNKNOWN
        if attr in vocab.DATA_ATTRIBUTES and _as_data(base) is not None:
            return _as_data(base)  # X.values, X.T is not here: it turns rows into columns
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
        datas = [d for d in (_maybe_data(v) for v in values) if d is not None]
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
        if key in self._stack:  # recursion: cut at the first repeat
            return UNKNOWN
        if len(self._stack) >= MAX_DEPTH:  # a deeper chain is not followed, and the report says so
            if self.report.complete:
                self.report.complete = False
                self.report.stopped = (f"did not follow the call of {func.qualname} on {self.smap.describe(line)}: "
                                       f"the call chain is deeper than {MAX_DEPTH} calls")
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
        if cls.transformer:
            return Est(cls.node.name, "transformer", preprocessing=True)
        instance = Instance(cls)
        init = cls.methods.get("__init__")
        if init is not None:
            self._invoke(init, [instance, *args], kwargs, line)
        return instance

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


__all__ = ["Analyzer", "FitSite", "StaticReport", "is_test_rows"]
