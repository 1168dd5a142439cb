"""check blocking: kinds stop 31 left (issue 17), fixed at stop 33 -- tensors read out of a safetensors file, a
Celery task sent from the loop (decided a blocker: see faultlib/detect/serving/blocking/tasks.py), waiting for the
GPU (`torch.cuda` synchronize). Each blocker is found at its line; each look-alike stays silent. Every example is
written for this test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def flagged_in_folder(tmp_path, files: dict[str, str]) -> set[tuple[str, str, str]]:
    """``(file, kind, stripped line)`` of every finding when the folder of ``files`` is analysed."""
    for name, source in files.items():
        (tmp_path / name).write_text(textwrap.dedent(source))
    report = analyze_path(tmp_path)
    assert report.complete
    return {(Path(f.location["file"]).name, f.kind,
             (tmp_path / Path(f.location["file"]).name).read_text().splitlines()[f.location["line"] - 1].strip())
            for f in report.findings}

def test_reading_tensors_out_of_a_safetensors_file_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        from safetensors import safe_open
        from safetensors.torch import load_file, save_file

        def weights(path):
            out = {}
            with safe_open(path, framework="pt") as handle:
                names = list(handle.keys())
                for name in names:
                    out[name] = handle.get_tensor(name)
            return out

        async def warm(app, path):
            app.state = weights(path)
            app.extra = load_file("extra.safetensors")
            save_file(app.extra, "copy.safetensors")
    """)
    assert found == {("blocking_file_io", "out[name] = handle.get_tensor(name)"),
                     ("blocking_file_io", 'app.extra = load_file("extra.safetensors")'),
                     ("blocking_file_io", 'save_file(app.extra, "copy.safetensors")')}


def test_safetensors_read_in_a_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from safetensors.torch import load_file

        async def warm(app):
            app.extra = await asyncio.to_thread(load_file, "extra.safetensors")
    """)
    assert found == set()


def test_sending_a_celery_task_from_the_loop_blocks(tmp_path):
    found = flagged_in_folder(tmp_path, {"jobs.py": JOBS, "api.py": """
        from jobs import crawl, index_page

        def schedule(urls):
            for url in urls:
                crawl.delay(url)

        async def start(urls):
            schedule(urls)
            index_page.apply_async(args=(urls[0],), countdown=5)
    """})
    assert found == {("api.py", "blocking_socket_io", "crawl.delay(url)"),
                     ("api.py", "blocking_socket_io", "index_page.apply_async(args=(urls[0],), countdown=5)")}


def test_a_celery_task_sent_from_a_thread_or_a_plain_delay_method_is_silent(tmp_path):
    found = flagged_in_folder(tmp_path, {"jobs.py": JOBS, "api.py": """
        import asyncio
        from jobs import crawl, Pacer

        async def start(url):
            await asyncio.to_thread(crawl.delay, url)
            return Pacer().delay(3)
    """})
    assert found == set()


JOBS = """
    from celery import Celery, shared_task

    app = Celery("jobs", broker="redis://queue:6379/0")

    @app.task(name="jobs.crawl")
    def crawl(url):
        return url

    @shared_task
    def index_page(url):
        return url

    class Pacer:
        def delay(self, seconds):
            return seconds * 2
"""


def test_waiting_for_the_gpu_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import torch

        def make_runner(engine):
            def run(inputs):
                engine.execute_async_v2(inputs, torch.cuda.current_stream().cuda_stream)
                torch.cuda.current_stream().synchronize()
                return inputs
            return run

        class Encoder:
            def __init__(self, engine):
                self.run = make_runner(engine)

            def encode(self, inputs):
                return self.run(inputs)

        async def encode(encoder: Encoder, batch):
            return encoder.encode(batch)
    """)
    assert found == {("blocking_cpu", "torch.cuda.current_stream().synchronize()")}


def test_queuing_gpu_work_without_waiting_or_emptying_the_cache_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import torch

        async def encode(batch):
            stream = torch.cuda.current_stream()
            handle = stream.cuda_stream
            await asyncio.to_thread(stream.synchronize)
            return batch, handle

        async def unload(models):
            models.clear()
            torch.cuda.empty_cache()
            torch.cuda.synchronize()
    """)
    assert found == set()


def test_a_model_class_built_with_its_inherited_from_pretrained_runs_its_forward(tmp_path):
    found = flagged(tmp_path, """
        import transformers

        class Tagger(transformers.PreTrainedModel):
            def forward(self, ids):
                return ids

        class Service:
            def __init__(self, name):
                self.tagger = Tagger.from_pretrained(name)

            def tag(self, ids):
                return self.tagger(ids)

        async def tag(service: Service, ids):
            return service.tag(ids)
    """)
    assert ("blocking_cpu", "return self.tagger(ids)") in found


def test_a_plain_class_built_with_a_from_constructor_is_silent(tmp_path):
    found = flagged(tmp_path, """
        class Settings:
            def __init__(self, values):
                self.values = values

            @classmethod
            def from_dict(cls, values):
                return cls(values)

            def __call__(self, key):
                return self.values[key]

        class Service:
            def __init__(self, values):
                self.settings = Settings.from_dict(values)

            def get(self, key):
                return self.settings(key)

        async def get(service: Service, key):
            return service.get(key)
    """)
    assert found == set()


def test_a_framework_verb_on_an_untyped_value_blocks_where_the_module_imports_the_framework(tmp_path):
    found = flagged(tmp_path, """
        from tinygrad import Tensor
        from registry import build_model

        class Engine:
            def __init__(self, path):
                self.model = build_model(path)

            async def infer(self, tokens):
                out = self.model(Tensor([tokens])).realize()
                return out.tolist()
    """)
    assert found == {("blocking_cpu", "out = self.model(Tensor([tokens])).realize()")}


def test_the_same_verb_without_the_framework_imported_is_silent(tmp_path):
    found = flagged(tmp_path, """
        from registry import build_plan

        class Planner:
            def __init__(self, path):
                self.plan = build_plan(path)

            async def run(self):
                return self.plan.realize()
    """)
    assert found == set()


EMBEDDERS = """
    class EmbedderSettings:
        name = "openai"

        @classmethod
        def build(cls, config):
            return cls.provider(**config)

    def load_embedder(config) -> EmbedderSettings:
        return EmbedderSettings.build(config)

    class Memory:
        def __init__(self, config):
            self.embedder = load_embedder(config)

        async def recall(self, text):
            return self.embedder.embed_query(text)

        async def store(self, texts):
            return self.embedder.aembed_documents(texts)
"""


def test_a_sync_embedding_call_on_a_wrongly_typed_or_untyped_embedder_blocks(tmp_path):
    found = flagged(tmp_path, EMBEDDERS)
    assert found == {("blocking_http", "return self.embedder.embed_query(text)")}


def test_embed_query_of_a_class_that_defines_it_is_followed_not_guessed(tmp_path):
    found = flagged(tmp_path, """
        class Hasher:
            def embed_query(self, text):
                return [hash(text) % 7]

        async def recall(hasher: Hasher, text):
            return hasher.embed_query(text)
    """)
    assert found == set()
