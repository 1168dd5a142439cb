"""check blocking: kinds first seen on unseen services in wave 25 (issue 17) -- a help-desk SDK (Zenpy) called
from an MCP tool, kafka-python's producer built, flushed and waited on in async code, and the object a model
loader returns (``torch.hub.load``) called per request. Each blocker is found at its line; each healthy look-alike
(the offloaded call, the async twin, a project's own class with the same method names) stays silent. Every
example is written for this test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def test_zenpy_calls_and_sub_resources_on_the_loop_block(tmp_path):
    found = flagged(tmp_path, """
        from zenpy import Zenpy

        class Desk:
            def __init__(self, token):
                self.api = Zenpy(subdomain="acme", email="ops@acme.test", token=token)

            def ticket(self, number):
                return self.api.tickets(id=number)

            def notes(self, number):
                return list(self.api.tickets.comments(ticket=number))

        desk = Desk("t0k")

        async def call_tool(name, args):
            if name == "ticket":
                return desk.ticket(args["id"])
            return desk.notes(args["id"])
    """)
    assert found == {("blocking_http", "return self.api.tickets(id=number)"),
                     ("blocking_http", "return list(self.api.tickets.comments(ticket=number))")}


def test_zenpy_offloaded_and_a_local_desk_class_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from zenpy import Zenpy

        class Tickets:
            def __call__(self, id):
                return {"id": id}

        class Desk:
            def __init__(self):
                self.tickets = Tickets()

        api = Zenpy(subdomain="acme", email="ops@acme.test", token="t0k")
        local = Desk()

        async def call_tool(number):
            remote = await asyncio.to_thread(api.tickets, id=number)
            return remote, local.tickets(id=number)
    """)
    assert found == set()


def test_kafka_python_producer_connect_wait_and_close_block(tmp_path):
    found = flagged(tmp_path, """
        import json

        from kafka import KafkaProducer

        class Outbox:
            def __init__(self, servers):
                self.producer = KafkaProducer(bootstrap_servers=servers)

            def publish(self, topic, event):
                sent = self.producer.send(topic, value=json.dumps(event).encode())
                return sent.get(timeout=5)

        async def startup(servers):
            return Outbox(servers)

        async def emit(outbox: Outbox, event):
            outbox.publish("events", event)

        async def shutdown(outbox: Outbox):
            outbox.producer.close()
    """)
    assert found == {("blocking_socket_io", "self.producer = KafkaProducer(bootstrap_servers=servers)"),
                     ("blocking_socket_io", "return sent.get(timeout=5)"),
                     ("blocking_socket_io", "outbox.producer.close()")}


def test_aiokafka_and_an_offloaded_kafka_python_producer_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from aiokafka import AIOKafkaProducer
        from kafka import KafkaProducer

        async def emit(servers, payload):
            producer = AIOKafkaProducer(bootstrap_servers=servers)
            await producer.start()
            await producer.send_and_wait("events", payload)
            await producer.stop()

        async def emit_sync(servers, payload):
            producer = await asyncio.to_thread(KafkaProducer, bootstrap_servers=servers)
            await asyncio.to_thread(producer.flush)
    """)
    assert found == set()


def test_the_model_a_hub_loader_returns_is_called_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import torch

        class Detector:
            def __init__(self):
                self.net = torch.hub.load("someone/detector", "small")

            async def Predict(self, request, context):
                boxes = self.net(request.image)
                return boxes
    """)
    assert found == {("blocking_cpu", "boxes = self.net(request.image)")}


