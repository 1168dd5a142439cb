"""check blocking: kinds first seen on unseen services in waves 14-16 (issue 17) -- SQLCipher's sqlite3 modules
behind an if/else import, ``self.b = self.a.x()`` written before ``self.a`` is typed, SQLAlchemy's
``scoped_session``, grequests, FAISS index files, a ``stream=True`` call opened in a worker thread but iterated on
the loop (wave 14); FastAPI ``Depends`` (15); tokenizer files (16). Each blocker is found at its line; each healthy
look-alike (the async driver, the offloaded call) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_sqlcipher_or_sqlite_connection_chosen_by_an_if_blocks(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import os

        if os.environ.get("ENCRYPT"):
            from pysqlcipher3 import dbapi2 as sqlite3
        else:
            import sqlite3

        class Store:
            def __init__(self, path):
                self.connect = sqlite3.connect(path)
                self.cursor = self.connect.cursor()

            def count(self):
                return self.cursor.execute("SELECT count(*) FROM items").fetchone()

        store = Store("shop.db")

        async def on_message(text):
            return store.count()

        async def on_message_off_loop(text):
            return await asyncio.to_thread(store.count)
    """)
    assert found == {("blocking_db", 'return self.cursor.execute("SELECT count(*) FROM items").fetchone()')}


def test_a_scoped_session_proxies_its_session_and_an_async_session_does_not_block(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import create_engine
        from sqlalchemy.ext.asyncio import AsyncSession
        from sqlalchemy.orm import scoped_session, sessionmaker

        def start() -> scoped_session:
            return scoped_session(sessionmaker(bind=create_engine("sqlite:///files.db")))

        SESSION = start()

        async def get_flag(user_id, model):
            row = SESSION.query(model).get(user_id)
            SESSION.commit()
            return row

        async def get_flag_async(db: AsyncSession, user_id, model):
            return await db.get(model, user_id)
    """)
    assert found == {("blocking_db", "row = SESSION.query(model).get(user_id)"), ("blocking_db", "SESSION.commit()")}


def test_grequests_map_waits_and_creating_the_requests_does_not(tmp_path):
    found = flagged(tmp_path, """
        import grequests

        async def prices(urls):
            pending = [grequests.get(u) for u in urls]
            return grequests.map(pending)
    """)
    assert found == {("blocking_http", "return grequests.map(pending)")}


def test_reading_a_faiss_index_blocks_and_reading_it_off_the_loop_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import faiss

        async def search(query, path):
            index = faiss.read_index(path)
            return index.search(query, 5)

        async def search_off_loop(query, path):
            index = await asyncio.to_thread(faiss.read_index, path)
            return await asyncio.to_thread(index.search, query, 5)
    """)
    assert found == {("blocking_file_io", "index = faiss.read_index(path)"),
                     ("blocking_cpu", "return index.search(query, 5)")}


def test_a_stream_opened_in_a_thread_but_iterated_on_the_loop_blocks_and_one_consumed_in_the_thread_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from llama_cpp import Llama
        from openai import OpenAI

        llm = Llama(model_path="m.gguf")
        client = OpenAI()

        async def tokens(prompt):
            def open_stream():
                return llm(prompt=prompt, stream=True)

            stream = await asyncio.get_running_loop().run_in_executor(None, open_stream)
            for chunk in stream:
                yield chunk["choices"][0]["text"]

        async def chat(messages):
            stream = await asyncio.to_thread(client.chat.completions.create, model="m", messages=messages,
                                             stream=True)
            for chunk in stream:
                yield chunk

        async def whole(prompt):
            chunks = await asyncio.to_thread(lambda: list(llm(prompt=prompt, stream=True)))
            for chunk in chunks:
                yield chunk

        async def not_a_stream(prompt):
            result = await asyncio.to_thread(llm, prompt=prompt)
            for choice in result["choices"]:
                yield choice
    """)
    assert found == {("blocking_cpu", "for chunk in stream:"), ("blocking_http", "for chunk in stream:")}


def test_a_fastapi_dependency_passes_what_it_yields_whatever_the_annotation_says(tmp_path):
    found = flagged(tmp_path, """
        from fastapi import Depends, FastAPI
        from requests import Session  # the wrong Session: FastAPI passes what get_db yields
        from sqlalchemy import create_engine
        from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
        from sqlalchemy.orm import sessionmaker

        app = FastAPI()
        SessionLocal = sessionmaker(bind=create_engine("sqlite:///app.db"))
        AsyncSessionLocal = async_sessionmaker(create_async_engine("sqlite+aiosqlite:///app.db"))

        def get_db():
            db = SessionLocal()
            try:
                yield db
            finally:
                db.close()

        async def get_async_db():
            async with AsyncSessionLocal() as db:
                yield db

        @app.get("/sync-session")
        async def rows(db: Session = Depends(get_db)):
            return db.execute("SELECT 1").all()

        @app.get("/async-session")
        async def rows_async(db: AsyncSession = Depends(get_async_db)):
            return (await db.execute("SELECT 1")).all()

        @app.get("/threadpool")
        def rows_in_threadpool(db: Session = Depends(get_db)):
            return db.execute("SELECT 2").all()
    """)
    assert found == {("blocking_db", 'return db.execute("SELECT 1").all()')}


def test_reading_a_tokenizer_file_blocks_and_encoding_with_a_loaded_one_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from tokenizers import Tokenizer

        TOKENIZER = Tokenizer.from_file("tokenizer.json")

        async def count(text):
            return len(TOKENIZER.encode(text).ids)

        async def count_with(path, text):
            tokenizer = Tokenizer.from_file(path)
            return len(tokenizer.encode(text).ids)

        async def count_with_off_loop(path, text):
            tokenizer = await asyncio.to_thread(Tokenizer.from_file, path)
            return len(tokenizer.encode(text).ids)
    """)
    assert found == {("blocking_file_io", "tokenizer = Tokenizer.from_file(path)")}
