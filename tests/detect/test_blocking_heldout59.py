"""check blocking: the kinds held-out wave 59 (issue 17; Home Assistant custom integrations, Kafka/PubSub and NATS
consumers) left, fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

import textwrap

from tests.detect.blocking_source import flagged, flagged_package

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


# -- Home Assistant: objects kept in hass.data and taken back in another module ----------------------------------------

_CONST = """
    DOMAIN = "kettle"
    HUB = "hub"
"""

_HUB = """
    import threading
    import time


    class KettleHub:
        def __init__(self, host):
            self.host = host
            self._poller = None

        def start(self):
            self._poller = threading.Thread(target=self._poll, daemon=True)
            self._poller.start()

        def _poll(self):
            while True:
                time.sleep(5)

        def stop(self):
            self._poller.join(timeout=15)

        def history(self, days):
            with open(f"/config/kettle_{days}.csv") as handle:
                return handle.read()
"""

_SETUP = """
    from .const import DOMAIN, HUB
    from .hub import KettleHub


    async def async_setup_entry(hass, entry):
        hub = KettleHub(entry.data["host"])
        hass.data.setdefault(DOMAIN, {})[entry.entry_id] = hub
        hass.data[DOMAIN][HUB] = hub
        return True
"""


def _kettle(unload: str, diagnostics: str) -> dict[str, str]:
    """The integration's package: a setup that stores the hub, and the given unload and diagnostics bodies."""
    return {"const.py": _CONST, "hub.py": _HUB,
            "__init__.py": textwrap.dedent(_SETUP) + "\n\nasync def async_unload_entry(hass, entry):\n" + unload,
            "diagnostics.py": "from .const import DOMAIN\n\n\nasync def async_get_config_entry_diagnostics(hass, "
                              "entry):\n    data = hass.data.get(DOMAIN, {})\n    hub = data.get(\"hub\")\n"
                              + diagnostics}


def test_a_hub_taken_back_out_of_hass_data_blocks_where_it_is_used(tmp_path):
    found = flagged_package(tmp_path, _kettle(
        "    hass.data[DOMAIN][entry.entry_id].stop()\n    return True\n",
        '    return {"history": hub.history(2)}\n'))
    assert ("hub.py", "blocking_task", "self._poller.join(timeout=15)") in found
    assert ("hub.py", "blocking_file_io", 'with open(f"/config/kettle_{days}.csv") as handle:') in found


def test_a_hub_from_hass_data_used_in_an_executor_job_is_silent(tmp_path):
    found = flagged_package(tmp_path, _kettle(
        "    hub = hass.data[DOMAIN][entry.entry_id]\n    await hass.async_add_executor_job(hub.stop)\n"
        "    return True\n",
        '    return {"host": hub.host, "history": await hass.async_add_executor_job(hub.history, 2)}\n'))
    assert not found


def test_a_hass_data_key_that_holds_something_else_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "const.py": _CONST,
        "hub.py": _HUB + """

    class Notes:
        def history(self, days):
            return [days]
    """,
        "__init__.py": """
    from .const import DOMAIN
    from .hub import KettleHub, Notes


    async def async_setup_entry(hass, entry):
        hass.data[DOMAIN] = {"hub": KettleHub(entry.data["host"]), "notes": Notes()}
        return True


    async def async_get_notes(hass):
        return hass.data[DOMAIN]["notes"].history(3)
    """,
    })
    assert not found


# -- Google Cloud Pub/Sub: requests, and calls that only queue or format ---------------------------------------------

_PUBSUB = """
    import json
    from google.cloud import pubsub_v1


    class Relay:
        def __init__(self, project):
            self.project = project
            self.publisher = pubsub_v1.PublisherClient()
            self.subscriber = pubsub_v1.SubscriberClient()
"""


def test_pubsub_pulls_acks_and_waited_publishes_are_found(tmp_path):
    found = flagged(tmp_path, _PUBSUB + """
        async def drain(self, name):
            where = self.subscriber.subscription_path(self.project, name)
            answer = self.subscriber.pull(request={"subscription": where, "max_messages": 5})
            self.subscriber.acknowledge(request={"subscription": where, "ack_ids": ["a"]})
            sent = self.publisher.publish(self.publisher.topic_path(self.project, "out"), b"{}")
            return answer, sent.result(timeout=10)
    """)
    assert ("blocking_http", 'answer = self.subscriber.pull(request={"subscription": where, "max_messages": 5})') in found
    assert ("blocking_http", 'self.subscriber.acknowledge(request={"subscription": where, "ack_ids": ["a"]})') in found
    assert ("blocking_http", "return answer, sent.result(timeout=10)") in found


def test_pubsub_paths_and_fire_and_forget_publishes_are_silent(tmp_path):
    found = flagged(tmp_path, _PUBSUB + """
        async def forward(self, payload):
            topic = self.publisher.topic_path(self.project, "out")
            self.publisher.publish(topic, json.dumps(payload).encode())
            return self.subscriber.subscription_path(self.project, "in")
    """)
    assert not found
