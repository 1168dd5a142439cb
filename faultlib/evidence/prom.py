"""Prometheus text exposition of a run's metrics, produced by ``prometheus_client``; and the
family, name and label rules it shares with the OpenMetrics time series (:mod:`.openmetrics`).

Each OTLP point becomes a sample of the same name with the labels ``phase`` and the
point's attributes (``window`` among them). Monotonic sums are counters, other sums and
gauges are gauges, histograms keep their buckets (cumulative, as Prometheus expects).
``metrics.jsonl`` holds one snapshot per line; the exposition shows the latest point of each series
of each phase's last attempt, as :func:`~faultlib.evidence.reader.latest_points` does.

Names follow the OpenTelemetry-to-Prometheus rules: every character outside
``[a-zA-Z0-9_:]`` becomes ``_`` (``http.server.duration`` -> ``http_server_duration``), and a
leading digit gets a ``_`` prefix; label names likewise, without ``:``. Series of one metric with
different attribute sets share a family whose label names are the union (a missing label is
empty, which Prometheus reads as absent). What cannot be exposed faithfully is skipped and
reported once as an :class:`~faultlib.evidence.problems.EvidenceProblem` (``problems``): a metric name
used with two kinds, two metrics whose samples would share a name, a histogram whose bucket counts
do not match its bounds (or whose bounds are not finite and ascending, or counts negative), a
counter that is negative or NaN, an attribute that collides with ``phase`` (or ``le`` on a
histogram) or another attribute once sanitised, two attribute sets that become the same labels
(``1`` and ``"1"``), and every unreadable line of ``metrics.jsonl``. Nothing in ``metrics.jsonl``
makes :func:`exposition` raise.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from faultlib.evidence.reader import MetricPoint, iter_metric_points, series_key
from faultlib.evidence.problems import EvidenceProblem
from faultlib.readers.jsondoc import LINES_FILE_MAX_BYTES

_BAD_NAME = re.compile(r"[^a-zA-Z0-9_:]")
_BAD_LABEL = re.compile(r"[^a-zA-Z0-9_]")
#: sample names each kind of family writes, after the family name
SUFFIXES = {"counter": ("_total", "_created"), "gauge": ("",), "histogram": ("", "_bucket", "_count", "_sum", "_created")}

LabelItems = tuple[tuple[str, str], ...]


def metric_name(name: str) -> str:
    """``name`` as a valid Prometheus metric name (see the module docstring)."""
    name = _BAD_NAME.sub("_", name) or "_"
    return "_" + name if name[0].isdigit() else name


def label_name(name: str) -> str:
    """``name`` as a valid Prometheus label name (see the module docstring)."""
    name = _BAD_LABEL.sub("_", name) or "_"
    name = "_" + name if name[0].isdigit() else name
    return "_" + name if name.startswith("__") else name  # __ is reserved for Prometheus itself


def prom_kind(p: MetricPoint) -> str:
    """``counter`` (a monotonic sum), ``histogram`` or ``gauge`` (every other sum and gauge)."""
    return "counter" if p.kind == "sum" and p.monotonic else ("histogram" if p.kind == "histogram" else "gauge")


@dataclass
class Family:
    """One Prometheus metric family.

    Attributes:
        name: the OpenTelemetry metric name.
        prom: its Prometheus name (:func:`metric_name`; a counter's keeps ``_total``, which the
            ``prometheus_client`` family classes move to the samples).
        kind: ``counter``, ``gauge`` or ``histogram``.
        description: the HELP text.
        labels: the label names of its series (union).
        series: ``{sorted (label, value) pairs: [point, ...] in input order}``.
    """

    name: str
    prom: str
    kind: str
    description: str
    labels: set[str] = field(default_factory=set)
    series: dict[LabelItems, list[MetricPoint]] = field(default_factory=dict)

    def sample_names(self) -> set[str]:
        base = self.prom[:-len("_total")] if self.kind == "counter" and self.prom.endswith("_total") else self.prom
        return {base + suffix for suffix in SUFFIXES[self.kind]}


def _labels(phase: str, p: MetricPoint, kind: str) -> tuple[LabelItems | None, str | None]:
    labels = {"phase": phase}
    for key, value in sorted(p.attributes.items()):
        label = label_name(key)
        if label in labels or (kind == "histogram" and label == "le"):
            return None, f"metric {p.name!r}: attribute {key!r} collides with label {label!r}; series skipped"
        labels[label] = str(value)
    return tuple(sorted(labels.items())), None


def _point_problem(p: MetricPoint, kind: str) -> str | None:
    if kind == "counter" and not p.value >= 0:
        return f"counter {p.name!r}: a value below 0 or NaN (a counter is a count >= 0); points skipped"
    if kind == "histogram":
        bounds, counts = p.extra.get("bounds", []), p.extra.get("bucket_counts", [])
        ascending = all(math.isfinite(b) for b in bounds) and all(a < b for a, b in zip(bounds, bounds[1:]))
        if len(counts) != len(bounds) + 1 or not ascending or any(c < 0 for c in counts):
            return (f"histogram {p.name!r}: {len(counts)} bucket counts for {len(bounds)} bounds (needs bounds + 1 "
                    "counts >= 0, bounds finite and ascending); points skipped")
    return None


def families(points: Iterable[tuple[str | None, MetricPoint]], problem: Callable[[str], None]) -> dict[str, Family]:
    """Group ``(phase, point)`` pairs into Prometheus families by name, kind and labels.

    Args:
        points: as :func:`~faultlib.evidence.reader.iter_metric_points` yields them (every snapshot).
        problem: called once per distinct reason something is skipped (see the module docstring).

    Returns:
        ``{Prometheus name: Family}``; every point of a series is kept, in input order.
    """
    said: set[str] = set()

    def once(message: str) -> None:
        if message not in said:
            said.add(message)
            problem(message)

    out: dict[str, Family] = {}
    decided: dict[tuple, LabelItems | None] = {}  # (phase, OTel series) -> its labels, or None: skipped
    origin: dict[tuple[str, LabelItems], tuple] = {}  # (family, labels) -> the OTel series that has them
    for phase, p in points:
        kind, key = prom_kind(p), (phase, series_key(p))
        if key not in decided:
            decided[key], why = _labels(phase or "", p, kind)
            if why:
                once(why)
        items = decided[key]
        if items is None:
            continue
        why = _point_problem(p, kind)
        if why:
            once(why)
            continue
        prom = metric_name(p.name)
        family = out.setdefault(prom, Family(p.name, prom, kind, p.description or p.name))
        if family.kind != kind or family.name != p.name:
            once(f"metric {p.name!r} ({kind}) clashes with {family.name!r} ({family.kind}) as Prometheus "
                 f"name {prom!r}; series skipped")
            continue
        if origin.setdefault((prom, items), key) != key:
            once(f"metric {p.name!r}: attributes {dict(p.attributes)!r} give the same labels as another "
                 "series; series skipped")
            continue
        family.labels.update(label for label, _ in items)
        family.series.setdefault(items, []).append(p)
    taken: dict[str, str] = {}
    for prom in sorted(out):
        clash = sorted(out[prom].sample_names() & set(taken))
        if clash:
            once(f"metric {out[prom].name!r}: sample name {clash[0]!r} is also written by {taken[clash[0]]!r}; "
                 "metric skipped")
            del out[prom]
        else:
            taken.update(dict.fromkeys(out[prom].sample_names(), out[prom].name))
    return out


def label_names(family: Family, constant: dict[str, str]) -> list[str]:
    """The family's label names plus the constant ones, ``phase`` first."""
    return sorted(family.labels | set(constant), key=lambda n: (n != "phase", n))


