"""check blocking: kinds first seen on unseen services in wave 28 (issue 17). Each blocker is found at its line;
each healthy look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_karton_backend_state_and_producer_calls_block(tmp_path):
    found = flagged(tmp_path, """
        from karton.core import Producer, Task
        from karton.core.backend import KartonBackend
        from karton.core.config import Config
        from karton.core.inspect import KartonState

        queue = Producer(identity="web")

        def list_modules():
            backend = KartonBackend(config=Config())
            return [bind.identity for bind in backend.get_binds()]

        async def purge(job_id):
            backend = KartonBackend(config=Config())
            for task in backend.get_all_tasks():
                if task.root_uid == job_id:
                    backend.delete_task(task)

        async def overview():
            state = KartonState(backend=KartonBackend(config=Config()))
            return list_modules(), len(state.queues)

        async def submit(target):
            task = Task({"type": "new"})
            task.add_payload("target", target)
            queue.send_task(task)
    """)
    assert ("blocking_db", "backend = KartonBackend(config=Config())") in found
    assert ("blocking_db", "return [bind.identity for bind in backend.get_binds()]") in found
    assert ("blocking_db", "for task in backend.get_all_tasks():") in found
    assert ("blocking_db", "backend.delete_task(task)") in found
    assert ("blocking_db", "state = KartonState(backend=KartonBackend(config=Config()))") in found
    assert ("blocking_db", "queue.send_task(task)") in found


def test_karton_from_a_thread_and_task_building_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from karton.core import Task
        from karton.core.backend import KartonBackend
        from karton.core.config import Config

        def purge(job_id):
            backend = KartonBackend(config=Config())
            for task in backend.get_all_tasks():
                if task.root_uid == job_id:
                    backend.delete_task(task)

        async def purge_endpoint(job_id):
            await asyncio.to_thread(purge, job_id)

        async def describe(target):
            task = Task({"type": "new"})
            task.add_payload("target", target)
            return task.headers
    """)
    assert found == set()


def test_opencv_and_pyav_codecs_block_also_through_a_class_kept_in_a_class_attribute(tmp_path):
    found = flagged(tmp_path, """
        import io
        import av
        import cv2
        import numpy as np

        class Decoder:
            @classmethod
            def load(cls, source):
                raise NotImplementedError

        class SoundDecoder(Decoder):
            @classmethod
            def load(cls, source):
                with av.open(source) as box:
                    return [frame for frame in box.decode(audio=0)]

        class PictureDecoder(Decoder):
            @staticmethod
            def load(source):
                return cv2.imdecode(np.frombuffer(source, np.uint8), cv2.IMREAD_COLOR)

        class Recording:
            decoder: type[Decoder] = SoundDecoder

            def __init__(self, where):
                self.where = where

            def samples(self):
                return self.decoder.load(self.where)

        class Snapshot:
            decoder = PictureDecoder

            def __init__(self, blob):
                self.blob = blob

            def pixels(self):
                return self.decoder.load(self.blob)

        async def listen(where):
            return Recording(where).samples()

        async def look(blob):
            return Snapshot(blob).pixels()

        async def thumbnail(path):
            return cv2.imread(path)
    """)
    assert ("blocking_file_io", "with av.open(source) as box:") in found
    assert ("blocking_cpu", "return cv2.imdecode(np.frombuffer(source, np.uint8), cv2.IMREAD_COLOR)") in found
    assert ("blocking_file_io", "return cv2.imread(path)") in found


def test_a_class_attribute_holding_a_harmless_class_or_offloaded_decoding_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import io
        import av
        import cv2

        class Upper:
            @staticmethod
            def load(text):
                return text.upper()

        class Note:
            reader = Upper
            label = "note"

            def __init__(self, text):
                self.text = text

            def read(self):
                return self.reader.load(self.text)

        async def show(text):
            return Note(text).read()

        async def thumbnail(path):
            return await asyncio.to_thread(cv2.imread, path)

        async def start_stream():
            return av.open(io.BytesIO(), "w", format="mp3"), av.open(io.BytesIO(), mode="w", format="adts")
    """)
    assert found == set()


def test_a_lambda_a_constructor_runs_at_once_or_a_plain_call_runs_still_blocks(tmp_path):
    found = flagged(tmp_path, """
        import time

        class Warmed:
            def __init__(self, warm):
                self.state = warm()

        def settle():
            time.sleep(1)

        async def start():
            cache = Warmed(lambda: settle())
            ordered = sorted([3, 1], key=lambda n: time.sleep(n))
            return cache, ordered
    """)
    assert ("blocking_sleep", "time.sleep(1)") in found
    assert ("blocking_sleep", "ordered = sorted([3, 1], key=lambda n: time.sleep(n))") in found


def test_a_lambda_a_constructor_keeps_for_its_thread_pool_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time
        from concurrent.futures import ThreadPoolExecutor

        class Batcher:
            def __init__(self, work, threads=2):
                self.work = work
                self.pool = ThreadPoolExecutor(threads)

            async def run(self, item):
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(self.pool, self.work, item)

        class Replica:
            def slow(self, item):
                time.sleep(item)
                return item

            async def configure(self):
                self.batcher = Batcher(work=lambda item: self.slow(item))
                self.spare = Batcher(lambda item: self.slow(item))

            async def handle(self, item):
                return await self.batcher.run(item)
    """)
    assert found == set()


