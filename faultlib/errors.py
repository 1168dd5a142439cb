"""The one exception tree of faultlib.

::

    FaultlibError                    exit 2 unless a subclass says otherwise
    ├── InputError                   a user file is unreadable, too large, too deep or malformed (path, line, field)
    │   └── CaseError                a case directory or case.yaml is invalid (path, line, field)
    │       └── CaseValidationError  several schema errors at once, each ``file:line: field: message``
    ├── InjectionError               a fault shim is unknown, mis-parameterised, or applied out of order
    ├── DetectorError                a detector was misused (wrong call order, bad config)
    ├── EvidenceError                evidence could not be written or read back
    │   ├── PrometheusUnavailable    ``--prometheus``: promtool/prometheus missing, a backfill or the server failed
    │   ├── PromqlError              a PromQL result an assertion read failed, is empty or was not recorded
    │   │   └── PromqlNotRecorded    the run has no promql.json (made without ``--prometheus``)
    │   └── TimingInconclusive       a timing assertion cannot tell the fault from the machine's own noise
    ├── ArchiveError                 an archive URI is malformed or a stored run is unreadable
    │   ├── ManifestError            a manifest.json that is not a faultlib manifest (also an InputError)
    │   ├── ArchiveUnavailable       the archive store could not be reached (exit 3)
    │   └── RunNotArchived           a finished run the store did not take; its evidence waits locally
    ├── ScriptError                  ``faultlib trace``: not ``python SCRIPT.py``, or script/interpreter missing
    ├── BackendUnavailable           a backend (Docker, Kubernetes) could not be reached (exit 3)
    └── MissingDependency            an optional dependency is not installed (names the pip extra)

Every error carries the fields a user needs to fix the problem and the exit code
the CLI maps it to (see DESIGN.md: 0 passed, 1 failed, 2 bad input, 3 unreachable).
Errors from third-party libraries are translated into these at the boundary and
chained with ``raise ... from exc``.
"""

from __future__ import annotations

from pathlib import Path


class FaultlibError(Exception):
    """Root of every error faultlib raises on purpose.

    Attributes:
        exit_code: the process exit code the CLI uses for this error.
    """

    exit_code: int = 2

    def to_json(self) -> dict:
        return {"error": type(self).__name__, "message": str(self)}


class InputError(FaultlibError):
    """A file or value from the user is wrong: unreadable, too large or too deep, not valid
    UTF-8, malformed YAML/JSON, a non-finite number, a path that leaves its root.

    Args:
        message: what is wrong and what to do.
        path: the file at fault.
        line: 1-based line in ``path``, when known.
        field: dotted path of the offending field (``repro.timeout_s``), when known.
    """

    def __init__(self, message: str, *, path: Path | str | None = None,
                 line: int | None = None, field: str | None = None):
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        self.message = message
        super().__init__(self.render())

    def render(self) -> str:
        """``file[:line]: [field:] message`` on one line: a newline or tab from a case id, a file name or a key is
        shown as ``\\n`` / ``\\t`` (as :func:`faultlib.text.inline` does; the console escapes every other control
        character where it prints), so it cannot start a forged line of a problem list. A path or field the message
        already names is not said twice; without a file (a command-line value, a combination of options),
        ``[field:] message``."""
        return self._render().replace("\n", "\\n").replace("\t", "\\t")

    def _render(self) -> str:
        where = self.path or ""
        if self.line is not None and self.path:
            where += f":{self.line}"
        message = self.message
        if self.path and message.startswith(self.path) and message[len(self.path):][:1] in (" ", ":"):
            message = message[len(self.path):].lstrip(" :")
        named = self.field and message.startswith((f"{self.field}:", f"{self.field} "))
        field = f" {self.field}:" if self.field and not named else ""
        return f"{where}:{field} {message}" if where else f"{field.lstrip()} {message}".lstrip()

    def to_json(self) -> dict:
        return {"error": type(self).__name__, "message": self.message, "file": self.path,
                "line": self.line, "field": self.field}


class CaseError(InputError):
    """A case directory or its case.yaml is wrong (same fields as :class:`InputError`)."""


