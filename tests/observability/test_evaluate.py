"""`faultlib run --prometheus` on a real run of a small torch-free case with a fault window: the runner's
metrics.om is backfilled into a real Prometheus, every query is evaluated per phase and window, promql.json
is valid against its schema and archived, the case's suite reads it through `evidence.promql(...)`; without
--prometheus that test is skipped with the reason; a forged promql.json is moved aside; a missing
Prometheus is a finding, not a crash; the summary draws a sparkline per query and phase."""

from __future__ import annotations

import json
import math
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from faultlib import schemas
from faultlib.archive import FileArchive
from faultlib.archive.manifest import verify
from faultlib.cases import load_case
from faultlib.cases.model import Case
from faultlib.cli.progress import print_summary
from faultlib.evidence import layout, read_run
from faultlib.observability.evaluate import evaluate_run, failed_queries, grid
from faultlib.observability.prometheus import INSTALL_HINT, missing_binaries
from faultlib.evidence.promql import load
from faultlib.observability.sparkline import BARS, sparkline
from faultlib.runner import Runner
from tests.conftest import tiny_case_data, write_case

MISSING = missing_binaries()
needs_prometheus = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

SERVING_REPRO = '''
import time
from faultlib import repro


class Service:
    class_names = ["zero", "one", "two"]


with repro.context() as ctx:
    service = Service()
    ctx.attach(service)
    requests = ctx.evidence.counter("faultlib_tiny_requests_total", "requests served")
    wrong = ctx.evidence.counter("faultlib_tiny_wrong_labels_total", "answers decoded with a wrong class list")
    for step in range(30):
        with ctx.step(step, total=30, name="serve.request"):
            time.sleep(0.01)
            requests.add(1)
            wrong.add(0 if service.class_names == ["zero", "one", "two"] else 1)
    if ctx.params.get("forge"):
        (ctx.run_dir / "promql.json").write_text('{"prometheus": "forged", "queries": []}')
    ctx.summary(served=30)
'''

SERVING_TEST = '''
def test_wrong_labels_only_while_the_fault_lasts(evidence):
    ratio = "wrong_ratio"
    assert evidence.promql(ratio, phase="faulted", window="before").max() == 0
    assert evidence.promql(ratio, phase="faulted", window="during").max() > 0
    assert evidence.promql(ratio, phase="control").max() == 0

def test_served(evidence):
    assert len(evidence.faulted.steps("serve.request")) == 30
'''

QUERIES = [
    {"id": "wrong_ratio", "query": "sum by (phase) (faultlib_tiny_wrong_labels_total) / "
                                   "sum by (phase) (faultlib_tiny_requests_total)"},
    {"id": "wrong_rate", "query": "sum by (phase) (rate(faultlib_tiny_wrong_labels_total[5m]))"},
    {"id": "requests_all_phases", "query": "sum(faultlib_tiny_requests_total)"},
]


def serving_case(root: Path, **params) -> Case:
    data = tiny_case_data("serving_case")
    data["inject"]["local"] = [{"shim": "label_order", "params": {"order": "reversed", "start_step": 10, "steps": 10}}]
    data["repro"]["params"] = dict(params)
    data["observability"]["promql"] = QUERIES
    data["observability"]["grafana"]["panels"] = [{"id": 1, "title": "Wrong labels", "query": "wrong_ratio"}]
    data["observability"]["spans"] = ["serve.request"]
    data["assertions"] = [
        {"id": "wrong_only_during", "when": "during", "test": "test_wrong_labels_only_while_the_fault_lasts",
         "description": "wrong labels only while the fault lasts"},
        {"id": "served", "when": "continuous", "test": "test_served", "description": "30 requests"}]
    return load_case(write_case(root / "cases", data, repro=SERVING_REPRO, test=SERVING_TEST))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if MISSING:
        pytest.skip(MISSING)
    root = tmp_path_factory.mktemp("promql")
    case = serving_case(root)
    record = Runner(FileArchive(root / "runs")).run(case, prometheus=True)
    return case, record, Path(record.archive_uri.removeprefix("file://"))


