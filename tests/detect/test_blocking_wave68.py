"""check blocking: the kinds held-out wave 68 (issue 17; Discord and hikari bots, a Home Assistant integration,
aiohttp, Quart and FastAPI model and RAG services) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test; the libraries are recognised by their imported names (aiohttp is installed, wikipedia is not)."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged

# -- aiohttp: a signal callback's untyped parameter is the application it stores into ------------------------------

_SHOP = """
    import asyncio
    import sqlite3

    from aiohttp import web


    class Catalogue:
        def __init__(self, path):
            self.path = path

        def lookup(self, sku):
            return sqlite3.connect(self.path).execute("SELECT name FROM items WHERE sku = ?", (sku,)).fetchone()


    async def open_catalogue(application):
        application["catalogue"] = Catalogue("shop.db")


    async def item(request):
        return web.json_response({"name": {lookup}})


    def build():
        shop = web.Application()
        shop.{signal}
        shop.router.add_get("/item/{sku}", item)
        return shop
"""
_FOUND = ("blocking_db", 'return sqlite3.connect(self.path).execute("SELECT name FROM items WHERE sku = ?", '
                         '(sku,)).fetchone()')


def _shop(signal: str, lookup: str = 'request.app["catalogue"].lookup(request.match_info["sku"])') -> str:
    return _SHOP.replace("{signal}", signal).replace("{lookup}", lookup)


@pytest.mark.parametrize("signal", ["on_startup.append(open_catalogue)", "on_cleanup.insert(0, open_catalogue)",
                                    "on_shutdown.extend([open_catalogue])"], ids=["append", "insert", "extend"])
def test_a_store_made_by_an_untyped_signal_callback_types_the_handlers_read(tmp_path, signal):
    assert _FOUND in flagged(tmp_path, _shop(signal))


def test_the_same_store_read_in_a_worker_thread_is_silent(tmp_path):
    offloaded = 'await asyncio.to_thread(request.app["catalogue"].lookup, request.match_info["sku"])'
    assert _FOUND not in flagged(tmp_path, _shop("on_startup.append(open_catalogue)", offloaded))


def test_a_callback_appended_to_a_list_that_is_no_aiohttp_signal_types_nothing(tmp_path):
    source = _shop("on_startup.append(open_catalogue)").replace(
        "shop = web.Application()", "shop = Hooks()").replace(
        "async def item(request):", "class Hooks:\n        on_startup = []\n\n\n    async def item(request):")
    assert _FOUND not in flagged(tmp_path, source)


# -- wikipedia: a page's lazy properties query the MediaWiki API on their first read -------------------------------

_WIKI = """
    import asyncio

    import wikipedia


    def first_image(title):
        page = wikipedia.page(title)
        return page.images[0], page.title


    async def describe(title):
        {body}
"""


def test_reading_a_wikipedia_pages_lazy_properties_on_the_loop_is_a_request(tmp_path):
    found = flagged(tmp_path, _WIKI.replace("{body}", "page = wikipedia.page(title)\n        return page.summary"))
    assert ("blocking_http", "return page.summary") in found
    assert ("blocking_http", "page = wikipedia.page(title)") in found


def test_the_pages_properties_read_in_a_worker_thread_are_silent(tmp_path):
    found = flagged(tmp_path, _WIKI.replace("{body}", "return await asyncio.to_thread(first_image, title)"))
    assert not any(kind == "blocking_http" for kind, _ in found)


# -- threading locks: an explicit acquire waits only as long as the other holders keep the lock --------------------

_LOCKED = """
    import asyncio
    import logging
    import threading
    import time

    import requests

    log = logging.getLogger(__name__)


    class DeviceCode:
        def __init__(self):
            self.guard = threading.Lock()
            self.code = None
            threading.Thread(target=self.watch, daemon=True).start()

        def watch(self):
            for line in iter(input, ""):
                self.guard.acquire()
                {holder}
                self.guard.release()

        async def wait_code(self, limit):
            start = time.monotonic()
            while True:
                self.guard.acquire()
                if self.code or time.monotonic() - start > limit:
                    self.guard.release()
                    return self.code
                self.guard.release()
                await asyncio.sleep(0.1)
"""
_ACQUIRE = ("blocking_task", "self.guard.acquire()")


def test_an_acquire_whose_other_holder_sets_a_field_and_logs_is_silent(tmp_path):
    holder = "self.code = line\n                log.debug('code %s', self.code)"
    assert _ACQUIRE not in flagged(tmp_path, _LOCKED.replace("{holder}", holder))


def test_an_acquire_whose_other_holder_fetches_under_the_lock_still_waits(tmp_path):
    holder = "self.code = requests.get(line).text"
    assert _ACQUIRE in flagged(tmp_path, _LOCKED.replace("{holder}", holder))


def test_an_acquire_released_only_elsewhere_still_waits(tmp_path):
    source = _LOCKED.replace("{holder}", "self.code = line").replace(
        "                self.guard.release()\n\n        async def", "\n        async def", 1)
    assert _ACQUIRE in flagged(tmp_path, source)


def test_an_acquire_whose_other_holder_tests_a_timed_acquire_still_waits(tmp_path):
    source = _LOCKED.replace("""                self.guard.acquire()
                {holder}
                self.guard.release()""", """                if self.guard.acquire(timeout=1):
                    time.sleep(5)
                    self.guard.release()""", 1)
    assert _ACQUIRE in flagged(tmp_path, source)
