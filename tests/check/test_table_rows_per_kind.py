"""A check table shows the first findings of each severity and kind and one row counting the rest; the verdict
and ``--json`` still count every finding (10,000 nodes of one unsupported op made 130,000 table lines)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

import faultlib.console
from faultlib.check.base import TABLE_ROWS_PER_KIND, CheckResult, render
from faultlib.findings import Finding, Severity


@pytest.fixture
def printed(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(faultlib.console, "stdout", Console(file=out, width=200, force_terminal=False, no_color=True))
    return out


def node(i: int, severity: Severity = Severity.ERROR, kind: str = "op_unsupported_by_target") -> Finding:
    return Finding(detector="onnx", severity=severity, kind=kind, message=f"node n{i} (Gelu) is not implemented",
                   location={"node": f"n{i}", "op": "Gelu"})


def test_many_findings_of_one_kind_show_the_first_and_count_the_rest(printed):
    findings = [node(i) for i in range(TABLE_ROWS_PER_KIND + 40)] + [node(999, Severity.WARNING, "other_kind")]
    result = CheckResult("onnx", findings)
    render(result, "warning", summary=None)
    text = printed.getvalue()
    assert f"n{TABLE_ROWS_PER_KIND - 1} " in text and f"n{TABLE_ROWS_PER_KIND} " not in text
    assert "and 40 more like these, not shown (--json lists every one)" in text
    assert "n999" in text  # another kind keeps its own rows
    assert "onnx: 66 finding(s)" in text
    assert len(result.to_json()["findings"]) == TABLE_ROWS_PER_KIND + 41


def test_up_to_the_limit_every_finding_is_a_row_and_nothing_is_counted(printed):
    render(CheckResult("onnx", [node(i) for i in range(TABLE_ROWS_PER_KIND)]), "warning", summary=None)
    text = printed.getvalue()
    assert all(f"n{i} " in text for i in range(TABLE_ROWS_PER_KIND)) and "more like these" not in text
