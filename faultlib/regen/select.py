"""Which cases ``faultlib regen --since OLD`` re-runs, and why.

A case is selected when its ``requires.packages`` names a package whose version differs between
the old fingerprint and the current one (names compared canonicalised, PEP 503: ``scikit_learn``
is ``scikit-learn``), and every case is selected when Python, torch (its version or build) or CUDA
changed (:meth:`faultlib.fingerprint.FingerprintDiff.selects_all`). A case directory that does not
load is selected when the diff selects everything or when its ``requires.packages`` can still be
read and names a changed package; it is then reported as invalid, like ``faultlib regress`` does.

Selection reads case files and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faultlib.errors import InputError

if TYPE_CHECKING:
    from faultlib.fingerprint import FingerprintDiff
    from faultlib.regress.plan import Plan, PlannedCase


@dataclass(frozen=True)
class Reason:
    """Why a case was selected: one change of the environment.

    Attributes:
        kind: ``package`` (a package the case requires), ``python`` or ``torch`` (its version or build: every case).
        name: the package's canonical name, or the torch build key (``version``, ``cuda``, ``cudnn``, ``debug``);
            ``python`` for a Python change.
        old, new: the versions (None: absent, or not recorded).
    """

    kind: str
    name: str
    old: Any
    new: Any

    def __str__(self) -> str:
        label = {"package": self.name, "python": "python", "torch": f"torch {self.name}"}[self.kind]
        everything = "" if self.kind == "package" else " (selects every case)"
        return f"{label} {_text(self.old)} -> {_text(self.new)}{everything}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "old": self.old, "new": self.new}


def _text(value: Any) -> str:
    return "absent" if value is None else str(value)


@dataclass(frozen=True)
class SelectedCase:
    """A selected case and the changes that selected it (``planned.case`` is None for an invalid case)."""

    planned: PlannedCase
    reasons: tuple[Reason, ...]

    @property
    def id(self) -> str:
        return self.planned.id

    def to_json(self) -> dict[str, Any]:
        return {"case": self.id, "reasons": [r.to_json() for r in self.reasons]}


@dataclass(frozen=True)
class Selection:
    """The selected cases, in the catalog's (sorted) order, and how many the catalog holds."""

    cases: tuple[SelectedCase, ...]
    catalog_size: int

    def plan(self, plan: Plan) -> Plan:
        """``plan`` narrowed to the selected cases: what :class:`faultlib.regress.pool.Pool` runs."""
        from faultlib.regress.plan import Plan, Shard

        return Plan(cases=tuple(s.planned for s in self.cases), shard=Shard(), selected=len(self.cases),
                    catalog=plan.catalog)


def required_packages(planned: PlannedCase) -> list[str]:
    """The package names of a case's ``requires.packages`` as written (empty when unreadable).

    For a case that does not load, case.yaml is read again leniently (only this field is used).
    """
    if planned.case is not None:
        return list(planned.case.requires.get("packages") or {})
    from faultlib.readers import load_yaml_file

    try:
        data = load_yaml_file(Path(planned.path) / "case.yaml", root=planned.path).data
    except (InputError, OSError):
        return []
    requires = data.get("requires") if isinstance(data, dict) else None
    packages = requires.get("packages") if isinstance(requires, dict) else None
    if not isinstance(packages, dict):
        return []
    return [name for name in packages if isinstance(name, str)]


def global_reasons(diff: FingerprintDiff) -> list[Reason]:
    """The changes that select every case: Python, and torch's version or build."""
    reasons = []
    if diff.python is not None:
        reasons.append(Reason("python", "python", *diff.python))
    for key, (old, new) in sorted(diff.torch_build.items()):
        reasons.append(Reason("torch", key, old, new))
    if "torch" in diff.packages and "version" not in diff.torch_build:
        reasons.append(Reason("torch", "version", *diff.packages["torch"]))
    return reasons


def select(plan: Plan, diff: FingerprintDiff) -> Selection:
    """The cases of ``plan`` that the fingerprint ``diff`` affects (see the module docstring).

    Args:
        plan: the loaded catalog (:func:`faultlib.regress.plan.plan`).
        diff: old -> current fingerprint.

    Returns:
        The selection; each case with its reasons: the changed packages it requires (in the order of its
        ``requires.packages``), after the changes that select everything.
    """
    everything = global_reasons(diff) if diff.selects_all() else []
    chosen = []
    for planned in plan.cases:
        names = required_packages(planned)
        own = [Reason("package", name, old, new) for name, (old, new) in diff.changed_among(names).items()
               if not (everything and name == "torch")]  # torch's version is already among ``everything``
        if everything or own:
            chosen.append(SelectedCase(planned, tuple(everything + own)))
    return Selection(tuple(chosen), len(plan.cases))
