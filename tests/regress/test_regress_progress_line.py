"""The line `faultlib regress` prints per finished case off a terminal says every assertion count: a skipped
assertion must not read as a failed one ('9/10 assertions passed' did)."""

from __future__ import annotations

import io

from rich.console import Console

from faultlib.cli.regress import RegressProgress
from faultlib.regress.results import AssertionResult, AssertionStatus, CaseResult, CaseVerdict


def _line(statuses: list[AssertionStatus]) -> str:
    out = io.StringIO()
    progress = RegressProgress(Console(file=out, width=200, force_terminal=False))
    progress.planned(["demo_case"])
    assertions = [AssertionResult(id=f"a{i}", when="after", description="", status=s, message="")
                  for i, s in enumerate(statuses)]
    progress.case_finished(CaseResult(id="demo_case", verdict=CaseVerdict.PASSED, duration_s=1.0,
                                      assertions=assertions))
    return out.getvalue().splitlines()[-1]


def test_a_skipped_assertion_is_said_as_skipped():
    line = _line([AssertionStatus.PASSED] * 9 + [AssertionStatus.SKIPPED])
    assert "9 passed, 1 skipped of 10 assertions" in line, line


def test_failed_and_error_assertions_are_said_as_failed():
    line = _line([AssertionStatus.PASSED, AssertionStatus.FAILED, AssertionStatus.ERROR])
    assert "1 passed, 2 failed of 3 assertions" in line and "skipped" not in line, line
