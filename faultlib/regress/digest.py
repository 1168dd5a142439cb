"""What ``faultlib regress`` keeps of a finished run: the result of every assertion (with the
failure's message from the suite's ``junit.xml``) and, for the HTML report, a digest of the evidence.

A digest is taken from the run directory while it is still on this machine (an ``s3://`` archive
removes its spool copy once uploaded): :class:`DigestingArchive` wraps the run's archive and reads
the run in :meth:`~faultlib.archive.Archive.publish`, the step the runner takes once the run is
finished (``run.json`` and the manifest written) and before the archive takes it away.

Everything here reads evidence a repro wrote, so it never raises on bad evidence: a file that is
missing, too large or malformed gives an empty result and a note.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from faultlib.cases import Case
from faultlib.errors import InputError
from faultlib.evidence import layout
from faultlib.readers.files import Limits
from faultlib.readers.junit import read_junit
from faultlib.record import RunRecord
from faultlib.regress.results import AssertionResult, AssertionStatus

RECORD_LIMITS = Limits(max_bytes=64 << 20, max_nodes=5_000_000)  # run.json: findings of both phases
MESSAGE_MAX = 2_000
DETAIL_MAX = 20_000
STDERR_TAIL_BYTES = 64 << 10
STDERR_TAIL_LINES = 30
_RANK = {AssertionStatus.PASSED: 0, AssertionStatus.SKIPPED: 1, AssertionStatus.FAILED: 2, AssertionStatus.ERROR: 3}


def clip(text: str | None, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut."""
    text = text or ""
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text) - limit} more characters)"


def _suite_tests(junit: Path, case: Case) -> dict[str, list[tuple[AssertionStatus, str, str, float]]]:
    """``{assertion id: [(status, message, detail, seconds), ...]}`` from the suite's JUnit XML (a
    parametrized test has several entries); ``{}`` when the file is missing or unreadable.

    A testcase is matched to its assertion by the name the runner gives it (``case_id::assertion_id``),
    by its ``file`` attribute (``test_case.py::test_function``) or by pytest's own name (the test function).
    """
    root = read_junit(junit)
    if root is None:
        return {}
    ids = {a.id for a in case.assertions}
    by_test = {a.test: a.id for a in case.assertions}
    out: dict[str, list[tuple[AssertionStatus, str, str, float]]] = {}
    for tc in root.iter("testcase"):
        name = tc.get("name") or ""
        named = name.split("::", 1)[1].split("[")[0] if "::" in name else None
        test = (tc.get("file") or "").rpartition("::")[2].split("[")[0] or name.split("[")[0]
        ident = named if named in ids else by_test.get(test)
        if ident is None:
            continue
        status, message, detail = AssertionStatus.PASSED, "", ""
        for child in tc:
            found = {"failure": AssertionStatus.FAILED, "error": AssertionStatus.ERROR,
                     "skipped": AssertionStatus.SKIPPED}.get(child.tag)
            if found is not None and _RANK[found] > _RANK[status]:
                status, message, detail = found, child.get("message") or "", child.text or ""
        try:
            seconds = max(0.0, float(tc.get("time") or 0.0))
        except ValueError:
            seconds = 0.0
        out.setdefault(ident, []).append((status, message, detail, seconds if seconds < 1e7 else 0.0))
    return out


def stderr_tail(run_dir: Path, lines: int = STDERR_TAIL_LINES) -> str:
    """The end of the run's ``stderr.txt``, where a crashed repro's traceback is.

    Args:
        run_dir: the run directory.
        lines: how many lines (of the last 64 KiB at most; the file is never read whole).

    Returns:
        The text (invalid UTF-8 replaced), or ``""`` when the file is missing, a symlink or unreadable.
    """
    path = Path(run_dir) / layout.STDERR
    try:  # the tail only, no symlink followed, no FIFO blocked on: a repro may have written gigabytes
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            size = os.fstat(fd).st_size
            data = os.pread(fd, STDERR_TAIL_BYTES, max(0, size - STDERR_TAIL_BYTES))
        finally:
            os.close(fd)
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:])


