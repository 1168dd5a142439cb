"""check blocking: the known kinds stop 55 left (issue 17, stop 56). Each blocker is found at its line; each
look-alike stays silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

from faultlib.detect.serving.blocking import analyze_path
from tests.detect.blocking_source import flagged, flagged_package

# -- a local name hides the module's function or class of the same name --------------------------------------------

_SHADOWED = """
    import time


    def fetch(url):
        time.sleep(2)
        return url


    class Probe:
        def ping(self):
            time.sleep(1)

    {handler}
"""


def test_a_parameter_named_like_a_module_function_calls_the_argument_not_the_function(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    async def handle(request, fetch):
        return await fetch(request.url)
    """))
    assert found == set()


def test_a_loop_target_and_a_with_target_named_like_module_definitions_are_locals(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    async def each(request, sources, opener):
        for fetch in sources:
            await fetch(request.url)
        with opener() as Probe:
            await Probe.ping()
    """))
    assert found == set()


def test_the_module_function_itself_and_a_global_rebound_in_the_function_still_block(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    async def direct(request):
        return fetch(request.url)


    async def rebinding(request):
        global fetch
        fetch(request.url)
        fetch = None
    """))
    assert found == {("blocking_sleep", "time.sleep(2)")}


def test_a_closure_variable_of_the_enclosing_function_hides_the_module_function(tmp_path):
    found = flagged(tmp_path, _SHADOWED.replace("{handler}", """
    def make(fetch):
        async def run(url):
            return await fetch(url)
        return run
    """))
    assert found == set()


# -- the project's own package in the src layout, imported by absolute name -----------------------------------------

_STORE = """
    import sqlite3


    class Ledger:
        def total(self, account):
            return sqlite3.connect("ledger.db").execute("select 1").fetchall()
"""

_SERVICE = """
    from ledgerkit.books import Ledger


    async def balance(account):
        return Ledger().total(account)
"""


def _scanned_service(root, package: str):
    """Writes ``root/src/<package>/`` (the ledger) and ``root/service/app.py`` (importing ``ledgerkit``), then
    analyses ``root/service`` alone."""
    files = {f"src/{package}/__init__.py": "", f"src/{package}/books.py": _STORE, "service/app.py": _SERVICE}
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    return analyze_path(root / "service")


def test_a_service_folder_importing_the_projects_src_layout_package_follows_it(tmp_path):
    report = _scanned_service(tmp_path / "repo", "ledgerkit")
    assert [(f.kind, f.location["file"].rpartition("/")[2], f.location["line"]) for f in report.findings] == [
        ("blocking_db", "books.py", 7)]


def test_a_src_folder_without_the_imported_package_adds_nothing(tmp_path):
    report = _scanned_service(tmp_path / "repo", "otherkit")
    assert report.findings == [] and report.added == []


# -- a loop over a literal list of instances: each element's method runs ---------------------------------------------

_STAGES = """
    import time


    class Resize:
        def run(self, frame):
            time.sleep(0.1)
            return frame


    class Encode:
        def run(self, frame):
            with open("frame.bin", "wb") as out:
                out.write(frame)
            return frame


    class Quiet:
        def run(self, frame):
            return frame

    {pipeline}
"""


def test_an_instance_list_of_one_class_types_the_loop_variable_in_another_method(tmp_path):
    found = flagged(tmp_path, _STAGES.replace("{pipeline}", """
    class Pipeline:
        def __init__(self):
            self.stages = [Resize(), Resize()]

        async def push(self, frame):
            for stage in self.stages:
                frame = stage.run(frame)
            return frame
    """))
    assert found == {("blocking_sleep", "time.sleep(0.1)")}


def test_a_list_of_instances_of_several_classes_runs_each_classs_method(tmp_path):
    found = flagged(tmp_path, _STAGES.replace("{pipeline}", """
    class Pipeline:
        def __init__(self):
            self.stages = [Resize(), Encode()]

        async def push(self, frame):
            for stage in self.stages:
                frame = stage.run(frame)
            return frame


    async def local(frame):
        for stage in [Encode(), Quiet()]:
            frame = stage.run(frame)
        return frame
    """))
    assert found == {("blocking_sleep", "time.sleep(0.1)"),
                     ("blocking_file_io", 'with open("frame.bin", "wb") as out:')}


