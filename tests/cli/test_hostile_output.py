"""Text from users' files reaches the terminal as text: no rich markup, no emoji shortcodes, no terminal
controls, in every command's output (tables, summaries, errors), through the one printing path."""

from __future__ import annotations

import io
import json

import pytest
from rich.table import Table
from rich.text import Text

from faultlib.console import SafeConsole
from tests.conftest import cli

HOSTILE = "x:100:[bold red]shout[/] :thumbs_up: \x1b]0;pwned\x07\x1b[2J\x9b31m\u2028end"


def _clean(output: str) -> None:
    assert "\x1b" not in output and "\x07" not in output and "\x9b" not in output and "\u2028" not in output
    assert "\U0001F4AF" not in output and "\U0001F44D" not in output   # 💯 from ":100:", 👍 from ":thumbs_up:"


def test_the_console_escapes_every_kind_of_printed_text():
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, width=200)
    table = Table()
    table.add_column("where")
    table.add_row(HOSTILE)
    table.add_row(Text(HOSTILE, "red"))
    console.print(table)
    console.print(HOSTILE)
    console.print(Text.assemble(("label: ", "bold"), HOSTILE))
    shown = buffer.getvalue()
    _clean(shown)
    assert "[bold red]shout[/]" in shown and ":thumbs_up:" in shown and "x:100:" in shown
    assert "\\x1b]0;pwned" in shown


@pytest.mark.parametrize("make", ["labels", "drift", "leakage", "checkpoints", "validate", "features"])
def test_hostile_names_and_contents_print_as_text(tmp_path, make):
    name = "f:100:[bold]\x1b]0;pwned\x07"
    if make == "labels":
        (tmp_path / "train.json").write_text(json.dumps([HOSTILE, "b", "c"]))
        (tmp_path / "serving.json").write_text(json.dumps(["b", HOSTILE, "c"]))
        args = ["check", "labels", "train.json", "serving.json"]
    elif make == "drift":
        (tmp_path / f"{name}.csv").write_text(f"a,b\n1,{HOSTILE!r}\n")
        args = ["check", "drift", f"{name}.csv", f"{name}.csv"]
    elif make == "leakage":
        (tmp_path / f"{name}.py").write_text("def broken(:\n")
        args = ["check", "leakage", f"{name}.py"]
    elif make == "checkpoints":
        (tmp_path / f"{name}.pt").write_bytes(b"<html>" + HOSTILE.encode() + b"</html>")
        args = ["check", "checkpoints", f"{name}.pt"]
    elif make == "validate":
        (tmp_path / name).mkdir()
        (tmp_path / name / "case.yaml").write_text(f"id: {json.dumps(HOSTILE)}\n")
        args = ["validate", name]
    else:
        (tmp_path / "v1.yaml").write_text(json.dumps({"features": [{"name": HOSTILE, "type": "numeric"}]}))
        (tmp_path / "v2.yaml").write_text(json.dumps({"features": [{"name": "other", "type": "numeric"}]}))
        args = ["check", "features", "v1.yaml", "v2.yaml"]
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert "Traceback" not in proc.stderr
    _clean(proc.stdout + proc.stderr)
