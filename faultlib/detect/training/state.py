"""The records of ``check resume``'s static analysis: one :class:`StateObject` per piece of training state and
the :class:`ResumeReport` of a script."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from faultlib.findings import Finding


@dataclass
class StateObject:
    """One piece of training state.

    Attributes:
        name: its identifier in the script (``scheduler``; ``torch`` RNG as ``torch.random``).
        kind: ``model``, ``optimizer``, ``scheduler``, ``grad_scaler``, ``ema``, ``generator``, ``counter``,
            ``rng_torch``, ``rng_numpy``, ``rng_python`` or ``rng_cuda``.
        line: where it is created (the loop for a counter, the first draw for an RNG).
        function: the qualified function (``<module>`` at top level).
        saved: lines of the saves that carry it.
        restored: lines that restore it.
        implicit: the framework that saves and restores it (``lightning``, ``transformers.Trainer``,
            ``accelerate``), or ``None``.
    """

    name: str
    kind: str
    line: int
    function: str
    saved: list[int] = field(default_factory=list)
    restored: list[int] = field(default_factory=list)
    implicit: str | None = None


@dataclass
class ResumeReport:
    """What :func:`analyze_resume_source` found (``objects``, ``saves``/``loads`` as ``{line, function, call}``)."""

    file: str
    findings: list[Finding] = field(default_factory=list)
    objects: list[StateObject] = field(default_factory=list)
    saves: list[dict[str, Any]] = field(default_factory=list)
    loads: list[dict[str, Any]] = field(default_factory=list)
    implicit: list[str] = field(default_factory=list)
    complete: bool = True

    def fields(self) -> dict[str, Any]:
        return {"file": self.file, "objects": [asdict(o) for o in self.objects], "saves": self.saves,
                "loads": self.loads, "implicit": self.implicit, "complete": self.complete}
