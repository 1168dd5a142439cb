"""What ``faultlib regen`` makes of each re-run case, and its exit code.

After the selected cases ran (:class:`faultlib.regress.pool.Pool`), each one ends up as one of:

- ``updated``: it passed and its control run raised no finding; its case.yaml got a PATCH bump and
  ``verified_with`` = the current versions (:mod:`faultlib.regen.rewrite`);
- ``failed``: it no longer reproduces (verdict failed, error, invalid or interrupted), its control run
  raised a finding although the verdict passed (a detector that now fires without the fault), or its
  case.yaml could not be updated; reported with the changes that selected it (the package diff
  restricted to what the case requires) and the known behaviour changes among them (exit 1);
- ``skipped``: the case needs a device this machine lacks (nothing changes);
- ``unreachable``: not run because the backend or the archive could not be reached (exit 3; a case that
  passed but whose evidence the archive did not take is updated, and the exit code is 3 too).

A control run's findings are counted from the run's evidence digest (:func:`faultlib.regress.series.report_data`,
``finding_counts["control"]``), which the worker takes before the archive removes its local copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faultlib.errors import FaultlibError
from faultlib.regress.results import CaseVerdict, RegressResult

if TYPE_CHECKING:
    from faultlib.fingerprint import KnownChange
    from faultlib.regen.rewrite import CaseYamlEdit
    from faultlib.regen.select import SelectedCase, Selection
    from faultlib.regress.results import CaseResult

UPDATED, FAILED, SKIPPED, UNREACHABLE = "updated", "failed", "skipped", "unreachable"


@dataclass
class CaseOutcome:
    """One selected case after regen.

    Attributes:
        selected: the case and the changes that selected it.
        status: ``updated``, ``failed``, ``skipped`` or ``unreachable`` (see the module docstring).
        verdict: the regress verdict (``passed``, ``failed``, ``error`` ...).
        known: the known behaviour changes among the case's changed packages.
        edit: the case.yaml update (``updated`` only).
        reason: why it failed, was skipped or is unreachable (None when updated).
        control_findings: findings the control run raised (None when the digest was not available).
        run: archive URI (or local directory) of the run's evidence.
    """

    selected: SelectedCase
    status: str
    verdict: str
    known: list[KnownChange] = field(default_factory=list)
    edit: CaseYamlEdit | None = None
    reason: str | None = None
    control_findings: int | None = None
    run: str | None = None

    @property
    def id(self) -> str:
        return self.selected.id

    def to_json(self) -> dict[str, Any]:
        edit = self.edit
        return {"case": self.id, "status": self.status, "verdict": self.verdict, "reason": self.reason,
                "changes": [r.to_json() for r in self.selected.reasons],
                "known_changes": [k.to_json() for k in self.known], "control_findings": self.control_findings,
                "run": self.run,
                "updated": None if edit is None else {"path": str(edit.path), "version": [edit.old_version,
                                                                                          edit.new_version],
                                                      "verified_with": edit.verified_with}}


def known_for(selected: SelectedCase, known: list[KnownChange]) -> list[KnownChange]:
    """The known changes whose package is among the changes that selected the case."""
    from packaging.utils import canonicalize_name

    names = {r.name for r in selected.reasons if r.kind == "package"}
    if any(r.kind == "torch" for r in selected.reasons):
        names.add("torch")
    return [k for k in known if canonicalize_name(k.package) in names]


def _control_findings(result: CaseResult) -> int | None:
    counts = (result.report or {}).get("finding_counts") or {}
    control = counts.get("control")
    if not isinstance(control, dict):
        return None
    return sum(v for v in control.values() if isinstance(v, int) and not isinstance(v, bool))


def conclude(selection: Selection, result: RegressResult, fingerprint: dict[str, Any], known: list[KnownChange],
             *, texts: dict[str, str] | None = None) -> list[CaseOutcome]:
    """Turn each case's regress result into an outcome, updating the case.yaml of every case that passed.

    Args:
        selection: the selected cases.
        result: what the pool returned for them.
        fingerprint: the current environment (:func:`faultlib.fingerprint.collect`): ``verified_with``'s versions.
        known: the known changes the whole diff crosses (:func:`faultlib.fingerprint.known_changes`).
        texts: each case's case.yaml as it was when it was selected; a file edited since is not updated.

    Returns:
        One outcome per selected case, in selection order. Writes the case.yaml of each ``updated`` case.
    """
    from faultlib.regen.rewrite import update_case, verified_versions
    from faultlib.regen.select import required_packages

    by_id = {c.id: c for c in result.cases}
    outcomes = []
    for selected in selection.cases:
        case_result = by_id.get(selected.id)
        relevant = known_for(selected, known)
        if case_result is None:
            outcomes.append(CaseOutcome(selected, UNREACHABLE, "not_run", relevant, reason="not run"))
            continue
        verdict = case_result.verdict
        outcome = CaseOutcome(selected, FAILED, verdict.value, relevant, reason=case_result.error,
                              control_findings=_control_findings(case_result),
                              run=case_result.archive_uri or case_result.run_dir)
        if verdict is CaseVerdict.SKIPPED:
            outcome.status = SKIPPED
        elif verdict in (CaseVerdict.UNAVAILABLE, CaseVerdict.NOT_RUN):
            outcome.status = UNREACHABLE
        elif verdict is CaseVerdict.PASSED and outcome.control_findings:
            outcome.reason = (f"the control run raised {outcome.control_findings} finding(s): a detector now fires "
                              "without the fault")
        elif verdict is CaseVerdict.PASSED:
            versions = verified_versions(required_packages(selected.planned), fingerprint)
            try:
                outcome.edit = update_case(selected.planned.path, versions,
                                           expected_text=(texts or {}).get(selected.id))
                outcome.status, outcome.reason = UPDATED, None
            except FaultlibError as exc:
                outcome.reason = f"passed, but case.yaml was not updated: {exc}"
        outcomes.append(outcome)
    return outcomes


def exit_code(outcomes: list[CaseOutcome], result: RegressResult | None) -> int:
    """1 when a case failed; else 3 when the backend or the archive was unreachable; else 0."""
    if any(o.status == FAILED for o in outcomes):
        return 1
    if any(o.status == UNREACHABLE for o in outcomes) or (result is not None and result.exit_code == 3):
        return 3
    return 0
