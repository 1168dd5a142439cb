"""check blocking: the kinds held-out wave 70 (issue 17; OpenAI-compatible LLM servers, embedding, speech and model
serving toolkits) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test; the libraries are recognised by their imported names."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged

# -- multiprocessing: a manager's start() launches its server process, shutdown() stops and joins it -----------------

_QUEUES = """
    import asyncio
    from multiprocessing.managers import SyncManager
    from typing import Optional

    from fastapi import FastAPI

    app = FastAPI()
    _hub: Optional[SyncManager] = None


    def channel():
        global _hub
        if _hub is None:
            _hub = SyncManager()
            _hub.start()
        return _hub.Queue()


    @app.post("/jobs")
    async def submit(payload: dict):
        {call}
        return {"queued": True}


    @app.on_event("shutdown")
    async def close():
        if _hub is not None:
            _hub.shutdown()
"""


@pytest.mark.parametrize("call, on_loop", [("channel().put(payload)", True),
                                           ("(await asyncio.to_thread(channel)).put(payload)", False)],
                         ids=["started-on-the-loop", "started-in-a-thread"])
def test_a_managers_start_and_shutdown_on_the_loop_are_reported(tmp_path, call, on_loop):
    found = flagged(tmp_path, _QUEUES.replace("{call}", call))
    assert (("blocking_subprocess", "_hub.start()") in found) is on_loop
    assert ("blocking_subprocess", "_hub.shutdown()") in found  # the shutdown hook runs on the loop either way


def test_a_context_manager_named_manager_with_a_start_method_is_silent(tmp_path):
    source = """
        class Manager:
            def start(self):
                self.ready = True

            def shutdown(self):
                self.ready = False


        hub = Manager()


        async def handler():
            hub.start()
            hub.shutdown()
    """
    assert not flagged(tmp_path, source)


# -- ctransformers: LLM(model_path=...) loads the weights, calling the model generates in the calling thread ---------

_GGML = """
    import os

    from ctransformers import LLM
    from fastapi import FastAPI, Request
    from fastapi.concurrency import run_in_threadpool

    app = FastAPI()
    MODEL_FILE = os.environ["MODEL_FILE"]


    @app.on_event("startup")
    async def load():
        app.state.llm = {load}


    def complete(prompt: str, llm: LLM):
        return llm(prompt, max_new_tokens=64, stream=False)


    @app.post("/v1/completions")
    async def completions(request: Request, body: dict):
        return {"text": {use}}
"""


def _ggml(load: str = 'LLM(model_path=f"{os.getcwd()}/models/{MODEL_FILE}", model_type="llama")',
          use: str = 'complete(body["prompt"], request.app.state.llm)') -> str:
    return _GGML.replace("{load}", load).replace("{use}", use)


def test_a_ctransformers_llm_loaded_and_called_on_the_loop_is_reported(tmp_path):
    found = flagged(tmp_path, _ggml())
    assert ("blocking_file_io", 'app.state.llm = LLM(model_path=f"{os.getcwd()}/models/{MODEL_FILE}", '
                                'model_type="llama")') in found
    assert ("blocking_cpu", "return llm(prompt, max_new_tokens=64, stream=False)") in found


def test_a_ctransformers_call_in_the_thread_pool_is_silent(tmp_path):
    found = flagged(tmp_path, _ggml(use='await run_in_threadpool(complete, body["prompt"], request.app.state.llm)'))
    assert ("blocking_cpu", "return llm(prompt, max_new_tokens=64, stream=False)") not in found


def test_a_project_class_named_llm_is_not_ctransformers(tmp_path):
    source = """
        class LLM:
            def __init__(self, model_path):
                self.model_path = model_path

            def __call__(self, prompt):
                return prompt.upper()


        async def reply(prompt):
            return LLM("m")(prompt)
    """
    assert not flagged(tmp_path, source)


# -- google-cloud-storage: list_blobs yields Blob objects whose downloads are HTTP ----------------------------------

_BUCKET = """
    from pathlib import Path

    from google.cloud import storage


    def fetch_weights(bucket_name, prefix, target: Path):
        client = storage.Client()
        for blob in client.list_blobs(bucket_name, prefix=prefix):
            {use}


    async def warm_up():
        fetch_weights("models", "bert/", Path("/models"))
