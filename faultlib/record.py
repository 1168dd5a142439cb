"""The run record (``run.json``): typed, versioned, validated by ``schemas/run.schema.json``.

:meth:`RunRecord.from_json` reads a record back (the progress a killed runner left in its lock
file, :mod:`faultlib.runlock`); it checks every type and raises ``ValueError`` on anything else.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

from faultlib.findings import Finding

RECORD_VERSION = 1


class Verdict(str, enum.Enum):
    PASSED = "passed"   # both phases ran, every assertion held
    FAILED = "failed"   # an assertion failed
    ERROR = "error"     # a phase crashed or timed out, the suite could not run, or evidence was unreadable
    INTERRUPTED = "interrupted"  # the runner died (kill -9, power loss); finished by faultlib.runlock


class PhaseStatus(str, enum.Enum):
    OK = "ok"
    CRASHED = "crashed"   # non-zero exit
    TIMEOUT = "timeout"   # killed at repro.timeout_s
    SKIPPED = "skipped"   # not run (--no-control, or an earlier phase failed)
    INTERRUPTED = "interrupted"  # the runner was stopped (Ctrl-C, SIGTERM) while the phase ran


@dataclass(frozen=True)
class Attempt:
    """One process of a phase; a phase has several when ``repro.restarts`` restarted it.

    ``exit_code`` is negative (``-9``) when a signal ended the process, and ``signal`` names it;
    ``exit_code`` is None when the runner killed it at the timeout. ``duration_s`` in seconds.
    """

    attempt: int
    exit_code: int | None
    signal: str | None
    duration_s: float

    def to_json(self) -> dict[str, Any]:
        return {"attempt": self.attempt, "exit_code": self.exit_code, "signal": self.signal,
                "duration_s": round(self.duration_s, 3)}

    @classmethod
    def from_json(cls, data: Any) -> "Attempt":
        """Raises ValueError unless ``data`` has :meth:`to_json`'s shape."""
        data = _mapping(data, "attempt")
        return cls(_int(data.get("attempt"), "attempt"), _opt_int(data.get("exit_code"), "exit_code"),
                   _opt_str(data.get("signal"), "signal"), _number(data.get("duration_s", 0.0), "duration_s"))


@dataclass
class PhaseResult:
    """One phase of the run. ``duration_s`` in seconds (all attempts); ``exit_code`` (of the last
    attempt) is None when killed at the timeout or skipped."""

    status: PhaseStatus = PhaseStatus.SKIPPED
    exit_code: int | None = None
    duration_s: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.value, "exit_code": self.exit_code, "duration_s": round(self.duration_s, 3),
                "findings": [f.to_json() for f in self.findings], "attempts": [a.to_json() for a in self.attempts]}

    @classmethod
    def from_json(cls, data: Any) -> "PhaseResult":
        """Raises ValueError unless ``data`` has :meth:`to_json`'s shape (findings are not read back:
        they are re-read from ``findings.jsonl``)."""
        data = _mapping(data, "phase")
        try:
            status = PhaseStatus(data.get("status"))
        except ValueError:
            raise ValueError(f"phase status {data.get('status')!r} is not one of the known ones") from None
        attempts = data.get("attempts") or []
        if not isinstance(attempts, list):
            raise ValueError("phase attempts must be a list")
        return cls(status=status, exit_code=_opt_int(data.get("exit_code"), "exit_code"),
                   duration_s=_number(data.get("duration_s", 0.0), "duration_s"),
                   attempts=[Attempt.from_json(a) for a in attempts])


@dataclass(frozen=True)
class Artifact:
    name: str      # path relative to the run directory, "/"-separated
    bytes: int
    sha256: str


