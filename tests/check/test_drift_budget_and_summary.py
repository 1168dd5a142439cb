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
    code, out = run_check("drift", ref, cur, "--budget", "3500")  # reading each file looks once (1,000 s each)
    assert code == 1 and out["complete"] is False, out
    [finding] = [f for f in out["findings"] if f["kind"] == "analysis_incomplete"]
    assert finding["severity"] == "warning" and "--budget" in finding["message"]
    assert "MMD test did not run" in finding["message"] and out["multivariate"] is None


def test_the_budget_must_be_a_positive_number(tmp_path):
    ref, cur = _wide(tmp_path, columns=3)
    for bad in ("0", "-5", "nan", "soon"):
        code, text = _human("drift", ref, cur, "--budget", bad)
        assert code == 2, f"{bad}: {text}"


def test_the_budget_stops_the_reading_between_blocks_and_names_what_was_not_read(tmp_path, monkeypatch):
    """A huge table is not read whole before the budget is looked at: Parquet stops between row groups, a CSV between
    Arrow's blocks; nothing is tested, every column is untested, the warning says how far the reading got."""
    rng = np.random.default_rng(3)
    names = ["a", "b", "c"]
    for name in ("ref", "cur"):
        pd.DataFrame(rng.normal(size=(600, 3)), columns=names).to_parquet(tmp_path / f"{name}.parquet",
                                                                          row_group_size=100)
    ticks = iter(range(0, 10**6, 1000))   # each look at the clock: 1,000 s later
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    ref, cur = str(tmp_path / "ref.parquet"), str(tmp_path / "cur.parquet")
    code, out = run_check("drift", ref, cur, "--budget", "3500")
    assert code == 1 and out["complete"] is False and out["columns"] == {} and out["untested"] == names
    assert out["unread"] == ref
    [finding] = [f for f in out["findings"] if f["kind"] == "analysis_incomplete"]
    assert "read 3 of 6 row groups" in finding["message"] and finding["location"] == {"file": ref}
    monkeypatch.undo()
    code, out = run_check("drift", ref, cur, "--budget", "1e-9")   # spent before the first block
    assert code == 1 and out["unread"] == ref and "read 0 of 6 row groups" in out["findings"][0]["message"]


def test_a_csv_read_in_blocks_is_the_same_table_and_stops_between_blocks(tmp_path, monkeypatch):
    from faultlib.readers import tables
    from faultlib.readers.budget import ReadCut

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"x": rng.normal(size=60_000), "n": rng.integers(0, 9, 60_000),
                          "tag": rng.choice(["p", "q"], 60_000)})
    frame.to_csv(tmp_path / "big.csv", index=False)   # ~1.5 MB: two blocks of 1 MiB
    monkeypatch.setattr(tables, "BUDGET_BLOCK", 1 << 20)
    whole = tables.read_table(tmp_path / "big.csv")
    pd.testing.assert_frame_equal(tables.read_table(tmp_path / "big.csv", deadline=time.monotonic() + 600), whole)
    try:
        tables.read_table(tmp_path / "big.csv", deadline=time.monotonic() - 1)
        raise AssertionError("a deadline already passed did not stop the reading")
    except ReadCut as cut:
        assert cut.done == 0 and cut.unit == "bytes" and cut.columns == ["x", "n", "tag"]