def assertion_results(case: Case, run_dir: Path | None, record: RunRecord | None) -> list[AssertionResult]:
    """One result per assertion of ``case`` from the run's ``junit.xml`` and record.

    When the run has an error (a phase crashed or timed out, the suite did not run cleanly), every
    assertion the suite did not pass is an ``error`` with the run's error text, and the tail of the
    repro's stderr as detail. A test the suite did not report is ``failed`` (the runner counts it so).

    Args:
        case: the case that ran.
        run_dir: its run directory on this machine (None: no evidence to read).
        record: the finished run's record (None: the run did not finish).

    Returns:
        Results in the order of ``case.assertions``.
    """
    tests = _suite_tests(run_dir / layout.JUNIT, case) if run_dir else {}
    error = record.error if record else "the run did not finish"
    tail = stderr_tail(run_dir) if run_dir and error else ""
    out = []
    for a in case.assertions:
        entries = tests.get(a.id, [])
        base = {"id": a.id, "when": a.when, "description": a.description, "test": a.test}
        if entries:
            status = max((e[0] for e in entries), key=_RANK.__getitem__)
            worst = [e for e in entries if e[0] is status]
            message = "; ".join(dict.fromkeys(e[1] for e in worst if e[1]))
            detail = "\n\n".join(e[2] for e in worst if e[2])
            seconds = sum(e[3] for e in entries)
        else:
            status, message, detail, seconds = AssertionStatus.FAILED, "", "", 0.0
        if error and status is not AssertionStatus.PASSED:
            status, message, detail = AssertionStatus.ERROR, error, tail or detail
        elif not entries:
            message = f"the assertion suite did not report {a.test}: see {layout.ASSERTIONS_LOG} in the evidence"
        out.append(AssertionResult(status=status, message=clip(message, MESSAGE_MAX), detail=clip(detail, DETAIL_MAX),
                                   time_s=seconds, **base))
    return out


class DigestingArchive:
    """Wraps the run's archive: when the runner publishes a finished run, read its assertion results
    and (optionally) the report digest first; everything else goes to the wrapped archive.

    Args:
        inner: the archive the run goes to (:func:`faultlib.archive.open_archive`).
        case: the case being run.
        report: also digest the evidence for the HTML report (reads traces and metrics: costs time).

    Attributes:
        assertions: set once the run was published (or :meth:`digest` was called).
        report: the report digest (JSON), when asked for.
        run_dir: the run directory that was digested.
    """

    def __init__(self, inner: Any, case: Case, *, report: bool):
        self._inner = inner
        self._case = case
        self._want_report = report
        self.assertions: list[AssertionResult] | None = None
        self.report: dict[str, Any] | None = None
        self.run_dir: Path | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def publish(self, run_dir: Path, case_id: str, run_id: str) -> None:
        """Digest the finished run, then hand it to the wrapped archive (whose errors pass through)."""
        self.digest(Path(run_dir), _read_record(Path(run_dir)))
        self._inner.publish(run_dir, case_id, run_id)

    def digest(self, run_dir: Path, record: RunRecord | None) -> None:
        """Read the assertion results (and the report digest) of ``run_dir``; never raises on bad evidence."""
        self.run_dir = run_dir
        self.assertions = assertion_results(self._case, run_dir, record)
        if self._want_report:
            from faultlib.regress.series import report_data

            try:
                self.report = report_data(self._case, run_dir).to_json()
            except Exception as exc:  # noqa: BLE001 (a report must never cost the run its result)
                self.report = {"error": f"the evidence could not be summarised: {type(exc).__name__}: {exc}"}


def _read_record(run_dir: Path) -> RunRecord | None:
    from faultlib.readers.jsondoc import load_json_file

    try:
        return RunRecord.from_json(load_json_file(run_dir / layout.RUN, limits=RECORD_LIMITS))
    except (InputError, OSError, ValueError):
        return None
