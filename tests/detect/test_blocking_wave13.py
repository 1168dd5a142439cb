"""check blocking: kinds first seen on unseen services in wave 13 (issue 17) -- SQLCipher's sqlite3 modules behind an
if/else import, ``self.b = self.a.x()`` typed in source order, SQLAlchemy's ``scoped_session``, grequests, and
FAISS index files. Each blocker is found at its line; each healthy look-alike (the async driver, the offloaded call)
stays silent. Every example is written for this test."""

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
