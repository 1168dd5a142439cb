"""Evaluate a case's PromQL against a real Prometheus holding the run's metrics: ``promql.json``.

:func:`evaluate_run` backfills the run's ``metrics.om`` into a fresh TSDB, starts one Prometheus on
loopback (:mod:`faultlib.observability.prometheus`), evaluates every ``observability.promql`` query
of the case over every window of every phase (:mod:`faultlib.observability.windows`) with
``/api/v1/query_range``, and writes ``promql.json`` (:mod:`faultlib.evidence.promql`).

Each window is evaluated at about :data:`POINTS` instants on a millisecond grid that ends exactly at
the window's end (so the snapshot that closes the window is always seen) and starts at most one step
after the window's start. Both phases live in one TSDB: a window of phase P keeps the series whose
``phase`` label is P, and series without a ``phase`` label (marked ``phase_label: false``).

:func:`record_promql` is the runner's step between the phases and the assertion suite: it claims
``promql.json`` (whatever a repro wrote there is moved aside: a repro cannot forge the results) and,
with ``--prometheus``, evaluates. A failure (no promtool, a server that does not start, a bug of
ours) becomes an :class:`~faultlib.evidence.problems.EvidenceProblem` of kind
``prometheus_unavailable`` (or ``promql_not_evaluated``), never an exception: the run and its evidence
go on.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from faultlib.errors import PrometheusUnavailable
from faultlib.evidence import layout
from faultlib.evidence.problems import EvidenceProblem
from faultlib.observability.prometheus import PrometheusServer, RangeResult, backfill
from faultlib.evidence.promql import dumps, encode_value
from faultlib.observability.windows import Window, phase_windows

#: evaluations per window (fewer for a window shorter than POINTS milliseconds)
POINTS = 30


def grid(start: float, end: float, points: int = POINTS) -> tuple[float, float, float]:
    """``(start, end, step)`` in seconds on a millisecond grid: ``end`` is the window's end (rounded up
    to the millisecond), ``step`` is at least 1 ms, and ``start`` is the first grid point not before
    the window's start. Gives ``min(points, window in ms + 1)`` evaluations, at least 1."""
    start_ms, end_ms = math.floor(start * 1000), math.ceil(end * 1000)
    width = max(0, end_ms - start_ms)
    step_ms = max(1, math.ceil(width / max(1, points - 1)))
    intervals = width // step_ms
    return (end_ms - intervals * step_ms) / 1000, end_ms / 1000, step_ms / 1000


def _entry(query_id: str, query: str, window: Window, result: RangeResult, start: float, end: float,
           step: float) -> dict[str, Any]:
    series = []
    for s in result.series:
        phase = s["labels"].get("phase")
        if phase is not None and phase != window.phase:
            continue  # the other phase's series: both phases live in one TSDB
        series.append({"labels": s["labels"], "values": [[t, encode_value(v)] for t, v in s["values"]],
                       "phase_label": phase is not None})
    return {"id": query_id, "query": query, "phase": window.phase, "window": window.name, "start": start,
            "end": end, "step": step, "series": series, "error": result.error}


