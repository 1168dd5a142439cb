"""check blocking: the kinds held-out wave 69 (issue 17; async crawlers, agents, voice and websocket servers) left,
fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

import textwrap

from tests.detect.blocking_source import flagged, flagged_package


# -- coroutines driven on a worker thread's own loop, through the base class or an untyped provider ----------------

_SPEAKER = """
    import asyncio
    import queue
    import threading

    import requests


    class Speaker:
        def __init__(self):
            self.lines = queue.Queue()

        async def start(self):
            threading.Thread(target=self.pump, daemon=True).start()

        def pump(self):
            while True:
                self.say(self.lines.get())

        def say(self, text):
            audio = asyncio.run(self.synthesize(text))
            return audio

        async def synthesize(self, text):
            raise NotImplementedError


    class CloudSpeaker(Speaker):
        async def synthesize(self, text):
            return requests.post("https://tts.example.org", json={"text": text}).content
"""


def test_asyncio_run_in_a_method_a_thread_target_calls_runs_the_override_off_the_loop(tmp_path):
    assert flagged(tmp_path, _SPEAKER) == set()


def test_the_same_override_awaited_by_a_server_coroutine_is_found(tmp_path):
    source = textwrap.dedent(_SPEAKER) + textwrap.dedent("""

        async def handle(ws, speaker: CloudSpeaker):
            await ws.send(await speaker.synthesize(await ws.recv()))
    """)
    assert ("blocking_http", 'return requests.post("https://tts.example.org", json={"text": text}).content') in \
        flagged(tmp_path, source)


def test_asyncio_run_in_a_helper_also_called_outside_threads_is_no_exemption(tmp_path):
    source = textwrap.dedent(_SPEAKER) + textwrap.dedent("""

        def cli(speaker: CloudSpeaker):
            speaker.say("hello")
    """)
    assert ("blocking_http", 'return requests.post("https://tts.example.org", json={"text": text}).content') in \
        flagged(tmp_path, source)


_MEMORY = """
    import asyncio
    import json
    from concurrent.futures import ThreadPoolExecutor

    POOL = ThreadPoolExecutor(2)


    class NoteStore:
        async def save(self, notes, session):
            with open(f"/var/notes/{session}.json", "w") as out:
                json.dump(notes, out)


    class Session:
        def __init__(self, store, sid):
            self.store = store
            self.sid = sid
            self.notes = []

        async def close(self):
            def save_job():
                loop = asyncio.new_event_loop()
                try:
                    loop.run_until_complete(self.store.save(self.notes, self.sid))
                finally:
                    loop.close()

            POOL.submit(save_job)
"""


def test_a_new_loop_in_a_submitted_closure_drives_an_untyped_providers_coroutine_off_the_loop(tmp_path):
    assert flagged(tmp_path, _MEMORY) == set()


def test_the_untyped_providers_coroutine_awaited_on_the_loop_is_found(tmp_path):
    source = _MEMORY.replace("            POOL.submit(save_job)",
                             "            POOL.submit(save_job)\n\n        async def flush(self):\n"
                             "            await self.store.save(self.notes, self.sid)")
    assert ("blocking_file_io", 'with open(f"/var/notes/{session}.json", "w") as out:') in flagged(tmp_path, source)


# -- synchronous RPC and process waits: a generated gRPC stub kept beside the client, pexpect, Celery's update_state

_STUB = """
    import grpc


    class ScoreStub(object):
        def __init__(self, channel):
            self.Score = channel.unary_unary("/score.Scorer/Score")
"""


def test_a_stub_generated_beside_the_client_on_a_sync_channel_is_a_remote_call(tmp_path):
    found = flagged_package(tmp_path, {
        "protos/__init__.py": "",
        "protos/score_pb2_grpc.py": _STUB,
        "client.py": """
            import grpc

            from protos import score_pb2_grpc


            async def score(request):
                channel = grpc.insecure_channel("scorer:50051")
                stub = score_pb2_grpc.ScoreStub(channel)
                return stub.Score(request)
        """,
    })
    assert ("client.py", "blocking_http", "return stub.Score(request)") in found


def test_the_same_stub_on_an_asyncio_channel_awaited_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "protos/__init__.py": "",
        "protos/score_pb2_grpc.py": _STUB,
        "client.py": """
            import grpc

            from protos import score_pb2_grpc


            async def score(request):
                channel = grpc.aio.insecure_channel("scorer:50051")
                stub = score_pb2_grpc.ScoreStub(channel)
                return await stub.Score(request)
        """,
    })
    assert not {f for f in found if f[0] == "client.py"}


def test_pexpect_waiting_for_the_prompt_blocks_and_sending_a_line_does_not(tmp_path):
    found = flagged(tmp_path, """
        import pexpect


        class Shell:
            def __init__(self):
                self.child = pexpect.spawn("/bin/bash", encoding="utf-8")

            async def run(self, command):
                self.child.sendline(command)
                self.child.expect(r"\\$ ", timeout=30)
                return self.child.before
    """)
    assert found == {("blocking_subprocess", 'self.child.expect(r"\\$ ", timeout=30)')}


def test_celery_current_task_update_state_writes_the_result_backend(tmp_path):
    found = flagged(tmp_path, """
        from celery import current_task


        async def crawl(urls):
            for done, url in enumerate(urls):
                current_task.update_state(state="PROGRESS", meta={"done": done})


        def report(done):
            current_task.update_state(state="PROGRESS", meta={"done": done})
    """)
    assert found == {("blocking_db", 'current_task.update_state(state="PROGRESS", meta={"done": done})')}
    assert len(found) == 1


# -- embedded on-disk stores: LMDB (and lmdbm's mapping over it), pygit2 -------------------------------------------

def test_lmdb_transactions_and_a_subclass_of_lmdbm_reached_by_subscripts_read_and_write_disk(tmp_path):
    found = flagged(tmp_path, """
        import json

        import lmdb
        from lmdbm import Lmdb


        class JsonPages(Lmdb):
            def __getitem__(self, key):
                with self.env.begin() as txn:
                    raw = txn.get(key.encode())
                return json.loads(raw)

            def __setitem__(self, key, value):
                with self.env.begin(write=True) as txn:
                    txn.put(key.encode(), json.dumps(value).encode())


        class Archive:
            def __init__(self, path):
                self.pages = JsonPages.open(path, "c")

            async def store(self, url, page):
                self.pages[url] = page

            async def fetch(self, url):
                return self.pages[url]


        async def open_archive(path):
            return Archive(path)


        async def count(path):
            env = lmdb.open(path)
            with env.begin() as txn:
                return sum(1 for _ in txn.cursor().iternext(keys=True, values=False))
    """)
    assert found == {
        ("blocking_file_io", "raw = txn.get(key.encode())"),
        ("blocking_file_io", "txn.put(key.encode(), json.dumps(value).encode())"),
        ("blocking_file_io", 'self.pages = JsonPages.open(path, "c")'),
        ("blocking_file_io", "env = lmdb.open(path)"),
        ("blocking_file_io", "return sum(1 for _ in txn.cursor().iternext(keys=True, values=False))"),
    }


def test_lmdb_offloaded_to_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import lmdb


        def count(path):
            env = lmdb.open(path)
            with env.begin() as txn:
                return txn.stat()["entries"]


        async def handler(path):
            return await asyncio.to_thread(count, path)
    """)
    assert found == set()


