"""check blocking: kinds first seen on unseen services in wave 24 (issue 17) -- a Milvus collection searched
through pymilvus's synchronous ORM or client, an Atomic Agents agent answering through ``run``. Each blocker is
found at its line; each healthy look-alike (the offloaded call, the async twin, a project's own class with the
same method names) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_milvus_orm_connect_collection_and_search_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        from pymilvus import Collection, MilvusClient, connections, utility

        def lookup(vector, name):
            connections.connect(alias="default", host="vectors", port="19530")
            shelf = Collection(name)
            shelf.load()
            return shelf.search(data=[vector], anns_field="emb", param={}, limit=3)

        async def nearest(vector):
            return lookup(vector, "notes")

        async def count(name):
            client = MilvusClient(uri="http://vectors:19530")
            if utility.has_collection(name):
                return client.query(collection_name=name, filter="id > 0")
    """)
    assert found == {("blocking_db", 'connections.connect(alias="default", host="vectors", port="19530")'),
                     ("blocking_db", "shelf = Collection(name)"),
                     ("blocking_db", "shelf.load()"),
                     ("blocking_db", 'return shelf.search(data=[vector], anns_field="emb", param={}, limit=3)'),
                     ("blocking_db", "if utility.has_collection(name):"),
                     ("blocking_db", 'return client.query(collection_name=name, filter="id > 0")')}


def test_milvus_offloaded_the_async_client_and_a_schema_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from pymilvus import AsyncMilvusClient, Collection, CollectionSchema, DataType, FieldSchema

        def lookup(vector):
            shelf = Collection("notes")
            return shelf.search(data=[vector], anns_field="emb", param={}, limit=3)

        class Shelf:
            def search(self, vector):
                return [vector]

            def load(self):
                return None

        async def nearest(vector, shelf: Shelf):
            schema = CollectionSchema([FieldSchema("id", DataType.INT64, is_primary=True)])
            shelf.load()
            local = shelf.search(vector)
            hits = await asyncio.to_thread(lookup, vector)
            client = AsyncMilvusClient(uri="http://vectors:19530")
            more = await client.search(collection_name="notes", data=[vector], limit=3)
            return schema, local, hits, more
    """)
    assert found == set()


def test_atomic_agent_run_on_the_loop_blocks_for_a_subclass_too(tmp_path):
    found = flagged(tmp_path, """
        from atomic_agents import AgentConfig, AtomicAgent

        class Helper(AtomicAgent):
            pass

        def make(config: AgentConfig) -> AtomicAgent:
            return AtomicAgent(config)

        async def reply(config: AgentConfig, question):
            agent = make(config)
            return agent.run(question)

        async def reply_helper(helper: Helper, question):
            return helper.run(question)
    """)
    assert found == {("blocking_http", "return agent.run(question)"),
                     ("blocking_http", "return helper.run(question)")}


def test_atomic_agent_run_async_offloaded_run_and_an_own_run_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from atomic_agents import AgentConfig, AtomicAgent

        class Job:
            def run(self, question):
                return question

        async def reply(config: AgentConfig, question, job: Job):
            agent = AtomicAgent(config)
            first = await agent.run_async(question)
            second = await asyncio.to_thread(agent.run, question)
            return first, second, job.run(question)
    """)
    assert found == set()


def test_a_subscripted_third_party_generic_is_an_instance_of_its_class(tmp_path):
    found = flagged(tmp_path, """
        from atomic_agents import AtomicAgent, BaseIOSchema

        class Ask(BaseIOSchema):
            text: str

        def make(config) -> AtomicAgent[Ask, Ask]:
            return AtomicAgent[Ask, Ask](config)

        async def reply(config, question):
            agent = make(config)
            spare = AtomicAgent[Ask, Ask](config)
            return agent.run(question), spare.run(question)
    """)
    assert found == {("blocking_http", "return agent.run(question), spare.run(question)")}


