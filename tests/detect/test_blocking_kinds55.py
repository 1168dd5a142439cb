"""check blocking: the known kinds older held-out waves left (issue 17, stop 55). Each blocker is found at its line;
each look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged, flagged_package

_INSTALLER = """
    import subprocess
    import sys


    def install(name):
        subprocess.run([sys.executable, "-m", "pip", "install", name], check=True)


    def client():
        try:
            import {module}
        except ImportError:
            install("{module}")
            import {module}
        return {module}.Client()


    async def relay(request):
        return client()
"""


def test_an_install_fallback_of_an_undeclared_import_is_found(tmp_path):
    found = flagged_package(tmp_path, {
        "pyproject.toml": '[project]\nname = "relay"\ndependencies = ["fastapi>=0.100"]\n',
        "app.py": _INSTALLER.replace("{module}", "webclient"),
    })
    assert found == {("app.py", "blocking_subprocess",
                      'subprocess.run([sys.executable, "-m", "pip", "install", name], check=True)')}


def test_an_install_fallback_of_a_declared_requirement_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "pyproject.toml": '[project]\nname = "relay"\ndependencies = ["fastapi>=0.100", "WebClient>=1.2"]\n',
        "app.py": _INSTALLER.replace("{module}", "webclient"),
    })
    assert found == set()


def test_an_install_fallback_of_a_poetry_group_requirement_is_silent_and_of_an_optional_group_found(tmp_path):
    poetry = ('[tool.poetry.dependencies]\npython = ">=3.9"\n\n[tool.poetry.group.{group}]\n{optional}\n'
              '[tool.poetry.group.{group}.dependencies]\nwebclient = "^1.2"\n')
    installed = flagged_package(tmp_path / "a", {
        "pyproject.toml": poetry.format(group="dev", optional=""),
        "app.py": _INSTALLER.replace("{module}", "webclient"),
    })
    optional = flagged_package(tmp_path / "b", {
        "pyproject.toml": poetry.format(group="extra", optional="optional = true\n"),
        "app.py": _INSTALLER.replace("{module}", "webclient"),
    })
    assert installed == set()
    assert {kind for _, kind, _ in optional} == {"blocking_subprocess"}


def test_an_install_fallback_under_a_platform_marker_requirement_is_found(tmp_path):
    found = flagged_package(tmp_path, {
        "requirements.txt": 'webclient==1.2 ; sys_platform == "linux"\nfastapi\n',
        "app.py": _INSTALLER.replace("{module}", "webclient"),
    })
    assert {kind for _, kind, _ in found} == {"blocking_subprocess"}


_CONVERTER = """
    import io

    from pydub import AudioSegment


    def sniff(data):
        try:
            with io.BytesIO(data) as probe:
                probe.read(4)
            return "wav"
        except ValueError:
            return "pcm"


    def to_rate(data, rate, format="mp3"):
        if format == "pcm":
            return data
        clip = AudioSegment.from_file(io.BytesIO(data), format=format)
        return clip.set_frame_rate(rate).raw_data


    async def on_chunk(data):
        return to_rate(data, 8000, format={chosen})
