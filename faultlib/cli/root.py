"""The ``faultlib`` root command group: every command module registers itself on :data:`app`.

The group is defined here and the commands in their own modules (``run``, ``catalog`` for list and
validate, ``archive``, ``check``, ...), each importing :data:`app` from this module; :mod:`faultlib.cli.app`
(the console-script entry) imports every command module and maps errors to exit codes. Nothing here
imports a command module, so the CLI has no import circle.
"""

from __future__ import annotations

from pathlib import Path

import click

from faultlib.console import state
from faultlib.package import __version__

DEFAULT_CASES = Path("cases")
CASE_DIR = click.Path(path_type=Path)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="faultlib")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def app(debug: bool) -> None:
    """Reproduce ML-system failures, catch them with detectors, and archive the evidence.

    Start with: faultlib run cases/fp16_overflow

    Exit codes: 0 passed, 1 failed (or a finding), 2 bad usage or input, 3 backend or archive unreachable.
    """
    state["debug"] = debug
