"""Stop 47's speed work on ``check blocking``: the per-function passes read the nodes of the kinds they test.

:func:`~faultlib.detect.serving.blocking.model.nodes_of` sorts a function's nodes by class once and answers every
kind from that table; the passes that used to test every node of a body (locals, aliases, imports, stores, loops,
narrowings, property reads, call sites) ask it for their kinds. These tests hold the answers to those of a plain
filter (order included, abstract kinds and tuples too), the table to one pass over the body, and the findings of a
small service written here to what the passes decide: a blocker reached through an alias, a loop over a stream,
an ``isinstance`` narrowing found at their lines; their healthy look-alikes silent.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import analyze_sources, model

SOURCE = '''
import asyncio
import time
import requests


class Store:
    def __init__(self, url):
        self.url = url
        self.session = requests.Session()

    def read(self, key):
        return self.session.get(self.url + key)


def helper(items):
    total = 0
    for item in items:
        total += item
    return [x * 2 for x in items if x], total


async def through_alias(url):
    fetch = requests.get
    return fetch(url)


async def offloaded_alias(url):
    fetch = requests.get
    return await asyncio.to_thread(fetch, url)


async def narrowed(store):
    if isinstance(store, Store):
        return store.read("k")
    return None


async def pauses():
    with open("x") as handle:
        data = handle.read()
    global COUNT
    COUNT = 1
    time.sleep(0.1)
    return data


async def waits():
    await asyncio.sleep(0.1)
'''

KINDS = (ast.Assign, ast.Name, ast.Call, ast.For, (ast.For, ast.comprehension), (ast.Assign, ast.AnnAssign, ast.Call),
         ast.stmt, ast.expr, (ast.If, ast.Assert), ast.Global, (ast.Import, ast.ImportFrom), ast.Lambda)


def _functions() -> list[model.Func]:
    return model.build_module("svc", "svc.py", SOURCE, ast.parse(SOURCE)).all_functions


class _CountedNodes(list):
    """A function's node list that counts the passes over it (``for n in func.nodes``)."""

    passes = 0

    def __iter__(self):
        type(self).passes += 1
        return super().__iter__()


def test_nodes_of_each_kind_are_those_a_filter_of_the_body_lists_in_order():
    for func in _functions():
        for kind in KINDS:
            assert model.nodes_of(func, kind) == [n for n in func.nodes if isinstance(n, kind)], f"{func.qualname}: {kind}"


def test_nodes_of_many_kinds_read_the_body_once():
    built = next(f for f in _functions() if f.qualname == "helper")
    expected = {kind: [n for n in built.nodes if isinstance(n, kind)] for kind in KINDS}
    func = model.Func(built.module, built.node, built.qualname)  # nothing listed yet (building asked for globals)
    func._nodes = _CountedNodes(built.nodes)
    _CountedNodes.passes = 0
    for kind in KINDS:
        assert model.nodes_of(func, kind) == expected[kind]
    assert _CountedNodes.passes == 1  # sorted by class once; every kind answered from that table


def test_an_empty_kind_is_an_empty_list():
    func = next(f for f in _functions() if f.qualname == "waits")
    assert model.nodes_of(func, (ast.For, ast.While)) == []


def _findings() -> dict[int, str]:
    report = analyze_sources([("svc.py", ["svc"], SOURCE)])
    return {f.location["line"]: f.location.get("function", "") for f in report.findings if "line" in f.location}


def _line(text: str) -> int:
    return next(i for i, line in enumerate(SOURCE.splitlines(), 1) if line.strip() == text)


def test_blockers_the_kind_reading_passes_decide_are_found_at_their_lines():
    found = _findings()
    assert _line("return fetch(url)") in found  # the alias table (assignments, stores of names)
    assert _line("time.sleep(0.1)") in found  # after a `with` and a `global` in the same body
    assert _line("return self.session.get(self.url + key)") in found  # reached through an isinstance narrowing


def test_their_healthy_look_alikes_stay_silent():
    found = _findings()
    assert _line("return await asyncio.to_thread(fetch, url)") not in found  # the alias handed to a worker thread
    assert _line("await asyncio.sleep(0.1)") not in found
    assert _line("total += item") not in found and _line("self.url = url") not in found


BOUND = '''
import types


class Holder:
    pass


def handler(self):
    return 1


HOLDER = Holder()
HOLDER.handle = types.MethodType(handler, HOLDER)
'''


def test_a_method_type_binding_is_still_read_from_the_module():
    from faultlib.detect.serving.blocking.infer import _bound_object

    module = model.build_module("bound", "bound.py", BOUND, ast.parse(BOUND))
    func = next(f for f in module.all_functions if f.qualname == "handler")
    assert _bound_object(func) == ["HOLDER"]


def test_a_module_that_never_spells_method_type_is_not_walked_for_it():
    from faultlib.detect.serving.blocking.infer import _bound_object

    source = BOUND.replace("types.MethodType(handler, HOLDER)", "handler")
    module = model.build_module("plain", "plain.py", source, ast.parse(source))
    func = next(f for f in module.all_functions if f.qualname == "handler")
    assert _bound_object(func) is None
    assert "_faultlib_nodes" not in module.__dict__  # no walk of the whole module was made to answer it
