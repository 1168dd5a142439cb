"""check blocking: synchronous clients (databases, HTTP SDKs, task queues, model calls), types followed into
classes, functions passed as values, and offloading -- each blocker found at its line, each healthy
look-alike silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from tests.detect.blocking_source import flagged


def test_database_drivers_and_orms(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3
        import pymongo
        import redis
        from sqlalchemy.orm import Session
        from fastapi import Depends, FastAPI

        app = FastAPI()
        cache = redis.Redis(host="cache")
        orders = pymongo.MongoClient("mongodb://db")["shop"]["orders"]

        @app.get("/count")
        async def count(session: Session = Depends()):
            total = session.query(int).count()
            rows = session.execute("select 1")
            return total, rows

        async def remember(key):
            conn = sqlite3.connect("app.db")
            conn.execute("insert into seen values (?)", (key,))
            cache.set(key, 1)
            pipe = cache.pipeline()
            return orders.find_one({"k": key})

        @app.get("/count-sync")
        def count_in_threadpool(session: Session = Depends()):
            return session.query(int).count()
    """)
    assert found == {
        ("blocking_db", "total = session.query(int).count()"), ("blocking_db", 'rows = session.execute("select 1")'),
        ("blocking_db", 'conn = sqlite3.connect("app.db")'),
        ("blocking_db", 'conn.execute("insert into seen values (?)", (key,))'), ("blocking_db", "cache.set(key, 1)"),
        ("blocking_db", 'return orders.find_one({"k": key})')}  # pipeline() sends nothing; the def endpoint is pooled


def test_sqlalchemy_sessionmaker_and_the_fluent_query_api(tmp_path):
    found = flagged(tmp_path, """
        from sqlalchemy import create_engine
        from sqlalchemy.orm import sessionmaker

        engine = create_engine("sqlite:///app.db")
        SessionLocal = sessionmaker(bind=engine)

        async def newest(user_id):
            db = SessionLocal()
            row = db.query(int).filter(user_id == 1).order_by(user_id).first()
            query = db.query(int).filter(user_id == 2)
            with engine.connect() as conn:
                conn.execute("select 1")
            return row, query
    """)
    assert found == {("blocking_db", "row = db.query(int).filter(user_id == 1).order_by(user_id).first()"),
                     ("blocking_db", "with engine.connect() as conn:"), ("blocking_db", 'conn.execute("select 1")')}


def test_async_clients_of_the_same_libraries_are_silent(tmp_path):
    assert flagged(tmp_path, """
        import httpx
        import redis.asyncio as aredis
        from openai import AsyncOpenAI
        from sqlalchemy.ext.asyncio import AsyncSession

        client = AsyncOpenAI()
        store = aredis.Redis()

        async def answer(question, session: AsyncSession):
            async with httpx.AsyncClient() as http:
                page = await http.get("https://example.org")
            await store.set("q", question)
            await session.execute("select 1")
            reply = await client.chat.completions.create(model="m", messages=[])
            return page, reply
    """) == set()


def test_http_sdks_openai_boto3_and_langchain(tmp_path):
    found = flagged(tmp_path, """
        import boto3
        import openai
        from openai import OpenAI
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_openai import ChatOpenAI

        llm = OpenAI()
        s3 = boto3.client("s3")

        async def summarise(text):
            chat = llm.chat.completions.create(model="m", messages=[text])
            legacy = openai.ChatCompletion.create(model="m", messages=[])
            s3.put_object(Bucket="b", Key="k", Body=text)
            pages = s3.get_paginator("list_objects_v2")
            chain = ChatPromptTemplate.from_template("{t}") | ChatOpenAI()
            short = chain.invoke({"t": text})
            later = await chain.ainvoke({"t": text})
            return chat, legacy, pages, short, later
    """)
    assert found == {
        ("blocking_http", 'chat = llm.chat.completions.create(model="m", messages=[text])'),
        ("blocking_http", 'legacy = openai.ChatCompletion.create(model="m", messages=[])'),
        ("blocking_http", 's3.put_object(Bucket="b", Key="k", Body=text)'),
        ("blocking_http", 'short = chain.invoke({"t": text})')}