def test_a_hub_model_offloaded_and_a_local_load_function_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import torch

        def load(repo, name):
            return lambda image: [repo, name, image]

        class Detector:
            def __init__(self):
                self.net = torch.hub.load("someone/detector", "small")
                self.fake = load("someone/detector", "small")

            async def Predict(self, request, context):
                boxes = await asyncio.to_thread(self.net, request.image)
                return boxes, self.fake(request.image)
    """)
    assert found == set()


def test_a_protocol_implementation_with_an_inherited_method_is_followed(tmp_path):
    found = flagged(tmp_path, """
        from typing import Protocol

        from transformers import pipeline

        class Scorer(Protocol):
            def score(self, texts: list) -> list: ...
            def stats(self) -> dict: ...

        class Counting:
            def stats(self):
                return {"calls": 0}

        class Sentiment(Counting):
            def __init__(self):
                self.pipe = pipeline("sentiment-analysis")

            def score(self, texts):
                return self.pipe(texts)

        class Batcher:
            def __init__(self, scorer: Scorer):
                self.scorer = scorer

            async def flush(self, texts):
                return self.scorer.score(texts)
    """)
    assert found == {("blocking_cpu", "return self.pipe(texts)")}


def test_a_class_missing_a_protocol_method_is_not_an_implementation(tmp_path):
    found = flagged(tmp_path, """
        from typing import Protocol

        from transformers import pipeline

        class Scorer(Protocol):
            def score(self, texts: list) -> list: ...
            def stats(self) -> dict: ...

        class Counting:
            def reset(self):
                return None

        class Sentiment(Counting):
            def __init__(self):
                self.pipe = pipeline("sentiment-analysis")

            def score(self, texts):
                return self.pipe(texts)

        async def flush(scorer: Scorer, texts):
            return scorer.score(texts)
    """)
    assert found == set()


def test_a_class_passed_to_an_async_runner_is_constructed_there(tmp_path):
    found = flagged(tmp_path, """
        import torch

        class Upscaler:
            def __init__(self):
                self.net = torch.hub.load("someone/upscaler", "x4")

        class Echo:
            def __init__(self):
                self.net = None

        async def serve(handler_cls, port):
            handler = handler_cls()
            return handler, port

        async def scale_up():
            await serve(handler_cls=Upscaler, port=7001)

        async def main():
            await serve(Echo, 7000)
    """)
    assert found == {("blocking_file_io", 'self.net = torch.hub.load("someone/upscaler", "x4")')}


def test_a_parameter_called_with_a_lambda_or_rebound_is_left_unknown(tmp_path):
    found = flagged(tmp_path, """
        import torch

        class Upscaler:
            def __init__(self):
                self.net = torch.hub.load("someone/upscaler", "x4")

        async def serve(handler_cls, port):
            return handler_cls(), port

        async def rebind(handler_cls):
            handler_cls = dict
            return handler_cls()

        async def main():
            await serve(handler_cls=Upscaler, port=7001)
            await serve(lambda: None, 7000)
            await rebind(Upscaler)
    """)
    assert found == set()


def test_a_module_type_alias_in_an_annotation_is_what_it_names(tmp_path):
    found = flagged(tmp_path, """
        from concurrent.futures import Future
        from typing import Optional

        try:
            WeightsFuture = Future[dict]
        except TypeError:
            WeightsFuture = Future

        class Slot:
            def __init__(self, pending):
                self._pending: Optional[WeightsFuture] = pending

            def weights(self):
                return self._pending.result()

        async def answer(slot: Slot):
            return slot.weights()
    """)
    assert found == {("blocking_task", "return self._pending.result()")}


def test_an_alias_of_a_local_class_or_a_global_value_is_not_a_future(tmp_path):
    found = flagged(tmp_path, """
        from typing import Optional

        class Ready:
            def result(self):
                return {}

        Pending = Ready
        DEFAULT = dict(name="x")

        class Slot:
            def __init__(self, pending, other):
                self._pending: Optional[Pending] = pending
                self._other: DEFAULT = other

            def weights(self):
                return self._pending.result(), self._other.result()

        async def answer(slot: Slot):
            return slot.weights()
    """)
    assert found == set()


def test_a_factory_of_one_provider_is_not_a_request_of_another(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import boto3
        from azure.storage.blob import BlobServiceClient
        from google.cloud import storage

        class Lake:
            def __init__(self, provider, conn):
                if provider == "s3":
                    self.store = boto3.client("s3")
                elif provider == "gcs":
                    self.store = storage.Client()
                else:
                    self.store = BlobServiceClient.from_connection_string(conn)

            async def put_gcs(self, name, path, data):
                bucket = self.store.bucket(name)
                blob = bucket.blob(path)
                await asyncio.to_thread(blob.upload_from_string, data)

            async def put_azure(self, name, path, data):
                box = self.store.get_container_client(name)
                await asyncio.to_thread(box.upload_blob, path, data)

            async def put_s3(self, name, path, data):
                self.store.put_object(Bucket=name, Key=path, Body=data)
    """)
    assert found == {("blocking_http", "self.store.put_object(Bucket=name, Key=path, Body=data)")}


