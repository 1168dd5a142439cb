"""check blocking: the kind held-out wave 48 (issue 17; Home Assistant custom integrations with documented "blocking
call inside the event loop" fixes, a prompt compiler's API at two more fix commits) left, fixed by kind.

``check blocking api/`` where the app built in ``api/`` includes a router of a package beside it: the router's
``async def`` handlers are the app's requests, on its loop. Each blocker is found at its line; each look-alike stays
silent. Every example is written for this test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path

_HANDLERS = """
    import requests
    from fastapi import APIRouter

    router = APIRouter()
    admin = APIRouter()

    def summarise(rows):
        return len(rows)

    @router.post("/reports/{name}")
    async def build_report(name: str):
        answer = requests.get(f"https://example.invalid/{name}", timeout=5)
        return answer.json()

    @admin.post("/purge")
    async def purge():
        return requests.delete("https://example.invalid/all", timeout=5).ok
"""


def _scan_api(tmp_path: Path, main: str, packages: dict[str, str]) -> set[tuple[str, str]]:
    """``(file under the project, stripped line)`` of every finding of ``check blocking`` on ``project/api`` (its
    ``main.py`` from ``main``), the files of ``packages`` written beside ``api/``."""
    project = tmp_path / "project"
    for name, source in {"api/__init__.py": "", "api/main.py": main, **packages}.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    report = analyze_path(project / "api")
    assert report.complete
    found = set()
    for finding in report.findings:
        rel = Path(finding.location["file"]).resolve().relative_to(project.resolve())
        found.add((str(rel), (project / rel).read_text().splitlines()[finding.location["line"] - 1].strip()))
    return found


_GET = ("routers/reports.py", 'answer = requests.get(f"https://example.invalid/{name}", timeout=5)')
_DELETE = ("routers/reports.py", 'return requests.delete("https://example.invalid/all", timeout=5).ok')


def test_a_handler_of_a_router_the_app_includes_from_beside_the_scanned_folder_is_an_entry(tmp_path):
    found = _scan_api(tmp_path, """
        from fastapi import FastAPI
        from routers.reports import router as reports_router

        app = FastAPI()
        app.include_router(reports_router, prefix="/v1")
    """, {"routers/__init__.py": "", "routers/reports.py": _HANDLERS})
    assert found == {_GET}


def test_the_router_reached_as_an_attribute_of_its_module_or_through_its_package(tmp_path):
    found = _scan_api(tmp_path, """
        from fastapi import FastAPI
        from routers import reports
        from routers import admin_router

        app = FastAPI()
        app.include_router(reports.router)
        app.include_router(admin_router)
    """, {"routers/__init__.py": "from routers.reports import admin as admin_router\n",
          "routers/reports.py": _HANDLERS})
    assert found == {_GET, _DELETE}


def test_an_outside_module_whose_router_the_app_does_not_include_stays_silent(tmp_path):
    found = _scan_api(tmp_path, """
        from fastapi import FastAPI
        from routers.reports import summarise

        app = FastAPI()

        @app.get("/count")
        def count():
            return summarise([])
    """, {"routers/__init__.py": "", "routers/reports.py": _HANDLERS})
    assert found == set()


def test_a_local_router_of_the_same_name_is_not_the_outside_one(tmp_path):
    found = _scan_api(tmp_path, """
        from fastapi import APIRouter, FastAPI
        import routers.reports

        router = APIRouter()
        app = FastAPI()
        app.include_router(router)
    """, {"routers/__init__.py": "", "routers/reports.py": _HANDLERS})
    assert found == set()


_NESTED = """
    from fastapi import APIRouter
    from routers.reports import router as reports_router

    router = APIRouter()
    {include}

    @router.get("/ping")
    async def ping():
        return "pong"
"""


def test_a_router_nested_in_an_included_outside_router_is_served_too(tmp_path):
    found = _scan_api(tmp_path, """
        from fastapi import FastAPI
        from routers.v1 import router

        app = FastAPI()
        app.include_router(router)
    """, {"routers/__init__.py": "", "routers/reports.py": _HANDLERS,
          "routers/v1.py": _NESTED.format(include="router.include_router(reports_router)")})
    assert found == {_GET}


def test_a_router_nested_only_in_an_outside_router_the_app_leaves_out_stays_silent(tmp_path):
    found = _scan_api(tmp_path, """
        from fastapi import FastAPI
        from routers.v1 import ping

        app = FastAPI()
    """, {"routers/__init__.py": "", "routers/reports.py": _HANDLERS,
          "routers/v1.py": _NESTED.format(include="router.include_router(reports_router)")})
    assert found == set()
