"""check blocking: the kinds held-out wave 79 (issue 17; cameras, video and IoT behind async servers) left, fixed by kind.

M1: a module function bound onto an object at startup (``obj.name = func.__get__(obj)`` or
``types.MethodType(func, obj)``) runs when ``obj.name(...)`` is called from async code; a module global set by a
setter function (``def set_store(store): global _store; _store = store``) holds what its callers pass.
Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this test.
"""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged, flagged_package

# -- M1: functions bound onto an instance ----------------------------------------------------------------------------

_LEDGER = """
    class Ledger:
        def __init__(self, path):
            self.path = path

        def label(self):
            return self.path


    class Memo:
        def __init__(self):
            self.seen = []
"""

_EXTRAS = """
    import sqlite3
    import types


    def record_visit(self, who):
        conn = sqlite3.connect(self.path)
        conn.execute("INSERT INTO visits VALUES (?)", (who,))
        conn.commit()


    def remember(self, who):
        self.seen.append(who)


    def install(ledger, memo):
        ledger.record_visit = {ledger_binding}
        memo.record_visit = remember.__get__(memo)
"""

_APP = """
    import asyncio
    from fastapi import FastAPI
    from store import Ledger, Memo
    from extras import install

    app = FastAPI()
    ledger = None
    memo = None


    @app.on_event("startup")
    async def boot():
        global ledger, memo
        ledger = Ledger("visits.db")
        memo = Memo()
        install(ledger, memo)


    @app.post("/visit")
    async def visit(who: str):
        memo.record_visit(who)
        {call}
        return {{"ok": True}}
"""

_WRITES = {("extras.py", "blocking_db", "conn = sqlite3.connect(self.path)"),
           ("extras.py", "blocking_db", 'conn.execute("INSERT INTO visits VALUES (?)", (who,))'),
           ("extras.py", "blocking_db", "conn.commit()")}


@pytest.mark.parametrize("binding", ["record_visit.__get__(ledger)", "record_visit.__get__(ledger, Ledger)",
                                     "types.MethodType(record_visit, ledger)"])
def test_a_function_bound_onto_an_instance_runs_when_the_instance_calls_it(tmp_path, binding):
    found = flagged_package(tmp_path, {
        "store.py": _LEDGER,
        "extras.py": _EXTRAS.format(ledger_binding=binding),
        "app.py": _APP.format(call="ledger.record_visit(who)"),
    })
    assert found == _WRITES


def test_a_bound_function_handed_to_a_worker_thread_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": _LEDGER,
        "extras.py": _EXTRAS.format(ledger_binding="record_visit.__get__(ledger)"),
        "app.py": _APP.format(call="await asyncio.to_thread(ledger.record_visit, who)"),
    })
    assert found == set()  # and memo.record_visit, bound to the list append under the same name, runs no query


def test_a_global_set_by_a_setter_holds_what_its_callers_pass(tmp_path):
    found = flagged_package(tmp_path, {
        "store.py": """
            import sqlite3

            class Ledger:
                def __init__(self, path):
                    self.path = path

                def visits(self):
                    return sqlite3.connect(self.path).execute("SELECT * FROM visits").fetchall()
        """,
        "reports.py": """
            _ledger = None


            def set_ledger(ledger):
                global _ledger
                _ledger = ledger


            def visits_report():
                if not _ledger:
                    return []
                return _ledger.visits()
        """,
        "app.py": """
            from fastapi import FastAPI
            import reports
            from store import Ledger

            app = FastAPI()


            @app.on_event("startup")
            async def boot():
                reports.set_ledger(Ledger("visits.db"))


            @app.get("/visits")
            async def visits():
                return reports.visits_report()
        """,
    })
    assert found == {("store.py", "blocking_db",
                      'return sqlite3.connect(self.path).execute("SELECT * FROM visits").fetchall()')}


def test_a_global_set_by_a_setter_that_is_never_called_stays_unknown(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        from fastapi import FastAPI

        app = FastAPI()
        _ledger = None


        class Ledger:
            def visits(self):
                return sqlite3.connect("visits.db").execute("SELECT 1").fetchall()


        def set_ledger(ledger):
            global _ledger
            _ledger = ledger


        @app.get("/visits")
        async def visits():
            return _ledger.visits()
    """)
    assert found == set()
