"""check blocking: kinds stop 32 left (issue 17), fixed at stop 34. Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged


def findings_in(tmp_path: Path, files: dict[str, str], scan: str = "."):
    """The findings of ``scan`` (a folder under ``tmp_path``) once ``files`` (relative path -> source) exist."""
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    report = analyze_path(tmp_path / scan)
    assert report.complete
    return report


def lines_of(report) -> set[tuple[str, str, str]]:
    """``(file name, kind, stripped line)`` of each finding."""
    return {(Path(f.location["file"]).name, f.kind,
             Path(f.location["file"]).read_text().splitlines()[f.location["line"] - 1].strip())
            for f in report.findings if "line" in f.location}


# -- a client known only by its class name says so ---------------------------------------------------------------
def test_a_client_known_only_by_its_class_name_is_called_a_guess(tmp_path):
    path = tmp_path / "svc.py"
    path.write_text(textwrap.dedent("""
        from weatherco import ForecastClient

        forecasts = ForecastClient(token="t")

        async def today(city):
            return forecasts.fetch_day(city)
    """))
    report = analyze_path(path)
    [finding] = report.findings
    assert finding.kind == "blocking_http"
    assert "guess from the class name" in finding.message and "`ForecastClient`" in finding.message
    assert "ForecastClient" in finding.evidence["guess"]
    assert "guess" in json.loads(json.dumps(finding.evidence))


def test_a_documented_client_is_no_guess(tmp_path):
    path = tmp_path / "svc.py"
    path.write_text(textwrap.dedent("""
        import requests

        async def today(city):
            return requests.get("https://example.invalid/" + city)
    """))
    [finding] = analyze_path(path).findings
    assert "guess" not in finding.evidence and "guess" not in finding.message


# -- a parameter annotated with one library's type while its callers pass another's ------------------------------
SHOP_DB = """
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    engine = create_engine("sqlite:///shop.db")
    Local = sessionmaker(bind=engine)

    def open_db():
        db = Local()
        try:
            yield db
        finally:
            db.close()
"""


def test_callers_sessions_beat_a_slipped_annotation(tmp_path):
    report = findings_in(tmp_path, {"shop/__init__.py": "", "shop/db.py": SHOP_DB, "shop/orders.py": """
        class Order:
            def __init__(self, item):
                self.item = item

            def keep(self, db):
                db.add(self)
                db.commit()
    """, "shop/routes.py": """
        from fastapi import APIRouter, Depends
        from requests import Session

        from shop.db import open_db
        from shop.orders import Order

        router = APIRouter()

        async def known(item: str, db: Session) -> bool:
            return db.query(Order).filter(Order.item == item).first() is not None

        @router.post("/orders")
        async def place(item: str, db: Session = Depends(open_db)):
            if await known(item, db):
                return {"ok": False}
            Order(item).keep(db)
            return {"ok": True}
    """}, scan="shop")
    assert lines_of(report) == {
        ("routes.py", "blocking_db", "return db.query(Order).filter(Order.item == item).first() is not None"),
        ("orders.py", "blocking_db", "db.commit()")}


def test_an_annotation_stands_when_callers_disagree_or_agree_with_it(tmp_path):
    report = findings_in(tmp_path, {"svc.py": """
        import httpx
        import requests

        async def status(client: httpx.AsyncClient) -> int:
            reply = await client.get("https://example.invalid/health")
            return reply.status_code

        async def both():
            await status(httpx.AsyncClient())
            await status(requests.Session())

        async def one():
            return await status(httpx.AsyncClient())
    """})
    assert lines_of(report) == set()


# -- the repository's own packages outside the scanned folder -----------------------------------------------------
SHARED = {
    "shared/__init__.py": "from .store import load_profile\n",
    "shared/store.py": """
        import json

        def load_profile(name):
            with open(f"profiles/{name}.json") as handle:
                return json.load(handle)
    """,
    "shared/jobs.py": """
        import time

        async def nightly_cleanup():
            time.sleep(30)
    """,
    "shared/tests/test_store.py": """
        import time

        async def test_slow():
            time.sleep(1)
    """,
    "svc/app.py": """
        from shared import load_profile

        async def profile(name):
            return load_profile(name)
    """,
}


def test_a_package_beside_the_scanned_folder_in_the_repository_is_followed(tmp_path):
    (tmp_path / ".git").mkdir()
    report = findings_in(tmp_path, SHARED, scan="svc")
    assert lines_of(report) == {("store.py", "blocking_file_io", 'with open(f"profiles/{name}.json") as handle:')}
    assert sorted(Path(p).relative_to(tmp_path).as_posix() for p in report.added) == [
        "shared/__init__.py", "shared/jobs.py", "shared/store.py"]  # its tests left out
    assert report.fields()["added"] == report.added


def test_outside_the_repository_nothing_above_the_parent_is_read(tmp_path):
    files = {f"repo/{name}": source for name, source in SHARED.items()}
    files["repo/svc/app.py"] = files["repo/svc/app.py"].replace("from shared", "from common")
    files["common/__init__.py"] = "def load_profile(name):\n    return open(name).read()\n"
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    report = findings_in(tmp_path, files, scan="repo/svc")
    assert lines_of(report) == set() and report.added == []


def test_a_single_file_names_the_imports_of_its_project_it_did_not_follow(tmp_path):
    (tmp_path / ".git").mkdir()
    for name, source in SHARED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(source))
    report = analyze_path(tmp_path / "svc" / "app.py")
    assert report.findings == [] and report.not_followed == ["shared"]
    quiet = tmp_path / "svc" / "plain.py"
    quiet.write_text("import json\n\nasync def f():\n    return json.dumps({})\n")
    assert analyze_path(quiet).not_followed == []


# -- a coroutine driven on a worker thread's own loop ------------------------------------------------------------
SESSION = """
    import asyncio
    import requests
    from fastapi import FastAPI
    from fastapi.concurrency import run_in_threadpool

    app = FastAPI()

    async def lookup(word):
        return requests.get("https://dictionary.invalid/" + word).json()

    class Chat:
        def __init__(self):
            self.loop = asyncio.new_event_loop()

        async def reply(self, text):
            return await lookup(text)

        def run(self, text):
            return self.loop.run_until_complete(self.reply(text))

    @app.post("/chat")
    async def chat(text: str):
        session = Chat()
        return await run_in_threadpool(session.run, text)
