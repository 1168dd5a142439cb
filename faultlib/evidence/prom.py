"""Prometheus text exposition of a run's metrics, produced by ``prometheus_client``.

Each OTLP point becomes a sample of the same name with the labels ``phase`` and the
point's attributes (``window`` among them). Monotonic sums are counters, other sums and
gauges are gauges, histograms keep their buckets (cumulative, as Prometheus expects).

Names follow the OpenTelemetry-to-Prometheus rules: every character outside
``[a-zA-Z0-9_:]`` becomes ``_`` (``http.server.duration`` -> ``http_server_duration``), and a
leading digit gets a ``_`` prefix; label names likewise, without ``:``. Series of one metric with
different attribute sets share a family whose label names are the union (a missing label is
empty, which Prometheus reads as absent). What cannot be exposed faithfully is skipped and
reported as an :class:`~faultlib.evidence.reader.EvidenceProblem` (``problems``): a metric name
used with two kinds, a histogram whose bucket counts do not match its bounds, an attribute that
collides with ``phase`` or another attribute once sanitised, and every unreadable line of
``metrics.jsonl``. Nothing in ``metrics.jsonl`` makes :func:`exposition` raise.
"""

from __future__ import annotations

import re
from pathlib import Path

from faultlib.evidence.reader import EvidenceProblem, MetricPoint, iter_metric_points
from faultlib.readers.jsondoc import LINES_FILE_MAX_BYTES

_BAD_NAME = re.compile(r"[^a-zA-Z0-9_:]")
_BAD_LABEL = re.compile(r"[^a-zA-Z0-9_]")


def metric_name(name: str) -> str:
    """``name`` as a valid Prometheus metric name (see the module docstring)."""
    name = _BAD_NAME.sub("_", name) or "_"
    return "_" + name if name[0].isdigit() else name


def label_name(name: str) -> str:
    """``name`` as a valid Prometheus label name (see the module docstring)."""
    name = _BAD_LABEL.sub("_", name) or "_"
    name = "_" + name if name[0].isdigit() else name
    return "_" + name if name.startswith("__") else name  # __ is reserved for Prometheus itself


def _kind(p: MetricPoint) -> str:
    return "counter" if p.kind == "sum" and p.monotonic else ("histogram" if p.kind == "histogram" else "gauge")


def _latest(points: list[tuple[str | None, MetricPoint]]) -> dict[tuple, tuple[str, MetricPoint]]:
    latest: dict[tuple, tuple[str, MetricPoint]] = {}
    for phase, p in points:
        key = (p.name, _kind(p), phase, tuple(sorted((k, str(v)) for k, v in p.attributes.items())))
        if key not in latest or p.time_ns >= latest[key][1].time_ns:
            latest[key] = (phase or "", p)
    return latest


def _series(latest: dict[tuple, tuple[str, MetricPoint]], problem) -> dict[str, dict]:
    """``{prom name: {"kind", "description", "labels": set, "samples": [(labels dict, point)]}}``."""
    families: dict[str, dict] = {}
    for (name, _, _, attrs), (phase, p) in sorted(latest.items(), key=lambda kv: str(kv[0])):
        prom, kind = metric_name(name), _kind(p)
        labels = {"phase": phase}
        clash = None
        for key, value in attrs:
            label = label_name(key)
            if label in labels:
                clash = f"attribute {key!r} collides with label {label!r}"
                break
            labels[label] = value
        if clash:
            problem(f"metric {name!r}: {clash}; series skipped")
            continue
        if kind == "histogram":
            bounds, counts = p.extra.get("bounds", []), p.extra.get("bucket_counts", [])
            if len(counts) != len(bounds) + 1 or bounds != sorted(bounds):
                problem(f"histogram {name!r}: {len(counts)} bucket counts for {len(bounds)} bounds "
                        "(needs bounds + 1, bounds ascending); series skipped")
                continue
        family = families.setdefault(prom, {"kind": kind, "name": name, "description": p.description or name,
                                            "labels": set(), "samples": []})
        if family["kind"] != kind or family["name"] != name:
            problem(f"metric {name!r} ({kind}) clashes with {family['name']!r} ({family['kind']}) as Prometheus "
                    f"name {prom!r}; series skipped")
            continue
        family["labels"].update(labels)
        family["samples"].append((labels, p))
    return families


def exposition(metrics_jsonl: Path, problems: list[EvidenceProblem] | None = None, *,
               max_file_bytes: int = LINES_FILE_MAX_BYTES, labels: dict[str, str] | None = None) -> bytes:
    """The Prometheus text exposition (format 0.0.4) of the latest value of every series.

    Args:
        metrics_jsonl: the run's ``metrics.jsonl`` (missing: an empty exposition).
        problems: receives what was skipped (see the module docstring).
        max_file_bytes: a larger ``metrics.jsonl`` is not read (one problem).
        labels: labels added to every sample (the runner adds ``case`` and ``run_id``, so two runs
            scraped or backfilled together stay apart); a point's own label of the same name wins.
    """
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

    problems = [] if problems is None else problems
    constant = dict(labels or {})
    file = Path(metrics_jsonl).name

    def problem(message: str) -> None:
        problems.append(EvidenceProblem(file, None, message))

    points = list(iter_metric_points(Path(metrics_jsonl), problems, max_file_bytes=max_file_bytes))
    families = _series(_latest(points), problem)
    classes = {"counter": CounterMetricFamily, "gauge": GaugeMetricFamily, "histogram": HistogramMetricFamily}

    class _Collector:
        def collect(self):
            for prom, family in families.items():
                names = sorted(set(family["labels"]) | set(constant), key=lambda n: (n != "phase", n))
                fam = classes[family["kind"]](prom, family["description"], labels=names)
                for own, p in family["samples"]:
                    values = [own.get(n, constant.get(n, "")) for n in names]
                    try:
                        if family["kind"] == "histogram":
                            cumulative, buckets = 0, []
                            for bound, count in zip(p.extra["bounds"] + [float("inf")], p.extra["bucket_counts"]):
                                cumulative += count
                                buckets.append(("+Inf" if bound == float("inf") else repr(bound), cumulative))
                            fam.add_metric(values, buckets, p.value)
                        else:
                            fam.add_metric(values, p.value)
                    except (ValueError, TypeError) as exc:
                        problem(f"metric {family['name']!r}: {exc}; series skipped")
                yield fam

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector())
    try:
        return generate_latest(registry)
    except (ValueError, TypeError, UnicodeError) as exc:  # belt and braces: never fail the run's finish
        problem(f"no Prometheus exposition could be produced: {exc}")
        return b""
