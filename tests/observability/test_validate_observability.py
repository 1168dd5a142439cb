"""``faultlib validate`` proves a case's observability block against the checked-in dashboards and the
case's last archived run: a real run of fp16_overflow archived once per module, and copies of the
real case, each with one defect."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from faultlib.evidence import layout
from tests.conftest import REPO, cli, cli_in_process, edit_case_yaml, run_json


@pytest.fixture(scope="module")
def archived(catalog_run) -> tuple[str, str]:
    """``(archive URI, run id)`` of one real fp16_overflow run: the suite's shared one (tests/conftest.py's
    catalog_run, also checked end to end by tests/test_e2e_fp16_overflow.py), read, never written."""
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    proc = catalog_run("fp16_overflow")
    run_dir = Path(run_json(proc)["archive_uri"].removeprefix("file://"))
    assert (run_dir / layout.MANIFEST).is_file(), proc.stderr[-2000:]
    return f"file://{run_dir.parent.parent}", run_dir.name


def _repo(root: Path, *, dashboards: bool = True) -> Path:
    """``root/cases/fp16_overflow`` copied from the catalog, with compose/grafana beside it when asked."""
    shutil.copytree(REPO / "cases" / "fp16_overflow", root / "cases" / "fp16_overflow",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if dashboards:
        shutil.copytree(REPO / "compose" / "grafana", root / "compose" / "grafana")
    return root / "cases" / "fp16_overflow"




def test_the_clean_copy_validates_against_its_run_and_the_dashboards(tmp_path, archived):
    uri, run_id = archived
    case_dir = _repo(tmp_path)
    proc = cli("validate", str(case_dir), "--archive", uri, "-v", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"ok  {case_dir}" in proc.stdout
    assert f"checked against the last archived run fp16_overflow/{run_id} in {uri}" in proc.stderr


def test_a_span_never_emitted_names_file_line_span_and_run(tmp_path, archived):
    uri, run_id = archived
    case_dir = _repo(tmp_path)
    line = edit_case_yaml(case_dir, "    - train.step\n", "    - train.step\n    - train.never_emitted\n")
    proc = cli_in_process("validate", str(case_dir), "--archive", uri, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (f"{case_dir / 'case.yaml'}:{line}: observability.spans[2]: span 'train.never_emitted' was never emitted "
            f"in the last archived run (fp16_overflow/{run_id} in {uri}") in proc.stderr


def test_a_metric_never_emitted_is_compared_with_the_runs_prometheus_names(tmp_path, archived):
    uri, run_id = archived
    case_dir = _repo(tmp_path)
    line = edit_case_yaml(case_dir, "    - faultlib_amp_enabled\n", "    - faultlib_amp_enabled\n    - faultlib_amp_disabled\n")
    proc = cli_in_process("validate", str(case_dir), "--archive", uri, "--json", cwd=tmp_path)
    assert proc.returncode == 2
    [problem] = run_json(proc)["cases"][0]["problems"]
    assert (problem["line"], problem["field"]) == (line, "observability.metrics[7]")
    run_dir = Path(uri.removeprefix("file://")) / "fp16_overflow" / run_id
    names_file = layout.METRICS_OM if (run_dir / layout.METRICS_OM).is_file() else layout.METRICS_PROM
    assert f"metric 'faultlib_amp_disabled' was never emitted in the last archived run (fp16_overflow/{run_id}" in \
        problem["message"] and f"not in its {names_file}" in problem["message"]


def test_only_the_latest_complete_run_counts(tmp_path, archived):
    """A later run without a manifest (killed, or still running) and with no spans is not the last run."""
    uri, run_id = archived
    archive = tmp_path / "archive"
    shutil.copytree(uri.removeprefix("file://"), archive)
    later = archive / "fp16_overflow" / "29991231T235959Z-ffffff"
    shutil.copytree(archive / "fp16_overflow" / run_id, later)
    (later / layout.MANIFEST).unlink()
    (later / layout.TRACES).write_text("")
    case_dir = _repo(tmp_path)
    proc = cli_in_process("validate", str(case_dir), "--archive", f"file://{archive}", "-v", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"fp16_overflow/{run_id}" in proc.stderr


def test_a_run_that_errored_is_never_trusted_and_validate_says_re_run_it(tmp_path, archived):
    """A real run killed at its timeout (verdict error, no spans) is the newest run: validate compares with the
    last passed run, or with nothing when there is none, says so, and never advises removing a declaration."""
    uri, run_id = archived
    case_dir = _repo(tmp_path)
    with_passed = tmp_path / "archive"
    shutil.copytree(uri.removeprefix("file://"), with_passed)
    only_errored = tmp_path / "errored"
    only_errored.mkdir()
    crashed = {}
    for archive in (with_passed, only_errored):
        record = run_json(cli("run", str(case_dir), "--archive", f"file://{archive}", "--no-control", "--timeout", "1",
                              "--json", cwd=tmp_path, timeout=120))
        assert record["verdict"] == "error" and record["run_id"] > run_id
        crashed[archive] = record["run_id"]
    proc = cli_in_process("validate", str(case_dir), "--archive", f"file://{with_passed}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (f"the last run of fp16_overflow (fp16_overflow/{crashed[with_passed]} in file://{with_passed}) ended with "
            f"verdict error: spans and metrics were checked against the last passed run {run_id} instead; "
            f"re-run it: faultlib run {case_dir} --archive file://{with_passed}") in proc.stderr
    assert "remove it from" not in proc.stderr
    proc = cli_in_process("validate", str(case_dir), "--archive", f"file://{only_errored}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (f"the last run of fp16_overflow (fp16_overflow/{crashed[only_errored]} in file://{only_errored}) ended "
            "with verdict error: spans and metrics were not checked; re-run it") in proc.stderr
    assert "remove it from" not in proc.stderr


def test_a_panel_id_no_dashboard_has(tmp_path):
    case_dir = _repo(tmp_path)
    line = edit_case_yaml(case_dir, "- {id: 3, title: Loss scale", "- {id: 7003, title: Loss scale")
    proc = cli_in_process("validate", str(case_dir), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (f"{case_dir / 'case.yaml'}:{line}: observability.grafana.panels[1].id: panel 7003 of dashboard "
            "faultlib-numerics does not exist: run faultlib dashboards") in proc.stderr


def test_without_an_archived_run_or_dashboards_validate_notes_what_it_did_not_check(tmp_path):
    first = _repo(tmp_path / "elsewhere", dashboards=False)
    proc = cli_in_process("validate", str(first), str(first), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.count("has no compose/grafana/dashboards beside it") == 1  # said once
    as_json = run_json(cli_in_process("validate", str(first), "--json", cwd=tmp_path))
    assert as_json["ok"] is True
    assert any("no passed run of fp16_overflow" in note for note in as_json["cases"][0]["notes"])
    assert any("has no compose/grafana/dashboards" in note for note in as_json["notes"])


def test_an_archive_named_explicitly_must_exist(tmp_path):
    case_dir = _repo(tmp_path)
    proc = cli_in_process("validate", str(case_dir), "--archive", f"file://{tmp_path / 'missing'}", cwd=tmp_path)
    assert proc.returncode == 2 and "no archive at" in proc.stderr and "Traceback" not in proc.stderr


def test_the_clean_catalog_validates(tmp_path):
    cases = sorted(str(p) for p in (REPO / "cases").iterdir() if (p / "case.yaml").is_file())
    proc = cli_in_process("validate", *cases, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count("ok  ") == len(cases)


@pytest.mark.parametrize("damage", ["truncate", "symlink"])
def test_an_archived_run_that_differs_from_its_manifest_is_named_not_trusted(tmp_path, archived, damage):
    uri, run_id = archived
    copy = tmp_path / "archive"
    shutil.copytree(uri.removeprefix("file://"), copy, symlinks=True)
    run_dir = copy / "fp16_overflow" / run_id
    target = run_dir / (layout.METRICS_OM if damage == "truncate" else layout.TRACES)
    if damage == "truncate":
        target.write_bytes(target.read_bytes()[:100])
    else:
        target.unlink()
        target.symlink_to("/etc/passwd")
    case_dir = _repo(tmp_path)
    proc = cli_in_process("validate", str(case_dir), "--archive", f"file://{copy}", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "does not match its manifest" in proc.stderr and target.name in proc.stderr
    assert "never emitted" not in proc.stderr, "a damaged run does not blame the case"
