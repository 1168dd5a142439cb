"""check blocking, known kinds left at stop 51: the binary response of an OpenAI request (text to speech, a file's
content) written to a file with its sync ``stream_to_file``/``write_to_file``; a parser of the project that parses a
timestamp on every line of a whole text, called on the loop; a ``threading.Event`` wait that cannot wait (set just
before, or a single flight that only the loop's thread runs); the house rule that a tokenizer's call on one request's
text is no blocker while the model run beside it and the tokenizer's load are; a file whose parenthesised group of
f-strings holds what only Python 3.12 parses (the 3.11 parser names the group's closing line) is read, not left
out. Each blocker is found at its line; each look-alike
stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

_SPEECH = """
    import asyncio
    from openai import AsyncOpenAI, OpenAI

    class Narrator:
        def __init__(self):
            self.voice_api = AsyncOpenAI()
            self.plain_api = OpenAI()

        async def read_aloud(self, story: str) -> str:
            clip = await self.voice_api.audio.speech.create(model="tts-1-hd", voice="fable", input=story)
            clip.stream_to_file("/srv/clips/story.opus")
            return "/srv/clips/story.opus"

        async def keep_upload(self, uid: str) -> None:
            (await self.voice_api.files.content(uid)).write_to_file(f"/srv/up/{uid}")

        async def keep_offloaded(self, uid: str) -> None:
            blob = await asyncio.to_thread(self.plain_api.files.content, uid)
            blob.write_to_file(f"/srv/up/{uid}")
"""


def test_an_openai_binary_response_written_with_its_sync_writer_blocks(tmp_path):
    assert flagged(tmp_path, _SPEECH) == {
        ("blocking_file_io", 'clip.stream_to_file("/srv/clips/story.opus")'),
        ("blocking_file_io", '(await self.voice_api.files.content(uid)).write_to_file(f"/srv/up/{uid}")'),
        ("blocking_file_io", 'blob.write_to_file(f"/srv/up/{uid}")'),
    }


def test_the_async_writer_a_streamed_response_and_other_receivers_stay_silent(tmp_path):
    assert flagged(tmp_path, """
        from groq import AsyncGroq
        from openai import AsyncOpenAI

        voice_api = AsyncOpenAI()
        other_api = AsyncGroq()

        class Recorder:
            async def stream_to_file(self, path):
                return path

        async def read_aloud(story: str) -> None:
            clip = await voice_api.audio.speech.create(model="tts-1", voice="onyx", input=story)
            await clip.astream_to_file("/srv/clips/a.mp3")

        async def read_streamed(story: str) -> None:
            async with voice_api.audio.speech.with_streaming_response.create(
                    model="tts-1", voice="onyx", input=story) as streamed:
                await streamed.stream_to_file("/srv/clips/b.mp3")

        async def read_elsewhere(story: str) -> None:
            clip = await other_api.audio.speech.create(model="playai-tts", voice="Celeste-PlayAI", input=story)
            await clip.write_to_file("/srv/clips/c.wav")

        async def record(story: str) -> None:
            rec = Recorder()
            rec.stream_to_file("/srv/clips/d.mp3")
            clip = await voice_api.audio.speech.create(model="tts-1", voice="onyx", input=story)
            data = clip.read()
            return data
    """) == set()


_JOURNAL = """
    import asyncio
    import io
    import re
    import time
    from datetime import datetime

    STAMP = re.compile(r"^<(\\d{8} \\d{6})> (\\w+): (.*)$")

    def _record(line):
        found = STAMP.match(line)
        if found is None:
            return None
        return datetime.strptime(found.group(1), "%Y%m%d %H%M%S"), found.group(2), found.group(3)

    def interleave(journals):
        def entries(journal):
            for line in io.StringIO(journal):
                parsed = _record(line)
                if parsed is not None:
                    yield parsed
        for journal in journals:
            yield from sorted(entries(journal))

    def table(dump):
        return [datetime.strptime(row[:15], "%Y%m%d %H%M%S") for row in dump.splitlines() if row]

    def headline(dump):
        return _record(dump.partition("\\n")[0])

    def shout(dump):
        return [STAMP.match(row) for row in dump.splitlines()]

    def fixed():
        return [datetime.strptime(day, "%Y-%m-%d") for day in ("2024-01-01", "2024-12-31")]
