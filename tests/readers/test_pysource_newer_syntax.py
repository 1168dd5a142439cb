"""Syntax newer than the running interpreter (Python 3.12's type parameters, ``type`` aliases and f-strings, 3.14's
``except A, B:``) is read by the shared :func:`~faultlib.readers.pysource.parse_python`, lines kept, for every
static check: ``check leakage`` once skipped such a notebook cell or statement (and the leak in it), ``check
resume`` refused such a script. A real syntax error is still bad input at its own line. Every example is written
for this test."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.training.resume import analyze_resume_source
from faultlib.errors import InputError
from faultlib.readers.pysource import parse_python
from tests.check.test_fuzz_checks import run_check
from tests.detect.blocking_source import flagged

NEWER = {  # each: a statement in newer syntax, then `marker = 1` on line 5
    "except_without_parentheses": "try:\n    pass\nexcept KeyError, IndexError:\n    pass\nmarker = 1\n",
    "f_string_with_a_backslash": "parts = []\n\nnote = f\"{'\\n'.join(parts)}\"\n\nmarker = 1\n",
    "f_string_with_its_own_quote":
        "parts = {}\n\nnote = f\"{parts[\"a\"]} and {', '.join(f\"'{k}'\" for k in parts)}\"\n\nmarker = 1\n",
    "f_string_group_closed_below":  # the 3.11 parser names the line of the `)`, not the f-string's
        "parts = ''\nnote = (\n    f\"> {parts.replace('\\n', ' ')}\"\n)\nmarker = 1\n",
    "f_string_over_lines": "parts = []\n\nnote = f\"{\n    len(parts)}\" if parts else ''  # it's empty\nmarker = 1\n",
    "type_parameters_over_lines": "def first[\n    T\n](items: list[T]) -> T:\n    return items[0]\nmarker = 1\n",
    "type_alias": "type Rows = list[\n    int\n]\n\nmarker = 1\n",
}


@pytest.mark.parametrize("name", sorted(NEWER))
def test_each_newer_syntax_is_parsed_with_its_lines_kept(name):
    tree = parse_python(NEWER[name], "newer.py")
    marker = tree.body[-1]
    assert (marker.targets[0].id, marker.lineno) == ("marker", 5)


@pytest.mark.parametrize("name", sorted(NEWER))
def test_a_real_syntax_error_after_the_newer_syntax_is_refused_at_its_own_line(name):
    with pytest.raises(InputError, match=r"line 7\b") as refused:
        parse_python(NEWER[name] + "\ndef broken(:\n    pass\n", "newer.py")
    assert refused.value.line == 7
    with pytest.raises(SyntaxError) as kept:
        parse_python(NEWER[name] + "\ndef broken(:\n    pass\n", "newer.py", keep_syntax_errors=True)
    assert kept.value.lineno == 7


@pytest.mark.parametrize("source", [
    "parts = []\nnote = f\"{len(parts)}\" +\n",  # the error is beside an ordinary f-string, not in it
    "parts = []\nnote = (f\"{len(parts)}\" 'unterminated)\n",
])
def test_a_real_syntax_error_on_a_line_with_an_f_string_is_still_refused_at_that_line(source):
    with pytest.raises(InputError) as refused:
        parse_python(source, "plain.py")
    assert refused.value.line == 2


def test_a_real_syntax_error_without_newer_syntax_keeps_the_parsers_words():
    with pytest.raises(InputError, match=r"is not valid Python \(line 2, column \d+\)"):
        parse_python("total = 1\ntotal = = 2\n", "plain.py")


# -- check leakage: the leak inside the statement or cell written in newer syntax ---------------------------------------

LEAK_HEAD = """\
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
X, y = load_wine(return_X_y=True)
"""

LEAK_IN_NEWER_STATEMENT = {  # the fit on every row sits on line 3 of each body
    "except_without_parentheses": """\
        X_scaled = X
        try:
            X_scaled = StandardScaler().fit_transform(X)
        except ValueError, TypeError:
            pass
        X_train, X_test, y_train, y_test = train_test_split(X_scaled, y)
        """,
    "type_parameters": """\
        def scaled[T](data: T) -> T:
            scaler = StandardScaler()
            return scaler.fit_transform(data)

        X_train, X_test, y_train, y_test = train_test_split(scaled(X), y)
        """,
    "f_string_with_a_backslash": """\
        def scaled(data, names):
            print(f"{'\\n'.join(names)}")
            return StandardScaler().fit_transform(data)

        X_train, X_test, y_train, y_test = train_test_split(scaled(X, ["a"]), y)
        """,
}


def _leak_findings(path) -> list[tuple[str, int]]:
    report, _ = analyze_file(str(path))
    return sorted((f.kind, f.location["line"]) for f in report.findings)


@pytest.mark.parametrize("name", sorted(LEAK_IN_NEWER_STATEMENT))
def test_check_leakage_finds_a_leak_inside_a_statement_in_newer_syntax(tmp_path, name):
    path = tmp_path / "prep.py"
    path.write_text(LEAK_HEAD + textwrap.dedent(LEAK_IN_NEWER_STATEMENT[name]))
    assert _leak_findings(path) == [("fit_before_split", LEAK_HEAD.count("\n") + 3)]


def _notebook(tmp_path, *cells: str):
    path = tmp_path / "prep.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                           "source": cell} for cell in cells],
                                "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
                                "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_a_notebook_cell_in_python_3_12_syntax_is_analysed_not_skipped(tmp_path):
    path = _notebook(tmp_path, LEAK_HEAD + "names = ['a']",
                     "X_scaled = StandardScaler().fit_transform(X)\nprint(f\"{'\\n'.join(names)}\")",
                     "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y)")
    report, _ = analyze_file(str(path))
    assert [(f.kind, f.location["index"], f.location["line"]) for f in report.findings] == [
        ("fit_before_split", 2, 1)]


def test_a_real_syntax_error_in_another_cell_is_still_skipped_alone(tmp_path):
    path = _notebook(tmp_path, LEAK_HEAD,
                     "try:\n    X_scaled = StandardScaler().fit_transform(X)\nexcept ValueError, TypeError:\n    pass",
                     "total = = 2",
                     "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y)")
    report, _ = analyze_file(str(path))
    assert sorted((f.kind, f.location["index"], f.location["line"]) for f in report.findings) == [
        ("code_not_parsed", 3, 1), ("fit_before_split", 2, 2)]


def test_a_cell_magic_body_in_newer_syntax_is_read_as_python(tmp_path):
    path = tmp_path / "prep.py"  # a notebook exported as a script keeps its %%time cell as one call
    body = "X_scaled = StandardScaler().fit_transform(X)\\ntry:\\n    pass\\nexcept ValueError, TypeError:\\n    pass\\n"
    path.write_text(LEAK_HEAD + f"get_ipython().run_cell_magic('time', '', '{body}')\n"
                    "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y)\n")
    assert _leak_findings(path) == [("fit_before_split", LEAK_HEAD.count("\n") + 1)]


def test_check_blocking_reads_a_file_with_an_f_string_holding_its_own_quote(tmp_path):
    found = flagged(tmp_path, """
        import time

        def pause(seconds, row):
            note = f"{row["name"]} waited {
                seconds}s"
            time.sleep(seconds)
            return note

        async def crawl():
            pause(2, {"name": "a"})
    """)
    assert found == {("blocking_sleep", "time.sleep(seconds)")}


# -- check resume: a training script in newer syntax is analysed, not refused ------------------------------------------

RESUME = """\
import torch
from torch import nn
{alias}

