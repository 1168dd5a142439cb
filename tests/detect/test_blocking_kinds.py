"""check blocking: kinds first seen on unseen services (issue 17, waves 8-10) -- abstract methods and methods only
subclasses define, waits on another thread (queue, event, join, future), directory walks, Pillow re-encoding,
ffmpeg-python pipelines, model engines whose constructor loads weights, sync generators and where they run,
remote-code chat methods, Triton BLS, decorator registries, Python 3.12 syntax, model wrappers under
inference_mode, dicts of loader functions. Each blocker is found at its line; each healthy look-alike stays
silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from faultlib.detect.serving.blocking import analyze_path
from faultlib.errors import InputError
from tests.detect.blocking_source import flagged


def test_an_abstract_method_runs_the_overrides_of_its_subclasses(tmp_path):
    found = flagged(tmp_path, """
        from abc import ABC, abstractmethod
        import subprocess
        import time

        class Engine(ABC):
            @abstractmethod
            def run(self, text):
                \"\"\"Turn text into audio.\"\"\"

            def label(self):
                return "engine"

        class Shell(Engine):
            def run(self, text):
                return subprocess.run(["say", text])

            def label(self):
                time.sleep(1)
                return "shell"

        class Echo(Engine):
            def run(self, text):
                return text

        def make() -> Engine:
            return Shell()

        engine = make()

        async def speak(text):
            return engine.run(text)

        async def name():
            return engine.label()
    """)
    # the concrete Engine.label has a body of its own: the override behind it is not assumed
    assert found == {("blocking_subprocess", 'return subprocess.run(["say", text])')}


def test_super_call_to_an_abstract_method_does_not_reach_siblings(tmp_path):
    found = flagged(tmp_path, """
        import subprocess

        class Base:
            def step(self):
                raise NotImplementedError

        class Noisy(Base):
            def step(self):
                subprocess.run(["true"])

        class Quiet(Base):
            async def go(self):
                return super().step()
    """)
    assert found == set()


def test_waiting_on_another_thread_blocks_and_a_poll_does_not(tmp_path):
    found = flagged(tmp_path, """
        import queue
        import threading
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(2)

        async def answer(job):
            replies = queue.Queue()
            ready = threading.Event()
            worker = threading.Thread(target=job, args=(replies, ready))
            worker.start()
            ready.wait()
            first = replies.get()
            maybe = replies.get(block=False)
            nothing = replies.get_nowait()
            ready.wait(0)
            worker.join()
            return pool.submit(job).result(), first, maybe, nothing
    """)
    assert found == {("blocking_task", "ready.wait()"), ("blocking_task", "first = replies.get()"),
                     ("blocking_task", "worker.join()"),
                     ("blocking_task", "return pool.submit(job).result(), first, maybe, nothing")}


def test_an_asyncio_queue_is_awaited_not_waited_on(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        async def consume(q: asyncio.Queue, done: asyncio.Event):
            item = await q.get()
            await done.wait()
            return item
    """)
    assert found == set()


def test_a_directory_walk_blocks_a_path_join_does_not(tmp_path):
    found = flagged(tmp_path, """
        import os

        async def folder_size(root):
            total = 0
            for folder, _, files in os.walk(root):
                total += len(files)
            return os.path.join(root, "x"), total
    """)
    assert found == {("blocking_file_io", "for folder, _, files in os.walk(root):")}


