"""Typed view of a validated case.yaml."""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def signal_name(exit_code: int | None) -> str | None:
    """``SIGKILL`` for a process exit code of -9 (how ``subprocess`` reports a death by signal); None otherwise."""
    if exit_code is None or exit_code >= 0:
        return None
    try:
        return signal.Signals(-exit_code).name
    except ValueError:
        return f"signal {-exit_code}"


@dataclass(frozen=True)
class RestartPolicy:
    """``repro.restarts``: restart a phase whose process a signal ended (a preemption, a pod kill).

    Attributes:
        max: restarts allowed per phase (0 = never, the default).
        on_signal: the signal names that warrant a restart, default ``("SIGKILL",)``.
    """

    max: int = 0
    on_signal: tuple[str, ...] = ("SIGKILL",)

    def allows(self, exit_code: int | None, attempt: int) -> bool:
        """Whether attempt ``attempt`` (1-based) that ended with ``exit_code`` is restarted."""
        return attempt <= self.max and signal_name(exit_code) in self.on_signal

    @classmethod
    def from_data(cls, data: dict[str, Any] | None) -> "RestartPolicy":
        if not data:
            return cls()
        return cls(max=int(data["max"]), on_signal=tuple(data.get("on_signal") or ("SIGKILL",)))


@dataclass(frozen=True)
class World:
    """``repro.world``: the repro is one rank of a ``torch.distributed`` job.

    The local backend starts the world once per phase with ``torchrun --standalone`` (PyTorch's
    elastic launcher: ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``/``MASTER_PORT`` in each
    rank's environment, no restarts); on Kubernetes the ranks are the pods of a Kubeflow
    ``PyTorchJob``. Every rank writes into the one run directory; metrics and spans carry ``rank``.

    Attributes:
        ranks: world size (processes), 2-64.
        backend: the process-group backend the repro is written for (``gloo`` on CPU, ``nccl`` on GPUs).
    """

    ranks: int
    backend: str = "gloo"

    def launcher_argv(self, python: str, script: str) -> list[str]:
        """The command that starts every rank of ``script`` on one machine (no shell).

        ``--max-restarts 0``: a failed rank fails the phase (the runner's restarts, not torchrun's);
        ``--monitor-interval 0.5`` s: a dead rank ends the world within half a second.
        """
        return [python, "-m", "torch.distributed.run", "--standalone", "--nnodes", "1",
                "--nproc-per-node", str(self.ranks), "--max-restarts", "0", "--monitor-interval", "0.5", script]

    @classmethod
    def from_data(cls, data: dict[str, Any] | None) -> "World | None":
        if not data:
            return None
        return cls(ranks=int(data["ranks"]), backend=str(data.get("backend", "gloo")))


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
    restarts: RestartPolicy = RestartPolicy()
    world: World | None = None

    @property
    def test_file(self) -> Path:
        return self.path / "test_case.py"

    @property
    def promql(self) -> tuple[tuple[str, str], ...]:
        """``(id, query)`` of every ``observability.promql`` query, in file order."""
        return tuple((str(q["id"]), str(q["query"]))
                     for q in (self.raw.get("observability") or {}).get("promql") or [])

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
            restarts=RestartPolicy.from_data(repro.get("restarts")),
            world=World.from_data(repro.get("world")),
        )
