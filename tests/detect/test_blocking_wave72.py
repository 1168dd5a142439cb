"""check blocking: the kinds held-out wave 72 (issue 17; Matrix/Slack bots, aio-pika/FastStream consumers, model
services) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package, joined


# -- commit() on a connection in autocommit mode sends nothing -----------------------------------------------------------

_NOTES = """
    import sqlite3


    class Notes:
        def __init__(self, kind, dsn):
            self.db = self._open(kind, dsn)
            self.cur = self.db.cursor()

        def _open(self, kind, dsn):
            if kind == "sqlite":
                return sqlite3.connect(dsn, isolation_level=None)
            import psycopg2
            db = psycopg2.connect(dsn)
            db.set_isolation_level(0)
            return db

        def add(self, room, text):
            self.cur.execute("INSERT INTO notes VALUES (?, ?)", (room, text))
            self.db.commit()
"""


def test_commit_on_an_autocommit_connection_is_silent_and_the_statement_still_blocks(tmp_path):
    found = flagged(tmp_path, joined(_NOTES, """
        notes = Notes("sqlite", "notes.db")


        async def on_message(room, text):
            notes.add(room, text)
    """))
    assert ("blocking_db", 'self.cur.execute("INSERT INTO notes VALUES (?, ?)", (room, text))') in found
    assert not any(line == "self.db.commit()" for _, line in found)


def test_commit_on_a_psycopg_connection_switched_by_attribute_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import psycopg


        class Ledger:
            def __init__(self, dsn):
                self.conn = psycopg.connect(dsn)
                self.conn.autocommit = True

            def record(self, amount):
                self.conn.execute("INSERT INTO ledger VALUES (%s)", (amount,))
                self.conn.commit()


        ledger = Ledger("dbname=ledger")


        async def pay(amount):
            ledger.record(amount)
    """)
    assert ("blocking_db", 'self.conn.execute("INSERT INTO ledger VALUES (%s)", (amount,))') in found
    assert not any(line == "self.conn.commit()" for _, line in found)


