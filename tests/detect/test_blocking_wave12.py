"""check blocking: kinds first seen on unseen services in wave 12 (issue 17) -- diffusers pipelines and models
(``register_modules`` attributes, ``from_pretrained`` instances), TinyDB, Starlette's ``UploadFile.file``,
``tempfile.TemporaryDirectory``, parameters annotated ``Any`` typed from their call sites, and
``request.app.state.x`` set in another module. Each blocker is
found at its line; each healthy look-alike (the async twin, the offloaded call) stays silent. Every example is
written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_a_diffusers_pipeline_call_blocks_and_its_offloaded_twin_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from diffusers import StableDiffusionPipeline

        pipe = StableDiffusionPipeline.from_pretrained("some/model")

        async def paint(prompt):
            return pipe(prompt).images[0]

        async def paint_off_loop(prompt):
            return (await asyncio.to_thread(pipe, prompt)).images[0]
    """)
    # the module-level load runs at import, before any loop
    assert found == {("blocking_cpu", "return pipe(prompt).images[0]")}


def test_a_pipeline_subclass_runs_its_registered_modules(tmp_path):
    found = flagged(tmp_path, """
        import torch
        from diffusers import AutoencoderKL, DiffusionPipeline, UNet2DConditionModel

        class MyPipeline(DiffusionPipeline):
            def __init__(self, vae: AutoencoderKL, unet: UNet2DConditionModel, scheduler):
                super().__init__()
                self.register_modules(vae=vae, unet=unet, scheduler=scheduler)

            @torch.no_grad()
            def __call__(self, latents, steps):
                for t in range(steps):
                    latents = self.unet(latents, t)
                    latents = self.scheduler.step(latents, t)
                return self.vae.decode(latents)

        class Painter:
            def __init__(self):
                vae = AutoencoderKL.from_pretrained("m", subfolder="vae")
                unet = UNet2DConditionModel.from_pretrained("m", subfolder="unet")
                self.pipe = MyPipeline(vae, unet, None)

        painter = Painter()

        async def paint(latents):
            return painter.pipe(latents, 50)
    """)
    # the scheduler is registered too, but nothing types it: its step is not taken for a model
    assert found == {("blocking_cpu", "latents = self.unet(latents, t)"),
                     ("blocking_cpu", "return self.vae.decode(latents)")}


def test_a_vae_loaded_with_from_pretrained_is_that_model_and_an_unrelated_helper_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        import torch
        from diffusers import AutoencoderKL

        class Codec:
            def __init__(self):
                self.vae = AutoencoderKL.from_pretrained("m", subfolder="vae").eval()

            @torch.no_grad()
            def roundtrip(self, image):
                return self.vae.decode(self.vae.encode(image).latent_dist.sample())

            def size(self, image):
                return image.shape

        codec = Codec()

        async def check(image):
            return codec.roundtrip(image), codec.size(image)
    """)
    assert found == {("blocking_cpu", "return self.vae.decode(self.vae.encode(image).latent_dist.sample())")}


def test_tinydb_queries_block_and_an_offloaded_query_does_not(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from tinydb import Query, TinyDB

        db = TinyDB("settings.json")
        users = db.table("users")

        def setting(name):
            return db.search(Query().name == name)

        async def read(name):
            return setting(name)

        async def add_user(user):
            users.insert(user)

        async def read_off_loop(name):
            return await asyncio.to_thread(setting, name)
    """)
    assert found == {("blocking_file_io", "return db.search(Query().name == name)"),
                     ("blocking_file_io", "users.insert(user)")}


def test_reading_an_upload_through_its_file_blocks_and_awaiting_its_read_does_not(tmp_path):
    found = flagged(tmp_path, """
        from fastapi import FastAPI, UploadFile

        app = FastAPI()

        def content(upload: UploadFile) -> bytes:
            return upload.file.read()

        @app.post("/sync-read")
        async def sync_read(upload: UploadFile):
            return len(content(upload))

        @app.post("/async-read")
        async def async_read(upload: UploadFile):
            data = await upload.read()
            return len(data)

        @app.post("/threadpool")
        def threadpool(upload: UploadFile):
            return len(upload.file.read())
    """)
    assert found == {("blocking_file_io", "return upload.file.read()")}


def test_a_temporary_directory_blocks_but_mkdtemp_alone_is_not_reported(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import tempfile

        def render(code):
            with tempfile.TemporaryDirectory() as folder:
                return folder

        async def on_click(code):
            return render(code)

        async def scratch():
            return tempfile.mkdtemp()

        async def scratch_off_loop():
            return await asyncio.to_thread(tempfile.mkdtemp)

        async def on_click_off_loop(code):
            return await asyncio.to_thread(render, code)
    """)
    # mkdtemp is one mkdir (single-inode metadata, like os.makedirs); the directory's removal is what costs
    assert found == {("blocking_file_io", "with tempfile.TemporaryDirectory() as folder:")}


def test_a_parameter_annotated_any_takes_the_type_its_callers_pass(tmp_path):
    found = flagged(tmp_path, """
        from typing import Any
        from qdrant_client import AsyncQdrantClient, QdrantClient

        class Collection:
            def __init__(self, client: Any, name: str):
                self.client = client
                self.name = name

            def count(self):
                return self.client.count(self.name)

        class AsyncCollection:
            def __init__(self, client: Any):
                self.client = client

            async def count(self, name):
                return await self.client.count(name)

        sync_store = Collection(QdrantClient(url="http://localhost:6333"), "docs")
        async_store = AsyncCollection(AsyncQdrantClient(url="http://localhost:6333"))

        async def stats():
            return sync_store.count(), await async_store.count("docs")
    """)
    assert found == {("blocking_http", "return self.client.count(self.name)")}


def test_the_app_state_set_in_one_module_types_request_app_state_in_another(tmp_path):
    root = tmp_path / "svc"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "main.py").write_text(textwrap.dedent("""
        from contextlib import asynccontextmanager
        from fastapi import FastAPI
        from svc.store import AsyncStore, Store

        @asynccontextmanager
        async def lifespan(app: FastAPI):
            app.state.store = Store()
            app.state.fast_store = AsyncStore()
            yield

        app = FastAPI(lifespan=lifespan)
    """))
    (root / "store.py").write_text(textwrap.dedent("""
        import requests

        class Store:
            def fetch(self, key):
                return requests.get(f"http://kv/{key}").json()

        class AsyncStore:
            async def fetch(self, key):
                return key
    """))
    (root / "routes.py").write_text(textwrap.dedent("""
        from fastapi import APIRouter, Request

        router = APIRouter()

        @router.get("/slow/{key}")
        async def slow(request: Request, key: str):
            return request.app.state.store.fetch(key)

        @router.get("/fast/{key}")
        async def fast(request: Request, key: str):
            return await request.app.state.fast_store.fetch(key)
    """))
    report = analyze_path(root)
    assert report.complete
    found = {(f.kind, f.location["file"].rpartition("/")[2], f.location["line"]) for f in report.findings}
    assert found == {("blocking_http", "store.py", 6)}
