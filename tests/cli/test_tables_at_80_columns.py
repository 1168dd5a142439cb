"""On an 80-column terminal the codes a user copies stay whole: a finding's kind and severity in every `check`
table (``op_unsupported_by_target`` was folded into 'op_unsupported_by_t' / 'arget'), and a case's id and
severity in `faultlib list` ('dataloader_worker_cra…', 'criti…')."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

import faultlib.cli.catalog as catalog
import faultlib.console
from faultlib.check.base import CheckResult, render
from faultlib.findings import Finding, Severity

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def narrow(monkeypatch):
    """stdout as an 80-column terminal; returns what was printed."""
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False, no_color=True)
    monkeypatch.setattr(faultlib.console, "stdout", console)
    monkeypatch.setattr(catalog, "stdout", console)
    return out


def test_kind_and_severity_stay_whole_in_a_check_table(narrow):
    findings = [Finding(detector="onnx", severity=Severity.CRITICAL, kind="op_unsupported_by_target",
                        message="a long message that has to wrap over several lines " * 3,
                        location={"node": "/encoder/layers.11/attention/Softmax_with_a_long_name", "op": "Softmax"}),
                Finding(detector="onnx", severity=Severity.WARNING, kind="kernels_unverified_for_the_target",
                        message="short", location={"key": "target"})]
    render(CheckResult("onnx", findings), "warning", summary=None)
    text = narrow.getvalue()
    for code in ("op_unsupported_by_target", "kernels_unverified_for_the_target", "critical", "warning"):
        assert code in text, text
    assert max(map(len, text.splitlines())) <= 80, text


def test_case_ids_and_severities_stay_whole_in_the_list(narrow):
    from faultlib.cases import discover, load_case

    cases = [load_case(path) for path in discover(REPO / "cases")]
    assert any(len(c.id) > 21 for c in cases), "the catalog has no long id left to check"
    catalog.list_cases.callback(REPO / "cases", None, False)
    text = narrow.getvalue()
    for case in cases:
        assert re.search(rf"(^| ){case.id} ", text, re.M), f"{case.id}; {text}"
    assert "critical" in text and "warning" in text, text


def _archived(root: Path, case: str, run: str, verdict: str) -> None:
    """One complete run of ``case`` in the file:// archive ``root`` (run.json, traces.jsonl, manifest.json)."""
    import json

    from faultlib.evidence import layout
    from faultlib.evidence.seal import write_manifest

    run_dir = root / case / run
    run_dir.mkdir(parents=True)
    (run_dir / layout.TRACES).write_text("{}\n")
    (run_dir / layout.RUN).write_text(json.dumps({"verdict": verdict, "started_at": "2026-12-04T23:17:19+00:00"}))
    write_manifest(run_dir, run_id=run, case_id=case)


def test_archive_ls_keeps_case_and_run_ids_whole(tmp_path):
    """`archive ls` cropped every column at 80 (``label_mapping_dr``, ``20261204T231719Z-c56``, ``pass``): the run
    id it printed was one `archive get` refuses. The ids and the verdict stay whole; the start time (which the run
    id holds) is left out when it does not fit."""
    import os
    import subprocess
    import sys

    root = tmp_path / "runs"
    runs = {("gpu_memory_fragmentation", "20261204T231719Z-c563ff", "interrupted"),
            ("label_mapping_drift", "20261204T231755Z-0e048d", "passed")}
    for case, run, verdict in runs:
        _archived(root, case, run, verdict)

    def ls(width: int) -> str:
        got = subprocess.run([sys.executable, "-m", "faultlib", "archive", "ls", f"file://{root}"], cwd=tmp_path,
                             env={**os.environ, "COLUMNS": str(width)}, capture_output=True, text=True, timeout=120)
        assert got.returncode == 0, got.stderr
        return got.stdout

    text = ls(80)
    for case, run, verdict in runs:
        assert re.search(rf"(^| ){case} .* {run} .* {verdict}( |$)", text, re.M), text
    assert max(map(len, text.splitlines())) <= 80, text
    wide = ls(200)
    assert "2026-12-04T23:17:19+00:00" in wide and "started_at" in wide, wide


