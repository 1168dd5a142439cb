"""check blocking: the kinds held-out wave 51 (issue 17; a chat UI over LangChain and Redis, a document-conversion
server, an LLM fine-tuning toolkit's API, a RAG server with session-decorated repositories, Modal GPU endpoints)
left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- a decorator that calls the function with a session it opened types that parameter --------------------------------

_SESSION_DECORATOR = """
    from contextlib import contextmanager
    from functools import wraps
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    Maker = sessionmaker(bind=create_engine("sqlite:///notes.db"))

    @contextmanager
    def opened():
        s = Maker()
        try:
            yield s
        finally:
            s.close()
"""


def test_a_query_in_a_function_given_its_session_by_a_decorator_is_a_database_call(tmp_path):
    found = flagged(tmp_path, _SESSION_DECORATOR + """
    def in_session(fn):
        @wraps(fn)
        def run(*args, **kwargs):
            with opened() as s:
                return fn(s, *args, **kwargs)
        return run

    @in_session
    def notes_of(s, owner):
        return s.query(Note).filter_by(owner=owner).all()

    async def list_notes(owner):
        return notes_of(owner)
    """)
    assert ("blocking_db", "return s.query(Note).filter_by(owner=owner).all()") in found


def test_a_decorator_that_only_forwards_the_arguments_types_nothing(tmp_path):
    found = flagged(tmp_path, _SESSION_DECORATOR + """
    def logged(fn):
        @wraps(fn)
        def run(*args, **kwargs):
            with opened() as s:
                s.info["calls"] = 1
            return fn(*args, **kwargs)
        return run

    @logged
    def notes_of(s, owner):
        return s.query(Note).filter_by(owner=owner).all()

    async def list_notes(store, owner):
        return notes_of(store, owner)
    """)
    assert not any("s.query" in line for _, line in found)


# -- LangChain's server-backed stores: the Redis chat history, the vector stores that connect when built -------------


def test_a_redis_chat_history_read_and_written_in_a_handler_is_a_database_call(tmp_path):
    found = flagged(tmp_path, """
        from langchain_community.chat_message_histories import RedisChatMessageHistory

        async def reply(chat_id, text):
            history = RedisChatMessageHistory(chat_id)
            history.add_user_message(text)
            return len(history.messages)
    """)
    assert found == {
        ("blocking_db", "history.add_user_message(text)"),
        ("blocking_db", "return len(history.messages)"),
    }


def test_an_in_memory_chat_history_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from langchain_community.chat_message_histories import ChatMessageHistory

        async def reply(text):
            history = ChatMessageHistory()
            history.add_user_message(text)
            return len(history.messages)
    """)
    assert found == set()


def test_building_a_milvus_store_in_a_handler_connects(tmp_path):
    found = flagged(tmp_path, """
        from langchain_community.vectorstores import Milvus

        URI = "http://vectors:19530"

        async def open_store(embeddings, name):
            return Milvus(embeddings, collection_name=name, connection_args={"uri": URI})
    """)
    assert found == {
        ("blocking_db", 'return Milvus(embeddings, collection_name=name, connection_args={"uri": URI})'),
    }


def test_a_pgvector_store_built_in_a_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from langchain_community.vectorstores.pgvector import PGVector

        async def open_store(embeddings, dsn):
            return await asyncio.to_thread(PGVector, connection_string=dsn, embedding_function=embeddings)
    """)
    assert found == set()


# -- Modal's synchronous client: a remote method's handle, its spawned call, a named queue ----------------------------

_MODAL_APP = """
    import modal

    app = modal.App("painter")
    progress = modal.Queue.from_name("progress", create_if_missing=True)

    @app.cls(gpu="A10G")
    class Painter:
        @modal.method()
        def paint(self, prompt):
            return prompt.encode()
