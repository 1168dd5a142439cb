"""A parameter that is called (``servicer_cls()``, ``make(path)``) runs what the callers pass for it.

``async def run_server(servicer_cls, port)`` that calls ``servicer_cls()`` constructs whichever class its callers
hand it (``run_server(servicer_cls=DetectService, port=50052)``): the constructor of each, with the model it loads,
runs on the loop. :func:`passed_callees` answers with the functions and classes of the analysed files that every call
site of the function passes for that parameter by reference (a name or dotted name, positionally or by keyword; the
default for a call site that leaves it out). One call site passing anything else (a lambda, a call's result, ``*args``)
or a caller that cannot be resolved answers nothing: the parameter stays unknown. A call site that passes on a parameter
of its own function (``await drive(items, on_done=on_done)`` in ``middle(items, on_done=None)``) hands over what the
callers of that function pass for it, through any number of such hops (held-out wave 78: a review callback handed
from an entrypoint through a task to the coroutine that calls it); the function passing its own parameter back to
itself adds nothing. Used by
:func:`~faultlib.detect.serving.blocking.choices.picked`. :func:`passed_names` answers the same question when every
site passes a third-party callable (``_batch(ids, operation=self.collection.upsert)``, then ``operation(ids=...)``
in ``_batch``: the Chroma write runs there); :meth:`~faultlib.detect.serving.blocking.index.Index.callee` names it.
:func:`passed_classes` answers when every site passes a class, whose class methods the parameter then calls
(``ORTClass.from_pretrained(...)``).

When the callers taken together name nothing (more than :data:`MAX_CALLEES` functions, as an API client whose every
method hands its own nested ``call_fn`` to one ``self._safe_call(call_fn)`` that does ``return f()``; or one site
passing a lambda), each call site still runs what it passes: :func:`called_here` names the functions of the files one
call hands for a parameter its target calls (itself, or through functions of the files it hands the parameter on to,
none of them run in a worker thread), which :meth:`~faultlib.detect.serving.blocking.reach.Reach._followed`
follows at that call.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.call_arguments import given_arguments
from faultlib.detect.serving.blocking.model import Func, Klass, dotted, nodes_of
from faultlib.detect.serving.blocking.wrappers import runs_off_loop

__all__ = ["called_here", "passed_callees", "passed_classes", "passed_names"]

MAX_CALLERS = 24      # call sites examined for one parameter
MAX_CALLEES = 8       # distinct functions or classes passed for it
MAX_HOPS = 3          # functions a parameter is handed on through before one calls it (called_here)


def passed_callees(index, func: Func, name: str) -> list[Func | Klass]:
    """The functions and classes the call sites of ``func`` pass for its parameter ``name`` when ``func`` calls that
    parameter and never rebinds it (empty when unknown; memoised per function and name)."""
    found = _passed(index, func, name)
    return found if all(isinstance(f, (Func, Klass)) for f in found) else []


def passed_names(index, func: Func, name: str) -> list[str]:
    """The dotted names of the third-party callables every call site passes for the parameter ``name``: a bound
    method of a typed receiver (``operation=self.collection.upsert``: ``chromadb...Collection.upsert``) or a library
    function (``loader=joblib.load``); empty when one site passes anything else."""
    found = _passed(index, func, name)
    return found if all(isinstance(f, str) for f in found) else []


def passed_classes(index, func: Func, name: str) -> list[Klass | str]:
    """The classes every call site passes for the parameter ``name`` (``_export(name, ORTClass=ORTModelForCausalLM)``,
    then ``ORTClass.from_pretrained(name)`` in ``_export``): classes of the analysed files, or third-party classes by
    dotted name (a capitalised last part); empty when one site passes anything else (a function, an instance's bound
    method, a call's result). Used by :meth:`~faultlib.detect.serving.blocking.index.Index.callee` for a method
    called on the parameter (held-out wave 65: an export helper's model class)."""
    found = _passed(index, func, name)
    classes = [f for f in found if isinstance(f, Klass) or (
        isinstance(f, str) and f.rpartition(".")[2][:1].isupper() and not f.startswith("builtins."))]
    return classes if len(classes) == len(found) else []


def called_here(index, call: ast.Call, caller: Func, target: Func) -> list[Func]:
    """The sync functions of the analysed files that ``call`` (in ``caller``, calling ``target``) passes, by name or
    dotted name, for a parameter that ``target`` calls (``name(...)``), or hands on to a function that does
    (:func:`_runs`), and never rebinds, when :func:`passed_callees` names nothing for that parameter: they run during
    this call."""
    found: list[Func] = []
    for name, value in given_arguments(call, target).items():
        if not dotted(value) or not _runs(index, target, name) or _passed(index, target, name):
            continue
        passed = index.callee(value, caller)
        if isinstance(passed, Func) and not passed.is_async and passed not in found:
            found.append(passed)
    return found


def _runs(index, func: Func, name: str, depth: int = 0) -> bool:
    """``func`` calls its parameter ``name`` (:func:`_calls`), or hands it on unchanged to a function of the files
    that runs it, at most :data:`MAX_HOPS` hops down (``middle(items, on_done)`` awaiting ``drive(items,
    on_done=on_done)`` where ``drive`` calls ``on_done(item)``)."""
    if _calls(func, name):
        return True
    if depth >= MAX_HOPS or not _forwards(func, name):
        return False
    for call in nodes_of(func, ast.Call):
        if not any(isinstance(a, ast.Name) and a.id == name for a in [*call.args, *(k.value for k in call.keywords)]):
            continue
        target = index.callee(call.func, func)
        if isinstance(target, Func) and target is not func and not runs_off_loop(index, target) and any(
                isinstance(v, ast.Name) and v.id == name and _runs(index, target, p, depth + 1)
                for p, v in given_arguments(call, target).items()):
            return True
    return False


def _calls(func: Func, name: str) -> bool:
    """``func`` calls its parameter ``name`` and never rebinds it (memoised per function and name)."""
    table = func.__dict__.setdefault("_faultlib_calls_param", {})
    if name not in table:
        calls = stores = False
        for n in nodes_of(func, (ast.Call, ast.Name)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name:
                calls = True
            elif isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                stores = True
        table[name] = calls and not stores
    return table[name]


def _passed(index, func: Func, name: str) -> list:
    table = func.__dict__.setdefault("_faultlib_passed", {})
    if name not in table:
        table[name] = []  # a cycle through the call sites answers "unknown"
        table[name] = _compute(index, func, name)
    return table[name]


def _compute(index, func: Func, name: str) -> list:
    args = func.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    keyword_only = [a.arg for a in args.kwonlyargs]
    if name not in positional and name not in keyword_only:
        return []
    if any(n.id == name and isinstance(n.ctx, ast.Store) for n in nodes_of(func, ast.Name)):
        return []  # rebound in the body: not only what the callers pass
    bound = func.cls is not None and not any(dotted(d) == ["staticmethod"] for d in func.node.decorator_list)
    position = positional.index(name) - (1 if bound else 0) if name in positional else None
    default = _default(args, name)
    calls = index.infer.sites().get(func.node.name, [])
    if not calls or len(calls) > MAX_CALLERS:
        return []
    found: list[Func | Klass] = []
    for call, caller in calls:
        target = index.callee(call.func, caller)
        if target is not func:
            if target is None:
                return []  # may be this function, through a receiver of unknown type
            continue
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return []
        value = next((k.value for k in call.keywords if k.arg == name), None)
        if value is None and position is not None and 0 <= position < len(call.args):
            value = call.args[position]
        if value is None:
            value, caller = default, func
        if isinstance(value, ast.Name) and isinstance(caller, Func) and _forwards(caller, value.id):
            if caller is func and value.id == name:
                continue  # drive(rest, on_done=on_done) in drive itself: what the other sites pass
            handed = _passed(index, caller, value.id)  # middle(items, on_done) -> drive(items, on_done=on_done)
            if not handed:
                return []
            found += [h for h in handed if all(h is not f and h != f for f in found)]
            continue
        passed = index.callee(value, caller) if value is not None and dotted(value) else None
        if not isinstance(passed, (Func, Klass, str)) or (isinstance(passed, str) and passed.startswith("builtins.")):
            return []
        if all(passed is not f and passed != f for f in found):
            found.append(passed)
    return found if len(found) <= MAX_CALLEES else []


def _forwards(caller: Func, name: str) -> bool:
    """``name`` is a parameter of ``caller`` that it never rebinds: passing it on hands over what its callers pass."""
    args = caller.node.args
    if name not in [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]:
        return False
    return not any(n.id == name and isinstance(n.ctx, ast.Store) for n in nodes_of(caller, ast.Name))


def _default(args: ast.arguments, name: str) -> ast.expr | None:
    positional = [*args.posonlyargs, *args.args]
    for arg, value in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if arg.arg == name:
            return value
    for arg, value in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == name:
            return value
    return None
