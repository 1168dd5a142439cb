"""What a person reads at the terminal: a check's verdict under its findings, ``list``'s severity and needs, an
unknown check, ``archive get latest`` (trace's replay banner before its result: tests/trace/test_replay.py)."""

from __future__ import annotations

import json

from tests.conftest import REPO, cli, run_json

FEATURES = REPO / "cases" / "feature_config_diff"


def test_findings_below_the_fail_on_level_are_counted_not_called_ok(tmp_path):
    args = ("check", "features", str(FEATURES / "features_training.yaml"), str(FEATURES / "features_serving_v2.yaml"))
    found = run_json(cli(*args, "--json", cwd=tmp_path))["findings"]
    assert found and all(f["severity"] != "critical" for f in found)
    proc = cli(*args, "--fail-on", "critical", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last == f"features: ok: {len(found)} findings below the fail-on level (critical)", last
    failing = cli(*args, cwd=tmp_path)
    errors = sum(f["severity"] in ("warning", "error") for f in found)
    assert failing.returncode == 1 and failing.stdout.strip().splitlines()[-1].startswith(f"features: {errors} finding(s)")


def test_list_shows_each_cases_severity_and_what_it_needs(tmp_path):
    listing = run_json(cli("list", str(REPO / "cases"), "--json", cwd=tmp_path))["cases"]
    by_id = {c["id"]: c for c in listing}
    assert by_id["gpu_memory_fragmentation"]["needs"] == ["cuda"]
    assert by_id["fp16_overflow"]["needs"] == []
    assert by_id["label_mapping_drift"]["severity"] == "critical", "silently wrong predictions"
    assert by_id["event_loop_blocking"]["severity"] == "warning", "degraded latency, correct answers"
    table = cli("list", str(REPO / "cases"), cwd=tmp_path).stdout.splitlines()
    assert "needs" in table[0].split()
    assert "cuda" in next(line for line in table if line.startswith(" gpu_memory_fragmentation")).split()


def test_an_unknown_check_lists_the_checks(tmp_path):
    proc = cli("check", "batchin", "x.py:y", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    message = " ".join(proc.stderr.split())
    assert "no check named 'batchin' (did you mean 'batching'?)" in message
    assert "the checks are: align, batching," in message and "state-dict" in message


def test_archive_get_takes_latest_and_the_default_archive(tiny_case, tmp_path):
    record = run_json(cli("run", str(tiny_case()), "--no-control", "--json", cwd=tmp_path))  # default archive
    runs = tmp_path / ".faultlib" / "runs"
    (runs / "tiny_case" / "29991231T235959Z-ffffff").mkdir()  # a later run without a manifest: not complete
    got = cli("archive", "get", "tiny_case", "latest", "--out", str(tmp_path / "a"), cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "a" / "tiny_case" / record["run_id"] / "manifest.json").is_file()
    old_form = cli("archive", "get", f"file://{runs}", "tiny_case", record["run_id"], "--out", str(tmp_path / "b"),
                   cwd=tmp_path)
    assert old_form.returncode == 0, old_form.stderr
    option = cli("archive", "get", "--archive", f"file://{runs}", "tiny_case", "latest", "--out", str(tmp_path / "c"),
                 cwd=tmp_path)
    assert option.returncode == 0 and f"tiny_case/{record['run_id']}: " in option.stdout
    twice = cli("archive", "get", f"file://{runs}", "tiny_case", "latest", "--archive", f"file://{runs}", cwd=tmp_path)
    assert twice.returncode == 2 and "give the archive once" in twice.stderr
    none = cli("archive", "get", "other_case", "latest", "--out", str(tmp_path / "d"), cwd=tmp_path)
    assert none.returncode == 2 and "no complete run of 'other_case'" in none.stderr
    assert json.loads(cli("archive", "ls", "--json", cwd=tmp_path).stdout)["runs"]
