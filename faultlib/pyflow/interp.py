"""A small abstract interpreter over a Python module's AST: values, binding, calls and returns, nothing more.

It runs the module body once, abstractly: every variable holds an abstract value; assignments, tuple
unpacking, item and attribute assignment (``d['k'] = v``, ``self.x = v``), function calls (inlined, with
their arguments bound to the parameters), returns, classes and their instances are followed. Functions
the module never calls are analysed afterwards with opaque arguments (but those a subclass knows nothing calls at
all, ``_left_uncalled``). Loops run once (a short literal
list: once per item); ``if``/``else`` branches run in order.

What a library call, a method of a library object, an item of a data value or a value's name *mean* is
left to a subclass (the hooks of :class:`~faultlib.pyflow.hooks.SemanticHooks`: ``_library``, ``_method_value``, ``_attribute_value``, ``_subscript_value``,
``_bind_item``, ``_iterate``, ``_combine``, ``_named``, ``_opaque``, ``_may_become_container``,
``_class_value``, ``_left_uncalled``): the leakage analysis (:mod:`faultlib.detect.data.leakage.static`) gives them
scikit-learn's meaning; another analysis (which stateful objects a training script saves and restores) can
give them its own.

Budgets: :data:`MAX_OPERATIONS` abstract evaluations per module and :data:`MAX_DEPTH` nested inlined
calls; past either, the report says ``complete: false`` and where it stopped (``stopped``).
"""

from __future__ import annotations

import ast
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from faultlib.pyflow.hooks import SemanticHooks
from faultlib.pyflow.syntax import fold, is_main_guard
from faultlib.pyflow.values import (
    UNKNOWN, Bound, ClassVal, Const, Container, Func, Instance, Opaque, Ref, Tup, functions_of)

MAX_DEPTH = 48            # nested inlined calls (recursion is cut at the first repeat)
MAX_OPERATIONS = 400_000  # abstract evaluations per file: a generated 1 MB script stays under a second or two


STACK_HEADROOM = 250      # Python frames kept free below the recursion limit for the walks one inlined call makes
_HEADROOM_FROM = 12       # the stack is measured only past this many inlined calls (each measure walks the frames)


FRAMES_PER_CALL = 40      # Python frames one inlined call may take (measured: ~30 in the leakage analysis, stop 53)


@contextmanager
def stack_room():
    """Raise ``sys.getrecursionlimit()``, for the block, so that :data:`MAX_DEPTH` inlined calls fit above the
    caller's own stack (a test runner, a CLI, a worker pool each start the analysis at another depth): the
    analysis's depth budget is then :data:`MAX_DEPTH`, the same wherever it runs, instead of what the caller's
    frames leave. Only raised, never lowered; restored on exit when nobody changed it meanwhile. The limit is the
    process's (Python docs, ``sys.setrecursionlimit``); Python 3.11 runs Python-to-Python calls without C
    recursion, so the raised limit stays within the thread's C stack."""
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    need = depth + MAX_DEPTH * FRAMES_PER_CALL + STACK_HEADROOM
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if need > old and sys.getrecursionlimit() == need:
            sys.setrecursionlimit(old)


def _near_recursion_limit() -> bool:
    """Whether this thread's Python stack is within :data:`STACK_HEADROOM` frames of ``sys.getrecursionlimit()``:
    each inlined call costs the interpreter's (and its semantic hooks') own frames, so a chain shorter than
    :data:`MAX_DEPTH` can still exhaust the stack; it is then cut with the same report instead of a RecursionError.
    ``sys._getframe(n)`` raises ValueError when the stack is less than ``n`` frames deep (Python docs, sys._getframe)."""
    try:
        sys._getframe(sys.getrecursionlimit() - STACK_HEADROOM)
    except ValueError:
        return False
    return True


class Return(Exception):
    def __init__(self, value: Any):
        self.value = value


class Budget(Exception):
    pass


@dataclass
class Frame:
    locals: dict[str, Any]
    qualname: str
    loops: list[tuple[int, int]] = field(default_factory=list)  # (loop id, line) of open loops a subclass tracks
    returned: Any = None  # what a `return` in a branch that may not run gave (see Interpreter.follow_branch_returns)


