"""What people read fits the width they read it at, and never loses a word: `faultlib list` keeps every case's
title and whole fault class on an 80-column terminal (the title column was dropped, ``distributed.collective_desy…``
cut), `faultlib shims` wraps summaries and descriptions between words (summaries ran to 122 columns, descriptions
folded ``model.named_mod`` / ``ules()``), and off a terminal tables are as wide as ``COLUMNS``, else 80 (they were
200 wide in a pipe or a CI log)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

import faultlib.cli.catalog as catalog
import faultlib.cli.shims as shims_cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def narrow(monkeypatch):
    """stdout as an 80-column terminal; returns what was printed."""
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False, no_color=True)
    monkeypatch.setattr(catalog, "stdout", console)
    monkeypatch.setattr(shims_cli, "stdout", console)
    return out


def _words(text: str) -> list[str]:
    return text.split()


def test_list_keeps_every_title_and_fault_class_at_80_columns(narrow):
    from faultlib.cases import discover, load_case

    cases = [load_case(path) for path in discover(REPO / "cases")]
    catalog.list_cases.callback(REPO / "cases", None, False)
    text = narrow.getvalue()
    assert max(map(len, text.splitlines())) <= 80, text
    printed = _words(text)
    for case in cases:
        assert case.fault_class in printed, f"{case.fault_class}; {text}"
        at = printed.index(case.id)
        assert printed[at + 5: at + 5 + len(_words(case.title))] == _words(case.title), f"{case.title}; {text}"


def test_shims_wrap_between_words_at_80_columns(narrow):
    from faultlib.inject.registry import available, describe

    shims_cli.shims.callback((), False)
    text = narrow.getvalue()
    assert max(map(len, text.splitlines())) <= 80, text
    printed = set(_words(text))
    for shim in map(describe, available()):
        words = _words(shim["summary"]) + [w for p in shim["params"] for w in _words(p["description"])]
        short = [w for w in words if len(w) <= 18]  # a longer word may fold where codes leave 18 columns
        assert not [w for w in short if w not in printed], f'{shim["name"]}; {text}'
    assert "``model.named_modules()``" in printed, text  # activation_scale's, folded at 80 columns before


def _widest(extra_env: dict) -> int:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")} | extra_env
    out = subprocess.run([sys.executable, "-m", "faultlib", "check", "--list-kinds"], env=env, cwd=REPO,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=True).stdout
    return max(map(len, out.splitlines()))


def test_tables_off_a_terminal_are_80_wide_or_as_wide_as_columns():
    assert _widest({}) <= 80
    assert 80 < _widest({"COLUMNS": "120"}) <= 120


def test_a_shims_docstring_is_reflowed_between_words_at_80_columns(narrow):
    """`faultlib shims tcp_latency` printed its docstring's source lines (up to 97 columns) as they were, and its
    parameter table left the descriptions 15 columns: one parameter per line there, each word whole."""
    from faultlib.inject.registry import describe

    shims_cli.shims.callback(("tcp_latency",), False)
    text = narrow.getvalue()
    assert max(map(len, text.splitlines())) <= 80, text
    shim = describe("tcp_latency")
    assert _words(text).count("``feature_service``.") == 2, text  # the parameter's description and the docstring's
    assert [w for w in _words(shim["doc"]) if w not in _words(text)] == [], text
    assert "    latency_ms (number): added delay in milliseconds, >= 0." in text.splitlines(), text
