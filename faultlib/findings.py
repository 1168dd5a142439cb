"""The one result type every detector returns: a typed, frozen :class:`Finding`.

JSON shape (``schemas/finding.schema.json``)::

    {"detector": str, "severity": "info|warning|error|critical", "message": str,
     "location": {"module", "op", "step", "phase", "file", "line", "column", "key", "node"},
     "evidence": {...}}
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

LOCATION_KEYS = ("module", "op", "step", "phase", "file", "line", "column", "key", "node")


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
    """

    detector: str
    severity: Severity
    message: str
    location: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", Severity(self.severity))
        unknown = set(self.location) - set(LOCATION_KEYS)
        if unknown:
            raise ValueError(f"unknown location keys {sorted(unknown)}; allowed: {LOCATION_KEYS}")

    def to_json(self) -> dict[str, Any]:
        return {"detector": self.detector, "severity": self.severity.value, "message": self.message,
                "location": dict(self.location), "evidence": dict(self.evidence)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Finding":
        return cls(detector=data["detector"], severity=Severity(data["severity"]),
                   message=data["message"], location=dict(data.get("location") or {}),
                   evidence=dict(data.get("evidence") or {}))