def test_pygit2_opening_and_diffing_a_repository_reads_git_objects(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from pygit2 import Repository


        def changed(repo: Repository):
            head = repo.revparse_single("HEAD")
            return [p.delta.new_file.path for p in repo.diff(head.parents[0], head)]


        async def recent(path):
            return changed(Repository(path))


        async def recent_offloaded(path):
            return await asyncio.to_thread(lambda: changed(Repository(path)))
    """)
    assert found == {("blocking_file_io", "return [p.delta.new_file.path for p in repo.diff(head.parents[0], head)]"),
                     ("blocking_file_io", "return changed(Repository(path))")}


# -- a notification hook (a callable parameter typed to return None) called under torch.no_grad() -----------------

_GENERATOR = """
    from typing import Callable, Optional

    import torch


    class Sampler:
        def __init__(self, model, on_frame: Optional[Callable[[torch.Tensor], RESULT]] = None):
            self.model = model
            self.on_frame = on_frame

        def step(self, x):
            frame = x.argmax(-1)
            if self.on_frame is not None:
                self.on_frame(frame)
            return frame


    async def handler(sampler: Sampler, x):
        with torch.no_grad():
            return sampler.step(x)
"""


def test_a_hook_typed_to_return_none_is_no_model_forward(tmp_path):
    assert flagged(tmp_path, _GENERATOR.replace("RESULT", "None")) == set()


def test_a_stored_callable_that_returns_a_tensor_under_no_grad_stays_a_forward(tmp_path):
    assert ("blocking_cpu", "self.on_frame(frame)") in flagged(tmp_path, _GENERATOR.replace("RESULT", "torch.Tensor"))


# -- a tar stream written into memory without compression ---------------------------------------------------------

def test_an_uncompressed_tar_written_into_a_bytesio_is_a_copy_and_a_compressed_one_is_work(tmp_path):
    found = flagged(tmp_path, """
        import io
        import tarfile


        async def pack(name, content):
            stream = io.BytesIO()
            with tarfile.open(fileobj=stream, mode="w") as tar:
                info = tarfile.TarInfo(name=name)
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
            return stream.getvalue()


        async def pack_small(name, content):
            stream = io.BytesIO()
            with tarfile.open(fileobj=stream, mode="w:gz") as tar:
                tar.addfile(tarfile.TarInfo(name=name), io.BytesIO(content))
            return stream.getvalue()
    """)
    assert found == {("blocking_cpu", 'with tarfile.open(fileobj=stream, mode="w:gz") as tar:')}


# -- an override in a class nothing builds ------------------------------------------------------------------------

_CODECS = """
    import json


    class Codec:
        def encode(self, data):
            raise NotImplementedError


    class PlainCodec(Codec):
        def encode(self, data):
            return json.dumps(data)


    class SpooledCodec(Codec):
        def encode(self, data):
            with open("/var/spool/last.json", "w") as out:
                out.write(json.dumps(data))
            return json.dumps(data)


    class Sender:
        def __init__(self, codec: Codec):
            self.codec = codec

        async def send(self, ws, data):
            await ws.send(self.codec.encode(data))


    def make_sender():
        return Sender(PlainCodec())
"""


def test_an_override_in_a_class_nothing_builds_is_not_followed(tmp_path):
    assert flagged(tmp_path, _CODECS) == set()


def test_an_override_in_a_class_named_in_a_registry_is_followed(tmp_path):
    source = _CODECS + "\n\n    CODECS = {'plain': PlainCodec, 'spooled': SpooledCodec}\n"
    assert flagged(tmp_path, source) == {("blocking_file_io", 'with open("/var/spool/last.json", "w") as out:')}
