"""check blocking: kinds left from earlier stops (issue 17), fixed by kind at stop 53.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged, flagged_package


# -- a module a helper imports late and returns: its functions run where they are called ---------------------------
_LATE_IMPORT = {
    "desk/__init__.py": "",
    "desk/store.py": """
        import json
        from pathlib import Path

        STATE = Path("state/runtime.json")

        def runtime_state() -> dict:
            if not STATE.exists():
                return {}
            return json.loads(STATE.read_text(encoding="utf-8"))

        def badge(count: int) -> str:
            return f"{count} open"
    """,
    "desk/exports.py": """
        from desk.store import badge, runtime_state

        __all__ = ["badge", "runtime_state"]
    """,
    "desk/app.py": """
        from fastapi import FastAPI

        app = FastAPI()

        from desk.exports import *  # noqa
    """,
    "desk/routes.py": """
        from fastapi import APIRouter

        router = APIRouter()

        def _desk():
            import desk.app as late
            return late

        @router.get("/state")
        async def state():
            desk = _desk()
            return desk.runtime_state()

        @router.get("/badge")
        async def header(count: int):
            desk = _desk()
            return desk.badge(count)
    """,
}


def test_a_function_of_a_module_a_helper_returns_runs_where_it_is_called(tmp_path):
    found = flagged_package(tmp_path, _LATE_IMPORT)
    assert found == {("desk/store.py", "blocking_file_io", 'return json.loads(STATE.read_text(encoding="utf-8"))')}


# -- a method the class does not have sends nothing ----------------------------------------------------------------
def _library(tmp_path, name: str, files: dict[str, str], requires: tuple[str, ...] = ()):
    """A site directory holding the package ``name`` written from ``files`` and its distribution's metadata."""
    site = tmp_path / "site"
    for rel, text in files.items():
        path = site / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
                                         + "".join(f"Requires-Dist: {r}\n" for r in requires))
    info.joinpath("top_level.txt").write_text(f"{name}\n")
    return site


def _lines(report, path) -> set[str]:
    text = path.read_text().splitlines()
    return {text[f.location["line"] - 1].strip() for f in report.findings if f.kind != "analysis_incomplete"}


_CHAT_STREAM = {
    "__init__.py": "from chatstream.stream import StreamClient, OpenStreamClient\n",
    "base.py": "class Channel:\n    def heartbeat(self):\n        return self.ping()\n",
    "stream.py": (
        "from chatstream.base import Channel\n\n"
        "class StreamClient(Channel):\n"
        "    def __init__(self, key):\n        self.key = key\n"
        "    def open_session(self):\n        return {'key': self.key}\n\n"
        "class OpenStreamClient:\n"
        "    def __getattr__(self, name):\n        return lambda *a: None\n"),
}


def test_a_guessed_client_method_the_installed_class_lacks_is_silent(tmp_path):
    site = _library(tmp_path, "chatstream", _CHAT_STREAM)
    app = tmp_path / "app" / "svc.py"
    app.parent.mkdir()
    app.write_text(
        "import chatstream\n\n"
        "client = chatstream.StreamClient('k')\n"
        "loose = chatstream.OpenStreamClient()\n\n"
        "async def stop():\n"
        "    if hasattr(client, 'disconnect'):\n"
        "        client.disconnect()\n\n"
        "async def start():\n"
        "    client.open_session()\n"
        "    client.heartbeat()\n"
        "    loose.disconnect()\n")
    report = analyze_path(app.parent, site_dirs=[site])
    # defined in the class, inherited from its base, answered by __getattr__: the class-name guess stands for these
    assert _lines(report, app) == {"client.open_session()", "client.heartbeat()", "loose.disconnect()"}


def test_an_inferred_client_method_the_installed_class_lacks_is_silent(tmp_path):
    site = _library(tmp_path, "ledgerkit", {"__init__.py": (
        "class Ledger:\n"
        "    def __init__(self, api_token=None):\n        self._transport = None\n"
        "    def balance(self, account):\n"
        "        return getattr(self._transport, 'send')('balance', account)\n")}, requires=("requests>=2",))
    app = tmp_path / "app" / "svc.py"
    app.parent.mkdir()
    app.write_text(
        "from ledgerkit import Ledger\n\n"
        "ledger = Ledger(api_token='k')\n\n"
        "async def show(account):\n"
        "    return ledger.balance(account)\n\n"
        "async def summary():\n"
        "    return ledger.statement()\n")
    report = analyze_path(app.parent, site_dirs=[site])
    assert _lines(report, app) == {"return ledger.balance(account)"}


def test_the_vocabulary_answers_for_zotero_and_dingtalk_clients_not_installed(tmp_path):
    found = flagged(tmp_path, """
        import dingtalk_stream
        from pyzotero import zotero

        zot = zotero.Zotero(library_id="1", library_type="user", api_key="k")
        stream = dingtalk_stream.DingTalkStreamClient(dingtalk_stream.Credential("id", "secret"))

        async def library_summary():
            return zot.library()

        async def collections():
            return zot.collections(), zot.items(limit=5)

        async def stop():
            if hasattr(stream, "disconnect"):
                stream.disconnect()

        async def token():
            return stream.get_access_token()
    """)
    assert found == {("blocking_http", "return zot.collections(), zot.items(limit=5)"),
                     ("blocking_http", "return stream.get_access_token()")}