def test_subscripted_containers_typing_forms_and_lookups_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        from typing import Annotated, Generic, TypeVar

        from atomic_agents import AtomicAgent

        T = TypeVar("T")

        class Box(Generic[T]):
            def run(self, item):
                return item

        def pick(boxes: dict[str, Box[int]], name) -> Box[int]:
            return boxes[name]

        async def reply(boxes: dict[str, Box[int]], runners: list[AtomicAgent], note: Annotated[str, "text"],
                        makers, question):
            box = pick(boxes, "a")
            made = makers["fast"](question)
            return box.run(question), runners.count(None), note.upper(), made
    """)
    assert found == set()


def test_package_resources_read_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        import importlib.resources as bundled
        import pkgutil
        from importlib import resources
        from importlib.resources import files

        def render():
            with resources.files("shop.web").joinpath("page.html").open("r", encoding="utf-8") as f:
                page = f.read()
            style = bundled.files("shop").joinpath("static", "site.css").read_text()
            icon = (files("shop") / "icon.svg").read_bytes()
            return page, style, icon

        async def home():
            return render(), pkgutil.get_data("shop", "banner.txt")
    """)
    assert found == {
        ("blocking_file_io",
         'with resources.files("shop.web").joinpath("page.html").open("r", encoding="utf-8") as f:'),
        ("blocking_file_io", 'style = bundled.files("shop").joinpath("static", "site.css").read_text()'),
        ("blocking_file_io", 'icon = (files("shop") / "icon.svg").read_bytes()'),
        ("blocking_file_io", 'return render(), pkgutil.get_data("shop", "banner.txt")')}


def test_package_resources_located_only_or_read_off_the_loop_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from importlib.resources import files

        PAGE = files("shop.web").joinpath("page.html").read_text()

        def read(name):
            return files("shop").joinpath(name).read_text()

        async def home():
            where = files("shop") / "static"
            name = files("shop").joinpath("page.html").name
            style = await asyncio.to_thread(read, "site.css")
            return PAGE, str(where), name, style
    """)
    assert found == set()


def test_ctranslate2_model_loaded_and_run_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        from dataclasses import dataclass

        import ctranslate2

        @dataclass
        class Bundle:
            translator: ctranslate2.Translator

        def load(folder):
            return Bundle(translator=ctranslate2.Translator(folder, device="cpu"))

        class Session:
            def __init__(self, bundle: Bundle):
                self.bundle = bundle

            def render(self, pieces):
                return self.bundle.translator.translate_batch([pieces], target_prefix=[["fra_Latn"]])

        async def start(folder):
            return Session(load(folder))

        async def turn(session: Session, pieces):
            return session.render(pieces)
    """)
    assert found == {("blocking_file_io", 'return Bundle(translator=ctranslate2.Translator(folder, device="cpu"))'),
                     ("blocking_cpu",
                      'return self.bundle.translator.translate_batch([pieces], target_prefix=[["fra_Latn"]])')}


def test_ctranslate2_work_in_a_thread_and_an_own_translator_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import ctranslate2

        class Translator:
            def translate_batch(self, batch):
                return batch

        def render(folder, pieces):
            model = ctranslate2.Translator(folder)
            return model.translate_batch([pieces])

        async def turn(folder, pieces, mine: Translator):
            done = await asyncio.to_thread(render, folder, pieces)
            return done, mine.translate_batch([pieces])
    """)
    assert found == set()


def test_an_image_a_diffusers_pipeline_returned_saved_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        from diffusers import StableDiffusionPipeline

        async def paint(prompt, folder):
            pipe = StableDiffusionPipeline.from_pretrained(folder)
            first = pipe(prompt).images[0]
            first.save("first.png")
            legacy = pipe(prompt, guidance_scale=7.0)["sample"][0]
            legacy.save("legacy.png")
    """)
    assert found == {("blocking_file_io", "pipe = StableDiffusionPipeline.from_pretrained(folder)"),
                     ("blocking_cpu", "first = pipe(prompt).images[0]"),
                     ("blocking_file_io", 'first.save("first.png")'),
                     ("blocking_cpu", 'legacy = pipe(prompt, guidance_scale=7.0)["sample"][0]'),
                     ("blocking_file_io", 'legacy.save("legacy.png")')}


