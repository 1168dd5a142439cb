"""check blocking: kinds first seen on unseen services in wave 19 (issue 17) -- debug code switched off with a
literal test (``if False:``), audio files written and sound devices waited on, model libraries of voice
pipelines, client constructors that connect. Each blocker is found at its line; each healthy look-alike
(the branch that never runs, the offloaded call) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_branch_a_literal_test_never_takes_is_not_walked(tmp_path):
    found = flagged(tmp_path, """
        import time

        DEBUG = False

        async def on_audio(chunk, buffer):
            if False:
                time.sleep(2)
            if 0:
                open("dump.raw", "wb").write(chunk)
            if True:
                buffer.append(chunk)
            else:
                time.sleep(1)
            if DEBUG:
                time.sleep(3)
            return len(buffer)
    """)
    assert found == {("blocking_sleep", "time.sleep(3)")}


def test_the_branch_a_literal_test_takes_is_still_walked(tmp_path):
    found = flagged(tmp_path, """
        import time

        async def tick():
            if True:
                time.sleep(0.5)
            if None:
                pass
            else:
                time.sleep(0.25)
    """)
    assert found == {("blocking_sleep", "time.sleep(0.5)"), ("blocking_sleep", "time.sleep(0.25)")}


def test_writing_an_audio_file_and_waiting_on_the_sound_device_block(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import io

        import sounddevice as sd
        import soundfile as sf
        import torch
        import torchaudio
        from scipy.io import wavfile

        def keep(path, samples, rate):
            sf.write(path, samples, rate)

        async def record(seconds: int, path: str):
            take = sd.rec(seconds * 16000, samplerate=16000, channels=1)
            sd.wait()
            wavfile.write(path, 16000, take)
            keep(path + ".flac", take, 16000)
            torchaudio.save(path + ".ogg", torch.zeros(1, 16000), 16000)
            return path

        async def record_off_loop(path: str, take):
            await asyncio.to_thread(keep, path, take, 16000)
            await asyncio.to_thread(sd.wait)
            buffer = io.BytesIO()
            wavfile.write(buffer, 16000, take)
            return buffer.getvalue()
    """)
    assert found == {("blocking_sleep", "sd.wait()"), ("blocking_file_io", "wavfile.write(path, 16000, take)"),
                     ("blocking_file_io", "sf.write(path, samples, rate)"),
                     ("blocking_file_io", 'torchaudio.save(path + ".ogg", torch.zeros(1, 16000), 16000)')}


def test_a_diarization_pipeline_called_on_a_file_blocks_where_the_model_is_run(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from pyannote.audio import Pipeline

        _pipeline = None

        def diarizer():
            global _pipeline
            if _pipeline is None:
                _pipeline = Pipeline.from_pretrained("some-org/diarization")
            return _pipeline

        def speakers(path):
            turns = diarizer()(path)
            return [label for _, _, label in turns.itertracks(yield_label=True)]

        async def on_upload(path):
            return speakers(path)

        async def on_upload_off_loop(path):
            return await asyncio.to_thread(speakers, path)
    """)
    assert found == {("blocking_file_io", '_pipeline = Pipeline.from_pretrained("some-org/diarization")'),
                     ("blocking_cpu", "turns = diarizer()(path)")}


def test_voice_packages_load_and_run_their_models_in_the_caller(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from bark import generate_audio, preload_models
        from melo.api import TTS
        from pywhispercpp.model import Model

        class Voice:
            def __init__(self, language):
                self.tts = TTS(language=language, device="cpu")

            def speak(self, text, path):
                self.tts.tts_to_file(text, 0, path)

        class Ears:
            def __init__(self):
                self.model = Model("base.en")

            def hear(self, path):
                return self.model.transcribe(path)

        async def switch_voice(language):
            preload_models()
            return Voice(language)

        async def answer(voice: Voice, ears: Ears, path, text):
            heard = ears.hear(path)
            voice.speak(text, path)
            return heard, generate_audio(text)

        async def answer_off_loop(voice: Voice, text, path):
            await asyncio.to_thread(voice.speak, text, path)
            return await asyncio.to_thread(generate_audio, text)
    """)
    assert found == {("blocking_file_io", "preload_models()"),
                     ("blocking_file_io", 'self.tts = TTS(language=language, device="cpu")'),
                     ("blocking_cpu", "self.tts.tts_to_file(text, 0, path)"),
                     ("blocking_cpu", "return self.model.transcribe(path)"),
                     ("blocking_cpu", "return heard, generate_audio(text)")}


