"""The one result type every detector returns: a typed, frozen :class:`Finding`.

JSON shape (``schemas/finding.schema.json``)::

    {"detector": str, "kind": str, "severity": "info|warning|error|critical", "message": str,
     "location": {"module", "op", "step", "phase", "file", "line", "column", "function", "key", "node",
                  "column_name", "index"},
     "evidence": {...}}

``kind`` is a stable snake_case code for what was found, the way a linter names its rules
(``fit_before_split``, ``fp16_overflow``); ``faultlib check --list-kinds`` lists every kind.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any

LOCATION_KEYS = ("module", "op", "step", "phase", "file", "line", "column", "function", "key", "node", "column_name",
                 "index")
KIND_PATTERN = re.compile(r"[a-z][a-z0-9_]*")


def kind_of(detector: str) -> str:
    """The default kind of a detector's findings: its name as snake_case (``faultlib.runner`` -> ``faultlib_runner``)."""
    kind = re.sub(r"[^a-z0-9]+", "_", detector.lower()).strip("_")
    return kind if kind and kind[0].isalpha() else f"k_{kind}"


class Severity(str, enum.Enum):
    """How bad a finding is; ordered, so ``Severity.ERROR >= Severity.WARNING``."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)

    def __ge__(self, other: "Severity") -> bool:  # type: ignore[override]
        return self.rank >= Severity(other).rank

    def __gt__(self, other: "Severity") -> bool:  # type: ignore[override]
        return self.rank > Severity(other).rank

    def __le__(self, other: "Severity") -> bool:  # type: ignore[override]
        return self.rank <= Severity(other).rank

    def __lt__(self, other: "Severity") -> bool:  # type: ignore[override]
        return self.rank < Severity(other).rank


@dataclass(frozen=True)
class Finding:
    """One thing a detector caught.

    Attributes:
        detector: registered detector name, e.g. ``"fp16_overflow"``.
        severity: :class:`Severity`.
        message: one sentence a person can act on.
        location: where it happened; only keys from :data:`LOCATION_KEYS`.
        evidence: JSON-serialisable numbers that back the message.
        kind: stable snake_case code of what was found (default: the detector's name as snake_case).

    Raises:
        ValueError: an unknown location key, or a kind that is not snake_case.
    """

    detector: str
    severity: Severity
    message: str
    location: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    kind: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", Severity(self.severity))
        object.__setattr__(self, "kind", self.kind or kind_of(self.detector))
        if not KIND_PATTERN.fullmatch(self.kind):
            raise ValueError(f"kind {self.kind!r} must be snake_case ([a-z][a-z0-9_]*)")
        unknown = set(self.location) - set(LOCATION_KEYS)
        if unknown:
            raise ValueError(f"unknown location keys {sorted(unknown)}; allowed: {LOCATION_KEYS}")

    def to_json(self) -> dict[str, Any]:
        return {"detector": self.detector, "kind": self.kind, "severity": self.severity.value, "message": self.message,
                "location": dict(self.location), "evidence": dict(self.evidence)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Finding":
        return cls(detector=data["detector"], severity=Severity(data["severity"]),
                   message=data["message"], location=dict(data.get("location") or {}),
                   evidence=dict(data.get("evidence") or {}), kind=data.get("kind") or "")


#: the kind every analysis that could not finish reports (DESIGN: an incomplete analysis is never exit 0 "ok")
ANALYSIS_INCOMPLETE = "analysis_incomplete"
ANALYSIS_INCOMPLETE_MEANS = ("the analysis could not finish (a budget ran out, input nested too deeply, a construct "
                             "it does not model): what it did not reach was not checked")


def analysis_incomplete(detector: str, why: str, location: dict[str, Any] | None = None) -> Finding:
    """The warning finding of an analysis that stopped early: ``why`` says where and why (with the limit that
    stopped it), so ``faultlib check`` exits 1 at the default ``--fail-on warning`` instead of 0 "ok"."""
    return Finding(detector, Severity.WARNING, f"analysis incomplete: {why}; what it did not reach was not checked",
                   dict(location or {}), {"reason": why}, kind=ANALYSIS_INCOMPLETE)