def new_metric(family: Family, names: list[str]):
    """An empty ``prometheus_client`` metric family object for ``family`` with labels ``names``."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

    classes = {"counter": CounterMetricFamily, "gauge": GaugeMetricFamily, "histogram": HistogramMetricFamily}
    return classes[family.kind](family.prom, family.description, labels=names)


def add_point(metric, kind: str, values: list[str], p: MetricPoint, *, timestamp=None, with_sum: bool = True) -> None:
    """Add ``p`` to ``metric`` (from :func:`new_metric`) as one sample, or a histogram's samples
    (cumulative buckets with canonical ``le`` values, ``_count`` and ``_sum``; neither of the last two
    when ``with_sum`` is false).

    Raises:
        ValueError, TypeError: ``prometheus_client`` refuses the values.
    """
    if kind == "histogram":
        from prometheus_client.utils import floatToGoString

        cumulative, buckets = 0, []
        for bound, count in zip([*p.extra["bounds"], math.inf], p.extra["bucket_counts"]):
            cumulative += count
            buckets.append((floatToGoString(bound), cumulative))
        metric.add_metric(values, buckets, p.value if with_sum else None, timestamp=timestamp)
    else:
        metric.add_metric(values, p.value, timestamp=timestamp)


def exposition(metrics_jsonl: Path, problems: list[EvidenceProblem] | None = None, *,
               max_file_bytes: int = LINES_FILE_MAX_BYTES, labels: dict[str, str] | None = None,
               points: list[tuple[str | None, MetricPoint]] | None = None) -> bytes:
    """The Prometheus text exposition (format 0.0.4) of the latest value of every series.

    Args:
        metrics_jsonl: the run's ``metrics.jsonl`` (missing: an empty exposition).
        problems: receives what was skipped (see the module docstring).
        max_file_bytes: a larger ``metrics.jsonl`` is not read (one problem).
        labels: labels added to every sample (the runner adds ``case`` and ``run_id``, so two runs
            scraped or backfilled together stay apart); a point's own label of the same name wins.
        points: the points of ``metrics_jsonl`` when the caller has read them already (its read
            problems are then the caller's).
    """
    from prometheus_client import CollectorRegistry, generate_latest

    problems = [] if problems is None else problems
    constant = dict(labels or {})
    file = Path(metrics_jsonl).name

    def problem(message: str) -> None:
        problems.append(EvidenceProblem(file, None, message))

    if points is None:
        points = list(iter_metric_points(Path(metrics_jsonl), problems, max_file_bytes=max_file_bytes))
    last: dict[str | None, int] = {}
    for phase, p in points:
        last[phase] = max(last.get(phase, p.attempt), p.attempt)
    found = families([(phase, p) for phase, p in points if p.attempt == last[phase]], problem)

    class _Collector:
        def collect(self):
            for prom in sorted(found):
                family = found[prom]
                names = label_names(family, constant)
                metric = new_metric(family, names)
                for items, series in sorted(family.series.items()):
                    own = dict(items)
                    latest = series[0]
                    for p in series:
                        if p.time_ns >= latest.time_ns:
                            latest = p
                    try:
                        add_point(metric, family.kind, [own.get(n, constant.get(n, "")) for n in names], latest)
                    except (ValueError, TypeError) as exc:
                        problem(f"metric {family.name!r}: {exc}; series skipped")
                yield metric

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector())
    try:
        return generate_latest(registry)
    except (ValueError, TypeError, UnicodeError) as exc:  # belt and braces: never fail the run's finish
        problem(f"no Prometheus exposition could be produced: {exc}")
        return b""
