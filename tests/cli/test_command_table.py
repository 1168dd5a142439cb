"""The root group's command table (``faultlib.cli.root.COMMANDS``) is the one registration point: each entry
names its real command, its short help is the command's own, and no command module defines a command the
table leaves out. ``faultlib --help`` lists the table without importing a command module (the import side is
tests/architecture/test_cli_startup.py)."""

from __future__ import annotations

import importlib
import pkgutil

import click

import faultlib.cli
from faultlib.cli.root import COMMANDS, app, load_command
from tests.conftest import cli

LONG = 10**6  # a help column wide enough that click shortens nothing but to the first sentence


def test_each_entry_is_its_command_and_has_the_commands_own_short_help():
    ctx = click.Context(app)
    differ = {}
    for name, entry in COMMANDS.items():
        command = app.get_command(ctx, name)
        assert command is load_command(name, entry) and command.name == name
        if command.get_short_help_str(LONG) != entry.help:
            differ[name] = (entry.help, command.get_short_help_str(LONG))
    assert differ == {}, "COMMANDS' short help differs from the command's docstring (table, command): " + repr(differ)


def test_no_command_module_defines_a_command_the_table_leaves_out():
    """A command written the old way (decorated, never registered) would be unreachable: every top-level click
    command defined in faultlib/cli (not a subcommand of a group there) is in the table, under its own name."""
    defined, nested = {}, set()
    for info in pkgutil.iter_modules(faultlib.cli.__path__):
        module = importlib.import_module(f"faultlib.cli.{info.name}")
        for attr, value in vars(module).items():
            if value is not app and isinstance(value, click.Command) and \
                    getattr(value.callback, "__module__", None) == module.__name__:
                defined[f"{module.__name__}:{attr}"] = value
                if isinstance(value, click.Group):
                    nested |= {id(sub) for sub in value.commands.values()}
    top = {target: command.name for target, command in defined.items() if id(command) not in nested}
    assert top == {entry.target: name for name, entry in COMMANDS.items()}


def test_root_help_lists_every_command_with_its_short_help(tmp_path):
    """Each line is the table's short help, or (longer than the help column) its start cut with '...'."""
    proc = cli("--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    listed = dict(line.split(None, 1) for line in proc.stdout.split("Commands:\n", 1)[1].splitlines())
    assert sorted(listed) == sorted(COMMANDS)
    wrong = {name: shown for name, shown in listed.items() if not (
        shown == COMMANDS[name].help or shown.endswith("...") and COMMANDS[name].help.startswith(shown[:-3]))}
    assert wrong == {}, wrong


def test_an_unknown_command_is_still_a_usage_error(tmp_path):
    proc = cli("runn", "cases/x", cwd=tmp_path)
    assert proc.returncode == 2 and "No such command 'runn'" in proc.stderr


def test_a_mistyped_command_names_the_closest_one_and_a_far_one_none(tmp_path):
    proc = cli("chek", "drift", cwd=tmp_path)
    assert proc.returncode == 2, f"{proc.returncode}: {proc.stderr}"
    assert "No such command 'chek' (did you mean 'check'?)" in proc.stderr, f"{proc.stderr}"
    far = cli("zzzqq", cwd=tmp_path)
    assert far.returncode == 2 and "No such command 'zzzqq'" in far.stderr, f"{far.returncode}: {far.stderr}"
    assert "did you mean" not in far.stderr, f"{far.stderr}"
