"""A run is never lost, half-finished or silently wrong, whatever a repro leaves in its run directory."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from faultlib import schemas
from faultlib.archive import FileArchive
from faultlib.archive.manifest import verify
from faultlib.cases import load_case
from faultlib.evidence import layout, read_run
from faultlib.record import Verdict
from faultlib.runner import Runner
from tests.conftest import tiny_case_data, write_case

SECRET = b"a file outside the run directory that must never be hashed or archived\n"

# findings.jsonl lines the issue names, one per line
BAD_FINDINGS = [
    b'{"phase": "faulted", "finding": {"detector": "x", "kind": "x", "message": "no severity", "location": {}, '
    b'"evidence": {}}}',
    b'["a", "json", "list"]',
    b"\xff\xfe\xfd not UTF-8",
]

HOSTILE_REPRO = '''
import json, os, socket, time
from pathlib import Path
from faultlib import repro
from faultlib.findings import Finding

with repro.context() as ctx:
    run = Path(os.environ["FAULTLIB_RUN_DIR"])
    for step in range(3):
        with ctx.step(step, total=3) as span:
            span.set(value=step)
    hostile = ctx.params.get("hostile", [])
    if ctx.phase == "control" and "fifo_stdout" in hostile:
        os.unlink(run / "stdout.txt")
        os.mkfifo(run / "stdout.txt")        # the runner's next open would block forever
    if ctx.phase == "faulted":
        ctx.report(Finding("tiny", "warning", "a real finding"))
        with open(run / "findings.jsonl", "ab") as fh:
            for line in json.loads(ctx.params["bad_findings"]):
                fh.write(bytes.fromhex(line) + b"\\n")
        if "everything" in hostile:
            with open(run / "traces.jsonl", "ab") as fh:
                fh.write(b'["faultlib.step"]\\n{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": 1}]}]}]}\\n')
            with open(run / "logs.jsonl", "ab") as fh:
                fh.write(b"{{{\\n")
            (run / "run.json").write_text('{"verdict": "passed"}')
            (run / "manifest.json").write_text('{"files": []}')
            (run / "junit.xml").mkdir()
            (run / "leak.txt").symlink_to(ctx.params["secret"])
            (run / "metrics.prom").symlink_to(ctx.params["secret"])
            os.mkfifo(run / "pipe")
            sock = socket.socket(socket.AF_UNIX)
            os.chdir(run)
            sock.bind("sock")
            with open(os.path.join(os.fsencode(run), b"bad\\xff.txt"), "wb") as fh:
                fh.write(b"x")
            (run / "dumps").mkdir(exist_ok=True)
            with open(run / "dumps" / "huge.bin", "wb") as fh:
                fh.truncate(5 << 30)         # 5 GiB apparent size, no disk
    ctx.summary(done=True)
if ctx.phase == "faulted" and "everything" in hostile:
    if (run / "metrics.jsonl").exists():
        os.rename(run / "metrics.jsonl", run / "metrics.old")
    (run / "metrics.jsonl").mkdir()          # a directory where a file is expected
    (run / "metrics.jsonl" / "inside.txt").write_text("x")
'''

TEST = '''
def test_ran(evidence):
    assert evidence.faulted.steps() and evidence.faulted.summary["done"]
    assert evidence.problems, "the reader names what it skipped"
'''


def _case(tmp_path, *hostile, bad_findings=BAD_FINDINGS):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    data = tiny_case_data("hostile_case")
    data["repro"]["params"] = {"hostile": list(hostile), "secret": str(secret),
                               "bad_findings": json.dumps([line.hex() for line in bad_findings])}
    data["assertions"] = [{"id": "ran", "when": "after", "test": "test_ran", "description": "d"}]
    return write_case(tmp_path / "cases", data, repro=HOSTILE_REPRO, test=TEST)


def _run(tmp_path, case_dir):
    archive = FileArchive(tmp_path / "archive")
    record = Runner(archive).run(load_case(case_dir))
    return record, archive.root / record.case["id"] / record.run_id


def _runner_findings(record):
    return {(f.location.get("file"), f.location.get("line")): f for f in record.findings}


def test_malformed_findings_lines_become_error_findings_and_the_run_finishes(tmp_path):
    record, run_dir = _run(tmp_path, _case(tmp_path))
    assert record.verdict is Verdict.ERROR
    assert "evidence could not be read" in record.error
    found = _runner_findings(record)
    for line in (2, 3, 4):  # line 1 is the repro's real finding
        finding = found[(layout.FINDINGS, line)]
        assert finding.detector == "faultlib.runner" and finding.severity.value == "error"
    assert "severity" in found[(layout.FINDINGS, 2)].message
    assert "UTF-8" in found[(layout.FINDINGS, 4)].message
    assert [f.message for f in record.faulted.findings] == ["a real finding"]
    assert record.assertions["passed"] == ["ran"]
    data = json.loads((run_dir / layout.RUN).read_text())
    schemas.validator("run").validate(data)
    assert verify(run_dir) == []
    assert not (run_dir / "run.lock").exists()


def test_a_hostile_run_directory_cannot_stop_the_run_from_finishing(tmp_path):
    record, run_dir = _run(tmp_path, _case(tmp_path, "everything", "fifo_stdout"))
    assert record.verdict is Verdict.ERROR
    assert record.faulted.exit_code == 0 and record.error.startswith("evidence could not be read")
    data = json.loads((run_dir / layout.RUN).read_text())
    schemas.validator("run").validate(data)
    assert data["run_id"] == record.run_id and data["verdict"] == "error"  # the runner's record, not the repro's
    assert verify(run_dir) == []
    files = {a["name"]: a for a in json.loads((run_dir / layout.MANIFEST).read_text())["files"]}
    for name in ("leak.txt", "pipe", "sock", "dumps/huge.bin", "metrics.prom.repro"):
        assert not any(n.startswith(name) for n in files), name
    assert hashlib.sha256(SECRET).hexdigest() not in {a["sha256"] for a in files.values()}
    assert (tmp_path / "secret.txt").read_bytes() == SECRET  # never written through the metrics.prom link
    messages = "\n".join(f.message for f in record.findings)
    for expected in ("leak.txt: symbolic link", "pipe: named pipe (FIFO)", "sock: socket",
                     "bad\\xff.txt: name is not valid UTF-8", "dumps/huge.bin: 5368709120 bytes",
                     "traces.jsonl:", "logs.jsonl:", "metrics.jsonl: ", "run.json: a regular file was already there",
                     "manifest.json: a regular file", "junit.xml: a directory", "metrics.prom: a symbolic link",
                     "stdout.txt.repro-"):
        assert expected in messages, expected
    assert record.assertions["passed"] == ["ran"]  # the suite ran although junit.xml was a directory
    assert "# faultlib phase=faulted" in (run_dir / layout.STDOUT).read_text()  # not lost into the FIFO
    assert read_run(run_dir).problems  # the reader does not crash either
    assert (run_dir / "metrics.jsonl" / "inside.txt").is_file()  # evidence is never removed


@pytest.mark.parametrize("line", [b'{"phase": "faulted", "finding": {"detector": "x"}}', b"[1]", b"\x80"])
def test_each_kind_of_bad_findings_line_alone_gives_error(tmp_path, line):
    record, run_dir = _run(tmp_path, _case(tmp_path, bad_findings=[line]))
    assert record.verdict is Verdict.ERROR
    assert (layout.FINDINGS, 2) in _runner_findings(record)
    assert verify(run_dir) == []
    assert os.path.isfile(run_dir / layout.METRICS_PROM)
