"""The walks of ``check blocking`` made cheaper at stop 41 answer exactly what the walks they replace answered.

Each test runs the stop-40 algorithm (written out here, on :func:`ast.iter_child_nodes`/:func:`ast.walk`) beside the
new one on the same trees and compares lists, order included, and the side effects the walk leaves (executor
offloads recorded, ``hasattr`` guards noted)."""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import model
from faultlib.detect.serving.blocking.index import Index
from faultlib.detect.serving.blocking.reach import Reachability
from faultlib.detect.serving.blocking.shapes import taken
from faultlib.detect.serving.blocking.stored_callables import _writes, stored_callable
from faultlib.detect.serving.blocking.stored_lambdas import stored_lambda

SERVICE = '''
import asyncio
import time
import torch
import requests
from concurrent.futures import ThreadPoolExecutor

POOL = ThreadPoolExecutor(2)


class Batcher:
    def __init__(self, process):
        self.process = process


class Model:
    def __init__(self):
        self.net = torch.nn.Linear(2, 2)
        self.fetch = requests.get

    def predict(self, x):
        with torch.no_grad():
            out = self.net(torch.tensor(x)).tolist()
        return [round(v, 2) for v in out if check(v)]


def check(v):
    time.sleep(0.01)
    return v > 0


async def handle(model, rows, client):
    loop = asyncio.get_running_loop()
    await asyncio.to_thread(lambda: model.predict(rows))
    await loop.run_in_executor(POOL, model.predict, rows)
    batcher = Batcher(process=lambda r: model.predict(r))
    if False:
        time.sleep(1)
    if hasattr(client, "aget"):
        await client.aget("/x")
    else:
        client.get("/x")
    result = {key: check(val) for key, val in enumerate(rows)}
    def later():
        time.sleep(2)
    try:
        data = requests.get(f"http://{rows[0]}", timeout=check(1))
    except ValueError as exc:
        print(exc, sorted(rows, key=lambda r: len(str(r))))
    match data.status_code:
        case 200 if check(2):
            return model.predict(rows), batcher, result, later
    return await asyncio.wait_for(asyncio.sleep(0), timeout=float(len(rows)))


@torch.inference_mode()
def decorated(model, x):
    return model.net(x), [model.net(y) for y in x]
'''


def _index() -> Index:
    module = model.build_module("svc", "svc.py", SERVICE, ast.parse(SERVICE))
    return Index({"svc": module})


def _old_own_nodes(node: ast.AST):
    """Stop 40's ``model._own_nodes``."""
    todo = list(ast.iter_child_nodes(node)) if not isinstance(node, ast.Module) else list(node.body)
    while todo:
        child = todo.pop()
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(child))


def _old_walk_calls(reach: Reachability, func: model.Func):
    """Stop 40's ``Reachability._walk_calls``."""
    inference = any(reach._is_inference(d, func) for d in func.node.decorator_list)
    todo = [(stmt, inference) for stmt in reversed(func.node.body)]
    while todo:
        node, inside = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.If):
            reach._guard(node)
            children = taken(node, children)
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                reach._is_inference(item.context_expr, func) for item in node.items):
            todo.extend((stmt, True) for stmt in reversed(node.body))
            todo.extend((item, inside) for item in reversed(node.items))
            continue
        if isinstance(node, ast.Call):
            yield node, inside
            skip = reach._offloaded_arg(node, func) or stored_lambda(reach.index, node, func)
            if skip is not None:
                children = [c for c in children if c is not skip]
        todo.extend((c, inside) for c in reversed(children))


def _functions(index: Index) -> list[model.Func]:
    return [f for m in index.distinct_modules() for f in m.all_functions]


def test_function_nodes_are_listed_as_the_generator_listed_them():
    for func in _functions(_index()):
        assert func.nodes == list(_old_own_nodes(func.node)), func.qualname


def test_calls_of_a_body_are_those_of_the_stop_40_walk_with_the_same_side_effects():
    old, new = Reachability(_index()), Reachability(_index())
    old_funcs, new_funcs = _functions(old.index), _functions(new.index)
    for before, after in zip(old_funcs, new_funcs):
        expected = [(ast.dump(c), c.lineno, c.col_offset, inside) for c, inside in _old_walk_calls(old, before)]
        got = [(ast.dump(c), c.lineno, c.col_offset, inside) for c, inside in new._walk_calls(after)]
        assert got == expected, after.qualname
    assert [(o.function, o.via, o.line) for o in new.offloaded] == [(o.function, o.via, o.line) for o in old.offloaded]
    assert len(new.offloaded) == 2  # the lambda to to_thread and model.predict to run_in_executor
    assert len(new._guarded) == len(old._guarded) == 1  # client.get in the else of `hasattr(client, "aget")`
    handle = next(f for f in new_funcs if f.qualname == "handle")
    lines = {c.lineno for c, _ in new._walk_calls(handle)}
    assert 45 not in lines  # `if False: time.sleep(1)` never runs
    assert 55 not in lines  # nor the body of the nested `later`
    assert all(inside for _, inside in new._walk_calls(next(f for f in new_funcs if f.qualname == "decorated")))


def test_module_nodes_are_ast_walk_listed_once():
    module = _index().distinct_modules()[0]
    first = model.module_nodes(module)
    assert first == list(ast.walk(module.tree))
    assert model.module_nodes(module) is first  # the same list: walked once per module


def test_nodes_of_a_kind_are_the_filtered_nodes_in_order():
    for func in _functions(_index()):
        for kind in (ast.Assign, ast.Name, (ast.Yield, ast.YieldFrom), (ast.With, ast.AsyncWith)):
            listed = model.nodes_of(func, kind)
            assert listed == [n for n in func.nodes if isinstance(n, kind)]
            assert model.nodes_of(func, kind) is listed


def test_attribute_writes_table_grows_with_the_modules_an_index_reads_later():
    source = "import json\n\n\nclass A:\n    def __init__(self):\n        self.load = json.load\n"
    first = model.build_module("a", "a.py", source, ast.parse(source))
    index = Index({"a": first})
    assert [w[0].attr for w in _writes(index)["load"]] == ["load"]
    assert stored_callable(index, first.classes["A"], "load") == "json.load"
    later = "import a\nthing = a.A()\nthing.load = other\n"
    index.modules["b"] = model.build_module("b", "b.py", later, ast.parse(later))  # as a library index reads one
    table = _writes(index)["load"]
    assert len(table) == 2 and table[1][0].value.id == "thing"  # the new module's write, after the others
    fresh = Index(dict(index.modules))  # computed from scratch over both modules: the same table
    assert [(w[0].lineno, w[0].attr) for w in _writes(fresh)["load"]] == [(w[0].lineno, w[0].attr) for w in table]
    assert stored_callable(fresh, fresh.modules["a"].classes["A"], "load") is None  # set from outside: not bound
