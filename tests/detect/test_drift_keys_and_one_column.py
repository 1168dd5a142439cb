"""Two things ``check drift`` said that it should not: a table's integer id (a distinct value in every row) was
tested as a feature, so the next batch of ids read as drift; and one numeric column got a multivariate MMD finding
that repeated its own column finding."""

from __future__ import annotations

import numpy as np
import pandas as pd

from faultlib.detect.data.drift import detect_drift


def _batches(shift: float = 0.0, rows: int = 400):
    rng = np.random.default_rng(11)
    ref = pd.DataFrame({"user_id": pd.array(np.arange(rows), dtype="Int64"), "amount": rng.normal(size=rows)})
    cur = pd.DataFrame({"user_id": pd.array(np.arange(rows, 2 * rows), dtype="Int64"),
                        "amount": rng.normal(shift, 1.0, rows)})
    return ref, cur


def test_an_id_column_is_a_row_key_not_a_feature():
    ref, cur = _batches()
    report = detect_drift(ref, cur)
    assert report.drifted == [] and "user_id" not in report.to_json()["columns"]
    assert report.to_json()["skipped"] == ["user_id"]
    [note] = [f for f in report.findings if f.kind == "key_column_skipped"]
    assert note.severity.value == "info" and "--columns" in note.message


def test_an_id_named_with_columns_is_tested_and_a_feature_that_repeats_a_value_is_kept():
    ref, cur = _batches()
    named = detect_drift(ref, cur, columns=["user_id", "amount"])
    assert "user_id" in named.drifted and named.to_json()["skipped"] == []
    ref["user_id"] = pd.array(np.arange(len(ref)) % 7, dtype="Int64")    # repeats: a code, not a key
    cur["user_id"] = pd.array(np.arange(len(cur)) % 7, dtype="Int64")
    assert "user_id" in detect_drift(ref, cur).to_json()["columns"]


def test_a_count_named_like_nothing_special_stays_a_feature():
    # distinct in every row but no run of consecutive integers: a count, tested (its shift is drift)
    ref, cur = _batches()
    ref["visits"] = pd.array(np.arange(len(ref)) * 3, dtype="Int64")
    cur["visits"] = pd.array(np.arange(len(cur)) * 3 + 900, dtype="Int64")
    report = detect_drift(ref.drop(columns="user_id"), cur.drop(columns="user_id"))
    assert "visits" in report.drifted and report.to_json()["skipped"] == []


def test_a_row_number_in_the_middle_is_a_key_whatever_its_header(tmp_path):
    # decided by the values, not the name: a blank or plain header, not first, a run of consecutive integers
    # (shuffled) in each file; the next batch's numbers would read as drift
    from faultlib.readers.tables import read_table

    rng = np.random.default_rng(8)
    for header in (" ", "n", "row"):
        for name, rows, start in (("ref.csv", 500, 0), ("cur.csv", 200, 500)):
            frame = pd.DataFrame({"amount": rng.normal(size=rows), header: rng.permutation(rows) + start,
                                  "score": rng.normal(size=rows)})
            frame.to_csv(tmp_path / name, index=False)
        report = detect_drift(read_table(tmp_path / "ref.csv"), read_table(tmp_path / "cur.csv"))
        assert report.to_json()["skipped"] == [header] and report.drifted == [], f"{header!r}: {report.drifted}"
        assert [f.kind for f in report.findings] == ["key_column_skipped"]


def test_one_numeric_column_gets_its_own_finding_and_no_repeated_multivariate_one():
    ref, cur = _batches(shift=0.8)
    report = detect_drift(ref, cur, columns=["amount"])
    kinds = [f.kind for f in report.findings]
    assert "column_drift" in kinds and "multivariate_drift" not in kinds and report.multivariate is None
    assert report.correction == "benjamini_hochberg"
    both = detect_drift(ref.assign(other=ref["amount"] * 2), cur.assign(other=cur["amount"] * 2),
                        columns=["amount", "other"])
    assert both.multivariate is not None   # two numeric columns: the joint test runs
    assert detect_drift(ref, cur, columns=["amount"], method="mmd").multivariate is not None   # asked for


def test_the_index_pandas_writes_by_default_is_a_row_key(tmp_path):
    from faultlib.readers.tables import read_table

    rng = np.random.default_rng(5)
    pd.DataFrame({"amount": rng.normal(size=600)}).to_csv(tmp_path / "ref.csv")   # index=True: ",amount" header
    pd.DataFrame({"amount": rng.normal(size=150)}).to_csv(tmp_path / "cur.csv")
    report = detect_drift(read_table(tmp_path / "ref.csv"), read_table(tmp_path / "cur.csv"))
    assert report.to_json()["skipped"] == ["Unnamed: 0"] and report.drifted == [], report.drifted
