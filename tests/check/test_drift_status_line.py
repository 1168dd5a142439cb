"""``check drift`` on wide tables is long (linear in the columns: about 35 s for 2,000 rows x 3,000 columns): on a
terminal it shows a transient status line on stderr while it reads and tests; a log or a pipe gets nothing."""

from __future__ import annotations

import io

import pytest

from faultlib import console
from faultlib.cli.app import main


def _tables(tmp_path):
    rows = "\n".join(f"{i},{i % 7 * 0.5},{'ab'[i % 2]}" for i in range(60))
    for name in ("before.csv", "after.csv"):
        (tmp_path / name).write_text("n,level,kind\n" + rows + "\n")
    return str(tmp_path / "before.csv"), str(tmp_path / "after.csv")


def _stderr_of_drift(tmp_path, monkeypatch, *, terminal: bool) -> str:
    err = io.StringIO()
    monkeypatch.setattr(console, "stderr", console.SafeConsole(file=err, force_terminal=terminal, width=100))
    before, after = _tables(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["check", "drift", before, after])
    assert done.value.code == 0
    return err.getvalue()


def test_a_terminal_sees_what_the_check_is_doing(tmp_path, monkeypatch):
    shown = _stderr_of_drift(tmp_path, monkeypatch, terminal=True)
    assert "check drift: testing 3 column(s) of 60 and 60 rows" in shown, shown


def test_a_pipe_gets_no_status_line(tmp_path, monkeypatch):
    assert _stderr_of_drift(tmp_path, monkeypatch, terminal=False) == ""
