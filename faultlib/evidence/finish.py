"""Finishing a run directory: the last steps of every run, shared by the runner and by
:func:`faultlib.runlock.finish_interrupted`.

:func:`finish_run` never fails because of what a repro left in the directory: every file is read
defensively (:mod:`faultlib.evidence.reader`), every file the runner writes goes through a
temporary file and a rename (:mod:`faultlib.evidence.seal`), and whatever cannot be read or
archived becomes a finding of detector ``faultlib.runner`` in ``run.json`` (``findings``) naming
the file and line. An ``error`` finding turns a ``passed`` or ``failed`` verdict into ``error``.
Evidence already written is never removed: entries in the runner's way are renamed aside.

``metrics.om`` is the runner's too, but written earlier: by :func:`write_metrics_om`, when the
phases end and before the assertion suite (which, like the PromQL evaluation, may read it).
:func:`finish_run` builds it again from the sealed ``metrics.jsonl``: the runner's file holds the
same bytes and is kept; anything else there (a repro's forgery, when the runner stopped before
writing its own) is moved aside, so every finished run has one the runner wrote.
"""

from __future__ import annotations

import json
from pathlib import Path

from faultlib.evidence import layout
from faultlib.evidence.openmetrics import openmetrics, store, write_openmetrics
from faultlib.evidence.prom import exposition
from faultlib.evidence.reader import MetricPoint, iter_logs, iter_metric_points, iter_spans, read_findings
from faultlib.evidence.problems import EvidenceProblem, problem_from_claim
from faultlib.evidence.seal import LIMITS, SealLimits, claim, create_empty, seal, write_atomic, write_manifest
from faultlib.findings import Severity
from faultlib.record import RunRecord, Verdict

MiB = 1 << 20
#: the most bytes of one JSON Lines file the runner parses (traces, metrics, logs, findings)
READ_MAX_BYTES = 512 * MiB
#: files the runner writes itself; what a repro put there is moved aside
RUNNER_FILES = (layout.RUN, layout.MANIFEST, layout.METRICS_PROM)
#: files every run has, empty when a phase died before writing them
LAYOUT_FILES = (layout.TRACES, layout.METRICS, layout.LOGS, layout.FINDINGS, layout.STDOUT, layout.STDERR)


def run_labels(case_id: str, run_id: str) -> dict[str, str]:
    """The labels the runner adds to every sample of ``metrics.prom`` and ``metrics.om``."""
    return {"case": case_id, "run_id": run_id}


#: the attribute the OpenTelemetry SDK puts on the one series that takes every label set past its
#: cardinality limit (2,000 series per metric by default; opentelemetry-sdk ``_DEFAULT_CARDINALITY_LIMIT``)
OVERFLOW_ATTRIBUTE = "otel.metric.overflow"


def cardinality_overflows(points: list[tuple[str | None, MetricPoint]]) -> list[EvidenceProblem]:
    """A ``metric_cardinality_overflow`` warning per (phase, metric) whose series went past the SDK's
    cardinality limit: the label sets past it were summed into one series labelled
    ``otel_metric_overflow="true"`` with no other label, so a query filtering on any label (``window``,
    ``phase`` aside) misses them."""
    seen: dict[tuple[str | None, str], None] = {}
    for phase, point in points:
        if point.attributes.get(OVERFLOW_ATTRIBUTE) is True:
            seen.setdefault((phase, point.name), None)
    return [EvidenceProblem(layout.METRICS, None,
                            f"{name} ({phase or 'unknown phase'}) has more label sets than the OpenTelemetry SDK "
                            "keeps (2000 series per metric): the rest are summed into one series labelled "
                            'otel_metric_overflow="true" in Prometheus; use fewer label values (no ids or users '
                            "as labels)", severity=Severity.WARNING, kind="metric_cardinality_overflow")
            for phase, name in seen]


def write_metrics_om(run_dir: Path, record: RunRecord, *, case_id: str) -> Path:
    """The runner's step when the phases have ended: write ``metrics.om``
    (:func:`~faultlib.evidence.openmetrics.write_openmetrics`) for the PromQL evaluation and the
    assertion suite. An entry a repro left under that name is moved aside and becomes a finding in
    ``record.findings`` now; what ``metrics.jsonl`` holds that cannot be written is reported once, by
    :func:`finish_run`, which builds the same file again.

    Raises:
        OSError: the run directory cannot be written.
    """
    problems: list[EvidenceProblem] = []
    path = write_openmetrics(run_dir, problems, labels=run_labels(case_id, record.run_id),
                             max_file_bytes=READ_MAX_BYTES)
    record.findings = [*record.findings, *(p.to_finding() for p in problems if p.kind == "moved_aside")]
    return path


