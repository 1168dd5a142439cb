"""check blocking: the kinds held-out wave 71 (issue 17; retrieval-augmented generation and vector-database services)
left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test; the libraries are recognised by their imported names."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged, flagged_package

# -- a provider class picked by the name a settings file gives: the package is imported by its spelt name ------------

_PROVIDERS = {
    "kb/__init__.py": "",
    "kb/chat/__init__.py": """
        from .base import Chat
        from .remote import Remote
        from .hosted import Hosted
    """,
    "kb/chat/base.py": """
        class Chat:
            def reply(self, text):
                raise NotImplementedError
    """,
    "kb/chat/remote.py": """
        import requests

        from kb.chat.base import Chat


        class Remote(Chat):
            def reply(self, text):
                return requests.post("http://llm:9000/reply", json={"text": text}).json()
    """,
    "kb/chat/hosted.py": """
        import requests

        from kb.chat.base import Chat


        class Hosted(Chat):
            def reply(self, text):
                return requests.post("https://api.example.org/v1/reply", json={"text": text}).json()
    """,
    "kb/settings.py": """
        import json
        import os


        def build(section, package_name):
            class_name = SETTINGS[section]["provider"]
            module = {importer}(package_name, fromlist=[class_name])
            return getattr(module, class_name)()


        SETTINGS = json.loads(os.environ["KB_SETTINGS"])  # {"chat": {"provider": ...}}
        chat = build("chat", {package})
    """,
    "kb/answer.py": """
        from kb.chat.base import Chat
        from kb.chat.remote import Remote


        class Answerer:
            def __init__(self, chat: Chat):
                self.chat = chat

            async def answer(self, text):
                return self.chat.reply(text)


        def fallback():
            return Answerer(Remote())
    """,
}


@pytest.mark.parametrize("importer, package, picked", [("__import__", '"kb.chat"', True),
                                                       ("__import__", '"kb.other"', False)],
                         ids=["package-spelt", "another-package-spelt"])
def test_a_class_its_package_exports_to_a_lookup_by_name_counts_as_built(tmp_path, importer, package, picked):
    files = {path: source.replace("{importer}", importer).replace("{package}", package)
             for path, source in _PROVIDERS.items()}
    found = flagged_package(tmp_path, files)
    line = 'return requests.post("https://api.example.org/v1/reply", json={"text": text}).json()'
    assert ("kb/chat/hosted.py", "blocking_http", line) in found if picked else (
        ("kb/chat/hosted.py", "blocking_http", line) not in found)
    assert ("kb/chat/remote.py", "blocking_http",
            'return requests.post("http://llm:9000/reply", json={"text": text}).json()') in found  # built by name


def test_a_class_of_a_module_imported_by_an_f_string_name_counts_as_built(tmp_path):
    files = dict(_PROVIDERS)
    files["kb/chat/__init__.py"] = ""
    files["kb/settings.py"] = """
        import importlib
        import json
        import os

        SETTINGS = json.loads(os.environ["KB_SETTINGS"])


        def build(section):
            module = importlib.import_module(f"kb.chat.{SETTINGS[section]['module']}")
            return getattr(module, SETTINGS[section]["provider"])()
    """
    found = flagged_package(tmp_path, files)
    assert ("kb/chat/hosted.py", "blocking_http",
            'return requests.post("https://api.example.org/v1/reply", json={"text": text}).json()') in found


# -- SQLAlchemy's run_sync: the callable runs over the async driver -----------------------------------------------

_SCHEMA = """
    from sqlalchemy import MetaData, inspect
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine("postgresql+asyncpg://app@db/app")
    metadata = MetaData()


    def table_names():
        return inspect(engine.sync_engine).get_table_names()


    async def set_up():
        async with engine.begin() as conn:
            await conn.run_sync(lambda sync_conn: metadata.create_all(sync_conn, checkfirst=True))
            names = await conn.run_sync(lambda sync_conn: inspect(sync_conn).get_table_names())
            await conn.run_sync(lambda sync_conn: open("schema.sql").read())
        return names, table_names()
"""


def test_sqlalchemy_work_in_a_run_sync_lambda_is_silent_other_io_there_is_reported(tmp_path):
    found = flagged(tmp_path, _SCHEMA)
    assert not any("create_all" in line or "inspect(sync_conn)" in line for _, line in found)
    assert ("blocking_file_io", 'await conn.run_sync(lambda sync_conn: open("schema.sql").read())') in found
    assert ("blocking_db", "return inspect(engine.sync_engine).get_table_names()") in found  # a plain helper


# -- a done callback reached through a wrapper that forwards the future -------------------------------------------

_JOBS = """
    import asyncio
    import functools
    from concurrent.futures import Future, ThreadPoolExecutor

    pool = ThreadPoolExecutor(2)


    def render(job):
        return job


    def report(job, done: Future):
        return done.result()


    def noted(tag, finished: Future):
        return finished.result()


    def late(job, pending: Future):
        return pending.result()


    async def queue(jobs):
        for job in jobs:
            fut = pool.submit(render, job)
            fut.add_done_callback(lambda done, job=job: report(job, done))
            fut.add_done_callback(functools.partial(noted, job))
        late(jobs[0], pool.submit(render, jobs[0]))
        await asyncio.sleep(0)
