"""Shared by the check leakage tests: the alarms of a script written for a test."""

from __future__ import annotations

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
