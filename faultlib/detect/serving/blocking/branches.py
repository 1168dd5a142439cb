"""Blocking calls in a branch that no caller's arguments take: the branch never runs, so it blocks nothing.

``if output_path: open(output_path, "wb")`` in a helper whose every call leaves ``output_path`` at its default
``None``; ``if resize_mode == 0:`` in a helper every caller calls with ``1``; ``if progress:`` where the only call
passes ``False``. The test must be on a parameter of the call's own function -- ``p``, ``not p``, ``p == c``,
``p != c``, ``p is c``, ``p is not c`` with a constant ``c`` -- and what that parameter holds must be known at
every call: each call of the analysed files that may be this function (every call under its name that does not
resolve to another function) passes a constant or leaves a constant default, there is at least one such call, the
function is never used other than called (handed to a thread, a decorator, ``partial``) and has no decorator that
may call it differently. A ``**options`` argument counts when ``options`` is a dict display with constant keys built
once in the caller and never changed (a parameter it leaves out takes its default), and a function handed to
``threading.Thread(target=...)`` is not "used other than called" for this (that thread is off the loop). Only the
calls made on the loop count (in a function the analysis reached from an ``async
def``): a command-line script of the same package may pass a path where every request passes ``None``. A public
method of a class deriving from a third-party class is not judged by the analysed files' calls alone: the framework
that owns the base calls it too, with arguments of its own (Home Assistant's flow manager calls
``async_step_<step_id>(user_input)`` with the submitted form, while the flow itself calls ``await
self.async_step_mosques()`` to show it: https://developers.home-assistant.io/docs/data_entry_flow_index/#defining-
steps; discord.py calls a cog's listeners and commands). A constructor's parameter is judged by the constructions of
its class (``Backend(path, device="cpu")`` leaves ``data=None``, so ``if data: open(data)`` in ``__init__`` never runs;
held-out wave 66: YOLOv5's ``DetectMultiBackend`` built per message by a nats-py subscriber), when the class has no
subclass in the analysed files, no base but a plain one (a ``torch.nn.Module`` is built by the code using it, a
framework's base class may be built by the framework), and its name is read only to be called or tested by
``isinstance``. Anything else keeps the call a blocker.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted, module_nodes_of
from faultlib.detect.serving.blocking.instance_flags import flag_parameter
from faultlib.detect.serving.blocking.type_branches import TypeBranches
from faultlib.pyflow.walk import children

MAX_CALLS = 40
"""Calls under one name looked at; more: the parameter's values are taken as unknown."""
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})
_NOT_FRAMEWORKS = ("builtins.", "typing.", "typing_extensions.", "abc.", "enum.", "collections.", "pydantic.")
"""Bases that call no method of their subclasses by name: the language's (a dotless name is a builtin: ``object``,
``Exception``), typing's and data models'."""
_BUILDERLESS = ("torch.nn.", "builtins.", "typing.", "abc.", "enum.", "object")
"""Library bases that never construct a subclass themselves: a ``torch.nn.Module`` subclass is built by the code that
uses it (``Detector(weights)``), as a plain class is."""
_UNKNOWN = object()


