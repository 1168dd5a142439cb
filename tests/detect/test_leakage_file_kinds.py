"""The static leakage analysis on what a notebook's data files say about its rows (issue 17, leak30old), each in
both directions: a table named for training read from the script's only data file is all the data (its split makes
the test set), and a fit on the whole training file beside a competition test file, then a split of it whose
validation part scores the models, is preprocessing leakage (the policy of stop 30, see ``leakage/validation.py``).
Also the parts of such a split matched by column (``X_train.align(X_test, axis=1)``) keep their rows: stacked back
for a final refit they are the training file again (a search over the stack makes it ``fit_outside_cv``); and a
subset of rows a split already divided, named for testing afterwards, is not held out by its name. Patsy category
levels of the test file alone learn nothing from training rows (like ``get_dummies`` on each part).
Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.sole_file import sole_data_file
from faultlib.findings import Severity

HEADER = """\
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split, cross_val_score, GridSearchCV
"""
H = HEADER.count("\n")


def alarms(tmp_path, body):
    """(kind, line in the snippet) of every finding at warning or above."""
    path = tmp_path / "notebook.py"
    path.write_text(HEADER + textwrap.dedent(body))
    report, _ = analyze_file(str(path))
    assert report.complete, report.stopped
    return [(f.kind, f.location["line"] - H) for f in report.findings if f.severity >= Severity.WARNING]


LEAKS = {
    # the only file is named for training; a word counter learns its vocabulary from every row, then the split
    "vocabulary_of_the_only_file_named_train": ("""\
        reviews_train = pd.read_csv("reviews_train.csv")
        counts = CountVectorizer(max_features=300).fit_transform(reviews_train["body"])
        a, b, ya, yb = train_test_split(counts, reviews_train["stars"])
        LogisticRegression().fit(a, ya).score(b, yb)
        """, ("fit_before_split", 2)),
    # the same with a hand-written statistic of a column
    "mean_of_the_only_file_named_train": ("""\
        train = pd.read_csv("data/train_rows.csv")
        train["dose"] = train["dose"].fillna(train["dose"].mean())
        Xa, Xb, ya, yb = train_test_split(train[["dose"]], train["cured"])
        RandomForestClassifier().fit(Xa, ya).score(Xb, yb)
        """, ("fit_before_split", 2)),
    # policy: the whole training file scaled, split, two models compared on the validation part
    "training_file_scaled_then_models_compared_on_validation": ("""\
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        target = train.pop("outcome")
        scaled = StandardScaler().fit_transform(train)
        X_tr, X_va, y_tr, y_va = train_test_split(scaled, target, test_size=0.25)
        results = {}
        for model in [LogisticRegression(), RandomForestClassifier()]:
            model.fit(X_tr, y_tr)
            results[type(model).__name__] = accuracy_score(y_va, model.predict(X_va))
        """, ("fit_before_split", 4)),
    # policy, ranked: the same fit also shaped a cross-validation over the training file: that is the finding
    "training_file_scaled_then_cross_validated_and_validated": ("""\
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        target = train.pop("outcome")
        scaled = StandardScaler().fit_transform(train)
        cross_val_score(LogisticRegression(), scaled, target, cv=5)
        X_tr, X_va, y_tr, y_va = train_test_split(scaled, target)
        LogisticRegression().fit(X_tr, y_tr).score(X_va, y_va)
        """, ("fit_outside_cv", 4)),
    # train.csv beside test.csv, split into train/validation, the parts matched by column (``align``) and stacked
    # back; the scaler refitted on the stack, a search cross-validates it: fit_outside_cv (it was fit_on_test while
    # ``align`` made two new tables, the second one named for testing)
    "refit_on_the_rejoined_training_file_then_searched": ("""\
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        X_train, X_test, y_train, y_test = train_test_split(train.drop(columns=["y"]), train["y"])
        X_train, X_test = X_train.align(X_test, axis=1, fill_value=0)
        everything = pd.concat([X_train, X_test])
        everything = StandardScaler().fit_transform(everything)
        GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=4).fit(everything, pd.concat([y_train, y_test]))
        """, ("fit_outside_cv", 6)),
    # a capping bound of the whole training file, a search over its training part; a subset of the same rows named
    # for testing afterwards is not held out (the split said what is): fit_outside_cv, not fit_before_split
    "cap_then_search_then_a_subset_named_for_testing": ("""\
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        train["dose"] = train["dose"].clip(upper=train["dose"].quantile(0.99))
        X_tr, X_va, y_tr, y_va = train_test_split(train.drop(columns=["y"]), train["y"])
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=3).fit(X_tr, y_tr)
        X_test_positive = train[train["y"] == 1].drop(columns=["y"])
        search.predict(X_test_positive)
        """, ("fit_outside_cv", 3)),
    # no split of the table at all: rows named for testing are held out by their name, as before
    "a_subset_named_for_testing_without_a_split": ("""\
        visits = pd.read_csv("visits.csv")
        visits["dose"] = visits["dose"].fillna(visits["dose"].mean())
        X_fit = visits[visits["year"] < 2020].drop(columns=["y"])
        X_test_late = visits[visits["year"] == 2020].drop(columns=["y"])
        model = LogisticRegression().fit(X_fit, visits.loc[visits["year"] < 2020, "y"])
        model.predict(X_test_late)
        """, ("fit_before_split", 2)),
    # patsy category levels of the training and test files stacked: still a fit on the test rows
    "patsy_levels_of_train_and_test_stacked": ("""\
        from patsy import dmatrices
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        both = pd.concat([train, test])
        y_all, X_all = dmatrices("y ~ C(port) + age", data=both, return_type="dataframe")
        model = LogisticRegression().fit(X_all[:len(train)], y_all[:len(train)])
        model.predict(X_all[len(train):])
        """, ("fit_on_test", 5)),
    # a stateful transform of the test file alone: the test rows' own moments
    "patsy_standardize_of_the_test_file_alone": ("""\
        from patsy import dmatrices
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        y_tr, X_tr = dmatrices("y ~ standardize(age)", data=train, return_type="dataframe")
        model = LogisticRegression().fit(X_tr, y_tr)
        y_te, X_te = dmatrices("y ~ standardize(age)", data=test, return_type="dataframe")
        model.predict(X_te)
        """, ("fit_on_test", 6)),
}

HEALTHY = {
    # patsy category levels of the test file alone (like get_dummies on each part): no training row, no statistic
    "patsy_levels_of_the_test_file_alone": """\
        from patsy import dmatrices
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        y_tr, X_tr = dmatrices("y ~ C(port) + age", data=train, return_type="dataframe")
        model = LogisticRegression().fit(X_tr, y_tr)
        y_te, X_te = dmatrices("y ~ C(port) + age", data=test, return_type="dataframe")
        model.predict(X_te)
        """,
    # the same layout: validated first, then the final model refitted on the parts stacked back, nothing scored
    "final_refit_on_the_rejoined_training_file": """\
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        X_train, X_test, y_train, y_test = train_test_split(train.drop(columns=["y"]), train["y"])
        X_train, X_test = X_train.align(X_test, axis=1, fill_value=0)
        scaler = StandardScaler().fit(X_train)
        LogisticRegression().fit(scaler.transform(X_train), y_train).score(scaler.transform(X_test), y_test)
        everything = StandardScaler().fit_transform(pd.concat([X_train, X_test]))
        final = LogisticRegression().fit(everything, pd.concat([y_train, y_test]))
        """,
    # the only file named for training, but the counter learns from the training part only
    "vocabulary_of_the_training_part": """\
        reviews_train = pd.read_csv("reviews_train.csv")
        a, b, ya, yb = train_test_split(reviews_train["body"], reviews_train["stars"])
        vec = CountVectorizer(max_features=300).fit(a)
        LogisticRegression().fit(vec.transform(a), ya).score(vec.transform(b), yb)
        """,
    # a second file of another kind (an archive) may hold the test rows: the name stays in charge, as before
    "a_second_file_beside_the_training_file": """\
        train = pd.read_csv("train_rows.csv")
        holdout_images = "holdout_images.zip"
        counts = CountVectorizer().fit_transform(train["body"])
        a, b, ya, yb = train_test_split(counts, train["stars"])
        LogisticRegression().fit(a, ya).score(b, yb)
        """,
    # policy: the training file split first, the scaler fitted on its training part only
    "training_file_split_then_scaled_on_its_training_part": """\
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        target = train.pop("outcome")
        X_tr, X_va, y_tr, y_va = train_test_split(train, target)
        scaler = StandardScaler().fit(X_tr)
        model = LogisticRegression().fit(scaler.transform(X_tr), y_tr)
        accuracy_score(y_va, model.predict(scaler.transform(X_va)))
        """,
    # policy: the validation part is set aside but no model is scored on it (only the test file is predicted)
    "training_file_scaled_validation_never_scored": """\
        train = pd.read_csv("input/train.csv")
        test = pd.read_csv("input/test.csv")
        target = train.pop("outcome")
        scaler = StandardScaler().fit(train)
        X_tr, X_va, y_tr, y_va = train_test_split(scaler.transform(train), target)
        model = LogisticRegression().fit(X_tr, y_tr)
        pd.DataFrame({"outcome": model.predict(scaler.transform(test))}).to_csv("submission.csv")
        """,
    # the look-alike: a training *part* (of a split whose test part is held out) scaled, then split again
    "training_part_of_a_split_scaled_then_split_for_validation": """\
        rows = pd.read_csv("records.csv")
        X_train, X_test, y_train, y_test = train_test_split(rows.drop(columns=["y"]), rows["y"])
        Z = StandardScaler().fit_transform(X_train)
        X_fit, X_val, y_fit, y_val = train_test_split(Z, y_train)
        LogisticRegression().fit(X_fit, y_fit).score(X_val, y_val)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    found = alarms(tmp_path, body)
    assert expected in found, found


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_the_only_data_file_is_named_once():
    import ast

    def sole(src: str) -> str | None:
        return sole_data_file(ast.parse(textwrap.dedent(src)))

    assert sole("t = pd.read_csv('../in/train.csv')\nu = 'x'") == "../in/train.csv"
    assert sole("t = pd.read_csv('train.csv')\nt.to_csv('train.csv')") == "train.csv"  # the same file twice
    assert sole("t = pd.read_csv('train.csv')\nm = 'model.pkl'") is None  # a second file of any kind
    assert sole("t = pd.read_csv('test.csv')") is None  # named for held-out rows: the name rules apply
    assert sole("print('no file here')") is None
