"""check blocking: the flows wave 32 left hidden -- a module kept on ``self`` and read back, a model class loaded with
its loader classmethod, an unread response body read later, a list of shutdown steps handed to a hook factory. Each
blocker is found at its line; each look-alike (an offloaded call, a non-blocking argument, a module that is not one)
stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_module_kept_on_self_is_that_module(tmp_path):
    found = flagged(tmp_path, """
        class Scorer:
            def __init__(self, net):
                import numpy as np
                import torch
                self._np = np
                self._torch = torch
                self.net = net

            async def score(self, batch, table_path):
                torch = self._torch
                table = self._np.load(table_path)
                with torch.no_grad():
                    out = self.net(batch)
                return out, table
    """)
    assert found == {("blocking_file_io", "table = self._np.load(table_path)"),
                     ("blocking_cpu", "out = self.net(batch)")}


def test_an_attribute_that_holds_something_else_or_is_offloaded_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import json

        class Scorer:
            def __init__(self, net, fast):
                import numpy as np
                from torch import no_grad
                self._np = np
                self._guard = no_grad
                self._json = json
                self.net = net
                self._mixed = np if fast else json

            async def score(self, batch, table_path):
                table = await asyncio.to_thread(self._np.load, table_path)
                with self._guard():
                    shown = self._json.dumps({"n": len(batch)})
                loaded = self._mixed.load(table_path)
                return table, shown, loaded
    """)
    assert found == set()


def test_a_model_class_loaded_from_a_repository_runs_in_its_inference_methods(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        REPO = "acme/Speechy"

        class Synth:
            def __init__(self):
                from speechy.models import Speechy, SpeechyTokenizer
                model = Speechy.from_pretrained(REPO)
                model.eval()
                self._model = model
                self._tok = SpeechyTokenizer.from_pretrained(REPO)

            async def speak(self, text):
                ids = self._tok.encode(text)
                rate = self._model.config.sample_rate
                offloaded = await asyncio.to_thread(self._model.generate, ids)
                return self._model.generate(ids), rate, offloaded
    """)
    assert found == {("blocking_cpu", "return self._model.generate(ids), rate, offloaded")}


def test_an_unread_object_body_is_read_where_the_code_reads_it(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from minio import Minio

        class Files:
            def __init__(self):
                self.client = Minio("store:9000", access_key="k", secret_key="s")

            def _open(self, key):
                return self.client.get_object("docs", key)

            async def download(self, key):
                resp = await asyncio.to_thread(self._open, key)
                try:
                    return resp.read()
                finally:
                    resp.close()
                    resp.release_conn()
    """)
    assert found == {("blocking_http", "return resp.read()")}


def test_a_preloaded_urllib3_response_and_an_offloaded_read_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import urllib3
        from minio import Minio

        POOL = urllib3.PoolManager()

        class Files:
            def __init__(self):
                self.client = Minio("store:9000", access_key="k", secret_key="s")

            def _fetch(self, key):
                resp = self.client.get_object("docs", key)
                return resp.read()

            async def download(self, key, answer):
                body = await asyncio.to_thread(self._fetch, key)
                text = answer.read()
                return body, text
    """)
    assert found == set()


def test_blocking_steps_in_a_list_passed_to_a_hook_factory_block_in_the_hook(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from concurrent.futures import ProcessPoolExecutor
        from functools import partial

        def make_cleanup(steps):
            async def cleanup(app):
                for step in steps:
                    done = step()
                    if asyncio.iscoroutine(done):
                        await done
            return cleanup

        async def build(app, notifier):
            pool = ProcessPoolExecutor(4)
            app.on_cleanup.append(make_cleanup([partial(pool.shutdown, wait=True), notifier.aclose]))
            return app
    """)
    assert found == {("blocking_task", "done = step()")}


def test_non_blocking_steps_in_a_passed_list_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from concurrent.futures import ProcessPoolExecutor
        from functools import partial

        def make_cleanup(steps):
            async def cleanup(app):
                for step in steps:
                    done = step()
                    if asyncio.iscoroutine(done):
                        await done
            return cleanup

        async def build(app, notifier):
            pool = ProcessPoolExecutor(4)
            app.on_cleanup.append(make_cleanup([partial(pool.shutdown, wait=False), notifier.aclose]))
            return app
    """)
    assert found == set()


def test_a_generator_offloaded_to_a_thread_still_runs_where_it_is_iterated(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import sqlite3

        def rows(path):
            conn = sqlite3.connect(path)
            for row in conn.execute("select id, body from notes"):
                yield row

        async def export(path):
            out = []
            for row in await asyncio.to_thread(rows, path):
                out.append(row)
            pending = await asyncio.to_thread(rows, path)
            return out, list(pending)
    """)
    assert found == {("blocking_db", "conn = sqlite3.connect(path)"),
                     ("blocking_db", 'for row in conn.execute("select id, body from notes"):')}


def test_a_list_built_in_the_thread_or_a_generator_handed_on_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import sqlite3
        from starlette.responses import StreamingResponse

        def rows(path):
            conn = sqlite3.connect(path)
            for row in conn.execute("select id, body from notes"):
                yield row

        def all_rows(path):
            return list(rows(path))

        async def export(path):
            out = await asyncio.to_thread(all_rows, path)
            stream = await asyncio.to_thread(rows, path)
            return out, StreamingResponse(stream)
    """)
    assert found == set()