"""


def test_modal_remote_and_spawned_calls_in_a_handler_wait_on_the_loop(tmp_path):
    found = flagged(tmp_path, _MODAL_APP + """
    painter = Painter()

    async def draw(prompt):
        job = painter.paint.spawn(prompt)
        step = progress.get()
        return painter.paint.remote(prompt), job.get(), step
    """)
    assert found == {
        ("blocking_http", "job = painter.paint.spawn(prompt)"),
        ("blocking_http", "step = progress.get()"),
        ("blocking_http", "return painter.paint.remote(prompt), job.get(), step"),
        ("blocking_task", "return painter.paint.remote(prompt), job.get(), step"),
    }


def test_modal_aio_twins_stay_silent(tmp_path):
    found = flagged(tmp_path, _MODAL_APP + """
    painter = Painter()

    async def draw(prompt):
        job = await painter.paint.spawn.aio(prompt)
        step = await progress.get.aio()
        return await painter.paint.remote.aio(prompt), await job.get.aio(), step
    """)
    assert found == set()


def test_a_plain_method_of_the_same_name_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        class Painter:
            def paint(self, prompt):
                return prompt.encode()

        async def draw(painter: Painter, remote):
            return painter.paint(prompt=remote)
    """)
    assert found == set()


# -- multiprocessing: starting a child process, a manager's event, a local dict of processes ---------------------------


def test_starting_and_joining_processes_kept_in_a_local_dict_blocks_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from multiprocessing import Manager, Process

        def serve(ready):
            ready.set()

        async def launch():
            manager = Manager()
            ready = manager.Event()
            workers = {}
            workers["api"] = Process(target=serve, args=(ready,))
            if w := workers.get("api"):
                w.start()
                ready.wait()
            for w in workers.values():
                w.join(2)
    """)
    assert found == {
        ("blocking_subprocess", "manager = Manager()"),
        ("blocking_subprocess", "w.start()"),
        ("blocking_task", "ready.wait()"),
        ("blocking_task", "w.join(2)"),
    }


def test_threads_kept_in_a_local_dict_start_without_waiting(tmp_path):
    found = flagged(tmp_path, """
        import threading

        def serve():
            pass

        async def launch():
            workers = {}
            workers["api"] = threading.Thread(target=serve)
            if w := workers.get("api"):
                w.start()
    """)
    assert found == set()


def test_a_process_started_from_a_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import multiprocessing

        def serve():
            pass

        async def launch():
            worker = multiprocessing.Process(target=serve)
            await asyncio.to_thread(worker.start)
    """)
    assert found == set()


# -- transformers' preprocessors: calling an image processor or a feature extractor is CPU work ------------------------


def test_an_image_processor_and_a_feature_extractor_called_in_a_handler_are_cpu_work(tmp_path):
    found = flagged(tmp_path, """
        from transformers import AutoFeatureExtractor, AutoImageProcessor

        pixels = AutoImageProcessor.from_pretrained("acme/vit-small")
        audio = AutoFeatureExtractor.from_pretrained("acme/whisper-tiny")

        async def prepare(images, waveform):
            batch = pixels(images, return_tensors="pt")
            return batch, audio(waveform, sampling_rate=16000)
    """)
    assert found == {
        ("blocking_cpu", 'batch = pixels(images, return_tensors="pt")'),
        ("blocking_cpu", "return batch, audio(waveform, sampling_rate=16000)"),
    }


def test_an_image_processor_run_in_a_thread_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from transformers.image_processing_utils import BaseImageProcessor

        async def prepare(pixels: BaseImageProcessor, images):
            return await asyncio.to_thread(pixels, images, return_tensors="pt")
    """)
    assert found == set()


# -- a parameter whose default is a function holds a function, whatever alias annotates it -----------------------------


def test_a_callable_alias_parameter_defaulting_to_a_function_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from langchain_core.tools import ToolsRenderer

        def as_lines(tools):
            return "\\n".join(t.name for t in tools)

        async def describe(tools, renderer: ToolsRenderer = as_lines):
            return renderer(list(tools))
    """)
    assert found == set()


def test_a_client_parameter_defaulting_to_none_is_still_its_annotated_class(tmp_path):
    found = flagged(tmp_path, """
        import requests

        async def fetch(url, session: requests.Session = None):
            return session.get(url)
    """)
    assert found == {("blocking_http", "return session.get(url)")}


# -- constructors and loaders that read a model file: SentencePiece, rankers, docling 1.x, diffusers' LoRA -------------


