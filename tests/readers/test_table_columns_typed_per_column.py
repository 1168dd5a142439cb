"""A text table's column types are decided per column, not per cell in Python: ``check drift`` on 2,000 rows x
3,000 columns spent 30 of its 46 s calling Python's ``re`` and ``float`` once per cell. Counted as Python calls
(deterministic on a loaded machine), not timed; the types stay those the cells are written as."""

from __future__ import annotations

import math
import sys

import pandas as pd
import pytest

from faultlib.readers.tables import _decide

ROWS = 20_000


def _calls(column: pd.Series) -> tuple[int, pd.Series]:
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event in ("call", "c_call")

    sys.setprofile(profile)
    try:
        decided = _decide(column)
    finally:
        sys.setprofile(None)
    return count, decided


@pytest.mark.parametrize("cells, dtype", [
    ([f"{i * 0.5:.3f}" for i in range(ROWS)], "float64"),
    ([str(i) for i in range(ROWS)], "Int64"),
    ([f"id{i}" for i in range(ROWS)], "string"),
    ([f"{i:05d}" for i in range(ROWS)], "string"),  # zero-padded ids stay text
])
def test_a_column_costs_python_calls_independent_of_its_rows(cells, dtype):
    calls, decided = _calls(pd.Series(cells, dtype=str))
    assert str(decided.dtype) == dtype
    assert calls < ROWS // 4, f"{calls} Python calls for {ROWS} cells: work done once per cell"


def test_every_float_spelling_reads_as_python_reads_it():
    cells = ["1", "+1", "-2.5", "1.", ".5", "+.5", "1e5", "1E+5", "-1.5e-3", "nan", "NaN", "inf", "-Inf", "infinity",
             "+Infinity", "1e999", "-1e999", "1e-400", "0.1", "1" * 30, None]
    decided = _decide(pd.Series(cells, dtype=str))
    assert decided.dtype == "float64"
    for text, value in zip(cells, decided):
        want = float("nan") if text is None else float(text)
        assert (math.isnan(want) and math.isnan(value)) or value == want, f"{text!r} read as {value!r}"
    assert _decide(pd.Series(["1.5", "1.5x"], dtype=str)).dtype == "string"
    assert _decide(pd.Series(["7", None, "-3"], dtype=str)).tolist() == [7, pd.NA, -3]
