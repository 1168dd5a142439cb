"""check blocking: the kinds held-out wave 36 (issue 17; ML serving, RAG and Jupyter services) got wrong, fixed by
kind: a project class guessed a network client by its name, Jupyter Server handlers, a non-blocking queue get, the
null device, traitlets class traits and a Tornado application's settings, a property that holds a session factory,
a decorator's wrapper, and the vocabulary of fastembed, pinecone-text, vLLM's engine config and a LangChain vector
store's index files.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations


from tests.detect.blocking_source import flagged, flagged_package



# -- a class of the analysed files is read, not guessed by its name ---------------------------------------------------
def test_a_project_class_named_client_is_guessed_by_its_third_party_base_not_its_own_name(tmp_path):
    found = flagged_package(tmp_path, {"__init__.py": "", "gateway/__init__.py": "", "gateway/client.py": """
        from slack_sdk import WebClient
        from traitlets.config import SingletonConfigurable

        class GatewayClient(SingletonConfigurable):
            def load_connection_args(self, **kwargs):
                return kwargs

        class AlertClient(WebClient):
            pass
    """, "gateway/connections.py": """
        from vendor_analytics import AnalyticsClient

        from svc.gateway.client import AlertClient, GatewayClient

        async def connect(kernel_id):
            url = GatewayClient.instance().url
            return GatewayClient.instance().load_connection_args(url=url)

        async def alert(text):
            AlertClient(token="x").chat_postMessage(channel="#ops", text=text)
            AnalyticsClient().track("alert", text)
    """})
    assert found == {("gateway/connections.py", "blocking_http",
                      'AlertClient(token="x").chat_postMessage(channel="#ops", text=text)'),
                     ("gateway/connections.py", "blocking_http", 'AnalyticsClient().track("alert", text)')}


# -- Jupyter Server's handler bases are Tornado RequestHandlers --------------------------------------------------------
def test_a_plain_method_of_a_jupyter_server_handler_runs_on_the_ioloop(tmp_path):
    found = flagged(tmp_path, """
        import json
        from jupyter_server.base.handlers import APIHandler, JupyterHandler

        class SettingsHandler(APIHandler):
            def post(self):
                with open("/srv/jai/settings.json", "w") as f:
                    f.write(json.dumps(self.get_json_body()))
                self.finish()

        class PageHandler(JupyterHandler):
            def get(self):
                with open("/srv/jai/page.html") as f:
                    self.finish(f.read())

        class Exporter:
            def post(self):
                with open("/srv/jai/export.json", "w") as f:
                    f.write("{}")
    """)
    assert found == {("blocking_file_io", 'with open("/srv/jai/settings.json", "w") as f:'),
                     ("blocking_file_io", 'with open("/srv/jai/page.html") as f:')}


# -- a queue get that does not wait, and the null device ---------------------------------------------------------------
def test_a_non_blocking_get_on_a_queue_subclass_and_the_null_device_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import os
        import queue

        class ChannelQueue(queue.Queue):
            async def poll(self):
                while True:
                    try:
                        return self.get(block=False)
                    except queue.Empty:
                        await asyncio.sleep(0.05)

            async def take(self):
                return self.get(timeout=30)

        async def quiet_report(rows):
            with open(os.devnull, "w") as sink:
                print(rows, file=sink)
            with open("/var/lib/report.txt", "w") as out:
                out.write(str(rows))
    """)
    assert found == {("blocking_task", "return self.get(timeout=30)"),
                     ("blocking_file_io", 'with open("/var/lib/report.txt", "w") as out:')}


# -- traitlets Type traits and a Tornado application's settings --------------------------------------------------------
EXTENSION = """
    from jupyter_server.extension.application import ExtensionApp
    from traitlets import Type

    from svc.handlers import JobHandler


    class SchedulerApp(ExtensionApp):
        handlers = [(r"scheduler/jobs", JobHandler)]
        scheduler_class = Type(default_value="svc.store.JobStore", klass="svc.store.BaseStore", config=True)

        def initialize_settings(self):
            store = self.scheduler_class(db_path="/var/lib/jobs.sqlite")
            self.settings.update(job_store=store)
"""
STORE = """
    import sqlite3


    class BaseStore:
        def count(self):
            raise NotImplementedError


    class JobStore(BaseStore):
        def __init__(self, db_path):
            self.db_path = db_path

        def count(self):
            with sqlite3.connect(self.db_path) as db:
                return db.execute("select count(*) from jobs").fetchone()[0]
"""
HANDLERS = """
    from jupyter_server.base.handlers import APIHandler
    from jupyter_server.utils import ensure_async


    class StoreMixin:
        @property
        def job_store(self):
            return self.settings.get("job_store")


    class JobHandler(StoreMixin, APIHandler):
        async def get(self):
            self.finish({"count": await ensure_async(self.job_store.count())})


    class Report:
        settings = {}

        def total(self):
            return self.settings.get("job_store").count()
"""


