"""``faultlib check NAME ...``: one command per detector, each on files, never needing a case.

The contract every check follows (DESIGN.md):

- ``faultlib check NAME ARGS... [--json] [--fail-on info|warning|error|critical]`` (default ``warning``);
- exit 0 when no finding reaches ``--fail-on``, 1 when one does, 2 for bad usage or unreadable or
  mismatched input (the message names the file and, where it applies, line, column or key);
- ``--json`` prints ``{"detector": NAME, "ok": bool, "findings": [Finding...], ...fields}``; people
  get a rich table with the same facts.

A check is a function returning :class:`CheckResult`, turned into a click command by
:func:`check_command`, and registered by name in the ``faultlib.checks`` entry-point group
(``name = "package.module:command"``), exactly like third-party checks. ``faultlib check``
loads a check's module only when that check runs, so ``faultlib --help`` stays fast.
"""

from faultlib.check.base import CheckResult, check_command, fail_on_option
from faultlib.check.registry import available, kinds, load

__all__ = ["CheckResult", "available", "check_command", "fail_on_option", "kinds", "load"]