@needs_prometheus
def test_the_run_passes_and_promql_json_is_valid_and_archived(run):
    _, record, run_dir = run
    assert record.verdict.value == "passed", f"{record.error}; {record.findings}; {record.assertions}"
    assert record.findings == []
    document = json.loads((run_dir / layout.PROMQL).read_text())
    assert list(schemas.validator("promql").iter_errors(document)) == []
    assert document["prometheus"].startswith("2.")
    assert verify(run_dir) == []
    assert layout.PROMQL in {a.name for a in record.artifacts}


@needs_prometheus
def test_every_query_is_evaluated_per_phase_and_window(run):
    _, _, run_dir = run
    document = json.loads((run_dir / layout.PROMQL).read_text())
    keys = [(q["id"], q["phase"], q["window"]) for q in document["queries"]]
    windows = [(p, w) for p in ("control", "faulted") for w in ("before", "during", "after", "run")]
    assert keys == [(q["id"], p, w) for q in QUERIES for p, w in windows]
    for q in document["queries"]:
        assert q["error"] is None
        points = round((q["end"] - q["start"]) / q["step"]) + 1
        assert 2 <= points <= 60 if q["window"] == "during" else 20 <= points <= 60, f'{q["window"]}; {points}'


@needs_prometheus
def test_series_of_the_other_phase_are_dropped_and_unlabelled_ones_marked(run):
    _, _, run_dir = run
    results = load(run_dir)
    for q in results.queries:
        if q.id == "requests_all_phases":
            assert [s.phase_label for s in q.series] in ([], [False])
            assert all("phase" not in s.labels for s in q.series)
        else:
            assert all(s.phase_label and s.labels["phase"] == q.phase for s in q.series), q


@needs_prometheus
def test_the_values_show_the_fault_only_in_its_window(run):
    _, _, run_dir = run
    results = load(run_dir)
    ratio = lambda **where: results.select("wrong_ratio", **where)  # noqa: E731
    assert ratio(phase="faulted", window="before").max() == 0
    assert 0 < ratio(phase="faulted", window="during").max() <= 10 / 20
    assert ratio(phase="faulted", window="after").min() == pytest.approx(10 / 30, abs=0.1)
    assert ratio(phase="control").max() == 0
    # the control snapshots where the faulted run's window changes (steps 10 and 20): every window has a value
    for window in ("before", "during", "after"):
        assert ratio(phase="control", window=window).values() and ratio(phase="control", window=window).max() == 0
    assert results.select("wrong_rate", phase="faulted", window="during").max() > 0
    assert results.select("wrong_rate", phase="control").max() == 0


@needs_prometheus
def test_the_case_suite_reads_promql_through_the_evidence_fixture(run):
    _, record, run_dir = run
    assert record.assertions["passed"] == ["wrong_only_during", "served"]
    evidence = read_run(run_dir)
    selection = evidence.promql("wrong_ratio", phase="faulted", window="during")
    assert len(selection) == 1 and selection[0].labels["phase"] == "faulted"
    assert all(not math.isnan(v) for v in selection.values())


@needs_prometheus
def test_the_summary_draws_a_sparkline_per_query_and_phase(run):
    _, record, run_dir = run
    console = Console(record=True, width=200)
    print_summary(console, record, f"file://{run_dir}")
    text = console.export_text()
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("promql (Prometheus 2."))
    control, faulted = lines[header + 1], lines[header + 2]
    assert control.split()[:2] == ["wrong_ratio", "control"] and faulted.split()[0] == "faulted"
    picture = faulted.split()[1]
    before, during, after = picture.split("|")
    assert set(before) <= {BARS[0], "·"} and BARS[-1] in during + after
    assert faulted.split()[2:4] == ["min", "0"]
    assert control.endswith("min 0 max 0")


