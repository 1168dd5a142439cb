"""Which series the report draws, from a real run of a tiny torch-free case with a fault window: the series
the fault moves and latencies (as a rolling P99) are drawn, categories and flat series are not, the window
and the fault event come from the evidence, a step without a value breaks the line."""

from __future__ import annotations

import math

import pytest

from faultlib.archive import FileArchive
from faultlib.cases import load_case
from faultlib.regress.digest import DigestingArchive
from faultlib.regress.series import MAX_CHARTS, ReportData
from faultlib.runner import Runner
from tests.conftest import tiny_case_data, write_case

WINDOWED_REPRO = '''
from faultlib import repro


class Service:
    class_names = ["zero", "one", "two"]


with repro.context() as ctx:
    service = Service()
    ctx.attach(service)
    latency = ctx.evidence.histogram("faultlib_tiny_latency_ms", "request latency")
    for step in range(30):
        with ctx.step(step, total=30, name="serve.request") as span:
            healthy = service.class_names == ["zero", "one", "two"]
            ms = 5.0 + step % 3 + (0.0 if healthy else 200.0)
            latency.record(ms)
            attrs = {"accuracy": 0.97 if healthy else 0.1, "request_id": step * 7, "latency_ms": ms,
                     "constant": 1.0, "stable_ratio": 0.5 + 0.01 * (step % 2)}
            if step % 5:
                attrs["proba"] = 0.5 + step / 100
            span.set(**attrs)
    ctx.summary(served=30, accuracy=0.7)
'''


@pytest.fixture(scope="module")
def windowed_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("series")
    data = tiny_case_data("windowed_case")
    data["inject"]["local"] = [{"shim": "label_order", "params": {"order": "reversed", "start_step": 10, "steps": 10}}]
    data["observability"]["metrics"] = ["faultlib_tiny_steps_total", "faultlib_tiny_latency_ms"]
    data["observability"]["spans"] = ["serve.request"]
    data["repro"]["params"] = {}
    data["assertions"] = [{"id": "served", "when": "continuous", "test": "test_served", "description": "d"}]
    test = "def test_served(evidence):\n    assert len(evidence.faulted.steps('serve.request')) == 30\n"
    case = load_case(write_case(root / "cases", data, repro=WINDOWED_REPRO, test=test))
    archive = DigestingArchive(FileArchive(root / "runs"), case, report=True)
    record = Runner(archive).run(case)
    assert record.verdict.value == "passed", record.error
    return case, archive


def test_the_series_the_fault_moves_are_drawn_with_the_window(windowed_run):
    _, archive = windowed_run
    data = ReportData.from_json(archive.report)
    titles = [c.title for c in data.charts]
    assert len(titles) <= MAX_CHARTS
    assert titles[0] in ("accuracy per request (serve.request)", "latency_ms (rolling P99) per request (serve.request)")
    assert "accuracy per request (serve.request)" in titles
    assert "latency_ms (rolling P99) per request (serve.request)" in titles
    assert not [t for t in titles if t.startswith(("request_id", "constant"))], "categories and flat series are not"
    for chart in data.charts:
        assert chart.window == [10.0, 19.0] and chart.x_label == "request"
        assert chart.markers == [[10.0, "label_order"]], "the fault event from the faultlib.fault span"
    accuracy = next(c for c in data.charts if c.title.startswith("accuracy"))
    during = [y for line in accuracy.faulted for x, y in line if 10 <= x <= 19]
    assert during and all(math.isclose(y, 0.1) for y in during)
    assert all(math.isclose(y, 0.97) for line in accuracy.control for _, y in line)


def test_a_step_without_a_value_breaks_the_line(windowed_run):
    from faultlib.evidence.reader import read_run
    from faultlib.regress import series

    _, archive = windowed_run
    spans = series._step_spans(read_run(archive.run_dir).faulted)["serve.request"]
    lines, nonfinite = series._segments(series._candidates(spans)["proba"])
    assert len(lines) == 6 and not nonfinite, "steps 0, 5, 10 ... have no proba: the line breaks there"
    assert [line[0][0] for line in lines] == [1.0, 6.0, 11.0, 16.0, 21.0, 26.0]


def test_metrics_are_tabled_per_window_and_findings_summaries_per_phase(windowed_run):
    _, archive = windowed_run
    data = ReportData.from_json(archive.report)
    (row,) = data.metrics
    assert row.metric == "faultlib_tiny_latency_ms" and row.kind == "histogram"
    assert row.values["during"] > 200 > row.values["before"] and row.values["after"] < 10, "histogram means"
    assert row.values["control"] < 10
    assert data.summary["control"] == {"served": 30, "accuracy": 0.7} == data.summary["faulted"]
    assert data.problems == 0 and data.finding_counts["control"] == {}
