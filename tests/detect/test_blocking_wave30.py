"""check blocking: the kinds stop 29 left (issue 17) -- synchronous gRPC stubs, ... Each blocker is found at its
line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_generated_stub_on_a_synchronous_channel_blocks_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import grpc
        import weather_pb2 as pb
        import weather_pb2_grpc as rpc

        class Forecasts:
            def __init__(self, target, tls=None):
                if tls:
                    channel = grpc.secure_channel(target, tls)
                else:
                    channel = grpc.insecure_channel(target)
                self.stub = rpc.ForecastServiceStub(channel)

            def today(self, city):
                return self.stub.Today(pb.City(name=city), timeout=5)

        async def handler(city):
            return Forecasts("localhost:50051").today(city)

        async def streamed(city):
            with grpc.insecure_channel("localhost:50051") as channel:
                stub = rpc.ForecastServiceStub(channel=channel)
                for hour in stub.Hourly(pb.City(name=city)):
                    print(hour)
    """)
    assert found == {("blocking_http", "return self.stub.Today(pb.City(name=city), timeout=5)"),
                     ("blocking_http", "for hour in stub.Hourly(pb.City(name=city)):")}


def test_a_generated_stub_on_an_asyncio_channel_or_called_off_the_loop_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import grpc
        import weather_pb2 as pb
        import weather_pb2_grpc as rpc

        async def handler(city):
            async with grpc.aio.insecure_channel("localhost:50051") as channel:
                stub = rpc.ForecastServiceStub(channel)
                reply = await stub.Today(pb.City(name=city))
                async for hour in stub.Hourly(pb.City(name=city)):
                    print(hour)
                return reply

        def today(city):
            stub = rpc.ForecastServiceStub(grpc.insecure_channel("localhost:50051"))
            return stub.Today(pb.City(name=city))

        async def offloaded(city):
            return await asyncio.to_thread(today, city)

        async def not_a_stub(city):
            return rpc.ForecastServiceServicer().Today(pb.City(name=city), None)
    """)
    assert found == set()


def test_a_join_after_a_loop_that_ends_only_with_the_thread_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import threading

        async def render(job):
            worker = threading.Thread(target=job)
            worker.start()
            while True:
                worker.join(0.0)
                if not worker.is_alive():
                    break
                await asyncio.sleep(0.1)
            worker.join()

        async def render_polled(job):
            worker = threading.Thread(target=job)
            worker.start()
            while worker.is_alive():
                await asyncio.sleep(0.1)
            worker.join()
    """)
    assert found == set()


def test_a_join_after_a_loop_with_another_exit_still_waits(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import threading

        async def render(job, deadline):
            worker = threading.Thread(target=job)
            other = threading.Thread(target=job)
            worker.start()
            other.start()
            while True:
                if not worker.is_alive():
                    break
                if deadline():
                    break
                await asyncio.sleep(0.1)
            worker.join()
            while worker.is_alive():
                await asyncio.sleep(0.1)
            other.join()

        async def render_bounded(job):
            drawer = threading.Thread(target=job)
            drawer.start()
            while drawer.is_alive():
                await asyncio.sleep(0.1)
                break
            drawer.join()
    """)
    assert found == {("blocking_task", "worker.join()"), ("blocking_task", "other.join()"),
                     ("blocking_task", "drawer.join()")}
