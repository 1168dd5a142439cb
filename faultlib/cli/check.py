"""``faultlib check NAME ...``: the group that finds each check by name (see :mod:`faultlib.check`)."""

from __future__ import annotations

import click
from rich.text import Text

from faultlib.console import emit_json, state, stdout  # noqa: F401  (tests patch faultlib.cli.check.stdout)


class CheckGroup(click.Group):
    """Subcommands come from the ``faultlib.checks`` entry points, loaded only when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from faultlib.check import available

        return available()

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        from faultlib.check import available, load

        return load(name) if name in available() else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """An unknown NAME is a usage error (exit 2) that lists every check, with the closest as a hint."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            known = self.list_commands(ctx)
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise click.UsageError(f"no check named {name!r}{hint}; the checks are: {', '.join(known)} "
                                   "(faultlib check --list-kinds lists what each finds)", ctx)
        return super().resolve_command(ctx, args)


@click.group("check", cls=CheckGroup, invoke_without_command=True)
@click.option("--list-kinds", is_flag=True, help="List every finding kind of every check, with what it means.")
@click.option("--json", "as_json", is_flag=True, help="With --list-kinds: print {check: {kind: meaning}}.")
@click.pass_context
def check_app(ctx: click.Context, list_kinds: bool, as_json: bool) -> int | None:
    """Check your own files for a fault: faultlib check NAME ARGS... [--json] [--fail-on SEVERITY].

    Exit 0 when no finding reaches --fail-on (default warning), 1 when one does, 2 for bad usage
    or unreadable input (the message names the file and line, column or key).
    """
    if ctx.invoked_subcommand is not None:
        return None
    if not list_kinds:  # bad usage, as for `faultlib` and `faultlib archive` with nothing to do (exit 2)
        raise click.UsageError("name a check (faultlib check NAME ARGS...) or pass --list-kinds; the checks are: "
                               f"{', '.join(ctx.command.list_commands(ctx))}", ctx)
    from faultlib.check import kinds
    from faultlib.tables import print_prose_table  # rich.table: only this listing prints one

    state["json"] = as_json
    every = kinds()
    if as_json:
        emit_json(every)
        return 0
    print_prose_table(["check", "kind", "meaning"], [[Text(check), Text(kind), Text(meaning)]
                                                     for check, described in every.items()
                                                     for kind, meaning in described.items()])
    return 0