"""


def test_each_blob_of_a_listing_downloads_on_the_loop(tmp_path):
    found = flagged(tmp_path, _BUCKET.replace("{use}", "blob.download_to_filename(target / blob.name)"))
    assert ("blocking_http", "blob.download_to_filename(target / blob.name)") in found


def test_reading_a_listed_blobs_name_is_silent(tmp_path):
    found = flagged(tmp_path, _BUCKET.replace("{use}", "print(blob.name.upper())"))
    assert ("blocking_http", "print(blob.name.upper())") not in found


# -- a method's return annotation names the items a loop over it walks ----------------------------------------------

_WORKERS = """
    from multiprocessing import Process
    from typing import List


    class Worker:
        def __init__(self, target):
            self.process = Process(target=target)


    class Pool:
        def __init__(self):
            self._slots = []

        {getter}

        def join(self):
            for worker in {walk}:
                worker.process.join()


    pool = Pool()


    async def shutdown():
        pool.join()
"""
_PROPERTY = """@property
        def busy(self) -> List[Worker]:
            return [w for w in self._slots if w is not None]"""
_METHOD = """def busy(self) -> list[Worker]:
            return list(self._slots)"""
_JOINED = ("blocking_task", "worker.process.join()")


@pytest.mark.parametrize("getter, walk", [(_PROPERTY, "self.busy"), (_METHOD, "self.busy()")],
                         ids=["property", "method"])
def test_the_items_of_an_annotated_getter_are_its_item_class(tmp_path, getter, walk):
    assert _JOINED in flagged(tmp_path, _WORKERS.replace("{getter}", getter).replace("{walk}", walk))


def test_an_unannotated_getter_types_nothing(tmp_path):
    getter = _METHOD.replace(" -> list[Worker]", "")
    assert _JOINED not in flagged(tmp_path, _WORKERS.replace("{getter}", getter).replace("{walk}", "self.busy()"))


def test_the_items_of_a_getter_annotated_with_a_project_class_without_blocking_methods_are_silent(tmp_path):
    source = _WORKERS.replace("{getter}", _PROPERTY).replace("{walk}", "self.busy").replace(
        "self.process = Process(target=target)", "self.process = target")
    assert _JOINED not in flagged(tmp_path, source)


# -- an executor's with block in a coroutine: its end waits for work a time limit gave up on ------------------------

_SCAN = """
    import asyncio
    import concurrent.futures

    from fastapi import FastAPI, HTTPException

    app = FastAPI()


    def scan(text):
        return text.lower()


    @app.post("/scan")
    async def check(text: str):
        with concurrent.futures.ThreadPoolExecutor() as pool:
            loop = asyncio.get_running_loop()
            try:
                verdict = {wait}
            except asyncio.TimeoutError:
                raise HTTPException(status_code=408)
        return {"verdict": verdict}