class Branches:
    """Per analysis: which blocking calls sit in branches no caller takes (see the module docstring)."""

    def __init__(self, index, reached: set[int] | None = None) -> None:
        self.index = index
        self.reached = reached  # ids of the functions run on the loop: other callers do not count
        self._values: dict[tuple[int, str], list | None] = {}
        self._as_values: tuple[set[str], set[str]] | None = None
        self._as_classes: set[str] | None = None
        self.types = TypeBranches(index, reached, _guards, self.used_as_value) if reached is not None else None

    def never_taken(self, call: ast.AST, func: Func) -> bool:
        """Whether ``call`` in ``func`` sits in a branch of an ``if`` no caller of ``func`` takes (a constant's
        test here, an ``isinstance`` test in :mod:`~faultlib.detect.serving.blocking.type_branches`)."""
        if any(not _plain(d) for d in func.node.decorator_list):
            return False
        if self.types is not None and self.types.never_taken(call, func):
            return True
        if func.parent is not None:
            return False
        for test, in_body in _guards(func.node.body, call):
            param, check = _parameter_test(test)
            if isinstance(param, ast.Attribute):  # if self.dnn: the constructor parameter the attribute keeps
                kept = flag_parameter(self.index, func, param)
                values = None if kept is None else self._passed(*kept)
            else:
                values = None if param is None else self._passed(func, param)
            if values is None:
                continue
            outcomes = {check(v) for v in values}
            if (True if in_body else False) not in outcomes:
                return True
        return False

    def through_untaken(self, path) -> bool:
        """Whether a step of ``path`` (``((func, line), ...)``, the calls that lead to a site) is a call in a branch
        no caller of its function takes: ``if type == "whisper": return WhisperASR(**kw)`` in a factory every caller
        on the loop calls with ``"faster_whisper"`` (held-out wave 58) never constructs the class, so what its
        constructor does is never reached that way. Every call written on the step's line must sit in such a branch, and
        no other call of the same function there may lead on to the path's next function: the analysis keeps one path
        per site, and ``check_requirements(...)`` written in an untaken ``elif dnn:`` and again in a taken ``elif
        onnx:`` reaches its blockers all the same (held-out wave 66)."""
        for step, (func, line) in enumerate(path):
            calls = [n for n in func.nodes if isinstance(n, ast.Call) and n.lineno == line]
            if calls and all(self.never_taken(call, func) for call in calls) and not (
                    step + 1 < len(path) and self._called_elsewhere(func, line, path[step + 1][0])):
                return True
        return False

    def _called_elsewhere(self, func: Func, line: int, callee: Func) -> bool:
        """Whether ``func`` calls ``callee`` on another line than ``line``, outside any branch no caller takes."""
        return any(isinstance(n, ast.Call) and n.lineno != line and self.index.callee(n.func, func) is callee
                   and not self.never_taken(n, func) for n in func.nodes)

    def _passed(self, func: Func, param: str) -> list | None:
        key = (id(func), param)
        if key not in self._values:
            self._values[key] = self._compute(func, param)
        return self._values[key]

    def _compute(self, func: Func, param: str) -> list | None:
        args = func.node.args
        positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        if param not in positional and param not in [a.arg for a in args.kwonlyargs]:
            return None
        default = _default(args, param)
        constructor = func.cls if func.node.name == "__init__" and func.cls is not None else None
        name = func.node.name if constructor is None else constructor.node.name
        if constructor is not None:  # Backend(path): the class's constructions are the calls of its __init__
            if self._constructed_otherwise(constructor):
                return None
        elif self.used_as_value(func) or self._framework_method(func):
            return None
        bound = func.cls is not None and not any(dotted(d) == ["staticmethod"] for d in func.node.decorator_list)
        position = positional.index(param) - (1 if bound else 0) if param in positional else None
        calls = self.index.infer.sites().get(name, [])
        if not calls or len(calls) > MAX_CALLS:
            return None
        values, seen = [], False
        for call, caller in calls:
            if self.reached is not None and id(caller) not in self.reached:
                continue  # a command-line script's call: what it passes never reaches the loop
            target = self.index.callee(call.func, caller)
            if target is not (func if constructor is None else constructor):
                if target is None:
                    return None  # may be this function, through a receiver of unknown type
                continue
            spread = _spread(call, caller)  # f(**opts) with `opts = {"k": v, ...}` built once in the caller
            if any(isinstance(a, ast.Starred) for a in call.args) or spread is None:
                return None
            if bound and isinstance(call.func, ast.Attribute) and isinstance(
                    self.index.callee(call.func.value, caller), Klass):
                return None  # Service.method(obj, ...): `self` passed by hand, the positions shift
            seen = True
            value = _constant(_argument(call, param, position) or spread.get(param), default)
            if value is _UNKNOWN:
                return None
            values.append(value)
        return values if seen else None

    def _constructed_otherwise(self, klass: Klass) -> bool:
        """Whether ``klass`` may be built other than by a call of its name seen here: it has subclasses in the
        analysed files (their constructions run this ``__init__`` under other names), a base that is not the
        language's or a library's plain data model (``super().__init__`` from elsewhere aside, a framework may build
        it), or its name is read as a value other than as a call's callee or an ``isinstance``/``issubclass`` class
        (``factory=Backend``: called somewhere with arguments unseen)."""
        if self.index.subclasses(klass):
            return True
        if any(isinstance(b, str) and "." in b and not b.startswith(_BUILDERLESS) for b in self.index.bases(klass)):
            return True
        return klass.node.name in self._class_reads()

    def _class_reads(self) -> set[str]:
        """Names read as values other than as a call's callee or a class tested by ``isinstance``/``issubclass``."""
        if self._as_classes is None:
            found: set[str] = set()
            for module in self.index.distinct_modules():
                skip = set()
                for node in module_nodes_of(module, ast.Call):
                    skip.add(id(node.func))
                    if isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass") and len(
                            node.args) == 2:
                        classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                        skip.update(id(c) for c in classes)
                found.update(n.id for n in module_nodes_of(module, ast.Name)
                             if isinstance(n.ctx, ast.Load) and id(n) not in skip)
            self._as_classes = found
        return self._as_classes

    def _framework_method(self, func: Func) -> bool:
        """Whether ``func`` is a public method of a class with a third-party base (a framework may call it)."""
        return (func.cls is not None and not func.node.name.startswith("_")
                and self.index.subclass_of(func.cls, lambda base: "." in base and not base.startswith(_NOT_FRAMEWORKS)))

    def used_as_value(self, func: Func) -> bool:
        """Whether ``func``'s name is read other than as a call's callee anywhere in the analysed files
        (``Thread(target=self.play)`` aside): for a method, as an attribute (``handler=self.say``) -- a bare name of
        that spelling is another function's, a method is reached through its object (held-out wave 58: a server's
        own ``tts`` coroutine handed to ``serve(tts, ...)`` beside a TTS class's ``tts`` method); for a function, as a
        name or an attribute (``module.say``)."""
        names, attributes = self._reads()
        return func.node.name in attributes or (func.cls is None and func.node.name in names)

    def _reads(self) -> tuple[set[str], set[str]]:
        """The names read as bare names and as attributes, other than as a call's callee."""
        if self._as_values is None:
            names: set[str] = set()
            attributes: set[str] = set()
            for module in self.index.distinct_modules():
                callees = set()
                for node in module_nodes_of(module, ast.Call):  # the tables every function keeps, no new walk
                    callees.add(id(node.func))
                    if (dotted(node.func) or [""])[-1] == "Thread":  # Thread(target=self.play): off the loop
                        callees.update(id(k.value) for k in node.keywords if k.arg == "target")
                for node in module_nodes_of(module, (ast.Name, ast.Attribute)):
                    if isinstance(node.ctx, ast.Load) and id(node) not in callees:
                        if isinstance(node, ast.Name):
                            names.add(node.id)
                        else:
                            attributes.add(node.attr)
            self._as_values = (names, attributes)
        return self._as_values