def test_pipeline_images_saved_in_a_thread_stay_silent_and_encoded_in_memory_block(tmp_path):
    """Stop 34 decided the second half: encoding a PNG into an io.BytesIO is Pillow's compressor on the loop
    (blocking_cpu, as resize is), not a memory copy (see faultlib/detect/serving/blocking/encodes.py)."""
    found = flagged(tmp_path, """
        import asyncio
        import io

        from diffusers import StableDiffusionPipeline

        def paint(pipe: StableDiffusionPipeline, prompt):
            image = pipe(prompt).images[0]
            image.save("out.png")
            return image

        async def serve(pipe: StableDiffusionPipeline, prompt):
            image = await asyncio.to_thread(paint, pipe, prompt)
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            return image.size, buffer.getvalue()
    """)
    assert found == {("blocking_cpu", 'image.save(buffer, format="PNG")')}


def test_an_unlisted_client_by_its_class_name_blocks(tmp_path):
    found = flagged(tmp_path, """
        from acme_reports import ReportsClient
        from acme_store.db import StoreConnection

        reports = ReportsClient(token="t")

        def fetch(view):
            return reports.get_view(view)

        async def show(view, dsn):
            rows = StoreConnection(dsn).select("SELECT 1")
            return fetch(view), rows
    """)
    assert found == {("blocking_http", "return reports.get_view(view)"),
                     ("blocking_db", 'rows = StoreConnection(dsn).select("SELECT 1")')}


def test_async_twins_chat_frameworks_awaited_calls_and_local_state_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import discord
        from acme_reports import AsyncReportsClient, ReportsClient
        from acme_reports.aio import ReportsSession

        async def show(view, bot: discord.Client, session: ReportsSession):
            quick = AsyncReportsClient(token="t")
            first = await quick.get_view(view)
            second = await session.get_view(view)
            channel = bot.get_channel(7)
            client = ReportsClient(token="t")
            client.close()
            return first, second, channel, await client.fetch_async(view)
    """)
    assert found == set()


def test_an_instructor_wrapped_sync_client_blocks_and_the_async_one_does_not(tmp_path):
    found = flagged(tmp_path, """
        import instructor
        from openai import AsyncOpenAI, OpenAI

        class Classifier:
            def __init__(self):
                self.sync = instructor.from_openai(OpenAI(base_url="http://llm"), mode=instructor.Mode.JSON)
                self.quick = instructor.from_openai(AsyncOpenAI())

            def label(self, text):
                return self.sync.chat.completions.create(model="m", messages=[text], response_model=str)

            async def label_async(self, text):
                return await self.quick.chat.completions.create(model="m", messages=[text], response_model=str)

        async def route(text):
            judge = Classifier()
            return judge.label(text), await judge.label_async(text)
    """)
    assert found == {
        ("blocking_http", 'return self.sync.chat.completions.create(model="m", messages=[text], response_model=str)')}


def test_an_instance_a_factory_made_from_either_class_runs_either_method(tmp_path):
    found = flagged(tmp_path, """
        class QuickEngine:
            def step(self, chunk):
                return chunk

        class DiskEngine:
            def step(self, chunk):
                with open("spool.bin", "ab") as f:
                    f.write(chunk)

        def make_engine(kind):
            if kind == "quick":
                engine = QuickEngine()
            else:
                engine = DiskEngine()
            return engine

        class Stream:
            def __init__(self, kind):
                self.engine = make_engine(kind)

            async def feed(self, chunk):
                return self.engine.step(chunk)
    """)
    assert found == {("blocking_file_io", 'with open("spool.bin", "ab") as f:')}


def test_a_factory_of_one_class_or_a_step_offloaded_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        class QuickEngine:
            def step(self, chunk):
                return chunk

        class DiskEngine:
            def step(self, chunk):
                with open("spool.bin", "ab") as f:
                    f.write(chunk)

        def make_quick(kind):
            engine = QuickEngine()
            return engine

        def make_engine(kind):
            return QuickEngine() if kind == "quick" else DiskEngine()

        class Stream:
            def __init__(self, kind):
                self.quick = make_quick(kind)
                self.engine = make_engine(kind)

            async def feed(self, chunk):
                await asyncio.to_thread(self.engine.step, chunk)
                return self.quick.step(chunk)
    """)
    assert found == set()
