"""check blocking: the known kinds older held-out waves left, second part (issue 17, stop 55). Each blocker is found
at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

_GENAI = """
    from google import genai

    client = genai.Client()


    async def answer(question):
        session = client.chats.create(model="gemini-2.5-flash")
        stored = client.caches.create(model="gemini-2.5-flash", config={"contents": [question]})
        sent = client.files.upload(file="notes.txt")
        return session.send_message(question), stored, sent
"""


def test_genai_namespace_requests_are_found_and_a_local_chat_is_not(tmp_path):
    assert flagged(tmp_path, _GENAI) == {
        ("blocking_http", 'stored = client.caches.create(model="gemini-2.5-flash", config={"contents": [question]})'),
        ("blocking_http", 'sent = client.files.upload(file="notes.txt")'),
        ("blocking_http", "return session.send_message(question), stored, sent"),
    }


_TRANSCRIBER = """
    from typing import Iterable

    from fastapi import FastAPI
    from fastapi.responses import StreamingResponse
    from faster_whisper import WhisperModel

    app = FastAPI()
    whisper = WhisperModel("base")


    def lines(parts: Iterable):
        for part in parts:
            yield part.text + "\\n"


    def tidy(path):
        parts, about = whisper.transcribe(path)

        def stripped():
            for part in parts:
                part.text = part.text.strip()
                yield part

        return stripped(), about


    def gather(parts: Iterable, about):
        return [part.text for part in parts], about.language
"""


def test_iterating_faster_whisper_segments_in_a_coroutine_is_found(tmp_path):
    found = flagged(tmp_path, _TRANSCRIBER + """
    @app.post("/words")
    async def words(path: str):
        parts, about = whisper.transcribe(path)
        texts = [part.text for part in parts]
        first = next(parts)
        for part in parts:
            texts.append(part.text)
        return texts, first, list(parts)
    """)
    iterated = {line for kind, line in found if kind == "blocking_cpu" and "transcribe" not in line}
    assert iterated == {"texts = [part.text for part in parts]", "first = next(parts)", "for part in parts:",
                        "return texts, first, list(parts)"}


def test_segments_forwarded_and_drained_in_a_helper_are_found_there(tmp_path):
    found = flagged(tmp_path, _TRANSCRIBER + """
    @app.post("/text")
    async def text(path: str):
        parts, about = tidy(path)
        return gather(parts, about)
    """)
    assert ("blocking_cpu", "return [part.text for part in parts], about.language") in found


def test_segments_streamed_or_left_unread_are_silent(tmp_path):
    found = flagged(tmp_path, _TRANSCRIBER + """
    @app.post("/stream")
    async def stream(path: str):
        parts, about = tidy(path)
        return StreamingResponse(lines(parts), media_type="text/plain")


    @app.post("/language")
    async def language(path: str):
        parts, about = whisper.transcribe(path)
        return about.language
    """)
    assert {line for _, line in found} == {"parts, about = whisper.transcribe(path)"}


_OWN_PIPELINE = {
    "deepsparse/__init__.py": "from deepsparse.pipeline import Pipeline\n",
    "deepsparse/pipeline.py": """
        class Pipeline:
            def __init__(self, engine):
                self.engine = engine

            def __call__(self, *args, **kwargs):
                return self.engine.compiled(list(args))

            def describe(self):
                return {"engine": str(self.engine)}
    """,
    "deepsparse/server/__init__.py": "",
    "deepsparse/server/app.py": """
        from fastapi import FastAPI

        from deepsparse.pipeline import Pipeline

        app = FastAPI()


        class Held:
            def __init__(self, pipeline: Pipeline):
                self.pipeline = pipeline


        held = Held(Pipeline(None))


        @app.post("/run")
        async def run(body: dict):
            return held.pipeline(**body)


        @app.get("/about")
        async def about():
            return held.pipeline.describe()
    """,
}


def test_a_described_librarys_own_pipeline_called_on_the_loop_is_found(tmp_path):
    assert flagged_package(tmp_path, _OWN_PIPELINE) == {
        ("deepsparse/server/app.py", "blocking_cpu", "return held.pipeline(**body)")}


def test_an_undescribed_package_with_the_same_shape_is_followed_and_silent(tmp_path):
    renamed = {k.replace("deepsparse", "sparsekit"): v.replace("deepsparse", "sparsekit")
               for k, v in _OWN_PIPELINE.items()}
    assert flagged_package(tmp_path, renamed) == set()


_RENDER_POOL = """
    import asyncio
    from concurrent.futures import ProcessPoolExecutor
    from dataclasses import dataclass, field

    from fastapi import FastAPI

    app = FastAPI()


    def render(page):
        return page * 2


    @dataclass
    class Renders:
        pool: ProcessPoolExecutor
        pending: list = field(default_factory=list)


    def queue_renders(renders, pages):
        for page in pages:
            handle = renders.pool.submit(render, page)
            {keep}


    @app.post("/render")
    async def render_all(pages: list):
        renders = Renders(ProcessPoolExecutor(max_workers=2))
        queue_renders(renders, pages)
        try:
            if renders.pending:
                await asyncio.gather(*(asyncio.wrap_future(h) for h in renders.pending), return_exceptions=True)
        finally:
            renders.pool.shutdown(wait=True)
"""


def test_a_pool_shut_down_after_gathering_every_future_kept_elsewhere_is_silent(tmp_path):
    found = flagged(tmp_path, _RENDER_POOL.replace("{keep}", "renders.pending.append(handle)"))
    assert not any("shutdown" in line for _, line in found)


def test_a_pool_shut_down_with_a_future_not_kept_is_found(tmp_path):
    found = flagged(tmp_path, _RENDER_POOL.replace("{keep}", "print(handle)"))
    assert ("blocking_task", "renders.pool.shutdown(wait=True)") in found
