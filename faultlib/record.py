"""The run record (``run.json``): typed, versioned, validated by ``schemas/run.schema.json``."""

from __future__ import annotations

import enum
import platform
import sys
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import Any

from faultlib.findings import Finding

RECORD_VERSION = 1


class Verdict(str, enum.Enum):
    PASSED = "passed"   # both phases ran, every assertion held
    FAILED = "failed"   # an assertion failed
    ERROR = "error"     # a phase crashed or timed out, or the suite could not run


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
    assertions: dict[str, list[str]] = field(default_factory=lambda: {"passed": [], "failed": []})
    artifacts: list[Artifact] = field(default_factory=list)
    archive_uri: str = ""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "record_version": RECORD_VERSION, "run_id": self.run_id, "case": dict(self.case),
            "backend": self.backend, "verdict": self.verdict.value, "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3), "seed": self.seed, "fingerprint": self.fingerprint,
            "control": self.control.to_json(), "faulted": self.faulted.to_json(),
            "assertions": {k: list(v) for k, v in self.assertions.items()},
            "artifacts": [asdict(a) for a in self.artifacts], "archive_uri": self.archive_uri,
            "error": self.error,
        }


def fingerprint(packages: list[str]) -> dict[str, Any]:
    """Python, platform and the versions of ``packages`` (missing ones map to None)."""
    versions: dict[str, str | None] = {}
    for name in sorted(set(packages) | {"faultlib-ml"}):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"python": platform.python_version(), "implementation": sys.implementation.name,
            "platform": platform.platform(), "machine": platform.machine(), "packages": versions}
