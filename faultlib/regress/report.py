"""The HTML report of a regression: one self-contained file, one section per case.

Self-contained means it fetches nothing: no stylesheet, font, script or image from anywhere;
charts are inline SVG (:mod:`faultlib.regress.svg`). The only links are to the archived evidence:
a ``file://`` run as a path relative to the report (it opens when the report sits beside the
archive, as in a CI artifact), an ``s3://`` run as text with the ``faultlib archive get`` command
that fetches it. Every string that comes from a case, a repro or a run (titles, ids, messages,
attribute names, summary values) is HTML-escaped; the document holds no script.

Each section gives the verdict, what went wrong, the control run against the faulted run (phase
status, findings by severity, the repro's summary values), the key series over steps with the
fault window shaded, each PromQL query's series as Prometheus evaluated it (runs made with
``--prometheus``), the metrics per fault window, every assertion with its message, and where
the evidence is.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from faultlib.outputs import OutputFile, output_file
from faultlib.regress.results import CaseResult, RegressResult
from faultlib.regress.series import ReportData
from faultlib.regress.svg import render as render_chart
from faultlib.text import first_line, printable

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;
padding:16px 24px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin:0 0 4px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:4px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f6f6f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
section.case{border:1px solid #ccc;border-radius:6px;padding:12px 16px;margin:18px 0}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;font-weight:600;
text-transform:uppercase}.passed{background:#2e7d32}.failed,.invalid,.error,.interrupted{background:#c62828}
.skipped{background:#757575}.unavailable,.not_run{background:#ef6c00}
pre{background:#f7f7f7;padding:8px;overflow:auto;max-height:320px;white-space:pre-wrap;word-break:break-word}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:6px 0}dl.meta dt{color:#666}
dl.meta dd{margin:0;word-break:break-all}figure{margin:8px 0}figure svg{width:100%;max-width:640px;height:auto}
figcaption{color:#555;font-size:12px}.status-passed{color:#2e7d32}.status-failed,.status-error{color:#c62828}
.status-skipped{color:#757575}.muted{color:#777}
.promql-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:8px}
.promql-grid figure svg{max-width:520px}
.why{border-left:4px solid #c62828;padding:2px 10px;margin:8px 0}.why.why-skipped{border-left-color:#757575}
.why ul{margin:4px 0;padding-left:18px}
"""


def _e(value: Any) -> str:
    """``value`` as HTML text: control characters escaped (:func:`faultlib.text.printable`), then markup."""
    return escape(printable("" if value is None else str(value)), quote=True)