@needs_prometheus
def test_a_bad_query_is_an_error_entry(run, tmp_path):
    case, _, run_dir = run
    copy = Path(shutil.copytree(run_dir, tmp_path / "run"))
    (copy / layout.PROMQL).chmod(0o644)
    queries = [{"id": "broken", "query": "rate(faultlib_tiny_requests_total[5m]"}]
    broken = {**case.raw, "observability": {**case.raw["observability"], "promql": queries}}
    document = evaluate_run(Case.from_data(case.path, broken).promql, copy)
    assert {q["error"].split(":")[0] for q in document["queries"]} == {"bad_data"}
    assert all(q["series"] == [] for q in document["queries"])
    with pytest.raises(Exception, match="failed in Prometheus: bad_data"):
        load(copy).select("broken", phase="faulted", window="during").max()
    [problem] = failed_queries(document)  # once per query, not per phase and window: a run finding (error)
    assert problem.kind == "promql_failed" and problem.to_finding().severity.value == "error"
    assert "'broken' failed in Prometheus" in problem.message and "bad_data" in problem.message


@needs_prometheus
def test_a_query_that_fails_at_evaluation_turns_the_run_into_an_error(tmp_path):
    case = serving_case(tmp_path)
    raw = dict(case.raw)
    # parses (promtool and promql-parser accept it), fails only when evaluated: an invalid regex
    bad = {"id": "bad_regex", "query": 'label_replace(faultlib_tiny_requests_total, "x", "$1", "phase", "(")'}
    raw["observability"] = {**raw["observability"], "promql": [*QUERIES, bad]}
    record = Runner(FileArchive(tmp_path / "runs")).run(Case.from_data(case.path, raw), prometheus=True)
    assert record.verdict.value == "error", f"{record.verdict}; {record.findings}"
    [finding] = [f for f in record.findings if f.kind == "promql_failed"]
    assert "bad_regex" in finding.message and "(" in finding.message
    assert record.assertions["passed"] == ["wrong_only_during", "served"], "the suite still ran"


@needs_prometheus
def test_without_prometheus_the_promql_test_is_skipped_with_the_reason(tmp_path):
    case = serving_case(tmp_path)
    record = Runner(FileArchive(tmp_path / "runs")).run(case)
    assert record.verdict.value == "passed" and record.findings == []
    assert record.assertions["skipped"] == ["wrong_only_during"] and record.assertions["passed"] == ["served"]
    run_dir = Path(record.archive_uri.removeprefix("file://"))
    assert not (run_dir / layout.PROMQL).exists()
    junit = ET.parse(run_dir / layout.JUNIT).getroot()
    (skipped,) = [tc.find("skipped") for tc in junit.iter("testcase") if tc.find("skipped") is not None]
    assert "run with --prometheus" in skipped.get("message")
    console = Console(record=True, width=200)
    print_summary(console, record, record.archive_uri)
    assert "  skipped: no PromQL results in this run: run with --prometheus" in console.export_text(), \
        "the summary says why, and what to do"


@needs_prometheus
def test_a_promql_json_left_by_the_repro_is_moved_aside(tmp_path):
    case = serving_case(tmp_path, forge=True)
    record = Runner(FileArchive(tmp_path / "runs")).run(case, prometheus=True)
    moved = [f for f in record.findings if f.kind == "moved_aside"]
    assert len(moved) == 1 and moved[0].location["file"] == layout.PROMQL
    run_dir = Path(record.archive_uri.removeprefix("file://"))
    assert load(run_dir).prometheus.startswith("2."), "the runner's own results, not the forgery"
    assert record.assertions["passed"] == ["wrong_only_during", "served"]


