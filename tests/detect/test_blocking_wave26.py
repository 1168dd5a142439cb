"""check blocking: kinds first seen on unseen services in wave 26 (issue 17) -- a third-party class constructed from
a model reference (a Hub id or a weights file) loads that model, and the instances of such a class run it. Each
blocker is found at its line; each healthy look-alike (a hosted model's client given a model name, a MIME type, a
data file, a class of the project's own) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_class_built_from_a_hub_id_loads_and_its_encode_runs_the_model(tmp_path):
    found = flagged(tmp_path, """
        from quart import Quart
        from textvec import PhraseEmbedder

        app = Quart(__name__)
        state = {}

        class Embedder:
            def __init__(self):
                checkpoint = "acme-lab/phrase-encoder-large"
                self.encoder = PhraseEmbedder(checkpoint)

            async def embed(self, texts):
                return self.encoder.encode(texts)

        @app.before_serving
        async def startup():
            state["embedder"] = Embedder()

        @app.route("/embed", methods=["POST"])
        async def embed(texts):
            return await state["embedder"].embed(texts)
    """)
    assert ("blocking_file_io", "self.encoder = PhraseEmbedder(checkpoint)") in found
    assert ("blocking_cpu", "return self.encoder.encode(texts)") in found


def test_a_weights_file_from_a_module_table_loads_the_model(tmp_path):
    found = flagged(tmp_path, """
        import ngramlm

        LM_FILES = {"en": "lm/english-5gram.bin", "fr": "lm/french-5gram.bin"}

        async def score(sentence):
            lm = ngramlm.Scorer(LM_FILES["en"])
            return lm.predict(sentence)
    """)
    assert found == {("blocking_file_io", 'lm = ngramlm.Scorer(LM_FILES["en"])'),
                     ("blocking_cpu", "return lm.predict(sentence)")}


def test_hosted_clients_mime_types_data_files_and_own_classes_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from langchain_openai import ChatOpenAI
        from routerkit import CompletionClient
        from webkit import Reply
        from cfgkit import Loader
        from pathlib import Path
        from blobkit import Store

        class PhraseEmbedder:
            def __init__(self, name):
                self.name = name

            def encode(self, texts):
                return [len(t) for t in texts]

        async def answer(question, name):
            chat = ChatOpenAI(model="meta-llama/llama-3-70b-instruct", base_url="http://vllm:8000/v1")
            router = CompletionClient("mistralai/mixtral-8x7b")
            reply = Reply("text/plain")
            cfg = Loader("conf/serving.yaml")
            mine = PhraseEmbedder("acme-lab/phrase-encoder-large")
            guessed = CompletionClient(name)
            runs = Path("logs/run-2")
            uploads = Store("data/uploads")
            return chat, router, reply, cfg, mine.encode([question]), guessed, runs, uploads
    """)
    assert found == set()


def test_a_registry_a_decorator_fills_dispatches_to_every_registered_tool(tmp_path):
    found = flagged(tmp_path, """
        import subprocess

        HANDLERS = {}

        def handler(name):
            def wrap(fn):
                HANDLERS[name] = fn
                return fn
            return wrap

        @handler("disk")
        def disk_usage(args):
            return subprocess.run(["du", "-sh", args["path"]], capture_output=True).stdout

        @handler("echo")
        def echo(args):
            return args

        def dispatch(name, args):
            fn = HANDLERS[name]
            return fn(args)

        async def call_tool(name, args):
            return dispatch(name, args)
    """)
    assert found == {("blocking_subprocess",
                      'return subprocess.run(["du", "-sh", args["path"]], capture_output=True).stdout')}


def test_a_plain_registrar_and_get_reach_the_stored_functions(tmp_path):
    found = flagged(tmp_path, """
        import time

        ACTIONS = {}

        def action(fn):
            ACTIONS[fn.__name__] = fn
            return fn

        @action
        def nap(seconds):
            time.sleep(seconds)

        def wave(seconds):
            return seconds

        ACTIONS["wave"] = wave

        async def run(name, seconds):
            return ACTIONS.get(name)(seconds)
    """)
    assert found == {("blocking_sleep", "time.sleep(seconds)")}


