"""``promql.json``: a case's PromQL evaluated per phase and fault window, written and read back.

Shape (``schemas/promql.schema.json``, closed)::

    {"prometheus": "2.42.0+ds",
     "queries": [{"id", "query", "phase", "window", "start", "end", "step",
                  "series": [{"labels": {...}, "values": [[t, v], ...], "phase_label": true}],
                  "error": null}]}

One entry per query id x phase x window (:mod:`faultlib.observability.windows`); ``start``, ``end``
and ``t`` in seconds since the epoch, ``step`` in seconds. ``v`` is a number, or ``"NaN"``,
``"+Inf"``, ``"-Inf"`` (JSON has no NaN). ``series`` keeps the series whose ``phase`` label is the
entry's phase (both phases live in one TSDB); a series without a ``phase`` label (``sum(x)``) is kept
with ``phase_label: false``: its value may mix both phases. ``error`` is Prometheus' error text for a
query it rejected (the entry then has no series).

Reading (:func:`load`) goes through the hardened JSON reader and the schema; assertion suites use
:meth:`PromqlResults.select` through ``evidence.promql(...)``, which answers with a
:class:`PromqlSelection`: the series, their values, and ``max()``/``min()`` that refuse to answer on
nothing (a failed query, or no value in the window) with a :class:`~faultlib.errors.PromqlError`
naming the query, phase and window.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faultlib.errors import InputError, PromqlError, PromqlNotRecorded
from faultlib.evidence import layout
from faultlib.readers.jsondoc import load_json_file
from faultlib.readers.files import Limits

#: promql.json is written by the runner: a few KB per query and window
LIMITS = Limits(max_bytes=256 << 20, max_depth=16, max_nodes=20_000_000)
NOT_RECORDED = "no PromQL results in this run: run with --prometheus (faultlib run --prometheus CASE_DIR)"
NOT_EVALUATED = (f"no PromQL results: Prometheus failed while evaluating this run's queries (see {layout.PROMETHEUS_LOG} "
                 "and the run's prometheus_unavailable finding)")
_NONFINITE = {"NaN": math.nan, "+Inf": math.inf, "-Inf": -math.inf}
_MISSING = object()


def encode_value(value: float) -> float | str:
    """``value`` for JSON: NaN and infinities as ``"NaN"``, ``"+Inf"``, ``"-Inf"``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


def decode_value(value: float | int | str) -> float:
    """The inverse of :func:`encode_value`."""
    return _NONFINITE[value] if isinstance(value, str) else float(value)


def dumps(document: dict[str, Any]) -> bytes:
    """``document`` (values already encoded with :func:`encode_value`) as strict JSON bytes."""
    return (json.dumps(document, indent=1, allow_nan=False) + "\n").encode()


@dataclass(frozen=True)
class Series:
    """One series: ``labels`` and ``(t, v)`` pairs (seconds since the epoch, float); ``phase_label`` is
    False when the series carries no ``phase`` label (its value may mix both phases)."""

    labels: dict[str, str]
    values: tuple[tuple[float, float], ...]
    phase_label: bool = True


@dataclass(frozen=True)
class QueryResult:
    """One query evaluated over one window of one phase (see the module docstring)."""

    id: str
    query: str
    phase: str
    window: str
    start: float
    end: float
    step: float
    series: tuple[Series, ...]
    error: str | None