def test_an_azure_sub_client_operation_still_blocks(tmp_path):
    found = flagged(tmp_path, """
        from azure.storage.blob import BlobServiceClient

        service = BlobServiceClient.from_connection_string("UseDevelopmentStorage=true")

        async def put(name, path, data):
            box = service.get_container_client(name)
            box.get_blob_client(path).upload_blob(data)
    """)
    assert found == {("blocking_http", "box.get_blob_client(path).upload_blob(data)")}


def _dir_flagged(tmp_path, files: dict[str, str]) -> set[tuple[str, str, str]]:
    for name, source in files.items():
        (tmp_path / name).write_text(textwrap.dedent(source))
    report = analyze_path(tmp_path)
    assert report.complete
    return {(f.kind, Path(f.location["file"]).name,
             (tmp_path / Path(f.location["file"]).name).read_text().splitlines()[f.location["line"] - 1].strip())
            for f in report.findings}


_CONTRACTS = """
    from typing import Protocol

    class Scorer(Protocol):
        def score(self, texts: list) -> list: ...
"""
_BACKEND = """
    from transformers import pipeline

    class Sentiment:
        def __init__(self):
            self.pipe = pipeline("sentiment-analysis")

        def score(self, texts):
            return self.pipe(texts)
"""


def test_a_type_checking_import_wins_over_its_runtime_fallback(tmp_path):
    found = _dir_flagged(tmp_path, {"contracts.py": _CONTRACTS, "backend.py": _BACKEND, "batcher.py": """
        from typing import TYPE_CHECKING, Any

        if TYPE_CHECKING:
            from contracts import Scorer
        else:
            Scorer = Any

        class Batcher:
            def __init__(self, scorer: Scorer):
                self.scorer = scorer

            async def flush(self, texts):
                return self.scorer.score(texts)
    """})
    assert found == {("blocking_cpu", "backend.py", "return self.pipe(texts)")}


def test_an_any_alias_without_an_import_says_nothing(tmp_path):
    found = _dir_flagged(tmp_path, {"contracts.py": _CONTRACTS, "backend.py": _BACKEND, "batcher.py": """
        from typing import Any

        Scorer = Any

        class Batcher:
            def __init__(self, scorer: Scorer):
                self.scorer = scorer

            async def flush(self, texts):
                return self.scorer.score(texts)
    """})
    assert found == set()


def test_building_a_langchain_chroma_store_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        from langchain.vectorstores import Chroma

        def open_store(path, embeddings):
            return Chroma(persist_directory=path, embedding_function=embeddings)

        async def retriever(path, embeddings):
            store = open_store(path, embeddings)
            return store.as_retriever()
    """)
    assert found == {("blocking_db", "return Chroma(persist_directory=path, embedding_function=embeddings)")}


def test_a_chroma_store_built_off_the_loop_and_a_local_chroma_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from langchain_community.vectorstores import Chroma

        class Palette:
            def __init__(self, colours):
                self.colours = colours

        def Chroma_of(colours):
            return Palette(colours)

        async def retriever(path, embeddings):
            store = await asyncio.to_thread(Chroma, persist_directory=path, embedding_function=embeddings)
            return store, Chroma_of(["red"])
    """)
    assert found == set()


_SCALER = """
    import json

    class Scaler:
        def load_state(self, path):
            with open(path) as f:
                return json.load(f)
"""


def test_an_import_wins_over_its_except_fallback_when_the_module_is_analysed(tmp_path):
    found = _dir_flagged(tmp_path, {"scaler.py": _SCALER, "stream.py": """
        try:
            from scaler import Scaler
        except ImportError:
            class Scaler:
                def load_state(self, path):
                    return None

        async def restore(path):
            Scaler().load_state(path)
    """})
    assert found == {("blocking_file_io", "scaler.py", "with open(path) as f:")}


def test_the_fallback_stands_when_the_import_is_not_analysed(tmp_path):
    found = _dir_flagged(tmp_path, {"stream.py": """
        try:
            from missing_scaler import Scaler
        except ImportError:
            class Scaler:
                def load_state(self, path):
                    return None

        async def restore(path):
            Scaler().load_state(path)
    """})
    assert found == set()
