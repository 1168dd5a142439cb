"""check blocking: kinds first seen on unseen services in wave 25 (issue 17) -- a help-desk SDK (Zenpy) called
from an MCP tool, kafka-python's producer built, flushed and waited on in async code, and the object a model
loader returns (``torch.hub.load``) called per request. Each blocker is found at its line; each healthy look-alike
(the offloaded call, the async twin, a project's own class with the same method names) stays silent. Every
example is written for this test."""

from __future__ import annotations

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
