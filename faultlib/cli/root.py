"""The ``faultlib`` root command group and its command table: :data:`COMMANDS` is the one place a command is
registered.

Each command lives in its own module as a plain ``click`` command (``run``, ``catalog`` for list and validate,
``archive``, ``check``, ...) and registers nowhere itself: :data:`COMMANDS` names it (``module:attr``) with its
short help, and :class:`LazyGroup` imports a command's module only when that command runs or shows its own
``--help``. ``faultlib --help`` lists every command from the table alone, importing no command module (a CLI
start cost ~0.2 s CPU when the root imported them all, and the test suite starts the CLI hundreds of times).
The short help in the table is the command's own (the first sentence of its docstring): a test compares them.
Nothing here imports a command module, so the CLI has no import circle.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import NamedTuple

import click

from faultlib.console import state
from faultlib.package import __version__

DEFAULT_CASES = Path("cases")
CASE_DIR = click.Path(path_type=Path)


class Entry(NamedTuple):
    """A command in :data:`COMMANDS`: where it is defined and its short help for the command list."""

    target: str  #: ``"package.module:attr"``, the attribute a ``click.Command`` (or group)
    help: str  #: the command's short help, exactly ``command.get_short_help_str(limit=large)``


#: Every ``faultlib`` command: name -> where it lives, short help. The one registration point.
COMMANDS: dict[str, Entry] = {
    "archive": Entry("faultlib.cli.archive:archive_app",
                     "List, fetch, flush and repair archived runs (file://DIR or s3://BUCKET/PREFIX)."),
    "check": Entry("faultlib.cli.check:check_app",
                   "Check your own files for a fault: faultlib check NAME ARGS..."),
    "dashboards": Entry("faultlib.cli.dashboards:dashboards",
                        "Generate the Grafana dashboards from the catalog (default ./cases): one per fault-class "
                        "family, uid faultlib-<family>, with the panel ids and PromQL queries the cases name."),
    "fingerprint": Entry("faultlib.cli.fingerprint:fingerprint",
                         "Print the environment's fingerprint: Python, platform, every installed package, torch's "
                         "build, devices."),
    "list": Entry("faultlib.cli.catalog:list_cases", "List the catalog (default ./cases) as a table or JSON."),
    "new": Entry("faultlib.cli.new:new",
                 "Create the case NAME (snake_case) from an incident trace (or, without one, placeholder services)."),
    "regen": Entry("faultlib.cli.regen:regen",
                   "Re-run the cases whose required packages changed since OLD.json; re-verify those that pass."),
    "regress": Entry("faultlib.cli.regress:regress",
                     "Run every case of the catalog (default ./cases): control and faulted run, assertions, "
                     "evidence."),
    "run": Entry("faultlib.cli.run:run",
                 "Run a case: control run, faulted run, assertion suite; archive the evidence."),
    "shims": Entry("faultlib.cli.shims:shims",
                   "List the fault shims a case can name in inject.local (default: all), with their parameters."),
    "trace": Entry("faultlib.cli.trace:trace",
                   "Find the first NaN/inf in an unmodified script: faultlib trace -- python train.py ARGS."),
    "validate": Entry("faultlib.cli.catalog:validate",
                      "Validate case directories (default: every case in ./cases)."),
}


def load_command(name: str, entry: Entry) -> click.Command:
    """Import ``entry.target`` and return its command.

    Raises:
        TypeError: the attribute is not a click command, or is named other than ``name`` (a table mistake).
    """
    module, _, attr = entry.target.partition(":")
    command = getattr(importlib.import_module(module), attr)
    if not isinstance(command, click.Command) or command.name != name:
        raise TypeError(f"COMMANDS[{name!r}] = {entry.target} is {command!r}, not the click command {name!r}")
    return command


class LazyGroup(click.Group):
    """A group whose commands come from a table (click's "Lazily Loading Subcommands" pattern): a command's
    module is imported when the command is looked up to run or to show its own help, never to list it."""

    def __init__(self, *args, lazy: dict[str, Entry], **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            return load_command(cmd_name, self.lazy[cmd_name])
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]):  # type: ignore[no-untyped-def]
        """An unknown command is click's usage error (exit 2), with the closest command as a hint ('chek':
        did you mean 'check'?), found from the table's names alone."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in self.list_commands(ctx):
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            if close:
                raise click.UsageError(f"No such command {name!r} (did you mean {close[0]!r}?).", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table's short help, shortened to the terminal as click shortens a
        command's own (a stand-in command per row, so nothing is imported)."""
        rows = {name: click.Command(name, help=self.lazy[name].help) if name in self.lazy
                else self.get_command(ctx, name) for name in self.list_commands(ctx)}
        shown = {name: command for name, command in rows.items() if command is not None and not command.hidden}
        if not shown:
            return
        limit = formatter.width - 6 - max(map(len, shown))
        with formatter.section("Commands"):
            formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in shown.items()])


@click.group(cls=LazyGroup, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="faultlib")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def app(debug: bool) -> None:
    """Reproduce ML-system failures, catch them with detectors, and archive the evidence.

    Start with: faultlib run cases/fp16_overflow

    Exit codes: 0 passed, 1 failed (or a finding), 2 bad usage or input, 3 backend or archive unreachable.
    """
    state["debug"] = debug