"""


def test_a_future_forwarded_by_a_lambda_or_partial_done_callback_is_done(tmp_path):
    found = flagged(tmp_path, _JOBS)
    assert ("blocking_task", "return done.result()") not in found
    assert ("blocking_task", "return finished.result()") not in found
    assert ("blocking_task", "return pending.result()") in found  # a future still running


# -- vocabulary: LangChain's server-backed stores, chromadb's HTTP client, pymilvus.model, dotenv writers, alembic ---

_STORES = """
    import chromadb
    from dotenv import load_dotenv, set_key
    from langchain_chroma import Chroma
    from langchain_community.vectorstores import FAISS, Qdrant
    from pymilvus import model

    embedder = model.DefaultEmbeddingFunction()


    class Stores:
        def __init__(self, qdrant: Qdrant, index: FAISS):
            self.chroma = Chroma(client=chromadb.HttpClient(host="chroma", port=8000), collection_name="kb")
            self.qdrant = qdrant
            self.index = index

        async def forget(self, ids):
            self.chroma.delete(ids)
            self.qdrant.delete(ids)
            self.index.delete(ids)

        async def drop(self):
            self.chroma.delete_collection()

        async def vector(self, text):
            return embedder.encode_queries([text])[0]


    async def remember(key):
        set_key(".env", "SECRET", key)
        load_dotenv()
"""


def test_langchain_store_requests_chroma_http_client_milvus_embedders_and_dotenv_writers(tmp_path):
    found = flagged(tmp_path, _STORES)
    assert ("blocking_http", "self.chroma.delete(ids)") in found
    assert ("blocking_http", "self.qdrant.delete(ids)") in found
    assert ("blocking_http", "self.chroma.delete_collection()") in found
    assert ("blocking_cpu", "return embedder.encode_queries([text])[0]") in found
    assert ("blocking_file_io", 'set_key(".env", "SECRET", key)') in found
    assert not any(line == "self.index.delete(ids)" for _, line in found)  # FAISS deletes in memory


def test_chromadb_http_client_construction_is_reported_on_the_loop(tmp_path):
    source = """
        import chromadb


        async def connect(host):
            return chromadb.HttpClient(host=host, port=8000)


        def later(host):
            return chromadb.HttpClient(host=host, port=8000)
    """
    found = flagged(tmp_path, source)
    assert found == {("blocking_http", "return chromadb.HttpClient(host=host, port=8000)")}


_MIGRATE = """
    from alembic.config import main as alembic_main
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine


    def current(url):
        with create_engine(url).connect() as connection:
            context = MigrationContext.configure(connection)
            return context.get_current_revision()


    async def startup(url):
        if current(url) is None:
            alembic_main(argv=["upgrade", "head"])
"""


def test_alembic_revision_reads_and_its_command_line_are_reported_configure_is_not(tmp_path):
    found = flagged(tmp_path, _MIGRATE)
    assert ("blocking_db", "return context.get_current_revision()") in found
    assert ("blocking_db", 'alembic_main(argv=["upgrade", "head"])') in found
    assert not any("configure" in line for _, line in found)


def test_numpy_load_of_bytes_in_memory_is_a_copy_of_a_file_is_io(tmp_path):
    source = """
        import io

        import numpy as np


        async def vectors(cached: bytes, path):
            kept = np.load(io.BytesIO(cached))
            return kept, np.load(path)
    """
    found = flagged(tmp_path, source)
    assert not any("io.BytesIO(cached)" in line for _, line in found)
    assert ("blocking_file_io", "return kept, np.load(path)") in found


# -- a subclass of a library's store: super() into the library's method, its documented handle, a named private call --

_ATLAS = """
    from langchain_mongodb import MongoDBAtlasVectorSearch


    class FileStore(MongoDBAtlasVectorSearch):
        def add_documents(self, documents, ids=None):
            keyed = [d.metadata["file_id"] for d in documents]
            return super().add_documents(documents, keyed)

        def scored(self, vector, k):
            return self._similarity_search_with_score(vector, k=k)

        def file_ids(self):
            return self._collection.distinct("file_id")

        def describe(self):
            return super().__repr__()


    store = FileStore(None, None)


    async def ingest(documents):
        return store.add_documents(documents)


    async def lookup(vector):
        return store.scored(vector, 4), store.file_ids(), store.describe()
"""


def test_a_library_stores_subclass_blocks_through_super_its_collection_and_its_private_search(tmp_path):
    found = flagged(tmp_path, _ATLAS)
    assert ("blocking_http", "return super().add_documents(documents, keyed)") in found
    assert ("blocking_http", "return self._similarity_search_with_score(vector, k=k)") in found
    assert ("blocking_db", 'return self._collection.distinct("file_id")') in found
    assert not any("__repr__" in line for _, line in found)  # a method the vocabulary does not describe


# -- psycopg 3's pool: lending a connection waits, the connection it lends is psycopg's -----------------------------

_POOL = """
    from contextlib import contextmanager

    from psycopg_pool import ConnectionPool


    class Vectors:
        def __init__(self, uri):
            self.pool = ConnectionPool(conninfo=uri, min_size=1, max_size=4)

        @contextmanager
        def borrowed(self):
            conn = self.pool.getconn()
            try:
                yield conn
            finally:
                self.pool.putconn(conn)

        async def nearest(self, vector):
            with self.borrowed() as conn:
                return conn.execute("SELECT id FROM items ORDER BY embedding <-> %s LIMIT 5", (vector,)).fetchall()

        async def count(self):
            with self.pool.connection() as conn:
                return conn.execute("SELECT count(*) FROM items").fetchone()
"""


def test_a_psycopg_pools_lending_and_its_connections_queries_are_reported(tmp_path):
    found = flagged(tmp_path, _POOL)
    assert ("blocking_db", "conn = self.pool.getconn()") in found
    assert ("blocking_db", 'return conn.execute("SELECT id FROM items ORDER BY embedding <-> %s LIMIT 5", '
                           '(vector,)).fetchall()') in found
    assert ("blocking_db", 'return conn.execute("SELECT count(*) FROM items").fetchone()') in found
    assert not any("ConnectionPool(" in line or "putconn" in line for _, line in found)  # built: background workers
