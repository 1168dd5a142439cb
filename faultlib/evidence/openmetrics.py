"""``metrics.om``: every metric snapshot of a run as OpenMetrics text with sample timestamps, for
``promtool tsdb create-blocks-from openmetrics metrics.om DIR`` (a real Prometheus then answers the
case's PromQL with ``query_range`` over the fault's before/during/after windows).

Produced by ``prometheus_client``'s OpenMetrics encoder, with the families, names, kinds and
labels of ``metrics.prom`` (:mod:`.prom`): ``phase``, the point's attributes (``window`` among
them), and the constant labels the runner adds (``case``, ``run_id``; a point's own label of the
same name wins). Counters follow OpenMetrics naming: the family has no ``_total``, its samples do,
so the PromQL name stays ``faultlib_x_total``; histograms write ``_bucket{le=...}``, ``_count`` and
``_sum``.

Every point of every snapshot in ``metrics.jsonl`` is a sample at the snapshot's time (seconds
since the epoch, millisecond resolution, written so that Prometheus, which truncates
``seconds * 1000``, reads the exact millisecond). Samples of one series are in increasing time
order with no two in the same millisecond (the later snapshot wins), and one series' lines are
contiguous, as OpenMetrics requires. ``# EOF`` is the last line.

Zero at the start: counters and histograms are cumulative, and an OpenTelemetry point carries the
time its series started (``start_time_unix_nano``: the first measurement in that process). Where
that is earlier than the series' first snapshot, a sample of value 0 (a histogram: every bucket,
``_count`` and ``_sum`` 0) is written at the start time, and likewise when a restarted process
starts the series again. The cumulative total says the count was 0 then, and PromQL's ``rate()``
and ``increase()`` need two samples: a series that first appears at 8 would otherwise show no
increase at all.

What cannot be written faithfully is skipped and reported once as an
:class:`~faultlib.evidence.problems.EvidenceProblem` (``problems``): everything :mod:`.prom` skips,
a point whose time is not between the epoch and the year 9999, and the ``_count`` and ``_sum`` of a
histogram series whose sum is ever negative or NaN (OpenMetrics forbids them; its buckets are kept;
a warning). Nothing in ``metrics.jsonl`` makes :func:`openmetrics` or :func:`write_openmetrics` raise.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Iterable

from faultlib.errors import InputError
from faultlib.evidence import layout
from faultlib.evidence.prom import Family, add_point, families, label_names, new_metric
from faultlib.evidence.reader import MetricPoint, iter_metric_points
from faultlib.evidence.problems import EvidenceProblem, problem_from_claim
from faultlib.evidence.seal import claim, write_atomic
from faultlib.findings import Severity
from faultlib.readers import read_bytes
from faultlib.readers.files import Limits
from faultlib.readers.jsondoc import LINES_FILE_MAX_BYTES
from faultlib.record import Artifact

MAX_MS = 253_402_300_800_000  # 10000-01-01T00:00:00Z: later timestamps are not written


def seconds(ms: int) -> float:
    """``ms`` (milliseconds since the epoch) as float seconds that Prometheus' parser, which
    computes ``int64(seconds * 1000)``, reads back as exactly ``ms``."""
    value = ms / 1000
    while int(value * 1000) < ms:  # the nearest double may sit just below: truncation would lose 1 ms
        value = math.nextafter(value, math.inf)
    return value


def _zero(p: MetricPoint) -> MetricPoint:
    extra = {**p.extra, "count": 0, "bucket_counts": [0] * len(p.extra.get("bucket_counts", []))}
    return dataclasses.replace(p, value=0.0, extra=extra)


def _timeline(series: list[MetricPoint], kind: str, problem) -> list[tuple[int, MetricPoint]]:
    """``(ms, point)`` in increasing ms, one per ms (the latest snapshot wins), with the zero
    samples at series starts (see the module docstring)."""
    ordered = sorted(series, key=lambda p: p.time_ns)  # stable: file order on a tie
    out: list[tuple[int, MetricPoint]] = []
    start = None
    for p in ordered:
        ms = p.time_ns // 1_000_000
        if not 0 < ms < MAX_MS:
            problem(f"metric {p.name!r}: a snapshot time is not between the epoch and the year 9999; "
                    "points skipped")
            continue
        if kind != "gauge" and p.start_ns != start:
            start = p.start_ns
            start_ms = start // 1_000_000
            if 0 < start_ms < ms and (not out or start_ms > out[-1][0]):
                out.append((start_ms, _zero(p)))
        if out and out[-1][0] == ms:
            out[-1] = (ms, p)
        else:
            out.append((ms, p))
    return out


def openmetrics(points: Iterable[tuple[str | None, MetricPoint]], problems: list[EvidenceProblem] | None = None,
                *, labels: dict[str, str] | None = None) -> bytes:
    """The OpenMetrics text (1.0.0) of every snapshot (see the module docstring).

    Args:
        points: ``(phase, point)`` as :func:`~faultlib.evidence.reader.iter_metric_points` yields them.
        problems: receives what was skipped, once per reason.
        labels: labels added to every sample (``case``, ``run_id``).

    Returns:
        UTF-8 text ending in ``# EOF``; just ``# EOF`` when there is no metric.
    """
    from prometheus_client import CollectorRegistry
    from prometheus_client.openmetrics.exposition import generate_latest

    problems = [] if problems is None else problems
    constant = dict(labels or {})
    said: set[str] = set()

    def problem(message: str, severity: Severity = Severity.ERROR) -> None:
        if message not in said:
            said.add(message)
            problems.append(EvidenceProblem(layout.METRICS, None, message, severity))

    found = families(points, problem)

    def metric_of(family: Family):
        names = label_names(family, constant)
        metric = new_metric(family, names)
        for items, series in sorted(family.series.items()):
            own = dict(items)
            values = [own.get(n, constant.get(n, "")) for n in names]
            with_sum = family.kind != "histogram" or all(p.value >= 0 for p in series)  # False for NaN too
            if not with_sum:
                problem(f"histogram {family.name!r}: a negative or NaN sum: the series' _count and _sum are left "
                        "out, as OpenMetrics requires; buckets kept", Severity.WARNING)
            for ms, p in _timeline(series, family.kind, problem):
                try:
                    add_point(metric, family.kind, values, p, timestamp=seconds(ms), with_sum=with_sum)
                except (ValueError, TypeError) as exc:
                    problem(f"metric {family.name!r}: {exc}; point skipped")
        return metric

    class _Collector:
        def collect(self):
            for prom in sorted(found):
                metric = metric_of(found[prom])
                if metric.samples:  # every point skipped: no family either
                    yield metric

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector())
    try:
        return generate_latest(registry)
    except (ValueError, TypeError, UnicodeError) as exc:  # belt and braces: never fail the run
        problem(f"no OpenMetrics text could be produced: {exc}")
        return b"# EOF\n"


def store(run_dir: Path, data: bytes, problems: list[EvidenceProblem]) -> Artifact:
    """Write ``data`` as ``run_dir/metrics.om`` atomically. An entry already there that does not
    hold exactly ``data`` (a repro's, or a symlink, FIFO, directory) is moved aside first and
    reported (``moved_aside``); the same bytes (the runner's own earlier write) are replaced silently."""
    try:
        same = read_bytes(Path(run_dir) / layout.METRICS_OM, limits=Limits(max_bytes=max(len(data), 1))) == data
    except (InputError, OSError):
        same = False
    if not same:
        moved = claim(run_dir, layout.METRICS_OM)
        if moved:
            problems.append(problem_from_claim(moved))
    return write_atomic(run_dir, layout.METRICS_OM, data)


def write_openmetrics(run_dir: Path, problems: list[EvidenceProblem], *, labels: dict[str, str],
                      max_file_bytes: int = LINES_FILE_MAX_BYTES,
                      points: list[tuple[str | None, MetricPoint]] | None = None) -> Path:
    """Write ``run_dir/metrics.om`` from ``run_dir/metrics.jsonl`` (see the module docstring).

    Args:
        run_dir: the run directory.
        problems: receives unreadable lines of ``metrics.jsonl``, what could not be written, and an
            entry moved aside (:func:`store`).
        labels: added to every sample (the runner's ``case`` and ``run_id``).
        max_file_bytes: a larger ``metrics.jsonl`` is not read (one problem).
        points: the points of ``metrics.jsonl`` when the caller has read them already.

    Returns:
        The path of ``metrics.om``.

    Raises:
        OSError: the run directory cannot be written.
    """
    run_dir = Path(run_dir)
    if points is None:
        points = list(iter_metric_points(run_dir / layout.METRICS, problems, max_file_bytes=max_file_bytes))
    store(run_dir, openmetrics(points, problems, labels=labels), problems)
    return run_dir / layout.METRICS_OM
