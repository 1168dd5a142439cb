"""A script of tens of thousands of functions (a generated module, a 50,000-line file) is analysed in time linear in
its size: the scopes a name on a line is looked up in are found by a walk up the functions holding that line, not by
a scan of every function per lookup (``check leakage`` once took minutes on 25,000 small functions)."""

from __future__ import annotations

import ast
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.detect.data.leakage.pathexprs import PathEnv

#: a function nesting: each function holds a list of functions nested in it
nestings = st.recursive(st.just([]), lambda inner: st.lists(inner, max_size=3), max_leaves=12)


def _source(children: list, depth: int = 0, names: list[int] | None = None) -> str:
    names = names if names is not None else [0]
    out = []
    for child in children:
        names[0] += 1
        pad = "    " * depth
        out.append(f"{pad}def f{names[0]}(path):\n{pad}    here = path\n" + _source(child, depth + 1, names)
                   + f"{pad}    return here\n")
    return "".join(out)


def _scanned(tree: ast.Module, line: int) -> list[int]:
    """Every function holding ``line``, innermost first: the definition the walk must agree with."""
    held = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.lineno <= line <= n.end_lineno]
    return [id(n) for n in sorted(held, key=lambda n: (n.lineno, -n.end_lineno), reverse=True)]


@settings(max_examples=80, deadline=2000)
@given(nestings, st.lists(nestings, max_size=3))
def test_the_scopes_of_a_line_are_the_functions_holding_it_innermost_first(first, rest):
    source = "data = 'rows.csv'\n" + _source(first + [child for group in rest for child in group]) + "end = data\n"
    tree = ast.parse(source)
    env = PathEnv(tree)
    for line in range(1, source.count("\n") + 2):
        assert env.scopes_at(line) == [*_scanned(tree, line), -1], f"line {line} of:\n{source}"


def test_lookups_in_a_script_of_twenty_thousand_functions_take_linear_time():
    count = 20_000
    tree = ast.parse("".join(f"def f{i}(path):\n    return path\n" for i in range(count)))
    env = PathEnv(tree)
    start = time.process_time()
    for line in range(1, 2 * count + 1):
        env.scopes_at(line)
    spent = time.process_time() - start
    assert spent < 2.0, f"{2 * count:,} lookups took {spent:.1f} s of CPU (a scan of every function per lookup)"
    assert env.scopes_at(4) == [id(tree.body[1]), -1] and env.scopes_at(2 * count + 5) == [-1]