def test_model_files_read_by_constructors_and_loaders_in_a_handler(tmp_path):
    found = flagged(tmp_path, """
        from diffusers import AutoPipelineForText2Image
        from docling.document_converter import DocumentConverter
        from rerankers import Reranker
        from sentencepiece import SentencePieceProcessor

        pipe = AutoPipelineForText2Image.from_pretrained("acme/sd-tiny")

        async def warm_up(path, opts):
            pieces = SentencePieceProcessor(model_file=path)
            ranker = Reranker("acme/tiny-ranker")
            converter = DocumentConverter(pipeline_options=opts)
            pipe.load_lora_weights("acme/style-lora")
            return pieces, ranker, converter
    """)
    assert found == {
        ("blocking_file_io", "pieces = SentencePieceProcessor(model_file=path)"),
        ("blocking_file_io", 'ranker = Reranker("acme/tiny-ranker")'),
        ("blocking_file_io", "converter = DocumentConverter(pipeline_options=opts)"),
        ("blocking_file_io", 'pipe.load_lora_weights("acme/style-lora")'),
    }


def test_empty_constructors_and_lazy_converters_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from docling.document_converter import DocumentConverter
        from rerankers import Reranker
        from sentencepiece import SentencePieceProcessor

        async def warm_up(formats):
            pieces = SentencePieceProcessor()
            converter = DocumentConverter(format_options=formats)
            ranker = await asyncio.to_thread(Reranker, "acme/tiny-ranker")
            return pieces, converter, ranker
    """)
    assert found == set()


# -- a dataclass field's default_factory runs when the dataclass is built ----------------------------------------------


def test_a_default_factory_that_loads_a_model_runs_when_the_dataclass_is_built(tmp_path):
    found = flagged(tmp_path, """
        from dataclasses import dataclass, field
        from rerankers import Reranker

        @dataclass(frozen=True)
        class Settings:
            top_k: int = 5
            ranker: object = field(default_factory=lambda: Reranker("acme/tiny-ranker"))

        async def search(query):
            settings = Settings()
            return settings.top_k
    """)
    line = 'ranker: object = field(default_factory=lambda: Reranker("acme/tiny-ranker"))'
    assert found == {("blocking_file_io", line)}


def test_plain_default_factories_and_a_hand_written_init_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from dataclasses import dataclass, field
        from rerankers import Reranker

        @dataclass
        class Settings:
            tags: list = field(default_factory=list)

        @dataclass
        class Lazy:
            ranker: object = field(default_factory=lambda: Reranker("acme/tiny-ranker"))

            def __init__(self, ranker):
                self.ranker = ranker

        async def search(query, ranker):
            return Settings().tags, Lazy(ranker).ranker
    """)
    assert found == set()


# -- Pillow's Image.filter over a whole image --------------------------------------------------------------------------


def test_blurring_an_image_in_a_command_is_cpu_work(tmp_path):
    found = flagged(tmp_path, """
        from PIL import Image, ImageFilter

        async def card(image: Image.Image):
            return image.filter(ImageFilter.GaussianBlur(12))
    """)
    assert found == {("blocking_cpu", "return image.filter(ImageFilter.GaussianBlur(12))")}


def test_a_blur_run_in_an_executor_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from PIL import Image, ImageFilter

        async def card(image: Image.Image):
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, image.filter, ImageFilter.BoxBlur(4))
    """)
    assert found == set()


# -- a file opened in one method, kept on self, written in a coroutine -------------------------------------------------


def test_a_temporary_file_kept_on_self_written_in_aenter_is_file_io(tmp_path):
    found = flagged(tmp_path, """
        from tempfile import NamedTemporaryFile

        class Spool:
            def __init__(self, chunks):
                self.chunks = chunks
                self.temp = None

            def open(self):
                self.temp = NamedTemporaryFile(suffix=".wav")

            async def __aenter__(self):
                for chunk in self.chunks:
                    self.temp.write(chunk)
                return self.temp.name
    """)
    assert found == {("blocking_file_io", "self.temp.write(chunk)")}


def test_an_in_memory_buffer_kept_on_self_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import io

        class Spool:
            def __init__(self, chunks):
                self.chunks = chunks
                self.buffer = io.BytesIO()

            async def __aenter__(self):
                for chunk in self.chunks:
                    self.buffer.write(chunk)
                return self.buffer.getvalue()
    """)
    assert found == set()
