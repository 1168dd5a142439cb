"""`faultlib trace --asyncio` black-box on real asyncio scripts: the blocking call is named, exit codes hold."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from faultlib.package import PACKAGE_DIR
from tests.conftest import REPO, cli

BLOCKING = '''
import asyncio
import sys
import threading
import time


def read_config():
    time.sleep(0.2)
    return {}


async def handle(i):
    if i == 3:
        read_config()
    await asyncio.sleep(0.01)


async def main():
    for i in range(6):
        await handle(i)


mode = sys.argv[1] if len(sys.argv) > 1 else "main"
if mode == "thread":  # the loop runs in a worker thread
    worker = threading.Thread(target=lambda: asyncio.run(main()))
    worker.start()
    worker.join()
else:
    asyncio.run(main())
print("served")
if mode == "raise":
    raise RuntimeError("shutdown failed")
if mode == "exit3":
    sys.exit(3)
'''

HEALTHY = '''
import asyncio
import time


async def main():
    await asyncio.gather(asyncio.to_thread(time.sleep, 0.2), *(asyncio.sleep(0.002 * i) for i in range(50)))
    print("served")


asyncio.run(main())
'''


def script(tmp_path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def trace_json(*args: str, cwd: Path):
    proc = cli("trace", "--asyncio", "--json", *args, cwd=cwd)
    # no traceback through faultlib's own code (its package directory, whatever the checkout's folder is called)
    assert os.path.join(PACKAGE_DIR, "") not in proc.stderr, proc.stderr
    return proc, json.loads(proc.stdout)


def test_names_the_function_line_and_call_that_blocked_the_loop(tmp_path):
    path = script(tmp_path, "server.py", BLOCKING)
    proc, report = trace_json("--", "python", str(path), cwd=tmp_path)
    assert proc.returncode == 1 and "served" in proc.stderr  # the script's stdout goes to stderr under --json
    assert (report["ok"], report["mode"], report["reason"]) == (False, "asyncio", "loop_blocked")
    assert report["exit_code"] == 1
    assert report["loops"] == 1 and report["threshold_ms"] == 50.0 and report["events_total"] == 1
    first = report["first_block"]
    assert (first["file"], first["line"], first["function"], first["call"]) == (
        str(path), BLOCKING.splitlines().index("    time.sleep(0.2)") + 1, "read_config", "time.sleep(0.2)")
    assert first["via"] == ["main", "handle", "read_config"] and first["blocked_ms"] >= 190
    (finding,) = report["findings"]
    assert finding["kind"] == "loop_blocked" and finding["detector"] == "loop_watchdog"
    assert finding["location"]["function"] == "read_config" and finding["evidence"]["blocks"] == 1
    assert report["iterations"]["count"] >= 5 and report["iterations"]["max_ms"] >= 190


def test_human_report_and_a_loop_in_another_thread(tmp_path):
    path = script(tmp_path, "server.py", BLOCKING)
    out = tmp_path / "reports" / "loop.json"
    proc = cli("trace", "--asyncio", "--out", str(out), "--", "python", str(path), "thread", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "read_config" in proc.stdout and "time.sleep(0.2)" in proc.stdout
    assert "blocked: 1 event loop(s)" in proc.stdout
    report = json.loads(out.read_text())
    assert report["mode"] == "asyncio" and report["first_block"]["function"] == "read_config"


def test_threshold_and_a_healthy_script(tmp_path):
    path = script(tmp_path, "server.py", BLOCKING)
    proc, report = trace_json("--threshold-ms", "500", "--", "python", str(path), cwd=tmp_path)
    assert proc.returncode == 0 and report["ok"] and report["first_block"] is None and report["threshold_ms"] == 500
    healthy = script(tmp_path, "healthy.py", HEALTHY)
    proc, report = trace_json("--", "python", str(healthy), cwd=tmp_path)
    assert proc.returncode == 0 and report["ok"] and report["events"] == [] and report["findings"] == []
    assert report["loops"] >= 1 and report["iterations"]["p99_ms"] < 50
    plain = script(tmp_path, "plain.py", "print('no loop here')\n")
    proc, report = trace_json("--", "python", str(plain), cwd=tmp_path)
    assert proc.returncode == 0 and report["loops"] == 0 and "no asyncio event loop ran" in report["notes"][0]


def test_how_the_script_ended_still_maps_to_the_trace_exit_codes(tmp_path):
    path = script(tmp_path, "server.py", BLOCKING)
    proc, report = trace_json("--", "python", str(path), "raise", cwd=tmp_path)
    assert proc.returncode == 1 and report["reason"] == "loop_blocked"  # the block is the finding
    assert "script_raised: RuntimeError: shutdown failed" in report["notes"][0]
    proc, report = trace_json("--threshold-ms", "500", "--", "python", str(path), "raise", cwd=tmp_path)
    assert proc.returncode == 4 and report["reason"] == "script_raised" and report["script_exit"] == 1
    proc, report = trace_json("--threshold-ms", "500", "--", "python", str(path), "exit3", cwd=tmp_path)
    assert proc.returncode == 3 and report["reason"] == "script_exit"


def test_bad_usage_exits_2_before_the_script_runs(tmp_path):
    path = script(tmp_path, "server.py", BLOCKING)
    for args, phrase in ((["--asyncio", "--continue"], "--continue go(es) with the NaN trace"),
                         (["--asyncio", "--dump-dir", str(tmp_path)], "--dump-dir go(es) with the NaN trace"),
                         (["--threshold-ms", "80"], "--threshold-ms goes with --asyncio"),
                         (["--asyncio", "--threshold-ms", "0"], "--threshold-ms")):
        proc = cli("trace", *args, "--", "python", str(path), cwd=tmp_path)
        assert proc.returncode == 2 and phrase in proc.stderr and "served" not in proc.stderr, f"{args}; {proc.stderr}"
    proc = cli("trace", "--asyncio", "--", "python", str(tmp_path / "missing.py"), cwd=tmp_path)
    assert proc.returncode == 2 and "no such script" in proc.stderr


def test_the_readme_example_names_inference_in_the_inline_service(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    from tests.test_readme import readme_argv  # the README's command (test_readme leaves it to this test), --json

    proc = cli(*readme_argv("faultlib trace --asyncio", tmp_path, "--json")[1:], cwd=REPO)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (finding,) = [f for f in report["findings"] if f["kind"] == "loop_blocked"]
    assert finding["location"]["function"] == "InlineModelService.infer"
    assert finding["evidence"]["call"] == "self.model(batch)"
    assert finding["evidence"]["via"] == ["InlineModelService.predict", "InlineModelService.infer"]
