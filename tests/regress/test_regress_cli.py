"""``faultlib regress`` black-box in a temp directory, on tiny torch-free cases (and one real case once):
verdicts, --json, JUnit and report together; shards; exit codes 0/1/2/3; an invalid case counted, not a
crash; SIGTERM finishing the running case; the archive's keys reaching the workers only through a pipe."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from faultlib.readers import load_yaml_file
from tests.conftest import REPO, cli, cli_in_process, tiny_case_data, write_case
from tests.regress.junit_shape import check_jenkins_shape
from tests.regress.test_regress_report import Page


def _catalog(root: Path, **cases: dict) -> Path:
    """``name={repro params}`` (a ``"bogus"`` key in the params makes the case invalid)."""
    for case_id, params in cases.items():
        data = tiny_case_data(case_id)
        if params.pop("bogus", False):
            data["bogus"] = True
        data["repro"]["params"].update(params)
        write_case(root, data)
    return root


def _json(proc: subprocess.CompletedProcess) -> dict:
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)


def test_regress_reports_every_case_in_json_junit_and_html(tmp_path):
    _catalog(tmp_path / "cases", ok_case={}, fail_case={"fail_assertion": True}, crash_case={"mode": "crash"},
             broken_case={"bogus": True})
    proc = cli("regress", "cases", "--jobs", "2", "--json", "--archive", "file://runs", "--junit", "out/junit.xml",
               "--report", "out/report.html", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    out = _json(proc)
    verdicts = {c["id"]: c["verdict"] for c in out["cases"]}
    assert verdicts == {"broken_case": "invalid", "crash_case": "error", "fail_case": "failed", "ok_case": "passed"}
    assert [c["id"] for c in out["cases"]] == sorted(verdicts), "plan order: sorted by id"
    assert (out["shard"], out["passed"], out["failed"], out["errors"]) == ("0/1", 1, 2, 1)
    by_id = {c["id"]: c for c in out["cases"]}
    assert by_id["ok_case"]["assertions"] == {"passed": 3, "failed": 0, "skipped": 0}
    assert by_id["fail_case"]["assertions"] == {"passed": 2, "failed": 1, "skipped": 0}
    assert by_id["crash_case"]["assertions"] == {"passed": 0, "failed": 3, "skipped": 0}
    [failure] = by_id["fail_case"]["failures"]  # why, and the id <-> test mapping
    assert (failure["id"], failure["test"]) == ("asked_to_fail", "test_always_fails_when_asked")
    assert failure["message"].startswith("AssertionError: assert not True") and "\n" not in failure["message"]
    for case_id in ("ok_case", "fail_case", "crash_case"):
        case = by_id[case_id]
        run_dir = Path(case["archive_uri"].removeprefix("file://"))
        assert run_dir == (tmp_path / "runs" / case_id / case["run_id"]).resolve()
        assert (run_dir / "manifest.json").is_file(), "every run is complete in the archive"
        assert case["duration_s"] > 0
    assert by_id["broken_case"]["run_id"] is None and "unknown key 'bogus'" in by_id["broken_case"]["error"]

    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert check_jenkins_shape(root) == {"tests": 10, "failures": 2, "errors": 3, "skipped": 0}
    failure = root.find("testsuite[@name='fail_case']/testcase[@name='fail_case::asked_to_fail']/failure")
    assert failure.get("message").startswith("AssertionError: assert not True") and "case_params" in failure.text
    errors = root.findall("testsuite[@name='crash_case']/testcase/error")
    assert len(errors) == 3 and all(e.get("message").startswith("faulted phase exited with code 1") for e in errors)
    assert all("tiny repro crashed on purpose" in e.text for e in errors), "the repro's traceback is the detail"
    assert root.find("testsuite[@name='broken_case']/testcase[@name='broken_case::case']/failure") is not None

    page = Page()
    page.feed((tmp_path / "out" / "report.html").read_text(encoding="utf-8"))
    assert [(s["data-case-id"], s["data-verdict"]) for s in page.sections] == sorted(verdicts.items())
    sections = {s["data-case-id"]: s for s in page.sections}
    assert sections["ok_case"]["svg"] >= 1 and sections["fail_case"]["svg"] >= 1, "step series of tiny cases"
    assert "ok_case: started" in proc.stderr and "[4/4]" in proc.stderr, "progress on stderr"


def test_shards_split_the_catalog_and_a_passing_shard_exits_0(tmp_path):
    _catalog(tmp_path / "cases", a_case={}, b_case={}, c_case={})
    seen = []
    for shard in ("0/2", "1/2"):
        proc = cli("regress", "cases", "--shard", shard, "--json", "--archive", "file://runs", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        out = _json(proc)
        assert out["shard"] == shard and out["selected"] == 3 and out["failed"] == out["errors"] == 0
        seen.append([c["id"] for c in out["cases"]])
    assert seen == [["a_case", "c_case"], ["b_case"]]
    proc = cli("regress", "cases", "--shard", "3/4", "--archive", "file://runs", "--junit", "j.xml", cwd=tmp_path)
    assert proc.returncode == 0 and "holds none of the 3 selected" in proc.stderr
    assert check_jenkins_shape(ET.parse(tmp_path / "j.xml").getroot())["tests"] == 0


def test_requires_not_met_skips_for_a_missing_device_and_errors_for_a_missing_package(tmp_path):
    root = tmp_path / "cases"
    gpu = tiny_case_data("gpu_case")
    gpu["requires"]["devices"] = ["cuda"]
    write_case(root, gpu)
    pkg = tiny_case_data("pkg_case")
    pkg["requires"]["packages"]["no-such-package-faultlib"] = ">=1"
    write_case(root, pkg)
    proc = cli("regress", "cases", "--json", "--archive", "file://runs", "--junit", "j.xml", cwd=tmp_path)
    out = _json(proc)
    assert [(c["id"], c["verdict"]) for c in out["cases"]] == [("gpu_case", "skipped"), ("pkg_case", "error")]
    assert "needs a CUDA device" in out["cases"][0]["error"] and out["skipped"] == 1 and out["errors"] == 1
    assert "pip install 'no-such-package-faultlib>=1'" in out["cases"][1]["error"]
    assert proc.returncode == 1, "a case the environment cannot run is a failure of the night; a missing GPU is not"
    root_xml = ET.parse(tmp_path / "j.xml").getroot()
    assert check_jenkins_shape(root_xml) == {"tests": 6, "failures": 0, "errors": 3, "skipped": 3}


@pytest.mark.parametrize("args, phrase", [
    (["--shard", "2/2"], "numbered 0 to 1"), (["--shard", "half"], "is not I/N"), (["--jobs", "0"], "--jobs"),
    (["--fault-class", "serving."], "no case has a fault class starting with 'serving.'"),
    (["--junit", "."], "is a directory"), (["--archive", "ftp://x"], "unknown archive scheme"),
    (["--backend", "local", "--namespace", "x"], "--namespace applies to --backend kubernetes"),
    (["nowhere"], "catalog directory not found")])
def test_bad_usage_exits_2_before_anything_runs(tmp_path, args, phrase):
    _catalog(tmp_path / "cases", a_case={})
    argv = ["regress", *(args if args == ["nowhere"] else ["cases", *args])]
    proc = cli_in_process(*argv, cwd=tmp_path)  # refused before anything runs: in process
    assert proc.returncode == 2, proc.stderr
    assert phrase in " ".join(proc.stderr.split()) and "Traceback" not in proc.stderr
    assert not (tmp_path / ".faultlib").exists(), "nothing ran"


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_archive_exits_3_before_any_case(tmp_path, monkeypatch):
    pytest.importorskip("minio", reason="the minio client is not installed: pip install 'faultlib-ml[s3]'")
    _catalog(tmp_path / "cases", a_case={}, b_case={})
    monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-never-shown")
    monkeypatch.setenv("FAULTLIB_SPOOL", str(tmp_path / "spool"))
    started = time.monotonic()
    proc = cli("regress", "cases", "--archive", "s3://bucket/x", "--junit", "j.xml", cwd=tmp_path, timeout=60)
    assert proc.returncode == 3, proc.stderr
    assert "cannot connect" in proc.stderr and "secret-never-shown" not in proc.stderr + proc.stdout
    assert time.monotonic() - started < 20
    assert not (tmp_path / "spool").exists() and not (tmp_path / "j.xml").exists(), "no case started"


def test_unreachable_backend_stops_the_regression_with_exit_3(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    _catalog(tmp_path / "cases", a_case={}, b_case={}, c_case={})
    proc = cli("regress", "cases", "--backend", "compose", "--jobs", "3", "--json", "--archive", "file://runs",
               "--junit", "j.xml", cwd=tmp_path, timeout=120)
    assert proc.returncode == 3, proc.stderr
    out = _json(proc)
    assert [c["verdict"] for c in out["cases"]] == ["unavailable", "not_run", "not_run"]
    assert "no Docker engine is reachable" in " ".join(out["cases"][0]["error"].split())
    assert out["cases"][1]["error"].startswith("not run: ") and out["errors"] == 3
    assert "runs one case at a time" in proc.stderr, "compose ignores --jobs, and says so"
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert check_jenkins_shape(root) == {"tests": 9, "failures": 0, "errors": 9, "skipped": 0}


def test_sigterm_finishes_the_running_case_and_still_writes_the_reports(tmp_path):
    _catalog(tmp_path / "cases", a_hang={"mode": "hang"}, b_later={})
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "faultlib", "regress", "cases", "--archive", "file://runs",
                             "--junit", "j.xml", "--report", "r.html"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            outs = list((tmp_path / "runs" / "a_hang").glob("*/stdout.txt"))
            if outs and "phase=faulted" in outs[0].read_text():
                break
            time.sleep(0.1)
        else:
            pytest.fail("the faulted phase never started")
        time.sleep(0.5)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert time.monotonic() - started < 30 and "aborted by SIGTERM" in stderr
    run_dir = outs[0].parent
    assert (run_dir / "manifest.json").is_file(), "the interrupted run was finished, its evidence kept"
    assert json.loads((run_dir / "run.json").read_text())["verdict"] == "error"
    root = ET.parse(tmp_path / "j.xml").getroot()
    props = {s.get("name"): {p.get("name"): p.get("value") for p in s.iter("property")} for s in root}
    assert props["a_hang"]["verdict"] == "interrupted" and props["b_later"]["verdict"] == "not_run"
    assert (tmp_path / "r.html").is_file()


def test_a_killed_regression_still_finishes_its_running_case(tmp_path):
    _catalog(tmp_path / "cases", a_hang={"mode": "hang"})
    proc = subprocess.Popen([sys.executable, "-m", "faultlib", "regress", "cases", "--archive", "file://runs"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            outs = list((tmp_path / "runs" / "a_hang").glob("*/stdout.txt"))
            if outs and "phase=faulted" in outs[0].read_text():
                break
            time.sleep(0.1)
        else:
            pytest.fail("the faulted phase never started")
        proc.kill()  # kill -9: no chance to stop its workers
        proc.wait(timeout=30)
        manifest = outs[0].parent / "manifest.json"
        deadline = time.monotonic() + 30
        while not manifest.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert manifest.exists(), "the worker heard its parent die (PR_SET_PDEATHSIG) and finished the run"
    record = json.loads((outs[0].parent / "run.json").read_text())
    assert record["verdict"] == "error" and "interrupted" in record["error"]
    deadline = time.monotonic() + 30
    while _workers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _workers(), "a worker outlived its killed regression"


def _workers() -> list[str]:
    """Command lines of the live faultlib.regress.worker processes below this test (orphans come back to pytest,
    the session's subreaper)."""
    from faultlib.processes import tree

    found = [tree.cmdline(p.pid) for p in tree.descendants([os.getpid()]) if p.alive]
    return [line for line in found if "faultlib.regress.worker" in line]


def test_an_orphaned_worker_that_cannot_finish_kills_itself_after_its_grace(tmp_path):
    """A worker whose regression died and whose run will not finish (its SIGTERM handling is stuck) is gone once
    ORPHAN_GRACE_S runs out: its own process group is killed."""
    code = (
        "import os, signal, time\n"
        "from faultlib.regress import worker\n"
        "worker.ORPHAN_GRACE_S = 0.5\n"
        "worker._parent_pid = -1  # not our parent: the regression is gone\n"
        "signal.signal(signal.SIGTERM, worker._interrupt)\n"
        "if os.fork() == 0:  # something the run left in the worker's group\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "except KeyboardInterrupt:\n"
        "    pass\n"
        "time.sleep(60)  # stuck finishing the run\n")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], start_new_session=True, capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert time.monotonic() - started < 20


