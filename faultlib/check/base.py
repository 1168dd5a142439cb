"""The shape of every ``faultlib check``: a result type and the decorator that makes a command of it."""

from __future__ import annotations

import functools
import json
import math
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import click

from faultlib.console import state
from faultlib.findings import Finding, Severity
from faultlib.text import inline

SEVERITIES = [s.value for s in Severity]
#: the table shows this many findings of one kind and severity, then one row counting the rest (``--json`` lists
#: every one): 10,000 nodes of an op the target lacks made 130,000 lines and 26 s of table
TABLE_ROWS_PER_KIND = 25


@dataclass
class CheckResult:
    """What one check found.

    Attributes:
        detector: the check's registered name (``labels``, ``drift``...).
        findings: every finding, each with a ``kind`` from the check's documented kinds.
        fields: the check's own top-level JSON fields (``permutation``, ``columns``, ...): JSON values only.
    """

    detector: str
    findings: list[Finding] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)

    def ok(self, fail_on: Severity | str = Severity.WARNING) -> bool:
        """True when no finding is at or above ``fail_on``."""
        return not any(f.severity >= Severity(fail_on) for f in self.findings)

    def to_json(self, fail_on: Severity | str = Severity.WARNING) -> dict[str, Any]:
        """The JSON object; a non-finite number (the statistic of a column holding ±1e300, an infinite PSI) is
        written as the string ``"NaN"``, ``"+Inf"`` or ``"-Inf"``, as Prometheus writes them: JSON has no inf."""
        clash = {"detector", "ok", "findings"} & set(self.fields)
        if clash:
            raise ValueError(f"check fields may not be named {sorted(clash)}")
        return finite_json({"detector": self.detector, "ok": self.ok(fail_on),
                            "findings": [f.to_json() for f in self.findings], **self.fields})


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite float (also inside lists, tuples and dicts) as ``"NaN"``/``"+Inf"``/``"-Inf"``."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # numpy scalar
        return finite_json(value.item())
    return value


def fail_on_option(fn: Callable) -> Callable:
    return click.option("--fail-on", type=click.Choice(SEVERITIES), default="warning", show_default=True,
                        help="Exit 1 when a finding is at or above this severity.")(fn)


def _location(finding: Finding) -> str:
    loc = finding.location
    if "file" in loc:
        where = str(loc["file"]) + (f":{loc['line']}" if "line" in loc else "")
        return where + (f" ({loc['function']})" if "function" in loc else "")
    return ", ".join(f"{k}={v}" for k, v in loc.items())


def render(result: CheckResult, fail_on: str, *, summary: Callable[[CheckResult], list[tuple[str, str]]] | None) -> None:
    """The human output: a table of findings, then the check's summary lines (all user text as plain Text, one
    line per value: :func:`faultlib.text.inline`)."""
    from rich.text import Text

    from faultlib.console import stdout
    from faultlib.tables import print_prose_table

    shown, hidden = _table_rows(result.findings)
    if shown:
        styles = {"info": "dim", "warning": "yellow", "error": "red", "critical": "bold red"}
        # user text escaped before rich measures it (an escaped ESC is 4 columns wide), each cell one line that rich
        # wraps (a file named ``a\nfake: ok.py`` must not forge a second location in its row); severity and kind
        # are codes users grep and look up: never cut or folded, nor a word of the message that fits (80 columns)
        rows = []
        for f in shown:
            codes = [Text(f.severity.value, styles[f.severity.value]), Text(inline(f.kind))]
            rows.append([*codes, Text(inline(_location(f))), Text(inline(f.message))])
            if hidden.get(id(f)):
                rows.append([*codes, Text("..."),
                             Text(f"and {hidden[id(f)]:,} more like these, not shown (--json lists every one)")])
        print_prose_table(["severity", "kind", "where", "message"], rows)
    for key, value in (summary(result) if summary else []):
        stdout.print(Text.assemble((f"{key}: ", "bold"), inline(str(value))), highlight=False)
    stdout.print(Text.assemble(f"{result.detector}: ", *verdict_parts(result, fail_on)))


