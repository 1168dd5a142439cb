"""Every command's --help fits an 80-column terminal and loads no heavy library (a careless new user reads them
all first: `faultlib trace --help` printed its exit-code table 97 columns wide)."""

from __future__ import annotations

import subprocess
import sys

import click

from faultlib.cli.app import app


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [prefix]
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            out += _commands(command, (*prefix, name))
        elif command is not None:
            out.append((*prefix, name))
    return out


def test_every_help_fits_80_columns_and_imports_nothing_heavy():
    """One process walks every --help (COLUMNS=80, as a terminal sets it) and then reports the heavy modules."""
    commands = _commands(app)
    assert len(commands) > 20 and ("check", "onnx") in commands
    probe = (
        "import sys, json\nfrom click.testing import CliRunner\nfrom faultlib.cli.app import app\n"
        f"out = {{}}\nfor argv in {commands!r}:\n"
        "    r = CliRunner().invoke(app, [*argv, '--help'], terminal_width=80)\n"
        "    out[' '.join(argv)] = [r.exit_code, max(map(len, r.output.splitlines()))]\n"
        "heavy = sorted(m for m in ('torch', 'pandas', 'numpy', 'onnx', 'onnxruntime', 'sklearn', 'scipy', 'minio')"
        " if m in sys.modules)\nprint(json.dumps({'help': out, 'heavy': heavy}))\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json

    result = json.loads(proc.stdout)
    wide = {argv: width for argv, (code, width) in result["help"].items() if code != 0 or width > 80}
    assert wide == {}, wide
    assert result["heavy"] == []


def test_no_option_help_holds_a_word_click_must_break_at_80_columns():
    """Click breaks a word longer than the help column mid-word: `check drift --help` showed its example as
    'e.g. ca' / 'ses/covariate_shift/case.yaml#repro.params.d' / 'rift.', a path no one can copy. At 80
    columns an option's help column is 44 wide (the option column takes 30 plus the indent and the gap)."""
    long = {}
    for argv in _commands(app):
        command = app
        ctx = click.Context(app)
        for name in argv:
            command = command.get_command(ctx, name)
            ctx = click.Context(command)
        for param in command.params:
            for word in (getattr(param, "help", None) or "").split():
                if len(word) > 44:
                    long[f"{' '.join(argv)} {param.opts[0]}"] = word
    assert long == {}, long


def test_check_help_lists_every_check_without_importing_their_detectors():
    """`faultlib check --help` took twice as long as any other --help: each check module read its KINDS from its
    detector at import. Only align's --how/--validate choices still come from its detector package."""
    probe = ("import sys, json\nfrom click.testing import CliRunner\nfrom faultlib.cli.app import app\n"
             "r = CliRunner().invoke(app, ['check', '--help'], terminal_width=80)\n"
             "loaded = sorted(m for m in sys.modules if m.startswith('faultlib.detect.')"
             " and not m.startswith('faultlib.detect.data.alignment'))\n"
             "from faultlib.check.collectives import KINDS\n"
             "print(json.dumps({'code': r.exit_code, 'help': r.output, 'loaded': loaded, 'kinds': sorted(KINDS)}))\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json

    result = json.loads(proc.stdout)
    assert result["code"] == 0 and "collectives" in result["help"] and "state-dict" in result["help"]
    assert [m for m in result["loaded"] if m.count(".") > 2] == []  # package doors (lazy) only
    assert "dump_missing" in result["kinds"]  # and KINDS is still there when read