def _num(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _e(value)
    return _e(f"{value:.6g}")


def evidence_link(case: CaseResult, report_dir: Path | None) -> str:
    """HTML pointing at the run's evidence (see the module docstring).

    Args:
        case: the case's result (``archive_uri``, ``run_id``, ``run_dir``).
        report_dir: the report's directory: a ``file://`` run is linked relative to it (None: absolute path).

    Returns:
        An ``<a class="evidence">`` for a ``file://`` run, the URI and the ``faultlib archive get`` command
        for another scheme, a muted "no run" when the case did not run. Escaped.
    """
    uri = case.archive_uri or ""
    if uri.startswith("file://"):
        target = Path(uri.removeprefix("file://"))
        if report_dir is not None:
            target = Path(os.path.relpath(target.resolve(), report_dir.resolve()))
        href = str(target)
        href = quote(href if href.startswith(("/", "../")) else f"./{href}", safe="/._-~")
        return f'<a class="evidence" href="{_e(href)}/">{_e(uri)}</a>'
    if uri:
        suffix = f"/{case.id}/{case.run_id}"
        fetch = (f"faultlib archive get {uri[: -len(suffix)]} {case.id} {case.run_id}"
                 if case.run_id and uri.endswith(suffix) else "")
        text = f"<code>{_e(uri)}</code>"
        return text + (f' <span class="muted">(fetch it: <code>{_e(fetch)}</code>)</span>' if fetch else "")
    if case.run_dir:
        return f"<code>{_e(case.run_dir)}</code>"
    return '<span class="muted">no run</span>'


def _phases(case: CaseResult, data: ReportData | None) -> str:
    record = case.record
    if record is None and data is None:
        return ""
    rows = []
    if record is not None:
        cells = {"status": [], "exit code": [], "duration (s)": [], "attempts": []}
        for name in ("control", "faulted"):
            phase = getattr(record, name)
            cells["status"].append(_e(phase.status.value))
            cells["exit code"].append("-" if phase.exit_code is None else _e(phase.exit_code))
            cells["duration (s)"].append(_e(f"{phase.duration_s:.1f}"))
            cells["attempts"].append(_e(len(phase.attempts)))
        rows += [f"<tr><th>{_e(k)}</th><td>{v[0]}</td><td>{v[1]}</td></tr>" for k, v in cells.items()]
    if data is not None:
        def counts(phase: str) -> str:
            found = data.finding_counts.get(phase) or {}
            return _e(", ".join(f"{n} {s}" for s, n in sorted(found.items())) or "none")

        rows.append(f"<tr><th>findings</th><td>{counts('control')}</td><td>{counts('faulted')}</td></tr>")
    table = ("<h3>Control vs faulted</h3><table class=phases><tr><th></th><th>control</th><th>faulted</th></tr>"
             + "".join(rows) + "</table>")
    return table + (_promql_table(data) + _summary(data) if data is not None else "")


def _promql_table(data: ReportData) -> str:
    """The case's PromQL queries, control vs the faulted run's before/during/after windows (mean of each
    window's values, as Prometheus evaluated them: runs made with ``--prometheus``)."""
    if not data.promql_rows:
        return ""
    head = ("<tr><th>query</th><th>control</th><th>faulted: before</th><th>faulted: during</th>"
            "<th>faulted: after</th></tr>")
    body = "".join(
        f"<tr><td><code>{_e(r.get('id'))}</code> <span class=muted>{_e(r.get('query'))}</span>"
        + (f"<br><span class=status-error>Prometheus error: {_e(r['error'])}</span>" if r.get("error") else "")
        + "</td>" + "".join(f"<td class=num>{'-' if r.get(c) is None else _num(r.get(c))}</td>"
                            for c in ("control", "before", "during", "after")) + "</tr>"
        for r in data.promql_rows)
    return ("<table class=promql-table><caption class=muted>the case's PromQL queries: mean over each window"
            f"</caption>{head}{body}</table>")


def _summary(data: ReportData) -> str:
    """The repro's own summary values (``ctx.summary``), control vs faulted, folded: they can be many."""
    control, faulted = data.summary.get("control") or {}, data.summary.get("faulted") or {}
    keys = sorted(set(control) | set(faulted))
    if not keys:
        return ""
    rows = "".join(f"<tr><th>{_e(key)}</th><td class=num>{_num(control.get(key, ''))}</td>"
                   f"<td class=num>{_num(faulted.get(key, ''))}</td></tr>" for key in keys)
    return (f"<details class=summary><summary>the repro's summary values ({len(keys)})</summary>"
            f"<table><tr><th></th><th>control</th><th>faulted</th></tr>{rows}</table></details>")


def _whole_run(chart) -> bool:
    """The chart's fault window spans every point of the faulted run (nothing before or after it)."""
    xs = [x for seg in chart.faulted for x, _ in seg]
    return bool(chart.window and xs) and chart.window[0] <= min(xs) and chart.window[1] >= max(xs)


def _framed(chart, caption: str, window_text: str) -> tuple[Any, str]:
    """The chart to draw and its caption: a fault window covering the whole run is said, not shaded."""
    from dataclasses import replace

    if _whole_run(chart):
        return replace(chart, window=None), caption + "; the fault is active for the whole run (no window before or " \
                                                      "after it to compare with: compare with the control)"
    if chart.window:
        caption += window_text
    return chart, caption


def _findings(data: ReportData) -> str:
    if not data.findings:
        return ""
    items = "".join(f"<tr><td>{_e(f.phase)}</td><td>{_e(f.severity)}</td><td>{_e(f.detector)}</td>"
                    f"<td>{_e(f.kind)}</td><td>{_e('' if f.step is None else f.step)}</td><td>{_e(f.message)}</td></tr>"
                    for f in data.findings)
    return ("<h3>Findings</h3><table class=findings><tr><th>phase</th><th>severity</th><th>detector</th>"
            f"<th>kind</th><th>step</th><th>message</th></tr>{items}</table>")


def _charts(data: ReportData) -> str:
    if not data.charts:
        return "<h3>Key series</h3><p class=muted>" + _e("; ".join(data.notes) or "no series") + "</p>"
    figures = []
    for chart in data.charts:
        caption = chart.title + (f"; {chart.note}" if chart.note else "")
        chart, caption = _framed(chart, caption, f"; fault window shaded ({chart.x_label} {chart.window[0]:g} to "
                                                 f"{chart.window[1]:g})" if chart.window else "")
        bad = sum(len(v) for v in chart.nonfinite.values())
        if bad:
            caption += f"; {bad} non-finite value(s) marked x at the top"
        figures.append(f"<figure>{render_chart(chart)}<figcaption>{_e(caption)}</figcaption></figure>")
    return "<h3>Key series</h3>" + "".join(figures)


def _promql(data: ReportData) -> str:
    if not data.promql:
        return f"<h3>PromQL</h3><p class=muted>{_e(data.promql_note)}</p>" if data.promql_note else ""
    figures = []
    for chart in data.promql:
        caption = chart.title + (f"; {chart.note}" if chart.note else "")
        chart, caption = _framed(chart, caption, f"; faulted run's fault window shaded ({chart.window[0]:g} s to "
                                                 f"{chart.window[1]:g} s)" if chart.window else "")
        figures.append(f"<figure class=promql>{render_chart(chart)}<figcaption>{_e(caption)}</figcaption></figure>")
    return ("<h3>PromQL, evaluated by Prometheus over the run's metrics.om</h3>"
            "<div class=promql-grid>" + "".join(figures) + "</div>")


def _metrics(data: ReportData) -> str:
    if not data.metrics:
        return ""
    columns = ["control", "before", "during", "after"]
    if any(row.values.get("none") is not None for row in data.metrics):
        columns.append("none")
    names = {"control": "control", "before": "faulted: before", "during": "faulted: during",
             "after": "faulted: after", "none": "faulted: outside the fault windows"}
    tips = {"none": ' title="values the faulted run recorded with no before/during/after window: at its start or '
                    'end, or in a repro that marks no fault window"'}
    head = "".join(f"<th{tips.get(c, '')}>{names[c]}</th>" for c in columns)
    body = "".join(f"<tr><td>{_e(r.metric)}</td><td>{_e(r.labels)}</td><td>{_e(r.kind)}</td>"
                   + "".join(f"<td class=num>{_num(r.values.get(c, ''))}</td>" for c in columns) + "</tr>"
                   for r in data.metrics)
    return (f"<h3>Metrics by fault window</h3><table class=metrics><tr><th>metric</th><th>labels</th><th>kind</th>"
            f"{head}</tr>{body}</table>")


def _assertions(case: CaseResult) -> str:
    """One row per assertion: its id, the test function of test_case.py that checks it, when, status,
    description and message. A message that only repeats the case's reason (shown once above the table:
    a skipped or errored case) is left out of the rows."""
    rows = []
    said = case.error or ""
    for a in case.assertions:
        detail = f"<details><summary>details</summary><pre>{_e(a.detail)}</pre></details>" if a.detail else ""
        message = "" if said and a.message in (said, f"skipped: {said}") else a.message
        test = f"<code>test_case.py::{_e(a.test)}</code>" if a.test else ""
        rows.append(f"<tr class=assertion><td>{_e(a.id)}</td><td>{test}</td><td>{_e(a.when)}</td>"
                    f"<td class=status-{_e(a.status.value)}>{_e(a.status.value)}</td><td>{_e(a.description)}</td>"
                    f"<td>{_e(message)}{detail}</td></tr>")
    return ("<h3>Assertions</h3><table class=assertions><tr><th>id</th><th>test</th><th>when</th><th>status</th>"
            f"<th>description</th><th>message</th></tr>{''.join(rows)}</table>")


def _why(case: CaseResult) -> str:
    """Why the case did not pass: its reason once, then each failed assertion (id, test, first message line).
    Red for a failure; grey for a skipped case (nothing is wrong with it)."""
    failures = case.failures()
    if not case.error and not failures:
        return ""
    tone = "why-skipped" if case.verdict.value == "skipped" else "why-failed"
    items = "".join(f"<li><strong>{_e(f['id'])}</strong>" + (f" (<code>test_case.py::{_e(f['test'])}</code>)"
                                                             if f["test"] else "") + f": {_e(f['message'])}</li>"
                    for f in failures if f["message"] != first_line(case.error))
    reason = f"<pre>{_e(case.error)}</pre>" if case.error else ""
    return f"<div class=\"why {tone}\"><strong>why:</strong>{reason}" + (f"<ul>{items}</ul>" if items else "") + "</div>"


def _section(index: int, case: CaseResult, report_dir: Path | None) -> str:
    verdict = case.verdict.value
    data = None
    if case.report and "error" not in case.report:
        try:
            data = ReportData.from_json(case.report)
        except (TypeError, KeyError, ValueError):
            data = None
    meta = [("fault class", case.fault_class), ("severity", case.severity), ("version", case.version),
            ("run id", case.run_id), ("duration", f"{case.duration_s:.1f} s"),
            ("backend", case.record.backend if case.record else None)]
    dl = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in meta if v)
    dl += f"<dt>evidence</dt><dd>{evidence_link(case, report_dir)}</dd>"
    parts = [f'<section class="case" id="case-{index}" data-case-id="{_e(case.id)}" data-verdict="{_e(verdict)}">',
             f'<h2><span class="badge {_e(verdict)}">{_e(verdict)}</span> {_e(case.id)}</h2>']
    if case.title:
        parts.append(f"<p class=title>{_e(case.title)}</p>")
    parts.append(f"<dl class=meta>{dl}</dl>")
    parts.append(_why(case))
    if case.not_archived:
        parts.append(f"<p class=muted>not archived: {_e(case.not_archived)}</p>")
    if case.report and "error" in case.report:
        parts.append(f"<p class=muted>{_e(case.report['error'])}</p>")
    parts.append(_phases(case, data))
    if data is not None:
        if data.problems:
            parts.append(f"<p class=muted>{_e(data.problems)} evidence line(s) or file(s) could not be read</p>")
        parts += [_findings(data), _charts(data), _promql(data), _metrics(data)]
    parts += [_assertions(case), "</section>"]
    return "".join(parts)