def finish_run(run_dir: Path, record: RunRecord, *, case_id: str, exclude: tuple[str, ...] = (),
               limits: SealLimits = LIMITS) -> list[EvidenceProblem]:
    """Seal ``run_dir``, read its evidence into ``record``, write ``metrics.prom``, ``metrics.om``,
    ``run.json`` and ``manifest.json`` (last).

    Order: runner-owned names are claimed; missing layout files are created empty; every file is
    frozen and hashed (:func:`~faultlib.evidence.seal.seal`); findings, traces, logs and metrics are
    read from the frozen bytes; ``metrics.prom``, ``metrics.om`` (kept when it holds the same bytes:
    see the module docstring) and ``run.json`` are written; the manifest lists the frozen files,
    ``metrics.prom``, ``metrics.om`` and ``run.json``.

    Args:
        run_dir: the run directory.
        record: updated in place: phase findings, ``findings`` (problems appended), ``artifacts``,
            ``verdict`` (``error`` when an error problem was found and it was passed or failed) and
            ``error``.
        case_id: for the manifest.
        exclude: more names not to archive (``run.lock``).
        limits: sealing bounds.

    Returns:
        The problems found (already in ``record.findings``).

    Raises:
        OSError: ``run_dir`` cannot be opened or written (disk full, removed): the run stays incomplete.
    """
    run_dir = Path(run_dir)
    problems: list[EvidenceProblem] = []
    for name in RUNNER_FILES:
        moved = claim(run_dir, name)
        if moved:
            problems.append(problem_from_claim(moved))
    for name in LAYOUT_FILES:
        create_empty(run_dir, name)
    sealed = seal(run_dir, exclude=(layout.RUN, layout.METRICS_PROM, layout.METRICS_OM, *exclude), limits=limits)
    problems += [EvidenceProblem(r.name, None, r.reason, kind="not_archived") for r in sealed.rejected]

    def guarded(name: str, read):
        try:  # the readers report bad input as problems; this is for a bug of ours, not a crash of the run
            return read()
        except Exception as exc:  # noqa: BLE001
            problems.append(EvidenceProblem(name, None, f"could not be read ({type(exc).__name__}: {exc})"))
            return None

    findings = guarded(layout.FINDINGS, lambda: read_findings(run_dir, problems, max_file_bytes=READ_MAX_BYTES))
    for phase, found in (findings or {}).items():
        getattr(record, phase).findings = found
    guarded(layout.TRACES, lambda: all(True for _ in iter_spans(run_dir / layout.TRACES, problems,
                                                                max_file_bytes=READ_MAX_BYTES)))
    guarded(layout.LOGS, lambda: all(True for _ in iter_logs(run_dir / layout.LOGS, problems,
                                                             max_file_bytes=READ_MAX_BYTES)))
    points = guarded(layout.METRICS, lambda: list(iter_metric_points(run_dir / layout.METRICS, problems,
                                                                     max_file_bytes=READ_MAX_BYTES))) or []
    problems += cardinality_overflows(points)
    labels = run_labels(case_id, record.run_id)
    text = guarded(layout.METRICS, lambda: exposition(run_dir / layout.METRICS, problems, labels=labels, points=points))
    prom = write_atomic(run_dir, layout.METRICS_PROM, text or b"")
    om_text = guarded(layout.METRICS, lambda: openmetrics(points, problems, labels=labels))
    om = store(run_dir, om_text or b"# EOF\n", problems)

    problems = list({(p.file, p.line, p.message, p.kind): p for p in problems}.values())  # prom and om: once
    record.findings = [*record.findings, *(p.to_finding() for p in problems)]
    errors = [f for f in record.findings if f.severity >= Severity.ERROR]
    if errors:
        if record.verdict in (Verdict.PASSED, Verdict.FAILED):
            record.verdict = Verdict.ERROR
        if not record.error:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            record.error = f"evidence could not be read or archived: {errors[0].message}{more}; see findings"
    record.artifacts = sorted([*sealed.files, prom, om], key=lambda a: a.name)
    run_json = write_atomic(run_dir, layout.RUN, json.dumps(record.to_json(), indent=2).encode(), sync=True)
    write_manifest(run_dir, run_id=record.run_id, case_id=case_id, files=[*record.artifacts, run_json])
    return problems
