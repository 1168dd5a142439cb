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


def flagged_package(tmp_path: Path, files: dict[str, str]) -> set[tuple[str, str, str]]:
    """``(file, kind, stripped line)`` of every finding in a package written from ``files`` (path -> source)."""
    root = tmp_path / "svc"
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    report = analyze_path(root)
    assert report.complete
    found = set()
    for f in report.findings:
        rel = str(f.location["file"]).split("svc/", 1)[1]
        found.add((rel, f.kind, (root / rel).read_text().splitlines()[f.location["line"] - 1].strip()))
    return found


def joined(shared: str, extra: str) -> str:
    """A shared module source followed by the lines one test adds, both dedented to the module's top level."""
    return textwrap.dedent(shared) + textwrap.dedent(extra)
