"""``check drift`` on a wide table: bounded in time (``--budget``: what it did not reach is named, ``complete:
false``, exit 1, never a silent hang) and in output (the summary shows the most shifted columns, not one line for
each of 10,000)."""

from __future__ import annotations

import contextlib
import io
import time

import numpy as np
import pandas as pd

from faultlib.check.drift import SUMMARY_COLUMNS
from faultlib.cli.app import main
from tests.check.test_fuzz_checks import run_check


def _wide(tmp_path, columns: int = 40):
    rng = np.random.default_rng(7)
    names = [f"f{i}" for i in range(columns)]
    ref = pd.DataFrame(rng.normal(size=(200, columns)), columns=names)
    cur = pd.DataFrame(rng.normal(size=(200, columns)), columns=names)
    cur[names[-1]] += 2.0
    ref.to_csv(tmp_path / "ref.csv", index=False)
    cur.to_csv(tmp_path / "cur.csv", index=False)
    return str(tmp_path / "ref.csv"), str(tmp_path / "cur.csv")


def _human(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["check", *argv])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue()


def test_the_summary_shows_the_drifted_columns_first_and_counts_the_rest(tmp_path):
    ref, cur = _wide(tmp_path)
    code, text = _human("drift", ref, cur, "--method", "ks")
    assert code == 1
    lines = [line for line in text.splitlines() if line.startswith("f")]
    assert len(lines) == SUMMARY_COLUMNS and lines[0].startswith("f39:"), text
    assert f"and {40 - SUMMARY_COLUMNS} more column(s) of 40, not shown" in text


def test_a_narrow_table_still_shows_every_column(tmp_path):
    ref, cur = _wide(tmp_path, columns=40)
    code, out = run_check("drift", ref, cur, "--columns", "f1,f2,f39", "--method", "ks")
    assert code == 1 and set(out["columns"]) == {"f1", "f2", "f39"} and out["complete"] is True
    code, text = _human("drift", ref, cur, "--columns", "f1,f2,f39", "--method", "ks")
    assert "more column(s)" not in text and all(f"{n}:" in text for n in ("f1", "f2", "f39"))


def test_a_budget_that_runs_out_is_an_incomplete_analysis_never_ok(tmp_path, monkeypatch):
    ref, cur = _wide(tmp_path)
    ticks = iter(range(0, 10**6, 1000))   # each look at the clock: 1,000 s later
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    code, out = run_check("drift", ref, cur, "--budget", "1500")
    assert code == 1 and out["complete"] is False, out
    [finding] = [f for f in out["findings"] if f["kind"] == "analysis_incomplete"]
    assert finding["severity"] == "warning" and "--budget" in finding["message"]
    assert "MMD test did not run" in finding["message"] and out["multivariate"] is None


def test_the_budget_must_be_a_positive_number(tmp_path):
    ref, cur = _wide(tmp_path, columns=3)
    for bad in ("0", "-5", "nan", "soon"):
        code, text = _human("drift", ref, cur, "--budget", bad)
        assert code == 2, f"{bad}: {text}"
