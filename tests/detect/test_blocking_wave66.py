"""check blocking, held-out wave 66 (message-queue and workflow workers: taskiq tasks, Temporal activities, FastStream
and aio-pika handlers, aiokafka and nats-py consumers): an awaited method of a synchronous client still runs on the
loop; ``self.__dict__.update(locals())`` makes every local of the method an attribute; a constructor's branch on a
parameter every construction leaves at its default, or on the instance flag that keeps it, never runs; and the
vocabulary of ffprobe-python, translate-python, garak's command line, ``torch.jit``/``torch.hub`` files and a model
unpickled from a ``torch.package``. Each blocker is found at its line; each look-alike stays silent. Every example is
written for this test."""

from __future__ import annotations

import pytest

from tests.detect.blocking_source import flagged, flagged_package

_CLICKHOUSE_SINK = """
    from clickhouse_driver import Client

    class Sink:
        def __init__(self, host):
            self._db: Client = Client(host=host)

        async def write(self, rows):
            await self._db.execute("INSERT INTO events (payload) VALUES", rows)
            return True

    async def count(host):
        db = Client(host=host)
        return await db.execute("SELECT count() FROM events")

    async def count_with(db: Client):
        return await db.execute("SELECT 1")
"""


def test_an_awaited_method_of_a_synchronous_client_still_blocks(tmp_path):
    assert flagged(tmp_path, _CLICKHOUSE_SINK) == {
        ("blocking_db", 'await self._db.execute("INSERT INTO events (payload) VALUES", rows)'),
        ("blocking_db", 'return await db.execute("SELECT count() FROM events")'),
        ("blocking_db", 'return await db.execute("SELECT 1")'),
    }


def test_an_awaited_method_of_an_async_or_unknown_client_stays_silent(tmp_path):
    assert flagged(tmp_path, """
        import asyncpg
        from aiochclient import ChClient
        from clickhouse_driver import Client
        from myproject.db import connect

        class Sink:
            def __init__(self, session):
                self._db = ChClient(session)

            async def write(self, rows):
                await self._db.execute("INSERT INTO events VALUES", *rows)

        async def count(dsn):
            conn = await asyncpg.connect(dsn)
            return await conn.execute("SELECT 1")

        async def other(url):
            client = connect(url)
            return await client.execute("SELECT 1")

        class Switching:
            def __init__(self, host):
                self.db = Client(host=host)

            async def reconnect(self, session):
                self.db = ChClient(session)

            async def write(self, rows):
                await self.db.execute("INSERT INTO events VALUES", rows)
    """) == set()


_BACKENDS = """
    import onnxruntime
    import torch

    class Runner:
        def __init__(self, weights, onnx=True):
            if onnx:
                session = onnxruntime.InferenceSession(weights)
            else:
                network = torch.jit.load(weights)
            self.__dict__.update(locals())

        def __call__(self, batch):
            if self.onnx:
                return self.session.run(None, {"images": batch})
            return self.network(batch)

    async def on_frame(batch, weights):
        runner = Runner(weights, onnx=weights.endswith(".onnx"))
        return runner(batch)
"""


def test_locals_kept_through_the_instance_dict_are_typed_attributes(tmp_path):
    assert flagged(tmp_path, _BACKENDS) == {
        ("blocking_file_io", "session = onnxruntime.InferenceSession(weights)"),
        ("blocking_file_io", "network = torch.jit.load(weights)"),
        ("blocking_cpu", 'return self.session.run(None, {"images": batch})'),
        ("blocking_cpu", "return self.network(batch)"),
    }


def test_an_instance_dict_updated_from_another_mapping_types_nothing(tmp_path):
    assert flagged(tmp_path, """
        import onnxruntime

        def load(path):
            return {"session": onnxruntime.InferenceSession(path)}

        class Runner:
            def __init__(self, options):
                session = "not used"
                self.__dict__.update(options)

            def __call__(self, batch):
                return self.session.run(None, {"images": batch})

        async def on_frame(batch, options):
            return Runner(options)(batch)
    """) == set()


_CONFIGURED = """
    import yaml

    class Detector:
        def __init__(self, weights, device="cpu", labels=None, dnn=False):
            self.dnn = dnn
            if labels:
                with open(labels) as fh:
                    self.names = yaml.safe_load(fh)

        def __call__(self, frame):
            if self.dnn:
                with open("net.cfg") as fh:
                    return fh.read()
            return frame
"""