def _passed(case: CaseResult) -> str:
    counts = case.counts()
    return f"{counts['passed']}/{len(case.assertions)}" + (f" ({counts['skipped']} skipped)" if counts["skipped"] else "")


def render(result: RegressResult, *, report_dir: Path | None = None, generated_at: datetime | None = None) -> str:
    """The report as one HTML document.

    Args:
        result: the regression's results, with ``report`` digests where the cases ran.
        report_dir: the directory the report will be written to (evidence links are made relative to it);
            None keeps them as absolute paths.
        generated_at: the time printed in the header (default: now, UTC).

    Returns:
        The HTML text (UTF-8 when written).
    """
    when = (generated_at or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    totals = result.totals()
    overview = "".join(
        f'<tr><td><a href="#case-{i}">{_e(c.id)}</a></td><td><span class="badge {_e(c.verdict.value)}">'
        f"{_e(c.verdict.value)}</span></td><td>{_e(c.fault_class)}</td><td class=num>{c.duration_s:.1f}</td>"
        f"<td class=num>{_e(_passed(c))}</td></tr>"
        for i, c in enumerate(result.cases))
    fingerprint = next((c.record.fingerprint for c in result.cases if c.record), None)
    env = ""
    if fingerprint:
        packages, torch = (v if isinstance(v, dict) else {}
                           for v in (fingerprint.get("packages"), fingerprint.get("torch")))
        packages = {k: v for k, v in sorted(packages.items()) if v}
        build = (f"; torch {_e(torch.get('version'))} (CUDA {_e(torch.get('cuda') or 'none')}, "
                 f"cuDNN {_e(torch.get('cudnn') or 'none')})" if torch.get("version") else "")
        env = (f"<p class=muted>Python {_e(fingerprint.get('python'))} on {_e(fingerprint.get('platform'))}{build}</p>"
               f"<details><summary>{len(packages)} installed package(s)</summary><p class=muted>"
               + _e(", ".join(f"{k} {v}" for k, v in packages.items())) + "</p></details>")
    head = (f"<h1>faultlib regress: shard {_e(result.shard)}</h1><p>{_e(len(result.cases))} case(s): "
            f"{totals['passed']} passed, {totals['failed']} failed, {totals['errors']} errors, "
            f"{totals['skipped']} skipped; exit code {result.exit_code}. Generated {_e(when)}.</p>{env}")
    table = ("<table class=overview><tr><th>case</th><th>verdict</th><th>fault class</th><th>time (s)</th>"
             f"<th>assertions passed</th></tr>{overview}</table>")
    sections = "".join(_section(i, c, report_dir) for i, c in enumerate(result.cases))
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>faultlib regress {_e(result.shard)}</title><style>{STYLE}</style></head>"
            f"<body><header>{head}{table}</header><main>{sections}</main></body></html>\n")


def write(path: str | Path | OutputFile, result: RegressResult) -> Path:
    """Write the report to ``path`` (an :class:`~faultlib.outputs.OutputFile` checked when the command started,
    or a path checked now; parent directories created; a regular file replaced atomically, a FIFO or device
    written as a stream).

    Raises:
        InputError: the target cannot be written (a symbolic link, a directory, a read-only file...).
    """
    target = path if isinstance(path, OutputFile) else output_file(path, "--report", parents=True)
    target.write_text(render(result, report_dir=target.path.parent))
    return target.path