def test_a_bound_client_method_every_caller_passes_runs_where_the_parameter_is_called(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Mirror:
            def __init__(self, base):
                self.http = requests.Session()
                self.base = base

            def _in_chunks(self, rows, send, size=50):
                for start in range(0, len(rows), size):
                    send(self.base, json=rows[start:start + size])

            async def push(self, rows):
                self._in_chunks(rows, send=self.http.post)

            async def replace(self, rows):
                self._in_chunks(rows, self.http.put)
    """)
    assert ("blocking_http", "send(self.base, json=rows[start:start + size])") in found


def test_a_harmless_bound_method_or_an_offloaded_helper_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import requests

        class Mirror:
            def __init__(self, base):
                self.http = requests.Session()
                self.kept = []
                self.base = base

            def _in_chunks(self, rows, send, size=50):
                for start in range(0, len(rows), size):
                    send(self.base, json=rows[start:start + size])

            def _collect(self, rows, keep):
                for row in rows:
                    keep(row)

            async def remember(self, rows):
                self._collect(rows, keep=self.kept.append)

            async def push(self, rows):
                await asyncio.to_thread(self._in_chunks, rows, self.http.post)
    """)
    assert found == set()


def test_saved_charts_rendered_graphs_and_in_process_engines_block(tmp_path):
    found = flagged(tmp_path, """
        import matplotlib.pyplot as plt
        import seaborn as sns
        from graphviz import Digraph
        from hqq.models.hf.base import AutoHQQHFModel
        from vllm import AsyncLLMEngine, AsyncEngineArgs

        def chart(rows, path):
            axes = sns.lineplot(x="day", y="score", data=rows)
            axes.figure.savefig(path)

        async def report(rows, path):
            chart(rows, path)
            plt.savefig(path + ".bak")

        async def tree(pairs, path):
            graph = Digraph("family")
            for parent, child in pairs:
                graph.edge(parent, child)
            graph.render(path, format="png")

        class Server:
            async def configure(self, name):
                self.engine = AsyncLLMEngine.from_engine_args(AsyncEngineArgs(model=name))
                self.small = AutoHQQHFModel.from_quantized(name)
    """)
    assert ("blocking_file_io", "axes.figure.savefig(path)") in found
    assert ("blocking_file_io", 'plt.savefig(path + ".bak")') in found
    assert ("blocking_subprocess", 'graph.render(path, format="png")') in found
    assert ("blocking_file_io", "self.engine = AsyncLLMEngine.from_engine_args(AsyncEngineArgs(model=name))") in found
    assert ("blocking_file_io", "self.small = AutoHQQHFModel.from_quantized(name)") in found


def test_building_charts_and_graphs_and_awaiting_the_engine_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import seaborn as sns
        from graphviz import Digraph

        def chart(rows, path):
            axes = sns.lineplot(x="day", y="score", data=rows)
            axes.figure.savefig(path)

        async def report(rows, path):
            await asyncio.to_thread(chart, rows, path)

        async def tree(pairs):
            graph = Digraph("family")
            for parent, child in pairs:
                graph.edge(parent, child)
            return graph.source

        class Server:
            def __init__(self, engine):
                self.engine = engine

            async def ask(self, prompt, params, rid):
                async for out in self.engine.generate(prompt, params, rid):
                    yield out
    """)
    assert found == set()


def test_a_pinecone_index_named_without_its_host_looks_it_up(tmp_path):
    found = flagged(tmp_path, """
        from pinecone import Pinecone

        class Search:
            def __init__(self, key, name):
                self.pc = Pinecone(api_key=key)
                self.name = name

            def index(self):
                return self.pc.Index(self.name)

            async def ask(self, vector):
                return self.index(), self.pc.Index("docs", host=None)
    """)
    assert ("blocking_http", "return self.pc.Index(self.name)") in found
    assert ("blocking_http", 'return self.index(), self.pc.Index("docs", host=None)') in found


def test_a_pinecone_index_given_its_host_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import os
        from pinecone import Pinecone

        HOST = os.environ["INDEX_HOST"]

        class Search:
            def __init__(self, key, name):
                self.pc = Pinecone(api_key=key)
                self.name = name

            async def ask(self):
                return self.pc.Index(self.name, HOST), self.pc.Index(name=self.name, host="https://docs-1.svc.io")
    """)
    assert found == set()


def test_a_subclass_that_keeps_its_library_base_call_or_classmethod_blocks_like_the_base(tmp_path):
    found = flagged(tmp_path, """
        from pyannote.audio.pipelines import VoiceActivityDetection
        from vllm import AsyncLLMEngine

        class Speech(VoiceActivityDetection):
            def apply(self, file, hook=None):
                return super().apply(file, hook=hook)

        class Engine(AsyncLLMEngine):
            pass

        class Service:
            def __init__(self, model):
                self.detector = Speech(segmentation=model)

            async def regions(self, audio):
                return self.detector(audio)

            async def start(self, args):
                self.engine = Engine.from_engine_args(args)
    """)
    assert ("blocking_cpu", "return self.detector(audio)") in found
    assert ("blocking_file_io", "self.engine = Engine.from_engine_args(args)") in found


def test_a_subclass_that_overrides_the_call_or_a_harmless_base_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from collections import OrderedDict
        from pyannote.audio.pipelines import VoiceActivityDetection

        class Cached(VoiceActivityDetection):
            def __call__(self, file):
                return self.cache.get(file)

        class Recent(OrderedDict):
            pass

        class Service:
            def __init__(self, model):
                self.detector = Cached(segmentation=model)
                self.recent = Recent()

            async def regions(self, audio):
                self.recent[audio] = True
                return self.detector(audio), Recent.fromkeys([audio])
    """)
    assert found == set()
