"""The lookups of ``check blocking`` made cheaper at stop 54 answer what the walks they replace answered.

``branches.enclosing`` (the nodes that hold a call, found in one walk) stands for the walk of each statement at each
level of nesting that :func:`~faultlib.detect.serving.blocking.branches._guards` made; the ``init`` event test of
:mod:`~faultlib.detect.serving.blocking.orm_events` runs before a listener is resolved; the aiohttp signal
registrations of :mod:`~faultlib.detect.serving.blocking.signal_hooks` are listed once per index."""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import branches, orm_events, signal_hooks
from faultlib.detect.serving.blocking.index import Index, build_module

HANDLER = '''
def handle(flag, mode, items):
    if flag:
        for item in items:
            try:
                if mode == "disk" and save(item):
                    log(item)
            except OSError:
                retry(item)
    else:
        value = fetch() if mode else cached()
        match value:
            case 1:
                def later():
                    return sleep(1)
                later()
    return done()
'''


def _old_contains(node: ast.AST, call: ast.AST) -> bool:
    """Stop 53's test: a walk of ``node`` until ``call`` is met."""
    return any(found is call for found in ast.walk(node))


def test_enclosing_holds_exactly_the_nodes_whose_walk_meets_the_call():
    body = ast.parse(HANDLER).body[0].body
    nodes = [n for stmt in body for n in ast.walk(stmt)]
    calls = [n for n in nodes if isinstance(n, ast.Call)]
    assert len(calls) == 8
    for call in calls:
        above = branches.enclosing(body, call)
        assert call in nodes and id(call) in above
        for node in nodes:
            if not isinstance(node, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop)):
                assert (id(node) in above) == _old_contains(node, call), f"{ast.dump(call)} under {ast.dump(node)}"
    assert branches.enclosing(body, ast.parse("f()").body[0].value) == set()  # a call of another tree


def test_guards_of_a_call_are_the_tests_around_it_outermost_first():
    body = ast.parse(HANDLER).body[0].body
    by_name = {c.func.id: c for stmt in body for c in ast.walk(stmt) if isinstance(c, ast.Call)}

    def guards(name):
        return [(ast.unparse(test), needed) for test, needed in branches._guards(body, by_name[name])]

    assert guards("save") == [("flag", True), ("mode == 'disk'", True)]
    assert guards("log") == [("flag", True), ("mode == 'disk' and save(item)", True)]
    assert guards("retry") == [("flag", True)]
    assert guards("fetch") == [("flag", False), ("mode", True)]
    assert guards("cached") == [("flag", False), ("mode", False)]
    assert guards("later") == [("flag", False)]
    assert guards("sleep") == [("flag", False)]  # in a def nested under the else: its test still holds it
    assert guards("done") == []


def test_only_a_call_naming_an_init_event_second_is_read_as_a_registration():
    def call(source):
        return ast.parse(source).body[0].value

    assert orm_events._names_event(call('event.listen(User, "init", hash_password)'))
    assert orm_events._names_event(call('event.listens_for(User, "init_failure")'))
    assert not orm_events._names_event(call('event.listen(User, "load", on_load)'))
    assert not orm_events._names_event(call('event.listen(User, mode, on_load)'))
    assert not orm_events._names_event(call('register(User)'))


SIGNALS = '''
from aiohttp import web

async def open_store(app):
    app["store"] = {}

async def close_store(app):
    pass

def make():
    app = web.Application()
    app.on_startup.append(open_store)
    app.on_cleanup.extend([close_store, lambda a: None])
    queue = []
    queue.append(open_store)
    return app
'''


def test_signal_registrations_are_listed_once_per_index():
    index = Index({"svc": build_module("svc", "svc.py", SIGNALS, ast.parse(SIGNALS))})
    listed = signal_hooks._registrations(index)
    assert [(s.attr, [ast.unparse(r) for r in refs], caller.qualname) for s, refs, caller in listed] == [
        ("on_startup", ["open_store"], "make"), ("on_cleanup", ["close_store"], "make")]
    assert signal_hooks._registrations(index) is listed


def test_families_of_a_type_are_those_whose_owns_says_so_in_order():
    from dataclasses import replace

    from faultlib.detect.serving.blocking.vocab import Merged, vocabulary

    merged = vocabulary()
    fresh = Merged(merged.calls, merged.families, merged.returns, merged.plugins, merged.failed)
    names = sorted({t for f in merged.families for t in f.types} | {n.rpartition(".")[0] for n in merged.calls})
    names += [n + ".Client.sub" for n in names[::7]] + [n[:-1] for n in names[::5]] + ["", "x", "zz.top", "_a.b"]
    for name in names:
        assert fresh._families_of(name) == [f for f in merged.families if f.owns(name)], name
    odd = replace(merged.families[0], types=("",), prefix=True, package=False, suffix=())  # owns every name
    widened = Merged(merged.calls, (*merged.families[:3], odd), merged.returns, merged.plugins, merged.failed)
    assert widened._families_of("anything.at.all")[-1] is odd and widened._families_of("")[-1] is odd


def test_an_analysis_asks_the_guards_of_a_call_once():
    module = build_module("svc", "svc.py", HANDLER, ast.parse(HANDLER))
    body = module.functions["handle"].node.body
    call = next(c for stmt in body for c in ast.walk(stmt) if isinstance(c, ast.Call) and c.func.id == "log")
    per_analysis = branches.Branches(Index({"svc": module}))
    first = per_analysis.guards(body, call)
    assert first == branches._guards(body, call) and len(first) == 2
    assert per_analysis.guards(body, call) is first
