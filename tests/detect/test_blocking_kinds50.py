"""check blocking: the kinds the held-out waves 57 and 58 left (issue 17, stop 50). Each blocker is found at its
line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package


def test_a_pillow_image_converted_under_an_if_after_it_was_opened_decodes_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image

        async def thumbnail(upload):
            raw = await upload.read()
            picture = Image.open(io.BytesIO(raw))
            if picture.mode != "RGB":
                picture = picture.convert("RGB")
            return picture.size
    """)
    assert found == {("blocking_cpu", 'picture = picture.convert("RGB")')}


def test_a_name_rebound_to_something_else_before_the_convert_is_not_the_opened_image(tmp_path):
    found = flagged(tmp_path, """
        import io
        from PIL import Image

        async def thumbnail(upload, palette):
            raw = await upload.read()
            picture = Image.open(io.BytesIO(raw))
            size = picture.size
            picture = palette.pick(size)
            if picture.mode != "RGB":
                picture = picture.convert("RGB")
            return picture
    """)
    assert found == set()


def test_a_pipe_and_a_process_of_a_spawn_context_wait_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import multiprocessing as mp

        def _measure(conn):
            conn.send(42)

        def measure_in_child(timeout):
            ctx = mp.get_context("spawn")
            reader, writer = ctx.Pipe(duplex=False)
            worker = ctx.Process(target=_measure, args=(writer,))
            jobs = ctx.Queue()
            value = reader.recv()
            worker.join(timeout)
            jobs.get()
            return value

        async def probe(request):
            return {"value": measure_in_child(30)}
    """)
    assert {text for _, text in found} == {"value = reader.recv()", "worker.join(timeout)", "jobs.get()"}


def test_sending_on_a_pipe_and_polling_it_do_not_wait(tmp_path):
    found = flagged(tmp_path, """
        import multiprocessing as mp

        async def notify(message):
            ctx = mp.get_context("fork")
            reader, writer = ctx.Pipe()
            writer.send(message)
            ready = reader.poll()
            jobs = ctx.Queue()
            jobs.put_nowait(message)
            return ready
    """)
    assert found == set()


_RECOGNIZERS = """
    from ray import serve
    import ray
    import whisperlib


    @serve.deployment(num_replicas=1)
    class ServedRecognizer:
        def __init__(self, size):
            self.model = whisperlib.load_model(size)


    @ray.remote
    class ActorRecognizer:
        def __init__(self, size):
            self.model = whisperlib.load_model(size)


    class LocalRecognizer:
        def __init__(self, size):
            self.model = whisperlib.load_model(size)
"""


def test_a_plain_class_built_in_a_handler_loads_its_model_on_the_loop(tmp_path):
    found = flagged(tmp_path, _RECOGNIZERS + """

    async def on_connect(socket):
        recognizer = LocalRecognizer("small")
        await socket.send("ready")
        return recognizer
    """)
    assert found == {("blocking_file_io", "self.model = whisperlib.load_model(size)")}


def test_a_ray_deployment_or_actor_class_called_directly_never_runs_its_constructor(tmp_path):
    found = flagged(tmp_path, _RECOGNIZERS + """

    def make(kind, size):
        if kind == "served":
            return ServedRecognizer(size)
        return ActorRecognizer(size)

    async def on_connect(socket, kind):
        recognizer = make(kind, "small")
        await socket.send("ready")
        return recognizer
    """)
    assert found == set()


_TRACKER = """
    import os
    from langfuse import Langfuse

    client = Langfuse(host=os.environ["LANGFUSE_HOST"], secret_key=os.environ["LANGFUSE_SECRET_KEY"])
