"""check blocking: the kinds held-out wave 59 (issue 17; Home Assistant custom integrations, Kafka/PubSub and NATS
consumers) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

# -- items of a tuple built in a worker thread, unpacked on the loop ---------------------------------------------------

_SCORER = """
    import asyncio
    import onnxruntime as ort


    class Scorer:
        def __init__(self):
            self.session = None
            self.labels = None

        async def warm_up(self):
            def build():
                graph = ort.InferenceSession("scorer.onnx")
                return graph, ["low", "high"]

            loop = asyncio.get_running_loop()
            self.session, self.labels = await loop.run_in_executor(None, build)

        def _predict(self, features):
            return self.session.run(None, {"x": features})
"""


def test_a_session_unpacked_from_an_executor_result_is_run_on_the_loop(tmp_path):
    found = flagged(tmp_path, _SCORER + """
        async def on_event(self, features):
            return self._predict(features)
    """)
    assert ("blocking_cpu", 'return self.session.run(None, {"x": features})') in found


def test_the_same_session_run_through_to_thread_is_silent(tmp_path):
    found = flagged(tmp_path, _SCORER + """
        async def on_event(self, features):
            return await asyncio.to_thread(self._predict, features)
    """)
    assert not found


def test_unpacked_executor_results_that_are_plain_values_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import asyncio


        def read_settings():
            return {"depth": 3}, ["a", "b"]


        class Service:
            async def start(self):
                self.settings, self.names = await asyncio.to_thread(read_settings)

            async def handle(self, item):
                return self.settings.get("depth"), self.names.index(item)
    """)
    assert not found
