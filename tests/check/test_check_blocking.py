"""`faultlib check blocking`: exit codes 0/1/2, the JSON contract, the human table. The human table and one bad
input's error are checked black-box (their own process); the rest calls the same entry in this process
(:func:`tests.conftest.cli_in_process`: a fresh interpreter per call cost more than the check)."""

from __future__ import annotations

import json
import textwrap

from tests.conftest import REPO, cli, cli_in_process

SERVICE = '''
import asyncio
import time

import requests


def fetch_features(url):
    return requests.get(url, timeout=1).json()


class Service:
    def __init__(self):
        self.url = "http://127.0.0.1:9/features"

    def features(self):
        return fetch_features(self.url)

    async def predict(self, request):
        feats = self.features()
        await asyncio.sleep(0)
        return feats

    async def warm(self):
        await asyncio.to_thread(time.sleep, 1)
'''


def line_of(snippet: str) -> int:
    return next(i for i, text in enumerate(SERVICE.splitlines(), 1) if snippet in text)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_finding_exits_1_with_the_json_contract(tmp_path):
    path = write(tmp_path, "service.py", SERVICE)
    proc = cli_in_process("check", "blocking", str(path), "--json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["detector"] == "blocking" and report["ok"] is False and report["path"] == str(path)
    assert report["files"] == [str(path)] and report["async_functions"] == 2 and report["complete"] is True
    assert report["offloaded"] == [{"function": "time.sleep", "via": "asyncio.to_thread", "file": str(path),
                                    "line": line_of("to_thread"), "in_function": "Service.warm"}]
    (finding,) = report["findings"]
    assert finding["detector"] == "blocking" and finding["kind"] == "blocking_http" and finding["severity"] == "warning"
    assert finding["location"] == {"file": str(path), "line": line_of("requests.get("), "column": 12,
                                   "function": "fetch_features"}
    ev = finding["evidence"]
    assert ev["call"] == "requests.get(url, timeout=1)" and ev["calls"] == "requests.get"
    assert ev["entry"] == "Service.predict" and ev["entries"] == ["Service.predict"]
    assert ev["entry_line"] == line_of("self.features()")
    assert [c["function"] for c in ev["chain"]] == ["Service.predict", "Service.features", "fetch_features"]


def test_human_table_and_fail_on(tmp_path):
    path = write(tmp_path, "service.py", SERVICE)
    proc = cli("check", "blocking", str(path), cwd=tmp_path)
    assert proc.returncode == 1
    assert "blocking_http" in proc.stdout and "fetch_features" in proc.stdout and "1 finding(s)" in proc.stdout
    assert "off the loop: time.sleep via asyncio.to_thread" in proc.stdout
    proc = cli_in_process("check", "blocking", str(path), "--fail-on", "error", "--json", cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout)["ok"] is True


def test_clean_code_and_a_directory_exit_0(tmp_path):
    write(tmp_path, "svc/app.py", "import asyncio\n\nasync def main():\n    await asyncio.sleep(1)\n")
    write(tmp_path, "svc/tools.py", "import time\n\ndef offline():\n    time.sleep(1)\n")
    proc = cli_in_process("check", "blocking", "svc", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["findings"] == [] and len(report["files"]) == 2


def test_bad_input_exits_2_naming_file_and_line(tmp_path):
    bad = write(tmp_path, "bad.py", "import time\n\nasync def f(:\n    time.sleep(1)\n")
    proc = cli("check", "blocking", str(bad), cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{bad}:3: is not valid Python (line 3" in proc.stderr
    proc = cli_in_process("check", "blocking", str(bad), "--json", cwd=tmp_path)
    assert proc.returncode == 2
    error = json.loads(proc.stdout)
    assert error["error"] == "InputError" and error["file"] == str(bad) and error["line"] == 3
    notes = write(tmp_path, "notes.md", "# notes\n")
    proc = cli_in_process("check", "blocking", str(notes), cwd=tmp_path)
    assert proc.returncode == 2 and "is not a Python file (.md)" in proc.stderr
    proc = cli_in_process("check", "blocking", str(tmp_path / "missing.py"), cwd=tmp_path)
    assert proc.returncode == 2 and "missing.py: no such file or directory" in proc.stderr
    proc = cli_in_process("check", "blocking", cwd=tmp_path)
    assert proc.returncode == 2 and "Missing argument" in proc.stderr


def test_kinds_are_listed_and_the_case_files_give_the_documented_answers(tmp_path):
    proc = cli_in_process("check", "--list-kinds", "--json", cwd=tmp_path)
    kinds = json.loads(proc.stdout)["blocking"]
    assert set(kinds) == {"blocking_sleep", "blocking_http", "blocking_file_io", "blocking_socket_io",
                          "blocking_subprocess", "blocking_cpu", "blocking_db", "blocking_task",
                          "analysis_incomplete"}
    case = REPO / "cases" / "event_loop_blocking"
    proc = cli("check", "blocking", "cases/event_loop_blocking/inline_service.py", cwd=REPO)
    assert proc.returncode == 1 and "InlineModelService.infer" in proc.stdout
    proc = cli_in_process("check", "blocking", str(case / "repro.py"), "--json", cwd=tmp_path)
    assert proc.returncode == 0
    assert "ModelService.infer" in {o["function"] for o in json.loads(proc.stdout)["offloaded"]}


def test_a_symlinked_directory_is_listed_under_skipped_like_a_symlinked_file(tmp_path):
    app = tmp_path / "svc" / "pkg"
    app.mkdir(parents=True)
    (app / "handlers.py").write_text("import time\n\n\nasync def handle():\n    time.sleep(2)\n")
    (app / "again").symlink_to("..")                     # a loop back up
    (tmp_path / "svc" / "vendored").symlink_to(tmp_path)  # out of the tree
    (tmp_path / "svc" / "shadow.py").symlink_to(app / "handlers.py")
    proc = cli_in_process("check", "blocking", "svc", "--json", cwd=tmp_path)
    skipped = json.loads(proc.stdout)["skipped"]
    assert sorted(s.split(":")[0] for s in skipped) == ["svc/pkg/again", "svc/shadow.py", "svc/vendored"], skipped
    assert any("symbolic link to a directory" in s for s in skipped), skipped