"""


def test_a_tracing_sdk_s_dataset_request_and_flush_wait_on_the_loop(tmp_path):
    found = flagged(tmp_path, _TRACKER + """

    async def on_feedback(event):
        client.create_dataset_item(dataset_name="votes", input=event["text"])
        client.flush()
    """)
    assert {text for _, text in found} == {'client.create_dataset_item(dataset_name="votes", input=event["text"])',
                                           "client.flush()"}


def test_a_tracing_sdk_s_recorded_score_only_queues(tmp_path):
    found = flagged(tmp_path, _TRACKER + """

    async def on_feedback(event):
        client.score(trace_id=event["trace"], name="vote", value=1)
        client.trace(name="feedback", input=event["text"])
    """)
    assert found == set()


_HOLDER = """
    from {package} import {loader}


    class Holder:
        def __init__(self):
            self.{attr} = {loader}.from_pretrained("{reference}")
"""
"""A class that loads a pretrained object into an attribute in its constructor."""
_DETECTOR = _HOLDER.format(package="transformers", loader="AutoProcessor", attr="processor", reference="acme/vision-base")


def test_an_auto_processor_given_images_preprocesses_them_on_the_loop(tmp_path):
    found = flagged(tmp_path, _DETECTOR + """
        async def detect(self, picture, words):
            return self.processor(images=picture, text=[words], return_tensors="pt")
    """)
    assert found == {("blocking_cpu", 'return self.processor(images=picture, text=[words], return_tensors="pt")')}


def test_an_auto_processor_given_text_only_tokenizes(tmp_path):
    found = flagged(tmp_path, _DETECTOR + """
        async def detect(self, words):
            first = self.processor(text=[words], return_tensors="pt")
            second = self.processor(images=None, text=[words])
            return first, second
    """)
    assert found == set()


_SEGMENTER = _HOLDER.format(package="segmentlib", loader="ImagePredictor", attr="predictor",
                            reference="acme/segment-large")


def test_a_loaded_segmenter_s_set_image_runs_its_image_encoder_on_the_loop(tmp_path):
    found = flagged(tmp_path, _SEGMENTER + """
        async def masks(self, picture):
            self.predictor.set_image(picture)
            return self.predictor.predict(prompts=None)
    """)
    assert found == {("blocking_cpu", "self.predictor.set_image(picture)"),
                     ("blocking_cpu", "return self.predictor.predict(prompts=None)")}


def test_set_image_on_an_object_built_without_a_model_reference_is_a_setter(tmp_path):
    found = flagged(tmp_path, """
        from widgetlib import Canvas


        class Viewer:
            def __init__(self):
                self.canvas = Canvas(width=640, height=480)

            async def show(self, picture):
                self.canvas.set_image(picture)
    """)
    assert found == set()


_VOICE = """
    import torch


    class Voice:
        def __init__(self, path):
            self.model = torch.jit.load(path)
"""


def test_a_scripted_method_of_a_loaded_torchscript_module_runs_it_on_the_loop(tmp_path):
    found = flagged(tmp_path, _VOICE + """
        async def speak(self, tokens):
            return self.model.synthesize_exported(tokens)
    """)
    assert found == {("blocking_cpu", "return self.model.synthesize_exported(tokens)")}


def test_the_module_api_of_a_loaded_torchscript_module_runs_nothing(tmp_path):
    found = flagged(tmp_path, _VOICE + """
        async def prepare(self, device):
            self.model.eval()
            self.model.to(device)
            return sum(p.numel() for p in self.model.parameters())
    """)
    assert found == set()


def test_a_synchronous_websockets_client_connects_and_waits_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from websockets.sync.client import connect


        def ask_speaker(text):
            with connect("ws://127.0.0.1:8765") as link:
                link.send(text)
                return link.recv()


        async def on_message(message):
            return ask_speaker(message.content)
    """)
    assert found == {("blocking_socket_io", 'with connect("ws://127.0.0.1:8765") as link:'),
                     ("blocking_socket_io", "link.send(text)"), ("blocking_socket_io", "return link.recv()")}


def test_the_asyncio_websockets_client_is_awaited(tmp_path):
    found = flagged(tmp_path, """
        from websockets.asyncio.client import connect


        async def on_message(message):
            async with connect("ws://127.0.0.1:8765") as link:
                await link.send(message.content)
                return await link.recv()
    """)
    assert found == set()


