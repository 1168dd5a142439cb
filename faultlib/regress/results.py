"""What ``faultlib regress`` reports: one :class:`CaseResult` per case, with one
:class:`AssertionResult` per assertion of the case, gathered in a :class:`RegressResult`.

Each case runs in a worker process (:mod:`faultlib.regress.pool`): an :class:`AssertionResult`
crosses that boundary as JSON (``to_json``/``from_json``; ``from_json`` reads only what ``to_json``
wrote and raises ``ValueError`` on anything else), the run record as ``run.json``'s shape.

Verdicts, what they count as in ``--json`` (passed / failed / errors / skipped), and their exit code:

- ``passed``: the run's verdict was passed (passed, 0);
- ``failed``: an assertion failed (failed, 1);
- ``invalid``: the case directory does not load, see ``faultlib validate`` (failed, 1);
- ``error``: a phase crashed or timed out, the suite could not run, the evidence was unreadable, the
  case's ``requires`` are not met, or the watchdog stopped it (errors, 1);
- ``interrupted``: the regression was stopped (Ctrl-C, SIGTERM) and the run finished as error (errors, 1);
- ``skipped``: the case needs a device this machine lacks, ``requires.devices`` (skipped, 0);
- ``unavailable``: the backend or the archive could not be reached (errors, 3);
- ``not_run``: not started, because an earlier case found the backend or archive unreachable or the
  regression was interrupted (errors, 3).

Exit code of the whole regression: 1 when any case failed, was invalid, errored or was
interrupted; else 3 when a backend or archive was unreachable (a case ``unavailable`` or
``not_run``, or a run the archive did not take); else 0.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faultlib.text import first_line

if TYPE_CHECKING:
    from faultlib.record import RunRecord


class CaseVerdict(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    INVALID = "invalid"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    SKIPPED = "skipped"
    UNAVAILABLE = "unavailable"
    NOT_RUN = "not_run"

    @property
    def counts_as(self) -> str:
        """``passed``, ``failed``, ``errors`` or ``skipped`` (the ``--json`` totals)."""
        if self is CaseVerdict.PASSED:
            return "passed"
        if self in (CaseVerdict.FAILED, CaseVerdict.INVALID):
            return "failed"
        if self is CaseVerdict.SKIPPED:
            return "skipped"
        return "errors"


#: verdicts that mean "the catalog regressed" (exit 1) rather than "the infrastructure failed" (exit 3)
FAILING = frozenset({CaseVerdict.FAILED, CaseVerdict.INVALID, CaseVerdict.ERROR, CaseVerdict.INTERRUPTED})
UNREACHABLE = frozenset({CaseVerdict.UNAVAILABLE, CaseVerdict.NOT_RUN})


class RegressListener:
    """What the progress display of a regression hears (:class:`faultlib.regress.pool.Pool` calls it);
    every method is a no-op. ``state`` is a short phrase (``control 12/100``, ``faulted``, ``assertions (9)``)."""

    def planned(self, cases: list[str]) -> None: ...
    def case_started(self, case_id: str) -> None: ...
    def case_state(self, case_id: str, state: str) -> None: ...
    def case_finished(self, result: CaseResult) -> None: ...


class AssertionStatus(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class AssertionResult:
    """One assertion of a case after a run.

    Attributes:
        id: the assertion id from case.yaml (``""`` for the synthetic ``case``/``run`` entries).
        when: ``before``, ``during``, ``after`` or ``continuous`` (``""`` when not an assertion).
        description: from case.yaml.
        status: passed, failed, error or skipped.
        message: one line: the failure's message from the suite's JUnit XML, or the run's error.
        detail: the longer text (traceback, pytest's failure report), possibly empty.
        time_s: seconds the test took (0 when unknown).
        test: the test function of the case's ``test_case.py`` that checks it (``""`` when not an assertion).
    """

    id: str
    status: AssertionStatus
    when: str = ""
    description: str = ""
    message: str = ""
    detail: str = ""
    time_s: float = 0.0
    test: str = ""

    @property
    def failed(self) -> bool:
        return self.status in (AssertionStatus.FAILED, AssertionStatus.ERROR)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status.value, "when": self.when, "description": self.description,
                "message": self.message, "detail": self.detail, "time_s": round(self.time_s, 3), "test": self.test}

    @classmethod
    def from_json(cls, data: Any) -> AssertionResult:
        """Raises ValueError unless ``data`` has :meth:`to_json`'s shape."""
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise ValueError("an assertion result must be an object with a string id")
        texts = {k: data.get(k, "") for k in ("when", "description", "message", "detail", "test")}
        if not all(isinstance(v, str) for v in texts.values()):
            raise ValueError("assertion when/description/message/detail/test must be strings")
        time_s = data.get("time_s", 0.0)
        if not isinstance(time_s, (int, float)) or isinstance(time_s, bool):
            raise ValueError("assertion time_s must be a number")
        return cls(id=data["id"], status=AssertionStatus(data.get("status")), time_s=float(time_s), **texts)


@dataclass
class CaseResult:
    """One case of a regression.

    Attributes:
        id: the case id.
        verdict: see the module docstring.
        title, fault_class, version, severity: from case.yaml (empty for an invalid case).
        run_id, archive_uri: the run's, when a run started.
        run_dir: where the evidence was written on this machine (an s3:// archive's spool is emptied
            after the upload: then only ``archive_uri`` points at it).
        duration_s: wall time of the case, in seconds.
        error: why the case did not pass, in one paragraph (None when it passed).
        assertions: one per assertion of the case, plus a synthetic ``case`` entry for an invalid
            case and a ``run`` entry when the run failed in a way no assertion shows.
        record: the run record, when the run finished.
        report: the evidence digest for the HTML report (:class:`faultlib.regress.series.ReportData`
            as JSON), when one was asked for.
        not_archived: why the archive did not take the finished run (it waits in the spool).
    """

    id: str
    verdict: CaseVerdict
    title: str = ""
    fault_class: str = ""
    version: str = ""
    severity: str = ""
    run_id: str | None = None
    archive_uri: str | None = None
    run_dir: str | None = None
    duration_s: float = 0.0
    error: str | None = None
    assertions: list[AssertionResult] = field(default_factory=list)
    record: RunRecord | None = None
    report: dict[str, Any] | None = None
    not_archived: str | None = None

    def counts(self) -> dict[str, int]:
        """``{"passed", "failed", "skipped"}`` over the case's assertions (errors count as failed)."""
        out = {"passed": 0, "failed": 0, "skipped": 0}
        for a in self.assertions:
            key = {"passed": "passed", "skipped": "skipped"}.get(a.status.value, "failed")
            out[key] += 1
        return out

    def failures(self) -> list[dict[str, str]]:
        """``{"id", "test", "message"}`` of each failed (or errored) assertion: the test function that checks
        it and the first line of why it failed."""
        return [{"id": a.id, "test": a.test, "message": first_line(a.message)} for a in self.assertions if a.failed]

    def summary_json(self) -> dict[str, Any]:
        """The entry of ``faultlib regress --json``'s ``cases`` list."""
        return {"id": self.id, "verdict": self.verdict.value, "run_id": self.run_id, "archive_uri": self.archive_uri,
                "duration_s": round(self.duration_s, 3), "assertions": self.counts(),
                "fault_class": self.fault_class, "error": self.error, "failures": self.failures()}


@dataclass
class RegressResult:
    """Every case of one ``faultlib regress`` run (one shard), in plan order.

    Attributes:
        cases: the results.
        shard: ``I/N``.
        selected: cases the filter selected in the whole catalog (all shards).
        unreachable: a backend or archive could not be reached (also when a finished run was not archived).
        interrupted: the regression was stopped (Ctrl-C, SIGTERM) before every case ran.
    """

    cases: list[CaseResult]
    shard: str = "0/1"
    selected: int = 0
    unreachable: bool = False
    interrupted: bool = False

    def totals(self) -> dict[str, int]:
        """``{"passed", "failed", "errors", "skipped"}``: cases by what their verdict counts as."""
        out = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
        for case in self.cases:
            out[case.verdict.counts_as] += 1
        return out

    @property
    def exit_code(self) -> int:
        """1 when a case failed (failed, invalid, error, interrupted); else 3 when a backend or the archive
        was unreachable; else 0."""
        if any(c.verdict in FAILING for c in self.cases):
            return 1
        if self.unreachable or any(c.verdict in UNREACHABLE for c in self.cases):
            return 3
        return 0

    def to_json(self) -> dict[str, Any]:
        """What ``faultlib regress --json`` prints."""
        return {"cases": [c.summary_json() for c in self.cases], "shard": self.shard, **self.totals(),
                "selected": self.selected, "exit_code": self.exit_code}