def test_without_prometheus_installed_the_run_gets_a_finding_and_keeps_its_evidence(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no promtool, no prometheus
    case = serving_case(tmp_path)
    record = Runner(FileArchive(tmp_path / "runs")).run(case, prometheus=True)
    (finding,) = record.findings
    assert finding.kind == "prometheus_unavailable" and finding.location == {"file": layout.PROMQL}
    assert INSTALL_HINT in finding.message
    assert record.verdict.value == "error" and "PromQL not evaluated" in record.error
    assert record.assertions["skipped"] == ["wrong_only_during"] and record.assertions["passed"] == ["served"]
    run_dir = Path(record.archive_uri.removeprefix("file://"))
    assert verify(run_dir) == [] and (run_dir / layout.METRICS_OM).is_file()


def test_the_grid_ends_on_the_window_end_and_stays_inside():
    start, end, step = grid(100.0004, 100.1406)
    assert end == 100.141 and step == 0.005 and start >= 100.0004
    assert round((end - start) / step) + 1 == 29
    assert grid(5.0, 5.004) == (5.0, 5.004, 0.001)
    assert grid(5.0, 5.0)[2] == 0.001


def test_a_sparkline_scales_between_low_and_high():
    assert sparkline([0.0, 0.5, 1.0], 0.0, 1.0) == BARS[0] + BARS[4] + BARS[-1]
    assert sparkline([math.nan, math.inf, -math.inf], 0.0, 1.0) == "·" + BARS[-1] + BARS[0]
    assert sparkline([3.0] * 40, 3.0, 3.0, width=10) == BARS[0] * 10
    assert sparkline([0.0] * 20 + [1.0], 0.0, 1.0, width=4) == BARS[0] * 3 + BARS[-1]


@needs_prometheus
def test_without_the_control_reading_its_promql_skips_and_the_faulted_windows_remain(tmp_path):
    case = serving_case(tmp_path)
    record = Runner(FileArchive(tmp_path / "runs")).run(case, control=False, prometheus=True)
    assert record.verdict.value == "passed" and record.findings == []
    assert record.assertions["skipped"] == ["wrong_only_during"]
    results = load(Path(record.archive_uri.removeprefix("file://")))
    assert results.windows("control") == [] and results.windows("faulted") == ["before", "during", "after", "run"]


@needs_prometheus
def test_regress_workers_pass_prometheus_through(tmp_path):
    import io

    from faultlib.regress.worker import EventWriter, run_case

    case = serving_case(tmp_path)
    out = run_case({"case_dir": str(case.path), "archive": f"file://{tmp_path / 'runs'}", "prometheus": True},
                   EventWriter(io.StringIO()))
    assert out["error"] is None and out["record"]["verdict"] == "passed"
    assert load(Path(out["run_dir"])).select("wrong_ratio", phase="faulted", window="during").max() > 0


def test_run_and_regress_offer_the_flag():
    from click.testing import CliRunner

    from faultlib.cli.app import app

    for command in ("run", "regress"):
        result = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
        assert result.exit_code == 0 and "--prometheus" in result.output, command


@needs_prometheus
def test_the_regress_report_draws_each_query_over_its_windows(run, tmp_path):
    from faultlib.regress import report
    from faultlib.regress.results import CaseResult, CaseVerdict, RegressResult
    from faultlib.regress.series import report_data

    case, record, run_dir = run
    data = report_data(case, run_dir)
    assert [c.title.split(":")[0] for c in data.promql] == [q["id"] for q in QUERIES]
    ratio = data.promql[0]
    start, end = ratio.window
    assert 0 < start < end
    faulted = [point for segment in ratio.faulted for point in segment]
    assert all(y == 0 for x, y in faulted if x < start) and any(y > 0 for x, y in faulted if start <= x)
    assert [y for segment in ratio.control for _, y in segment] and \
        all(y == 0 for segment in ratio.control for _, y in segment)
    # each phase is drawn from its own start: both lines lie in the first seconds
    assert max(x for segment in ratio.faulted + ratio.control for x, _ in segment) < 30

    html = report.render(RegressResult(shard="0/1", selected=1, cases=[
        CaseResult(case.id, CaseVerdict.PASSED, run_id=record.run_id, archive_uri=record.archive_uri,
                   report=data.to_json())]))
    section = html.split("<h3>PromQL, evaluated by Prometheus", 1)[1].split("</div>", 1)[0]
    assert section.count("<svg") == len(QUERIES) and section.count('class="fault-window"') == len(QUERIES)
    assert "wrong_ratio: sum by (phase)" in section


def test_a_report_of_a_run_without_prometheus_says_so(tmp_path):
    from faultlib.regress.series import report_data

    case = serving_case(tmp_path)
    record = Runner(FileArchive(tmp_path / "runs")).run(case, prometheus=False)
    data = report_data(case, Path(record.archive_uri.removeprefix("file://")))
    assert data.promql == [] and "without --prometheus" in data.promql_note


@needs_prometheus
def test_a_prometheus_error_quoting_terminal_escapes_is_printed_escaped(run, tmp_path):
    _, record, run_dir = run
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    document = json.loads((copy / layout.PROMQL).read_text())
    first = document["queries"][0]
    first.update(series=[], error='invalid regular expression in label_replace(): "(\x1b]0;pwned\x07\x1b[31m"')
    (copy / layout.PROMQL).write_text(json.dumps(document))
    console = Console(record=True, width=200, force_terminal=True)
    print_summary(console, record, f"file://{copy}")
    text = console.export_text(styles=False)
    assert "\x1b]0;pwned" not in text and "\x07" not in text
    assert "\\x1b]0;pwned\\x07" in text


@pytest.mark.parametrize("command", [["run", "cases/serving_case"], ["regress", "cases"]])
def test_asking_for_prometheus_where_it_is_missing_exits_3_before_anything_runs(tmp_path, command):
    import os
    import subprocess
    import sys

    serving_case(tmp_path)
    env = {**os.environ, "PATH": os.path.dirname(sys.executable)}  # no promtool, no prometheus
    proc = subprocess.run([sys.executable, "-m", "faultlib", *command, "--prometheus"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "apt-get install" in proc.stderr and "nothing was run" in proc.stderr
    assert not (tmp_path / ".faultlib" / "runs").exists() or not any((tmp_path / ".faultlib" / "runs").iterdir())


@needs_prometheus
def test_a_server_that_dies_mid_evaluation_leaves_its_log_and_skips_say_why(run, tmp_path, monkeypatch):
    """Prometheus killed while it evaluates (as a query that takes it down does): its own log stays in the
    run directory, and a PromQL assertion is skipped for that reason, not told to "run with --prometheus"."""
    import os
    import signal

    from faultlib.errors import PromqlNotRecorded
    from faultlib.observability import evaluate
    from faultlib.observability.prometheus import PrometheusServer

    case, _, run_dir = run
    copy = Path(shutil.copytree(run_dir, tmp_path / "run"))
    (copy / layout.PROMQL).unlink()
    real = PrometheusServer.query_range

    def killed_first(self, *args, **kwargs):
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(PrometheusServer, "query_range", killed_first)
    [problem] = evaluate.record_promql(case.promql, copy, evaluate=True)
    assert problem.kind == "prometheus_unavailable"
    log = (copy / layout.PROMETHEUS_LOG).read_text()
    assert "Server is ready to receive web requests" in log or "level=info" in log
    with pytest.raises(PromqlNotRecorded, match="Prometheus failed") as skipped:
        load(copy)
    assert "--prometheus (faultlib run" not in str(skipped.value)


def test_a_repro_cannot_forge_the_prometheus_log(tmp_path):
    from faultlib.observability import evaluate

    (tmp_path / layout.PROMETHEUS_LOG).write_text("forged by the repro")
    [problem] = evaluate.record_promql((), tmp_path, evaluate=False)
    assert problem.kind == "moved_aside" and not (tmp_path / layout.PROMETHEUS_LOG).exists()
