"""A notebook's ``%run`` whose notebook is not followed leaves the analysis incomplete (issue 17: ``complete`` is
true only when everything reachable was analysed): a finding of kind ``analysis_incomplete`` at the running cell
names why, and ``check leakage`` exits 1, never 0 "ok". Examples written for this test."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import cli_in_process

PREP = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split\nrows = pd.read_csv('visits.csv')",
        "X_a, X_b, y_a, y_b = train_test_split(rows[['age']], rows['readmitted'], test_size=0.3)")
MODEL = ("%run prep.ipynb",
         "from sklearn.tree import DecisionTreeClassifier\ntree = DecisionTreeClassifier().fit(X_a, y_a)",
         "print(tree.score(X_b, y_b))")


def _notebook(path: Path, *cells: str) -> Path:
    doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
           "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c}
                     for c in cells]}
    path.write_text(json.dumps(doc))
    return path


def _gaps(path: Path) -> tuple[bool, list[tuple[str, int | None, str]]]:
    from faultlib.detect.data.leakage import analyze_file

    report, _ = analyze_file(str(path))
    return report.complete, [(Path(f.location["file"]).name, f.location.get("index"), f.message)
                             for f in report.findings if f.kind == "analysis_incomplete"]


def test_a_run_notebook_that_is_not_there_makes_the_report_incomplete_at_its_cell(tmp_path: Path) -> None:
    complete, gaps = _gaps(_notebook(tmp_path / "model.ipynb", *MODEL))
    assert not complete
    assert [(name, cell) for name, cell, _ in gaps] == [("model.ipynb", 1)]
    assert "prep.ipynb is not there" in gaps[0][2]


def test_a_run_notebook_behind_a_link_or_not_a_notebook_is_a_gap_too(tmp_path: Path) -> None:
    (tmp_path / "drafts").mkdir()
    _notebook(tmp_path / "drafts" / "prep.ipynb", *PREP)
    (tmp_path / "prep.ipynb").symlink_to(tmp_path / "drafts" / "prep.ipynb")
    complete, gaps = _gaps(_notebook(tmp_path / "model.ipynb", *MODEL))
    assert not complete and "symbolic link" in gaps[0][2]
    (tmp_path / "prep.ipynb").unlink()
    (tmp_path / "prep.ipynb").write_text("{ this is no notebook")
    complete, gaps = _gaps(_notebook(tmp_path / "model.ipynb", *MODEL))
    assert not complete and "could not be read" in gaps[0][2]


def test_a_followed_run_notebook_and_a_cycle_leave_the_report_complete(tmp_path: Path) -> None:
    _notebook(tmp_path / "prep.ipynb", "%run model.ipynb", *PREP)  # runs the notebook back: read once, no gap
    assert _gaps(_notebook(tmp_path / "model.ipynb", *MODEL)) == (True, [])


def test_check_leakage_exits_1_with_complete_false_when_a_run_notebook_is_missing(tmp_path: Path) -> None:
    _notebook(tmp_path / "model.ipynb", *MODEL)
    answer = cli_in_process("check", "leakage", "model.ipynb", "--json", cwd=tmp_path)
    assert answer.returncode == 1, answer.stderr
    report = json.loads(answer.stdout)
    assert report["complete"] is False
    _notebook(tmp_path / "prep.ipynb", *PREP)
    answer = cli_in_process("check", "leakage", "model.ipynb", "--json", cwd=tmp_path)
    assert answer.returncode == 0 and json.loads(answer.stdout)["complete"] is True, answer.stdout