SECRET_CHECK_REPRO = '''
import os
from faultlib import repro

with repro.context() as ctx:
    with open(f"/proc/{os.getppid()}/environ", "rb") as fh:   # the worker that runs this case
        worker_env = fh.read()
    for name in (b"AWS_SECRET_ACCESS_KEY", b"AWS_ACCESS_KEY_ID", b"FAULTLIB_S3_ENDPOINT"):
        assert name not in worker_env, f"{name} is in the worker's environment"
    assert not {"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "FAULTLIB_S3_ENDPOINT"} & set(os.environ)
    for step in range(3):
        with ctx.step(step, total=3) as span:
            span.set(value=step * 2)
    ctx.summary(done=True)
'''


def test_s3_archive_keys_reach_the_workers_only_through_a_pipe(tmp_path, s3):
    data = tiny_case_data("s3_case")
    data["repro"]["params"]["steps"] = 3
    write_case(tmp_path / "cases", data, repro=SECRET_CHECK_REPRO)
    proc = cli("regress", "cases", "--jobs", "2", "--json", "--archive", "s3://regress/nightly", "--report", "r.html",
               cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    case = _json(proc)["cases"][0]
    assert case["verdict"] == "passed" and case["archive_uri"] == f"s3://regress/nightly/s3_case/{case['run_id']}"
    listing = cli("archive", "ls", "s3://regress/nightly", "--json", cwd=tmp_path, timeout=60)
    runs = json.loads(listing.stdout)["runs"]
    assert [(r["case"], r["run_id"], r["complete"]) for r in runs] == [("s3_case", case["run_id"], True)]
    secret = os.environ["AWS_SECRET_ACCESS_KEY"]
    assert secret not in proc.stdout + proc.stderr + (tmp_path / "r.html").read_text()
    page = Page()
    page.feed((tmp_path / "r.html").read_text())
    assert f"faultlib archive get s3://regress/nightly s3_case {case['run_id']}" in " ".join(page.text), \
        "the report was digested before the spool copy went away"
    assert page.sections[0]["svg"] >= 1


@pytest.mark.slow
def test_a_real_case_end_to_end_with_its_charts(tmp_path):
    pytest.importorskip("sklearn", reason="label_mapping_drift needs scikit-learn: pip install 'faultlib-ml[torch]'")
    shutil.copytree(REPO / "cases" / "label_mapping_drift", tmp_path / "cases" / "label_mapping_drift")
    proc = cli("regress", "cases", "--fault-class", "data.", "--json", "--archive", "file://runs", "--junit",
               "j.xml", "--report", "r.html", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [c["verdict"] for c in _json(proc)["cases"]] == ["passed"]
    root = ET.parse(tmp_path / "j.xml").getroot()
    assertions = load_yaml_file(tmp_path / "cases" / "label_mapping_drift" / "case.yaml").data["assertions"]
    assert check_jenkins_shape(root)["tests"] == len(assertions)  # one testcase per case assertion
    assert {tc.get("name") for tc in root.iter("testcase")} >= {"label_mapping_drift::accuracy_collapses",
                                                                 "label_mapping_drift::guard_mitigates"}
    html = (tmp_path / "r.html").read_text()
    page = Page()
    page.feed(html)
    assert page.sections[0]["svg"] >= 3
    assert any(t == "rect" and a.get("class") == "fault-window" for t, a in page.tags), "the window is shaded"
    assert "accuracy_serving per batch (serve.batch)" in html, "the collapsing accuracy is a key series"
    assert "faultlib_label_predictions_total" in html, "the declared metrics are tabled per window"


def test_help_lists_regress(tmp_path):
    proc = cli("--help", cwd=tmp_path, timeout=60)
    assert proc.returncode == 0 and "regress" in proc.stdout