"""
_EXIT = ("blocking_task", "with concurrent.futures.ThreadPoolExecutor() as pool:")


@pytest.mark.parametrize("wait", [
    "await asyncio.wait_for(loop.run_in_executor(pool, scan, text), timeout=2.0)",
    "await asyncio.wait_for(asyncio.wrap_future(pool.submit(scan, text)), 2.0)",
    "pool.submit(scan, text)\n                verdict = await asyncio.wait_for(asyncio.wrap_future(verdict), 2.0)",
], ids=["run_in_executor", "submit", "stored-future"])
def test_a_timed_wait_on_the_pool_makes_the_block_end_wait(tmp_path, wait):
    assert _EXIT in flagged(tmp_path, _SCAN.replace("{wait}", wait))


@pytest.mark.parametrize("wait", [
    "await loop.run_in_executor(pool, scan, text)",
    "await asyncio.wrap_future(pool.submit(scan, text))",
    "await loop.run_in_executor(None, pool.submit(scan, text).result)",
    "await asyncio.wait_for(loop.run_in_executor(pool, scan, text), timeout=None)",
    "scan(text)",
], ids=["awaited", "wrapped", "result-in-another-pool", "no-limit", "no-work"])
def test_a_pool_whose_work_is_awaited_to_the_end_is_silent(tmp_path, wait):
    assert _EXIT not in flagged(tmp_path, _SCAN.replace("{wait}", wait))


def test_the_same_block_in_a_worker_thread_function_is_silent(tmp_path):
    source = """
        import asyncio
        import concurrent.futures


        def scan_all(texts):
            with concurrent.futures.ThreadPoolExecutor() as pool:
                return [f.result(timeout=2) for f in [pool.submit(str.lower, t) for t in texts]]


        async def check(texts):
            return await asyncio.to_thread(scan_all, texts)
    """
    assert _EXIT not in flagged(tmp_path, source)


# -- a class picked from a literal table of classes: its static method runs ------------------------------------------

_CODECS = """
    import io
    import json

    from PIL import Image


    class TextCodec:
        @staticmethod
        def decode(raw):
            return json.loads(raw)


    class PictureCodec:
        @staticmethod
        def decode(raw):
            return Image.open(io.BytesIO(raw)).convert("L")


    CODECS = {"application/json": TextCodec, "image/jpeg": PictureCodec, "text/csv": None}


    def codec_for(media_type):
        if media_type not in CODECS:
            raise KeyError(media_type)
        return CODECS[media_type]


    async def infer(request):
        raw = await request.body()
        return {pick}.decode(raw)
"""
_DECODED = ("blocking_cpu", 'return Image.open(io.BytesIO(raw)).convert("L")')


@pytest.mark.parametrize("pick", ['CODECS[request.headers["content-type"]]',
                                  'CODECS.get(request.headers["content-type"])',
                                  'codec_for(request.headers["content-type"])'],
                         ids=["subscript", "get", "lookup-function"])
def test_a_method_of_a_class_picked_from_a_table_runs_on_the_loop(tmp_path, pick):
    assert _DECODED in flagged(tmp_path, _CODECS.replace("{pick}", pick))


def test_a_lookup_function_returning_something_else_too_picks_nothing(tmp_path):
    source = _CODECS.replace("{pick}", 'codec_for(request.headers["content-type"])').replace(
        "raise KeyError(media_type)", "return make_default()")
    assert _DECODED not in flagged(tmp_path, source)


def test_a_picked_class_whose_method_runs_in_a_thread_is_silent(tmp_path):
    source = _CODECS.replace("{pick}", 'await asyncio.to_thread(CODECS[request.headers["content-type"]]') \
        .replace(".decode(raw)", ".decode, raw)").replace("import io", "import asyncio\n    import io")
    assert _DECODED not in flagged(tmp_path, source)


# -- input() in a coroutine waits for the user on the loop -----------------------------------------------------------

_CHAT = """
    import asyncio


    {helper}


    async def chat(client):
        while True:
            message = {read}
            print(await client.reply(message))
"""


def test_console_input_in_a_coroutine_is_reported(tmp_path):
    found = flagged(tmp_path, _CHAT.replace("{helper}", "").replace("{read}", 'input("user: ")'))
    assert ("blocking_file_io", 'message = input("user: ")') in found


def test_console_input_in_a_thread_or_a_project_function_named_input_is_silent(tmp_path):
    offloaded = _CHAT.replace("{helper}", "").replace("{read}", 'await asyncio.to_thread(input, "user: ")')
    assert not flagged(tmp_path, offloaded)
    shadowed = _CHAT.replace("{helper}", "def input(prompt):\n        return prompt.strip()").replace(
        "{read}", 'input("user: ")')
    assert not flagged(tmp_path, shadowed)
