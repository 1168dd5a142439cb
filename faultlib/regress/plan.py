"""Which cases a ``faultlib regress`` run takes: the catalog, a fault-class filter, one shard.

Selection happens before anything runs and writes nothing. Every case directory under the
catalog (a directory holding ``case.yaml``) is loaded and validated; a case that does not load is
kept in the plan as *invalid* (it is reported, and counts as a failure of that case), never
dropped and never a crash.

Sharding is a sorted round-robin over case ids: the selected ids are sorted and the k-th goes to
shard ``k mod N``. Every shard computes the same list from the same checkout, so the shards of one
catalog are disjoint and their union is the catalog; shard sizes differ by at most one. Shards are
numbered from 0, like a Kubernetes indexed Job's ``JOB_COMPLETION_INDEX`` (``--shard 0/4`` ...
``--shard 3/4``). A case's id is its directory name (``faultlib validate`` enforces that), so an
invalid case is sharded by its directory name and is reported by exactly one shard.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from faultlib.errors import CaseError, FaultlibError, InputError

if TYPE_CHECKING:
    from faultlib.cases import Case

_SHARD = re.compile(r"^\s*(\d{1,6})\s*/\s*(\d{1,6})\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (0-based: ``0 <= index < count``).

    Attributes:
        index: this shard's number, from 0.
        count: how many shards the catalog is split into (1 = the whole catalog).
    """

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"the shard count must be at least 1, not {self.count}")
        if not 0 <= self.index < self.count:
            raise ValueError(f"shard {self.index} does not exist in {self.count} shard(s): "
                             f"shards are numbered 0 to {self.count - 1}")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"I/N"`` (e.g. ``"0/4"``) as a :class:`Shard`.

        Raises:
            ValueError: not ``I/N`` with integers, ``N < 1``, or ``I`` outside ``0..N-1``; the message
                says which and what to write instead.
        """
        match = _SHARD.match(text or "")
        if not match:
            raise ValueError(f"{text!r} is not I/N (e.g. 0/4: the first of four shards, numbered from 0)")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, ids: Iterable[str]) -> list[str]:
        """This shard's ids among ``ids``, sorted (duplicates count once).

        Args:
            ids: every selected case id of the catalog, in any order.

        Returns:
            The ids at positions ``index, index + count, ...`` of the sorted ids.
        """
        return [case_id for k, case_id in enumerate(sorted(set(ids))) if k % self.count == self.index]


@dataclass(frozen=True)
class PlannedCase:
    """One case of the plan: loaded (``case``) or invalid (``error``, exactly one of the two is set).

    Attributes:
        id: the case id (the directory name).
        path: the case directory.
        case: the validated case, or None when it does not load.
        error: why the case does not load (:class:`~faultlib.errors.CaseError` and subclasses).
    """

    id: str
    path: Path
    case: Case | None = None
    error: FaultlibError | None = None

    @property
    def fault_class(self) -> str:
        return self.case.fault_class if self.case else ""


@dataclass(frozen=True)
class Plan:
    """The cases one ``faultlib regress`` run takes, sorted by id.

    Attributes:
        cases: this shard's cases.
        shard: the shard.
        selected: how many cases the filter selected in the whole catalog (all shards).
        catalog: the catalog directory.
    """

    cases: tuple[PlannedCase, ...]
    shard: Shard
    selected: int
    catalog: Path


def _raw_fault_class(case_dir: Path) -> str | None:
    """``fault_class`` of a case.yaml that does not validate, if it can be read at all."""
    from faultlib.readers import load_yaml_file

    try:
        data = load_yaml_file(case_dir / "case.yaml", root=case_dir).data
    except (InputError, OSError):
        return None
    value = data.get("fault_class") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def plan(catalog: str | Path, *, fault_class: str | None = None, shard: Shard = Shard()) -> Plan:
    """Load the catalog, filter it by fault class and keep one shard.

    Args:
        catalog: the folder holding the case directories (or one case directory).
        fault_class: keep cases whose ``fault_class`` starts with this prefix (``numerics.``);
            None keeps all. An invalid case is kept unless its ``fault_class`` can be read and does
            not match.
        shard: which part of the selection to keep (default: all of it).

    Returns:
        The plan; its ``cases`` may be empty when there are more shards than selected cases.

    Raises:
        CaseError: the catalog is not a directory, holds no case directory, or no case matches
            ``fault_class`` (exit 2; the message lists the fault classes there are).
    """
    from faultlib.cases import discover, load_case
    from faultlib.cases.loader import NO_CASES

    root = Path(catalog)
    if not root.is_dir():
        raise CaseError("catalog directory not found: pass the folder holding the case directories", path=root)
    entries: list[PlannedCase] = []
    for path in discover(root):
        try:
            entries.append(PlannedCase(path.name, path.resolve(), case=load_case(path)))
        except FaultlibError as exc:
            entries.append(PlannedCase(path.name, path.resolve(), error=exc))
    if not entries:
        raise CaseError(NO_CASES, path=root)
    if fault_class:
        known = sorted({e.fault_class for e in entries if e.case})
        kept, matched = [], False
        for entry in entries:
            value = entry.fault_class if entry.case else _raw_fault_class(entry.path)
            if value is None:  # unreadable: it cannot be filtered, so it is reported
                kept.append(entry)
            elif value.startswith(fault_class):
                kept.append(entry)
                matched = True
        if not matched:
            raise CaseError(f"no case has a fault class starting with {fault_class!r}; the catalog has: "
                            f"{', '.join(known) or 'none'}", path=root, field="--fault-class")
        entries = kept
    by_id = {e.id: e for e in entries}
    chosen = shard.select(by_id)
    return Plan(cases=tuple(by_id[i] for i in chosen), shard=shard, selected=len(by_id), catalog=root)
