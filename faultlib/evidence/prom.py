"""Prometheus text exposition of a run's metrics, produced by ``prometheus_client``.

Each OTLP point becomes a sample of the same name with the labels ``phase`` and the
point's attributes (``window`` among them). Monotonic sums are counters, other sums and
gauges are gauges, histograms keep their buckets (cumulative, as Prometheus expects).
"""

from __future__ import annotations

from pathlib import Path

from faultlib.evidence.reader import MetricPoint, iter_metric_points


def _latest(points: list[tuple[str | None, MetricPoint]]) -> dict[tuple, tuple[str, MetricPoint]]:
    latest: dict[tuple, tuple[str, MetricPoint]] = {}
    for phase, p in points:
        key = (p.name, phase, tuple(sorted(p.attributes.items())))
        if key not in latest or p.time_ns >= latest[key][1].time_ns:
            latest[key] = (phase or "", p)
    return latest


def exposition(metrics_jsonl: Path) -> bytes:
    """The Prometheus text exposition (format 0.0.4) of the latest value of every series."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

    latest = _latest(list(iter_metric_points(metrics_jsonl)))

    class _Collector:
        def collect(self):
            families: dict[str, object] = {}
            for (name, _, attrs), (phase, p) in sorted(latest.items(), key=lambda kv: str(kv[0])):
                labels = ["phase", *[k for k, _ in attrs]]
                values = [phase, *[str(v) for _, v in attrs]]
                if p.kind == "sum" and p.monotonic:
                    fam = families.setdefault(name, CounterMetricFamily(name, p.description or name, labels=labels))
                    fam.add_metric(values, p.value)
                elif p.kind == "histogram":
                    fam = families.setdefault(name, HistogramMetricFamily(name, p.description or name, labels=labels))
                    cumulative, buckets = 0, []
                    bounds = p.extra["bounds"] + [float("inf")]
                    for bound, count in zip(bounds, p.extra["bucket_counts"]):
                        cumulative += count
                        buckets.append(("+Inf" if bound == float("inf") else repr(bound), cumulative))
                    fam.add_metric(values, buckets, p.value)
                else:
                    fam = families.setdefault(name, GaugeMetricFamily(name, p.description or name, labels=labels))
                    fam.add_metric(values, p.value)
            yield from families.values()

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector())
    return generate_latest(registry)
