"""check blocking: kinds wave 30's first half (issue 17, stop 37) was missed or wrongly flagged, fixed by kind.

Each blocker is found at its line; each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


# -- file objects over a descriptor and the other openers of a named file ------------------------------------------
def test_writes_to_a_file_object_from_os_fdopen_block(tmp_path):
    found = flagged(tmp_path, """
        import os
        import tempfile

        async def store_upload(upload, folder):
            fd, name = tempfile.mkstemp(dir=folder)
            out = os.fdopen(fd, "wb")
            while chunk := await upload.read(65536):
                out.write(chunk)
            out.close()
            return name
    """)
    assert found == {("blocking_file_io", "out.write(chunk)")}


def test_writes_to_an_in_memory_buffer_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import io

        async def collect(upload):
            out = io.BytesIO()
            while chunk := await upload.read(65536):
                out.write(chunk)
            return out.getvalue()
    """)
    assert found == set()


def test_compressed_and_codec_openers_open_the_named_file(tmp_path):
    found = flagged(tmp_path, """
        import bz2
        import codecs
        import gzip

        async def read_logs(path):
            with gzip.open(path, "rt") as f:
                first = f.read()
            with codecs.open(path + ".txt", encoding="utf-8") as g:
                second = g.read()
            return first + second + bz2.open(path + ".bz2").read().decode()
    """)
    assert {line for _, line in found} == {'with gzip.open(path, "rt") as f:',
                                          'with codecs.open(path + ".txt", encoding="utf-8") as g:',
                                          'return first + second + bz2.open(path + ".bz2").read().decode()'}
    assert {kind for kind, _ in found} == {"blocking_file_io"}



# -- pydub writes and reads plain WAV itself -------------------------------------------------------------------------
def test_pydub_wav_in_memory_starts_no_ffmpeg(tmp_path):
    found = flagged(tmp_path, """
        import io
        from pydub import AudioSegment

        async def to_wav(raw: bytes):
            segment = AudioSegment.from_wav(io.BytesIO(raw))
            out = io.BytesIO()
            segment.export(out, format="wav")
            return out.getvalue()
    """)
    assert found == set()


def test_pydub_other_formats_and_ffmpeg_options_still_block(tmp_path):
    found = flagged(tmp_path, """
        import io
        from pydub import AudioSegment

        async def to_speech(mp3: bytes, path):
            segment = AudioSegment.from_mp3(io.BytesIO(mp3))
            out = io.BytesIO()
            segment.export(out, format="ogg")
            segment.export(io.BytesIO(), format="wav", parameters=["-ac", "1"])
            segment.export(path, format="wav")
            return out
    """)
    assert found == {
        ("blocking_subprocess", "segment = AudioSegment.from_mp3(io.BytesIO(mp3))"),
        ("blocking_subprocess", 'segment.export(out, format="ogg")'),
        ("blocking_subprocess", 'segment.export(io.BytesIO(), format="wav", parameters=["-ac", "1"])'),
        ("blocking_file_io", 'segment.export(path, format="wav")'),
    }


# -- a client known by its class name that the code uses as a coroutine API -----------------------------------------
def test_a_name_guessed_client_the_code_awaits_elsewhere_is_no_guess(tmp_path):
    found = flagged(tmp_path, """
        import asyncio

        class Channel:
            async def start(self):
                from chatvendor import SocketClient
                self.ws = SocketClient(token="t")
                self.task = asyncio.create_task(self.ws.connect())

            async def send(self, chat, text):
                await self._retry(lambda: self.ws.send_message(chat, text))

            async def stop(self):
                self.ws.disconnect()

            async def _retry(self, operation):
                return await operation()
    """)
    assert found == set()


def test_a_name_guessed_client_never_awaited_is_still_a_guess(tmp_path):
    found = flagged(tmp_path, """
        class Channel:
            async def start(self):
                from chatvendor import SocketClient
                self.ws = SocketClient(token="t")
                self.ws.connect()

            async def stop(self):
                self.ws.disconnect()
    """)
    assert found == {("blocking_http", "self.ws.connect()"), ("blocking_http", "self.ws.disconnect()")}


