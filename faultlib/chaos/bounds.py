"""The numbers of a Chaos Mesh spec -- durations, percentages, sizes, counts -- checked before anything is rendered.

Chaos Mesh reads a spec's numbers into Go types: a duration (``"30s"``, ``"100ms"``) with ``time.ParseDuration``
into an int64 of nanoseconds, a percentage into 0..100, a worker count into at most 8,192 stress-ng workers, a
bandwidth limit into a uint32. A case whose ``duration: "9999…9h"`` or ``percent: 10**40`` overflows them is
refused by the API server or its admission webhook only when the run starts on a cluster; ``faultlib run
--backend kubernetes --dry-run`` would print it as if it were fine. :func:`check_spec` refuses such a value first,
naming the field and the range (exit 2, like every bad input).

Sources: Chaos Mesh ``api/v1alpha1`` types (``Duration *string``, ``Percent int``, ``Workers int``,
``BandwidthSpec.Limit uint32``/``Buffer uint32``/``Peakrate *uint64``/``Minburst *uint64``, ``GracePeriod int64``,
``HistoryLimit int``) and the StressChaos docs (https://chaos-mesh.org/docs/simulate-heavy-stress-on-kubernetes/:
at most 8192 workers); Go's ``time.ParseDuration`` (https://pkg.go.dev/time#ParseDuration).
"""

from __future__ import annotations

import re
from typing import Any

from faultlib.errors import CaseError
from faultlib.text import echoed

__all__ = ["check_spec"]

_NS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h)")
MAX_NS = 2**63 - 1  # a Go time.Duration
DURATIONS = frozenset({"duration", "latency", "jitter", "timeOffset", "deadline", "delay"})
PERCENTS = frozenset({"percent", "load", "correlation", "loss", "corrupt", "duplicate"})
#: field -> (lowest, highest) of its Go type or documented range
COUNTS = {"workers": (1, 8192), "gracePeriod": (0, 2**63 - 1), "limit": (1, 2**32 - 1), "buffer": (1, 2**32 - 1),
          "peakrate": (0, 2**64 - 1), "minburst": (0, 2**64 - 1), "historyLimit": (1, 2**31 - 1)}
_SIZE = re.compile(r"[0-9]{1,20}(\.[0-9]{1,9})?\s*(%|[KMGTPE]?i?B?|[kmgtpe]?b(ps)?)?", re.IGNORECASE)


def duration_ns(text: str) -> int | None:
    """The nanoseconds a Go duration (``"1h30m"``, ``"-5m"``, ``"0"``) stands for, or None when it is not one. The
    digits are compared before ``int()`` (a duration of thousands of digits is just "too long")."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return 0
    if not body:
        return None
    total, at = 0, 0
    while at < len(body):
        part = _PART.match(body, at)
        if part is None or part.end() == at or not (part[1] or part[2]):
            return None
        whole, fraction = part[1].lstrip("0"), (part[2] or "")[:12]
        if len(whole) > 20:
            return MAX_NS + 1
        scale = _NS[part[3]]
        total += int(whole or "0") * scale + int(fraction or "0") * scale // 10 ** len(fraction)
        at = part.end()
    return -total if text.startswith("-") else total


def check_spec(spec: Any, *, where: str) -> None:
    """Refuse a duration, percentage, size or count of a Chaos Mesh ``spec`` (nested specs of a Schedule or a
    Workflow included) that its Go type cannot hold or its range refuses.

    Args:
        spec: the spec as the case wrote it.
        where: the field path of ``spec`` in case.yaml (``inject.kubernetes.chaos[0].spec``).

    Raises:
        CaseError: the first such value, with its field path, the value (cut when long) and the range.
    """
    stack = [(spec, where)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            field = f"{path}.{key}"
            if isinstance(value, (dict, list)):
                stack.append((value, field))
            else:
                _check(str(key), value, field)


def _check(key: str, value: Any, field: str) -> None:
    shown = echoed(repr(value) if isinstance(value, str) else str(value) if not isinstance(value, int) or
                   value.bit_length() < 4000 else f"a number of about {value.bit_length() * 3 // 10:,} digits")
    if key in DURATIONS and isinstance(value, str):
        ns = duration_ns(value.strip())
        if ns is None:
            raise CaseError(f"{shown} is not a duration: write it like 30s, 100ms or 1h30m", field=field)
        if abs(ns) > MAX_NS:
            raise CaseError(f"{shown} is longer than Chaos Mesh takes (a Go duration: at most about 2562047h)",
                            field=field)
        if ns < 0 and key != "timeOffset":
            raise CaseError(f"{shown} is negative: only a TimeChaos timeOffset may be", field=field)
    elif key in PERCENTS and isinstance(value, (int, float, str)) and not isinstance(value, bool):
        number = _number(value)
        if number is None or not 0 <= number <= 100:
            raise CaseError(f"{shown} is not a percentage: a number from 0 to 100", field=field)
    elif key in COUNTS and isinstance(value, int) and not isinstance(value, bool):
        low, high = COUNTS[key]
        if not low <= value <= high:
            raise CaseError(f"{shown} is out of range: {low} to {high:,}", field=field)
    elif key in ("size", "rate") and isinstance(value, str) and not _SIZE.fullmatch(value.strip()):
        raise CaseError(f"{shown} is not a size: a number of at most 20 digits with a unit (256MB, 25%, 1mbps)",
                        field=field)


def _number(value: int | float | str) -> float | None:
    if isinstance(value, str):
        text = value.strip()
        if not re.fullmatch(r"[0-9]{1,20}(\.[0-9]{1,20})?", text):
            return None
        return float(text)
    return float(value) if not isinstance(value, int) or value.bit_length() < 64 else None
