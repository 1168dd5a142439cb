"""Typed view of a validated case.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Shim:
    """One entry of ``inject.local``: a registered injector name and its parameters."""

    name: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Assertion:
    """One entry of ``assertions``: when it is checked and the test that checks it."""

    id: str
    when: str  # before | during | after | continuous
    test: str
    description: str


@dataclass(frozen=True)
class Case:
    """A loaded, validated case directory.

    Attributes:
        path: the case directory (absolute).
        raw: the parsed case.yaml, for fields without a typed accessor.
    """

    path: Path
    id: str
    version: str
    title: str
    fault_class: str
    severity: str
    script: Path
    params: dict[str, Any]
    seed: int
    timeout_s: float
    shims: tuple[Shim, ...]
    assertions: tuple[Assertion, ...]
    requires: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)

    @property
    def test_file(self) -> Path:
        return self.path / "test_case.py"

    @classmethod
    def from_data(cls, path: Path, data: dict[str, Any]) -> "Case":
        repro = data["repro"]
        return cls(
            path=path,
            id=data["id"],
            version=data["version"],
            title=data["title"],
            fault_class=data["fault_class"],
            severity=data["severity"],
            script=path / repro["script"],
            params=dict(repro.get("params") or {}),
            seed=int(repro.get("seed", 0)),
            timeout_s=float(repro["timeout_s"]),
            shims=tuple(Shim(s["shim"], dict(s.get("params") or {})) for s in data["inject"]["local"]),
            assertions=tuple(Assertion(a["id"], a["when"], a["test"], a["description"])
                             for a in data["assertions"]),
            requires=dict(data["requires"]),
            raw=data,
        )