def test_a_phonemizer_call_in_a_speech_handler_runs_espeak_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        from phonemizer.phonemize import phonemize


        def to_sounds(text):
            return phonemize(text, language="en-us", backend="espeak", strip=True)


        async def speak(message):
            return to_sounds(message)
    """)
    assert found == {("blocking_cpu", 'return phonemize(text, language="en-us", backend="espeak", strip=True)')}


def test_a_project_function_named_phonemize_is_the_project_s(tmp_path):
    found = flagged(tmp_path, """
        LETTERS = {"a": "AH", "b": "B"}


        def phonemize(text):
            return [LETTERS.get(ch, ch) for ch in text]


        async def speak(message):
            return phonemize(message)
    """)
    assert found == set()


_PLAYER = """
    import subprocess


    class Speaker:
        def say(self, text, save=False, play_sound=False):
            if play_sound:
                subprocess.call(["aplay", "out.wav"])
            return text


    speaker = Speaker()
"""


def test_a_flag_left_at_its_default_by_the_loop_s_caller_keeps_its_branch_silent_beside_a_namesake_value(tmp_path):
    found = flagged(tmp_path, _PLAYER + """

    async def say(socket):
        async for message in socket:
            speaker.say(message, True)


    async def main(serve):
        await serve(say, "127.0.0.1", 8765)
    """)
    assert found == set()


def test_a_method_handed_on_as_a_value_may_be_called_with_the_flag_set(tmp_path):
    found = flagged(tmp_path, _PLAYER + """

    async def say(socket, schedule):
        async for message in socket:
            speaker.say(message, True)
        schedule(speaker.say)
    """)
    assert found == {("blocking_subprocess", 'subprocess.call(["aplay", "out.wav"])')}


_RECOGNIZER_FACTORY = {
    "speech/__init__.py": "",
    "speech/heavy.py": """
        from transformers import pipeline


        class HeavyRecognizer:
            def __init__(self, **options):
                self.run = pipeline("automatic-speech-recognition", model="acme/listen-large")
    """,
    "speech/light.py": """
        class LightRecognizer:
            def __init__(self, **options):
                self.options = options
    """,
    "speech/factory.py": """
        from .heavy import HeavyRecognizer
        from .light import LightRecognizer


        class RecognizerFactory:
            @staticmethod
            def create(kind, **options):
                if kind == "heavy":
                    return HeavyRecognizer(**options)
                if kind == "light":
                    return LightRecognizer(**options)
                raise ValueError(kind)
    """,
    "cli.py": """
        import sys
        from speech.factory import RecognizerFactory


        def main():
            RecognizerFactory.create(sys.argv[1])
    """,
}


def _served_with(kind):
    return {**_RECOGNIZER_FACTORY, "server.py": f"""
        from speech.factory import RecognizerFactory


        async def on_connect(socket):
            recognizer = RecognizerFactory.create("{kind}")
            await socket.send("ready")
            return recognizer
    """}


def test_a_factory_branch_the_loop_s_literal_chooses_builds_its_model_there(tmp_path):
    found = flagged_package(tmp_path, _served_with("heavy"))
    assert found == {("speech/heavy.py", "blocking_file_io",
                      'self.run = pipeline("automatic-speech-recognition", model="acme/listen-large")')}


def test_a_factory_branch_no_caller_on_the_loop_chooses_is_never_reached_through(tmp_path):
    assert flagged_package(tmp_path, _served_with("light")) == set()


def test_a_pipe_read_after_a_poll_that_found_data_does_not_wait_but_a_bare_read_does(tmp_path):
    found = flagged(tmp_path, """
        import multiprocessing as mp


        class Child:
            def __init__(self):
                self.near, self.far = mp.Pipe()

            def answered(self):
                if self.near.poll():
                    self.near.recv()
                    return True
                return False

            def answer(self):
                return self.near.recv()


        child = Child()


        async def watch():
            return child.answered(), child.answer()
    """)
    assert found == {("blocking_task", "return self.near.recv()")}
