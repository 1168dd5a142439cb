"""check blocking: receivers whose type the code does not write down (a constructor's untyped parameter, the
``self`` of a decorator's wrapper, a ``Callable[..., T]`` factory, an if-expression, a dict of loaders or of
functions) and third-party SDKs of the vocabulary (``sdks.py``) -- each blocker found at its line, each
healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_untyped_constructor_parameter_takes_the_type_its_call_sites_pass(tmp_path):
    found = flagged(tmp_path, """
        import redis

        class Ledger:
            def __init__(self, store):
                self.store = store

            async def credit(self, user):
                return self.store.incr(user)

        class Scratch:
            def __init__(self, store):
                self.store = store

            async def credit(self, user):
                return self.store.incr(user)

        class Counter:
            def incr(self, key):
                return 1

        class Owner:
            def __init__(self):
                self.ledger = Ledger(redis.Redis())
                self.scratch = Scratch(Counter())
                self.mixed = Mixed(redis.Redis())
                self.other = Mixed(Counter())

        class Mixed:
            def __init__(self, store):
                self.store = store

            async def credit(self, user):
                return self.store.incr(user)
    """)
    # Scratch gets a plain in-memory counter; Mixed's call sites disagree: unknown, silent
    assert found == {("blocking_db", "return self.store.incr(user)")}
    assert [f.location["function"] for f in analyze_path(tmp_path / "svc.py").findings] == ["Ledger.credit"]


def test_the_self_of_a_decorators_async_wrapper_is_the_decorated_methods_instance(tmp_path):
    found = flagged(tmp_path, """
        from functools import wraps
        from typing import Callable
        from sqlalchemy.orm import Session
        from sqlalchemy.ext.asyncio import AsyncSession

        def transactional(retries=3):
            def decorator(f):
                @wraps(f)
                async def wrapper(self, *args, **kwargs):
                    result = await f(self, *args, **kwargs)
                    self.db.commit()
                    return result
                return wrapper
            return decorator

        def async_transactional(f):
            async def wrapper(self, *args):
                result = await f(self, *args)
                await self.db.commit()
                return result
            return wrapper

        def with_session(factory: Callable[..., Session]):
            def decorator(f):
                async def wrapper(*args):
                    with factory() as session:
                        out = await f(session, *args)
                        session.flush()
                    return out
                return wrapper
            return decorator

        class Repo:
            def __init__(self, db: Session):
                self.db = db

            @transactional(retries=2)
            async def add(self, item):
                return item

        class AsyncRepo:
            def __init__(self, db: AsyncSession):
                self.db = db

            @async_transactional
            async def add(self, item):
                return item
    """)
    assert found == {("blocking_db", "self.db.commit()"), ("blocking_db", "session.flush()")}


def test_if_expressions_and_literal_containers_of_loaders_or_functions(tmp_path):
    found = flagged(tmp_path, """
        import requests
        import redis
        from langchain_community.document_loaders import PyPDFLoader, TextLoader

        class Cache:
            def __init__(self, url):
                self.client = redis.Redis.from_url(url) if url else None

            async def get(self, key):
                return self.client.get(key)

        async def load(path, ext):
            loaders = {"pdf": PyPDFLoader(path), "txt": TextLoader(path)}
            loader = loaders.get(ext)
            return loader.load()

        FETCHERS = {"get": requests.get, "post": requests.post}

        async def call(verb, url):
            return FETCHERS[verb](url)

        async def shape(kind):
            makers = {"list": list, "tuple": tuple}
            return makers[kind]([1, 2])
    """)
    assert found == {("blocking_db", "return self.client.get(key)"), ("blocking_file_io", "return loader.load()"),
                     ("blocking_http", "return FETCHERS[verb](url)")}


def test_sync_sdks_block_and_their_async_twins_constructors_and_helpers_do_not(tmp_path):
    found = flagged(tmp_path, """
        import whois
        import wolframalpha
        import gspread
        from gtts import gTTS
        from tavily import AsyncTavilyClient, TavilyClient
        from revChatGPT.V3 import Chatbot
        from blade2blade import Blade2Blade

        bot = Chatbot(api_key="k")

        async def answer(q):
            client = wolframalpha.Client("app-id")
            result = client.query(q)
            record = whois.query(q)
            gTTS(q).save("out.mp3")
            web = TavilyClient(api_key="k").search(q)
            return result, record, web

        async def healthy(q, model: Blade2Blade):
            quick = await AsyncTavilyClient(api_key="k").search(q)
            cell = gspread.utils.rowcol_to_a1(1, 1)
            reply = bot.ask_async(q)
            async for chunk in bot.ask_stream_async(q):
                print(chunk)
            return quick, cell, await reply, await model.predict(q)

        async def judge(model: Blade2Blade, text):
            return model.predict(text)
    """)
    assert found == {
        ("blocking_http", "result = client.query(q)"), ("blocking_subprocess", "record = whois.query(q)"),
        ("blocking_http", 'gTTS(q).save("out.mp3")'), ("blocking_http", 'web = TavilyClient(api_key="k").search(q)'),
        ("blocking_cpu", "return model.predict(text)")}


def test_the_sdk_table_registers_through_the_entry_point_group_and_names_its_sources():
    from faultlib.detect.serving.blocking import vocab

    merged = vocab.vocabulary()
    assert "sdks" in merged.plugins
    assert merged.family_kind("duckduckgo_search.DDGS", "text") == (
        "blocking_http", "https://pypi.org/project/duckduckgo-search/ (DDGS is sync; AsyncDDGS the twin)")
    assert merged.family_kind("duckduckgo_search.AsyncDDGS", "text") is None
    assert merged.family_kind("google.genai.Client.aio.models", "generate_content") is None
    assert merged.family_kind("google.genai.Client.models", "generate_content")[0] == "blocking_http"


def test_model_loaders_document_parsers_inherited_client_methods_and_imported_globals(tmp_path):
    pkg = tmp_path / "svc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "store.py").write_text(textwrap.dedent("""
        from typing import Generic, TypeVar
        import redis
        from langchain_core.runnables import RunnableSerializable

        T = TypeVar("T")

        class Indexer(RunnableSerializable[str, list]):
            def invoke(self, text, config=None):
                return [text]

        class Plain(Generic[T]):
            def batch(self, items):
                return items

        class Store(redis.Redis):
            pass

        indexer = Indexer().with_config(run_name="ingest")
        plain = Plain()
        store = Store()
    """))
    (pkg / "app.py").write_text(textwrap.dedent("""
        import spacy
        import stripe
        import zipfile
        from llama_cpp import Llama
        from transformers import AutoModel
        from svc.store import indexer, plain, store

        async def ingest(texts, path, pdf_pages):
            indexer.batch(texts)
            plain.batch(texts)
            store.get("k")
            model = Llama(model_path=path)
            encoder = AutoModel.from_pretrained(path)
            nlp = spacy.blank("en")
            doc = nlp(texts[0])
            customer = stripe.Customer.retrieve("cus_1")
            event = stripe.Webhook.construct_event(b"", "sig", "secret")
            words = [page.extract_text() for page in pdf_pages]
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
            return model, encoder, doc, customer, event, words, names
    """))
    report = analyze_path(pkg)
    lines = (pkg / "app.py").read_text().splitlines()
    found = {(f.kind, lines[f.location["line"] - 1].strip()) for f in report.findings}
    assert found == {
        ("blocking_http", "indexer.batch(texts)"), ("blocking_db", 'store.get("k")'),
        ("blocking_file_io", "model = Llama(model_path=path)"),
        ("blocking_file_io", "encoder = AutoModel.from_pretrained(path)"), ("blocking_cpu", "doc = nlp(texts[0])"),
        ("blocking_http", 'customer = stripe.Customer.retrieve("cus_1")'),
        ("blocking_cpu", "words = [page.extract_text() for page in pdf_pages]"),
        ("blocking_file_io", "with zipfile.ZipFile(path) as archive:")}  # plain.batch and construct_event: no I/O


def test_globals_set_in_a_startup_hook_state_attributes_and_handlers_stored_on_an_object(tmp_path):
    found = flagged(tmp_path, """
        import logging
        import onnxruntime
        import torch
        from fastapi import FastAPI

        app = FastAPI()
        log = logging.getLogger(__name__)

        def segment(image):
            return onnxruntime.InferenceSession("seg.onnx").run(None, {"x": image})

        def passthrough(image):
            return image

        class Pipeline:
            def __init__(self):
                self.handler = passthrough

            def __call__(self, image):
                return self.handler(image)

        def choose(pipeline, name):
            if name == "segment":
                pipeline.handler = segment

        class Tagger:
            def tag(self, text):
                return open("tags.txt").read()

        @app.on_event("startup")
        async def load():
            global tagger
            tagger = Tagger()
            app.state.pipeline = Pipeline()

        async def handle(image, text):
            tags = tagger.tag(text)
            return app.state.pipeline(image), tags

        @torch.no_grad()
        def decode(model, tokens):
            log.info("decoding %d", len(tokens))
            out = tokens.narrow(0, 0, 1)
            return model(out)

        async def run(model, tokens):
            return decode(model, tokens)
    """)
    assert found == {
        ("blocking_file_io", 'return onnxruntime.InferenceSession("seg.onnx").run(None, {"x": image})'),
        ("blocking_cpu", 'return onnxruntime.InferenceSession("seg.onnx").run(None, {"x": image})'),
        ("blocking_file_io", 'return open("tags.txt").read()'), ("blocking_cpu", "return model(out)")}


def test_classes_passed_in_and_tokenizers_are_no_forward_but_audio_loaders_block(tmp_path):
    found = flagged(tmp_path, """
        import librosa
        import torch
        from torch.nn import Linear

        class Block(torch.nn.Module):
            @torch.no_grad()
            def __init__(self, d, linear_cls: torch.nn.Module = Linear, tokenizer=None):
                super().__init__()
                self.proj = linear_cls(d, d)
                self.ids = tokenizer("hello")

        @torch.no_grad()
        def speak(model, path):
            wav, rate = librosa.load(path, sr=16000)
            return model(wav)

        async def handle(model, path):
            Block(4)
            return speak(model, path)
    """)
    assert found == {("blocking_file_io", "wav, rate = librosa.load(path, sr=16000)"),
                     ("blocking_cpu", "return model(wav)")}


def test_a_folder_without_init_is_still_imported_by_its_name(tmp_path):
    api = tmp_path / "api"
    (api / "models").mkdir(parents=True)
    (api / "models" / "__init__.py").write_text("from api.models.store import Store\n")
    (api / "models" / "store.py").write_text("import redis\n\nclass Store:\n    def __init__(self):\n"
                                             "        self.r = redis.Redis()\n\n    def read(self, k):\n"
                                             "        return self.r.get(k)\n")
    (api / "routes.py").write_text("from api.models import Store\n\nasync def read(store: Store, k):\n"
                                   "    return store.read(k)\n")
    report = analyze_path(api)
    assert [(f.kind, f.location["function"]) for f in report.findings] == [("blocking_db", "Store.read")]


def test_openai_compatible_sync_sdks_block_and_their_async_clients_do_not(tmp_path):
    found = flagged(tmp_path, """
        class Bot:
            def __init__(self, key):
                from zhipuai import ZhipuAI
                from somevendor import AsyncVendor
                self.client = ZhipuAI(api_key=key)
                self.aclient = AsyncVendor(api_key=key)
                self.notes = {"chat": None}

            async def ask(self, messages):
                reply = self.client.chat.completions.create(model="m", messages=messages)
                stream = self.aclient.chat.completions.create(model="m", messages=messages, stream=True)
                async for part in stream:
                    print(part)
                return reply
    """)
    assert found == {("blocking_http", 'reply = self.client.chat.completions.create(model="m", messages=messages)')}


def test_names_from_a_star_import_of_an_analysed_module(tmp_path):
    pkg = tmp_path / "app"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "handlers.py").write_text("import requests\n\ndef fetch(url):\n    return requests.get(url)\n")
    (pkg / "main.py").write_text("from app.handlers import *\n\nasync def serve(url):\n    return fetch(url)\n")
    report = analyze_path(pkg)
    assert [(f.kind, f.location["function"]) for f in report.findings] == [("blocking_http", "fetch")]