def _table_rows(findings: list[Finding]) -> tuple[list[Finding], dict[int, int]]:
    """The findings the table shows (the first :data:`TABLE_ROWS_PER_KIND` of each severity and kind, in order), and
    for the last one shown of a group that has more, how many are left out (``{id(finding): count}``)."""
    seen: dict[tuple[str, str], int] = {}
    last: dict[tuple[str, str], Finding] = {}
    shown = []
    for f in findings:
        group = (f.severity.value, f.kind)
        seen[group] = seen.get(group, 0) + 1
        if seen[group] <= TABLE_ROWS_PER_KIND:
            shown.append(f)
            last[group] = f
    return shown, {id(last[g]): n - TABLE_ROWS_PER_KIND for g, n in seen.items() if n > TABLE_ROWS_PER_KIND}


def verdict_parts(result: CheckResult, fail_on: str) -> list[tuple[str, str] | str]:
    """The last line's verdict after ``DETECTOR: ``: ``ok``; ``ok: 3 findings below the fail-on level
    (critical)`` when the table above holds findings that do not fail the check; ``N finding(s)`` (with
    ``, M below the fail-on level``) when some do."""
    failing = sum(f.severity >= Severity(fail_on) for f in result.findings)
    below = len(result.findings) - failing
    if failing:
        return [(f"{failing} finding(s)", "red"), f", {below} below the fail-on level ({fail_on})" if below else ""]
    if below:
        return [("ok", "green"), f": {below} finding{'s' if below != 1 else ''} below the fail-on level ({fail_on})"]
    return [("ok", "green")]


def check_command(name: str, *, summary: Callable[[CheckResult], list[tuple[str, str]]] | None = None,
                  **command_kwargs) -> Callable[[Callable[..., CheckResult]], click.Command]:
    """Make a click command of a function returning :class:`CheckResult`.

    Adds ``--json`` and ``--fail-on``, prints the JSON object or the table, and returns the exit code
    (0 / 1). Errors raised as :class:`~faultlib.errors.FaultlibError` reach the CLI's one handler
    (exit 2, or the error as JSON under ``--json``).

    Args:
        name: the check's name (``faultlib check NAME``), also the ``detector`` of its result.
        summary: turns a result into ``(label, text)`` lines shown under the table.
        command_kwargs: passed to :func:`click.command` (``help``, ``context_settings``...).
    """

    def wrap(fn: Callable[..., CheckResult]) -> click.Command:
        @click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
        @fail_on_option
        @functools.wraps(fn)
        def command(as_json: bool, fail_on: str, **kwargs) -> int:
            state["json"] = as_json
            with warnings.catch_warnings():  # numpy's "overflow encountered" on ±1e300: the findings say it
                warnings.simplefilter("ignore", RuntimeWarning)
                result = fn(**kwargs)
            if as_json:
                sys.stdout.write(json.dumps(result.to_json(fail_on), indent=2, allow_nan=False) + "\n")
            else:
                render(result, fail_on, summary=summary)
            return 0 if result.ok(fail_on) else 1

        return click.command(name, **command_kwargs)(command)

    return wrap


def lazy_kinds(source: str, *, drop: tuple[str, ...] = (), extra: dict[str, str] | None = None) -> Callable[[str], Any]:
    """A check module's ``__getattr__`` (PEP 562) giving its ``KINDS`` from its detector module only when read.

    ``faultlib check --help`` imports every check's module for the one-line summaries; reading ``KINDS`` at
    import made that import every detector (about twice the time of any other ``--help``).

    Args:
        source: the detector module that defines ``KINDS`` (``"faultlib.detect.distributed.collectives"``).
        drop: kinds of the detector this check never reports.
        extra: kinds this check adds (``{kind: meaning}``), after the detector's.

    Returns:
        The function to assign to the check module's ``__getattr__``.

    Raises:
        AttributeError: (from the function) any other name.
    """

    def __getattr__(name: str) -> Any:
        if name != "KINDS":
            raise AttributeError(f"module has no attribute {name!r}")
        import importlib

        found = importlib.import_module(source).KINDS
        return {**{k: v for k, v in found.items() if k not in drop}, **(extra or {})}

    return __getattr__