def test_pillow_re_encoding_blocks_reading_its_size_does_not(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image

        async def shrink(data: bytes):
            image = Image.open(io.BytesIO(data)).convert("RGB")
            width, height = image.size
            out = io.BytesIO()
            image.resize((width // 2, height // 2)).save(out, format="JPEG")
            return out.getvalue()
    """)
    # resampling, and encoding the JPEG into the in-memory buffer: Pillow's compressor, no file (stop 34's verdict
    # for an untyped image, now for a typed one too: the two are one line's two blocking_cpu findings)
    assert found == {("blocking_cpu", 'image = Image.open(io.BytesIO(data)).convert("RGB")'),  # decodes (stop 35)
                     ("blocking_cpu", 'image.resize((width // 2, height // 2)).save(out, format="JPEG")')}


def test_an_ffmpeg_python_pipeline_blocks_at_run_not_at_run_async(tmp_path):
    found = flagged(tmp_path, """
        import ffmpeg

        async def decode(data: bytes):
            out, _ = ffmpeg.input("pipe:").output("-", format="s16le").run(input=data, capture_stdout=True)
            info = ffmpeg.probe("clip.wav")
            process = ffmpeg.input("pipe:").output("-", format="s16le").run_async(pipe_stdin=True)
            return out, info, process
    """)
    assert found == {
        ("blocking_subprocess", 'out, _ = ffmpeg.input("pipe:").output("-", format="s16le").run(input=data, '
                                'capture_stdout=True)'),
        ("blocking_subprocess", 'info = ffmpeg.probe("clip.wav")')}


def test_an_engine_built_in_async_code_loads_its_model_its_coroutines_do_not_block(tmp_path):
    found = flagged(tmp_path, """
        from infinity_emb import AsyncEmbeddingEngine, EngineArgs
        import whisperx

        async def load(path):
            engine = AsyncEmbeddingEngine.from_args(EngineArgs(model_name_or_path=path))
            await engine.astart()
            vectors, usage = await engine.embed(sentences=["a"])
            return engine, vectors

        async def align(segments, model, meta, audio):
            return whisperx.align(segments, model, meta, audio, "cpu")
    """)
    assert found == {
        ("blocking_file_io", "engine = AsyncEmbeddingEngine.from_args(EngineArgs(model_name_or_path=path))"),
        ("blocking_cpu", 'return whisperx.align(segments, model, meta, audio, "cpu")')}


def test_a_sync_generator_runs_where_it_is_iterated_not_where_it_is_made(tmp_path):
    found = flagged(tmp_path, """
        import time
        from contextlib import contextmanager
        from starlette.responses import StreamingResponse

        def chunks(n):
            for i in range(n):
                time.sleep(0.1)
                yield b"x"

        @contextmanager
        def opened(path):
            handle = open(path)
            yield handle

        async def streamed(n):
            return StreamingResponse(chunks(n))

        async def gathered(n):
            return b"".join(chunks(n))

        async def stepped(n):
            parts = chunks(n)
            for part in parts:
                pass

        async def read(path):
            with opened(path) as handle:
                return handle.name
    """)
    # Starlette iterates the generator handed to StreamingResponse in its thread pool: only the other three block
    assert found == {("blocking_sleep", "time.sleep(0.1)"), ("blocking_file_io", "handle = open(path)")}
    sleep = next(f for f in analyze_path(tmp_path / "svc.py").findings if f.kind == "blocking_sleep")
    assert sorted(sleep.evidence["entries"]) == ["gathered", "stepped"]


def test_remote_code_chat_methods_and_triton_sync_bls_block_their_async_twins_do_not(tmp_path):
    found = flagged(tmp_path, """
        import triton_python_backend_utils as pb_utils
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained("some/chat-model", trust_remote_code=True)

        async def reply(tokenizer, query):
            answer, history = model.chat(tokenizer, query, history=[])
            return answer

        class TritonPythonModel:
            async def execute(self, requests):
                first = pb_utils.InferenceRequest(model_name="tokenizer", requested_output_names=["ids"], inputs=[])
                waited = first.exec()
                second = pb_utils.InferenceRequest(model_name="vocoder", requested_output_names=["wav"], inputs=[])
                answered = await second.async_exec()
                return [waited, answered]
    """)
    assert found == {("blocking_cpu", "answer, history = model.chat(tokenizer, query, history=[])"),
                     ("blocking_task", "waited = first.exec()")}


def test_a_framework_helper_inherited_under_inference_mode_is_no_forward(tmp_path):
    found = flagged(tmp_path, """
        import torch
        from jina import Executor

        class Encoder(Executor):
            def __init__(self, net):
                self.net = net

            async def encode(self, batch):
                with torch.inference_mode():
                    with self.monitor(name="encode_seconds"):
                        return self.net(batch)
    """)
    assert found == {("blocking_cpu", "return self.net(batch)")}


def test_a_method_only_the_subclasses_define_runs_theirs(tmp_path):
    found = flagged(tmp_path, """
        import subprocess

        class Model:
            def __new__(cls, name):
                if cls is Model and name == "shell":
                    return super().__new__(Shell)
                return super().__new__(cls)

        class Shell(Model):
            def encode(self, text):
                return subprocess.run(["encode", text])

        class Plain(Model):
            def encode(self, text):
                return text.encode()

        model = Model("shell")

        async def handle(text):
            return model.encode(text)
    """)
    assert found == {("blocking_subprocess", 'return subprocess.run(["encode", text])')}


def test_side_by_side_script_folders_import_their_own_helper_module(tmp_path):
    for folder, body in (("demo_a", "def work():\n    return 1\n"),
                         ("demo_b", "import time\n\ndef work():\n    time.sleep(1)\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "helpers.py").write_text(body)
        (tmp_path / folder / "server.py").write_text("from helpers import work\n\nasync def serve():\n"
                                                     "    return work()\n")
    findings = analyze_path(tmp_path).findings
    assert [(f.kind, f.location["file"].endswith("demo_b/helpers.py")) for f in findings] == [("blocking_sleep", True)]
    assert findings[0].evidence["chain"][0]["function"] == "serve"


def test_handlers_registered_by_a_decorator_run_where_the_registry_dispatches(tmp_path):
    found = flagged(tmp_path, """
        import time

        class Router:
            def __init__(self):
                self.handlers = {}

            def on(self, kind):
                def decorator(func):
                    self.handlers[kind] = func
                    return func
                return decorator

            async def dispatch(self, kind, event):
                handler = self.handlers[kind]
                return handler(event)

        class Journal:
            def __init__(self):
                self.entries = {}

            def on(self, kind):
                def decorator(func):
                    return func
                return decorator

        router = Router()
        journal = Journal()

        @router.on("audio")
        def on_audio(event):
            time.sleep(0.5)

        @journal.on("note")
        def on_note(event):
            open("notes.txt").write(event)
    """)
    # Journal.on stores nothing: its decorated function is never dispatched by Router
    assert found == {("blocking_sleep", "time.sleep(0.5)")}


def test_abstract_call_on_self_dispatches_to_the_receivers_class_along_the_call_path(tmp_path):
    found = flagged(tmp_path, """
        import subprocess
        import time

        class Manager:
            def _load(self):
                raise NotImplementedError

            def get(self):
                return self._load()

        class Audio(Manager):
            def _load(self):
                time.sleep(1)

        class Video(Manager):
            def _load(self):
                subprocess.run(["load"])

        class Base:
            def _open(self):
                ...

            def get(self):
                return self._open()

        class Only(Base):
            def _open(self):
                return open("weights.bin", "rb")

        async def serve(audio: Audio, only: Only):
            return audio.get(), only.get()
    """)
    # `self` inside Manager.get is the Audio the call path passes: Audio._load runs, Video's does not
    assert found == {("blocking_file_io", 'return open("weights.bin", "rb")'), ("blocking_sleep", "time.sleep(1)")}


def test_files_with_python_3_12_type_syntax_are_analysed_at_their_lines(tmp_path):
    found = flagged(tmp_path, """
        import time

        type Reply = dict[str, str]

        class Box[T]:
            def __init__(self, item: T):
                self.item = item

        def wait[T: (int, float)](
            seconds: T,
        ) -> None:
            time.sleep(seconds)

        async def answer() -> Reply:
            wait(1)
            return {}
    """)
    assert found == {("blocking_sleep", "time.sleep(seconds)")}


def test_an_async_base_method_reaches_every_override_of_its_self_call(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Auth:
            def key(self, token):
                raise NotImplementedError

            async def __call__(self, token):
                return self.key(token)

        class Remote(Auth):
            def key(self, token):
                return requests.get("https://issuer.example/keys").json()

        class Local(Auth):
            def key(self, token):
                return "secret"
    """)
    # the framework calls __call__ on whichever Auth it was given: Remote's override blocks
    assert found == {("blocking_http", 'return requests.get("https://issuer.example/keys").json()')}


def test_a_model_verb_on_a_parameter_under_no_grad_is_model_work(tmp_path):
    found = flagged(tmp_path, """
        import torch

        @torch.no_grad()
        def decode_batch(model, tokenizer, codes):
            ids = tokenizer.encode("prefix")
            return model.decode(codes), ids

        def describe(model, codes):
            return model.decode(codes)

        async def endpoint(model, tokenizer, codes):
            return decode_batch(model, tokenizer, codes), describe(model, codes)
    """)
    # outside no_grad an untyped `model.decode` may be anything (a codec, a bytes object): silent
    assert found == {("blocking_cpu", "return model.decode(codes), ids")}


def test_a_model_wrapper_called_under_inference_mode_runs_its_wrapped_model(tmp_path):
    found = flagged(tmp_path, """
        import torch
        from somewhere import load_weights

        class Wrapper:
            def __init__(self, path):
                self.model = load_weights(path)
                self.tokenizer = load_weights(path + ".tok")

            def encode_image(self, pixels):
                return self.model.encode_image(pixels)

            def encode_text(self, text):
                return self.tokenizer.encode(text)

        wrapper = Wrapper("clip.bin")

        async def embed(pixels, text):
            with torch.inference_mode():
                image = wrapper.encode_image(pixels)
                ids = wrapper.encode_text(text)
            return image, ids, wrapper.encode_image(pixels)
    """)
    # the wrapped model's call blocks when the caller runs it under inference_mode; the tokenizer does not
    assert found == {("blocking_cpu", "return self.model.encode_image(pixels)")}
    site = next(f for f in analyze_path(tmp_path / "svc.py").findings)
    assert [step["line"] for step in site.evidence["chain"]] == [20, 11]  # the call under inference_mode


def test_a_function_picked_by_name_from_a_dict_of_loaders_may_be_any_of_them(tmp_path):
    found = flagged(tmp_path, """
        import subprocess
        import time

        def start_server(name):
            subprocess.run(["server", name])

        def load_local(name):
            time.sleep(1)

        def describe(name):
            return name.upper()

        LOADERS = {"server": start_server, "local": load_local}

        async def load(kind, name):
            return LOADERS[kind](name)

        async def label(name):
            names = {"a": describe, "b": describe}
            return names.get("a")(name)
    """)
    assert found == {("blocking_subprocess", 'subprocess.run(["server", name])'),
                     ("blocking_sleep", "time.sleep(1)")}


def test_a_real_syntax_error_after_python_3_12_syntax_is_named_at_its_own_line(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("type Alias = int\n\nclass Box[T]:\n    def get(self) -> T\n        return 1\n")
    with pytest.raises(InputError) as caught:
        analyze_path(path)
    assert caught.value.line == 4
