"""Shared by the check blocking tests: the findings of a source file written for a test."""

from __future__ import annotations

import textwrap
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path


def flagged(tmp_path: Path, source: str, name: str = "svc.py") -> set[tuple[str, str]]:
    """``(kind, the stripped source line)`` of every finding in ``source`` (dedented, written to ``tmp_path/name``)."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    lines = path.read_text().splitlines()
    report = analyze_path(path)
    assert report.complete
    return {(f.kind, lines[f.location["line"] - 1].strip()) for f in report.findings}
