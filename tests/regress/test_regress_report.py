"""The HTML report: one self-contained file (no script, nothing fetched), one section per case, charts as
inline SVG with the fault window, evidence links, every user string escaped; it renders in a real browser."""

from __future__ import annotations

import math
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from faultlib.regress import report
from faultlib.regress.results import AssertionResult, AssertionStatus, CaseResult, CaseVerdict, RegressResult
from faultlib.regress.series import Chart, FindingLine, MetricRow, ReportData
from faultlib.regress.svg import render as render_chart

HOSTILE = '<script>alert("x")</script><img src=https://evil.example/x.png onerror=alert(1)>'
TERMINAL = "\x1b[31mred\x1b]0;pwned\x07"  # an ANSI colour and a window-title sequence
CHROMIUM = Path("/usr/bin/chromium")


class Page(HTMLParser):
    """Collects what the checks need: tags with attributes, text, sections."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.sections: list[dict] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "section":
            self.sections.append({**attrs, "svg": 0, "h2": ""})
        if tag == "svg" and self.sections:
            self.sections[-1]["svg"] += 1
        self.stack.append(tag)

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)
        if self.sections and "h2" in self.stack:
            self.sections[-1]["h2"] += data


def _chart(**kw) -> Chart:
    steps = range(40)
    fields = dict(title=f"loss_scale per step {HOSTILE}", x_label="step", y_label="loss_scale",
                  control=[[[s, 65536.0] for s in steps]],
                  faulted=[[[s, 65536.0 / 2 ** min(s, 12) if 10 <= s < 20 else 65536.0] for s in steps]],
                  nonfinite={"control": [], "faulted": [12.0, 13.0]}, window=[10.0, 19.0],
                  markers=[[10.0, f"activation_scale {HOSTILE}"]], log_y=True, note="")
    fields.update(kw)
    return Chart(**fields)


def _data() -> ReportData:
    return ReportData(
        charts=[_chart(), _chart(title="latency_ms (rolling P99)", log_y=False, window=None, markers=[],
                                 control=[[[0, 1.0], [1, 2.0]], [[0, 1.5], [1, 2.5]]], note="rolling P99")],
        metrics=[MetricRow("faultlib_loss_scale", f"labels={HOSTILE}", "gauge",
                           {"control": 65536.0, "before": 65536.0, "during": 16.0, "after": 32768.0})],
        findings=[FindingLine("faulted", "overflow_sentinel", "error", "overflow", f"overflow {HOSTILE}", 10)],
        promql=[_chart(title=f"q: label_replace(x, {TERMINAL})", note=f"Prometheus error: {TERMINAL}",
                       x_continuous=True, window=[0.5, 1.5], markers=[])],
        finding_counts={"control": {}, "faulted": {"error": 8}},
        summary={"control": {"accuracy": 0.97, HOSTILE: "x"}, "faulted": {"accuracy": 0.95}})


def _result(tmp_path: Path) -> RegressResult:
    run_dir = tmp_path / "runs" / "fp_case" / "20261130T000000Z-abcdef"
    run_dir.mkdir(parents=True)
    return RegressResult(shard="0/1", selected=3, cases=[
        CaseResult("fp_case", CaseVerdict.PASSED, title=f"fp16 {HOSTILE}", fault_class="numerics.fp16_overflow",
                   run_id="20261130T000000Z-abcdef", archive_uri=f"file://{run_dir}", duration_s=12.0,
                   report=_data().to_json(),
                   assertions=[AssertionResult("scale_resets", AssertionStatus.PASSED, "during", HOSTILE)]),
        CaseResult("s3_case", CaseVerdict.FAILED, run_id="r2", archive_uri="s3://bucket/prefix/s3_case/r2",
                   error=f"assertion(s) failed: {HOSTILE}", report={"error": f"could not be summarised {HOSTILE}"},
                   assertions=[AssertionResult("a", AssertionStatus.FAILED, message=HOSTILE, detail=HOSTILE)]),
        CaseResult(HOSTILE, CaseVerdict.INVALID, error=f"invalid case: {HOSTILE}",
                   assertions=[AssertionResult("case", AssertionStatus.FAILED, message=HOSTILE)]),
    ])


def _parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def test_one_section_per_case_with_verdict_charts_and_evidence(tmp_path):
    result = _result(tmp_path)
    path = report.write(tmp_path / "out" / "report.html", result)
    page = _parse(path.read_text(encoding="utf-8"))
    assert [(s["data-case-id"], s["data-verdict"]) for s in page.sections] == [
        ("fp_case", "passed"), ("s3_case", "failed"), (HOSTILE, "invalid")]
    assert page.sections[0]["svg"] == 3 and page.sections[1]["svg"] == 0  # 2 key series, 1 PromQL query
    assert all(s["h2"].strip().startswith(s["data-verdict"]) for s in page.sections)
    windows = [a for t, a in page.tags if t == "rect" and a.get("class") == "fault-window"]
    assert len(windows) == 2, "the fault window is shaded where the chart has one"
    events = [a for t, a in page.tags if t == "line" and a.get("class") == "fault-event"]
    assert len(events) == 1
    links = [a for t, a in page.tags if t == "a" and a.get("class") == "evidence"]
    assert [link["href"] for link in links] == ["../runs/fp_case/20261130T000000Z-abcdef/"], \
        "a file:// run is linked relative to the report"
    assert (path.parent / links[0]["href"]).resolve() == Path(result.cases[0].archive_uri[7:]).resolve()
    text = " ".join(page.text)
    assert "faultlib archive get s3://bucket/prefix s3_case r2" in text, "an s3:// run says how to fetch it"
    assert "could not be summarised" in text


def test_self_contained_and_escaped(tmp_path):
    html = report.render(_result(tmp_path), report_dir=tmp_path)
    page = _parse(html)
    tags = {t for t, _ in page.tags}
    assert "script" not in tags and "img" not in tags and "iframe" not in tags and "link" not in tags
    for tag, attrs in page.tags:
        assert not any(k.startswith("on") for k in attrs), f"event handler attribute on <{tag}>"
        for key in ("src", "href", "xlink:href", "action", "srcset", "data"):
            value = (attrs.get(key) or "").strip().lower()
            if tag == "a" and attrs.get("class") == "evidence":
                continue
            assert not value.startswith(("http:", "https:", "//", "javascript:", "data:")), f"{tag}; {key}; {value}"
    assert "url(" not in html and "@import" not in html, "no stylesheet fetches anything"
    assert HOSTILE in " ".join(page.text), "hostile strings show as text"
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert not any(ord(c) < 0x20 and c not in "\n\t" for c in html), "no control character reaches the page"
    assert "\\x1b]0;pwned\\x07" in html, "shown escaped"


def test_report_of_a_result_without_digests_still_lists_every_assertion(tmp_path):
    result = RegressResult(cases=[CaseResult("x_case", CaseVerdict.ERROR, error="faulted phase timed out",
                                             assertions=[AssertionResult(i, AssertionStatus.ERROR, message="timed out")
                                                         for i in ("a", "b")])])
    page = _parse(report.render(result))
    assert [a.get("class") for t, a in page.tags if t == "tr" and a.get("class") == "assertion"] == ["assertion"] * 2
    assert "faulted phase timed out" in " ".join(page.text)


def test_svg_handles_log_axes_non_finite_marks_and_flat_series():
    svg = render_chart(_chart())
    assert svg.startswith("<svg ") and svg.endswith("</svg>") and "(log)" in svg
    assert svg.count("&#215;") == 2, "two non-finite values marked"
    flat = render_chart(_chart(control=[[[0, 1.0]]], faulted=[], window=None, markers=[], log_y=False,
                               nonfinite={}))
    assert "<circle" in flat and "nan" not in flat.lower()
    for value in re_numbers(svg):
        assert math.isfinite(value)


def re_numbers(svg: str) -> list[float]:
    import re

    return [float(m) for m in re.findall(r'(?:x|y|x1|x2|y1|y2|cx|cy|width|height)="(-?[\d.]+)"', svg)]


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no headless browser at {CHROMIUM} (apt-get install chromium)")
def test_renders_in_headless_chromium(tmp_path):
    pil = pytest.importorskip("PIL.Image", reason="Pillow is needed to read the screenshot")
    path = report.write(tmp_path / "report.html", _result(tmp_path))
    shot = tmp_path / "shot.png"
    subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,1400", f"--screenshot={shot}",
                    path.as_uri()], capture_output=True, timeout=120, check=False)
    assert shot.is_file() and shot.stat().st_size > 10_000
    image = pil.open(shot).convert("RGB")
    colors = {rgb for _, rgb in image.getcolors(maxcolors=1 << 24)}
    near = lambda rgb: any(sum(abs(a - b) for a, b in zip(rgb, c)) < 40 for c in colors)
    assert near((0xd6, 0x27, 0x28)), "the faulted series is drawn"
    assert near((0x2e, 0x7d, 0x32)), "the passed badge is drawn"


def _why_result() -> RegressResult:
    reason = "needs CUDA (requires.devices: cuda); this machine has none: " + "word " * 30
    latency = AssertionResult("mitigation_restores_latency", AssertionStatus.FAILED, "after", "P99 back under 50 ms",
                              message="AssertionError: assert 167.97 < 50\n +  where 167.97 = p99(...)",
                              test="test_mitigation_keeps_health_fast")
    return RegressResult(shard="0/1", selected=3, cases=[
        CaseResult("event_loop_blocking", CaseVerdict.FAILED, run_id="r1", duration_s=61.5,
                   archive_uri="file:///somewhere/runs/event_loop_blocking/r1",
                   error="assertion(s) failed: mitigation_restores_latency",
                   assertions=[AssertionResult("p99_spikes", AssertionStatus.PASSED, test="test_p99_spikes"), latency]),
        CaseResult("gpu_memory_fragmentation", CaseVerdict.SKIPPED, error=reason,
                   assertions=[AssertionResult(i, AssertionStatus.SKIPPED, message=reason, test=f"test_{i}")
                               for i in ("retries_rise", "throughput_drops", "mitigation_holds")]),
        CaseResult("fp16_overflow", CaseVerdict.PASSED, duration_s=12.0,
                   assertions=[AssertionResult("scale_resets", AssertionStatus.PASSED, test="test_scale_resets")]),
    ])


def test_the_report_says_why_with_each_failed_assertion_and_its_test_and_a_skip_is_not_red():
    html = report.render(_why_result())
    page = _parse(html)
    text = " ".join(page.text)
    assert "mitigation_restores_latency" in text and "test_case.py::test_mitigation_keeps_health_fast" in text
    assert ": AssertionError: assert 167.97 < 50" in text and "where 167.97" not in text.split("Assertions")[0]
    whys = [a["class"] for t, a in page.tags if t == "div" and "why" in (a.get("class") or "")]
    assert whys == ["why why-failed", "why why-skipped"], "a skipped case's reason is grey, a failure's red"
    assert "class=error" not in html and 'class="error"' not in html, "no block takes the red badge colour"
    assert text.count("needs CUDA (requires.devices: cuda)") == 1, "the skip reason is said once, not per row"
    assert "<th>test</th>" in html


def test_the_regress_summary_fits_80_columns_with_reasons_on_their_own_lines():
    import io

    from rich.console import Console

    from faultlib.cli.regress import print_summary

    out = io.StringIO()
    print_summary(Console(file=out, width=80, color_system=None), _why_result(), ["junit: out/junit.xml"])
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= 80, "\n".join(lines)
    header = next(line for line in lines if "verdict" in line)
    assert [w for w in header.split() if w.isalnum() or w == "(s)"] == [
        "case", "verdict", "time", "(s)", "passed", "failed", "skipped"]
    assert any(line.split()[:3] == ["gpu_memory_fragmentation", "│", "skipped"] for line in lines)
    at = lines.index("  mitigation_restores_latency (test_case.py::test_mitigation_keeps_health_fast)")
    assert lines[at + 1] == "    AssertionError: assert 167.97 < 50"
    assert "event_loop_blocking: failed: assertion(s) failed: mitigation_restores_latency" in lines
    assert "  evidence: file:///somewhere/runs/event_loop_blocking/r1" in lines
    assert not any("fp16_overflow:" in line for line in lines), "a passed case needs no reason"


def test_control_vs_faulted_is_a_table_of_the_cases_promql_and_a_whole_run_window_is_said_not_shaded():
    from faultlib.evidence.promql import from_json
    from faultlib.regress.series import promql_rows

    def entry(phase, window, values, error=None):
        return {"id": "p99", "query": "histogram_quantile(0.99, x)", "phase": phase, "window": window, "start": 0.0,
                "end": 1.0, "step": 0.5, "error": error,
                "series": [] if error else [{"labels": {"phase": phase}, "values": [[t, v] for t, v in values],
                                                "phase_label": True}]}

    results = from_json({"prometheus": "2.42.0", "queries": [
        entry("control", "run", [(0, 10.0), (1, 14.0)]), entry("control", "during", [(0, 999.0)]),
        entry("faulted", "before", [(0, 11.0)]), entry("faulted", "during", [(0, 160.0), (1, 170.0), (2, "NaN")]),
        entry("faulted", "after", [(0, 12.0)])]})
    [row] = promql_rows(results)
    assert (row["control"], row["before"], row["during"], row["after"]) == (12.0, 11.0, 165.0, 12.0)
    whole = _chart(window=[0.0, 39.0])  # the fault covers every step of the faulted run
    data = ReportData(charts=[whole, _chart()], promql_rows=[row], summary={
        "control": {f"value_{i}": i for i in range(40)}, "faulted": {"accuracy": 0.5}},
        metrics=[MetricRow("m", "", "gauge", {"control": 1.0, "during": 2.0, "none": 3.0})])
    html = report.render(RegressResult(cases=[CaseResult("c", CaseVerdict.PASSED, report=data.to_json())]))
    page = _parse(html)
    promql = html[html.index("<table class=promql-table>"):]
    promql = promql[:promql.index("</table>")]
    assert "faulted: before" in promql and ">165<" in promql and ">12<" in promql and ">11<" in promql
    assert "summary: " not in html and "the repro's summary values (41)" in html, "summary values folded"
    windows = [a for t, a in page.tags if t == "rect" and a.get("class") == "fault-window"]
    assert len(windows) == 1, "only the chart with a before/after is shaded"
    assert "the fault is active for the whole run" in " ".join(page.text)
    assert "faulted: none" not in html and "faulted: outside the fault windows" in html