"""


def test_a_coroutine_run_on_a_worker_threads_own_loop_is_silent(tmp_path):
    assert flagged(tmp_path, SESSION) == set()


def test_the_same_coroutine_awaited_on_the_servers_loop_blocks(tmp_path):
    also = SESSION + """
    @app.get("/define")
    async def define(word: str):
        return await lookup(word)
    """
    assert flagged(tmp_path, also) == {
        ("blocking_http", 'return requests.get("https://dictionary.invalid/" + word).json()')}


def test_a_loop_driven_outside_a_worker_thread_is_still_the_loop(tmp_path):
    script = SESSION.replace("return await run_in_threadpool(session.run, text)", "return session.run(text)")
    assert flagged(tmp_path, script) == {
        ("blocking_http", 'return requests.get("https://dictionary.invalid/" + word).json()')}


# -- a cache that import time has already filled -----------------------------------------------------------------
MODELS = """
    from transformers import AutoModel

    KNOWN = ["acme/tiny-encoder", "acme/small-encoder"]
    _loaded = {}

    def model_for(name):
        if name not in _loaded:
            if name not in KNOWN:
                raise ValueError(f"unknown model {name}")
            _loaded[name] = AutoModel.from_pretrained(name)
        return _loaded[name]

    def warm_up():
        for name in KNOWN:
            model_for(name)
"""
APP = """
    from fastapi import FastAPI
    from models import model_for, warm_up

    warm_up()
    app = FastAPI()

    @app.get("/embed")
    async def embed(name: str):
        return model_for(name).config.hidden_size
"""


def test_a_cache_filled_at_import_time_for_every_admitted_name_is_silent(tmp_path):
    assert lines_of(findings_in(tmp_path, {"models.py": MODELS, "app.py": APP})) == set()


def test_a_cache_filled_only_by_a_script_or_without_an_allow_list_still_blocks(tmp_path):
    blocker = {("models.py", "blocking_file_io", "_loaded[name] = AutoModel.from_pretrained(name)")}
    script = APP.replace("warm_up()\n", 'if __name__ == "__main__":\n        warm_up()\n')
    assert lines_of(findings_in(tmp_path / "a", {"models.py": MODELS, "app.py": script})) == blocker
    open_ended = MODELS.replace("if name not in KNOWN:", "if not name:")
    assert lines_of(findings_in(tmp_path / "b", {"models.py": open_ended, "app.py": APP})) == blocker


# -- a branch the caller's **options never take ------------------------------------------------------------------
SPEAKER = """
    import threading

    class Speaker:
        def say(self, text, speed=1.0, record_to=None):
            if record_to:
                self.file = open(record_to, "wb")
            return text

        def say_later(self, text):
            threading.Thread(target=self.say, args=(text, 1.0, "later.wav")).start()

    speaker = Speaker()

    async def speak(text):
        options = {"speed": 1.2, "text": text}
        return speaker.say(**options)
