"""Whether the spans and metrics a case names were emitted in its last archived run.

The run compared with is the case's last *passed* run: complete (its manifest exists and is well
formed), verdict ``passed``, with the highest run id (run ids sort by start time) in the archive's
listing (:meth:`Archive.list_runs`, listed once per archive). A run that errored, failed or was
interrupted may have stopped before it emitted what the case declares: it is never compared with
(a crashed run must not make a correct declaration look wrong); when the case's latest run is such
a run, :meth:`RunIndex.unchecked` says so ("re-run it"). Span names come from the run's ``traces.jsonl`` (both phases, read by the
evidence reader); metric names are the Prometheus sample names of its ``metrics.om`` when the run
has one, else ``metrics.prom``: a declared ``x`` is seen when ``x`` is, or, for a histogram,
``x_bucket``/``x_count``/``x_sum``. A ``file://`` run is read in place; another archive's run is
fetched (verified against its manifest) into a temporary directory first.

No run of the case means nothing to compare with: a note, not an error.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faultlib.archive.file import FileArchive
from faultlib.errors import ArchiveError, ArchiveUnavailable, InputError
from faultlib.evidence import layout
from faultlib.observability.promql_check import HISTOGRAM_SUFFIXES
from faultlib.readers import Limits, read_text

EXPOSITION_LIMITS = Limits(max_bytes=64 << 20)
#: a sample line starts with its metric name (text format 0.0.4 and OpenMetrics alike)
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)")


@dataclass(frozen=True)
class LastRun:
    """The names one archived run emitted.

    Attributes:
        label: ``case/run_id in URI, verdict V``, for messages.
        spans: span names of both phases.
        metrics: Prometheus sample names (``x_total``, ``x_bucket``, ...).
        metrics_file: the file the metric names came from (``metrics.om`` or ``metrics.prom``).
        damaged: why the run's files cannot be trusted (they differ from its manifest), or None.
    """

    label: str
    spans: frozenset[str]
    metrics: frozenset[str]
    metrics_file: str
    damaged: str | None = None


def prometheus_names(text: str) -> set[str]:
    """The metric name of every sample line of a Prometheus text or OpenMetrics exposition."""
    names = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            match = _SAMPLE.match(line)
            if match:
                names.add(match.group(1))
    return names


def read_names(run_dir: Path, label: str) -> LastRun:
    """Span and metric names of the run in ``run_dir`` (unreadable evidence reads as absent); a run whose
    files differ from its manifest is read as ``damaged`` (nothing of it is trusted)."""
    from faultlib.archive.manifest import verify
    from faultlib.evidence.reader import iter_spans

    try:
        mismatches = verify(run_dir)
    except ArchiveError as exc:  # ManifestError included: a malformed manifest
        mismatches = [str(exc)]
    if mismatches:
        more = f" (and {len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
        return LastRun(label, frozenset(), frozenset(), layout.MANIFEST, damaged=f"{mismatches[0]}{more}")

    spans = {span.name for _, span in iter_spans(run_dir / layout.TRACES)}
    metrics_file = layout.METRICS_OM if (run_dir / layout.METRICS_OM).is_file() else layout.METRICS_PROM
    try:
        text = read_text(run_dir / metrics_file, limits=EXPOSITION_LIMITS, root=run_dir)
    except InputError:
        text = ""
    return LastRun(label, frozenset(spans), frozenset(prometheus_names(text)), metrics_file)


class RunIndex:
    """The last complete run of each case in one archive, listed once and read on demand.

    Args:
        archive: the :class:`~faultlib.archive.Archive` to look in.
        explicit: the user named it (``--archive``): a missing archive is then an error, not a note.
    """

    def __init__(self, archive, *, explicit: bool):
        self.archive = archive
        self.explicit = explicit
        self.note: str | None = None
        self._latest: dict | None = None  # case id -> last passed StoredRun
        self._newest: dict = {}  # case id -> newest complete StoredRun, whatever its verdict
        self._read: dict[str, LastRun | None] = {}

    def _listing(self) -> dict:
        if self._latest is None:
            self._latest = {}
            try:
                runs = self.archive.list_runs()
            except ArchiveUnavailable:
                raise
            except ArchiveError as exc:
                if self.explicit:
                    raise
                self.note = f"no archived runs to check spans and metrics against ({exc})"
                runs = []
            for run in runs:
                if not run.complete:
                    continue
                if run.case not in self._newest or run.run_id > self._newest[run.case].run_id:
                    self._newest[run.case] = run
                if run.verdict == "passed" and (run.case not in self._latest
                                                or run.run_id > self._latest[run.case].run_id):
                    self._latest[run.case] = run
        return self._latest

    def unchecked(self, case_id: str) -> str | None:
        """Why ``case_id``'s newest run was not the one compared with (it did not pass), or None.

        The message names the run and its verdict and says what to do: re-run the case; when an older
        passed run exists it says the comparison used that one instead.
        """
        latest = self._listing().get(case_id)
        newest = self._newest.get(case_id)
        if newest is None or newest is latest:
            return None
        where = f"{case_id}/{newest.run_id} in {self.archive.uri}"
        verdict = newest.verdict or "unknown"
        done = (f"spans and metrics were checked against the last passed run {latest.run_id} instead"
                if latest is not None else "spans and metrics were not checked")
        return f"the last run of {case_id} ({where}) ended with verdict {verdict}: {done}; re-run it"

    def last_run(self, case_id: str) -> LastRun | None:
        """The names emitted by ``case_id``'s last passed run, or None when it has none.

        Raises:
            ArchiveError: an explicit archive is missing, or the run cannot be fetched.
            ArchiveUnavailable: the store could not be reached.
        """
        if case_id not in self._read:
            run = self._listing().get(case_id)
            found = None
            if run is not None:
                label = f"{case_id}/{run.run_id} in {self.archive.uri}, verdict {run.verdict}"
                if isinstance(self.archive, FileArchive):  # read in place
                    found = read_names(self.archive.root / case_id / run.run_id, label)
                else:
                    with tempfile.TemporaryDirectory(prefix="faultlib-validate-") as tmp:
                        found = read_names(self.archive.get(case_id, run.run_id, Path(tmp)), label)
            self._read[case_id] = found
        return self._read[case_id]


def seen_problems(data: Any, last: LastRun) -> list[tuple[list, str]]:
    """``(field path, message)`` for each span and metric of a case's ``observability`` that ``last``
    did not emit."""
    obs = data.get("observability") if isinstance(data, dict) else None
    obs = obs if isinstance(obs, dict) else {}
    if last.damaged:
        return [(["observability"], f"the last archived run ({last.label}) does not match its manifest: "
                                    f"{last.damaged}; its spans and metrics were not compared. Run the case again "
                                    "into that archive, or remove the damaged run")]
    problems = []
    for i, span in enumerate(obs.get("spans") if isinstance(obs.get("spans"), list) else []):
        if isinstance(span, str) and span not in last.spans:
            problems.append((["observability", "spans", i],
                             f"span {span!r} was never emitted in the last archived run ({last.label}): emit it "
                             "from the repro, or remove it from observability.spans"))
    for i, metric in enumerate(obs.get("metrics") if isinstance(obs.get("metrics"), list) else []):
        if not isinstance(metric, str):
            continue
        if metric in last.metrics or any(metric + s in last.metrics for s in HISTOGRAM_SUFFIXES):
            continue
        problems.append((["observability", "metrics", i],
                         f"metric {metric!r} was never emitted in the last archived run ({last.label}: not in its "
                         f"{last.metrics_file}): emit it from the repro, or remove it from observability.metrics"))
    return problems