@dataclass
class RunRecord:
    """Everything ``faultlib run --json`` prints and ``run.json`` holds."""

    run_id: str
    case: dict[str, str]           # {"id", "version", "path"}
    backend: str
    started_at: str                # ISO 8601, UTC
    seed: int
    fingerprint: dict[str, Any]
    verdict: Verdict = Verdict.ERROR
    duration_s: float = 0.0
    control: PhaseResult = field(default_factory=PhaseResult)
    faulted: PhaseResult = field(default_factory=PhaseResult)
    #: ``{"passed": [ids], "failed": [ids], "skipped": [ids], "failures": [{"id", "test", "message"}]}``:
    #: each failed assertion's test function and the first line of its failure message
    assertions: dict[str, list] = field(default_factory=lambda: {"passed": [], "failed": []})
    artifacts: list[Artifact] = field(default_factory=list)
    archive_uri: str = ""
    error: str | None = None
    findings: list[Finding] = field(default_factory=list)  # the runner's own: evidence it could not read

    def to_json(self) -> dict[str, Any]:
        return {
            "record_version": RECORD_VERSION, "run_id": self.run_id, "case": dict(self.case),
            "backend": self.backend, "verdict": self.verdict.value, "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3), "seed": self.seed, "fingerprint": self.fingerprint,
            "control": self.control.to_json(), "faulted": self.faulted.to_json(),
            "assertions": {k: [dict(i) if isinstance(i, dict) else i for i in v] for k, v in self.assertions.items()},
            "artifacts": [asdict(a) for a in self.artifacts], "archive_uri": self.archive_uri,
            "error": self.error, "findings": [f.to_json() for f in self.findings],
        }

    @classmethod
    def from_json(cls, data: Any) -> "RunRecord":
        """A record from :meth:`to_json`'s shape; phases and assertions are read back, artifacts and
        findings are not (they are recomputed when the run is finished).

        Raises:
            ValueError: a field is missing or has the wrong type (the message names it).
        """
        data = _mapping(data, "record")
        case = _mapping(data.get("case"), "case")
        if not all(isinstance(case.get(k), str) for k in ("id", "version", "path")):
            raise ValueError("case must hold the strings id, version and path")
        try:
            verdict = Verdict(data.get("verdict", "error"))
        except ValueError:
            raise ValueError(f"verdict {data.get('verdict')!r} is not one of the known ones") from None
        assertions = _mapping(data.get("assertions", {"passed": [], "failed": []}), "assertions")
        lists = {k: assertions.get(k, []) for k in ("passed", "failed", "skipped") if k in assertions or k != "skipped"}
        if not all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in lists.values()):
            raise ValueError("assertions.passed and assertions.failed must be lists of strings")
        failures = assertions.get("failures")
        if failures is not None:
            if not isinstance(failures, list) or not all(
                    isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("id", "test", "message"))
                    for f in failures):
                raise ValueError("assertions.failures must be a list of {id, test, message} strings")
            lists["failures"] = [{k: f[k] for k in ("id", "test", "message")} for f in failures]
        fp = _mapping(data.get("fingerprint"), "fingerprint")
        for name in ("run_id", "backend", "started_at"):
            if not isinstance(data.get(name), str):
                raise ValueError(f"{name} must be a string")
        return cls(run_id=data["run_id"], case={k: case[k] for k in ("id", "version", "path")},
                   backend=data["backend"], started_at=data["started_at"], seed=_int(data.get("seed"), "seed"),
                   fingerprint=fp, verdict=verdict, duration_s=_number(data.get("duration_s", 0.0), "duration_s"),
                   control=PhaseResult.from_json(data.get("control", {"status": "skipped"})),
                   faulted=PhaseResult.from_json(data.get("faulted", {"status": "skipped"})),
                   assertions=lists, archive_uri=_opt_str(data.get("archive_uri"), "archive_uri") or "",
                   error=_opt_str(data.get("error"), "error"))


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object")
    return value


def _int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} must be an integer")
    return value


def _opt_int(value: Any, what: str) -> int | None:
    return None if value is None else _int(value, what)


def _opt_str(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{what} must be a string or null")
    return value


def _number(value: Any, what: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0:
        raise ValueError(f"{what} must be a number >= 0")
    return float(value)


def fingerprint() -> dict[str, Any]:
    """The environment of this run, as :func:`faultlib.fingerprint.collect` gives it (``format`` 1: Python,
    platform, every installed distribution, torch's build, devices; see ``schemas/run.schema.json``).

    Cached per process: the first call in a process imports torch when it is installed (about 0.9 s on
    2 cores), later calls copy the cached dict."""
    from faultlib.fingerprint import collect

    return collect()
