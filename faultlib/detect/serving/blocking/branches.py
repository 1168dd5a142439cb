"""Blocking calls in a branch that no caller's arguments take: the branch never runs, so it blocks nothing.

``if output_path: open(output_path, "wb")`` in a helper whose every call leaves ``output_path`` at its default
``None``; ``if resize_mode == 0:`` in a helper every caller calls with ``1``; ``if progress:`` where the only call
passes ``False``. A test is ``x``, ``not x``, ``x == c``, ``x != c``, ``x is c`` or ``x is not c`` with a constant
``c``, or ``and``/``or`` of tests, one of which decides (``p and q`` is never true when ``p`` never is; inside a
statement, ``p and f()``, ``p or f()`` and ``f() if p else g()`` guard the call the same way). ``x`` is one of:

- a parameter of the call's own function, holding what every call of the function passes;
- a parameter of a constructor, whose calls are the constructions of its class: ``Backend(path, device="cpu")``
  leaves ``data=None``, so ``if data: open(data)`` in ``__init__`` never runs (held-out wave 66: YOLOv5's
  ``DetectMultiBackend`` built per message by a nats-py subscriber);
- ``self.attr`` where the attribute only ever keeps a constructor parameter (``self.dnn = dnn``), holding what the
  constructions pass for it (:mod:`~faultlib.detect.serving.blocking.instance_flags`);
- on a call path, ``self.attr`` of an object built earlier on the path, holding what that construction set
  (:mod:`~faultlib.detect.serving.blocking.receiver_flags`).

What a parameter holds must be known at every call: each call of the analysed files that may be this function
(every call under its name that does not resolve to another function) passes a constant or leaves a constant
default, or hands on its own parameter unchanged (``self.xpath(q, auto_save)`` in ``css(self, q, auto_save=False)``
passes whatever the callers of ``css`` pass), and there is at least one such call. A ``**options`` argument counts
when ``options`` is a dict display with constant keys built once in the caller and never changed (a parameter it
leaves out takes its default). Only the calls made on the loop count (in a function the analysis reached from an
``async def``): a command-line script of the same package may pass a path where every request passes ``None``.

The calls seen must be all the calls. The function is never used other than called (handed to a decorator or to
``partial``; ``threading.Thread(target=...)`` aside, that thread is off the loop) and has no decorator that may call
it differently. A public method of a class deriving from a third-party class is not judged by the analysed files'
calls alone: the framework that owns the base calls it too, with arguments of its own (Home Assistant's flow
manager calls ``async_step_<step_id>(user_input)`` with the submitted form, while the flow itself calls ``await
self.async_step_mosques()`` to show it:
https://developers.home-assistant.io/docs/data_entry_flow_index/#defining-steps; discord.py calls a cog's listeners
and commands). A class has no subclass in the analysed files, no base but a plain one (a ``torch.nn.Module`` is
built by the code using it, a framework's base class may be built by the framework), and its name is read only to
be called or tested by ``isinstance``. Anything else keeps the call a blocker.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.constant_returns import always_leaves, held_constants
from faultlib.detect.serving.blocking.instance_flags import flag_parameter
from faultlib.detect.serving.blocking.model import Func, Klass, dotted, module_nodes_of
from faultlib.detect.serving.blocking.receiver_flags import ReceiverFlags
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
        self._guards_memo: dict[tuple[int, int], list[tuple[ast.expr, bool]]] = {}
        self._parents: dict[int, dict[int, ast.AST]] = {}  # per function body: each node's parent (one walk)
        self.types = TypeBranches(index, reached, self.guards, self.used_as_value) if reached is not None else None
        self.flags = ReceiverFlags(index, self.guards, self._never)

    def guards(self, stmts: list[ast.stmt], call: ast.AST) -> list[tuple[ast.expr, bool]]:
        """:func:`_guards`, memoised per analysis (the trees live as long as this object): a call is asked about by
        the constant, ``isinstance`` and flag tests and again for every path through it."""
        key = (id(stmts), id(call))
        found = self._guards_memo.get(key)
        if found is None:
            parents = self._parents.get(id(stmts))
            if parents is None:
                parents = self._parents[id(stmts)] = parent_map(stmts)
            found = self._guards_memo[key] = _guards_within(stmts, call, above(parents, stmts, call))  # as _guards
        return found

    def never_taken(self, call: ast.AST, func: Func) -> bool:
        """Whether ``call`` in ``func`` sits in a branch of an ``if`` no caller of ``func`` takes (a constant's
        test here, an ``isinstance`` test in :mod:`~faultlib.detect.serving.blocking.type_branches`)."""
        if any(not _plain(d) for d in func.node.decorator_list):
            return False
        if self.types is not None and self.types.never_taken(call, func):
            return True
        if func.parent is not None:
            return False
        return any(self._never(func, test, in_body) for test, in_body in self.guards(func.node.body, call))

    def _never(self, func: Func, test: ast.expr, in_body: bool, flags: dict[str, set] | None = None,
               given=None) -> bool:
        """Whether ``test`` in ``func`` never comes out as ``in_body`` needs (see the module docstring): ``p and q``
        is never true when ``p`` never is, ``p or q`` never false when ``p`` is never false. A ``self.attr`` operand
        holds what ``flags`` says (the values the attributes of an object built on the path may hold,
        :mod:`~faultlib.detect.serving.blocking.receiver_flags`), else what the constructions pass for the
        constructor parameter it keeps (:func:`~faultlib.detect.serving.blocking.instance_flags.flag_parameter`);
        a parameter holds what ``given`` says (``param -> list | None``: its values on one call path), else what
        every call passes (every construction, for a constructor's)."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if in_body else ast.Or):
            return any(self._never(func, value, in_body, flags, given) for value in test.values)
        attr, check = _parameter_test(test, _self_attribute(func))
        if attr is not None:
            if flags is not None and attr in flags:
                values = flags[attr]
            else:
                kept = flag_parameter(self.index, func, attr)  # (the class's __init__, the parameter it keeps)
                values = None if kept is None else self._passed(*kept)
        else:
            param, check = _parameter_test(test, _name)
            if param is None:
                return False
            values = (given(param) if given is not None else None) or self._passed(func, param)
        return values is not None and in_body not in {check(v) for v in values}

    def through_untaken(self, path) -> bool:
        """Whether a step of ``path`` (``((func, line), ...)``, the calls that lead to a site) is a call in a branch
        no caller of its function takes: ``if type == "whisper": return WhisperASR(**kw)`` in a factory every caller
        on the loop calls with ``"faster_whisper"`` (held-out wave 58) never constructs the class, so what its
        constructor does is never reached that way. Every call written on the step's line must sit in such a branch.
        A parameter's test is also read with the value the previous step's call passes on this path (handed on from
        the step before when it passes its own parameter): ``page.css("body")`` leaves ``auto_save`` at ``False``,
        ``css`` passes it on to ``xpath``, whose ``if self.adaptive and auto_save: self.save(...)`` is never taken
        on this path whatever other callers pass (held-out wave 67) -- unless the function may also be called where
        no path shows (see :meth:`_called_otherwise`). So is a test of a flag of an object built on the path
        (:mod:`~faultlib.detect.serving.blocking.receiver_flags`). Dropping a path drops only that path: the site
        keeps its other paths (:attr:`~faultlib.detect.serving.blocking.reach.Reachability.paths`), and
        ``check_requirements(...)`` written in an untaken ``elif dnn:`` and again in a taken ``elif onnx:`` reaches
        its blockers all the same (held-out wave 66)."""
        for k, (func, line) in enumerate(path):
            calls = [n for n in func.nodes if isinstance(n, ast.Call) and n.lineno == line]
            if calls and all(self.never_taken(call, func) or self._untaken_on(path, k, call) for call in calls):
                return True
        return self.flags.untaken(path)  # on an object built on the path with its flag off (receiver_flags.py)

    def _untaken_on(self, path, k: int, call: ast.AST) -> bool:
        """``call`` in step ``k``'s function sits in a branch the values passed along ``path`` never take."""
        func = path[k][0]
        if (k == 0 or func.parent is not None or any(not _plain(d) for d in func.node.decorator_list)
                or self._called_otherwise(func)):
            return False  # other calls, which no path shows, may pass anything
        given = lambda param: self._on_path(path, k, param)  # noqa: E731
        return any(self._never(func, test, in_body, given=given) for test, in_body in self.guards(func.node.body,
                                                                                                  call))

    def untaken_with(self, func: Func, call: ast.AST, param: str, value) -> bool:
        """Whether ``call`` in ``func`` sits in a branch that is never taken while ``func``'s parameter ``param``
        holds ``value`` (``if format == "pcm": ... return`` above it, for ``"pcm"``)."""
        given = lambda name: [value] if name == param else None  # noqa: E731
        return any(self._never(func, test, in_body, given=given) for test, in_body in self.guards(func.node.body,
                                                                                                  call))

    def values_on_path(self, path, k: int, param: str) -> list | None:
        """The constants step ``k``'s function receives for its parameter ``param`` from the call on step ``k - 1``'s
        line (handed on along the path when that caller passes its own parameter); None when not known."""
        return self._on_path(path, k, param)

    def _on_path(self, path, k: int, param: str) -> list | None:
        """The values step ``k``'s function receives for ``param`` from the call on step ``k - 1``'s line."""
        if k == 0:
            return None
        func, (caller, line) = path[k][0], path[k - 1]
        calls = [n for n in caller.nodes if isinstance(n, ast.Call) and n.lineno == line
                 and self.index.callee(n.func, caller) is _called_as(func)]
        if len(calls) != 1:
            return None
        return self._call_values(calls[0], caller, func, param, lambda name: self._on_path(path, k - 1, name))

    def _passed(self, func: Func, param: str) -> list | None:
        key = (id(func), param)
        if key not in self._values:
            self._values[key] = None  # a cycle of forwarding calls: unknown
            self._values[key] = self._compute(func, param)
        return self._values[key]

    def _compute(self, func: Func, param: str) -> list | None:
        if self._called_otherwise(func):
            return None
        callee = _called_as(func)  # Backend(path): the class's constructions are the calls of its __init__
        calls = self.index.infer.sites().get(callee.node.name, [])
        if not calls or len(calls) > MAX_CALLS:
            return None
        values, seen = [], False
        for call, caller in calls:
            if self.reached is not None and id(caller) not in self.reached:
                continue  # a command-line script's call: what it passes never reaches the loop
            target = self.index.callee(call.func, caller)
            if target is not callee:
                if target is None:
                    return None  # may be this function, through a receiver of unknown type
                continue
            seen = True
            found = self._call_values(call, caller, func, param, lambda name: self._passed(caller, name))
            if found is None:
                return None
            values.extend(found)
        return values if seen else None

    def _call_values(self, call: ast.Call, caller: Func, func: Func, param: str, handed) -> list | None:
        """What ``call`` (made in ``caller``) passes ``func`` for ``param``: a constant or the default, or, for the
        caller's own parameter handed on unchanged (``self.xpath(q, auto_save)`` inside ``css(self, q,
        auto_save=False)``), what ``handed(name)`` says it holds; else None."""
        args = func.node.args
        positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        if param not in positional and param not in [a.arg for a in args.kwonlyargs]:
            return None
        bound = func.cls is not None and not any(dotted(d) == ["staticmethod"] for d in func.node.decorator_list)
        position = positional.index(param) - (1 if bound else 0) if param in positional else None
        spread = _spread(call, caller)  # f(**opts) with `opts = {"k": v, ...}` built once in the caller
        if any(isinstance(a, ast.Starred) for a in call.args) or spread is None:
            return None
        if bound and isinstance(call.func, ast.Attribute) and isinstance(
                self.index.callee(call.func.value, caller), Klass):
            return None  # Service.method(obj, ...): `self` passed by hand, the positions shift
        given = _argument(call, param, position) or spread.get(param)
        value = _constant(given, _default(args, param))
        if value is not _UNKNOWN:
            return [value]
        if not isinstance(given, ast.Name) or caller.parent is not None:
            return None
        if any(isinstance(n, ast.Name) and n.id == given.id and not isinstance(n.ctx, ast.Load) for n in caller.nodes):
            return held_constants(self.index, given, caller)  # fmt = detect_format(data): "wav" or "pcm"
        return handed(given.id)

    def _called_otherwise(self, func: Func) -> bool:
        """Whether ``func`` may be called other than by the calls of the analysed files under its name: handed on
        as a value, a framework's to call, or the ``__init__`` of a class built otherwise (see the module
        docstring)."""
        if _called_as(func) is not func:
            return self._constructed_otherwise(func.cls)
        return self.used_as_value(func) or self._framework_method(func)

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
    """The ``if`` tests around ``call`` in ``stmts`` (outermost first), each with whether ``call`` is in its body;
    inside the statement that holds it, the operands of ``and``/``or`` and the tests of conditional expressions that
    must come out one way for it to run (:func:`_expression_guards`)."""
    return _guards_within(stmts, call, enclosing(stmts, call))


def parent_map(stmts: list[ast.AST]) -> dict[int, ast.AST]:
    """``{id(node): parent}`` for every node under ``stmts`` (the statements themselves have none), in one walk: the
    guards of each call of a body are then read up from the call, not found by a walk of the body per call."""
    parents: dict[int, ast.AST] = {}
    todo = list(stmts)
    while todo:
        node = todo.pop()
        for child in children(node):
            parents[id(child)] = node
            todo.append(child)
    return parents


def above(parents: dict[int, ast.AST], stmts: list[ast.AST], call: ast.AST) -> set[int]:
    """:func:`enclosing` read from ``stmts``' :func:`parent_map` (``parents``): up from ``call`` to its statement."""
    found = set()
    node = call
    while id(node) in parents:
        found.add(id(node))
        node = parents[id(node)]
    if not any(node is stmt for stmt in stmts):
        return set()
    found.add(id(node))
    return found


def _guards_within(stmts: list[ast.stmt], call: ast.AST, above: set[int]) -> list[tuple[ast.expr, bool]]:
    """:func:`_guards`, ``above`` the ids of ``call`` and of the nodes that hold it (:func:`enclosing`): whether a
    statement holds the call is a set lookup, not a walk of the statement at each level of nesting. An earlier
    ``if`` of the same block whose body always leaves it (``always_leaves`` of ``constant_returns``) and that has no
    ``else`` guards the call as false: ``if format == "pcm": ...; return pcm`` then ``AudioSegment.from_file(...)``
    runs only for another format (held-out wave 69)."""
    exits: list[tuple[ast.expr, bool]] = []
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or id(stmt) not in above:
            if isinstance(stmt, ast.If) and not stmt.orelse and always_leaves(stmt.body):
                exits.append((stmt.test, False))
            continue
        if isinstance(stmt, ast.If) and id(stmt.test) not in above:
            in_body = any(id(s) in above for s in stmt.body)
            return [*exits, (stmt.test, in_body), *_guards_within(stmt.body if in_body else stmt.orelse, call, above)]
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(stmt, field, None) or []
            for part in inner:
                found = _guards_within(part.body if isinstance(part, (ast.ExceptHandler, ast.match_case)) else [part],
                                       call, above)
                if found:
                    return [*exits, *found]
        return [*exits, *_expression_guards(stmt, call)]
    return []


def _expression_guards(node: ast.AST, call: ast.AST) -> list[tuple[ast.expr, bool]]:
    """The short-circuit tests ``call`` waits on inside ``node`` (a statement, or the header of one): in ``p and
    f()`` the call runs only when ``p`` is true (held-out wave 67: ``if browser_mode and (v := version()):`` where every
    caller passes ``browser_mode=False``), in ``p or f()`` only when it is false, in ``f() if p else g()`` the body
    only when ``p`` is true; each with the outcome it needs, outermost first."""
    todo: list[tuple[ast.AST, list[tuple[ast.expr, bool]]]] = [(node, [])]
    while todo:
        found, guards = todo.pop()
        if found is call:
            return guards
        if isinstance(found, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(found, ast.BoolOp):
            needed = isinstance(found.op, ast.And)
            todo += [(value, guards + [(before, needed) for before in found.values[:i]])
                     for i, value in enumerate(found.values)]
        elif isinstance(found, ast.IfExp):
            todo += [(found.test, guards), (found.body, guards + [(found.test, True)]),
                     (found.orelse, guards + [(found.test, False)])]
        else:
            todo += [(child, guards) for child in children(found)]
    return []


def enclosing(stmts: list[ast.AST], call: ast.AST) -> set[int]:
    """The ids of ``call`` and of every node above it under ``stmts`` (the statements themselves included); empty
    when ``call`` is not under them. A node holds ``call`` exactly when its id is in the set (a tree parsed by
    :mod:`ast` gives each node one parent; the shared context and operator nodes hold nothing). An analysis reads
    them from the body's :func:`parent_map`, built once (:meth:`Branches.guards`)."""
    return above(parent_map(stmts), stmts, call)


def _parameter_test(test: ast.expr, subject):
    """``(name, value -> bool)`` for a test on one operand against a constant, else ``(None, None)``; ``subject``:
    the name an operand stands for, or None (:func:`_name` for a parameter, :func:`_self_attribute` for a flag)."""
    if subject(test) is not None:
        return subject(test), bool
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and subject(test.operand) is not None:
        return subject(test.operand), lambda v: not v
    if (isinstance(test, ast.Compare) and subject(test.left) is not None and len(test.ops) == 1
            and isinstance(test.comparators[0], ast.Constant)):
        c, op = test.comparators[0].value, test.ops[0]
        same = lambda v: type(v) is type(c) and v == c  # noqa: E731 -- `1 == True` must not count
        checks = {ast.Eq: same, ast.Is: same, ast.NotEq: lambda v: not same(v), ast.IsNot: lambda v: not same(v)}
        if type(op) in checks:
            return subject(test.left), checks[type(op)]
    return None, None


def _name(expr: ast.expr) -> str | None:
    """``p``: ``p``."""
    return expr.id if isinstance(expr, ast.Name) else None


def _self_attribute(func: Func):
    """The subject of :func:`_parameter_test` for ``func``'s flags: ``self.attr`` (``self`` the method's own first
    parameter): ``attr``; nothing in a function that is no instance method."""
    args = func.node.args.args
    if func.cls is None or not args or any(dotted(d) in (["staticmethod"], ["classmethod"])
                                           for d in func.node.decorator_list):
        return lambda expr: None
    own = args[0].arg
    return lambda expr: expr.attr if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
                                      and expr.value.id == own) else None


def _called_as(func: Func) -> Func | Klass:
    """What a call that runs ``func`` names: its class for an ``__init__`` (``Backend(path)``), else ``func``."""
    return func.cls if func.node.name == "__init__" and func.cls is not None else func


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
