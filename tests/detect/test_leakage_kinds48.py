"""The static leakage analysis on kinds of mistake of the held-out wave 69 (issue 17, stop 48): a most-frequent level
per group counted with ``pd.crosstab`` over train and test stacked, a median fill that lives on in a column built
from it before the source is dropped, an ``OrdinalEncoder`` fitted on train and test stacked (a code table, a note
like the ``LabelEncoder`` of the same shape), a pickle moved into a folder by hand, and a training-part mask held
in a name. Each in both directions. Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_kinds import alarms

#: a competition's two files: the test file's rows are predicted for the submission
FILES = """\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
"""

LEAKS = {
    # each row's plan replaced by the most frequent plan of its region, counted over train and test together
    "most_frequent_level_per_group_by_crosstab_over_the_stack": (FILES + """\
        both = pd.concat([train, test])
        share = pd.crosstab(both.region, both.plan).apply(lambda r: r / r.sum(), axis=1)
        both["plan"] = both.apply(lambda r: np.argmax(share.loc[r["region"]]), axis=1)
        train, test = both[:len(train)], both[len(train):]
        a, b = train_test_split(train)
        model = LogisticRegression().fit(a[["plan", "age"]], a.churn)
        print(model.score(b[["plan", "age"]], b.churn))
        """, [("fit_on_test", 4)]),
    # the same table with the keys given as lists of Series (a key pair)
    "crosstab_with_a_list_of_keys_over_the_stack": (FILES + """\
        both = pd.concat([train, test])
        counts = pd.crosstab([both.region, both.gender], both.plan)
        both["plan"] = both.apply(lambda r: np.argmax(counts.loc[(r["region"], r["gender"])]), axis=1)
        train = both[:len(train)]
        print(cross_val_score(LogisticRegression(), train[["plan", "age"]], train.churn, cv=5).mean())
        """, [("fit_on_test", 4)]),
    # years filled with their median over the stack, folded into a total, then the source columns dropped
    "median_fill_living_on_in_a_derived_column_after_the_drop": (FILES + """\
        y_train = train.pop("label")
        both = pd.concat([train, test])
        both["years"] = both["years"].fillna(both["years"].median())
        both["months_total"] = both["years"] * 12 + both["months"]
        both = both.drop(columns=["years", "months"])
        print(cross_val_score(Ridge(), both[:len(train)], y_train, cv=5).mean())
        """, [("fit_on_test", 5)]),
    # an ordinal encoder fitted on every row before the split: the category-set policy is unchanged
    "ordinal_encoder_on_every_row_before_the_split": ("""\
        from sklearn.preprocessing import OrdinalEncoder
        table[["city"]] = OrdinalEncoder().fit_transform(table[["city"]])
        a, b, c, d = train_test_split(table.drop(columns=["label"]), table["label"])
        LogisticRegression().fit(a, c).score(b, d)
        """, [("fit_before_split", 2)]),
    # the training part of the stack picked by a mask held in a name, scaled, then cross-validated: the folds' rows
    # shaped the scaler (outside the CV), no test-file row did
    "named_flag_mask_picks_the_training_part_then_cross_validated": (FILES + """\
        y_train = train.pop("label")
        train["is_train"] = 1
        test["is_train"] = 0
        both = pd.concat([train, test])
        is_tr = both["is_train"] == 1
        scaler = StandardScaler().fit(both.loc[is_tr, ["age", "income"]])
        both[["age", "income"]] = scaler.transform(both[["age", "income"]])
        print(cross_val_score(Ridge(), both[both["is_train"] == 1], y_train, cv=5).mean())
        """, [("fit_outside_cv", 8)]),
}

HEALTHY = {
    # the same crosstab counted on the training rows only, then read for both files
    "crosstab_of_the_training_rows_only": (FILES + """\
        share = pd.crosstab(train.region, train.plan)
        train["plan"] = train.apply(lambda r: np.argmax(share.loc[r["region"]]), axis=1)
        test["plan"] = test.apply(lambda r: np.argmax(share.loc[r["region"]]), axis=1)
        model = LogisticRegression().fit(train[["plan", "age"]], train.churn)
        pd.DataFrame({"p": model.predict(test[["plan", "age"]])}).to_csv("submission.csv")
        """),
    # the filled column and the one built from it are both dropped: the median reaches no model
    "median_fill_dropped_with_the_column_built_from_it": (FILES + """\
        y_train = train.pop("label")
        both = pd.concat([train, test])
        both["years"] = both["years"].fillna(both["years"].median())
        both["months_total"] = both["years"] * 12 + both["months"]
        both = both.drop(columns=["years", "months", "months_total"])
        print(cross_val_score(Ridge(), both[:len(train)], y_train, cv=5).mean())
        """),
    # the same named mask, the scaler fitted on the training part only, one model scored on the test file
    "named_flag_mask_picks_the_training_part_for_the_scaler": (FILES + """\
        y_train = train.pop("label")
        train["is_train"] = 1
        test["is_train"] = 0
        both = pd.concat([train, test])
        is_tr = both["is_train"] == 1
        scaler = StandardScaler().fit(both.loc[is_tr, ["age", "income"]])
        both[["age", "income"]] = scaler.transform(both[["age", "income"]])
        model = Ridge().fit(both[both["is_train"] == 1], y_train)
        pd.DataFrame({"p": model.predict(both[both["is_train"] == 0])}).to_csv("submission.csv")
        """),
    # one code table for the levels of both files: the category names only (a note, as for LabelEncoder)
    "ordinal_encoder_fitted_on_train_and_test_stacked": (FILES + """\
        from sklearn.preprocessing import OrdinalEncoder
        cats = ["city", "plan"]
        y_train = train.pop("label")
        codes = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
        codes.fit(pd.concat([train[cats], test[cats]]))
        train[cats] = codes.transform(train[cats])
        test[cats] = codes.transform(test[cats])
        model = LogisticRegression().fit(train, y_train)
        pd.DataFrame({"p": model.predict(test)}).to_csv("submission.csv")
        """),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_wave69_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert sorted(alarms(tmp_path, body)) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_a_stacked_ordinal_encoder_is_still_reported_as_a_note(tmp_path):
    """The code table is an ``info`` finding, not dropped: the advice to fit on the training rows stays."""
    from tests.detect.test_leakage_kinds import HEADER

    path = tmp_path / "job.py"
    path.write_text(HEADER + textwrap.dedent(HEALTHY["ordinal_encoder_fitted_on_train_and_test_stacked"]))
    report, _ = analyze_file(str(path))
    notes = [f for f in report.findings if f.severity == Severity.INFO and f.kind == "fit_on_test"]
    assert [f.evidence["estimator"] for f in notes] == ["OrdinalEncoder"]
    assert "category names" in notes[0].message


#: a cleaning script that fills every row with the column means and pickles the table without a folder
IMPUTE = """\
    import pandas as pd
    visits = pd.read_csv("visits.csv")
    filled = visits.fillna(visits.mean(numeric_only=True))
    filled.to_pickle("visits_filled.pkl")
