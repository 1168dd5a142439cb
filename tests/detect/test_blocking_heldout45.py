"""check blocking: the kinds held-out wave 45 (issue 17; FastAPI services calling S3 and e-mail SDKs, a Lightning
wallet server, a measurement API with periodic tasks) found missing, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged

# -- a periodic task of fastapi-utils: a plain def it runs through run_in_threadpool ------------------------------------
_PERIODIC = """
    import urllib.request
    from {module} import {decorator}

    @{decorator}(seconds=600)
    def refresh_mirror():
        with urllib.request.urlopen("https://example.org/list.csv") as answer:
            return answer.read()

    async def on_start():
        {call}
"""
_MIRROR_READ = ("blocking_http", 'with urllib.request.urlopen("https://example.org/list.csv") as answer:')


def test_a_sync_function_under_repeat_every_runs_in_the_thread_pool(tmp_path):
    found = flagged(tmp_path, _PERIODIC.format(module="fastapi_utils.tasks", decorator="repeat_every",
                                               call="await refresh_mirror()"))
    assert _MIRROR_READ not in found


def test_a_function_under_an_unknown_periodic_decorator_still_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, _PERIODIC.format(module="mytimers", decorator="every", call="refresh_mirror()"))
    assert _MIRROR_READ in found


# -- Core Lightning's JSON-RPC client: every method is a round trip over the node's unix socket -------------------------
_NODE = """
    import asyncio
    from pyln.client import LightningRpc

    class Node:
        def __init__(self, socket_path):
            self.rpc = LightningRpc(socket_path)

        async def balance(self):
            funds = {read}
            return len(funds["outputs"])
"""


def test_a_lightning_rpc_call_in_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, _NODE.format(read="self.rpc.listfunds()"))
    assert ("blocking_socket_io", "funds = self.rpc.listfunds()") in found


def test_a_lightning_rpc_call_handed_to_a_thread_is_silent(tmp_path):
    assert not flagged(tmp_path, _NODE.format(read="await asyncio.to_thread(self.rpc.listfunds)"))


# -- os.waitpid with WNOHANG returns at once --------------------------------------------------------------------------
def test_waitpid_without_wnohang_in_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        import os

        async def reap(pid):
            _, status = os.waitpid(pid, 0)
            return status
    """)
    assert ("blocking_subprocess", "_, status = os.waitpid(pid, 0)") in found


def test_waitpid_with_wnohang_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import os

        async def reap(pid):
            _, status = os.waitpid(pid, os.WNOHANG)
            done, _ = os.waitpid(-1, os.WNOHANG | os.WUNTRACED)
            return status, done
    """)
    assert not found


# -- an installed library's generator function: calling it only makes the generator ------------------------------------
_WATCHER_LIBRARY = {
    "podwatch/__init__.py": """
        import requests

        class Watcher:
            def events(self, url):
                answer = requests.get(url, stream=True, timeout=None)
                for line in answer.iter_lines():
                    yield line
    """,
}


def _watch_service(tmp_path, body):
    """The lines of the findings in a service ``body`` calling the ``podwatch`` library installed beside it."""
    for root, files in (("site-packages", _WATCHER_LIBRARY), ("svc", {"app.py": body})):
        for rel, text in files.items():
            path = tmp_path / root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
    report = analyze_path(tmp_path / "svc", site_dirs=[tmp_path / "site-packages"])
    return {f.location["line"] for f in report.findings}


def test_an_installed_generator_iterated_in_the_coroutine_is_found(tmp_path):
    lines = _watch_service(tmp_path, """
        from podwatch import Watcher

        async def follow(url):
            for event in Watcher().events(url):
                print(event)
    """)
    assert lines == {5}


def test_an_installed_generator_made_on_the_loop_and_iterated_in_a_thread_is_silent(tmp_path):
    lines = _watch_service(tmp_path, """
        import asyncio
        from podwatch import Watcher

        async def follow(url):
            stream = Watcher().events(url)

            def drain():
                for event in stream:
                    print(event)

            await asyncio.get_running_loop().run_in_executor(None, drain)
    """)
    assert lines == set()


# -- /proc files are rendered by the kernel in memory ------------------------------------------------------------------
def test_a_proc_file_read_in_a_coroutine_is_silent(tmp_path):
    found = flagged(tmp_path, """
        async def alive(pid):
            with open(f"/proc/{pid}/status") as status:
                return "zombie" not in status.read()

        async def memory():
            with open("/proc/meminfo") as info:
                return info.readline()
    """)
    assert not found


def test_a_file_under_another_root_read_in_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        async def alive(pid):
            with open(f"/var/run/app/{pid}/status") as status:
                return "zombie" not in status.read()
    """)
    assert ("blocking_file_io", 'with open(f"/var/run/app/{pid}/status") as status:') in found


