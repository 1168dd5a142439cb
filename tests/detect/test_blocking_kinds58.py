"""check blocking: the known kinds stop 57 left (issue 17, stop 58). Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

from tests.detect.blocking_source import flagged

# -- an awaited method of a synchronous client kept as a class attribute of a project class -----------------------

_VAULT = """
    import asyncio

    from passlib.context import CryptContext


    class Vault:
        hasher = CryptContext(schemes=["bcrypt"], deprecated="auto")
        {extra}


    vault = Vault()


    async def log_in(form):
        {call}
        return ok
"""


def _vault(call: str, extra: str = "pass") -> str:
    return _VAULT.replace("{call}", call).replace("{extra}", extra)


def test_awaiting_a_sync_hash_kept_on_a_project_class_still_blocks(tmp_path):
    line = 'ok = await vault.hasher.verify(form["password"], form["digest"])'
    assert flagged(tmp_path, _vault(line)) == {("blocking_cpu", line)}


def test_the_same_hash_offloaded_or_an_attribute_rebound_to_another_object_is_silent(tmp_path):
    offloaded = 'ok = await asyncio.to_thread(vault.hasher.verify, form["password"], form["digest"])'
    assert not flagged(tmp_path, _vault(offloaded))
    rebound = "def use(self, other):\n            self.hasher = other"
    assert not flagged(tmp_path, _vault('ok = await vault.hasher.verify(form["password"], form["digest"])', rebound))


# -- a library's inter-process file lock entered or acquired on the loop ------------------------------------------

_LEDGER = """
    import asyncio
    import json

    import portalocker
    from filelock import FileLock


    class Ledger:
        def __init__(self, path):
            self.path = path
            self.guard = FileLock(path + ".lock", timeout=30)

        {method}


    ledger = Ledger("/srv/ledger.json")


    async def record(entry):
        {call}
"""


def _ledger(method: str, call: str) -> str:
    return _LEDGER.replace("{method}", method).replace("{call}", call)


def test_entering_or_acquiring_a_file_lock_on_the_loop_is_found(tmp_path):
    entered = "def add(self, entry):\n            with self.guard:\n                return entry"
    assert flagged(tmp_path, _ledger(entered, "return ledger.add(entry)")) == {("blocking_file_io", "with self.guard:")}
    built = "def add(self, entry):\n            with FileLock(self.path + '.lock'):\n                return entry"
    assert flagged(tmp_path, _ledger(built, "return ledger.add(entry)")) == {
        ("blocking_file_io", "with FileLock(self.path + '.lock'):")}
    acquired = "def add(self, entry):\n            self.guard.acquire(timeout=5)\n            return entry"
    assert flagged(tmp_path, _ledger(acquired, "return ledger.add(entry)")) == {
        ("blocking_file_io", "self.guard.acquire(timeout=5)")}
    portal = ("def add(self, entry):\n            with portalocker.Lock(self.path, timeout=10) as fh:\n"
              "                return fh")
    assert flagged(tmp_path, _ledger(portal, "return ledger.add(entry)")) == {
        ("blocking_file_io", "with portalocker.Lock(self.path, timeout=10) as fh:")}


def test_a_file_lock_taken_in_a_thread_or_an_async_file_lock_is_silent(tmp_path):
    entered = "def add(self, entry):\n            with self.guard:\n                return entry"
    assert not flagged(tmp_path, _ledger(entered, "return await asyncio.to_thread(ledger.add, entry)"))
    source = """
        from filelock import AsyncFileLock


        async def record(path, entry):
            async with AsyncFileLock(path + ".lock"):
                return entry
    """
    assert not flagged(tmp_path, source)


# -- a module-level state object whose attribute a startup hook sets -----------------------------------------------

_STATE = """
    import asyncio
    from types import SimpleNamespace

    import requests
    from fastapi import FastAPI

    app = FastAPI()


    class Shared:
        retries = 3


    {holder} = {made}


    @app.on_event("startup")
    async def boot():
        {holder}.web = requests.Session()


    @app.get("/weather")
    async def weather(city: str):
        {read}
"""


def _state(holder: str, made: str, read: str) -> str:
    return _STATE.replace("{holder}", holder).replace("{made}", made).replace("{read}", read)


def test_a_session_set_at_startup_on_a_module_level_object_is_typed_when_read(tmp_path):
    line = 'return shared.web.get("https://weather.example/" + city).json()'
    assert flagged(tmp_path, _state("shared", "Shared()", line)) == {("blocking_http", line)}
    line = 'return ctx.web.get("https://weather.example/" + city).json()'
    assert flagged(tmp_path, _state("ctx", "SimpleNamespace()", line)) == {("blocking_http", line)}


def test_the_same_session_offloaded_or_an_unset_attribute_is_silent(tmp_path):
    offloaded = 'return await asyncio.to_thread(shared.web.get, "https://weather.example/" + city)'
    assert not flagged(tmp_path, _state("shared", "Shared()", offloaded))
    other = 'return shared.cache.get(city)'
    assert not flagged(tmp_path, _state("shared", "Shared()", other))


# -- `for x in make()` over a list make() fills by appending or returns as a concatenation ------------------------

_FEEDS = """
    import sqlite3

    import requests


    class WebFeed:
        def __init__(self, url):
            self.url = url

        def latest(self):
            return requests.get(self.url, timeout=5).json()


    class DiskFeed:
        def __init__(self, path):
            self.path = path

        def latest(self):
            return sqlite3.connect(self.path).execute("select * from news").fetchall()


    def web_feeds(urls):
        feeds = []
        for url in urls:
            feeds.append(WebFeed(url))
        return feeds


    def disk_feeds(paths):
        return [DiskFeed(p) for p in paths]


    {extra}


    async def refresh(urls, paths):
        for feed in {made}:
            feed.latest()
"""


def _feeds(made: str, extra: str = "") -> str:
    return textwrap.dedent(_FEEDS).replace("{made}", made).replace("{extra}", extra)


def test_the_items_a_helper_appends_or_concatenates_type_the_loop_variable(tmp_path):
    web = ("blocking_http", "return requests.get(self.url, timeout=5).json()")
    assert flagged(tmp_path, _feeds("web_feeds(urls)")) == {web}
    both = "def all_feeds(urls, paths):\n    return web_feeds(urls) + disk_feeds(paths)"
    assert flagged(tmp_path, _feeds("all_feeds(urls, paths)", both)) == {
        web, ("blocking_db", 'return sqlite3.connect(self.path).execute("select * from news").fetchall()')}


def test_a_list_also_filled_elsewhere_or_walked_in_a_thread_is_silent(tmp_path):
    filled = ("def fill(into):\n    into.append(object())\n\n\n"
              "def some_feeds(urls):\n    feeds = []\n    fill(feeds)\n    feeds.append(WebFeed(urls[0]))\n"
              "    return feeds")
    assert not flagged(tmp_path, _feeds("some_feeds(urls)", filled))
    assert not flagged(tmp_path, _feeds("await asyncio.to_thread(web_feeds, urls)", "import asyncio"))
