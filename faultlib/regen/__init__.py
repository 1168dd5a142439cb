"""``faultlib regen``: re-verify the cases a dependency change affects, and propose new injection points.

- :mod:`~faultlib.regen.select`: which cases a fingerprint diff selects, and why;
- :mod:`~faultlib.regen.rewrite`: the PATCH bump and ``verified_with`` update of a case.yaml, in place;
- :mod:`~faultlib.regen.outcome`: each re-run case's outcome (updated, failed, skipped) and the exit code;
- :mod:`~faultlib.regen.proposals`: uncovered call edges of new traces, each with a shim and its Chaos Mesh twin.

The cases run through :mod:`faultlib.regress` (its plan, worker pool and progress display).
Importing this package stays cheap; ruamel.yaml, torch and the trace readers load when called.
"""

from faultlib.regen.outcome import CaseOutcome, conclude, exit_code
from faultlib.regen.proposals import Coverage, Proposal, TraceProposals, propose
from faultlib.regen.rewrite import CaseYamlEdit, bump_patch, render_update, update_case, verified_versions
from faultlib.regen.select import Reason, SelectedCase, Selection, required_packages, select

__all__ = ["CaseOutcome", "CaseYamlEdit", "Coverage", "Proposal", "Reason", "SelectedCase", "Selection",
           "TraceProposals", "bump_patch", "conclude", "exit_code", "propose", "render_update", "required_packages",
           "select", "update_case", "verified_versions"]
