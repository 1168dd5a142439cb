"""`check blocking` follows calls into the libraries installed where it runs (detect/serving/blocking/installed.py).

Each test writes its own tiny "installed" library into a site directory under tmp_path and a service that calls it.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from faultlib.cli.app import app
from faultlib.detect.serving.blocking import analyze_path


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _site(tmp_path: Path, files: dict[str, str]) -> Path:
    return _write(tmp_path / "site-packages", files)


def _service(tmp_path: Path, text: str) -> Path:
    return _write(tmp_path / "svc", {"app.py": text})


TARIFFS = {
    "tariffs/__init__.py": """
        from .feed import Feed, latest
        from .calc import total
    """,
    "tariffs/feed.py": """
        import requests

        class Feed:
            def __init__(self, area):
                self.area = area

            def prices(self, day):
                return self._download(f"https://example.invalid/{self.area}/{day}")

            def _download(self, url):
                response = requests.get(url, timeout=10)
                return response.json()

            async def aprices(self, day):
                return [day]

        def latest(area):
            return Feed(area).prices("today")
    """,
    "tariffs/calc.py": """
        def total(values):
            return sum(v * 1.25 for v in values)
    """,
    "tariffs-2.1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tariffs\nVersion: 2.1.0\n",
    "tariffs-2.1.0.dist-info/top_level.txt": "tariffs\n",
    "tariffs-2.1.0.dist-info/RECORD": "",
}


def test_a_library_method_that_reaches_requests_get_is_found_at_the_call(tmp_path):
    site = _site(tmp_path, TARIFFS)
    svc = _service(tmp_path, """
        from tariffs import Feed

        async def refresh(area):
            feed = Feed(area)
            return feed.prices("tomorrow")
    """)
    report = analyze_path(svc, site_dirs=[site])
    [finding] = report.findings
    assert (finding.kind, finding.location["line"], finding.location["function"]) == ("blocking_http", 6, "refresh")
    library = finding.evidence["library"]
    assert library["distribution"] == "tariffs" and library["version"] == "2.1.0"
    assert library["chain"] == "tariffs.feed.Feed.prices -> tariffs.feed.Feed._download -> requests.get"
    assert library["blocker_file"].endswith("feed.py") and library["blocker_line"] == 12
    assert "tariffs (2.1.0) reaches requests.get" in finding.message
    [library] = report.libraries  # only the modules a name asked for are read: the package and feed.py
    assert library == {"name": "tariffs", "version": "2.1.0", "files": 2, "calls": 2, "complete": True}


def test_a_library_function_that_only_computes_or_is_async_is_silent(tmp_path):
    site = _site(tmp_path, TARIFFS)
    svc = _service(tmp_path, """
        import asyncio
        import tariffs

        async def bill(area, values):
            feed = tariffs.Feed(area)
            await feed.aprices("today")
            task = asyncio.ensure_future(feed.aprices("tomorrow"))
            return tariffs.total(values), task
    """)
    report = analyze_path(svc, site_dirs=[site])
    assert report.findings == []
    assert report.libraries[0]["name"] == "tariffs" and report.libraries[0]["calls"] == 3  # read, judged silent


def test_a_module_function_of_the_library_is_followed_through_its_package(tmp_path):
    site = _site(tmp_path, TARIFFS)
    svc = _service(tmp_path, """
        import tariffs

        async def current(area):
            return tariffs.latest(area)
    """)
    [finding] = analyze_path(svc, site_dirs=[site]).findings
    assert finding.kind == "blocking_http" and finding.location["line"] == 5
    assert finding.evidence["library"]["chain"].startswith("tariffs.feed.latest -> tariffs.feed.Feed.prices")


def test_not_following_or_not_installed_leaves_the_call_unjudged(tmp_path):
    site = _site(tmp_path, TARIFFS)
    svc = _service(tmp_path, """
        from tariffs import Feed

        async def refresh(area):
            return Feed(area).prices("tomorrow")
    """)
    assert analyze_path(svc, site_dirs=[site], follow_installed=False).findings == []
    empty = tmp_path / "empty-site"
    empty.mkdir()
    report = analyze_path(svc, site_dirs=[empty])
    assert report.findings == [] and report.not_installed == ["tariffs"] and report.libraries == []


def test_a_library_subprocess_reached_through_a_second_library_names_both(tmp_path):
    site = _site(tmp_path, {
        "stamper.py": """
            import mediatool

            def stamp(path, mark):
                return mediatool.run_filter(path, f"overlay={mark}")
        """,
        "mediatool/__init__.py": """
            import subprocess

            def run_filter(path, expr):
                return subprocess.run(["ffmpeg", "-i", path, "-vf", expr, path + ".out"], check=True)
        """,
    })
    svc = _service(tmp_path, """
        from stamper import stamp

        class Plugin:
            async def modify(self, path):
                stamp(path, "logo.png")
                return path
    """)
    [finding] = analyze_path(svc, site_dirs=[site]).findings
    assert finding.kind == "blocking_subprocess" and finding.location["line"] == 6
    assert finding.evidence["library"]["chain"] == ("stamper.stamp -> mediatool.run_filter -> subprocess.run")


def test_a_constructor_that_connects_a_socket_is_found(tmp_path):
    site = _site(tmp_path, {"wakebox/__init__.py": """
        import socket

        class Detector:
            def __init__(self, host):
                self.sock = socket.create_connection((host, 10400))
    """})
    svc = _service(tmp_path, """
        from wakebox import Detector

        async def handle(host):
            return Detector(host)
    """)
    [finding] = analyze_path(svc, site_dirs=[site]).findings
    assert finding.kind == "blocking_socket_io" and finding.location["line"] == 5


def test_a_method_inherited_from_a_library_base_is_the_library_s(tmp_path):
    site = _site(tmp_path, TARIFFS)
    svc = _service(tmp_path, """
        from tariffs import Feed

        class AsyncFeed(Feed):
            async def prices_now(self):
                return self._download("https://example.invalid/now")
    """)
    [finding] = analyze_path(svc, site_dirs=[site]).findings
    assert finding.kind == "blocking_http" and finding.location["line"] == 6
    assert finding.evidence["library"]["chain"] == "tariffs.feed.Feed._download -> requests.get"


def test_work_a_library_does_once_and_keeps_is_not_a_finding(tmp_path):
    site = _site(tmp_path, {"zonehelp/__init__.py": """
        import functools
        import importlib
        import threading

        _LOCAL = None

        def local_zone():
            global _LOCAL
            if _LOCAL is None:
                with open("/etc/timezone") as handle:
                    _LOCAL = handle.read().strip()
            return _LOCAL

        class Table:
            def __init__(self):
                self._rows = None

            def rows(self):
                if not self._rows:
                    self._rows = open("/usr/share/table.txt").read().split()
                return self._rows

        @functools.lru_cache(maxsize=None)
        def aliases():
            return open("/usr/share/aliases.txt").read()

        def plugin(name):
            return importlib.import_module(f"zonehelp.plugins.{name}")

        _TEMPLATES = {}

        def template(name):
            found = _TEMPLATES.get(name)
            if found is not None:
                return found
            found = _TEMPLATES[name] = open(f"/usr/share/templates/{name}").read()
            return found

        _GUARD = threading.Lock()

        def guarded():
            _GUARD.acquire()
            try:
                return 1
            finally:
                _GUARD.release()

        def zone(value):
            if isinstance(value, str):
                return open(f"/usr/share/zoneinfo/{value}").read()
            return value

        def reload_rows(**options):
            options.get("mode")
            options["mode"] = "r"
            return open("/usr/share/table.txt", **options).read()
    """})
    svc = _service(tmp_path, """
        import zonehelp

        async def handler(name):
            table = zonehelp.Table()
            found = (zonehelp.local_zone(), table.rows(), zonehelp.aliases(), zonehelp.plugin(name), zonehelp.zone(name),
                     zonehelp.guarded(), zonehelp.template(name))
            return found, zonehelp.reload_rows()
    """)
    [finding] = analyze_path(svc, site_dirs=[site]).findings
    assert finding.kind == "blocking_file_io" and finding.location["line"] == 8
    assert finding.evidence["library"]["chain"] == "zonehelp.reload_rows -> open"


def test_a_package_the_vocabulary_knows_is_judged_by_the_vocabulary_not_read(tmp_path):
    site = _site(tmp_path, {"requests/__init__.py": "def get(url, **kw):\n    return None\n"})
    svc = _service(tmp_path, """
        import requests

        async def ping(url):
            return requests.get(url)
    """)
    report = analyze_path(svc, site_dirs=[site])
    assert [f.kind for f in report.findings] == ["blocking_http"]
    assert "library" not in report.findings[0].evidence and report.libraries == []


def test_a_linked_library_is_not_read(tmp_path):
    real = _write(tmp_path / "elsewhere", TARIFFS)
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "tariffs").symlink_to(real / "tariffs", target_is_directory=True)
    svc = _service(tmp_path, """
        from tariffs import Feed

        async def refresh(area):
            return Feed(area).prices("tomorrow")
    """)
    report = analyze_path(svc, site_dirs=[site])
    assert report.findings == [] and report.not_installed == ["tariffs"]


def test_the_cli_follows_site_packages_and_can_be_told_not_to(tmp_path):
    site = _site(tmp_path, TARIFFS)
    svc = _service(tmp_path, """
        from tariffs import Feed

        async def refresh(area):
            return Feed(area).prices("tomorrow")
    """)
    runner = CliRunner()
    followed = runner.invoke(app, ["check", "blocking", str(svc), "--site-packages", str(site), "--json"])
    out = json.loads(followed.output)
    assert out["ok"] is False and [f["kind"] for f in out["findings"]] == ["blocking_http"]
    assert out["libraries"][0]["name"] == "tariffs" and out["not_installed"] == []
    off = runner.invoke(app, ["check", "blocking", str(svc), "--site-packages", str(site), "--no-follow-installed",
                               "--json"])
    assert json.loads(off.output)["ok"] is True and json.loads(off.output)["findings"] == []
    helped = runner.invoke(app, ["check", "blocking", "--help"])
    assert "--no-follow-installed" in helped.output and "--site-packages" in helped.output