"""


def test_a_branch_the_callers_options_never_take_is_silent(tmp_path):
    assert flagged(tmp_path, SPEAKER) == set()


def test_options_that_take_the_branch_or_change_later_still_block(tmp_path):
    blocker = {("blocking_file_io", 'self.file = open(record_to, "wb")')}
    recorded = SPEAKER.replace('"text": text}', '"text": text, "record_to": "take.wav"}')
    assert flagged(tmp_path, recorded) == blocker
    changed = SPEAKER.replace("return speaker.say(**options)", 'options["record_to"] = text\n        '
                                                                   "return speaker.say(**options)")
    assert flagged(tmp_path, changed) == blocker


# -- a call that blocks only for some values of one argument -----------------------------------------------------
def test_sampling_cpu_use_over_an_interval_blocks(tmp_path):
    found = flagged(tmp_path, """
        import psutil

        async def health(window):
            busy = psutil.cpu_percent(interval=1)
            spread = psutil.cpu_times_percent(0.5)
            recent = psutil.cpu_percent(interval=window)
            return busy, spread, recent
    """)
    assert found == {("blocking_sleep", "busy = psutil.cpu_percent(interval=1)"),
                     ("blocking_sleep", "spread = psutil.cpu_times_percent(0.5)"),
                     ("blocking_sleep", "recent = psutil.cpu_percent(interval=window)")}


def test_reading_cpu_use_since_the_last_call_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import psutil

        async def health():
            return psutil.cpu_percent(), psutil.cpu_percent(interval=None), psutil.cpu_times_percent(0.0)
    """)
    assert found == set()


def test_a_plugin_table_can_say_when_a_call_blocks():
    from faultlib.detect.serving.blocking.vocab import BlocksWhen, Vocabulary

    assert Vocabulary(calls={"m.f": ("blocking_sleep", "https://example.invalid")},
                      when={"m.f": BlocksWhen("wait", 0, "true")}).problem() is None
    assert "BlocksWhen" in Vocabulary(when={"m.f": BlocksWhen("wait", 0, "sometimes")}).problem()
    assert "BlocksWhen" in Vocabulary(when={"m.f": ("wait", 0)}).problem()


def test_a_process_sampled_over_an_interval_blocks_and_at_once_does_not(tmp_path):
    found = flagged(tmp_path, """
        import psutil

        async def usage():
            me = psutil.Process()
            sampled = me.cpu_percent(interval=0.2)
            since_last = me.cpu_percent()
            return sampled, since_last
    """)
    assert found == {("blocking_sleep", "sampled = me.cpu_percent(interval=0.2)")}


# -- an image of unknown type encoded into memory ----------------------------------------------------------------
def test_an_untyped_image_encoded_into_a_buffer_blocks(tmp_path):
    found = flagged(tmp_path, """
        import io
        from upscaler import Upscaler

        upscale = Upscaler("x4")

        async def sharpen(photo):
            bigger = upscale.run(photo)
            out = io.BytesIO()
            bigger.save(out, format="WEBP")
            with io.BytesIO() as thumb:
                bigger.save(thumb, "png")
                return out.getvalue(), thumb.getvalue()
    """)
    assert found == {("blocking_cpu", 'bigger.save(out, format="WEBP")'), ("blocking_cpu", 'bigger.save(thumb, "png")')}


def test_saves_that_are_no_image_encoding_are_silent(tmp_path):
    found = flagged(tmp_path, """
        import io
        from notes import Notebook

        book = Notebook()

        async def keep(text, draft):
            out = io.BytesIO()
            draft.save(out)
            draft.save(out, "notes-v2")
            book.save("shelf", format="PNG")
            return out.getvalue()
    """)
    assert found == set()