def test_clients_that_connect_or_open_files_when_built_block_when_built_on_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import chromadb
        from gradio_client import Client

        STORE = chromadb.PersistentClient(path="vectors")

        async def health():
            probe = chromadb.PersistentClient(path="vectors")
            return probe.heartbeat()

        async def remote_voice(url, text):
            app = Client(url)
            job = app.submit(text)
            return app.predict(text, api_name="/tts"), job

        async def remote_voice_off_loop(url, text):
            app = await asyncio.to_thread(Client, url)
            return await asyncio.to_thread(app.predict, text, api_name="/tts")

        async def count():
            return await asyncio.to_thread(lambda: STORE.get_or_create_collection("docs").count())
    """)
    assert found == {("blocking_file_io", 'probe = chromadb.PersistentClient(path="vectors")'),
                     ("blocking_http", "return probe.heartbeat()"), ("blocking_http", "app = Client(url)"),
                     ("blocking_http", 'return app.predict(text, api_name="/tts"), job')}


def test_a_function_decorated_to_run_in_an_executor_is_off_the_loop(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import time
        from functools import partial, wraps

        import requests

        def in_thread(fn):
            @wraps(fn)
            async def run(*args, **kwargs):
                job = partial(fn, *args, **kwargs)
                return await asyncio.get_event_loop().run_in_executor(None, job)
            return run

        def via_to_thread(fn):
            async def run(*args):
                return await asyncio.to_thread(lambda: fn(*args))
            return run

        def still_inline(fn):
            async def run(*args):
                return fn(*args)
            return run

        @in_thread
        def render(prompt):
            time.sleep(1)
            return requests.post("http://sd.local/txt2img", json={"prompt": prompt}).json()

        @via_to_thread
        def pause():
            time.sleep(2)

        @still_inline
        def fetch(url):
            return requests.get(url).text

        async def on_message(prompt, url):
            image = await render(prompt)
            await pause()
            return image, await fetch(url)
    """)
    assert found == {("blocking_http", "return requests.get(url).text")}


def test_a_model_read_through_a_property_is_typed_by_what_the_property_returns(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        from sentence_transformers import SentenceTransformer

        class Embedder:
            def __init__(self, name):
                self.name = name
                self._model = None

            @property
            def model(self) -> SentenceTransformer:
                if self._model is None:
                    self._model = SentenceTransformer(self.name)
                return self._model

            @property
            def size(self):
                return 384

            async def embed(self, text):
                vector = self.model.encode(text)
                return vector.tolist(), self.size

            async def embed_off_loop(self, text):
                return await asyncio.to_thread(lambda: self.model.encode(text))
    """)
    assert found == {("blocking_file_io", "self._model = SentenceTransformer(self.name)"),
                     ("blocking_cpu", "vector = self.model.encode(text)")}


def test_openvino_models_run_and_compile_in_the_caller(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        import numpy as np
        import openvino as ov
        from optimum.intel import OVModelForFeatureExtraction

        class Recognizer:
            def __init__(self, folder):
                self.core = ov.Core()
                self.encoder = self.core.compile_model(folder + "/encoder.xml", "CPU")
                self.decoder = self.core.compile_model(folder + "/decoder.xml", "CPU").create_infer_request()

            def step(self, features):
                hidden = self.encoder([features])
                self.decoder.set_input_tensor(0, ov.Tensor(np.zeros(4)))
                self.decoder.infer()
                return hidden, self.decoder.get_output_tensor(0).data

        class Embedder:
            def load(self, path):
                self.model = OVModelForFeatureExtraction.from_pretrained(path)

            async def embed(self, batch):
                return self.model(**batch)

        async def hear(rec: Recognizer, features):
            return rec.step(features)

        async def hear_off_loop(rec: Recognizer, features):
            return await asyncio.to_thread(rec.step, features)

        async def reload(folder):
            return await asyncio.to_thread(Recognizer, folder)
    """)
    assert found == {("blocking_cpu", "hidden = self.encoder([features])"), ("blocking_cpu", "self.decoder.infer()"),
                     ("blocking_cpu", "return self.model(**batch)")}
