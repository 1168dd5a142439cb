"""Shared by the check leakage tests: the alarms of a script written for a test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def alarms(tmp_path: Path, text: str, name: str = "script.py") -> set[tuple[str, int]]:
    """``(kind, line)`` of every warning-or-worse finding of ``text`` (written to ``tmp_path/name``) analysed alone;
    ``analysis_incomplete`` left out (a test that needs it asserts ``report.complete`` itself)."""
    script = tmp_path / name
    script.write_text(text)
    report, _ = analyze_file(str(script), alone=True)
    return {(f.kind, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


def dedented_alarms(tmp_path: Path, text: str, name: str = "script.py") -> set[tuple[str, int]]:
    """:func:`alarms` of ``text`` written indented in a test (dedented first)."""
    return alarms(tmp_path, textwrap.dedent(text), name)


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the dedented ``text`` that holds ``needle`` first."""
    return next(i for i, line in enumerate(textwrap.dedent(text).split("\n"), 1) if needle in line)