def evaluate_run(queries: Sequence[tuple[str, str]], run_dir: Path) -> dict[str, Any]:
    """Evaluate a case's PromQL over the run's metrics and write ``promql.json``.

    Args:
        queries: ``(id, query)`` of the case's ``observability.promql`` (:attr:`faultlib.cases.Case.promql`).
        run_dir: the run directory, holding ``metrics.om`` and ``traces.jsonl`` of both phases.

    Returns:
        The document written to ``run_dir/promql.json`` (see :mod:`faultlib.evidence.promql`).

    Raises:
        PrometheusUnavailable: promtool or prometheus is missing, ``metrics.om`` cannot be backfilled,
            or the server did not start or stopped answering. Nothing is written then; no process is
            left running.
    """
    from faultlib.evidence.finish import READ_MAX_BYTES
    from faultlib.evidence.seal import write_atomic

    run_dir = Path(run_dir)
    windows = phase_windows(run_dir, max_file_bytes=READ_MAX_BYTES)  # unreadable lines: finish_run reports them
    with tempfile.TemporaryDirectory(prefix="faultlib-promql-") as tmp:
        data = Path(tmp) / "data"
        backfill(run_dir / layout.METRICS_OM, data)
        with PrometheusServer(data) as server:
            try:
                version = server.version()
                entries = []
                for query_id, query in queries:
                    for window in windows:
                        start, end, step = grid(window.start, window.end)
                        result = server.query_range(query, start, end, step)
                        entries.append(_entry(query_id, query, window, result, start, end, step))
            except PrometheusUnavailable:  # it stopped answering: its own log says why; keep it as evidence
                write_atomic(run_dir, layout.PROMETHEUS_LOG, server.log_tail() or b"(prometheus wrote no log)\n")
                raise
    document = {"prometheus": version, "queries": entries}
    write_atomic(run_dir, layout.PROMQL, dumps(document))
    return document


def failed_queries(document: dict[str, Any]) -> list[EvidenceProblem]:
    """One ``promql_failed`` error per query Prometheus rejected (in any phase or window): a case whose
    query cannot be evaluated does not prove its observability, so its run ends in ``error``."""
    failed: dict[str, dict[str, Any]] = {}
    for entry in document["queries"]:
        if entry["error"]:
            failed.setdefault(entry["id"], entry)
    return [EvidenceProblem(layout.PROMQL, None, f"PromQL query {query_id!r} failed in Prometheus "
                                                 f"({entry['phase']}/{entry['window']}): {entry['error'][:300]}; "
                                                 f"query: {entry['query'][:200]}", kind="promql_failed")
            for query_id, entry in failed.items()]


def record_promql(queries: Sequence[tuple[str, str]], run_dir: Path, *, evaluate: bool) -> list[EvidenceProblem]:
    """The runner's PromQL step, after ``metrics.om`` and before the assertion suite (see the module
    docstring).

    Args:
        queries: ``(id, query)`` of the case that ran (:attr:`faultlib.cases.Case.promql`).
        run_dir: its run directory.
        evaluate: ``--prometheus``: evaluate and write ``promql.json``; otherwise only claim the name.

    Returns:
        Problems for the run's findings: an entry moved aside, an evaluation that failed, or a query
        Prometheus rejected (:func:`failed_queries`). Never raises
        (but ``KeyboardInterrupt``, after the server was stopped).
    """
    from faultlib.evidence.problems import problem_from_claim
    from faultlib.evidence.seal import claim

    problems = []
    for name in (layout.PROMQL, layout.PROMETHEUS_LOG):  # the runner's names: a repro cannot forge either
        moved = claim(run_dir, name)
        if moved:
            problems.append(problem_from_claim(moved))
    if not evaluate:
        return problems
    try:
        document = evaluate_run(queries, run_dir)
        problems += failed_queries(document)
    except PrometheusUnavailable as exc:
        problems.append(EvidenceProblem(layout.PROMQL, None, f"PromQL not evaluated: {exc}",
                                        kind="prometheus_unavailable"))
        _note_failure(run_dir, str(exc))
    except Exception as exc:  # noqa: BLE001 (a bug of ours must not cost the run its evidence)
        problems.append(EvidenceProblem(layout.PROMQL, None, f"PromQL not evaluated ({type(exc).__name__}: {exc})",
                                        kind="promql_not_evaluated"))
        _note_failure(run_dir, f"{type(exc).__name__}: {exc}")
    return problems


def _note_failure(run_dir: Path, reason: str) -> None:
    """``prometheus.log`` for a failed evaluation: the server's log when :func:`evaluate_run` kept it, else the
    reason (the server never started); it tells skipped PromQL assertions why there are no results."""
    from faultlib.evidence.seal import write_atomic

    if not (Path(run_dir) / layout.PROMETHEUS_LOG).exists():
        write_atomic(run_dir, layout.PROMETHEUS_LOG, f"PromQL not evaluated: {reason}\n".encode())
