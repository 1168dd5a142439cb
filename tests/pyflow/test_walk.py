"""faultlib.pyflow.walk lists exactly what :mod:`ast`'s walkers yield, in the same order."""

from __future__ import annotations

import ast

import pytest

from faultlib.pyflow.walk import NO_CALLS, WALKS_KEPT, children, nodes_of, tree_fact, walk, walk_once

SOURCE = '''
import os, sys as system
from pkg.sub import thing as alias
GLOBAL: int = 3

@decorate(flag=True)
async def serve(request, *args, mode="fast", **options) -> dict:
    global GLOBAL
    async with session() as client, other():
        data = await client.get(f"{request.url}/{mode!r:>10}", timeout=(1, 2.5))
    try:
        rows = [parse(r) for r in data if r if not r.skip]
    except (ValueError, KeyError) as exc:
        raise RuntimeError("bad") from exc
    else:
        rows = {k: v for k, v in enumerate(rows)}
    finally:
        del data
    match request.kind:
        case "a" | "b":
            pass
        case Point(x=0, y=yy) if yy > 1:
            print(yy)
        case [first, *rest]:
            print(first, rest)
        case {"key": value, **others}:
            print(value, others)
        case None:
            pass
    while not done():
        break
    else:
        return {**options, "n": -len(rows) + 1 * 2}
    sorted(rows, key=lambda row: row[0] if row else (yield))
    return None

class Holder(Base, metaclass=Meta):
    size: "Model" = None
    def run(self, x, /, y, *, z):
        nonlocal_value = x[1:2, ::3]
        assert x, "message"
        for a, b in zip(x, y):
            continue
        return not a and b or z is not None
'''


def _trees():
    yield ast.parse(SOURCE)
    yield ast.parse("")
    yield ast.parse("x = 1", mode="single")
    yield ast.parse("f(a)(b).c[d]", mode="eval")


@pytest.mark.parametrize("tree", list(_trees()), ids=["file", "empty", "single", "eval"])
def test_walk_lists_what_ast_walk_yields_in_order(tree):
    assert walk(tree) == list(ast.walk(tree))


def test_children_lists_what_iter_child_nodes_yields_for_every_node():
    tree = ast.parse(SOURCE)
    nodes = list(ast.walk(tree))
    assert len({type(n) for n in nodes}) > 60  # the source exercises most of the grammar
    for node in nodes:
        assert children(node) == list(ast.iter_child_nodes(node)), ast.dump(node)[:80]


def test_children_of_nodes_built_by_hand_with_fields_left_out():
    bare = ast.Name(id="x")  # no ctx: ast.iter_child_nodes skips the missing field, so does children()
    assert children(bare) == list(ast.iter_child_nodes(bare)) == []
    call = ast.Call(func=ast.Name(id="f", ctx=ast.Load()), args=[ast.Constant(1)], keywords=[])
    assert children(call) == list(ast.iter_child_nodes(call))


def test_no_calls_nodes_hold_no_call():
    for node in ast.walk(ast.parse(SOURCE)):
        if type(node) in NO_CALLS:
            assert not any(isinstance(n, ast.Call) for n in ast.walk(node))


def test_walk_once_is_the_walk_of_that_tree_and_is_taken_once():
    tree = ast.parse(SOURCE)
    first = walk_once(tree)
    assert [type(n) for n in first] == [type(n) for n in ast.walk(tree)]
    assert all(a is b for a, b in zip(first, ast.walk(tree)))
    assert walk_once(tree) is first  # remembered: the same list, no second walk
    other = ast.parse("x = 1")
    assert walk_once(other) is not first and walk_once(other)[0] is other


def test_walk_once_forgets_the_oldest_trees_beyond_its_bound():
    first_tree = ast.parse("a = 1")
    first = walk_once(first_tree)
    for i in range(WALKS_KEPT):
        walk_once(ast.parse(f"b{i} = {i}"))
    again = walk_once(first_tree)
    assert again is not first and [type(n) for n in again] == [type(n) for n in first]


def test_nodes_of_lists_the_walks_nodes_of_a_class_in_order_and_keeps_them():
    tree = ast.parse("for i in range(3):\n    for j in x:\n        f(i, j)\nwhile y:\n    g()\n")
    loops = nodes_of(tree, ast.For)
    assert loops == [n for n in ast.walk(tree) if isinstance(n, ast.For)]
    assert [n.lineno for n in loops] == [1, 2]
    assert nodes_of(tree, ast.For) is loops  # remembered with the tree's walk: no second pass over it
    calls = nodes_of(tree, (ast.Call, ast.While))
    assert calls == [n for n in ast.walk(tree) if isinstance(n, (ast.Call, ast.While))]
    assert nodes_of(ast.parse("x = 1"), ast.For) == []


def test_tree_fact_computes_a_fact_of_a_tree_once_and_per_tree():
    asked: list[ast.AST] = []

    def names(tree: ast.AST) -> frozenset[str]:
        asked.append(tree)
        return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))

    one, two = ast.parse("a = b + c"), ast.parse("d = 1")
    assert tree_fact(one, names) == {"a", "b", "c"}
    assert tree_fact(one, names) == {"a", "b", "c"} and asked == [one]  # the second answer is the kept one
    assert tree_fact(two, names) == {"d"} and asked == [one, two]  # another tree: its own fact
    assert nodes_of(one, ast.Name) == [n for n in ast.walk(one) if isinstance(n, ast.Name)]  # apart from nodes_of
