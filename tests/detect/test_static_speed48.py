"""Stop 48's speed work on ``check blocking``: no second walk of every module for the names read as values.

:func:`~faultlib.detect.serving.blocking.model.module_nodes_of` answers "every node of this kind in the module" from
the per-function tables :func:`~faultlib.detect.serving.blocking.model.nodes_of` keeps and from the few nodes outside
every function (the top level, class bodies, the inside of lambdas and classes a function holds), so
:mod:`~faultlib.detect.serving.blocking.branches` no longer walks each module whole. These tests hold its answer to
:func:`ast.walk`'s nodes (each once, none missing: the places a function's own list stops), and the findings that
depend on the names read as values to what they were: a function also read as a value (in a class inside a function,
in a lambda default) keeps its guarded blocker; called with a constant only, or handed to a thread, it stays silent.
The other passes made cheaper keep their answers: ``types.MethodType`` bindings (read from the calls' tables; the
module walked only when one name is bound twice, the first in the walk winning), package handles (the families
memoised per type), a local dict's stores (the assignments' table) and the call sites by last name.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import analyze_sources, model

NESTED = '''
import functools


@functools.lru_cache(maxsize=lambda: 4)
def top(a, b=lambda x: (lambda y: y + x)):
    def inner(c=[n for n in range(3)]) -> int:
        class Local:
            size = lambda self: len(a)

            def method(self, d=lambda: b):
                return [d() for _ in a]
        return Local
    return inner


class Outer:
    rows = [x for x in range(2)]

    class Inner:
        def deep(self):
            match self:
                case {"k": value}:
                    return lambda: value
            return None

    async def run(self):
        try:
            await top(1)()
        except ValueError as exc:
            raise RuntimeError from exc
'''


def _module(source: str) -> model.Module:
    return model.build_module("nested", "nested.py", source, ast.parse(source))


def test_every_node_of_the_module_is_listed_once():
    module = _module(NESTED)
    listed = [id(n) for n in model.module_nodes_of(module, ast.AST)]
    assert sorted(listed) == sorted(id(n) for n in ast.walk(module.tree))  # a Load context is one shared node
    own = [i for i, n in zip(listed, model.module_nodes_of(module, ast.AST)) if not isinstance(n, ast.expr_context)]
    assert len(own) == len(set(own))


def test_each_kind_holds_the_nodes_of_that_kind():
    module = _module(NESTED)
    for kind in (ast.Call, ast.Lambda, (ast.Name, ast.Attribute), ast.ClassDef, ast.stmt):
        want = sorted(id(n) for n in ast.walk(module.tree) if isinstance(n, kind))
        assert sorted(id(n) for n in model.module_nodes_of(module, kind)) == want, kind


def test_a_module_without_functions_is_its_top_level():
    module = _module("x = [y for y in range(3)]\nz = x[0]\n")
    assert sorted(id(n) for n in model.module_nodes_of(module, ast.AST)) == sorted(id(n) for n in ast.walk(module.tree))


GUARDED = '''
import threading
import time


def pause(slow):
    if slow:
        time.sleep(1)


async def quick():
    pause(False)
    threading.Thread(target=pause, args=(True,)).start()
'''
READ_IN_A_CLASS_IN_A_FUNCTION = GUARDED + '''

def register(table):
    class Entry:
        run = staticmethod(lambda: table.append(pause))
    return Entry
'''
READ_IN_A_DEFAULT_LAMBDA = GUARDED + '''

def later(hook=lambda: [pause]):
    return hook
'''


def _lines(source: str) -> set[int]:
    report = analyze_sources([("svc.py", ["svc"], source)])
    return {f.location["line"] for f in report.findings if "line" in f.location}


def _sleep_line() -> int:
    return next(i for i, line in enumerate(GUARDED.splitlines(), 1) if line.strip() == "time.sleep(1)")


def test_a_function_also_read_as_a_value_keeps_its_guarded_blocker():
    assert _sleep_line() in _lines(READ_IN_A_CLASS_IN_A_FUNCTION)  # a lambda in a class body in a function
    assert _sleep_line() in _lines(READ_IN_A_DEFAULT_LAMBDA)  # a lambda that is a parameter's default


def test_called_with_a_constant_and_handed_to_a_thread_it_stays_silent():
    assert _sleep_line() not in _lines(GUARDED)


BOUND_TWICE = '''
import types


class Holder:
    pass


def handler(self):
    return 1


FIRST = Holder()
SECOND = Holder()


def setup():
    SECOND.handle = types.MethodType(handler, SECOND)


if FIRST:
    if SECOND:
        if handler:
            FIRST.handle = types.MethodType(handler, FIRST)
'''


def _bound(source: str) -> list[str] | None:
    from faultlib.detect.serving.blocking.infer import _bound_object

    module = model.build_module("bound", "bound.py", source, ast.parse(source))
    return _bound_object(next(f for f in module.all_functions if f.qualname == "handler"))


def test_a_method_type_binding_inside_a_function_is_read_without_a_walk_of_the_module():
    source = BOUND_TWICE.replace("FIRST.handle = types.MethodType(handler, FIRST)", "pass")
    assert _bound(source) == ["SECOND"]


def test_a_name_bound_to_two_objects_keeps_the_first_of_the_module_walk():
    assert _bound(BOUND_TWICE) == ["SECOND"]  # breadth first: the function's store is shallower than the nested if's


def test_a_package_handle_is_read_from_the_families_memoised_per_type():
    from faultlib.detect.serving.blocking.package_handles import returned_handle
    from faultlib.detect.serving.blocking.vocab import vocabulary

    vocab = vocabulary()
    packages = [f for f in vocab.families if f.package and "*" not in f.methods]
    handles = 0
    for family in packages[:20]:
        for target in (f"{family.types[0]}.Client.fetch", f"{family.types[0]}.AsyncClient.fetch"):
            found = returned_handle(vocab, target)
            owned = [f for f in packages if f.owns(target.rpartition(".")[0])]
            assert found in (None, f"{target}()") and (owned or found is None)
            handles += found is not None
    assert handles  # a package family's client method returns a handle of the package
    assert returned_handle(vocab, "nowhere_pkg.Client.fetch") is None


STORES = '''
def build(extra):
    table = {"a": 1}
    table["b"] = 2
    twice = {}
    twice = {}
    twice["c"] = 3
    Model().save(extra)
    helpers[0](extra)
    return table
'''


def test_a_local_dict_is_read_from_the_assignments_table():
    from faultlib.detect.serving.blocking.local_stores import local_dict_stores

    func = _module(STORES).all_functions[0]
    assert [(k.value, v.value) for k, v, _ in local_dict_stores(func, "table")] == [("a", 1), ("b", 2)]
    assert local_dict_stores(func, "twice") == []  # bound twice: no single display to read


def test_call_sites_are_named_by_the_last_name_of_what_they_call():
    from faultlib.detect.serving.blocking.index import Index

    module = _module(STORES)
    sites = Index({"nested": module}).infer.sites()
    assert {"save", "Model"} <= set(sites)  # Model().save(extra): under its attribute's name too
    assert not any(call.func.__class__ is ast.Subscript for calls in sites.values() for call, _ in calls)
