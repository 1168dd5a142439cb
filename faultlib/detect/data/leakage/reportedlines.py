"""The lines findings already name, so that a pass added after the analysis reports each line once per kind."""

from __future__ import annotations

from typing import Any

from faultlib.findings import Finding, Severity


class ReportedLines:
    """``(kind, file, cell, line)`` of the findings so far; :meth:`fresh` says whether a place is new, and keeps it.

    Args:
        findings: the findings already in the report.
    """

    def __init__(self, findings: list[Finding]):
        self._seen = {(f.kind, f.location.get("file"), f.location.get("index"), f.location.get("line"))
                      for f in findings}

    def fresh(self, kind: str, where: dict[str, Any]) -> bool:
        """True (and remembered) when no finding of ``kind`` names the place ``where`` (``smap.where`` of a line)."""
        key = (kind, where.get("file"), where.get("index"), where.get("line"))
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def finding(self, kind: str, severity: Severity, message: str, location: dict[str, Any],
                evidence: dict[str, Any]) -> list[Finding]:
        """``[the finding]`` of the check leakage detector at ``location`` when its place is :meth:`fresh`, else
        ``[]``."""
        return [Finding("leakage", severity, message, location, evidence, kind=kind)] if self.fresh(
            kind, location) else []


def split_findings(kind: str, found: list[tuple[int, str, dict[str, Any]]], tree: Any, smap: Any,
                   findings: list[Finding], function_at: Any) -> list[Finding]:
    """Warnings of ``kind`` at the split lines of ``found`` (``(line, message, evidence)``), leaving out a line
    already reported so (the AST passes of fileentities.py and rowunits.py)."""
    reported = ReportedLines(findings)
    out: list[Finding] = []
    for line, message, evidence in found:
        out += reported.finding(kind, Severity.WARNING, message,
                                {**smap.where(line), "function": function_at(tree, line)}, evidence)
    return out


__all__ = ["ReportedLines", "split_findings"]
