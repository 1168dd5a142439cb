"""check blocking: the kinds held-out wave 39 (issue 17; MCP servers, Telegram and Discord bots, Home Assistant
integrations, Jupyter servers and kernels, RAG backends) got wrong, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- a project's own offloader: the lambda it is handed runs in the executor ------------------------------------------
def test_a_lambda_handed_to_the_projects_own_offloader_runs_off_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import os
        import shutil
        from concurrent.futures import ThreadPoolExecutor
        from functools import partial

        POOL = ThreadPoolExecutor(4)

        async def in_thread(fn, *args, wait=True, **kwargs):
            job = partial(fn, *args, **kwargs)
            future = asyncio.get_running_loop().run_in_executor(POOL, job)
            return await future if wait else future

        async def to_worker(work):
            return await asyncio.to_thread(work)

        class Cleaner:
            async def run_off(self, step):
                return await asyncio.get_running_loop().run_in_executor(None, step)

            async def sweep(self, root):
                await self.run_off(lambda: shutil.rmtree(root + "/cache"))
                return await self.run_off(step=lambda: list(os.walk(root + "/tmp")))

        async def size_of(root):
            names = await in_thread(lambda: list(os.walk(root)))
            await to_worker(lambda: open(root + "/index", "rb").read())
            return names
    """)
    assert found == set()


def test_a_lambda_handed_to_a_helper_that_calls_it_or_sorts_with_it_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import os

        async def maybe_in_thread(fn, fast=False):
            if fast:
                return fn()
            return await asyncio.to_thread(fn)

        async def keep(fn):
            return fn

        async def listing(root):
            entries = await maybe_in_thread(lambda: open(root + "/list").read(), fast=True)
            later = await keep(lambda: list(os.walk(root + "/a")))
            walked = sorted(os.walk(root), key=lambda row: len(open(row[0] + "/.size").read()))
            return entries, later, walked
    """)
    assert found == {("blocking_file_io",
                      'entries = await maybe_in_thread(lambda: open(root + "/list").read(), fast=True)'),
                     ("blocking_file_io", 'later = await keep(lambda: list(os.walk(root + "/a")))'),
                     ("blocking_file_io",
                      'walked = sorted(os.walk(root), key=lambda row: len(open(row[0] + "/.size").read()))')}


# -- a traitlets trait in the class body is a descriptor, not the value's class ---------------------------------------
KERNEL = """
    import requests
    import zmq
    from traitlets import Any, HasTraits

    class Kernel(HasTraits):
        control_thread = Any()
        debug_socket = Any()
        status_session = Any()

        def start(self, context, url):
            self.debug_socket = context.socket(zmq.DEALER)
            self.debug_socket.connect(url)
            self.status_session = requests.Session()

        async def dispatch(self, msg):
            self.control_thread.router.mark_aborting(msg["id"], False)
            stream = self.control_thread.router.channel_for(msg["id"])
            self.status_session.post("http://status.local/seen", json=msg, timeout=3)
            return stream
"""


def test_a_traitlets_trait_gives_its_attribute_no_type(tmp_path):
    assert flagged(tmp_path, KERNEL) == {
        ("blocking_http", 'self.status_session.post("http://status.local/seen", json=msg, timeout=3)')}


# -- Home Assistant's own objects are loop-safe; a vendor's client is still a sync-client guess ----------------------
def test_home_assistants_websocket_connection_is_no_sync_client_guess(tmp_path):
    found = flagged(tmp_path, """
        from homeassistant.components import websocket_api
        from homeassistant.core import HomeAssistant, callback
        from pyboiler import BoilerConnection

        @websocket_api.websocket_command({"type": "boiler/info"})
        @websocket_api.async_response
        async def boiler_info(hass: HomeAssistant, connection: websocket_api.ActiveConnection, msg: dict) -> None:
            link: BoilerConnection = hass.data["boiler"]
            state = link.read_state()
            connection.send_message(websocket_api.result_message(msg["id"], state))
            connection.send_error(msg["id"], "unknown", "none")
    """)
    assert found == {("blocking_db", "state = link.read_state()")}


# -- a function handed to a helper that calls it runs at that call, however many others the helper is handed ---------
def test_nested_functions_handed_to_one_calling_helper_run_at_each_call(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Vault:
            def __init__(self, base):
                self.base = base
                self.later = []

            def _guarded(self, f):
                try:
                    return f()
                except requests.HTTPError as exc:
                    raise RuntimeError(str(exc))

            def _deferred(self, f):
                self.later.append(f)
                return len(self.later)

            def notes(self, key):
                def call_fn():
                    return requests.get(self.base + "/notes/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def folders(self, key):
                def call_fn():
                    return requests.get(self.base + "/folders/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def note(self, key):
                def call_fn():
                    return requests.get(self.base + "/note/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def search(self, key):
                def call_fn():
                    return requests.post(self.base + "/search/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def append(self, key):
                def call_fn():
                    return requests.post(self.base + "/append/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def patch(self, key):
                def call_fn():
                    return requests.patch(self.base + "/patch/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def put(self, key):
                def call_fn():
                    return requests.put(self.base + "/put/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def remove(self, key):
                def call_fn():
                    return requests.delete(self.base + "/remove/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def tags(self, key):
                def call_fn():
                    return requests.get(self.base + "/tags/" + key, timeout=5).json()
                return self._guarded(call_fn)

            def queue_sync(self):
                def call_fn():
                    return requests.post(self.base + "/sync", timeout=5)
                return self._deferred(call_fn)

        async def handle(vault: Vault, name: str, key: str):
            if name == "search":
                return vault.search(key)
            vault.queue_sync()
            return vault.tags(key)
    """)
    assert found == {("blocking_http", 'return requests.post(self.base + "/search/" + key, timeout=5).json()'),
                     ("blocking_http", 'return requests.get(self.base + "/tags/" + key, timeout=5).json()')}


