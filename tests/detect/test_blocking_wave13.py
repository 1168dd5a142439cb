"""check blocking: kinds first seen on unseen services in wave 13 (issue 17) -- a sessionmaker imported from
another module and called there, ``typing.Protocol`` implementations that do not subclass the protocol, DuckDB,
fastapi-pagination's sync ``paginate``, Apple MLX generation, the mem0 client, and SQLAlchemy listeners that run
inside a commit's flush. Each blocker is found at its line; each healthy look-alike (the async twin, the
offloaded call) stays silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def _package(tmp_path, files: dict[str, str]) -> set[tuple[str, str, str]]:
    """``(file, kind, stripped line)`` of every finding over a package written from ``files``."""
    root = tmp_path / "svc"
    for name, source in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(source))
    report = analyze_path(root)
    assert report.complete
    return {(f.location["file"].rpartition("svc/")[2], f.kind,
             (root / f.location["file"].rpartition("svc/")[2]).read_text().splitlines()[f.location["line"] - 1].strip())
            for f in report.findings}


def test_a_session_factory_imported_from_another_module_makes_sync_sessions(tmp_path):
    found = _package(tmp_path, {
        "__init__.py": "",
        "database.py": """
            from sqlalchemy import create_engine
            from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine
            from sqlalchemy.orm import sessionmaker

            SessionLocal = sessionmaker(bind=create_engine("sqlite:///app.db"))
            AsyncSessionLocal = async_sessionmaker(create_async_engine("sqlite+aiosqlite:///app.db"))
        """,
        "tools.py": """
            from svc.database import AsyncSessionLocal, SessionLocal

            async def count_users():
                db = SessionLocal()
                try:
                    return db.execute("SELECT count(*) FROM users").scalar()
                finally:
                    db.close()

            async def count_users_async():
                async with AsyncSessionLocal() as db:
                    return (await db.execute("SELECT count(*) FROM users")).scalar()
        """,
    })
    assert found == {("tools.py", "blocking_db", 'return db.execute("SELECT count(*) FROM users").scalar()')}


def test_a_protocol_call_runs_the_classes_that_implement_it_without_subclassing(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from typing import Protocol
        import duckdb

        class Warehouse(Protocol):
            def run(self, sql: str) -> list: ...
            def tables(self) -> list: ...

        class DuckWarehouse:
            def __init__(self, path):
                self.conn = duckdb.connect(path)

            def run(self, sql):
                return self.conn.execute(sql).fetchall()

            def tables(self):
                return ["t"]

        class Other:
            def run(self, sql):
                return sql

        def make_tools(store: Warehouse):
            async def query(sql):
                return store.run(sql)

            async def query_off_loop(sql):
                return await asyncio.to_thread(store.run, sql)

            return query, query_off_loop
    """)
    # Other lacks `tables`: it does not implement Warehouse, and its own run blocks nothing anyway
    assert found == {("blocking_db", "return self.conn.execute(sql).fetchall()")}


def test_duckdb_queries_block_and_an_offloaded_query_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import duckdb

        con = duckdb.connect("analytics.duckdb")

        async def top(n):
            return con.sql(f"SELECT * FROM events LIMIT {n}").fetchall()

        async def top_off_loop(n):
            return await asyncio.to_thread(lambda: con.sql(f"SELECT * FROM events LIMIT {n}").fetchall())
    """)
    assert found == {("blocking_db", 'return con.sql(f"SELECT * FROM events LIMIT {n}").fetchall()')}


def test_fastapi_pagination_sync_paginate_blocks_and_awaited_apaginate_does_not(tmp_path):
    found = flagged(tmp_path, """
        from fastapi_pagination.ext.sqlalchemy import apaginate, paginate
        from sqlalchemy import select

        async def list_items(db, async_db):
            page = paginate(db, select(1))
            other = await apaginate(async_db, select(1))
            return page, other
    """)
    assert found == {("blocking_db", "page = paginate(db, select(1))")}


def test_mlx_generation_blocks_and_the_offloaded_generation_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from mlx_lm import generate, load

        model, tokenizer = None, None

        async def startup():
            global model, tokenizer
            model, tokenizer = await asyncio.to_thread(load, "some/model")

        async def complete(prompt):
            return generate(model, tokenizer, prompt=prompt, max_tokens=64)

        async def complete_off_loop(prompt):
            return await asyncio.to_thread(generate, model, tokenizer, prompt=prompt)
    """)
    assert found == {("blocking_cpu", "return generate(model, tokenizer, prompt=prompt, max_tokens=64)")}


def test_the_sync_mem0_client_blocks_and_the_async_one_does_not(tmp_path):
    found = flagged(tmp_path, """
        from mem0 import AsyncMemory, Memory

        memory = Memory()
        async_memory = AsyncMemory()

        async def remember(text, user):
            return memory.add(text, user_id=user)

        async def recall(query, user):
            return await async_memory.search(query, user_id=user)
    """)
    assert found == {("blocking_http", "return memory.add(text, user_id=user)")}


def test_listeners_of_flush_events_run_inside_a_sync_commit(tmp_path):
    found = flagged(tmp_path, """
        import time

        from openai import OpenAI
        from sqlalchemy import event
        from sqlalchemy.orm import Session

        client = OpenAI()

        class Note:
            pass

        def describe(note):
            return client.chat.completions.create(model="m", messages=[])

        @event.listens_for(Note, "after_insert")
        def tag(mapper, connection, target):
            describe(target)

        @event.listens_for(Note, "load")
        def loaded(target, context):
            time.sleep(1)

        async def save(db: Session, note):
            db.add(note)
            db.commit()

        async def read(db: Session, note_id):
            return db.get(Note, note_id)
    """)
    # `load` is no flush event: it runs when rows are loaded, which this rule does not follow
    assert found == {("blocking_db", "db.commit()"), ("blocking_db", "return db.get(Note, note_id)"),
                     ("blocking_http", 'return client.chat.completions.create(model="m", messages=[])')}


def test_getattr_with_a_literal_name_and_a_default_has_the_attribute_type(tmp_path):
    found = flagged(tmp_path, """
        from mem0 import AsyncMemory, Memory

        client = Memory()
        async_client = AsyncMemory()

        async def restore(vec, payload):
            store = getattr(client, "vector_store", None) if client else None
            store.insert(vectors=[vec], payloads=[payload])

        async def restore_async(query):
            memories = getattr(async_client, "search", None)
            return await memories(query)
    """)
    assert found == {("blocking_http", "store.insert(vectors=[vec], payloads=[payload])")}