def _configured(tmp_path, handlers: str) -> set[tuple[str, str]]:
    """The findings of :data:`_CONFIGURED` with ``handlers`` (the code that builds and uses the detector) below it."""
    return flagged(tmp_path, _CONFIGURED + handlers)


_NONE_ON_THE_LOOP = """
    async def on_message(frame):
        detector = Detector("best.pt", device="cpu", dnn=False)
        return detector(frame)

    def offline(frame):
        return Detector("best.pt", labels="coco.yaml", dnn=True)(frame)
"""
_ONE_ON_THE_LOOP = """
    async def on_message(frame):
        detector = Detector("best.pt", labels="coco.yaml", dnn=True)
        return detector(frame)
"""


@pytest.mark.parametrize(("handlers", "expected"), [
    (_NONE_ON_THE_LOOP, set()),
    (_ONE_ON_THE_LOOP, {("blocking_file_io", "with open(labels) as fh:"),
                        ("blocking_file_io", 'with open("net.cfg") as fh:')}),
], ids=["no-construction-on-the-loop-takes-them", "a-construction-on-the-loop-takes-them"])
def test_constructor_and_flag_branches_follow_the_constructions_on_the_loop(tmp_path, handlers, expected):
    assert _configured(tmp_path, handlers) == expected


def test_a_flag_stored_elsewhere_too_keeps_its_branch(tmp_path):
    assert _configured(tmp_path, """
    async def on_message(frame):
        detector = Detector("best.pt")
        detector.dnn = frame.startswith(b"cfg")
        return detector(frame)
    """) == {("blocking_file_io", 'with open("net.cfg") as fh:')}


def test_a_helper_called_again_in_a_taken_branch_keeps_its_blocker(tmp_path):
    found = flagged_package(tmp_path, {
        "checks.py": """
            import subprocess

            def ensure(package):
                subprocess.check_output(["pip", "install", package])
        """,
        "backend.py": """
            from checks import ensure

            class Backend:
                def __init__(self, weights, dnn=False):
                    if dnn:
                        ensure("opencv-python")
                    elif weights.endswith(".onnx"):
                        ensure("onnxruntime")

            async def handle(weights):
                return Backend(weights)
        """,
    })
    assert found == {("checks.py", "blocking_subprocess", 'subprocess.check_output(["pip", "install", package])')}


def test_media_probe_translation_scan_and_torch_files_block(tmp_path):
    assert flagged(tmp_path, """
        import garak.cli
        import torch
        from ffprobe import FFProbe
        from translate import Translator

        translator = Translator(to_lang="en")
        voice = torch.package.PackageImporter("voice.pt").load_pickle("tts_models", "model")

        async def handle(path, text):
            info = FFProbe(path)
            english = translator.translate(text)
            garak.cli.main(["--model_type", "function", "--probes", "dan"])
            torch.hub.download_url_to_file("https://example.org/w.pt", "w.pt")
            scripted = torch.jit.load("w.pt")
            return info, voice.save_wav(text=english, speaker="xenia"), scripted
    """) == {
        ("blocking_subprocess", "info = FFProbe(path)"),
        ("blocking_http", "english = translator.translate(text)"),
        ("blocking_http", 'garak.cli.main(["--model_type", "function", "--probes", "dan"])'),
        ("blocking_http", 'torch.hub.download_url_to_file("https://example.org/w.pt", "w.pt")'),
        ("blocking_file_io", 'scripted = torch.jit.load("w.pt")'),
        ("blocking_cpu", 'return info, voice.save_wav(text=english, speaker="xenia"), scripted'),
    }


def test_their_look_alikes_stay_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "translate.py": """
            def translate(text, table):
                return text.translate(table)
        """,
        "worker.py": """
            import asyncio
            import torch
            from ffprobe import FFProbe
            from translate import translate

            voice = torch.package.PackageImporter("voice.pt").load_pickle("tts_models", "model")

            async def handle(path, text):
                info = await asyncio.to_thread(FFProbe, path)
                plain = translate(text, {ord("-"): " "})
                speakers = voice.speakers
                wav = await asyncio.to_thread(voice.save_wav, text=plain)
                return info, speakers, wav
        """,
    })
    assert found == set()
