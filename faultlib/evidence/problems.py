"""What could not be read or archived of a run's evidence, and the one JSON Lines reader that reports it.

:class:`EvidenceProblem` is the shared type of the evidence room: readers append one for every line or
file they skip, writers for every entry they move aside or refuse; the runner turns them into findings
of detector ``faultlib.runner``. :func:`json_lines` reads a JSON Lines evidence file through
:func:`faultlib.readers.iter_json_lines` (bounded, finite numbers, no duplicate keys): a line that does
not parse is a problem, a torn last line (no newline at the end: a process killed mid-write) a warning.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from faultlib.errors import InputError
from faultlib.findings import Finding, Severity
from faultlib.readers import iter_json_lines
from faultlib.readers.jsondoc import LINES_FILE_MAX_BYTES

RUNNER_DETECTOR = "faultlib.runner"
MESSAGE_MAX = 400


@dataclass(frozen=True)
class EvidenceProblem:
    """Evidence that could not be read or archived.

    Attributes:
        file: the name in the run directory (``findings.jsonl``, ``dumps/x.pt``; printable).
        line: 1-based line, or None for the whole file.
        message: what is wrong.
        severity: ``error``; ``warning`` for a torn last line.
        kind: the finding's kind: ``unreadable_evidence`` (a line or file that cannot be read),
            ``torn_line``, ``not_archived`` (rejected when sealing), ``moved_aside`` (in the
            runner's way).
    """

    file: str
    line: int | None
    message: str
    severity: Severity = Severity.ERROR
    kind: str = "unreadable_evidence"

    def __post_init__(self) -> None:
        if len(self.message) > MESSAGE_MAX:  # a schema error quotes the whole instance
            object.__setattr__(self, "message", self.message[:MESSAGE_MAX] + "...")

    def to_finding(self) -> Finding:
        """The problem as a finding of detector ``faultlib.runner`` with location ``file`` (and ``line``)."""
        location: dict[str, Any] = {"file": self.file}
        where = self.file
        if self.line is not None:
            location["line"] = self.line
            where += f":{self.line}"
        return Finding(RUNNER_DETECTOR, self.severity, f"{where}: {self.message}", location,
                       {"reason": self.message}, kind=self.kind)


def _ends_with_newline(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        info = os.fstat(fd)
        return not stat.S_ISREG(info.st_mode) or info.st_size == 0 or os.pread(fd, 1, info.st_size - 1) == b"\n"
    finally:
        os.close(fd)


def json_lines(path: Path, problems: list[EvidenceProblem] | None = None, *,
               max_file_bytes: int = LINES_FILE_MAX_BYTES) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every line of a JSON Lines evidence file that parses; the others,
    and a file that cannot be opened safely, are appended to ``problems`` (see the module docstring).
    A missing file yields nothing."""
    path = Path(path)
    problems = [] if problems is None else problems
    bad: list[InputError] = []
    last = 0
    try:
        for item in iter_json_lines(path, max_file_bytes=max_file_bytes):
            last = item.number
            if item.error is not None:
                bad.append(item.error)
            else:
                yield item.number, item.value
    except InputError as exc:
        problems.append(EvidenceProblem(path.name, None, exc.message))
        return
    except OSError as exc:  # e.g. a directory where the file should be
        problems.append(EvidenceProblem(path.name, None, f"cannot be read: {exc.strerror or exc}"))
        return
    for exc in bad:
        torn = exc.line == last and not _ends_with_newline(path)
        problems.append(EvidenceProblem(
            path.name, exc.line, ("torn last line (a process killed mid-write?): " if torn else "") + exc.message,
            Severity.WARNING if torn else Severity.ERROR, "torn_line" if torn else "unreadable_evidence"))


def problem_from_claim(moved) -> EvidenceProblem:
    """An error problem for an entry :func:`~faultlib.evidence.seal.claim` moved aside."""
    return EvidenceProblem(moved.name, None, moved.reason, kind="moved_aside")
