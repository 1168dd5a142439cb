"""faultlib.detect.serving.blocking: blocking calls reachable from async code, on real files written to a temp dir."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from faultlib.detect.serving.blocking import KINDS, analyze_path
from faultlib.errors import InputError


def write(root: Path, name: str, source: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


def found(path) -> list[tuple[str, str, int, str]]:
    """(kind, function, line, call) of every finding."""
    return [(f.kind, f.location["function"], f.location["line"], f.evidence["call"])
            for f in analyze_path(path).findings]


def line(path: Path, snippet: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if snippet in text)


def test_every_kind_in_an_async_handler(tmp_path):
    path = write(tmp_path, "svc.py", """
        import http.client, socket, subprocess, time, urllib.request
        from pathlib import Path
        import requests, torch
        from sklearn.linear_model import LogisticRegression

        async def handler(url, model: torch.nn.Module, x):
            time.sleep(0.1)
            requests.get(url)
            urllib.request.urlopen(url)
            http.client.HTTPConnection("h").request("GET", "/")
            with open("data.txt") as fh:
                fh.read()
            Path("x").write_text("y")
            torch.load("ckpt.pt")
            sock = socket.create_connection(("h", 80))
            sock.recv(10)
            subprocess.run(["ls"])
            proc = subprocess.Popen(["ls"])
            proc.wait()
            model(x)
            clf = LogisticRegression().fit(x, x)
            clf.predict(x)
    """)
    kinds = {(kind, call) for kind, _, _, call in found(path)}
    assert kinds == {
        ("blocking_sleep", "time.sleep(0.1)"), ("blocking_http", "requests.get(url)"),
        ("blocking_http", "urllib.request.urlopen(url)"),
        ("blocking_http", 'http.client.HTTPConnection("h").request("GET", "/")'),
        ("blocking_file_io", 'open("data.txt")'), ("blocking_file_io", 'Path("x").write_text("y")'),
        ("blocking_file_io", 'torch.load("ckpt.pt")'), ("blocking_socket_io", 'socket.create_connection(("h", 80))'),
        ("blocking_socket_io", "sock.recv(10)"), ("blocking_subprocess", 'subprocess.run(["ls"])'),
        ("blocking_subprocess", "proc.wait()"), ("blocking_cpu", "model(x)"),
        ("blocking_cpu", "LogisticRegression().fit(x, x)"), ("blocking_cpu", "clf.predict(x)")}
    # it found every kind but the client kinds, which tests/detect/test_blocking_clients.py covers
    assert {k for k, _ in kinds} == set(KINDS) - {"analysis_incomplete", "blocking_db", "blocking_task"}


def test_follows_sync_helpers_methods_constructors_and_attributes(tmp_path):
    path = write(tmp_path, "svc.py", """
        import time
        import requests
        import torch
        from torch import nn

        def wait():
            time.sleep(1)          # via a plain function

        def outer():
            return wait()

        class Net(nn.Module):
            def forward(self, x):
                return x

        class Loader:
            def __init__(self):
                time.sleep(2)      # a constructor runs on the spot

        class Base:
            def fetch(self):
                return self.session.get("http://x")   # typed through the subclass's __init__

        class Service(Base):
            def __init__(self, model):
                self.session = requests.Session()
                self.net = Net()
                self.model = model

            def infer(self, x):
                with torch.inference_mode():
                    return self.model(x)   # type unknown: recognised by the inference context

            def forward_it(self, x):
                return self.net(x)

            async def predict(self, x):
                outer()
                Loader()
                self.fetch()
                self.infer(x)
                self.forward_it(x)
                return super().fetch()
    """)
    results = {(kind, fn, call) for kind, fn, _, call in found(path)}
    assert results == {("blocking_sleep", "wait", "time.sleep(1)"),
                       ("blocking_sleep", "Loader.__init__", "time.sleep(2)"),
                       ("blocking_http", "Base.fetch", 'self.session.get("http://x")'),
                       ("blocking_cpu", "Service.infer", "self.model(x)"),
                       ("blocking_cpu", "Service.forward_it", "self.net(x)")}
    finding = next(f for f in analyze_path(path).findings if f.location["function"] == "wait")
    assert [c["function"] for c in finding.evidence["chain"]] == ["Service.predict", "outer", "wait"]
    assert finding.evidence["entry"] == "Service.predict" and finding.evidence["entry_kind"] == "async def"
    assert finding.evidence["entry_line"] == line(path, "        outer()")
    assert finding.location == {"file": str(path), "line": line(path, "time.sleep(1)"), "column": 5, "function": "wait"}
    assert "reached from async def Service.predict" in finding.message and "asyncio.sleep" in finding.message


def test_work_handed_to_an_executor_is_off_the_loop(tmp_path):
    path = write(tmp_path, "svc.py", """
        import asyncio, time
        from concurrent.futures import ThreadPoolExecutor
        from functools import partial

        POOL = ThreadPoolExecutor(2)

        def slow(n):
            time.sleep(n)

        class Service:
            def __init__(self):
                self.executor = ThreadPoolExecutor(1)

            def infer(self):
                time.sleep(1)

            async def predict(self):
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self.executor, self.infer)
                await loop.run_in_executor(None, partial(slow, 2))
                await loop.run_in_executor(None, lambda: time.sleep(3))
                await asyncio.to_thread(slow, 4)
                POOL.submit(slow, 5)
                await asyncio.sleep(1)

        def sync_only():
            time.sleep(9)     # never reached from the loop
    """)
    report = analyze_path(path)
    assert report.findings == []
    assert [(o["function"], o["via"]) for o in report.offloaded] == [
        ("Service.infer", "run_in_executor"), ("slow", "run_in_executor"), ("lambda: time.sleep(3)", "run_in_executor"),
        ("slow", "asyncio.to_thread"), ("slow", "submit")]
    assert report.async_functions == 1 and report.complete


def test_a_call_made_to_build_the_executor_argument_still_runs_on_the_loop(tmp_path):
    path = write(tmp_path, "svc.py", """
        import asyncio, time

        def slow():
            time.sleep(1)
            return 1

        async def oops():
            await asyncio.to_thread(slow())    # slow() runs here, then its result is handed over
    """)
    assert found(path) == [("blocking_sleep", "slow", line(path, "time.sleep(1)"), "time.sleep(1)")]


def test_other_coroutines_loop_callbacks_nested_defs_aliases_and_recursion(tmp_path):
    path = write(tmp_path, "svc.py", """
        import asyncio
        import time as t
        from time import sleep as snooze

        async def inner():
            snooze(1)

        async def outer():
            await inner()             # inner is an entry of its own: reported once, from inner

        def tick():
            t.sleep(2)

        def schedule(loop):
            loop.call_later(1.0, tick)  # tick runs on the loop as a callback

        async def nested():
            def helper():
                t.sleep(3)
            def unused():
                t.sleep(4)
            helper()

        def ping(n):
            return pong(n)

        def pong(n):
            t.sleep(5)
            return ping(n - 1) if n else 0

        async def recursive():
            ping(3)

        def open(name):              # shadows the builtin: not file I/O
            return name

        async def shadowed():
            open("x")
    """)
    report = analyze_path(path)
    by_call = {f.evidence["call"]: f for f in report.findings}
    assert set(by_call) == {"snooze(1)", "t.sleep(2)", "t.sleep(3)", "t.sleep(5)"}
    assert by_call["snooze(1)"].evidence["entries"] == ["inner"]
    assert by_call["t.sleep(2)"].evidence["entry_kind"] == "loop callback" and report.loop_callbacks == 1
    assert by_call["t.sleep(3)"].location["function"] == "nested.<locals>.helper"
    assert [c["function"] for c in by_call["t.sleep(5)"].evidence["chain"]] == ["recursive", "ping", "pong"]


def test_follows_imports_across_the_files_of_a_directory(tmp_path):
    root = tmp_path / "service"
    write(root, "pkg/__init__.py", "from .util import load\n")
    util = write(root, "pkg/util.py", """
        import time

        def load(path):
            time.sleep(1)

        class Store:
            def get(self):
                return open("db").read()
    """)
    write(root, "pkg/app.py", """
        from . import util
        from .util import Store

        async def handler():
            util.load("x")
            Store().get()
    """)
    write(root, "main.py", """
        import pkg
        import pkg.util as u

        async def main():
            pkg.load("y")     # re-exported by pkg/__init__.py
            u.load("z")
    """)
    report = analyze_path(root)
    assert sorted(Path(p).relative_to(root).as_posix() for p in report.files) == [
        "main.py", "pkg/__init__.py", "pkg/app.py", "pkg/util.py"]
    sites = {(Path(f.location["file"]).name, f.location["function"], f.kind): f for f in report.findings}
    assert set(sites) == {("util.py", "load", "blocking_sleep"), ("util.py", "Store.get", "blocking_file_io")}
    load = sites[("util.py", "load", "blocking_sleep")]
    assert load.location["line"] == line(util, "time.sleep(1)")
    assert sorted(load.evidence["entries"]) == ["handler", "main"]
    # the file alone: its imports cannot be followed, and nothing in it runs on a loop
    assert analyze_path(root / "main.py").findings == []


def test_a_directory_that_is_a_package_resolves_absolute_imports_of_itself(tmp_path):
    pkg = tmp_path / "mysvc"
    write(pkg, "__init__.py", "")
    write(pkg, "io.py", "import subprocess\n\ndef sh():\n    subprocess.check_output(['ls'])\n")
    write(pkg, "api.py", "from mysvc.io import sh\n\nasync def route():\n    sh()\n")
    ((kind, function, _, call),) = found(pkg)
    assert (kind, function, call) == ("blocking_subprocess", "sh", "subprocess.check_output(['ls'])")


def test_skips_hidden_dirs_virtualenvs_and_links(tmp_path):
    root = tmp_path / "code"
    write(root, "app.py", "import time\n\nasync def f():\n    time.sleep(1)\n")
    write(root, ".venv/lib/x.py", "import time\n\nasync def g():\n    time.sleep(1)\n")
    write(root, "site-packages/y.py", "import time\n\nasync def h():\n    time.sleep(1)\n")
    os.symlink(root / "app.py", root / "link.py")
    report = analyze_path(root)
    assert [Path(p).name for p in report.files] == ["app.py"] and len(report.findings) == 1
    assert report.skipped and "link.py" in report.skipped[0]


def test_bad_input_raises_input_error_with_file_and_line(tmp_path):
    bad = write(tmp_path, "bad.py", "async def f(:\n    pass\n")
    with pytest.raises(InputError, match="is not valid Python") as info:
        analyze_path(bad)
    assert info.value.path == str(bad) and info.value.line == 1
    with pytest.raises(InputError, match="no such file"):
        analyze_path(tmp_path / "missing.py")
    notes = write(tmp_path, "notes.txt", "hello")
    with pytest.raises(InputError, match="not a Python file"):
        analyze_path(notes)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no Python file"):
        analyze_path(tmp_path / "empty")
    os.symlink(bad, tmp_path / "link.py")
    with pytest.raises(InputError, match="symbolic link"):
        analyze_path(tmp_path / "link.py")
    (tmp_path / "nul.py").write_bytes(b"x = 1\x00\n")
    with pytest.raises(InputError, match="NUL"):
        analyze_path(tmp_path / "nul.py")
    pkg = tmp_path / "withbad"
    write(pkg, "ok.py", "x = 1\n")
    write(pkg, "sub/broken.py", "def g(\n")
    write(pkg, "svc.py", "import time\nasync def h():\n    time.sleep(1)\n")
    report = analyze_path(pkg)  # a directory: the broken file is left out and said, the rest analysed
    blockers = [f for f in report.findings if f.kind != "analysis_incomplete"]
    assert [(f.kind, f.location["file"].endswith("svc.py")) for f in blockers] == [("blocking_sleep", True)]
    incomplete = [f for f in report.findings if f.kind == "analysis_incomplete"]
    assert not report.complete and len(incomplete) == 1
    assert incomplete[0].location["file"].endswith("broken.py") and incomplete[0].location["line"] == 1
    assert any("broken.py:1" in s and "not valid Python" in s for s in report.skipped)


@pytest.mark.parametrize("depth", [14, 15, 40, 70])
def test_a_long_chain_of_sync_helpers_is_found_or_said_incomplete(tmp_path, depth):
    from faultlib.detect.serving.blocking import analyze_path

    source = "import time\n" + "".join(f"def h{i}():\n    h{i + 1}()\n" for i in range(depth))
    source += f"def h{depth}():\n    time.sleep(1)\nasync def main():\n    h0()\n"
    (tmp_path / "chain.py").write_text(source)
    report = analyze_path(tmp_path / "chain.py")
    kinds = {f.kind for f in report.findings}
    assert "blocking_sleep" in kinds or ("analysis_incomplete" in kinds and not report.complete), kinds
    if depth < 60:
        assert "blocking_sleep" in kinds