def train(args, path):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    start = 0
    if args.resume:
        state = torch.load(args.resume, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["epoch"]
    for epoch in range(start, 10):
        try:
            optimizer.step()
        {handler}
            pass
        scheduler.step()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}}, path)
"""
PLAIN = {"alias": "Batch = list[torch.Tensor]", "handler": "except (ValueError, RuntimeError):"}
NEWER_RESUME = {"alias": "type Batch = list[torch.Tensor]", "handler": "except ValueError, RuntimeError:"}


def _resume_findings(source: str) -> list[tuple[str, int]]:
    return sorted((f.kind, f.location["line"]) for f in analyze_resume_source(source, "train.py").findings)


def test_check_resume_reads_a_script_in_newer_syntax_as_its_older_spelling():
    plain = _resume_findings(RESUME.format(**PLAIN))
    assert plain  # the scheduler is saved, never restored
    assert _resume_findings(RESUME.format(**NEWER_RESUME)) == plain


def test_check_resume_still_refuses_a_real_syntax_error_at_its_file_and_line(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(RESUME.format(**NEWER_RESUME) + "\ndef broken(:\n    pass\n")
    code, out = run_check("resume", str(script))
    assert code == 2
    assert str(script) in json.dumps(out) and f"line {RESUME.count(chr(10)) + 2}," in out["message"], out


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the interpreter reads Python 3.12 syntax itself")
def test_a_class_header_with_type_parameters_leaves_their_names_for_the_generics_rules():
    from faultlib.readers.newer_syntax import TYPE_PARAMS

    tree = parse_python("class Box[T, *Ts]:\n    pass\n", "box.py")
    assert tree.__dict__[TYPE_PARAMS] == {1: ["T", "Ts"]}


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the parser reads PEP 701 f-strings itself")
def test_reparsing_is_bounded_by_the_files_size(monkeypatch):
    """One f-string line is rewritten per round and each round parses the whole text again: a large file full of
    them would cost rounds x size, so the rounds are bounded by a budget of characters parsed (then the file is
    refused at an f-string line, as before the rewrite existed)."""
    from faultlib.readers import newer_syntax

    lines = [line for i in range(40) for line in (f'x{i} = f"{{d["k{i}"]}}"', *(["y = 1"] * 50))]
    source = "\n".join(lines) + "\n"
    assert parse_python(source, "many.py").body  # the default budget holds 40 rounds of this small file
    monkeypatch.setattr(newer_syntax, "_REPARSE_BUDGET_CHARS", 10 * len(source))  # 10 rounds of it
    with pytest.raises(InputError) as refused:
        parse_python(source, "many.py")
    line = refused.value.line  # an f-string the rounds did not reach, not the first
    assert line > 10 * 51 and lines[line - 1].startswith("x"), refused.value