def test_a_name_guessed_client_builder_only_sets_options(tmp_path):
    found = flagged(tmp_path, """
        import chatvendor

        async def start(app_id, secret):
            client = chatvendor.Client.builder().app_id(app_id).app_secret(secret).build()
            return client
    """)
    assert found == set()


# -- a file parameter that only some callers fill with a buffer ----------------------------------------------------
HELPER = """
    import io
    import os
    import wave

    SOUNDS = os.path.dirname(__file__)
    CHIME = "%s/chime.wav" % SOUNDS


    def pcm_of(source):
        with wave.open(source, "rb") as w:
            return w.readframes(w.getnframes())


    def pcm_of_bytes(data: bytes):
        return pcm_of(io.BytesIO(data))
"""


def test_a_file_parameter_a_caller_fills_with_a_path_blocks(tmp_path):
    found = flagged(tmp_path, HELPER + """

    class Voice:
        def chime(self):
            return pcm_of(CHIME)

        async def prepare(self):
            self.sounds = [self.chime()]
    """)
    assert found == {("blocking_file_io", 'with wave.open(source, "rb") as w:')}


def test_a_file_parameter_every_caller_fills_with_a_buffer_stays_silent(tmp_path):
    found = flagged(tmp_path, HELPER + """

    async def prepare(data: bytes):
        return pcm_of_bytes(data)
    """)
    assert found == set()