def test_celery_results_waited_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from celery import Celery
        from celery.result import AsyncResult

        app = Celery("jobs")

        @app.task
        def resize(image_id):
            return image_id

        async def handle(image_id, job_id):
            resized = resize.delay(image_id).get(timeout=10)
            AsyncResult(job_id).get()
            pending = resize.delay(image_id)
            return resized, pending.id
    """)
    assert found == {("blocking_task", "resized = resize.delay(image_id).get(timeout=10)"),
                     ("blocking_task", "AsyncResult(job_id).get()"),
                     # sending publishes to the broker on the loop: a blocker since stop 33 (blocking/tasks.py)
                     ("blocking_socket_io", "resized = resize.delay(image_id).get(timeout=10)"),
                     ("blocking_socket_io", "pending = resize.delay(image_id)")}


def test_model_calls_pipeline_keras_llama_cpp(tmp_path):
    found = flagged(tmp_path, """
        import keras
        from llama_cpp import Llama
        from transformers import pipeline

        classify = pipeline("sentiment-analysis")
        net = keras.models.load_model("net.keras")
        llm = Llama(model_path="m.gguf")

        async def score(text, pixels):
            label = classify(text)
            probs = net.predict(pixels)
            out = llm.create_chat_completion(messages=[{"role": "user", "content": text}])
            return label, probs, out
    """)
    assert found == {("blocking_cpu", "label = classify(text)"), ("blocking_cpu", "probs = net.predict(pixels)"),
                     ("blocking_cpu", 'out = llm.create_chat_completion(messages=[{"role": "user", "content": text}])')}


def test_types_followed_into_classes_and_functions_passed_as_values(tmp_path):
    found = flagged(tmp_path, """
        import functools
        import time
        import joblib
        import requests

        class Store:
            def load(self, key):
                return requests.get(f"https://store/{key}").json()

        class Cache:
            def __init__(self):
                self.store = Store()

            @classmethod
            def build(cls):
                return cls()

        def make_store() -> Store:
            return Store()

        async def by_annotation(store: Store):
            return store.load("a")

        async def by_attribute(cache: Cache):
            return cache.store.load("b")

        async def by_return_type():
            return make_store().load("c")

        async def by_default(path, loader=joblib.load):
            return loader(path)

        async def by_partial_and_getattr(session: requests.Session):
            pause = functools.partial(time.sleep, 0.5)
            pause()
            return getattr(session, "get")("https://x")

        async def by_classmethod():
            return Cache.build()
    """)
    assert found == {("blocking_http", 'return requests.get(f"https://store/{key}").json()'),
                     ("blocking_file_io", "return loader(path)"), ("blocking_sleep", "pause()"),
                     ("blocking_http", 'return getattr(session, "get")("https://x")')}


def test_offloaded_calls_stay_healthy_but_an_objects_own_async_submit_does_not_offload(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import functools
        import time
        from concurrent.futures import ThreadPoolExecutor

        import anyio.to_thread
        import requests
        from starlette.concurrency import run_in_threadpool

        pool = ThreadPoolExecutor(2)

        class Batcher:
            async def submit(self, job):
                return job()

        async def healthy(url):
            await asyncio.to_thread(requests.get, url)
            await asyncio.get_running_loop().run_in_executor(None, functools.partial(time.sleep, 1))
            await anyio.to_thread.run_sync(lambda: requests.get(url))
            await run_in_threadpool(requests.post, url)
            pool.submit(lambda: time.sleep(1))

        async def not_an_executor(batcher: Batcher):
            await batcher.submit(lambda: time.sleep(2))
    """)
    assert found == {("blocking_sleep", "await batcher.submit(lambda: time.sleep(2))")}


def test_vocabulary_entries_name_their_source_and_load_through_the_entry_point_group():
    from faultlib.detect.serving.blocking import vocab

    merged = vocab.vocabulary()
    assert all(source.startswith("https://") for _, source in merged.calls.values())
    assert all(f.source.startswith("https://") for f in merged.families)
    assert merged.failed == () and set(merged.plugins) >= {"stdlib", "http_clients", "databases", "cloud_and_tasks",
                                                            "models"}


def test_a_third_party_vocabulary_registers_through_the_entry_point_group(tmp_path, monkeypatch):
    import importlib.metadata as metadata

    from faultlib.detect.serving.blocking import vocab

    (tmp_path / "acme_vocab.py").write_text(textwrap.dedent("""
        from faultlib.detect.serving.blocking.vocab import Family, Vocabulary
        VOCAB = Vocabulary(calls={"acme.fetch": ("blocking_http", "https://acme.example/sync")},
                           families=(Family(("acme.Client",), {"query": "blocking_db"}, "https://acme.example/c"),),
                           returns={"acme.connect": "acme.Client"})
        NOT_A_TABLE = 3
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    extra = [metadata.EntryPoint("acme", "acme_vocab:VOCAB", vocab.ENTRY_POINT_GROUP),
             metadata.EntryPoint("broken", "acme_vocab:NOT_A_TABLE", vocab.ENTRY_POINT_GROUP)]
    real = metadata.entry_points
    monkeypatch.setattr(metadata, "entry_points",
                        lambda **kw: [*real(**kw), *(extra if kw.get("group") == vocab.ENTRY_POINT_GROUP else [])])
    vocab.vocabulary.cache_clear()
    try:
        with pytest.warns(UserWarning, match="broken"):
            merged = vocab.vocabulary()
        assert "acme" in merged.plugins and merged.failed and "broken" in merged.failed[0]
        found = flagged(tmp_path, """
            import acme

            async def handler():
                acme.fetch()
                acme.connect().query("x")
                await acme.connect().other()
        """)
        assert found == {("blocking_http", "acme.fetch()"), ("blocking_db", 'acme.connect().query("x")')}
    finally:
        vocab.vocabulary.cache_clear()


def test_paths_built_with_slash_and_google_api_requests(tmp_path):
    found = flagged(tmp_path, """
        from pathlib import Path
        from googleapiclient.discovery import build

        HERE = Path(__file__).parent

        async def manifest():
            with (HERE / "manifest.json").open() as fh:
                text = fh.read()
            people = build("people", "v1")
            me = people.people().get(resourceName="people/me").execute()
            request = people.people().get(resourceName="people/me")
            return text, me, request
    """)
    assert found == {("blocking_file_io", 'with (HERE / "manifest.json").open() as fh:'),
                     ("blocking_file_io", 'people = build("people", "v1")'),  # loads the discovery document
                     ("blocking_http", 'me = people.people().get(resourceName="people/me").execute()')}


def test_a_sync_fallback_behind_hasattr_of_the_async_twin_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from langchain_openai import ChatOpenAI

        async def ask(tool, question):
            if hasattr(tool, "ainvoke"):
                answer = await tool.ainvoke(question)
            elif hasattr(tool, "invoke"):
                answer = tool.invoke(question)
            model = ChatOpenAI()
            if hasattr(model, "astream"):
                pass
            else:
                model.invoke(question)
            model.invoke(question)
            return answer
    """)
    assert found == {("blocking_http", "model.invoke(question)")}
