"""Stop 49's speed work on ``check blocking`` with the installed libraries followed: the same answers, cheaper.

:func:`~faultlib.detect.serving.blocking.distribution_tops.top_level_names` reads a distribution's ``RECORD`` rows
itself instead of building a path object per installed file (``Distribution.files``): these tests hold its names to
the expression it replaced on made-up distributions in a temporary directory (paths with empty and ``.`` parts, an
absolute path, a file whose name only contains ``.py``), its fallbacks (``top_level.txt`` first; a row ``files``
would refuse, and a distribution without ``RECORD``, answered by ``files`` itself), and the installed library lookup
that uses it to the distribution it names.

The node tables a function keeps by kind (:func:`~faultlib.detect.serving.blocking.model.nodes_of`) now look the
kind's classes up instead of testing each class of the function; they still list what :func:`isinstance` picks, in
the body's order (a node class :mod:`ast` does not define included), and the scans moved onto them (the modules a
function returns, the locals a model reference reads) keep their answers. The walks skip the nodes that can hold
none (:data:`faultlib.pyflow.walk.CHILDLESS`: constants, contexts, operators) without asking for their children. :func:`~faultlib.detect.serving.blocking.module_annotations.returned_types`
(the vocabulary's returned types as a set, memoised) keeps ``names_a_module``'s answers.
"""

from __future__ import annotations

import ast
import textwrap
from importlib import metadata

import pytest

from faultlib.detect.serving.blocking import analyze_sources
from faultlib.detect.serving.blocking.distribution_tops import LIMIT, top_level_names
from faultlib.detect.serving.blocking.installed import Installed
from faultlib.detect.serving.blocking.model import build_module, nodes_of
from faultlib.detect.serving.blocking.model_refs import _locals as ref_locals
from faultlib.detect.serving.blocking.module_annotations import (
    names_a_module,
    returned_types,
)
from faultlib.detect.serving.blocking.returned_modules import returned_module
from faultlib.detect.serving.blocking.vocab import vocabulary
from faultlib.pyflow.walk import CHILDLESS, NO_CALLS, children, walk


def _dist(site, name: str, files: dict[str, str]):
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    for file, text in files.items():
        (info / file).write_text(text)
    return next(d for d in metadata.distributions(path=[str(site)]) if d.metadata["Name"] == name)


def _by_files(dist) -> set[str]:
    """What the installed lookup computed before stop 49 (``Distribution.files``, a path object per row)."""
    return {str(f).split("/")[0].removesuffix(".py") for f in (dist.files or [])[:LIMIT] if str(f).endswith(".py")}


RECORD = textwrap.dedent("""\
    weather_feed/__init__.py,sha256=abc,10
    weather_feed/fetch.py,,
    ./single_module.py,sha256=def,3
    .//doubled//inner.py
    /abs/outside.py,,
    trailing.py/,,
    dotted.py/.,,
    weather_feed/__pycache__/fetch.cpython-311.pyc,,
    data.pyx,,
    notes.py.txt,,
    ../../bin/tool.py,,
    "quoted, name.py",,
    weather_feed-1.0.dist-info/RECORD,,
""")


def test_record_rows_give_the_names_files_gave(tmp_path):
    dist = _dist(tmp_path, "weather-feed", {"RECORD": RECORD})
    names = top_level_names(dist)
    assert names == _by_files(dist)
    assert {"weather_feed", "single_module", "doubled", "", "trailing", "dotted", "..", "quoted, name"} == names


def test_only_the_first_files_are_read(tmp_path):
    rows = "".join(f"pkg_{i}/mod.py,,\n" for i in range(LIMIT + 5))
    dist = _dist(tmp_path, "many", {"RECORD": rows})
    assert top_level_names(dist) == _by_files(dist)
    assert f"pkg_{LIMIT}" not in top_level_names(dist) and f"pkg_{LIMIT - 1}" in top_level_names(dist)


def test_top_level_txt_is_read_first(tmp_path):
    dist = _dist(tmp_path, "declared", {"top_level.txt": "alpha\nbeta\n", "RECORD": "gamma/__init__.py,,\n"})
    assert top_level_names(dist) == ["alpha", "beta"]


def test_a_row_files_refuses_is_refused_the_same_way(tmp_path):
    dist = _dist(tmp_path, "broken", {"RECORD": "ok/__init__.py,,\nbad.py,a,b,c\n"})
    with pytest.raises(TypeError):
        _by_files(dist)
    with pytest.raises(TypeError):
        top_level_names(dist)


def test_no_record_is_answered_by_files(tmp_path):
    dist = _dist(tmp_path, "bare", {})
    assert top_level_names(dist) == _by_files(dist) == set()


def test_the_lookup_names_the_distribution_from_its_record(tmp_path):
    _dist(tmp_path, "weather-feed", {"RECORD": "weather_feed/__init__.py,,\n"})
    assert Installed([tmp_path])._distribution("weather_feed", tmp_path) == ("weather-feed", "1.0")
    assert Installed([tmp_path])._distribution("other", tmp_path) == ("other", "unknown")