"""


def test_a_project_parser_of_every_line_called_on_the_loop_blocks(tmp_path):
    assert flagged(tmp_path, _JOURNAL + """
    async def merged(journals):
        return [item for item in interleave(journals)]

    async def rows(dump):
        return table(dump)

    async def beats(payload: str):
        seen = []
        for beat in payload.split("\\n"):
            seen.append(time.strptime(beat, "%H:%M:%S"))
        return seen
    """) == {
        ("blocking_cpu", "return [item for item in interleave(journals)]"),
        ("blocking_cpu", "return table(dump)"),
        ("blocking_cpu", 'for beat in payload.split("\\n"):'),
    }


def test_one_line_a_fixed_list_a_regex_alone_an_unrun_generator_and_an_offload_stay_silent(tmp_path):
    assert flagged(tmp_path, _JOURNAL + """
    async def first(dump):
        return headline(dump), fixed(), shout(dump)

    async def lazily(journals):
        pending = interleave(journals)
        return pending

    async def offloaded(dump):
        return await asyncio.to_thread(table, dump)
    """) == set()


_FLIGHTS = """
    import asyncio
    import threading
    from dataclasses import dataclass, field

    @dataclass
    class Pending:
        done: threading.Event = field(default_factory=threading.Event)
        answer: object = None

    _pending: dict = {}
    _guard = threading.Lock()

    def once(key, work):
        with _guard:
            slot = _pending.get(key)
            mine = slot is None
            if mine:
                slot = _pending[key] = Pending()
        if not mine:
            slot.done.wait()
            return slot.answer
        try:
            slot.answer = work()
        finally:
            with _guard:
                _pending.pop(key, None)
            slot.done.set()
        return slot.answer

    def lookup(key):
        return once(key, lambda: key.upper())

    def primed():
        gate = threading.Event()
        gate.set()
        gate.wait()
        return True
"""


def test_a_single_flight_also_run_off_the_loop_or_set_elsewhere_still_waits(tmp_path):
    assert flagged(tmp_path, _FLIGHTS + """
    async def handler(key):
        return lookup(key)

    async def handler_in_thread(key):
        return await asyncio.to_thread(lookup, key)
    """) == {("blocking_task", "slot.done.wait()")}
    assert flagged(tmp_path, _FLIGHTS + """
    def finish_elsewhere(key, value):
        item = _pending[key]
        item.answer = value
        item.done.set()

    async def handler(key):
        return lookup(key), primed()
    """) == {("blocking_task", "slot.done.wait()")}
    assert flagged(tmp_path, """
        import threading

        gate = threading.Event()

        def reset_and_wait():
            gate.set()
            gate.clear()
            gate.wait()

        async def handler():
            reset_and_wait()
    """) == {("blocking_task", "gate.wait()")}


def test_an_event_set_before_or_a_single_flight_only_the_loop_runs_never_waits(tmp_path):
    assert flagged(tmp_path, _FLIGHTS + """
    async def handler(key):
        return lookup(key), once(key, str), primed()
    """) == set()


def test_a_tokenizer_call_on_the_request_text_is_no_blocker_but_the_model_run_and_the_load_are(tmp_path):
    assert flagged(tmp_path, """
        import onnxruntime as ort
        import tiktoken
        from transformers import AutoTokenizer

        ranker = ort.InferenceSession("ranker.onnx")
        vocab = AutoTokenizer.from_pretrained("acme/ranker-base")
        counter = tiktoken.get_encoding("o200k_base")

        async def rank(query: str, passage: str):
            pair = vocab(query, passage, truncation=True, return_tensors="np")
            ids = vocab.encode(query)
            budget = len(counter.encode(passage))
            logits = ranker.run(None, dict(pair))[0]
            return logits, vocab.decode(ids), budget

        async def swap(name: str):
            global vocab
            vocab = AutoTokenizer.from_pretrained(name)
    """) == {
        ("blocking_cpu", "logits = ranker.run(None, dict(pair))[0]"),
        ("blocking_file_io", "vocab = AutoTokenizer.from_pretrained(name)"),
    }


def test_a_module_with_a_python_312_f_string_group_is_analysed_not_left_out(tmp_path):
    assert flagged(tmp_path, """
        import smtplib

        def quote(previous: str, answer: str) -> str:
            return (
                f"{answer}\\n\\n"
                f"> {previous.replace('\\n', '\\n> ') if previous else '(empty)'}"
            )

        async def reply(previous: str, answer: str):
            body = quote(previous, answer)
            with smtplib.SMTP("mail.internal", 25) as relay:
                relay.sendmail("bot@internal", ["desk@internal"], body)
    """) == {
        ("blocking_socket_io", 'with smtplib.SMTP("mail.internal", 25) as relay:'),
        ("blocking_socket_io", 'relay.sendmail("bot@internal", ["desk@internal"], body)'),
    }
