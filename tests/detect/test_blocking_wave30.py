"""check blocking: the kinds stop 29 left (issue 17) -- synchronous gRPC stubs, a join after a loop that ends only
with the thread, a parameter first asked about too deep in the call-site lookup, RealtimeSTT/RealtimeTTS waits, a
function bound with types.MethodType, a dict of clients read through a chain of attributes. Each blocker is found
at its line; each look-alike stays silent. Every example is written for this test."""

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


def test_a_parameter_first_asked_about_too_deep_is_typed_when_walked(tmp_path):
    # `s.stop()` in fourth is resolved first (the scan for loop callbacks reads every call), from the bottom of
    # the chain: the call-site lookup runs out of nesting at first's `s`. That "unknown" must not stick: walked
    # from the entry, first's `s` is a Speaker and its play() waits.
    found = flagged(tmp_path, """
        import threading

        def fourth(s):
            s.stop()

        def third(s):
            fourth(s)

        def second(s):
            third(s)

        def first(s):
            second(s)
            s.play()

        class Speaker:
            def play(self):
                worker = threading.Thread(target=print)
                worker.start()
                worker.join()

            def stop(self):
                pass

        async def speak():
            first(Speaker())
    """)
    assert found == {("blocking_task", "worker.join()")}


def test_a_chain_whose_callers_pass_no_typed_value_stays_silent(tmp_path):
    found = flagged(tmp_path, """
        def fifth(s):
            s.play()

        def fourth(s):
            fifth(s)

        def third(s):
            fourth(s)

        def second(s):
            third(s)

        def first(s):
            second(s)

        async def speak(anything):
            first(anything)
    """)
    assert found == set()


def test_a_realtime_recorder_s_text_and_a_stream_s_play_wait_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        from RealtimeSTT import AudioToTextRecorder
        from RealtimeTTS import SystemEngine, TextToAudioStream

        recorder = AudioToTextRecorder(model="tiny.en", use_microphone=False)
        voice = TextToAudioStream(SystemEngine())

        async def listen(chunk: bytes):
            recorder.feed_audio(chunk)
            heard = recorder.text()
            voice.feed(heard)
            voice.play()
            voice.play_async()
            return heard

        async def listen_off_loop():
            heard = await asyncio.to_thread(recorder.text)
            voice.feed(heard)
            await asyncio.to_thread(voice.play)
    """)
    assert found == {("blocking_cpu", "heard = recorder.text()"), ("blocking_task", "voice.play()")}


def test_a_function_bound_with_methodtype_reads_the_object_it_is_bound_to(tmp_path):
    found = flagged(tmp_path, """
        import types
        import requests
        from assistant import agent

        def start():
            agent.http = requests.Session()
            agent.cache = {}

            async def answer(self, question):
                self.cache.get(question)
                return self.http.get("https://example.org/ask", params={"q": question})

            async def unbound(self, question):
                return self.http.get("https://example.org/ask")

            agent.answer = types.MethodType(answer, agent)
    """)
    assert found == {("blocking_http", 'return self.http.get("https://example.org/ask", params={"q": question})')}



def test_a_dict_of_clients_read_through_a_chain_of_attributes_is_typed_by_what_it_holds(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Shelf:
            def __init__(self, name):
                self.http = requests.Session()
                self.name = name

            def fetch(self, key):
                return self.http.get("https://example.org/" + self.name + "/" + key)

            def label(self):
                return self.name.upper()

        class Library:
            def __init__(self):
                self.shelves = {}
                for name in ["books", "maps"]:
                    self.shelves[name] = Shelf(name)

        class App:
            def __init__(self):
                self.library = Library()

        app = App()

        async def lookup(kind: str, key: str):
            return app.library.shelves[kind].fetch(key)

        async def title(kind: str):
            return app.library.shelves[kind].label()
    """)
    assert found == {("blocking_http", 'return self.http.get("https://example.org/" + self.name + "/" + key)')}
