"""The caches added for speed (stop 40) answer exactly what the uncached computation answers."""

from __future__ import annotations

import ast
import gc

from faultlib.detect.data.leakage.choices import Bindings, bindings, names_columns
from faultlib.detect.data.leakage.generators import is_generator as _is_generator
from faultlib.detect.data.leakage.generators import yields as _yields
from faultlib.detect.data.leakage.timeorder import calendar_groups
from faultlib.detect.serving.blocking import model as blocking_model
from faultlib.pyflow.heap import HELD_BACK, analysis_heap

FEATURES = '''
import pandas as pd
frame = pd.read_csv("shop.csv")
wanted = list(set(frame.columns) - {"price"})
picked = wanted
picked = [c for c in picked if c != "id"]
tally = frame.isnull().sum()
kept = tally[tally > 0].index
rows = frame["age"] > 30
subset = frame[picked]
other = frame[kept]
few = frame[rows]
again = frame[frame.columns[2:]]
'''


def _slices(tree: ast.Module) -> list[ast.expr]:
    return [n.slice for n in ast.walk(tree) if isinstance(n, ast.Subscript)]


def test_names_columns_with_memo_answers_as_without():
    tree = ast.parse(FEATURES)
    memoised = bindings(tree)
    plain = dict(memoised)  # a plain dict: no memo, every answer computed afresh
    assert isinstance(memoised, Bindings) and not isinstance(plain, Bindings)
    answers = [(names_columns(s, memoised), names_columns(s, plain)) for s in _slices(tree)]
    assert [a for a, _ in answers] == [b for _, b in answers]
    assert {a for a, _ in answers} == {True, False}  # both answers occur: the comparison means something
    assert memoised.memo  # the answers were remembered
    again = [names_columns(s, memoised) for s in _slices(tree)]  # and answered from the memo the same way
    assert again == [a for a, _ in answers]


def test_names_columns_memo_is_per_depth():
    tree = ast.parse("a = frame.columns\nb = a\nc = b\nx = frame[c]\n")
    index = _slices(tree)[-1]
    memoised = bindings(tree)
    answers = [names_columns(index, memoised, depth) for depth in (3, 1, 3, 1)]
    assert answers == [names_columns(index, {"a": [tree.body[0].value], "b": [tree.body[1].value],
                                             "c": [tree.body[2].value]}, depth) for depth in (3, 1, 3, 1)]
    assert answers == [True, False, True, False]  # three bindings deep reach `.columns`, one does not


def test_is_generator_remembers_the_answer_of_the_walk():
    tree = ast.parse("def batches(x):\n    for i in x:\n        yield i\n\n"
                     "def plain(x):\n    def inner():\n        yield 1\n    return x\n")
    gen, plain = tree.body
    assert (_is_generator(gen), _is_generator(plain)) == (_yields(gen), _yields(plain)) == (True, False)
    assert (_is_generator(gen), _is_generator(plain)) == (True, False)  # second answer from the node
    assert compile(tree, "<test>", "exec")  # the remembered answer is no AST field: the tree still compiles


def test_calendar_groups_reads_every_assignment_of_the_name():
    tree = ast.parse("g = df['month']\nother = 1\ng = df['store_id']\na = g = df['week']\n")
    groups = ast.parse("g", mode="eval").body
    assert calendar_groups(groups, tree) == ["month", "week"]
    assert calendar_groups(groups, tree) == ["month", "week"]  # from the per-tree index the second time


SERVICE = '''
import os
from . import helpers as h
LIMIT = None

def setup():
    global LIMIT
    LIMIT = 5
    try:
        import json as j
    except ImportError:
        pass
    else:
        class Inner:
            def run(self):
                x = lambda: (yield)
    finally:
        done = True

class Service:
    cache = {}
    if os.name == "nt":
        def open(self):
            self.handle = open("f")
    match os.name:
        case "posix":
            def close(self):
                self.handle.close()
    async def serve(self):
        async with lock:
            self.state.model = load()
            for item in items:
                data: dict = {}
                a.b, c.d = 1, 2
        while True:
            with open("x") as f:
                result = [i for i in range(3)]
'''


class _FullWalk(blocking_model._Collector):
    """The collector descending into every node (the standard :class:`ast.NodeVisitor` walk)."""

    generic_visit = ast.NodeVisitor.generic_visit


def _summary(module: blocking_model.Module) -> dict:
    return {"functions": [f.qualname for f in module.all_functions],
            "methods": {k: list(c.methods) for k, c in module.classes.items()},
            "imports": module.imports, "globals": {k: ast.dump(v) for k, v in module.globals.items()},
            "attr_values": {k: ast.dump(v) for k, v in module.attr_values.items()},
            "attr_stores": [(k, ast.dump(v)) for k, v in module.attr_stores],
            "attr_writes": [(ast.dump(t), i) for t, _, i, _ in module.attr_writes],
            "global_values": {k: [(ast.dump(v), f and f.qualname) for v, f in vs]
                              for k, vs in module.global_values.items()}}


def test_statement_only_collector_builds_the_same_module_as_the_full_walk():
    tree = ast.parse(SERVICE)
    fast = blocking_model.build_module("pkg.svc", "svc.py", SERVICE, tree)
    full = blocking_model.Module("pkg.svc", "svc.py", tree, SERVICE)
    _FullWalk(full).visit(tree)
    assert _summary(fast) == _summary(full)
    assert "Service.close" in _summary(fast)["functions"]  # a def inside `match` is found
    assert "setup.<locals>.Inner.run" in _summary(fast)["functions"]  # and inside `try ... else`


def test_analysis_heap_holds_back_full_collections_and_restores_the_thresholds():
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with analysis_heap():
            assert gc.get_threshold() == (700, 10, HELD_BACK)
            with analysis_heap():
                assert gc.get_threshold() == (700, 10, HELD_BACK)
            assert gc.get_threshold() == (700, 10, HELD_BACK)
        assert gc.get_threshold() == (700, 10, 10)
        try:
            with analysis_heap():
                raise KeyError("x")
        except KeyError:
            pass
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)