"""


def test_pydub_decoding_a_format_the_caller_picks_as_mp3_is_found(tmp_path):
    found = flagged(tmp_path, _CONVERTER.replace("{chosen}", '"mp3"'))
    assert found == {("blocking_subprocess", "clip = AudioSegment.from_file(io.BytesIO(data), format=format)")}


def test_pydub_reading_in_memory_wav_the_caller_picks_is_silent(tmp_path):
    assert flagged(tmp_path, _CONVERTER.replace("{chosen}", '"wav"')) == set()


def test_a_format_detected_as_wav_or_pcm_never_sends_pydub_to_ffmpeg(tmp_path):
    source = _CONVERTER.replace("{chosen}", "kind").replace(
        "    async def on_chunk(data):\n", "    async def on_chunk(data):\n        kind = sniff(data)\n")
    assert flagged(tmp_path, source) == set()


def test_a_format_detected_by_a_function_that_may_fall_through_keeps_the_finding(tmp_path):
    source = _CONVERTER.replace("{chosen}", "kind").replace(
        "    async def on_chunk(data):\n", "    async def on_chunk(data):\n        kind = sniff(data)\n").replace(
        '        except ValueError:\n            return "pcm"\n', "        except ValueError:\n            pass\n")
    assert {kind for kind, _ in flagged(tmp_path, source)} == {"blocking_subprocess"}


_TEMPLATE_HANDLER = """
    import asyncio
    import hashlib

    import tornado.web


    def asset_url(name):
        with open(f"static/{name}", "rb") as asset:
            return f"/static/{name}?v={hashlib.md5(asset.read()).hexdigest()[:8]}"


    def page_namespace():
        return {"asset_url": asset_url, "title": "Dashboard"}


    class IndexHandler(tornado.web.RequestHandler):
{body}
"""


def test_a_function_a_sync_tornado_handler_hands_its_template_is_followed(tmp_path):
    direct = flagged(_dir(tmp_path, "a"), _TEMPLATE_HANDLER.replace("{body}", """
        def get(self):
            self.render("index.html", asset_url=asset_url)
    """))
    spread = flagged(_dir(tmp_path, "b"), _TEMPLATE_HANDLER.replace("{body}", """
        def get(self):
            self.render("index.html", **page_namespace())
    """))
    want = {("blocking_file_io", 'with open(f"static/{name}", "rb") as asset:')}
    assert direct == want
    assert spread == want


def test_a_value_computed_off_the_loop_and_handed_to_a_template_is_silent(tmp_path):
    found = flagged(tmp_path, _TEMPLATE_HANDLER.replace("{body}", """
        async def get(self):
            url = await asyncio.get_running_loop().run_in_executor(None, asset_url, "app.js")
            self.render("index.html", url=url, title="Dashboard")
    """))
    assert found == set()


def _dir(tmp_path, name):
    path = tmp_path / name
    path.mkdir()
    return path


_PROGRESS = """
    import asyncio

    from celery import Celery, current_task

    app = Celery("jobs")
{extra}

    class Sweep:
        def __init__(self):
            self.job = None

        def attach(self, job):
            self.job = job

        async def visit(self, item):
            self.job.update_state(state="PROGRESS", meta=dict(item=item))
            await asyncio.sleep(0)


    @app.task
    def sweep(items):
        runner = Sweep()
        runner.attach({handed})
        for item in items:
            asyncio.run(runner.visit(item))
"""


def test_the_current_celery_task_handed_on_and_stored_still_writes_its_state_on_the_loop(tmp_path):
    found = flagged(tmp_path, _PROGRESS.replace("{extra}", "").replace("{handed}", "current_task"))
    assert found == {("blocking_db", 'self.job.update_state(state="PROGRESS", meta=dict(item=item))')}


def test_an_own_progress_recorder_handed_on_the_same_way_is_silent(tmp_path):
    recorder = """

    class Recorder:
        def update_state(self, state, meta):
            self.last = (state, meta)
    """
    assert flagged(tmp_path, _PROGRESS.replace("{extra}", recorder).replace("{handed}", "Recorder()")) == set()


def test_a_ca_bundle_loaded_into_urllib3s_context_per_request_is_found_and_in_memory_pem_is_silent(tmp_path):
    source = """
        from urllib3.util import create_urllib3_context


        async def fetch(session, url, bundle, pem):
            ctx = create_urllib3_context(ciphers="HIGH:!aNULL")
            ctx.load_verify_locations({how})
            async with session.get(url, ssl=ctx) as response:
                return await response.text()
    """
    assert flagged(_dir(tmp_path, "a"), source.replace("{how}", "cafile=bundle")) == {
        ("blocking_file_io", "ctx.load_verify_locations(cafile=bundle)")}
    assert flagged(_dir(tmp_path, "b"), source.replace("{how}", "cadata=pem")) == set()