"""
#: the modelling script reads it from the project's folder of processed tables (moved there by hand) and splits it
MODEL = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    table = pd.read_pickle("{folder}/visits_filled.pkl")
    a, b = train_test_split(table, test_size=0.4)
    model = LogisticRegression().fit(a.drop(columns=["label"]), a["label"])
    print(model.score(b.drop(columns=["label"]), b["label"]))
"""


def _project(tmp_path, folder: str, suffix: str = "pkl"):
    (tmp_path / "README.md").write_text("a project\n")
    (tmp_path / "clean.py").write_text(textwrap.dedent(IMPUTE).replace(".pkl", f".{suffix}").replace(
        "to_pickle", "to_pickle" if suffix == "pkl" else "to_csv"))
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL).format(folder=folder).replace(".pkl", f".{suffix}").replace(
        "read_pickle", "read_pickle" if suffix == "pkl" else "read_csv"))
    report, _ = analyze_file(str(tmp_path / "clean.py"))
    return [(f.kind, f.location["line"]) for f in report.findings if f.severity >= Severity.WARNING]


def test_a_pickle_written_bare_and_read_from_a_processed_folder_is_the_same_file(tmp_path):
    assert _project(tmp_path, "Processed_Data") == [("fit_before_split", 3)]


@pytest.mark.parametrize("folder, suffix", [("../input/visits", "pkl"), ("Processed_Data", "csv")])
def test_a_platform_input_or_a_raw_table_in_a_folder_stays_another_file(tmp_path, folder, suffix):
    """``../input/...`` is another kernel's file; a ``.csv`` of that name in a folder may be the raw data."""
    assert _project(tmp_path, folder, suffix) == []