# -- LlamaIndex's async methods that run the sync one ----------------------------------------------------------------
def test_a_retriever_without_its_own_async_hook_runs_its_sync_one_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import httpx
        import requests
        from llama_index.core.query_engine import CustomQueryEngine
        from llama_index.core.retrievers import BaseRetriever

        class WikiRetriever(BaseRetriever):
            def _retrieve(self, query_bundle):
                return requests.get("https://wiki.example.org/search", params={"q": query_bundle.query_str}).json()

        class AsyncWikiRetriever(BaseRetriever):
            def _retrieve(self, query_bundle):
                return requests.get("https://wiki.example.org/search", params={"q": query_bundle.query_str}).json()

            async def _aretrieve(self, query_bundle):
                async with httpx.AsyncClient() as client:
                    return (await client.get("https://wiki.example.org/search")).json()

        class FaqEngine(CustomQueryEngine):
            def custom_query(self, query_str):
                return requests.post("https://faq.example.org/ask", json={"q": query_str}).text

        async def search(question):
            return await WikiRetriever().aretrieve(question)

        async def search_async(question):
            return await AsyncWikiRetriever().aretrieve(question)

        async def ask(question):
            return await FaqEngine().aquery(question)
    """)
    assert found == {
        ("blocking_http", 'return requests.get("https://wiki.example.org/search", params={"q": '
                          'query_bundle.query_str}).json()'),
        ("blocking_http", 'return requests.post("https://faq.example.org/ask", json={"q": query_str}).text')}


_STORE_SERVICE = """
    from llama_index.core import VectorStoreIndex
    from llama_index.core.chat_engine import CondensePlusContextChatEngine
    from llama_index.vector_stores.{module} import {store}

    def make_index():
        return VectorStoreIndex.from_vector_store({store}(index_name="docs", pinecone_index=None))

    class CitingChatEngine(CondensePlusContextChatEngine):
        async def _aretrieve_context(self, message):
            nodes = await self._retriever.aretrieve(message)
            return "\\n".join(n.text for n in nodes), nodes

    async def retrieve(question):
        retriever = make_index().as_retriever(similarity_top_k=5)
        return await retriever.aretrieve(question)

    async def chat(engine: CitingChatEngine, message):
        return await engine.achat(message)
"""


def test_awaited_retrieval_over_a_store_without_async_query_blocks(tmp_path):
    found = flagged(tmp_path, _STORE_SERVICE.format(module="pinecone", store="PineconeVectorStore"))
    # the engine subclass's own coroutine is where the query runs: reported there, not again at `engine.achat`
    assert {line for kind, line in found if "aretrieve" in line or "achat" in line} == {
        "nodes = await self._retriever.aretrieve(message)", "return await retriever.aretrieve(question)"}


def test_awaited_retrieval_over_a_store_with_its_own_async_query_is_silent(tmp_path):
    found = flagged(tmp_path, _STORE_SERVICE.format(module="qdrant", store="QdrantVectorStore"))
    assert {line for _, line in found if "aretrieve" in line or "achat" in line} == set()


# -- house rules: psutil's walks over every process, BeautifulSoup over a fetched page ------------------------------
def test_psutil_walks_over_every_process_are_cpu_and_single_readings_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import psutil

        async def tunnels():
            for proc in psutil.process_iter(["name"]):
                if proc.info["name"] == "ssh":
                    return proc.net_connections()
            return None

        async def tree(pid: int):
            return psutil.Process(pid).children(recursive=True)

        async def health():
            with open("/proc/meminfo") as fh:
                head = fh.readline()
            return psutil.virtual_memory().percent, psutil.cpu_count(), head
    """)
    assert found == {("blocking_cpu", 'for proc in psutil.process_iter(["name"]):'),
                     ("blocking_cpu", "return proc.net_connections()"),
                     ("blocking_cpu", "return psutil.Process(pid).children(recursive=True)")}


def test_beautifulsoup_over_a_fetched_page_is_cpu_and_over_a_fragment_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import aiohttp
        import httpx
        from bs4 import BeautifulSoup

        async def uploader(video_id: str):
            async with httpx.AsyncClient() as client:
                response = await client.get("https://video.example.org/watch", params={"v": video_id})
                html = response.text
                soup = BeautifulSoup(html, "html.parser")
            return soup.find("span", itemprop="author")

        async def title(url: str):
            async with aiohttp.ClientSession() as session:
                async with session.get(url) as resp:
                    return BeautifulSoup(await resp.text(), "lxml").title

        async def plain(message_html: str):
            return BeautifulSoup(message_html, "html.parser").get_text()

        async def badge():
            return BeautifulSoup("<b>new</b>", "html.parser").b
    """)
    assert found == {("blocking_cpu", 'soup = BeautifulSoup(html, "html.parser")'),
                     ("blocking_cpu", 'return BeautifulSoup(await resp.text(), "lxml").title')}


# -- the path part of a URL handed to an unlisted package by keyword: an address, not a file ------------------------

def test_a_url_path_bound_into_a_logging_context_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import structured_log

        async def dispatch(request, call_next):
            structured_log.context.bind_values(method=request.method, path=request.url.path)
            return await call_next(request)
    """)
    assert found == set()


def test_a_file_path_handed_by_keyword_to_an_unlisted_package_is_still_opened(tmp_path):
    found = flagged(tmp_path, """
        import docparse

        async def ingest(upload):
            return docparse.partition(path=upload.saved_path)
    """)
    assert found == {("blocking_file_io", "return docparse.partition(path=upload.saved_path)")}
