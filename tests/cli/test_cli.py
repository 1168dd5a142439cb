"""The CLI, black-box, in a temporary directory: output contracts and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from faultlib import schemas
from tests.conftest import REPO, cli, cli_in_process, run_json


def test_help_is_fast_and_imports_nothing_heavy(tmp_path):
    probe = ("import sys; from faultlib.cli.app import app; "
             "heavy = [m for m in ('torch', 'sklearn', 'opentelemetry', 'jsonschema', 'numpy') if m in sys.modules]; "
             "print(heavy)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    proc = cli("--help", cwd=tmp_path)
    assert proc.returncode == 0 and "faultlib run cases/fp16_overflow" in proc.stdout
    for command in ("run", "list", "validate", "archive"):
        assert command in proc.stdout


def test_validate_reports_file_line_field_and_exits_2(tiny_case, tmp_path):
    good = tiny_case("good_case")
    bad = tiny_case("bad_case")
    data = yaml.safe_load((bad / "case.yaml").read_text())
    data["severity"] = "catastrophic"
    (bad / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    proc = cli("validate", str(good), str(bad), cwd=tmp_path)
    assert proc.returncode == 2
    assert f"ok  {good}" in proc.stdout
    line = next(i for i, l in enumerate((bad / "case.yaml").read_text().splitlines(), 1) if l.startswith("severity"))
    assert f"{bad / 'case.yaml'}:{line}: severity: 'catastrophic' is not one of" in proc.stderr
    assert "1 of 2 case(s) invalid" in proc.stderr
    assert cli("validate", str(good), cwd=tmp_path).returncode == 0


def test_validate_catalog_and_list(tmp_path):
    (tmp_path / "runs").mkdir()  # an archive of its own: the checkout's .faultlib/runs is the user's, not the test's
    proc = cli("validate", "--archive", f"file://{tmp_path / 'runs'}", cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    # list only reads the catalog: one real process (the table), the JSON forms through the same entry in process
    listing = run_json(cli_in_process("list", "--json", cwd=REPO))
    assert "fp16_overflow" in {c["id"] for c in listing["cases"]}
    numerics = run_json(cli_in_process("list", "--fault-class", "numerics.", "--json", cwd=REPO))
    assert all(c["fault_class"].startswith("numerics.") for c in numerics["cases"])
    assert run_json(cli_in_process("list", "--fault-class", "nothing.", "--json", cwd=REPO))["cases"] == []
    table = cli("list", cwd=REPO).stdout
    assert "fp16_overflow" in table and "numerics.fp16_overflow" in table


def test_run_json_record_and_archive_ls(tiny_case, tmp_path):
    archive = tmp_path / "runs"
    proc = cli("run", str(tiny_case()), "--archive", f"file://{archive}", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = run_json(proc)
    schemas.validator("run").validate(record)
    assert record["verdict"] == "passed"
    assert "faulted: running" in proc.stderr and "faulted: ok in" in proc.stderr, "progress on stderr with --json"
    (archive / "tiny_case" / "20261130T000000Z-000000").mkdir()  # a run killed before its manifest
    runs = run_json(cli("archive", "ls", f"file://{archive}", "--json", cwd=tmp_path))["runs"]
    assert [(r["run_id"], r["complete"]) for r in runs] == [
        ("20261130T000000Z-000000", False), (record["run_id"], True)]
    assert next(r for r in runs if r["complete"])["verdict"] == "passed"


def test_a_failed_assertion_says_why_in_the_summary_and_the_json_record(tiny_case, tmp_path):
    case_dir = tiny_case(fail_assertion=True)
    proc = cli("run", str(case_dir), "--archive", str(tmp_path / "runs"), "--no-control", cwd=tmp_path)
    assert proc.returncode == 1
    assert ("  failed: asked_to_fail (test_case.py::test_always_fails_when_asked): AssertionError: assert not True"
            in proc.stdout), proc.stdout
    record = run_json(cli("run", str(case_dir), "--archive", str(tmp_path / "runs"), "--no-control", "--json",
                          cwd=tmp_path))
    schemas.validator("run").validate(record)
    [failure] = record["assertions"]["failures"]
    assert failure["id"] == "asked_to_fail" and failure["test"] == "test_always_fails_when_asked"
    assert failure["message"].startswith("AssertionError: assert not True")


def test_run_human_output_names_verdict_and_evidence(tiny_case, tmp_path):
    proc = cli("run", str(tiny_case(mode="crash")), "--archive", str(tmp_path / "runs"), cwd=tmp_path)
    assert proc.returncode == 1
    assert "verdict: ERROR" in proc.stdout and "evidence: file://" in proc.stdout
    assert "faulted phase exited with code 1" in proc.stdout


def test_bad_input_exits_2_with_a_clear_message(tiny_case, tmp_path):
    proc = cli("run", str(tmp_path / "missing"), cwd=tmp_path)
    assert proc.returncode == 2 and "error:" in proc.stderr and "case directory not found" in proc.stderr
    assert "Traceback" not in proc.stderr
    # refused before anything runs: the first in its own process, as a user sees it; the others in process
    proc = cli_in_process("run", str(tiny_case()), "--archive", "ftp://x/y", "--json", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown archive scheme 'ftp'" in json.loads(proc.stdout)["message"]
    proc = cli_in_process("run", str(tiny_case("other_case")), "--backend", "warp", cwd=tmp_path)
    assert proc.returncode == 2 and "Invalid value for '--backend'" in proc.stderr


def test_unreachable_backend_exits_3(tiny_case, tmp_path, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")  # no engine, whatever the machine has
    proc = cli("run", str(tiny_case()), "--backend", "compose", cwd=tmp_path)
    assert proc.returncode == 3 and "no Docker engine is reachable" in " ".join(proc.stderr.split())
