"""check blocking: the flow kinds of held-out wave 31 (UDP sends, streams made off the loop and iterated on it,
the repository imported under its own name, framework callbacks run on the loop, names bound by an ImportError
shim, LlamaIndex handles). Each blocker is found at its line; each look-alike stays silent. Every example is
written for this test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_a_udp_send_on_a_socket_kept_on_self_is_silent_and_a_tcp_send_blocks(tmp_path):
    found = flagged(tmp_path, """
        import socket

        class Beacon:
            def open(self):
                self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)

            async def announce(self, payload, peer):
                self.udp.sendto(payload, peer)
                self.udp.send(payload)
                self.tcp.sendall(payload)
                self.tcp.send(payload)

            async def listen(self):
                return self.udp.recvfrom(2048)

        async def ping(host):
            probe = socket.socket(socket.AF_INET, type=socket.SOCK_DGRAM)
            probe.sendto(b"hi", (host, 9))
    """)
    assert found == {("blocking_socket_io", "self.tcp.sendall(payload)"),
                     ("blocking_socket_io", "self.tcp.send(payload)"),
                     ("blocking_socket_io", "return self.udp.recvfrom(2048)")}


def _tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _found(root):
    report = analyze_path(root)
    return {(Path(f.location["file"]).relative_to(root).as_posix(), f.location["line"]) for f in report.findings
            if f.kind.startswith("blocking_")}


def test_the_repository_imported_under_its_own_name_is_followed_and_a_library_of_the_same_shape_is_not(tmp_path):
    root = tmp_path / "recipes-main"  # a checkout whose folder name is no package name
    _tree(root, {
        "auth/keys.py": """
            import requests

            def fetch_keys(url):
                return requests.get(url).json()
        """,
        "utils/net.py": """
            def quote(text):
                return open(text).read()
        """,
        "app.py": """
            from recipes.auth.keys import fetch_keys
            from httpx.utils.net import quote

            async def on_login(url):
                return fetch_keys(url)

            async def on_name(text):
                return quote(text)
        """,
    })
    assert _found(root) == {("auth/keys.py", 5)}


def test_a_plain_chainlit_callback_runs_on_the_loop_and_a_plain_fastapi_endpoint_does_not(tmp_path):
    found = flagged(tmp_path, """
        import shutil
        import time
        import chainlit as cl
        from chainlit import action_callback
        from fastapi import FastAPI

        api = FastAPI()

        @cl.on_chat_end
        def tidy():
            shutil.rmtree("/srv/scratch")

        @action_callback("refresh")
        def refresh(action):
            time.sleep(3)

        @api.get("/report")
        def report():
            time.sleep(4)

        def helper():
            time.sleep(5)
    """)
    assert found == {("blocking_file_io", 'shutil.rmtree("/srv/scratch")'), ("blocking_sleep", "time.sleep(3)")}


def test_an_attribute_asserted_to_be_a_sqlalchemy_engine_through_an_import_shim_runs_a_query(tmp_path):
    root = tmp_path / "botsvc"
    _tree(root, {
        "__init__.py": "",
        "optional.py": """
            try:
                from sqlalchemy.engine import Engine
            except ImportError:
                class Missing:
                    pass
                Engine = Missing
        """,
        "store.py": """
            from typing import Optional

            class AsyncDb:
                async def execute(self, q):
                    return q

            class Holder:
                db: Optional[AsyncDb] = None
        """,
        "api.py": """
            from .optional import Engine
            from .store import Holder

            def run_sync(holder: Holder, q):
                assert isinstance(holder.db, Engine)
                return holder.db.execute(q)

            def run_other(holder: Holder, q):
                holder.db.execute(q)
                assert isinstance(holder.db, Engine)
                holder.db = None
                return holder.db.execute(q)

            async def handle(holder: Holder, q):
                run_other(holder, q)
                return run_sync(holder, q)
        """,
    })
    assert _found(root) == {("api.py", 7)}


def test_a_stream_made_in_a_thread_or_a_stream_handle_iterated_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import chainlit as cl

        @cl.on_message
        async def reply(message):
            chain = cl.user_session.get("chain")
            for piece in await cl.make_async(chain.stream)({"q": message.content}):
                await cl.Message(content=piece).send()

        async def complete(llm, prompt):
            parts = await asyncio.to_thread(llm.stream_complete, prompt)
            for part in parts:
                print(part.delta)

        async def answer(engine, question):
            res = await cl.make_async(engine.query)(question)
            for token in res.response_gen:
                print(token)

        async def quiet(chain, engine, llm, question):
            whole = await cl.make_async(chain.invoke)({"q": question})
            for word in whole:
                print(word)
            for chunk in await asyncio.to_thread(lambda: list(chain.stream({"q": question}))):
                print(chunk)
            async for chunk in chain.astream({"q": question}):
                print(chunk)
            res = await engine.aquery(question)
            async for token in res.async_response_gen():
                print(token)
    """)
    assert found == {("blocking_http", 'for piece in await cl.make_async(chain.stream)({"q": message.content}):'),
                     ("blocking_http", "for part in parts:"),
                     ("blocking_http", "for token in res.response_gen:")}


def test_llama_index_classmethods_and_the_handles_its_objects_return_run_their_named_calls(tmp_path):
    found = flagged(tmp_path, """
        from llama_index.core import Settings, StorageContext, VectorStoreIndex, load_index_from_storage

        async def build(docs):
            index = VectorStoreIndex.from_documents(docs)
            engine = index.as_query_engine(similarity_top_k=2)
            return engine.query("what changed?")

        async def reopen(ctx):
            stored = load_index_from_storage(ctx)
            return stored.as_chat_engine().chat("hello")

        async def quiet(index, question):
            engine = index.as_query_engine()
            ctx = StorageContext.from_defaults()
            settings = Settings.to_dict()
            answer = await index.as_query_engine().aquery(question)
            return engine, ctx, settings, answer
    """)
    assert found == {("blocking_http", "index = VectorStoreIndex.from_documents(docs)"),
                     ("blocking_http", 'return engine.query("what changed?")'),
                     ("blocking_file_io", "stored = load_index_from_storage(ctx)"),  # reads the persisted stores
                     ("blocking_http", 'return stored.as_chat_engine().chat("hello")')}