def test_a_library_found_by_its_record_is_followed(tmp_path):
    site = tmp_path / "site"
    _dist(site, "weather-feed", {"RECORD": "weather_feed/__init__.py,,\n"})
    (site / "weather_feed").mkdir()
    (site / "weather_feed" / "__init__.py").write_text("import time\n\n\ndef fetch():\n    time.sleep(1)\n")
    service = "import weather_feed\n\n\nasync def handler():\n    weather_feed.fetch()\n\n\nasync def fine():\n    pass\n"
    report = analyze_sources([("app.py", ["app"], service)], installed=Installed([site]))
    assert [(f.kind, f.location["line"]) for f in report.findings] == [("blocking_sleep", 5)]
    assert [(lib["name"], lib["version"]) for lib in report.libraries] == [("weather-feed", "1.0")]


def test_returned_types_keep_what_names_a_module():
    VOCAB = vocabulary()
    returned = returned_types(VOCAB)
    assert returned == frozenset(VOCAB.returns.values()) and returned_types(VOCAB) is returned
    lower = sorted(t for t in returned if t.rpartition(".")[2][:1].islower())
    assert lower and not any(names_a_module(VOCAB, t) for t in lower)  # socket.socket: a type an entry returns
    assert names_a_module(VOCAB, "selenium.webdriver")


SCANNED = '''
import json as j
import os


def helper(path, rows=None):
    global CACHE
    CACHE = os
    items = [make(r) for r in rows]
    items = [x for x in items]
    total: int = 0
    for row in rows:
        total += len(row)
        with open(path) as handle:
            handle.read()
    try:
        json_text = j.dumps(items)
    except ValueError as exc:
        raise RuntimeError(exc) from None
    if total:
        return CACHE
    return os


class Holder:
    def __init__(self, client):
        self.client = client
        self.first, self.second = client.pair()
        self.table: dict = {}
        self.table["k"] = client

    def run(self, n):
        return [self.client.get(i) for i in range(n)]
'''
KINDS = [ast.Call, ast.Name, ast.stmt, ast.expr, (ast.Assign, ast.AnnAssign), ast.Constant, ast.Global, ast.Import,
         ast.Return, ast.excepthandler, ast.expr_context, (ast.For, ast.comprehension, ast.With, ast.Call), ast.AST]


def test_node_tables_by_kind_list_what_isinstance_picks_in_order():
    module = build_module("scanned", "scanned.py", SCANNED, ast.parse(SCANNED))
    for func in module.all_functions:
        for kind in KINDS:
            assert nodes_of(func, kind) == [n for n in func.nodes if isinstance(n, kind)], f"{func.qualname} {kind}"


class _MadeCall(ast.Call):
    """A node class no parse makes (an analysis may build such nodes): still an :class:`ast.Call`."""


def test_a_node_class_ast_does_not_define_is_still_found_by_its_base():
    module = build_module("scanned", "scanned.py", SCANNED, ast.parse(SCANNED))
    func = module.all_functions[0]
    made = _MadeCall(func=ast.Name(id="f", ctx=ast.Load()), args=[], keywords=[])
    func.node.body.insert(0, ast.Expr(value=made))
    func._nodes = None
    func.__dict__.pop("_faultlib_classes", None)
    func.__dict__.pop("_faultlib_kinds", None)
    calls = nodes_of(func, ast.Call)
    assert made in calls and calls == [n for n in func.nodes if isinstance(n, ast.Call)]
    assert nodes_of(func, _MadeCall) == [made]


def test_scans_read_from_the_tables_keep_their_answers():
    source = SCANNED + '''

def loader():
    import numpy as np
    return np


def pick(names):
    chosen = [Holder(n) for n in names]
    return chosen[0]
'''
    module = build_module("scanned", "scanned.py", source, ast.parse(source))
    funcs = {f.qualname: f for f in module.all_functions}
    assert returned_module(funcs["loader"]) == "numpy" and returned_module(funcs["helper"]) is None
    names, single = ref_locals(funcs["helper"])
    assert {"path", "rows", "CACHE", "items", "total", "row", "handle", "json_text"} <= names
    assert "items" not in single and "json_text" in single  # assigned twice / once


def test_childless_classes_hold_no_node_and_walks_skip_them_unchanged():
    source = SCANNED + "\nx = (a + b) * -c if not d else e[1:2] and f is not g\ndel x\nmatch x:\n    case None: pass\n"
    tree = ast.parse(source)
    seen = {n.__class__ for n in ast.walk(tree)}
    assert {ast.Constant, ast.Load, ast.Store, ast.Del, ast.Add, ast.Not, ast.IsNot, ast.Pass, ast.alias} <= (
        seen & CHILDLESS)
    for node in ast.walk(tree):
        if node.__class__ in CHILDLESS:
            assert list(ast.iter_child_nodes(node)) == [] == children(node)
    assert walk(tree) == list(ast.walk(tree))
    assert {ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del} <= NO_CALLS and ast.Call not in NO_CALLS
