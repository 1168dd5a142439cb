"""check blocking: the kinds stop 31 left (issue 17), fixed at stop 33 -- a receiver that may hold one of several
classes of the analysed files through several assignments (every one followed, not the first), and an attribute
a base stores from a method its subclasses override. Each blocker is found at its line; each look-alike stays
silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

SPEAKERS = """
    import requests
    from llama_cpp import Llama

    class CloudVoice:
        def say(self, text):
            return requests.post("https://tts.example/say", json={"text": text}).content

    class LocalVoice:
        def __init__(self):
            self.model = Llama(model_path="voice.gguf")

        def say(self, text):
            return self.model(text)

    class QuietVoice:
        def say(self, text):
            return text.encode()

    def make_voice(settings):
        if settings.remote:
            voice = CloudVoice()
        else:
            kind = LocalVoice if settings.local else QuietVoice
            voice = kind()
        return voice, settings.name

    class Engine:
        def __init__(self, settings):
            self.voice = None
            if settings.silent:
                self.voice = QuietVoice()
            else:
                self.voice, self.name = make_voice(settings)

    class Session:
        def __init__(self, voice):
            self.voice = voice

        def speak(self, text):
            return self.voice.say(text)

    async def reply(engine, text):
        session = Session(engine.voice)
        return session.speak(text)

    async def serve(settings, text):
        return await reply(Engine(settings), text)
"""


def test_each_class_a_receiver_may_hold_runs_its_method(tmp_path):
    found = flagged(tmp_path, SPEAKERS)
    assert ("blocking_http", 'return requests.post("https://tts.example/say", json={"text": text}).content') in found
    assert ("blocking_cpu", "return self.model(text)") in found


def test_a_receiver_assigned_either_side_of_a_conditional_runs_both(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Remote:
            def fetch(self, key):
                return requests.get(f"https://store.example/{key}").json()

        class Memory:
            def fetch(self, key):
                return {"key": key}

        class Cache:
            def __init__(self, shared):
                self.backend = Memory() if shared else Remote()

            def get(self, key):
                return self.backend.fetch(key)

        async def handler(cache: Cache, key):
            return cache.get(key)
    """)
    assert found == {("blocking_http", 'return requests.get(f"https://store.example/{key}").json()')}


def test_receivers_that_only_ever_hold_quiet_classes_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import requests

        class Remote:
            def fetch(self, key):
                return requests.get(f"https://store.example/{key}").json()

        class Memory:
            def fetch(self, key):
                return {"key": key}

        class Other:
            def fetch(self, key):
                return [key]

        class Cache:
            def __init__(self, shared):
                self.backend = Memory() if shared else Other()

            def get(self, key):
                return self.backend.fetch(key)

        def offline():
            return Remote().fetch("k")

        async def handler(cache: Cache, key):
            return cache.get(key)
    """)
    assert found == set()


def test_an_attribute_a_base_stores_from_an_overridden_method_has_the_overrides_type(tmp_path):
    found = flagged(tmp_path, """
        import sqlite3

        class Backend:
            def __init__(self, path):
                self.conn = self.connect(path)

            def connect(self, path):
                raise NotImplementedError

            def rows(self):
                raise NotImplementedError

        class SqliteBackend(Backend):
            def connect(self, path):
                return sqlite3.connect(path)

            def rows(self):
                return self.conn.execute("select * from t").fetchall()

        async def listing(backend: Backend):
            return backend.rows()
    """)
    assert ("blocking_db", 'return self.conn.execute("select * from t").fetchall()') in found


def test_an_attribute_stored_from_a_quiet_override_is_silent(tmp_path):
    found = flagged(tmp_path, """
        class Backend:
            def __init__(self, path):
                self.conn = self.connect(path)

            def connect(self, path):
                raise NotImplementedError

            def rows(self):
                raise NotImplementedError

        class Rows:
            def execute(self, query):
                return [query]

        class MemoryBackend(Backend):
            def connect(self, path):
                return Rows()

            def rows(self):
                return self.conn.execute("select * from t")

        async def listing(backend: Backend):
            return backend.rows()
    """)
    assert found == set()


BRANCHED = """
    import io

    def encode(pixels, out_path=None):
        data = io.BytesIO(pixels).getvalue()
        if out_path:
            with open(out_path, "wb") as f:
                f.write(data)
        return data

    def main(argv):
        encode(b"...", argv[1])

    async def upload(pixels):
        return encode(pixels, None)
"""


def test_a_branch_only_a_command_line_caller_takes_blocks_nothing_on_the_loop(tmp_path):
    assert flagged(tmp_path, BRANCHED) == set()


def test_a_branch_a_caller_on_the_loop_takes_still_blocks(tmp_path):
    found = flagged(tmp_path, BRANCHED + """
    async def save(pixels, path):
        return encode(pixels, path)
""")
    assert found == {("blocking_file_io", 'with open(out_path, "wb") as f:')}