class PromqlSelection(Sequence):
    """The series of one query in one phase and window: a sequence of :class:`Series`.

    An assertion reads ``evidence.promql("overflow_rate", phase="faulted", window="during").max() > 0``.
    """

    def __init__(self, result: QueryResult):
        self.result = result

    def __getitem__(self, index):
        return self.result.series[index]

    def __len__(self) -> int:
        return len(self.result.series)

    def __repr__(self) -> str:
        r = self.result
        return f"<PromQL {r.id} {r.phase}/{r.window}: {len(self)} series, {len(self.values())} values>"

    @property
    def where(self) -> str:
        r = self.result
        return f"PromQL {r.id!r} ({r.query}) in {r.phase}/{r.window} [{r.start:.3f}, {r.end:.3f}]"

    def values(self) -> list[float]:
        """Every value of every series (series after series, each in time order), NaN included.

        Raises:
            PromqlError: Prometheus rejected the query (its error text is quoted).
        """
        if self.result.error:
            raise PromqlError(f"{self.where} failed in Prometheus: {self.result.error}")
        return [v for s in self.result.series for _, v in s.values]

    def _extreme(self, pick, default):
        numbers = [v for v in self.values() if not math.isnan(v)]
        if numbers:
            return pick(numbers)
        if default is not _MISSING:
            return default
        raise PromqlError(f"{self.where} returned no value (no sample in the window, or only NaN: "
                          f"{len(self)} series); pass default=... to accept that")

    def max(self, default: Any = _MISSING) -> float:
        """The largest value (NaN ignored).

        Raises:
            PromqlError: the query failed, or there is no value and no ``default``.
        """
        return self._extreme(max, default)

    def min(self, default: Any = _MISSING) -> float:
        """The smallest value (NaN ignored); errors as :meth:`max`."""
        return self._extreme(min, default)


@dataclass(frozen=True)
class PromqlResults:
    """A run's ``promql.json``. ``prometheus``: the server's version."""

    prometheus: str
    queries: tuple[QueryResult, ...]

    def ids(self) -> list[str]:
        return list(dict.fromkeys(q.id for q in self.queries))

    def windows(self, phase: str) -> list[str]:
        """The windows evaluated for ``phase``, in time order (``run`` last)."""
        return list(dict.fromkeys(q.window for q in self.queries if q.phase == phase))

    def select(self, query_id: str, *, phase: str, window: str = "run") -> PromqlSelection:
        """The result of query ``query_id`` in ``phase`` (``control``/``faulted``) and ``window``
        (``before``/``during``/``after``, or ``run``: the whole phase).

        Raises:
            PromqlError: no such query id, or no such window in that phase (the message lists them).
        """
        if not self.queries:
            raise PromqlError(f"{layout.PROMQL} holds no result: the run recorded no span to take its time windows "
                              "from (see traces.jsonl)")
        if query_id not in self.ids():
            raise PromqlError(f"no PromQL query {query_id!r} in {layout.PROMQL}; queries: {', '.join(self.ids())}")
        for q in self.queries:
            if q.id == query_id and q.phase == phase and q.window == window:
                return PromqlSelection(q)
        raise PromqlError(f"PromQL {query_id!r} has no window {window!r} in phase {phase!r}; windows there: "
                          f"{', '.join(self.windows(phase)) or 'none'}")


def from_json(data: dict[str, Any]) -> PromqlResults:
    """Build from a document valid against ``promql.schema.json``."""
    queries = []
    for q in data["queries"]:
        series = tuple(Series({str(k): str(v) for k, v in s["labels"].items()},
                              tuple((float(t), decode_value(v)) for t, v in s["values"]), bool(s["phase_label"]))
                       for s in q["series"])
        queries.append(QueryResult(q["id"], q["query"], q["phase"], q["window"], float(q["start"]), float(q["end"]),
                                   float(q["step"]), series, q["error"]))
    return PromqlResults(str(data["prometheus"]), tuple(queries))


def load(run_dir: str | Path) -> PromqlResults:
    """Read and validate ``run_dir/promql.json``.

    Raises:
        PromqlNotRecorded: the file does not exist (the run was made without ``--prometheus``).
        PromqlError: it cannot be read (a symlink, too large, not JSON) or does not match the schema.
    """
    from faultlib import schemas

    path = Path(run_dir) / layout.PROMQL
    if not os.path.lexists(path):
        if os.path.lexists(Path(run_dir) / layout.PROMETHEUS_LOG):
            raise PromqlNotRecorded(NOT_EVALUATED)
        raise PromqlNotRecorded(NOT_RECORDED)
    try:
        data = load_json_file(path, limits=LIMITS)
    except InputError as exc:
        raise PromqlError(f"{layout.PROMQL} cannot be read: {exc}") from exc
    error = next(iter(sorted(schemas.validator("promql").iter_errors(data), key=lambda e: list(e.path))), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        raise PromqlError(f"{layout.PROMQL} does not match promql.schema.json at {where}: {error.message[:300]}")
    return from_json(data)
