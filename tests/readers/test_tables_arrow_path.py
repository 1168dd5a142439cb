"""A quote-free CSV/TSV is read by Arrow (cells in buffers, not one Python string each: 2,000 x 10,000 took 1.7 GB
through pandas); the frame must be the one pandas' path builds, cell for cell and type for type, and whatever
Arrow refuses or might read differently goes to pandas, which names the line."""

from __future__ import annotations

import pandas as pd
import pytest

from faultlib.errors import InputError
from faultlib.readers import tables
from faultlib.readers.tables import read_table

SAME = {
    "numbers": "a,b,c\n1,2.5,x\n3,,y\n-4,1e3,\n",
    "nan_inf": "v,w\nnan,inf\n-inf,NaN\n1.5,2\n",
    "padded_ids": "id,n\n007,1\n008,2\n",
    "crlf_blank_lines": "a,b\r\n1,2\r\n\r\n3,4\r\n",
    "cr_only": "a,b\r1,2\r3,4\r",
    "blank_lines_first": "\n\na,b\n1,2\n3,4\n",
    "no_final_newline": "a,b\n1,2\n3,4",
    "bom": "\ufeffa,b\n1,2\n3,4\n",
    "big_int": "a,b\n99999999999999999999,1\n1,2\n",
    "spaces": "a,b\n 1,x y\n2 ,z\n",
    "all_empty_column": "a,b\n1,\n2,\n",
    "bools_text": "a,b\nTrue,1\nFalse,0\n",
}
FALLBACK = {
    "short_row": "a,b,c\n1,2\n3,4,5\n",
    "quoted": 'a,b\n"1,5",2\n"x ""y""",3\n',
}


def _both(tmp_path, monkeypatch, name: str, text: str, suffix: str = ".csv"):
    path = tmp_path / f"{name}{suffix}"
    path.write_bytes(text.encode())
    fast = read_table(path)
    calls = []
    monkeypatch.setattr(tables, "_arrow_delimited", lambda *a: calls.append(a) or None)
    slow = read_table(path)
    monkeypatch.undo()
    return fast, slow, calls


@pytest.mark.parametrize("name", sorted(SAME))
def test_arrow_reads_a_quote_free_table_as_pandas_does(tmp_path, monkeypatch, name):
    fast, slow, calls = _both(tmp_path, monkeypatch, name, SAME[name])
    assert calls, "the pandas path was not taken the second time"
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


def test_arrow_reads_a_tsv_as_pandas_does(tmp_path, monkeypatch):
    fast, slow, _ = _both(tmp_path, monkeypatch, "t", "a\tb\n1\tx,y\n2\tz\n", ".tsv")
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_what_arrow_might_read_otherwise_goes_to_pandas(tmp_path, name):
    path = tmp_path / f"{name}.csv"
    path.write_text(FALLBACK[name])
    assert tables._arrow_delimited(path.read_bytes(), tables._header(FALLBACK[name], ","), ",", path) is None
    frame = read_table(path)
    assert len(frame) == 2


def test_a_wide_numeric_table_reaches_float_columns_through_arrow(tmp_path, monkeypatch):
    header = ",".join(f"c{i}" for i in range(300))
    rows = "\n".join(",".join(f"{(r * 7 + c) % 11 / 4:.2f}" for c in range(300)) for r in range(50))
    (tmp_path / "wide.csv").write_text(header + "\n" + rows + "\n")

    def no_pandas(*args, **kwargs):
        raise AssertionError("pandas parsed a quote-free table")

    monkeypatch.setattr(pd, "read_csv", no_pandas)
    frame = read_table(tmp_path / "wide.csv")
    assert frame.shape == (50, 300) and all(str(t) == "float64" for t in frame.dtypes)


def test_a_ragged_row_is_still_named_by_its_line(tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n1,2\n3,4,5\n")
    with pytest.raises(InputError) as raised:
        read_table(tmp_path / "r.csv")
    assert raised.value.line == 3
