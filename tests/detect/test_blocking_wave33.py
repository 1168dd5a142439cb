"""check blocking, wave 33 (bots, MCP servers, Jupyter server extensions): FalconPy's synchronous API clients,
nbformat's file readers, tldextract's suffix-list loading and SQLAlchemy-Utils' database helpers block the loop;
``plt.savefig`` into an in-memory buffer still renders on it; ``feedparser.parse`` of text a coroutine already
awaited fetches nothing. Each blocker is found at its line; each look-alike stays silent. Every example is written
for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_falconpy_clients_call_the_falcon_api_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from falconpy import APIHarnessV2, Hosts

        class Console:
            def __init__(self, key, secret):
                self.api = APIHarnessV2(client_id=key, client_secret=secret)

            def run(self, operation, **params):
                return self.api.command(operation, **params)

        async def find_hosts(console: Console, query: str):
            ids = console.run("QueryDevicesByFilter", filter=query)
            return ids

        async def host_details(hosts: Hosts, ids):
            return hosts.get_device_details(ids=ids)
    """)
    assert found == {("blocking_http", "return self.api.command(operation, **params)"),
                     ("blocking_http", "return hosts.get_device_details(ids=ids)")}


def test_falconpy_token_checks_and_off_loop_calls_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from falconpy import APIHarnessV2

        async def status(api: APIHarnessV2):
            fresh = api.authenticated()
            expired = api.token_expired()
            result = await asyncio.to_thread(api.command, "GetSensorUsageWeekly")
            return fresh, expired, result
    """)
    assert found == set()


def test_nbformat_read_and_write_touch_the_disk_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import nbformat

        class Checker:
            async def dirty(self, paths):
                out = []
                for path in paths:
                    nb = nbformat.read(path, as_version=4)
                    if any(c.get("outputs") for c in nb.cells):
                        out.append(path)
                return out

            async def strip(self, nb, path):
                nbformat.write(nb, path)
    """)
    assert found == {("blocking_file_io", "nb = nbformat.read(path, as_version=4)"),
                     ("blocking_file_io", "nbformat.write(nb, path)")}


def test_nbformat_on_strings_or_in_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import anyio
        import nbformat

        async def diff(text, path):
            nb = nbformat.reads(text, as_version=4)
            other = await anyio.to_thread.run_sync(nbformat.read, path, 4)
            return nbformat.writes(nb), other
    """)
    assert found == set()


def test_tldextract_loads_the_suffix_list_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import tldextract
        from tldextract import extract
        from urllib.parse import urlparse

        EXTRACTOR = tldextract.TLDExtract(cache_dir=None)

        def domains(text):
            return [extract(urlparse(t).netloc).domain for t in text.split() if t.startswith("http")]

        async def on_message(message):
            names = domains(message.content)
            other = EXTRACTOR("forums.example.co.uk")
            return names, other
    """)
    assert found == {("blocking_http", 'return [extract(urlparse(t).netloc).domain for t in text.split() if '
                                       't.startswith("http")]'),
                     ("blocking_http", 'other = EXTRACTOR("forums.example.co.uk")')}


def test_tldextract_in_a_thread_or_off_the_loop_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import tldextract

        def warm():
            return tldextract.extract("example.org")

        async def on_message(text):
            return await asyncio.to_thread(tldextract.extract, text)
    """)
    assert found == set()


def test_sqlalchemy_utils_database_helpers_connect_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy_utils import create_database, database_exists

        async def ensure_database(url):
            if not database_exists(url):
                create_database(url)
    """)
    assert found == {("blocking_db", "if not database_exists(url):"), ("blocking_db", "create_database(url)")}


def test_sqlalchemy_utils_in_a_thread_or_sync_code_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from sqlalchemy_utils import database_exists

        def check(url):
            return database_exists(url)

        async def ready(url):
            return await asyncio.to_thread(database_exists, url)
    """)
    assert found == set()


def test_savefig_into_a_memory_buffer_still_renders_the_chart_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from io import BytesIO

        import matplotlib.pyplot as plt

        def chart(values):
            plt.bar(range(len(values)), values)
            buffer = BytesIO()
            plt.savefig(buffer, format="png")
            plt.close()
            return buffer.getvalue()

        async def stats_handler(message, values):
            await message.answer_photo(chart(values))
    """)
    assert found == {("blocking_cpu", 'plt.savefig(buffer, format="png")')}


def test_other_writes_into_a_memory_buffer_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import io
        import json

        import numpy as np
        import torch

        async def pack(tensor, array, data):
            first = io.BytesIO()
            torch.save(tensor, first)
            second = io.BytesIO()
            np.save(second, array)
            third = io.StringIO()
            json.dump(data, third)
            return first, second, third
    """)
    assert found == set()


def test_feedparser_given_awaited_text_parses_in_memory(tmp_path):
    found = flagged(tmp_path, """
        import aiohttp
        import feedparser

        async def latest(url):
            async with aiohttp.ClientSession() as session:
                async with session.get(url) as resp:
                    content = await resp.text()
            feed = feedparser.parse(content)
            return feed.entries[:1]

        async def inline(session, url):
            return feedparser.parse(await (await session.get(url)).text())
    """)
    assert found == set()


def test_feedparser_given_a_location_fetches_it_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import feedparser

        async def poll(channel_id, cached):
            url = f"https://www.youtube.com/feeds/videos.xml?channel_id={channel_id}"
            feed = feedparser.parse(url)
            if cached:
                content = cached
            else:
                content = await fetch_text(url)
            other = feedparser.parse(content)
            return feed, other

        async def fetch_text(url):
            return url
    """)
    assert found == {("blocking_http", "feed = feedparser.parse(url)"),
                     ("blocking_http", "other = feedparser.parse(content)")}


def test_a_queue_read_under_a_not_empty_test_takes_an_item_at_once(tmp_path):
    found = flagged(tmp_path, """
        from queue import Queue

        class Pipeline:
            def __init__(self):
                self.events: Queue = Queue()

            async def drain(self):
                while not self.events.empty():
                    yield self.events.get()

            async def one(self):
                if self.events.qsize() > 0:
                    return self.events.get()
    """)
    assert found == set()


def test_a_queue_read_without_that_test_or_under_another_queue_waits(tmp_path):
    found = flagged(tmp_path, """
        from queue import Queue

        class Pipeline:
            def __init__(self):
                self.events: Queue = Queue()
                self.other: Queue = Queue()

            async def drain(self):
                while True:
                    yield self.events.get()

            async def mixed(self):
                while not self.other.empty():
                    item = self.events.get()
                    yield item
    """)
    assert found == {("blocking_task", "yield self.events.get()"), ("blocking_task", "item = self.events.get()")}
