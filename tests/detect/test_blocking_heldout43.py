"""check blocking: the kinds held-out wave 43 (issue 17; the recall of nine async crawlers, scrapers, CLIs, DB apps and
a Home Assistant integration read in full) found missing, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- a metaclass __call__ that hands back a stored instance does not run __init__ ---------------------------------------
def test_a_singleton_metaclass_call_does_not_run_init(tmp_path):
    found = flagged(tmp_path, """
        class OnlyOne(type):
            _made = None

            def __call__(cls):
                if cls._made is None:
                    raise RuntimeError("call OnlyOne.setup first")
                return cls._made

        class Registry(metaclass=OnlyOne):
            def __init__(self, path):
                with open(path) as handle:
                    self.rows = handle.read()

        async def lookup(key):
            registry = Registry()
            return registry.rows.count(key)
    """)
    assert found == set()


def test_a_metaclass_call_that_builds_through_super_still_runs_init(tmp_path):
    found = flagged(tmp_path, """
        class Counted(type):
            made = 0

            def __call__(cls, *args, **kwargs):
                Counted.made += 1
                return super().__call__(*args, **kwargs)

        class Ledger(metaclass=Counted):
            def __init__(self, path):
                with open(path) as handle:
                    self.rows = handle.read()

        async def lookup(path, key):
            return Ledger(path).rows.count(key)
    """)
    assert ("blocking_file_io", "with open(path) as handle:") in found


def test_a_plain_class_init_is_still_followed(tmp_path):
    found = flagged(tmp_path, """
        class Ledger:
            def __init__(self, path):
                with open(path) as handle:
                    self.rows = handle.read()

        async def lookup(path, key):
            return Ledger(path).rows.count(key)
    """)
    assert ("blocking_file_io", "with open(path) as handle:") in found


# -- PyExecJS: a compiled context's call/eval runs the JavaScript runtime (node) per call ------------------------------
def test_execjs_context_calls_run_the_js_runtime(tmp_path):
    found = flagged(tmp_path, """
        import execjs

        SIGNER = execjs.compile("function sign(a) { return a + 1; }")

        async def signed(query):
            token = SIGNER.call("sign", query)
            return f"{query}&s={token}"

        async def evaluated(expr):
            return execjs.eval(expr)
    """)
    assert ("blocking_subprocess", 'token = SIGNER.call("sign", query)') in found
    assert ("blocking_subprocess", "return execjs.eval(expr)") in found


def test_execjs_compile_alone_and_offloaded_calls_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import execjs

        SIGNER = execjs.compile("function sign(a) { return a + 1; }")

        async def signed(query):
            return await asyncio.to_thread(SIGNER.call, "sign", query)
    """)
    assert found == set()


# -- socket.connect_ex waits for the connection as connect does --------------------------------------------------------
def test_socket_connect_ex_blocks(tmp_path):
    found = flagged(tmp_path, """
        import socket

        async def port_ready(port):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.settimeout(2)
                return probe.connect_ex(("127.0.0.1", port)) == 0
    """)
    assert ("blocking_socket_io", 'return probe.connect_ex(("127.0.0.1", port)) == 0') in found


def test_socket_options_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import socket

        async def make_probe():
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probe.settimeout(2)
            probe.setblocking(False)
            return probe
    """)
    assert found == set()


# -- imaplib: the constructor connects, CLOSE is a command --------------------------------------------------------------
def test_imaplib_constructor_and_close_talk_to_the_server(tmp_path):
    found = flagged(tmp_path, """
        import imaplib

        async def open_inbox(host, user, secret):
            box = imaplib.IMAP4_SSL(host)
            box.login(user, secret)
            return box

        async def done(box: imaplib.IMAP4_SSL):
            box.close()
    """)
    assert ("blocking_socket_io", "box = imaplib.IMAP4_SSL(host)") in found
    assert ("blocking_socket_io", "box.close()") in found


def test_imaplib_in_a_worker_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import imaplib

        def fetch_count(host):
            box = imaplib.IMAP4_SSL(host)
            box.close()
            return 0

        async def count(host):
            return await asyncio.to_thread(fetch_count, host)
    """)
    assert found == set()


# -- elasticsearch.helpers: bulk/scan/reindex send requests through the client they are given ----------------------------
def test_elasticsearch_helpers_send_requests(tmp_path):
    found = flagged(tmp_path, """
        from elasticsearch import Elasticsearch, helpers

        async def index_rows(url, rows):
            es = Elasticsearch(url)
            helpers.bulk(es, rows, chunk_size=500)
    """)
    assert ("blocking_http", "helpers.bulk(es, rows, chunk_size=500)") in found


def test_elasticsearch_async_helpers_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from elasticsearch import AsyncElasticsearch
        from elasticsearch.helpers import async_bulk

        async def index_rows(url, rows):
            es = AsyncElasticsearch(url)
            await async_bulk(es, rows)
    """)
    assert found == set()


# -- a file an executor job opened is still read and written on the loop --------------------------------------------------
def test_a_file_opened_by_an_executor_job_is_written_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        async def keep(path, data):
            loop = asyncio.get_running_loop()
            handle = await loop.run_in_executor(None, open, path, "wb")
            with handle as out:
                out.write(data)

        async def keep_too(path, data):
            handle = await asyncio.to_thread(open, path, "wb")
            handle.write(data)
            handle.close()
    """)
    assert ("blocking_file_io", "out.write(data)") in found
    assert ("blocking_file_io", "handle.write(data)") in found


