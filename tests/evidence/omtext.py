"""Reading ``metrics.om`` back in tests.

:func:`samples` goes through prometheus_client's OpenMetrics parser. Its 0.26 parser mishandles a
histogram series with samples at several timestamps (it keeps the group's sample names across
timestamps and drops the second timestamp's buckets as "duplicates"; promtool reads the same text
fine), so it parses one document per timestamp: every line still goes through the official parser.
:func:`series` keeps the text's order, to check it.
"""

from __future__ import annotations

from collections import defaultdict

from prometheus_client.openmetrics.parser import text_string_to_metric_families


def samples(text: str) -> list:
    """Every sample of an OpenMetrics text, parsed (``Sample.timestamp`` is a ``Timestamp``)."""
    assert text.endswith("# EOF\n") and text.count("# EOF") == 1
    meta: dict[str, list[str]] = defaultdict(list)
    by_time: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    family = None
    for line in text.splitlines()[:-1]:
        if line.startswith("#"):
            family = line.split()[2]
            meta[family].append(line)
        else:
            by_time[line.rsplit(" ", 1)[1]][family].append(line)
    out = []
    for families in by_time.values():
        doc = "".join("\n".join(meta[f] + lines) + "\n" for f, lines in families.items()) + "# EOF\n"
        out += [s for f in text_string_to_metric_families(doc) for s in f.samples]
    return out


def series(text: str) -> dict[str, list[tuple[float, float]]]:
    """``{sample name with labels, as written: [(seconds, value), ...]}`` in the text's order
    (for label values without spaces)."""
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for line in text.splitlines():
        if not line.startswith("#"):
            head, value, stamp = line.rsplit(" ", 2)
            out[head].append((float(stamp), float(value)))
    return dict(out)
