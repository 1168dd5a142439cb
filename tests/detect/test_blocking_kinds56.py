"""check blocking: the known kinds stop 55 left (issue 17, stop 56). Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged

# -- a local name hides the module's function or class of the same name --------------------------------------------

_SHADOWED = """
    import time


    def fetch(url):
        time.sleep(2)
        return url


    class Probe:
        def ping(self):
            time.sleep(1)

    {handler}
"""


def test_a_parameter_named_like_a_module_function_calls_the_argument_not_the_function(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    async def handle(request, fetch):
        return await fetch(request.url)
    """))
    assert found == set()


def test_a_loop_target_and_a_with_target_named_like_module_definitions_are_locals(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    async def each(request, sources, opener):
        for fetch in sources:
            await fetch(request.url)
        with opener() as Probe:
            await Probe.ping()
    """))
    assert found == set()


def test_the_module_function_itself_and_a_global_rebound_in_the_function_still_block(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    async def direct(request):
        return fetch(request.url)


    async def rebinding(request):
        global fetch
        fetch(request.url)
        fetch = None
    """))
    assert found == {("blocking_sleep", "time.sleep(2)")}


def test_a_closure_variable_of_the_enclosing_function_hides_the_module_function(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    def make(fetch):
        async def run(url):
            return await fetch(url)
        return run
    """))
    assert found == set()


# -- the project's own package in the src layout, imported by absolute name -----------------------------------------

def _written(root, files: dict[str, str]) -> None:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))


_STORE = """
    import sqlite3


    class Ledger:
        def total(self, account):
            return sqlite3.connect("ledger.db").execute("select 1").fetchall()
"""


def test_a_service_folder_importing_the_projects_src_layout_package_follows_it(tmp_path):
    _written(tmp_path / "repo", {
        "src/ledgerkit/__init__.py": "",
        "src/ledgerkit/books.py": _STORE,
        "service/app.py": """
            from ledgerkit.books import Ledger


            async def balance(account):
                return Ledger().total(account)
        """,
    })
    report = analyze_path(tmp_path / "repo" / "service")
    assert [(f.kind, f.location["file"].rpartition("/")[2], f.location["line"]) for f in report.findings] == [
        ("blocking_db", "books.py", 7)]


def test_a_src_folder_without_the_imported_package_adds_nothing(tmp_path):
    _written(tmp_path / "repo", {
        "src/otherkit/__init__.py": "",
        "src/otherkit/books.py": _STORE,
        "service/app.py": """
            from ledgerkit.books import Ledger


            async def balance(account):
                return Ledger().total(account)
        """,
    })
    report = analyze_path(tmp_path / "repo" / "service")
    assert report.findings == [] and report.added == []