class Interpreter(SemanticHooks):
    """Abstract interpretation of one module (subclass it to give library calls a meaning).

    Attributes:
        complete: False once a budget ran out or a construct was not modelled; ``stopped`` says why.
    """

    follow_branch_returns = False
    """Whether the code after an ``if`` whose test is unknown still runs when that branch returns (the function
    may well go on); off, the first ``return`` reached ends the function."""

    follow_handler_returns = False
    """Whether the code after a ``try`` still runs when one of its ``except`` bodies returns (``except
    ValueError: write_fallback(); return`` before the model code); off, that ``return`` ends the function."""

    follow_guard_returns = False
    """Whether a ``return`` of nothing that ends an ``if`` branch under an unknown test leaves the function going on
    (a guard: ``if len(df) < 50: log(...); return None`` before the model code); off, it ends the function."""

    join_one_armed_if = False
    """Whether a name an ``if`` without ``else`` rebinds is joined with its value before the ``if`` (the test may
    be false: ``fill = s.median()``, then ``if isna(fill): fill = 0``); off, the branch's value replaces it."""

    def __init__(self, tree: ast.Module, describe=lambda line: f"line {line}"):
        self.tree = tree
        self.describe_line = describe
        self.globals: dict[str, Any] = {}
        self.complete = True
        self.stopped: str | None = None
        self._stack: list[int] = []
        self._executed: set[int] = set()
        self._unfollowed_funcs: list[Func] = []  # handed to a call the interpreter does not follow (_handed_on)
        self._ops = 0

    # ------------------------------------------------------------------ driver

    def interpret(self) -> None:
        frame = Frame(self.globals, "<module>")
        try:
            self._block(self.tree.body, frame)
            for value in list(self.globals.values()):  # functions and methods the module never called
                for func in functions_of(value):
                    if id(func.node) not in self._executed and not self._left_uncalled(func):
                        self._call_opaque(func)
            for func in self._unfollowed_funcs:  # a callback the module never calls itself, shadowed or nested
                if id(func.node) not in self._executed:
                    self._call_opaque(func)
        except Budget:
            self._incomplete(f"operation budget of {MAX_OPERATIONS} exhausted")
        except Return:
            pass
        except (RecursionError, MemoryError, ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
            # a construct the interpreter does not model: keep what was found, say where it stopped
            self._incomplete(f"stopped at an unsupported construct ({type(exc).__name__}: {exc})")

    def _incomplete(self, why: str) -> None:
        if self.complete:
            self.complete, self.stopped = False, why

    def _call_opaque(self, func: Func) -> Any:  # a function the module never calls, on opaque arguments: its return
        args = func.node.args
        names = [a.arg for a in args.posonlyargs + args.args]
        values: list[Any] = []
        for i, name in enumerate(names):
            if i == 0 and func.owner is not None and name in ("self", "cls"):
                values.append(self._opaque_self(func) if name == "self" else Instance(func.owner))
            else:
                values.append(self._opaque(name, func.node.lineno))
        try:
            return self._invoke(func, values, {}, func.node.lineno)
        except Return as ret:
            return ret.value

    def _opaque_self(self, func: Func) -> Instance:
        """``self`` of a method the module never calls: an instance whose ``__init__`` ran on opaque arguments, so
        the attributes it makes itself (``self.scaler = StandardScaler()``) are what the method reads (wave 63: a
        research module's ``tune_hyperparameters`` scales with the scaler its class's ``__init__`` made). An argument
        it keeps as it is (``self.data = train_test_data``) is dropped, as on a bare instance: an object passed in
        may hold a training and a test table under its fields (wave 61's ``TrainTestData``), not one table's rows.
        A bare instance for ``__init__`` itself or a class without one."""
        init = func.owner.methods.get("__init__") if func.owner is not None else None
        if init is None or init is func:
            return Instance(func.owner)
        instance = Instance(func.owner)
        try:
            self._invoke(init, [instance, *(self._opaque(a.arg, init.node.lineno) for a in init.node.args.args[1:])],
                         {}, init.node.lineno)
        except Return:
            pass
        instance.attrs = {k: v for k, v in instance.attrs.items() if not isinstance(v, Opaque)}
        return instance

    def _tick(self) -> None:
        self._ops += 1
        if self._ops > MAX_OPERATIONS:
            raise Budget

    # ------------------------------------------------------------------ statements

    def _block(self, body: list[ast.stmt], frame: Frame) -> None:
        for stmt in body:
            self._stmt(stmt, frame)

    def _stmt(self, node: ast.stmt, frame: Frame) -> None:  # noqa: C901 - one branch per statement kind
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
            raise Return(self._expr(node.value, frame) if node.value is not None else Const(None))
        elif isinstance(node, ast.If):
            known = self._truth(node.test, frame)
            if known is None and self._flag_picks(node):
                known = self._flag(node.test, frame)
            if known is not None:  # `if not scaler:` with a scaler bound: only the branch that runs
                self._block(node.body if known else node.orelse, frame)
            elif is_main_guard(node.test) or not node.orelse and not self.join_one_armed_if:
                self._branch(node.body, frame, self._guard_follows(node))
            elif not node.orelse:  # the branch may not run: what it rebinds joins what was there
                before = dict(frame.locals)
                self._branch(node.body, frame, self._guard_follows(node))
                for name, value in list(frame.locals.items()):
                    if name in before and before[name] is not value:
                        frame.locals[name] = self._join(value, before[name])
            else:  # both branches from the same state, then what either may have bound
                before = dict(frame.locals)
                self._branch(node.body, frame)
                after_body = dict(frame.locals)
                frame.locals.clear()
                frame.locals.update(before)
                self._branch(node.orelse, frame)
                for name, value in after_body.items():
                    other = frame.locals.get(name, UNKNOWN)
                    if other is not value:
                        frame.locals[name] = self._join(value, other)
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
            for handler in node.handlers:  # runs only when the body failed (see follow_handler_returns)
                self._branch(handler.body, frame, self.follow_handler_returns)
            self._block(node.orelse, frame)
            self._block(node.finalbody, frame)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qual = node.name if frame.qualname == "<module>" else f"{frame.qualname}.{node.name}"
            frame.locals[node.name] = Func(node, qual, closure=None if frame.qualname == "<module>" else frame.locals)
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

    def _branch(self, body: list[ast.stmt], frame: Frame, follow: bool | None = None) -> None:
        """A branch whose test is unknown: with :attr:`follow_branch_returns` (or ``follow``), a ``return`` in it
        does not end the function (``if args.eval: evaluate(); return`` before the training loop)."""
        if follow is None:
            follow = self.follow_branch_returns or self.follow_guard_returns and _guard_exit(body)
        if not follow:
            self._block(body, frame)
            return
        try:
            self._block(body, frame)
        except Return as ret:
            if frame.returned is None:
                frame.returned = ret.value

    def _class(self, node: ast.ClassDef, frame: Frame) -> Any:
        qual = node.name if frame.qualname == "<module>" else f"{frame.qualname}.{node.name}"
        cls = ClassVal(node, qual, bases=frozenset(ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases))
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                cls.methods[item.name] = Func(item, f"{qual}.{item.name}", owner=cls)
        return cls

    def _for(self, node: ast.For, frame: Frame) -> None:
        source = self._expr(node.iter, frame)
        if not self._iterate(source, node, frame):
            inner = getattr(source, "inner", source)
            enumerated = inner is not source
            if isinstance(inner, Tup) and self._unrolled(inner.items):
                for i, item in enumerate(inner.items):  # a short literal list: run the body once per item
                    self._bind(node.target, Tup((Const(i), item)) if enumerated else item, frame, node.lineno)
                    self._block(node.body, frame)
                    if isinstance(node.target, ast.Name) and not enumerated:
                        self._loop_item_done(item, frame.locals.get(node.target.id), frame)
            else:
                self._bind(node.target, UNKNOWN, frame, node.lineno)
                self._block(node.body, frame)
        self._block(node.orelse, frame)

    def _unrolled(self, items: tuple[Any, ...]) -> bool:
        """A ``for`` over a literal list of these items runs its body once per item (a short list: at most 8);
        a client may walk longer lists whose items it knows to matter one by one."""
        return 0 < len(items) <= 8

    def _bind(self, target: ast.expr, value: Any, frame: Frame, line: int) -> None:
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
            else:
                self._bind_item(target, owner, value, frame, line)
        elif isinstance(target, ast.Subscript):
            owner = self._expr(target.value, frame)
            key = self._expr(target.slice, frame)
            if isinstance(owner, Container) and isinstance(key, Const):
                owner.items[key.value] = value
            elif isinstance(target.value, ast.Name) and isinstance(key, Const) and self._may_become_container(owner):
                self._store(target.value.id, Container({key.value: value}), frame)  # d = {}; d['train'] = ...
            else:
                self._bind_item(target, owner, value, frame, line)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, UNKNOWN, frame, line)

    def _store(self, name: str, value: Any, frame: Frame) -> None:
        """Rebind ``name`` where it lives (this frame's locals, else the module's globals)."""
        if name in frame.locals or name not in self.globals:
            frame.locals[name] = value
        else:
            self.globals[name] = value

    # ------------------------------------------------------------------ expressions

    def _expr(self, node: ast.expr | None, frame: Frame) -> Any:  # noqa: C901 - one branch per expression kind
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
            items: list[Any] = []
            for e in node.elts:  # [a, *parts]: a starred tuple's items are spliced in, as Python does
                value = self._expr(e.value if isinstance(e, ast.Starred) else e, frame)
                items.extend(value.items if isinstance(e, ast.Starred) and isinstance(value, Tup) else [value])
            return Tup(tuple(items))
        if isinstance(node, ast.BinOp):
            left, right = self._expr(node.left, frame), self._expr(node.right, frame)
            if isinstance(left, Const) and isinstance(right, Const):
                return fold(node.op, left.value, right.value)
            return self._combine([left, right])
        if isinstance(node, ast.UnaryOp):
            operand = self._expr(node.operand, frame)
            if isinstance(operand, Const) and isinstance(node.op, ast.USub) and isinstance(operand.value, (int, float)):
                return Const(-operand.value)
            return self._combine([operand])
        if isinstance(node, ast.Compare):
            return self._compare([self._expr(v, frame) for v in [node.left, *node.comparators]])
        if isinstance(node, ast.BoolOp):
            return self._combine([self._expr(v, frame) for v in node.values])
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
        if isinstance(node, ast.JoinedStr):  # f"{knn.score(X_test, y_test):.2f}": its fields run, the text is unknown
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    self._expr(part.value, frame)
            return UNKNOWN
        if isinstance(node, ast.Dict):
            items = {}
            for k, v in zip(node.keys, node.values):
                key, value = (self._expr(k, frame) if k is not None else UNKNOWN), self._expr(v, frame)
                if isinstance(key, Const):
                    items[key.value] = value
            return Container(items)
        return UNKNOWN

    def _guard_follows(self, node: ast.If) -> bool | None:
        """Whether the code after ``node`` (an ``if`` without ``else`` whose test is unknown) still runs when its body
        returns: ``True`` for a guard a subclass recognises; ``None`` leaves it to :attr:`follow_branch_returns` and
        :attr:`follow_guard_returns`."""
        return None

    def _flag_picks(self, node: ast.If) -> bool:
        """Whether a literal ``True``/``False`` bound to the name ``node`` tests picks the branch that runs (a
        subclass says for which branches; here never: an unknown flag runs both)."""
        return False

    def _flag(self, test: ast.expr, frame: Frame) -> bool | None:
        """``flag`` / ``not flag`` with a literal bool bound to ``flag`` (``encode(df, fit_dv=False)``): its truth."""
        negate = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        name = test.operand if negate else test
        value = self._expr(name, frame) if isinstance(name, ast.Name) else None
        return value.value != negate if isinstance(value, Const) and isinstance(value.value, bool) else None

    def _truth(self, test: ast.expr, frame: Frame) -> bool | None:
        """Whether ``test`` is known true or false: ``x``, ``not x``, ``x is None``, ``x is not None`` where ``x``
        holds a constant or an object (an estimator, an instance, a function), ``x is True``/``x is False`` where
        ``x`` holds a literal bool, and an ``and``/``or`` whose known operands settle it; ``None`` when unknown."""
        negate = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        if negate:
            test = test.operand
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
            inner = self._truth(test.left, frame)
            result = None if inner is None else (not inner if isinstance(test.ops[0], ast.Is) else inner)
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, bool):
            # `if upsampling is True:` with upsampling a literal bool the caller passed: only the branch that runs
            value = self._expr(test.left, frame)
            known = isinstance(value, Const) and isinstance(value.value, bool)
            result = None if not known else (value.value is test.comparators[0].value) == isinstance(
                test.ops[0], ast.Is)
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)) \
                and isinstance(test.comparators[0], ast.Constant) and isinstance(test.left, ast.Name):
            # `if suffix == '':` with suffix a literal the caller passed: only the branch that runs
            value, literal = self._expr(test.left, frame), test.comparators[0].value
            known = isinstance(value, Const) and isinstance(value.value, (str, int)) and isinstance(literal, (str, int))
            result = None if not known else (value.value == literal) == isinstance(test.ops[0], ast.Eq)
        elif isinstance(test, ast.BoolOp):
            # `if path is not None and path.endswith(".csv"):` with path None: an operand known false settles an
            # `and` (known true an `or`, Python language reference "Boolean operations"); all known decide it too
            settles = isinstance(test.op, ast.Or)
            known = []
            for operand in test.values:
                known.append(self._truth(operand, frame))
                if known[-1] is settles:
                    break
            result = settles if known[-1] is settles else (not settles if None not in known else None)
        elif isinstance(test, ast.Constant):  # `if False:` / `if 0:`: a block switched off by hand never runs
            result = bool(test.value)
        elif isinstance(test, ast.Name):
            value = self._expr(test, frame)
            if isinstance(value, Const) and value.value is None:
                result = False
            else:
                result = True if self._is_object(value) else None
        else:
            self._expr(test, frame)
            return None
        return None if result is None else result != negate

    def _is_object(self, value: Any) -> bool:
        """``value`` is an object whose truth is True (a subclass adds its own kinds)."""
        return isinstance(value, (Instance, Func, ClassVal))

    def _lookup(self, name: str, frame: Frame) -> Any:
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
        if isinstance(base, ClassVal) and attr in base.methods:  # Admission.load(...): a static or class method
            method = base.methods[attr]
            return Bound(base, attr) if _decorated(method, "classmethod") else method
        return self._attribute_value(base, attr)  # also an instance's attribute its class does not define

    def _subscript(self, base: Any, index_node: ast.expr, frame: Frame, line: int) -> Any:
        if isinstance(base, (Tup, Container)):
            index = self._expr(index_node, frame)
            if isinstance(base, Container):
                return base.items.get(index.value, UNKNOWN) if isinstance(index, Const) else UNKNOWN
            if isinstance(index, Const) and isinstance(index.value, int) and -len(base.items) <= index.value < len(
                    base.items):
                return base.items[index.value]
            return UNKNOWN
        return self._subscript_value(base, index_node, frame, line)

    # ------------------------------------------------------------------ calls

    def _args(self, node: ast.Call, frame: Frame) -> tuple[list[Any], dict[str, Any]]:
        args: list[Any] = []
        for a in node.args:
            value = self._expr(a.value if isinstance(a, ast.Starred) else a, frame)
            # f(*pair) with pair a known tuple (train, test = g(); Model(*g())): its items are the arguments
            args.extend(value.items if isinstance(a, ast.Starred) and isinstance(value, Tup) else [value])
        kwargs = {k.arg: self._expr(k.value, frame) for k in node.keywords if k.arg is not None}
        for k in node.keywords:
            if k.arg is None:
                self._expr(k.value, frame)
        return args, kwargs

    def _call(self, node: ast.Call, frame: Frame) -> Any:
        func = self._expr(node.func, frame)
        args, kwargs = self._args(node, frame)
        line = node.lineno
        if isinstance(func, Func):
            return self._invoke(func, args, kwargs, line)
        if isinstance(func, ClassVal):
            return self._instantiate(func, args, kwargs, line)
        if isinstance(func, Bound) and isinstance(func.receiver, ClassVal):  # a class method: cls comes first
            return self._invoke(func.receiver.methods[func.name], [func.receiver, *args], kwargs, line)
        if isinstance(func, Bound):
            method = func.receiver.cls.methods.get(func.name) if isinstance(func.receiver, Instance) else None
            if method is not None:  # self.helper(x) of a static method takes no self; of a class method, the class
                first = [] if _decorated(method, "staticmethod") else [
                    func.receiver.cls if _decorated(method, "classmethod") else func.receiver]
                return self._invoke(method, [*first, *args], kwargs, line)
            # a library object's method, or one a user class inherits from a library base (nn.Module.state_dict)
            return self._method_value(func.receiver, func.name, args, kwargs, node, frame)
        self._handed_on(args, kwargs)
        if isinstance(func, Ref):
            return self._library(func, args, kwargs, node, frame)
        return self._call_value(func, args, kwargs, node)

    def _handed_on(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        """Keep the functions handed to a call the interpreter does not follow (a library's ``fmin(fn=objective)``,
        ``study.optimize(objective)``): the library calls them, so their bodies run. The module-level names alone
        miss two of them: a def a later def of the same name shadows (a notebook's ``def objective`` per model,
        each handed to its own ``fmin``) and a def nested in a function (``main()`` defining the objective over its
        own ``X_test``). :meth:`interpret` runs those still unexecuted at the end, on opaque arguments, the
        enclosing call's names in their closure."""
        self._unfollowed_funcs.extend(v for v in [*args, *kwargs.values()]
                                      if isinstance(v, Func) and v not in self._unfollowed_funcs)

    def _invoke(self, func: Func, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        key = id(func.node)
        self._executed.add(key)
        if key in self._stack:  # recursion: cut at the first repeat
            return UNKNOWN
        if len(self._stack) >= MAX_DEPTH or (len(self._stack) >= _HEADROOM_FROM and _near_recursion_limit()):
            self._incomplete(f"did not follow the call of {func.qualname} on {self.describe_line(line)}: the call "
                             f"chain is deeper than {len(self._stack)} calls")
            return UNKNOWN
        params = func.node.args
        positional = params.posonlyargs + params.args
        local: dict[str, Any] = dict(func.closure) if func.closure else {}  # the enclosing call's names, then params
        defaults = [None] * (len(positional) - len(params.defaults)) + list(params.defaults)
        outer = Frame(self.globals, func.qualname)
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
        frame = Frame(local, func.qualname)
        self._stack.append(key)
        try:
            self._block(func.node.body, frame)
        except Return as ret:
            return ret.value
        finally:
            self._stack.pop()
        return frame.returned if frame.returned is not None else Const(None)

    def _instantiate(self, cls: ClassVal, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        special = self._class_value(cls)
        if special is not None:
            return special
        instance = Instance(cls)
        init = cls.methods.get("__init__")
        if init is not None:
            self._invoke(init, [instance, *args], kwargs, line)
        return instance


def _decorated(func: Func, name: str) -> bool:
    """``func`` is defined under ``@name`` (``@classmethod``, ``@staticmethod``)."""
    return any(ast.unparse(d).rsplit(".", 1)[-1] == name for d in func.node.decorator_list)


def _guard_exit(body: list[ast.stmt]) -> bool:
    """The branch ends in ``return`` / ``return None`` / ``return <constant>`` and returns nowhere else: an early exit
    that hands back nothing the caller computes with (a guard clause), not an alternative result."""
    last = body[-1] if body else None
    if not (isinstance(last, ast.Return) and (last.value is None or isinstance(last.value, ast.Constant))):
        return False
    return not any(isinstance(n, ast.Return) for stmt in body[:-1] for n in ast.walk(stmt))


__all__ = ["Budget", "Frame", "Interpreter", "MAX_DEPTH", "MAX_OPERATIONS", "Return", "stack_room"]