def test_commit_without_autocommit_or_after_an_explicit_begin_still_blocks(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        import psycopg2
        import pymysql


        async def save(dsn, row):
            conn = psycopg2.connect(dsn)
            conn.cursor().execute("INSERT INTO t VALUES (%s)", (row,))
            conn.commit()


        async def save_mysql(row):
            link = pymysql.connect(host="db", autocommit=True)
            link.commit()


        async def save_batch(rows):
            lite = sqlite3.connect("batch.db", isolation_level=None)
            lite.execute("BEGIN")
            lite.executemany("INSERT INTO t VALUES (?)", rows)
            lite.commit()
    """)
    assert ("blocking_db", "conn.commit()") in found
    assert ("blocking_db", "link.commit()") in found
    assert ("blocking_db", "lite.commit()") in found


# -- slack_sdk's WebClient: every method is a Web API request, what it returns is data ------------------------------------

_SLACK = """
    import asyncio
    import os

    from slack_sdk import WebClient


    def _client() -> WebClient:
        return WebClient(token=os.environ["SLACK_TOKEN"])


    def list_rooms(cursor=None):
        return _client().conversations_list(limit=100, cursor=cursor)


    def file_meta(file_id):
        reply = _client().files_info(file=file_id)
        return reply.get("file", {})
"""


def test_a_slack_web_api_method_the_vocabulary_does_not_name_blocks(tmp_path):
    found = flagged(tmp_path, joined(_SLACK, """
        async def crawl():
            rooms = list_rooms()
            return [room.get("id") for room in rooms.get("channels", [])]
    """))
    assert ("blocking_http", "return _client().conversations_list(limit=100, cursor=cursor)") in found


def test_lookups_on_what_a_slack_call_returned_are_silent(tmp_path):
    found = flagged(tmp_path, joined(_SLACK, """
        async def crawl():
            page = list_rooms()
            rooms = page.get("channels", [])
            cursor = page.get("response_metadata", {}).get("next_cursor")
            return rooms, cursor


        async def on_file(file_id):
            meta = await asyncio.to_thread(file_meta, file_id)
            url = meta.get("url_private") or meta.get("permalink")
            return url, meta.get("mimetype")
    """))
    assert {line for _, line in found} == {"return _client().conversations_list(limit=100, cursor=cursor)"}


# -- a module global bound to one class or another in an if/else: either class's method may run ----------------------

_RANKERS = """
    import numpy as np
    import onnxruntime as ort


    class BigRanker:
        def __init__(self):
            self.session = ort.InferenceSession("big.onnx")

        def rank(self, rows):
            return self.session.run(None, {"x": np.asarray(rows)})[0]


    class TinyRanker:
        def rank(self, rows):
            return sorted(rows)
"""


def test_a_global_built_by_either_class_runs_the_first_branch_method_too(tmp_path):
    found = flagged_package(tmp_path, {"__init__.py": "", "rankers.py": _RANKERS, "app.py": """
        import os

        from fastapi import FastAPI

        from svc.rankers import BigRanker, TinyRanker

        app = FastAPI()
        if os.environ.get("RANKER", "big") == "big":
            ranker = BigRanker()
        else:
            ranker = TinyRanker()


        @app.post("/rank")
        async def rank(rows: list[float]):
            return {"order": ranker.rank(rows).tolist()}
    """})
    assert ("rankers.py", "blocking_cpu", 'return self.session.run(None, {"x": np.asarray(rows)})[0]') in found


def test_a_global_bound_to_one_class_whose_method_is_cheap_stays_silent(tmp_path):
    found = flagged_package(tmp_path, {"__init__.py": "", "rankers.py": _RANKERS, "app.py": """
        import os

        from fastapi import FastAPI

        from svc.rankers import TinyRanker

        app = FastAPI()
        if os.environ.get("RANKER") == "reverse":
            ranker = TinyRanker()
        else:
            ranker = None


        @app.post("/rank")
        async def rank(rows: list[float]):
            return {"order": ranker.rank(rows)}
    """})
    assert not any(path == "rankers.py" and "session.run" in line for path, _, line in found)


# -- a TensorFlow SavedModel's serving signature runs the model ------------------------------------------------------------

def test_calling_a_saved_model_signature_blocks(tmp_path):
    found = flagged(tmp_path, """
        import numpy as np
        import tensorflow as tf


        class Tagger:
            def __init__(self, folder):
                restored = tf.saved_model.load(folder)
                self._serve = restored.signatures["serving_default"]

            def tag(self, pixels):
                out = self._serve(tf.constant(np.asarray(pixels, dtype=np.float32)))
                return out["scores"].numpy().tolist()


        tagger = Tagger("/models/tagger/3")


        async def tag_image(pixels):
            return tagger.tag(pixels)
    """)
    assert ("blocking_cpu", "out = self._serve(tf.constant(np.asarray(pixels, dtype=np.float32)))") in found


def test_a_saved_model_loaded_at_startup_and_its_signature_keys_read_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import tensorflow as tf

        restored = tf.saved_model.load("/models/tagger/3")
        serve = restored.signatures["serving_default"]


        async def describe():
            return {"inputs": list(restored.signatures.keys()), "name": serve.name}
    """)
    assert found == set()


# -- an untyped image saved into a file on disk --------------------------------------------------------------------------

def test_an_untyped_image_saved_into_a_temporary_file_blocks(tmp_path):
    found = flagged(tmp_path, """
        import tempfile

        import PIL

        from painter import paint


        async def reply_with_picture(room, prompt):
            picture = paint(prompt)
            handle = tempfile.NamedTemporaryFile(suffix=".png")
            picture.save(handle, format="png")
            await room.upload(handle.name)
    """)
    assert ("blocking_file_io", 'picture.save(handle, format="png")') in found


def test_an_untyped_save_without_an_image_format_or_into_memory_is_not_a_file_write(tmp_path):
    found = flagged(tmp_path, """
        import io

        from painter import paint, store


        async def keep(prompt, handle):
            picture = paint(prompt)
            picture.save(handle, format="png")
            store.save(handle, "draft")
    """)
    assert found == set()