# -- a feed parsed from the body of a response already fetched is no fetch --------------------------------------------
def test_a_feed_parsed_from_a_responses_body_fetches_nothing(tmp_path):
    found = flagged(tmp_path, """
        import feedparser
        import httpx
        import requests

        async def poll(url):
            async with httpx.AsyncClient(timeout=30) as client:
                res = await client.get(url)
            html = res.text
            first = feedparser.parse(html)
            second = feedparser.parse((await client.get(url + "/2")).content)
            page = requests.get(url + "/3", timeout=30)
            third = feedparser.parse(page.text)
            fourth = feedparser.parse(url + "/4")
            return first, second, third, fourth
    """)
    assert found == {("blocking_http", 'page = requests.get(url + "/3", timeout=30)'),
                     ("blocking_http", 'fourth = feedparser.parse(url + "/4")')}


# -- an inferred client: an explicit blocking=False and a camelCase predicate do not wait ----------------------------
def test_an_inferred_clients_non_blocking_start_and_predicates_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from fetchkit import Downloader

        async def fetch(url, dest):
            job = Downloader(url=url, dest=dest, token="t0k")
            job.start(blocking=False)
            while not job.isFinished():
                await asyncio.sleep(1)
            if job.hasFailed():
                return None
            backup = Downloader(url=url + ".bak", dest=dest + ".bak", token="t0k")
            backup.start()
            job.upload_report()
            return dest
    """)
    assert found == {("blocking_http", "backup.start()"), ("blocking_http", "job.upload_report()")}


# -- a connection lent by a driver's pool is the driver's connection -------------------------------------------------
def test_a_pooled_connection_waits_like_the_drivers(tmp_path):
    found = flagged(tmp_path, """
        from mysql.connector import pooling
        from psycopg2.pool import ThreadedConnectionPool

        class Store:
            def __init__(self):
                self.pool = pooling.MySQLConnectionPool(pool_name="kb", pool_size=4, host="db", user="u")
                self.pg = ThreadedConnectionPool(1, 4, dsn="postgresql://db/kb")

            def rows(self, sql, params):
                conn = self.pool.get_connection()
                cursor = conn.cursor(buffered=True)
                cursor.execute(sql, params)
                found = cursor.fetchall()
                conn.commit()
                conn.close()
                return found

            def touch(self, kb_id):
                pgconn = self.pg.getconn()
                with pgconn.cursor() as cur:
                    cur.execute("UPDATE kb SET seen = now() WHERE id = %s", (kb_id,))
                pgconn.commit()
                self.pg.putconn(pgconn)

        STORE = None

        async def list_docs(kb_id):
            STORE.touch(kb_id)
            return STORE.rows("SELECT * FROM docs WHERE kb = %s", (kb_id,))

        async def startup():
            global STORE
            STORE = Store()
    """)
    assert found == {
        ("blocking_db", 'self.pool = pooling.MySQLConnectionPool(pool_name="kb", pool_size=4, host="db", user="u")'),
        ("blocking_db", 'self.pg = ThreadedConnectionPool(1, 4, dsn="postgresql://db/kb")'),
        ("blocking_db", "cursor.execute(sql, params)"), ("blocking_db", "found = cursor.fetchall()"),
        ("blocking_db", "conn.commit()"), ("blocking_db", "pgconn.commit()"),
        ("blocking_db", 'cur.execute("UPDATE kb SET seen = now() WHERE id = %s", (kb_id,))')}
