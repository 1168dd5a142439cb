"""check blocking: kinds held-out wave 64 (LLM agent and RAG backends, issue 17) missed or wrongly flagged, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

_PIN_2X = """
    [project]
    name = "desk"
    dependencies = ["fastmcp>=2.9,<3", "requests"]
"""


# -- a tool decorated on a method inside its class body is never called with an instance ---------------------------
def test_a_tool_decorated_on_a_method_in_its_class_body_is_no_entry(tmp_path):
    found = flagged_package(tmp_path, {"pyproject.toml": _PIN_2X, "desk.py": """
        import requests
        from fastmcp import FastMCP

        board = FastMCP("board")

        class Notice:
            def __init__(self, feed):
                self.feed = feed

            @board.tool
            def headlines(self, count: int) -> list:
                return requests.get(self.feed, params={"n": count}).json()

            @board.resource("notice://latest")
            def latest(self) -> str:
                return requests.get(self.feed).text
    """})
    assert found == set()


def test_a_static_or_module_level_tool_still_runs_on_the_loop(tmp_path):
    found = flagged_package(tmp_path, {"pyproject.toml": _PIN_2X, "desk.py": """
        import requests
        from fastmcp import FastMCP

        board = FastMCP("board")

        class Notice:
            @board.tool
            @staticmethod
            def weather(city: str) -> str:
                return requests.get("https://wx.example.org", params={"q": city}).text

        @board.tool
        def tides(port: str) -> str:
            return requests.get("https://tides.example.org", params={"p": port}).text
    """})
    assert {line for _, _, line in found} == {
        'return requests.get("https://wx.example.org", params={"q": city}).text',
        'return requests.get("https://tides.example.org", params={"p": port}).text'}


def test_a_bound_method_registered_by_call_stays_an_entry(tmp_path):
    found = flagged(tmp_path, """
        import requests
        from mcp.server.fastmcp import FastMCP

        board = FastMCP("board")

        class Notice:
            def __init__(self, feed):
                self.feed = feed

            def headlines(self) -> str:
                return requests.get(self.feed).text

        notice = Notice("https://feed.example.org")
        board.add_tool(notice.headlines)
    """)
    assert found == {("blocking_http", "return requests.get(self.feed).text")}


# -- langfuse 3: the LangChain handler has no flush; get_client() gives the client that flushes ---------------------
_TRACED_RUN = """
    from langfuse{module} import CallbackHandler
    {extra_import}

    async def finish_run(graph, question):
        tracer = CallbackHandler()
        answer = await graph.ainvoke({{"q": question}}, config={{"callbacks": [tracer]}})
        {flushes}
        return answer
"""


def test_langfuse3_get_client_flush_blocks_and_the_handler_has_none(tmp_path):
    found = flagged(tmp_path, _TRACED_RUN.format(
        module=".langchain", extra_import="from langfuse import get_client",
        flushes='if hasattr(tracer, "flush"):\n            tracer.flush()\n        get_client().flush()'))
    assert found == {("blocking_http", "get_client().flush()")}


def test_langfuse2_callback_handler_flush_still_blocks(tmp_path):
    found = flagged(tmp_path, _TRACED_RUN.format(module=".callback", extra_import="", flushes="tracer.flush()"))
    assert found == {("blocking_http", "tracer.flush()")}


# -- what an awaited helper returns through a local it constructed -------------------------------------------------
_SHELF = """
    import chromadb

    archive = chromadb.PersistentClient(path="archive")

    class Shelf:
        def __init__(self, label):
            self.label = label
            self.client = {store}

    async def open_drawer(label):
        shelf = Shelf(label)
        return shelf.client.{fetch}

    async def file_note(label, text):
        drawer = await open_drawer(label)
        drawer.add(ids=[label], documents=[text])
"""


def test_an_awaited_helper_returning_a_collection_through_a_local_is_typed(tmp_path):
    found = flagged(tmp_path, _SHELF.format(store="archive", fetch='get_collection("notes")'))
    assert found == {("blocking_http", 'return shelf.client.get_collection("notes")'),
                     ("blocking_http", "drawer.add(ids=[label], documents=[text])")}


def test_an_awaited_helper_returning_plain_data_through_a_local_stays_silent(tmp_path):
    found = flagged(tmp_path, _SHELF.format(store="{}", fetch='get("notes", set())'))
    assert found == set()


# -- an attribute a class of the files inherits from a library base ------------------------------------------------
def test_a_declarative_base_subclass_metadata_runs_ddl(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import create_engine
        from sqlalchemy.orm import DeclarativeBase

        engine = create_engine("sqlite:///orders.db")

        class Model(DeclarativeBase):
            pass

        class Order(Model):
            __tablename__ = "orders"

        async def prepare():
            Model.metadata.create_all(engine)
            Order.metadata.drop_all(engine)
    """)
    assert found == {("blocking_db", "Model.metadata.create_all(engine)"),
                     ("blocking_db", "Order.metadata.drop_all(engine)")}