# -- writing into a child process's stdin pipe -------------------------------------------------------------------------

def test_writing_to_a_child_process_stdin_pipe_blocks(tmp_path):
    found = flagged(tmp_path, """
        import subprocess


        class Transcriber:
            def __init__(self):
                self.child = subprocess.Popen(["./transcribe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              text=True)

            def feed(self, chunk: bytes):
                self.child.stdin.buffer.write(chunk)
                self.child.stdin.flush()


        transcriber = Transcriber()


        async def on_audio(chunk: bytes):
            transcriber.feed(chunk)
    """)
    assert ("blocking_subprocess", "self.child.stdin.buffer.write(chunk)") in found


def test_writing_to_an_asyncio_child_process_stdin_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio


        async def on_audio(chunk: bytes):
            child = await asyncio.create_subprocess_exec("./transcribe", stdin=asyncio.subprocess.PIPE)
            child.stdin.write(chunk)
            await child.stdin.drain()
    """)
    assert found == set()


# -- the plain store method of an otherwise async Matrix client -----------------------------------------------------------

def test_loading_the_matrix_client_store_blocks_and_its_coroutines_do_not(tmp_path):
    found = flagged(tmp_path, """
        from nio import AsyncClient


        async def run(settings):
            client = AsyncClient(settings.homeserver, settings.user, store_path=settings.store)
            client.restore_login(settings.user, settings.device, settings.token)
            client.load_store()
            await client.keys_upload()
            await client.sync_forever(timeout=30000)
    """)
    assert found == {("blocking_db", "client.load_store()")}


# -- a plain def startup/shutdown handler of a Starlette/FastAPI app runs on the loop -----------------------------------

_SCHEMA = """
    import sqlite3

    from fastapi import FastAPI

    app = FastAPI()


    def create_schema():
        db = sqlite3.connect("jobs.db")
        db.execute("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY)")
"""


def test_a_plain_startup_handler_runs_its_schema_setup_on_the_loop(tmp_path):
    found = flagged(tmp_path, joined(_SCHEMA, """
        @app.on_event("startup")
        def prepare() -> None:
            create_schema()
    """))
    assert ("blocking_db", 'db = sqlite3.connect("jobs.db")') in found


def test_a_plain_shutdown_handler_added_by_call_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, joined(_SCHEMA, """
        def close_down() -> None:
            create_schema()


        app.add_event_handler("shutdown", close_down)
    """))
    assert ("blocking_db", 'db = sqlite3.connect("jobs.db")') in found


def test_a_plain_startup_handler_of_an_app_with_a_lifespan_never_runs(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        from contextlib import asynccontextmanager

        from fastapi import FastAPI


        @asynccontextmanager
        async def lifespan(app):
            yield


        app = FastAPI(lifespan=lifespan)


        @app.on_event("startup")
        def prepare() -> None:
            sqlite3.connect("jobs.db").execute("CREATE TABLE IF NOT EXISTS jobs (id TEXT)")
    """)
    assert found == set()


def test_a_plain_endpoint_and_a_plain_function_no_app_registers_stay_silent(tmp_path):
    found = flagged(tmp_path, joined(_SCHEMA, """
        import atexit


        @app.get("/jobs")
        def jobs() -> list:
            create_schema()
            return []


        def on_exit() -> None:
            create_schema()


        atexit.register(on_exit)
    """))
    assert found == set()


def test_lookups_on_data_an_llm_sdk_response_gave_are_silent_and_its_requests_block(tmp_path):
    found = flagged(tmp_path, """
        from google import genai
        from groq import Groq

        groq_client = Groq()
        gemini = genai.Client()


        async def answer(question):
            reply = groq_client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}])
            payload = reply.model_dump()
            usage = reply.usage.to_dict()
            chat = gemini.chats.create(model="g")
            follow_up = chat.send_message(question)
            return payload.get("choices"), usage.get("total_tokens"), follow_up.text
    """)
    lines = {line for _, line in found}
    assert "follow_up = chat.send_message(question)" in lines
    assert not any(".get(" in line for line in lines)