def test_a_comprehension_choosing_between_classes_runs_either_classs_method(tmp_path):
    found = flagged(tmp_path, _STAGES.replace("{pipeline}", """
    async def convert(frames):
        stages = [Quiet() if frame else Encode() for frame in frames]
        for stage in stages:
            stage.run(b"")
    """))
    assert found == {("blocking_file_io", 'with open("frame.bin", "wb") as out:')}


def test_a_list_of_quiet_classes_or_of_unknown_values_stays_silent(tmp_path):
    found = flagged(tmp_path, _STAGES.replace("{pipeline}", """
    class Pipeline:
        def __init__(self, extra):
            self.stages = [Quiet(), Quiet()]
            self.mixed = [Quiet(), extra]

        async def push(self, frame):
            for stage in self.stages:
                frame = stage.run(frame)
            for stage in self.mixed:
                frame = stage.run(frame)
            return frame
    """))
    assert found == set()


# -- a once-per-process library cache warmed by the entry point before the loop starts -------------------------------

_CRAWLER = """
    import asyncio

    import tldextract


    class Crawler:
        def __init__(self, seeds):
            self.sites = {self.site(url) for url in seeds}

        def site(self, url):
            return tldextract.extract(url).registered_domain

        async def crawl(self, links):
            return [link for link in links if self.site(link) in self.sites]

    {main}
"""


def test_tldextract_warmed_by_a_constructor_before_asyncio_run_is_silent(tmp_path):
    found = flagged(tmp_path, _CRAWLER.replace("{main}", """
    def main(seeds, links):
        crawler = Crawler(seeds)
        asyncio.run(crawler.crawl(links))


    if __name__ == "__main__":
        spider = Crawler(["https://example.org"])
        asyncio.run(spider.crawl(["https://example.org/about"]))
    """))
    assert found == set()


def test_tldextract_first_called_on_the_loop_is_found(tmp_path):
    found = flagged(tmp_path, _CRAWLER.replace("{main}", """
    def main(links):
        asyncio.run(Crawler([]).crawl(links))
        Crawler(["https://example.org"])


    def warm_only_sometimes(seeds, links, warm):
        if warm:
            Crawler(seeds)
        asyncio.run(Crawler([]).crawl(links))
    """))
    assert found == {("blocking_http", "return tldextract.extract(url).registered_domain")}


# -- review leftovers: a standard-library import that may still fail keeps its install fallback on the path ----------

_FALLBACK = """
    import subprocess
    import sys


    def settings_reader():
        try:
            import {module}
        except ImportError:
            subprocess.run([sys.executable, "-m", "pip", "install", "{backport}"], check=True)
            import {backport} as {module}
        return {module}


    async def settings(request):
        return settings_reader()
"""


def test_the_install_fallback_of_a_version_dependent_stdlib_module_is_found(tmp_path):
    found = flagged_package(tmp_path, {
        "pyproject.toml": '[project]\nname = "conf"\nrequires-python = ">=3.9"\ndependencies = ["fastapi"]\n',
        "app.py": _FALLBACK.replace("{module}", "tomllib").replace("{backport}", "tomli"),
    })
    assert found == {("app.py", "blocking_subprocess",
                      'subprocess.run([sys.executable, "-m", "pip", "install", "tomli"], check=True)')}


def test_the_install_fallback_of_a_stdlib_module_every_python_has_is_silent(tmp_path):
    found = flagged_package(tmp_path, {
        "pyproject.toml": '[project]\nname = "conf"\ndependencies = ["fastapi"]\n',
        "app.py": _FALLBACK.replace("{module}", "json").replace("{backport}", "simplejson"),
    })
    assert found == set()


# -- review leftovers: one "never falls through" helper for branches and constant returns ---------------------------

_RESAMPLER = """
    import io

    from pydub import AudioSegment


    def resample(data, rate, kind="mp3", strict=False):
        if kind == "raw":
            if strict:
                return data
    {tail}
        segment = AudioSegment.from_file(io.BytesIO(data), format=kind)
        return segment.set_frame_rate(rate).raw_data


    async def on_audio(data):
        return resample(data, 16000, kind="raw")
"""


def test_an_if_whose_nested_branches_all_return_guards_what_follows_it(tmp_path):
    source = _RESAMPLER.replace("{tail}", "        else:\n                return data[:2]")
    assert flagged(tmp_path, source) == set()


def test_an_if_whose_nested_branch_may_fall_through_guards_nothing(tmp_path):
    source = _RESAMPLER.replace("{tail}", "")
    assert {kind for kind, _ in flagged(tmp_path, source)} == {"blocking_subprocess"}
