"""Blocking calls in an ``isinstance`` branch that no caller's argument type takes, and in nested functions only such
branches call.

``def load(self, audio: Union[str, np.ndarray]): if isinstance(audio, np.ndarray): return [audio]; if
isinstance(audio, str): return [read_wav(audio)]`` in a model every request calls with the array
``sf.read(...)`` decoded: the file branch never runs on the loop, whatever the annotation allows. What a parameter
holds is the type of the argument at each call made on the loop (every call by its name that resolves to the
function, and for ``__call__`` every call of an instance of its class), followed back through callers that only
pass their own parameter on (at most :data:`MAX_DEPTH` calls up). The test must be ``isinstance(p, T)`` or ``not
isinstance(p, T)`` with one class ``T``; it decides only where the types say for certain: the same type; a builtin
(``str``, ``list``, ...) against a library's or the files' class (neither derives from the other; a class of the
files deriving from a builtin counts as unknown); two different builtins (``bool`` is an ``int``). One unknown
argument, a function used other than called, or a call through ``*args`` keeps the call a blocker.

A nested ``def`` runs only where its enclosing function (or a sibling) calls it: when every such call sits in a
branch no caller takes (or in a nested function that never runs), its own calls never run either.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, Type, dotted

__all__ = ["TypeBranches"]

MAX_DEPTH = 4
MAX_CALLS = 40
BUILTINS = {"str": "builtins.str", "bytes": "builtins.bytes", "list": "builtins.list", "tuple": "builtins.tuple",
            "dict": "builtins.dict", "set": "builtins.set", "int": "builtins.int", "float": "builtins.float",
            "bool": "builtins.bool"}
_CONSTANTS = {str: "builtins.str", bytes: "builtins.bytes", int: "builtins.int", float: "builtins.float",
              bool: "builtins.bool"}
_DISPLAYS = {ast.List: "builtins.list", ast.ListComp: "builtins.list", ast.Tuple: "builtins.tuple",
             ast.Dict: "builtins.dict", ast.DictComp: "builtins.dict", ast.Set: "builtins.set",
             ast.JoinedStr: "builtins.str"}


class TypeBranches:
    """Per analysis (see the module docstring); ``reached``: the functions run on the loop."""

    def __init__(self, index, reached: set[int], guards, used_as_value) -> None:
        self.index = index
        self.reached = reached
        self._guards = guards  # branches._guards: the if tests around a call, each with whether it is in the body
        self._used_as_value = used_as_value  # branches.Branches.used_as_value: read other than as a call's callee
        self._passed: dict[tuple[int, str], list | None] = {}
        self._never: dict[int, bool] = {}
        self._instance_calls: dict[int, list] | None = None

    def never_taken(self, call: ast.AST, func: Func, depth: int = 0) -> bool:
        """``call`` in ``func`` sits in an ``isinstance`` branch no caller takes, or ``func`` is a nested function
        that never runs."""
        for test, in_body in self._guards(func.node.body, call):
            param, klass, negated = _isinstance_test(test)
            if param is None or not _is_param(func, param):
                continue
            types = self.passed(func, param)
            if types is None:
                continue
            outcomes = {_isinstance(t, klass, self.index, func) for t in types}
            if None in outcomes:
                continue
            if (not negated) == in_body and True not in outcomes or (not negated) != in_body and False not in outcomes:
                return True
        if depth >= MAX_DEPTH:
            return False
        return self._never_runs(func, depth) if func.parent is not None else self._never_called(func, depth)

    def _never_called(self, func: Func, depth: int) -> bool:
        """Every call made on the loop that runs ``func`` (a module function or a method) sits in a branch no caller
        takes: ``load_audio(path)`` only under ``isinstance(audio, str)`` where every caller passes a tensor."""
        key = -id(func)
        if key not in self._never:
            self._never[key] = False  # a cycle: "may run"
            calls = None if func.node.decorator_list else self._calls_of(func)
            self._never[key] = bool(calls) and all(self.never_taken(c, f, depth + 1) for c, f in calls) and (
                not self._used_as_value(func))  # last: it walks every module once
        return self._never[key]

    def _never_runs(self, nested: Func, depth: int) -> bool:
        key = id(nested)
        if key not in self._never:
            self._never[key] = False  # a cycle: "may run"
            name = nested.node.name
            scopes = [nested.parent, *nested.parent.nested.values()]
            calls = [(n, scope) for scope in scopes for n in scope.nodes if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Name) and n.func.id == name]
            called = {id(c.func) for c, _ in calls}
            other = any(isinstance(n, ast.Name) and n.id == name and id(n) not in called  # map(load, paths)
                        for scope in scopes for n in scope.nodes)
            self._never[key] = bool(calls) and not other and all(
                self.never_taken(c, scope, depth + 1) for c, scope in calls)
        return self._never[key]

    def passed(self, func: Func, param: str, depth: int = 0) -> list[Type] | None:
        """The types of what each call of ``func`` made on the loop passes as ``param``; None when one is unknown."""
        key = (id(func), param)
        if key in self._passed:
            return self._passed[key]
        self._passed[key] = None  # a cycle answers "unknown"
        found = self._compute(func, param, depth) if depth <= MAX_DEPTH else None
        self._passed[key] = found
        return found

    def _compute(self, func: Func, param: str, depth: int) -> list[Type] | None:
        if func.parent is not None or self._used_as_value(func):
            return None
        args = func.node.args
        positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        bound = func.cls is not None and not any(dotted(d) == ["staticmethod"] for d in func.node.decorator_list)
        position = positional.index(param) - (1 if bound else 0) if param in positional else None
        calls = self._calls_of(func)
        if calls is None or not calls:
            return None
        found: list[Type] = []
        for call, caller in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return None
            arg = next((k.value for k in call.keywords if k.arg == param), None)
            if arg is None and position is not None and 0 <= position < len(call.args):
                arg = call.args[position]
            if arg is None:
                return None  # left at its default: not a type this rule reads
            typed = _literal_type(arg) or self.index.type_of(arg, caller)
            if typed is None and isinstance(arg, ast.Name) and _is_param(caller, arg.id) and not any(
                    isinstance(n, ast.Name) and n.id == arg.id and not isinstance(n.ctx, ast.Load)
                    for n in caller.nodes):
                handed = self.passed(caller, arg.id, depth + 1)  # passed on unchanged: what its callers pass
                if handed is None:
                    return None
                found.extend(handed)
                continue
            if typed is None:
                return None
            found.append(typed)
        return found

    def _calls_of(self, func: Func) -> list[tuple[ast.Call, Func]] | None:
        """The calls made on the loop that run ``func``; None when some call under its name may (unknown target)."""
        out = []
        for call, caller in self.index.infer.sites().get(func.node.name, [])[:MAX_CALLS]:
            if id(caller) not in self.reached:
                continue
            target = self.index.callee(call.func, caller)
            if target is None:
                return None
            if target is func:
                out.append((call, caller))
        if func.node.name == "__call__" and func.cls is not None:
            out += [(c, f) for c, f, k in self._instance_call_sites() if k is func.cls]
        return out

    def _instance_call_sites(self) -> list[tuple[ast.Call, Func, Klass]]:
        """``obj(...)`` calls made on the loop on an instance of a class of the files."""
        if self._instance_calls is None:
            self._instance_calls = []
            for module in self.index.distinct_modules():
                for func in module.all_functions:
                    if id(func) not in self.reached:
                        continue
                    for node in func.nodes:
                        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and (
                                self.index.callee(node.func, func) is None):
                            owner = self.index.type_of(node.func, func)
                            if isinstance(owner, Klass):
                                self._instance_calls.append((node, func, owner))
        return self._instance_calls


def _is_param(func: Func, name: str) -> bool:
    args = func.node.args
    return any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


def _isinstance_test(test: ast.expr) -> tuple[str | None, ast.expr | None, bool]:
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if negated else test
    if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "isinstance"
            and len(inner.args) == 2 and isinstance(inner.args[0], ast.Name)
            and isinstance(inner.args[1], (ast.Name, ast.Attribute))):
        return inner.args[0].id, inner.args[1], negated
    return None, None, False


def _literal_type(arg: ast.expr) -> str | None:
    if isinstance(arg, ast.Constant):
        return _CONSTANTS.get(type(arg.value))
    return _DISPLAYS.get(type(arg))


def _isinstance(passed: Type, klass: ast.expr, index, func: Func) -> bool | None:
    """``isinstance(value, klass)`` for a value of type ``passed``: True, False, or None (cannot tell)."""
    wanted = BUILTINS.get(klass.id) if isinstance(klass, ast.Name) and klass.id not in func.module.imports and (
        klass.id not in func.module.globals) else None
    wanted = wanted or index.annotation_type(klass, func.module)
    if wanted is None:
        return None
    if passed is wanted or passed == wanted:
        return True
    passed_builtin = isinstance(passed, str) and passed.startswith("builtins.")
    wanted_builtin = isinstance(wanted, str) and wanted.startswith("builtins.")
    if passed_builtin and wanted_builtin:
        return wanted == "builtins.int" and passed == "builtins.bool"  # a bool is an int; otherwise unrelated
    if isinstance(passed, Klass) and wanted_builtin:
        return None if any(not isinstance(b, Klass) for b in index.bases(passed)) else False
    if passed_builtin != wanted_builtin:
        return False  # a builtin against a library's or the files' class
    return None