def test_a_file_written_inside_the_executor_job_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        def write_all(path, data):
            with open(path, "wb") as out:
                out.write(data)

        async def keep(path, data):
            await asyncio.to_thread(write_all, path, data)
            size = await asyncio.to_thread(len, data)
            return size + 1
    """)
    assert found == set()


# -- small sync libraries reached from coroutines --------------------------------------------------------------------------
def test_cookie_jar_load_and_report_writers_touch_files(tmp_path):
    found = flagged(tmp_path, """
        from http.cookiejar import MozillaCookieJar
        from pyvis.network import Network
        from xhtml2pdf import pisa
        from mutagen import File

        async def cookies(path):
            jar = MozillaCookieJar(path)
            jar.load(ignore_discard=True)
            return jar

        async def graph(path):
            net = Network()
            net.show(path)

        async def pdf(html, out):
            pisa.CreatePDF(html, dest=out)

        async def tags(path):
            return File(path)
    """)
    assert ("blocking_file_io", "jar.load(ignore_discard=True)") in found
    assert ("blocking_file_io", "net.show(path)") in found
    assert ("blocking_cpu", "pisa.CreatePDF(html, dest=out)") in found
    assert ("blocking_file_io", "return File(path)") in found


def test_cookie_jar_in_memory_and_a_graph_built_without_writing_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from http.cookiejar import CookieJar
        from pyvis.network import Network

        async def empty_jar():
            jar = CookieJar()
            jar.clear()
            return jar

        async def graph(nodes):
            net = Network()
            for n in nodes:
                net.add_node(n)
            return net
    """)
    assert found == set()


def test_path_glob_walks_the_tree(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        async def songs(root):
            return [p.name for p in Path(root).glob("**/*.mp3")]

        async def all_logs(root: Path):
            return sorted(root.rglob("*.log"))
    """)
    assert ("blocking_file_io", 'return [p.name for p in Path(root).glob("**/*.mp3")]') in found
    assert ("blocking_file_io", 'return sorted(root.rglob("*.log"))') in found


def test_pure_path_operations_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path, PurePath

        async def names(root):
            p = Path(root)
            return p.name, p.suffix, p.with_suffix(".txt"), PurePath(root).match("*.py")
    """)
    assert found == set()


def test_a_file_opened_by_a_home_assistant_executor_job_is_written_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        async def save_snapshot(hass, path, image):
            handle = await hass.async_add_executor_job(open, path, "wb")
            with handle as out:
                out.write(image)
    """)
    assert ("blocking_file_io", "out.write(image)") in found


# -- the items of a container annotated with their class ------------------------------------------------------------------
def test_items_of_an_annotated_class_registry_have_the_item_class(tmp_path):
    found = flagged(tmp_path, """
        from typing import Dict, List
        import openpyxl

        class Sheet:
            _open: Dict[str, "Sheet"] = {}

            def __init__(self, name):
                self.name = name
                self.book = openpyxl.Workbook()

            def flush(self):
                self.book.save(self.name)

            @classmethod
            def flush_all(cls):
                for key, sheet in cls._open.items():
                    sheet.flush()

        class Batch:
            def __init__(self, parts: List[Sheet]):
                self.parts = parts

            def save(self, extra: List[Sheet]):
                for part in extra:
                    part.flush()

        async def finish(batch: Batch, more):
            Sheet.flush_all()
            batch.save(more)
    """)
    assert ("blocking_file_io", "self.book.save(self.name)") in found


def test_items_of_a_registry_of_plain_values_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from typing import Dict

        class Counter:
            def __init__(self):
                self.n = 0

            def bump(self):
                self.n += 1

        class Board:
            _counters: Dict[str, Counter] = {}
            _labels: Dict[str, str] = {}

            @classmethod
            def tick(cls):
                for counter in cls._counters.values():
                    counter.bump()
                for key, label in cls._labels.items():
                    label.upper()

        async def tick():
            Board.tick()
    """)
    assert found == set()


def test_a_one_directory_glob_with_an_f_string_pattern_is_found(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        async def model_file(folder: Path, prefix):
            quantized = sorted(folder.glob(f"{prefix}*.int8.onnx"))
            pattern = f"{prefix}.*"
            chosen = next(folder.glob(pattern), None)
            return quantized or chosen
    """)
    assert found == {("blocking_file_io", 'quantized = sorted(folder.glob(f"{prefix}*.int8.onnx"))'),
                     ("blocking_file_io", "chosen = next(folder.glob(pattern), None)")}


def test_a_glob_pattern_the_caller_chooses_may_walk_the_tree(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path

        async def find_files(base: str, pattern: str):
            return sorted(Path(base).glob(pattern))[:100]
    """)
    assert ("blocking_file_io", "return sorted(Path(base).glob(pattern))[:100]") in found


def test_mutagen_over_an_in_memory_upload_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import io
        from mutagen import File

        async def duration(upload: bytes):
            tags = File(io.BytesIO(upload))
            return tags.info.length if tags else 0.0
    """)
    assert found == set()