class CaseValidationError(CaseError):
    """Several problems found in one pass over case files; ``problems`` holds each."""

    def __init__(self, problems: list[CaseError]):
        self.problems = problems
        first = problems[0]
        super().__init__(first.message, path=first.path, line=first.line, field=first.field)

    def render(self) -> str:
        return "\n".join(p.render() for p in self.problems)

    def to_json(self) -> dict:
        return {"error": type(self).__name__, "problems": [p.to_json() for p in self.problems]}


class InjectionError(FaultlibError):
    """A fault shim is unknown, has bad parameters, or is driven in the wrong order."""


class DetectorError(FaultlibError):
    """A detector was configured badly or its methods were called in the wrong order."""


class EvidenceError(FaultlibError):
    """Evidence could not be written or read back."""


class PrometheusUnavailable(EvidenceError):
    """``faultlib run --prometheus`` could not evaluate the case's PromQL: ``promtool`` or ``prometheus`` is
    not installed, the backfill failed, or the server did not start. The runner records it as a finding of
    kind ``prometheus_unavailable``; the evidence is kept."""


class PromqlError(EvidenceError):
    """An assertion read a PromQL result that cannot answer: the query failed in Prometheus, the query id or
    window does not exist, or no value was returned."""


class PromqlNotRecorded(PromqlError):
    """The run has no ``promql.json``: it was made without ``--prometheus`` (the assertion suite skips)."""


class TimingInconclusive(EvidenceError):
    """A timing assertion cannot decide: the reference measured in the same run (the control, or the
    faulted run before its fault) is as noisy as the effect it must tell apart. The message gives the
    measured values; the assertion suite reports the test as skipped with it
    (:mod:`faultlib.evidence.timing`)."""


class ArchiveError(FaultlibError):
    """An archive URI is malformed or a stored run cannot be read."""


class ManifestError(InputError, ArchiveError):
    """A ``manifest.json`` that is not a faultlib manifest (exit 2).

    Both an :class:`~faultlib.errors.InputError` (it carries ``path``, ``line`` and ``field``) and an
    :class:`~faultlib.errors.ArchiveError` (archives raise it where they raise theirs).

    Args:
        message: what is wrong with the field.
        run: ``case/run_id`` of the run whose manifest it is.
        path: the manifest file or its URI.
        line: the line of a JSON syntax error.
        field: where in the document (``files[3].bytes``; ``(root)`` for the whole document).
    """

    def __init__(self, message: str, *, run: str, path: str, line: int | None = None, field: str | None = None):
        self.run = run
        super().__init__(message, path=path, line=line, field=field)

    def render(self) -> str:
        where = f"{self.run}: manifest.json" + (f":{self.line}" if self.line is not None else "")
        return f"{where}:{f' {self.field}:' if self.field else ''} {self.message}"

    def to_json(self) -> dict:
        return {**super().to_json(), "run": self.run}


class ArchiveUnavailable(ArchiveError):
    """The archive store could not be reached; evidence stays in the local spool."""

    exit_code = 3


class RunNotArchived(ArchiveError):
    """The run finished, but the archive did not take it: its evidence is complete in ``run_dir``.

    Attributes:
        record: the finished :class:`faultlib.record.RunRecord` (also in ``run_dir/run.json``).
        run_dir: where the evidence waits (an S3 archive's local spool).
        exit_code: the archive error's (3 when the store was unreachable, 2 when access was denied).
    """

    def __init__(self, record, run_dir: Path, cause: ArchiveError):
        self.record = record
        self.run_dir = run_dir
        self.exit_code = cause.exit_code
        super().__init__(f"run {record.run_id} was not archived: {cause}")


class ScriptError(FaultlibError):
    """The traced command is not ``python SCRIPT.py ...``, or the script or the interpreter does not exist (exit 2)."""


class BackendUnavailable(FaultlibError):
    """The requested backend (Docker engine, Kubernetes API) could not be reached."""

    exit_code = 3


class MissingDependency(FaultlibError):
    """An optional dependency is missing.

    Args:
        package: the import name that failed.
        extra: the ``faultlib-ml`` extra that installs it.
    """

    def __init__(self, package: str, extra: str):
        self.package = package
        self.extra = extra
        super().__init__(f"{package} is not installed: pip install 'faultlib-ml[{extra}]'")


def require(module: str, extra: str):
    """Import ``module`` or raise :class:`MissingDependency` naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependency(module, extra) from exc