def test_a_registry_of_async_tools_or_an_offloaded_dispatch_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time

        SYNC_TOOLS = {}
        ASYNC_TOOLS = {}

        def sync_tool(fn):
            SYNC_TOOLS[fn.__name__] = fn
            return fn

        def async_tool(fn):
            ASYNC_TOOLS[fn.__name__] = fn
            return fn

        @sync_tool
        def nap(seconds):
            time.sleep(seconds)

        @async_tool
        async def pause(seconds):
            await asyncio.sleep(seconds)

        async def run(name, seconds):
            await ASYNC_TOOLS[name](seconds)
            return await asyncio.to_thread(SYNC_TOOLS[name], seconds)
    """)
    assert found == set()


def test_items_keep_their_type_through_enumerate_zip_and_sorted(tmp_path):
    found = flagged(tmp_path, """
        import fitz

        async def pages_text(data, names):
            doc = fitz.open("pdf", data)
            numbered = [(i, page.get_text("text")) for i, page in enumerate(doc, start=1)]
            for page, name in zip(doc, names):
                page.get_pixmap()
            for page in sorted(doc, key=len):
                page.search_for(names[0])
            return numbered
    """)
    assert found == {("blocking_file_io", 'doc = fitz.open("pdf", data)'),
                     ("blocking_cpu", 'numbered = [(i, page.get_text("text")) for i, page in enumerate(doc, start=1)]'),
                     ("blocking_cpu", "page.get_pixmap()"), ("blocking_cpu", "page.search_for(names[0])")}


def test_enumerating_a_plain_list_of_the_projects_pages_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        class Page:
            def get_text(self, mode):
                return mode

        async def pages_text(pages: list):
            return [(i, page.get_text("text")) for i, page in enumerate(pages)]
    """)
    assert found == set()


def test_a_sync_stream_opened_and_iterated_on_the_loop_blocks_twice(tmp_path):
    found = flagged(tmp_path, """
        from openai import OpenAI

        client = OpenAI()

        async def reply(messages, send):
            params = {"model": "gpt-4o-mini", "messages": messages}
            params["stream"] = True
            stream = client.chat.completions.create(**params)
            for chunk in stream:
                await send(chunk.choices[0].delta.content)
    """)
    assert found == {("blocking_http", "stream = client.chat.completions.create(**params)"),
                     ("blocking_http", "for chunk in stream:")}


def test_an_async_stream_or_a_plain_response_iterated_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        from openai import AsyncOpenAI

        client = AsyncOpenAI()

        async def reply(messages, send):
            stream = await client.chat.completions.create(model="m", messages=messages, stream=True)
            async for chunk in stream:
                await send(chunk)
            words = messages[-1]["content"].split()
            for word in words:
                await send(word)
    """)
    assert found == set()


def test_a_model_built_at_import_time_marks_its_class(tmp_path):
    found = flagged(tmp_path, """
        from textvec import PhraseEmbedder

        ENCODER = PhraseEmbedder("acme-lab/phrase-encoder-small")

        async def embed(texts):
            return ENCODER.encode(texts)
    """)
    assert found == {("blocking_cpu", "return ENCODER.encode(texts)")}


def test_colbert_kenlm_whisper_audio_adapters_and_old_openai_embeddings_block(tmp_path):
    found = flagged(tmp_path, """
        import kenlm
        import whisper
        from colbert import Searcher
        from openai.embeddings_utils import get_embedding
        from transformers import Wav2Vec2ForCTC

        class Service:
            def __init__(self):
                self.searcher = Searcher(index="/srv/passages-index")
                self.lm = kenlm.Model(self.lm_path())
                self.asr = Wav2Vec2ForCTC.from_pretrained(self.asr_path())
                self.asr.load_adapter("fra")

            def lm_path(self):
                return "/srv/lm"

            def asr_path(self):
                return "/srv/asr"

            async def answer(self, query, wav):
                audio = whisper.load_audio(wav)
                vector = get_embedding(query, engine="text-embedding-ada-002")
                return self.searcher.search(query, k=5), audio, vector

        async def startup():
            return Service()
    """)
    assert {("blocking_file_io", 'self.searcher = Searcher(index="/srv/passages-index")'),
            ("blocking_file_io", "self.lm = kenlm.Model(self.lm_path())"),
            ("blocking_file_io", 'self.asr.load_adapter("fra")'),
            ("blocking_subprocess", "audio = whisper.load_audio(wav)"),
            ("blocking_http", 'vector = get_embedding(query, engine="text-embedding-ada-002")'),
            ("blocking_cpu", "return self.searcher.search(query, k=5), audio, vector")} <= found


def test_kenlm_scoring_and_the_async_embedding_twin_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from openai.embeddings_utils import aget_embedding

        class Scorer:
            def __init__(self, model):
                self.model = model

            async def score(self, sentence):
                vector = await aget_embedding(sentence, engine="text-embedding-ada-002")
                return self.model.score(sentence), vector
    """)
    assert found == set()