def test_reading_the_inherited_metadata_without_ddl_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy.orm import DeclarativeBase

        class Model(DeclarativeBase):
            pass

        async def table_names():
            return sorted(Model.metadata.tables)
    """)
    assert found == set()


# -- locals typed while their class's attributes were half typed are typed again -----------------------------------
_LEDGER = {
    "store.py": """
        from sqlalchemy import create_engine, text
        from sqlalchemy.orm import Session, sessionmaker

        class Ledger:
            def __init__(self, url):
                self.engine = None
                self.factory: sessionmaker[Session] | None = None
                self.engine = create_engine(url)
                with self.engine.connect() as link:
                    link.execute(text("select 1"))
                self.factory = sessionmaker(bind=self.engine)

            def latest(self, n):
                with self.factory() as session:
                    return session.execute(text("select * from entries limit :n"), {"n": n}).all()

        _ledger = None

        def ledger():
            global _ledger
            if _ledger is None:
                _ledger = Ledger("postgresql://ledger")
            return _ledger
    """,
    "api.py": """
        from store import ledger

        async def recent(n: int = 5):
            rows = ledger().latest(n)
            return [tuple(r) for r in rows]
    """,
}


def test_a_connection_bound_in_the_constructor_is_typed_whichever_handler_asks_first(tmp_path):
    found = flagged_package(tmp_path, _LEDGER)
    assert {line for _, _, line in found} == {
        "with self.engine.connect() as link:", 'link.execute(text("select 1"))',
        'return session.execute(text("select * from entries limit :n"), {"n": n}).all()'}


def test_the_same_ledger_behind_an_offloaded_call_stays_silent(tmp_path):
    files = dict(_LEDGER, **{"api.py": """
        import asyncio
        from store import ledger

        async def recent(n: int = 5):
            rows = await asyncio.to_thread(lambda: ledger().latest(n))
            return [tuple(r) for r in rows]
    """})
    assert flagged_package(tmp_path, files) == set()


# -- per-message classifiers of a chat backend ----------------------------------------------------------------------
def test_prompt_injection_and_language_classifiers_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        from langdetect import detect
        from pytector import PromptInjectionDetector

        _guard = None

        async def screen(message: str):
            global _guard
            if _guard is None:
                _guard = PromptInjectionDetector(model_name_or_url="deberta")
            flagged, score = _guard.detect_injection(message)
            return flagged, score, detect(message)
    """)
    assert found == {("blocking_file_io", '_guard = PromptInjectionDetector(model_name_or_url="deberta")'),
                     ("blocking_cpu", "flagged, score = _guard.detect_injection(message)"),
                     ("blocking_cpu", "return flagged, score, detect(message)")}


def test_classifiers_run_in_a_worker_thread_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from langdetect import detect
        from pytector import PromptInjectionDetector

        guard = PromptInjectionDetector(model_name_or_url="deberta")

        async def screen(message: str):
            verdict = await asyncio.to_thread(guard.detect_injection, message)
            language = await asyncio.to_thread(detect, message)
            return verdict, language
    """)
    assert found == set()


# -- llama-index's Pinecone store looks its index up unless it is handed one ---------------------------------------
def test_a_pinecone_store_built_from_an_index_name_blocks(tmp_path):
    found = flagged(tmp_path, """
        import os
        from llama_index.vector_stores.pinecone import PineconeVectorStore

        async def answer_store():
            return PineconeVectorStore(api_key=os.environ["PC_KEY"], index_name="handbook")
    """)
    assert found == {("blocking_http", 'return PineconeVectorStore(api_key=os.environ["PC_KEY"], index_name="handbook")')}


def test_a_pinecone_store_handed_its_index_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import os
        from llama_index.vector_stores.pinecone import PineconeVectorStore
        from pinecone import Pinecone

        handbook = Pinecone(api_key=os.environ["PC_KEY"]).Index(host=os.environ["PC_HOST"])

        async def answer_store():
            return PineconeVectorStore(pinecone_index=handbook)
    """)
    assert found == set()