def test_archive_get_prints_json_with_the_resolved_run_id(tmp_path):
    """`archive get CASE latest` had no --json: a script could not learn which run `latest` was nor where it went
    (every other archive command has one; DESIGN: scripts read --json). Errors are JSON too."""
    import json
    import os
    import subprocess
    import sys

    root = tmp_path / "runs"
    _archived(root, "label_mapping_drift", "20261204T231719Z-c563ff", "passed")
    _archived(root, "label_mapping_drift", "20261204T231755Z-0e048d", "passed")

    def get(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "faultlib", "archive", "get", f"file://{root}", *args, "--json"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120, env=dict(os.environ))

    got = get("label_mapping_drift", "latest", "--out", str(tmp_path / "out"))
    assert got.returncode == 0, got.stderr
    report = json.loads(got.stdout)
    assert report == {"case": "label_mapping_drift", "run_id": "20261204T231755Z-0e048d", "files": 3,
                      "path": str(tmp_path / "out" / "label_mapping_drift" / "20261204T231755Z-0e048d")}
    missing = get("no_such_case", "latest", "--out", str(tmp_path / "out2"))
    assert missing.returncode == 2 and json.loads(missing.stdout)["error"] == "InputError", missing.stdout


def test_no_word_of_a_check_message_that_fits_is_folded_at_80_columns(narrow):
    """A message column ~20 wide beside the codes and the location folded ordinary words
    (``pandas.DataFrame.to_cs`` / ``v``): at 80 columns each finding prints as a block, its message wrapped
    between words under its codes; at 200 columns it stays a table."""
    message = ("numpy.linalg.eigvalsh_on_the_whole_frame and pandas.DataFrame.to_csv block the event loop: "
               "`frame.to_csv('/srv/exports/daily/report.csv')` in export_handler, without leaving the loop") * 2
    findings = [Finding(detector="blocking", severity=Severity.WARNING, kind="blocking_file_io", message=message,
                        location={"file": "/srv/app/service/handlers/exports.py", "line": 48,
                                  "function": "export_handler"})]
    render(CheckResult("blocking", findings), "warning", summary=None)
    text = narrow.getvalue()
    assert max(map(len, text.splitlines())) <= 80, text
    printed = text.split()
    assert [w for w in message.split() if w not in printed] == [], text
    assert "blocking_file_io" in printed and "/srv/app/service/handlers/exports.py:48" in text, text


def test_a_wide_terminal_keeps_the_check_table(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(faultlib.console, "stdout", Console(file=out, width=200, force_terminal=False,
                                                            no_color=True))
    findings = [Finding(detector="blocking", severity=Severity.WARNING, kind="blocking_file_io",
                        message="pandas.DataFrame.to_csv blocks the event loop", location={"file": "a.py", "line": 3})]
    render(CheckResult("blocking", findings), "warning", summary=None)
    rows = [line for line in out.getvalue().splitlines() if "│" in line]
    assert len(rows) == 1 and "pandas.DataFrame.to_csv blocks the event loop" in rows[0], out.getvalue()


def test_list_kinds_wraps_meanings_between_words_at_80_columns(narrow, monkeypatch):
    import faultlib.cli.check as check_cli
    from faultlib.check import kinds

    monkeypatch.setattr(check_cli, "stdout", faultlib.console.stdout)
    check_cli.check_app.callback.__wrapped__(_Ctx(), True, False)
    text = narrow.getvalue()
    assert max(map(len, text.splitlines())) <= 80, text
    printed = set(text.split())
    missing = [w for meanings in kinds().values() for m in meanings.values() for w in m.split()
               if len(w) <= 76 and w not in printed]
    assert missing == [], missing[:10]


class _Ctx:
    invoked_subcommand = None