def _plain(decorator: ast.expr) -> bool:
    return dotted(decorator) is not None and dotted(decorator)[-1] in _PLAIN_DECORATORS


def _guards(stmts: list[ast.stmt], call: ast.AST) -> list[tuple[ast.expr, bool]]:
    """The ``if`` tests around ``call`` in ``stmts`` (outermost first), each with whether ``call`` is in its body."""
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or not _contains(stmt, call):
            continue
        if isinstance(stmt, ast.If) and not _contains(stmt.test, call):
            in_body = any(_contains(s, call) for s in stmt.body)
            return [(stmt.test, in_body), *_guards(stmt.body if in_body else stmt.orelse, call)]
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(stmt, field, None) or []
            for part in inner:
                found = _guards(part.body if isinstance(part, (ast.ExceptHandler, ast.match_case)) else [part], call)
                if found:
                    return found
        return []
    return []


def _contains(node: ast.AST, call: ast.AST) -> bool:
    """Whether ``call`` is ``node`` or under it (depth first, stopping at it: no list of the whole subtree)."""
    todo = [node]
    pop, extend = todo.pop, todo.extend
    while todo:
        found = pop()
        if found is call:
            return True
        extend(children(found))
    return False


def _parameter_test(test: ast.expr):
    """``(parameter, value -> bool)`` for a test on one parameter against a constant, else ``(None, None)``; the
    parameter is a name, or an ``ast.Attribute`` for ``self.<name>`` (:mod:`~faultlib.detect.serving.blocking.
    instance_flags`)."""
    if isinstance(test, ast.Name):
        return test.id, bool
    if _on_self(test):
        return test, bool
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id, lambda v: not v
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _on_self(test.operand):
        return test.operand, lambda v: not v
    if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1
            and isinstance(test.comparators[0], ast.Constant)):
        c, op = test.comparators[0].value, test.ops[0]
        same = lambda v: type(v) is type(c) and v == c  # noqa: E731 -- `1 == True` must not count
        checks = {ast.Eq: same, ast.Is: same, ast.NotEq: lambda v: not same(v), ast.IsNot: lambda v: not same(v)}
        if type(op) in checks:
            return test.left.id, checks[type(op)]
    return None, None


def _on_self(test: ast.expr) -> bool:
    """``<name>.<attribute>`` on a bare name (whether the name is the method's ``self`` is checked later)."""
    return isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name)


def _spread(call: ast.Call, caller: Func) -> dict[str, ast.expr] | None:
    """The keywords ``call`` passes through ``**name``, each ``name`` a local of ``caller`` bound once to a dict
    display with constant string keys and never changed (``opts = {"language": lang}``; ``f(**opts)``), as
    ``{key: value}``; ``{}`` when it has no ``**``; None when some ``**`` is anything else."""
    found: dict[str, ast.expr] = {}
    for keyword in call.keywords:
        if keyword.arg is not None:
            continue
        if not isinstance(keyword.value, ast.Name):
            return None
        name = keyword.value.id
        bound = [n for n in caller.nodes if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == name for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        if len(bound) != 1 or not isinstance(bound[0], ast.Assign) or not isinstance(bound[0].value, ast.Dict):
            return None
        display = bound[0].value
        if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in display.keys):
            return None  # a `**other` inside the display, or a computed key
        if any(isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.value, ast.Name) and n.value.id == name
               and not (isinstance(n, ast.Attribute) and n.attr == "get") for n in caller.nodes):
            return None  # opts["x"] = ..., opts.update(...): changed after it was built
        found.update(zip((k.value for k in display.keys), display.values))
    return found


def _default(args: ast.arguments, param: str):
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return defaults.get(param, _UNKNOWN)


def _argument(call: ast.Call, param: str, position: int | None) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    return call.args[position] if position is not None and 0 <= position < len(call.args) else None


def _constant(arg: ast.expr | None, default):
    if arg is None:
        return default.value if isinstance(default, ast.Constant) else _UNKNOWN
    return arg.value if isinstance(arg, ast.Constant) else _UNKNOWN