# -- the streaming body of an AWS response, read on the loop --------------------------------------------------------
def test_reading_an_offloaded_aws_response_body_on_the_loop_blocks(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import boto3

        class Speech:
            def __init__(self):
                self.polly = boto3.client("polly")

            def _synthesize(self, text):
                return self.polly.synthesize_speech(Text=text, OutputFormat="pcm", VoiceId="Joanna")

            async def speak(self, text, size):
                response = await asyncio.get_running_loop().run_in_executor(None, self._synthesize, text)
                stream = response.get("AudioStream")

                async def chunks():
                    while True:
                        part = stream.read(size)
                        if not part:
                            return
                        yield part

                return chunks()

            async def fetch(self, s3_response):
                return s3_response["Body"].read()
    """)
    assert found == {("blocking_http", "part = stream.read(size)"),
                     ("blocking_http", 'return s3_response["Body"].read()')}


def test_awaited_body_reads_and_other_reads_stay_silent(tmp_path):
    found = flagged(tmp_path, """
        import io

        async def fetch(session, request):
            async with session.create_client("s3") as s3:
                response = await s3.get_object(Bucket="b", Key="k")
                data = await response["Body"].read()
            form = {"Body": io.BytesIO(b"x")}
            note = form["Body"].getvalue()
            return data, note, await request.read()
    """)
    assert found == set()


# -- wave 30-2 (after its held-out measure) ------------------------------------------------------------------------
def _package(tmp_path, files: dict[str, str]):
    import textwrap

    from faultlib.detect.serving.blocking import analyze_path

    for name, source in files.items():
        path = tmp_path / "svc" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    report = analyze_path(tmp_path / "svc")
    assert report.complete
    return {(f.location["file"].rpartition("svc/")[2], f.location["line"]) for f in report.findings}


BASES = {
    "base/__init__.py": "from .providers import *\n",
    "base/providers/__init__.py": ("from .crypto import Hasher\nfrom .auth import AuthBase\n"
                                   "__all__ = ['Hasher', 'AuthBase']\n"),
    "base/providers/crypto.py": """
        from abc import ABC, abstractmethod

        class Hasher(ABC):
            @abstractmethod
            def check(self, plain: str, hashed: bytes) -> bool: ...
    """,
    "base/providers/auth.py": """
        from .crypto import Hasher

        class AuthBase:
            hasher: Hasher

            def __init__(self, hasher: Hasher):
                self.hasher = hasher
    """,
    "providers/bcrypt_hasher.py": """
        import bcrypt

        from base import Hasher

        class BcryptHasher(Hasher):
            def check(self, plain: str, hashed: bytes) -> bool:
                return bcrypt.checkpw(plain.encode(), hashed)
    """,
}


def test_a_base_class_re_exported_by_star_imports_is_followed(tmp_path):
    found = _package(tmp_path, {**BASES, "providers/auth.py": """
        from base import AuthBase

        class Auth(AuthBase):
            async def login(self, plain, hashed):
                return self.hasher.check(plain, hashed)
    """})
    assert found == {("providers/bcrypt_hasher.py", 8)}


def test_a_private_name_is_not_re_exported_by_a_star_import(tmp_path):
    found = _package(tmp_path, {**BASES, "base/providers/__init__.py": "from .auth import AuthBase as _AuthBase\n",
                                "providers/auth.py": """
        from base import _AuthBase

        class Auth(_AuthBase):
            async def login(self, plain, hashed):
                return self.hasher.check(plain, hashed)
    """})
    assert found == set()


def test_a_library_callable_kept_on_the_instance_runs_when_called(tmp_path):
    found = flagged(tmp_path, """
        from io import BytesIO

        from pdf2image import convert_from_bytes
        from pptx import Presentation

        class SlidesParser:
            def __init__(self, config):
                self.config = config
                self.Presentation = Presentation
                self.render = convert_from_bytes

            async def ingest(self, data: bytes):
                deck = self.Presentation(BytesIO(data))
                pages = self.render(data, dpi=100)
                return deck, pages

        class NotesParser:
            def __init__(self):
                self.Presentation = Presentation
    """)
    assert found == {("blocking_cpu", "deck = self.Presentation(BytesIO(data))"),
                     ("blocking_subprocess", "pages = self.render(data, dpi=100)")}


def test_an_instance_kept_on_the_instance_is_no_bound_callable(tmp_path):
    found = flagged(tmp_path, """
        class Tidy:
            def __call__(self, text):
                return text.strip()

        class Parser:
            def __init__(self, cleaner):
                self.clean = cleaner
                self.tidy = Tidy()

            async def ingest(self, text):
                return self.tidy(self.clean(text))
    """)
    assert found == set()


def test_password_hashing_libraries_block(tmp_path):
    found = flagged(tmp_path, """
        import nacl.pwhash
        from argon2 import PasswordHasher
        from werkzeug.security import check_password_hash

        hasher = PasswordHasher()

        async def login(plain: str, stored: bytes, legacy: str, modern: str):
            nacl.pwhash.verify(stored, plain.encode())
            old = check_password_hash(legacy, plain)
            return old and hasher.verify(modern, plain)
    """)
    assert found == {("blocking_cpu", "nacl.pwhash.verify(stored, plain.encode())"),
                     ("blocking_cpu", "old = check_password_hash(legacy, plain)"),
                     ("blocking_cpu", "return old and hasher.verify(modern, plain)")}


def test_an_awaited_clients_plain_shutdown_may_still_wait(tmp_path):
    found = flagged(tmp_path, """
        from enginekit import EngineClient

        async def serve(engine: EngineClient, prompt):
            try:
                return await engine.generate(prompt)
            finally:
                engine.shutdown()
    """)
    assert found == {("blocking_http", "engine.shutdown()")}


def test_a_documented_class_scanned_with_its_own_package_stays_documented(tmp_path):
    found = _package(tmp_path, {
        "llama_cpp/__init__.py": "from .llama import *\n",
        "llama_cpp/llama.py": """
            class Llama:
                def __init__(self, model_path):
                    self.model_path = model_path

                def create_completion(self, prompt):
                    return {"text": prompt}
        """,
        "server.py": """
            import llama_cpp

            llama = llama_cpp.Llama(model_path="model.gguf")

            async def complete(prompt):
                return llama.create_completion(prompt)
        """,
    })
    assert ("server.py", 7) in found


def test_an_uncompressed_zip_written_into_memory_is_a_copy(tmp_path):
    found = flagged(tmp_path, """
        import io
        import zipfile

        async def bundle(files):
            stored, packed = io.BytesIO(), io.BytesIO()
            with zipfile.ZipFile(stored, "w") as archive:
                for name, data in files:
                    archive.writestr(name, data)
            with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, data in files:
                    archive.writestr(name, data)
            with zipfile.ZipFile(io.BytesIO(stored.getvalue())) as archive:
                names = archive.namelist()
            return packed.getvalue(), names
    """)
    assert found == {("blocking_cpu", 'with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:'),
                     ("blocking_cpu", "with zipfile.ZipFile(io.BytesIO(stored.getvalue())) as archive:")}