def test_a_handler_reads_the_store_an_extension_built_from_a_type_trait_and_put_in_settings(tmp_path):
    extension = EXTENSION.replace("self.settings.update(job_store=store)",
                                  "self.settings.update(job_store=store, archive=store)\n"
                                  "            self.settings[\"archive\"] = \"memory\"")
    handlers = HANDLERS + """

    class ArchiveHandler(APIHandler):
        async def get(self):
            self.finish({"count": self.settings["archive"].count()})
    """
    found = flagged_package(tmp_path, {"__init__.py": "", "extension.py": extension, "store.py": STORE,
                                       "handlers.py": handlers})
    assert found == {("store.py", "blocking_db", "with sqlite3.connect(self.db_path) as db:"),
                     ("store.py", "blocking_db", 'return db.execute("select count(*) from jobs").fetchone()[0]')}


# -- a property that holds a session factory ---------------------------------------------------------------------------
def test_calling_a_property_calls_the_factory_it_returns(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import create_engine
        from sqlalchemy.orm import sessionmaker

        class Jobs:
            _factory = None

            @property
            def db_session(self):
                if not self._factory:
                    self._factory = sessionmaker(bind=create_engine("postgresql://db/jobs"))
                return self._factory

            async def delete(self, job_id):
                with self.db_session() as session:
                    session.execute("delete from jobs where id = :id", {"id": job_id})
                    session.commit()
    """)
    assert found == {("blocking_db", 'session.execute("delete from jobs where id = :id", {"id": job_id})'),
                     ("blocking_db", "session.commit()")}


# -- a decorator of the analysed files: its wrapper runs around the call -----------------------------------------------
def test_the_wrapper_of_a_project_decorator_runs_on_the_loop_with_the_call(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import functools
        import time

        def retrying(attempts=3):
            def decorator(fn):
                @functools.wraps(fn)
                def wrapper(*args, **kwargs):
                    for i in range(attempts):
                        try:
                            return fn(*args, **kwargs)
                        except ConnectionError:
                            time.sleep(2 ** i)
                return wrapper
            return decorator

        def timed(fn):
            def wrapper(*args, **kwargs):
                start = time.monotonic()
                try:
                    return fn(*args, **kwargs)
                finally:
                    print(time.monotonic() - start)
            return wrapper

        def in_thread(fn):
            async def run(*args):
                return await asyncio.to_thread(fn, *args)
            return run

        class Graph:
            @retrying(5)
            def write(self, row):
                return row

            @timed
            def read(self):
                return 1

            @in_thread
            def rebuild(self):
                time.sleep(30)

        async def handler(graph: Graph):
            graph.write({"a": 1})
            graph.read()
            await graph.rebuild()
    """)
    assert found == {("blocking_sleep", "time.sleep(2 ** i)")}


# -- vocabulary: fastembed, pinecone-text, vLLM's engine config, a LangChain vector store's files ----------------------
def test_embedding_encoders_and_engine_config_block_where_called(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import fsspec
        from fastembed import TextEmbedding
        from langchain_community.vectorstores import FAISS
        from pinecone_text.dense import OpenAIEncoder
        from vllm.engine.arg_utils import AsyncEngineArgs

        class Memory:
            model = None

            async def startup(self):
                self.model = TextEmbedding("BAAI/bge-small-en-v1.5")

            async def embed(self, texts):
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(None, lambda: list(self.model.embed(texts)))

        async def search(encoder: OpenAIEncoder, text):
            return encoder.encode_queries([text])

        async def build_engine(args: AsyncEngineArgs):
            return args.create_engine_config()

        async def persist(index: FAISS):
            index.save_local("/var/lib/faiss", index_name="docs")

        async def stage(src, dest):
            with fsspec.open(src) as f, fsspec.open(dest, "wb") as out:
                out.write(f.read())
    """)
    assert found == {("blocking_file_io", 'self.model = TextEmbedding("BAAI/bge-small-en-v1.5")'),
                     ("blocking_http", "return encoder.encode_queries([text])"),
                     ("blocking_file_io", "return args.create_engine_config()"),
                     ("blocking_file_io", 'index.save_local("/var/lib/faiss", index_name="docs")'),
                     ("blocking_file_io", 'with fsspec.open(src) as f, fsspec.open(dest, "wb") as out:')}


# -- a session of an in-memory SQLite engine waits on nothing ----------------------------------------------------------
def test_a_session_of_an_in_memory_sqlite_engine_is_silent_and_one_of_a_file_is_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from sqlalchemy import create_engine
        from sqlalchemy.orm import sessionmaker

        class Cache:
            def __init__(self):
                self.url = "sqlite://"
                engine = create_engine(self.url, echo=False)
                self.session = sessionmaker(bind=engine)

            def put(self, row):
                with self.session() as session:
                    session.add(row)
                    session.commit()

        class Ledger:
            def __init__(self, path):
                engine = create_engine(f"sqlite:///{path}")
                self.session = sessionmaker(bind=engine)

            def put(self, row):
                with self.session() as db:
                    db.add(row)
                    db.commit()

        async def poll(cache: Cache, ledger: Ledger, row):
            while True:
                cache.put(row)
                ledger.put(row)
                await asyncio.sleep(10)
    """)
    assert found == {("blocking_db", "db.commit()")}
