"""check blocking: two kinds of false alarm found when this stop's new alarms on earlier services were judged by
reading (issue 17). Each look-alike of a real blocker stays silent, the blocker beside it is still found. Every
example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged

_JOBS = """
    import sqlite3

    from fastapi import FastAPI
    from fastapi_utils.tasks import repeat_every

    app = FastAPI()


    def refresh_totals():
        db = sqlite3.connect("totals.db")
        db.execute("UPDATE totals SET n = n + 1")
"""


def test_a_plain_job_under_repeat_every_runs_in_the_thread_pool_and_is_silent(tmp_path):
    found = flagged(tmp_path, _JOBS + """
    @app.on_event("startup")
    @repeat_every(seconds=3600)
    def hourly() -> None:
        refresh_totals()
    """)
    assert found == set()


def test_a_plain_startup_handler_without_repeat_every_still_runs_on_the_loop(tmp_path):
    found = flagged(tmp_path, _JOBS + """
    @app.on_event("startup")
    def once() -> None:
        refresh_totals()
    """)
    assert ("blocking_db", 'db = sqlite3.connect("totals.db")') in found


_SEGMENTS = """
    from fastapi import FastAPI
    from faster_whisper import WhisperModel

    app = FastAPI()
    whisper = WhisperModel("base")
"""


def test_segments_drained_into_a_list_are_reported_once_where_they_are_drained(tmp_path):
    found = flagged(tmp_path, _SEGMENTS + """
    @app.post("/text")
    async def text(path: str):
        parts, about = whisper.transcribe(path)
        parts = list(parts)
        for part in parts:
            print(part.text)
        return " ".join(part.text for part in parts)
    """)
    iterated = {line for kind, line in found if "transcribe" not in line}
    assert iterated == {"parts = list(parts)"}, f"{found}"


def test_segments_iterated_before_they_are_drained_into_a_list_are_still_reported(tmp_path):
    found = flagged(tmp_path, _SEGMENTS + """
    @app.post("/first")
    async def first(path: str):
        parts, about = whisper.transcribe(path)
        for part in parts:
            break
        parts = list(parts)
        return parts
    """)
    iterated = {line for kind, line in found if "transcribe" not in line}
    assert iterated == {"for part in parts:", "parts = list(parts)"}, f"{found}"
