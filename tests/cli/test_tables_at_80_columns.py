"""On an 80-column terminal the codes a user copies stay whole: a finding's kind and severity in every `check`
table (``op_unsupported_by_target`` was folded into 'op_unsupported_by_t' / 'arget'), and a case's id and
severity in `faultlib list` ('dataloader_worker_cra…', 'criti…')."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

import faultlib.cli.catalog as catalog
import faultlib.console
from faultlib.check.base import CheckResult, render
from faultlib.findings import Finding, Severity

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def narrow(monkeypatch):
    """stdout as an 80-column terminal; returns what was printed."""
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False, no_color=True)
    monkeypatch.setattr(faultlib.console, "stdout", console)
    monkeypatch.setattr(catalog, "stdout", console)
    return out


def test_kind_and_severity_stay_whole_in_a_check_table(narrow):
    findings = [Finding(detector="onnx", severity=Severity.CRITICAL, kind="op_unsupported_by_target",
                        message="a long message that has to wrap over several lines " * 3,
                        location={"node": "/encoder/layers.11/attention/Softmax_with_a_long_name", "op": "Softmax"}),
                Finding(detector="onnx", severity=Severity.WARNING, kind="kernels_unverified_for_the_target",
                        message="short", location={"key": "target"})]
    render(CheckResult("onnx", findings), "warning", summary=None)
    text = narrow.getvalue()
    for code in ("op_unsupported_by_target", "kernels_unverified_for_the_target", "critical", "warning"):
        assert code in text, text
    assert max(map(len, text.splitlines())) <= 80, text


def test_case_ids_and_severities_stay_whole_in_the_list(narrow):
    from faultlib.cases import discover, load_case

    cases = [load_case(path) for path in discover(REPO / "cases")]
    assert any(len(c.id) > 21 for c in cases), "the catalog has no long id left to check"
    catalog.list_cases.callback(REPO / "cases", None, False)
    text = narrow.getvalue()
    for case in cases:
        assert re.search(rf"(^| ){case.id} ", text, re.M), (case.id, text)
    assert "critical" in text and "warning" in text, text
