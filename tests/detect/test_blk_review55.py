"""check blocking: what the review of this session's blocking rules (issue 17) found wrong, fixed by kind.

Each example is written for this test; both directions are checked (the blocker found at its line with its kind,
the healthy look-alike silent)."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

# -- Tornado template namespaces: a local holding data is no function, whatever global shares its name -----------

_TEMPLATE = """
    import requests
    import tornado.web


    def profile():
        return requests.get("http://accounts:8000/me").json()


    def banner_text():
        return requests.get("http://cms:8000/banner").text


    class Page(tornado.web.RequestHandler):
        def get(self):
            profile = self.get_current_user()
            self.render("page.html", profile=profile, banner=banner_text)
"""


def test_a_local_value_handed_to_a_template_is_not_the_global_function_of_its_name(tmp_path):
    found = flagged(tmp_path, _TEMPLATE)
    assert not any("accounts:8000" in line for _, line in found)  # profile is the current user, not profile()
    assert ("blocking_http", 'return requests.get("http://cms:8000/banner").text') in found  # handed by name: the template calls it


# -- run_sync: only the calls on the connection the lambda receives go over the async driver ---------------------

_RUN_SYNC = """
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine("postgresql+asyncpg://app@db/app")
    reporting = create_engine("postgresql://app@reports/app")


    async def tables():
        async with engine.connect() as conn:
            mine = await conn.run_sync(lambda sync_conn: inspect(sync_conn).get_table_names())
            theirs = await conn.run_sync(lambda sync_conn: inspect(reporting).get_table_names())
        return mine + theirs
"""


def test_sqlalchemy_call_on_another_engine_inside_run_sync_is_reported(tmp_path):
    found = flagged(tmp_path, _RUN_SYNC)
    assert ("blocking_db", "theirs = await conn.run_sync(lambda sync_conn: inspect(reporting).get_table_names())"
            ) in found
    assert not any("inspect(sync_conn)" in line for _, line in found)


# -- declared requirements: pip's line continuations and per-requirement hashes ----------------------------------

_FALLBACK = """
    import subprocess


    async def fetch(url):
        try:
            import httpx
        except ImportError:
            subprocess.run(["pip", "install", "httpx"], check=True)
            import httpx
        try:
            import orjson
        except ImportError:
            subprocess.run(["pip", "install", "orjson"], check=True)
            import orjson
        return orjson.loads(httpx.get(url).content)
"""

_HASHED = """
    # pip-compile --generate-hashes
    httpx==0.27.0 \\
        --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000 \\
        --hash=sha256:1111111111111111111111111111111111111111111111111111111111111111
    anyio==4.4.0  # via httpx
"""


def test_a_requirement_written_with_hashes_on_continuation_lines_is_declared(tmp_path):
    found = flagged_package(tmp_path, {"fetcher.py": _FALLBACK, "requirements.txt": _HASHED})
    assert not any("pip" in line and "httpx" in line for _, _, line in found)  # httpx is declared: never runs
    assert ("fetcher.py", "blocking_subprocess", 'subprocess.run(["pip", "install", "orjson"], check=True)') in found


# -- autocommit connections: a module that takes the connection out of autocommit commits a real transaction -----

_LEDGER = """
    import psycopg2


    class Ledger:
        def __init__(self, dsn):
            self.db = psycopg2.connect(dsn)
            self.db.autocommit = True

        def note(self, text):
            with self.db.cursor() as cur:
                cur.execute("INSERT INTO notes VALUES (%s)", (text,))
            self.db.commit()

        def move(self, src, dst):
            self.db.autocommit = False
            with self.db.cursor() as cur:
                cur.execute("UPDATE accounts SET n = n - 1 WHERE id = %s", (src,))
                cur.execute("UPDATE accounts SET n = n + 1 WHERE id = %s", (dst,))
            self.db.commit()


    ledger = Ledger("dbname=bank")


    async def handle(src, dst):
        ledger.move(src, dst)
"""

_NOTES = """
    import sqlite3


    def open_notes():
        db = sqlite3.connect("notes.db", isolation_level=None)
        return db


    def open_orders():
        db = sqlite3.connect("orders.db", isolation_level=None)
        db.isolation_level = "IMMEDIATE"
        return db


    async def record(text):
        notes = open_notes()
        notes.execute("INSERT INTO notes VALUES (?)", (text,))
        notes.commit()


    async def order(item):
        orders = open_orders()
        orders.execute("INSERT INTO orders VALUES (?)", (item,))
        orders.commit()
"""


def test_commit_after_autocommit_is_switched_off_again_is_reported(tmp_path):
    found = flagged(tmp_path, _LEDGER)
    assert ("blocking_db", "self.db.commit()") in found


def test_commit_on_a_connection_put_back_into_transactions_is_reported_autocommit_one_silent(tmp_path):
    found = flagged(tmp_path, _NOTES)
    assert ("blocking_db", "orders.commit()") in found
    assert ("blocking_db", "notes.commit()") not in found
    assert ("blocking_db", 'notes.execute("INSERT INTO notes VALUES (?)", (text,))') in found


# -- done callbacks: a callback the module also calls itself with another future waits there ---------------------

_CALLBACK = """
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=2)


    def render(page):
        return page * 2


    def report(page, done):
        print(page, done.result())


    async def queue_page(page):
        job = pool.submit(render, page)
        job.add_done_callback(lambda finished: report(page, finished))


    async def render_now(page):
        job = pool.submit(render, page)
        report(page, job)
"""


def test_a_done_callback_also_called_directly_with_a_running_future_is_reported(tmp_path):
    assert ("blocking_task", "print(page, done.result())") in flagged(tmp_path, _CALLBACK)


def test_a_done_callback_only_registered_is_silent(tmp_path):
    registered_only = _CALLBACK[:_CALLBACK.index("    async def render_now")]
    assert not any("done.result()" in line for _, line in flagged(tmp_path, registered_only))
