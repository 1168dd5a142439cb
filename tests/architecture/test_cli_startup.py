"""What starting the CLI imports, as ``python -m faultlib ...`` starts it (credentials step included): the
process's ``sys.modules`` when it exits.

``faultlib --help`` imports no command module and no heavy library (the root imported every command module
and cost ~0.2 s CPU per start against ~0.04 s for bare Python; the suite starts the CLI hundreds of times);
``faultlib CMD --help`` imports that command's module and no other command's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from faultlib.cli.root import COMMANDS

COMMAND_MODULES = sorted({entry.target.partition(":")[0] for entry in COMMANDS.values()})
HEAVY = ("torch", "numpy", "onnx", "onnxruntime", "sklearn", "scipy", "pandas", "minio", "jsonschema", "yaml",
         "rich.table", "faultlib.archive.file", "faultlib.archive.s3", "faultlib.evidence", "faultlib.cases")


#: ``python -m faultlib ARGV`` (runpy, as -m runs it) that prints its sys.modules at exit, after a marker
PROBE = ("import atexit, json, runpy, sys\n"
         "atexit.register(lambda: print('MODULES', json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
         "sys.argv = ['faultlib', *json.loads(sys.argv[1])]\n"
         "runpy.run_module('faultlib', run_name='__main__', alter_sys=True)\n")


def imported(*argv: str, cwd: Path | None = None) -> set[str]:
    """The modules ``python -m faultlib ARGV`` imports (the process must exit 0)."""
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={"PATH": "/usr/bin:/bin", "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout, "the command printed nothing"
    return set(json.loads(proc.stderr.rsplit("MODULES ", 1)[1]))


def test_root_help_imports_no_command_module_and_nothing_heavy():
    names = imported("--help")
    assert "faultlib.cli.root" in names  # the probe sees the CLI's own modules
    assert [m for m in COMMAND_MODULES if m in names] == []
    assert [m for m in HEAVY if m in names] == []


@pytest.mark.parametrize("command", ["run", "archive"])
def test_a_commands_help_imports_its_module_and_no_other_commands(command):
    names = imported(command, "--help")
    own = COMMANDS[command].target.partition(":")[0]
    assert own in names
    assert [m for m in COMMAND_MODULES if m in names and m != own] == []


@pytest.mark.parametrize("argv", [("trace", "--help"), ("check", "leakage", "plain.py", "--json"),
                                  ("check", "blocking", "plain.py", "--json")])
def test_the_suites_most_started_commands_load_no_yaml_and_no_table_before_they_need_one(argv, tmp_path):
    """trace and the static checks of a Python file read no YAML and print no rich table for --help or --json
    (yaml came with faultlib.readers' door, rich.table with each command module: ~40 ms CPU per start)."""
    (tmp_path / "plain.py").write_text("total = sum(range(3))\n")
    names = imported(*argv, cwd=tmp_path)
    assert [m for m in ("yaml", "rich.table", "faultlib.readers.yamldoc") if m in names] == []


def test_a_file_archive_listing_loads_no_s3_client_and_no_table_for_json(tmp_path):
    (tmp_path / "runs").mkdir()
    names = imported("archive", "ls", f"file://{tmp_path / 'runs'}", "--json", cwd=tmp_path)
    assert "faultlib.archive.file" in names
    assert [m for m in ("faultlib.archive.s3", "faultlib.archive.s3client", "rich.table") if m in names] == []