# -- a query path given to a package function is no file ----------------------------------------------------------------
def test_a_package_function_given_a_json_path_query_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from pathquery import compile_query

        async def price(payload, json_path):
            return compile_query(json_path).first(payload)
    """)
    assert not found


def test_a_package_function_given_a_feed_path_still_opens_it(tmp_path):
    found = flagged(tmp_path, """
        from pathquery import compile_query

        async def price(payload, feed_path):
            return compile_query(feed_path).first(payload)
    """)
    assert ("blocking_file_io", "return compile_query(feed_path).first(payload)") in found


# -- a key derivation's work factor: a few thousand rounds cost a millisecond ---------------------------------------------
def test_a_password_hash_with_many_rounds_in_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        import hashlib

        async def login(password, salt, rounds):
            strong = hashlib.pbkdf2_hmac("sha256", password, salt, 600_000)
            chosen = hashlib.pbkdf2_hmac("sha256", password, salt, rounds)
            return strong, chosen
    """)
    assert ("blocking_cpu", 'strong = hashlib.pbkdf2_hmac("sha256", password, salt, 600_000)') in found
    assert ("blocking_cpu", 'chosen = hashlib.pbkdf2_hmac("sha256", password, salt, rounds)') in found


def test_a_seed_derivation_with_few_rounds_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import hashlib

        async def seed(words):
            return hashlib.pbkdf2_hmac("sha512", words.encode(), b"mnemonic", 2048)
    """)
    assert not found


# -- a lazily built client that the class's start-up builds in a worker thread first -----------------------------------
_ENGINE_CLIENT = """
    import asyncio
    import requests

    class Engine:
        def __init__(self, url):
            self.url = url
            self._http = None

        def _client(self):
            if self._http is not None:
                return self._http
            self._http = requests.Session()
            self._http.get(self.url + "/version", timeout=5)
            return self._http

        async def boxes(self):
            return self._client()
"""


def test_a_lazy_client_probed_on_first_use_from_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, _ENGINE_CLIENT)
    assert ("blocking_http", 'self._http.get(self.url + "/version", timeout=5)') in found


def test_a_lazy_client_that_start_up_builds_in_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, _ENGINE_CLIENT + """
        async def startup(self):
            await asyncio.get_running_loop().run_in_executor(None, self._client)
""")
    assert not found


# -- a streamed requests response fetched in a thread and read on the loop ----------------------------------------------
def test_a_streamed_response_fetched_in_a_thread_and_read_in_the_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import requests

        async def follow_log(session: requests.Session, url):
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(None, lambda: session.get(url, stream=True))
            for piece in answer.iter_content(chunk_size=1024):
                print(piece)

        async def fetch_dump(url):
            answer = await asyncio.to_thread(requests.get, url, stream=True)
            return answer.content
    """)
    assert ("blocking_http", "for piece in answer.iter_content(chunk_size=1024):") in found
    assert ("blocking_http", "return answer.content") in found


def test_a_response_downloaded_in_the_thread_and_read_in_the_coroutine_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import requests

        async def follow_log(session: requests.Session, url):
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(None, lambda: session.get(url))
            for piece in answer.iter_content(chunk_size=1024):
                print(piece)
            return answer.content
    """)
    assert not found


# -- caches that import time fills: an argument-less lru_cache function, a global memo --------------------------------
_SETTINGS = """
    import functools
    import json

    @functools.lru_cache
    def get_settings():
        with open("/etc/app/settings.json") as source:
            return json.load(source)

    _LOGGER = None

    def get_log_config(name=None):
        global _LOGGER
        if _LOGGER is None:
            with open("/etc/app/logging.json") as source:
                _LOGGER = json.load(source)
        return _LOGGER

    async def show():
        return get_settings(), get_log_config("show")
"""


def test_caches_a_request_fills_first_are_found(tmp_path):
    found = flagged(tmp_path, _SETTINGS)
    assert ("blocking_file_io", 'with open("/etc/app/settings.json") as source:') in found
    assert ("blocking_file_io", 'with open("/etc/app/logging.json") as source:') in found


def test_caches_import_time_filled_are_silent(tmp_path):
    found = flagged(tmp_path, _SETTINGS + """
    settings = get_settings()
    log_config = get_log_config()
""")
    assert not found
