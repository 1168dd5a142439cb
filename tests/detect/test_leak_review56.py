"""Review of this session's leakage rules (int56): realistic look-alikes and variant spellings."""

from __future__ import annotations

import pytest

from tests.detect.leakage_source import dedented_alarms as _alarms


#: a project transformer whose transform returns the scaled rows, written in the return, beside the labels
_CLEANER = """
        import pandas as pd
        from sklearn.preprocessing import StandardScaler
        from sklearn.model_selection import train_test_split
        from sklearn.linear_model import LogisticRegression

        class Cleaner:
            def fit(self, features, target=None):
                self.sc = StandardScaler().fit(features)
                return self
            def transform(self, features, target=None):
                return self.sc.transform(features), target
            def fit_transform(self, features, target=None):
                return self.fit(features, target).transform(features, target)

        df = pd.read_csv("data.csv")
        X, y = df.drop(columns=["label"]), df["label"]
"""

#: two models fitted on the training part of a split
_TWO_MODELS = """
        import pandas as pd
        from sklearn.model_selection import train_test_split
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.svm import SVC

        df = pd.read_csv("data.csv")
        X, y = df.drop(columns=["label"]), df["label"]
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
        rf = RandomForestClassifier().fit(X_train, y_train)
        sv = SVC().fit(X_train, y_train)
"""


def test_a_table_turned_round_and_back_keeps_the_fit_of_its_columns(tmp_path):
    # the scaler learns one statistic per gene over every sample; the table is turned round to be written genes by
    # samples and turned back for the model: the second .T undoes the first, the fit is per gene again
    alarms = _alarms(tmp_path, """
        import pandas as pd
        from sklearn.preprocessing import MinMaxScaler
        from sklearn.model_selection import cross_val_score
        from sklearn.svm import SVC

        samples = pd.read_csv("samples_by_genes.csv")
        labels = samples.pop("subtype")
        scaled = MinMaxScaler().fit_transform(samples)
        saved = pd.DataFrame(scaled).T
        print(cross_val_score(SVC(), saved.T, labels, cv=5).mean())
    """)
    assert ("fit_outside_cv", 9) in alarms


def test_a_table_turned_back_with_transpose_keeps_the_fit(tmp_path):
    alarms = _alarms(tmp_path, """
        import numpy as np
        from sklearn.preprocessing import StandardScaler
        from sklearn.model_selection import cross_val_score
        from sklearn.linear_model import LogisticRegression

        X = np.load("samples_by_genes.npy")
        y = np.load("labels.npy")
        z = StandardScaler().fit_transform(X)
        turned = z.T
        print(cross_val_score(LogisticRegression(), turned.transpose(), y, cv=5).mean())
    """)
    assert ("fit_outside_cv", 9) in alarms


def test_a_scaler_on_the_turned_matrix_turned_once_stays_per_sample(tmp_path):
    # genes by samples on disk: turned once for the scaler (per sample) and once back: no statistic crosses samples
    alarms = _alarms(tmp_path, """
        import pandas as pd
        from sklearn.preprocessing import StandardScaler
        from sklearn.model_selection import cross_val_score
        from sklearn.svm import SVC

        samples = pd.read_csv("samples_by_genes.csv")
        labels = samples.pop("subtype")
        per_sample = pd.DataFrame(StandardScaler().fit_transform(samples.T)).T
        print(cross_val_score(SVC(), per_sample, labels, cv=5).mean())
    """)
    assert not alarms


def test_a_transform_returning_its_scaled_rows_inline_with_the_labels_is_a_fit_before_the_split(tmp_path):
    # the rows item is the fitted scaler's output written in the return itself, not the parameter rebound
    alarms = _alarms(tmp_path, _CLEANER + """
        Xs, ys = Cleaner().fit_transform(X, y)
        X_train, X_test, y_train, y_test = train_test_split(Xs, ys, test_size=0.2)
        print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
    """)
    assert ("fit_before_split", 19) in alarms


def test_a_transform_returning_a_new_name_for_its_rows_is_a_fit_before_the_split(tmp_path):
    alarms = _alarms(tmp_path, """
        import pandas as pd
        from sklearn.base import BaseEstimator, TransformerMixin
        from sklearn.impute import SimpleImputer
        from sklearn.model_selection import cross_val_score
        from sklearn.ensemble import RandomForestClassifier

        class Prep(BaseEstimator, TransformerMixin):
            def fit(self, X, y=None):
                self.imp = SimpleImputer().fit(X)
                return self
            def transform(self, X, y=None):
                filled = self.imp.transform(X)
                return filled, y

        df = pd.read_csv("data.csv")
        feats, labels = Prep().fit_transform(df.drop(columns=["label"]), df["label"])
        print(cross_val_score(RandomForestClassifier(), feats, labels, cv=5).mean())
    """)
    assert ("fit_outside_cv", 17) in alarms


def test_the_same_transformer_fitted_on_the_training_part_is_no_leak(tmp_path):
    alarms = _alarms(tmp_path, _CLEANER + """
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
        cleaner = Cleaner()
        Xt, yt = cleaner.fit_transform(X_train, y_train)
        Xv, yv = cleaner.transform(X_test, y_test)
        print(LogisticRegression().fit(Xt, yt).score(Xv, yv))
    """)
    assert not alarms


@pytest.mark.parametrize("measure, chooser, expected", [
    # the test rows only feed a latency measure: no labels read, the fastest model is no test-score pick
    ("time_predict", "min", set()),
    # a helper named for evaluating scores each model on the test rows, and the best is kept
    ("evaluate_model", "max", {("tuned_on_test", 16)}),
])
def test_a_report_spelled_per_model_is_of_test_scores_only_when_a_call_scores(tmp_path, measure, chooser, expected):
    alarms = _alarms(tmp_path, _TWO_MODELS + f"""
        report = {{}}
        report["forest"] = {measure}(rf, X_test)
        report["svm"] = {measure}(sv, X_test)
        picked = {chooser}(report, key=report.get)
        print(picked)
    """)
    assert alarms == expected


@pytest.mark.parametrize("table, split, expected", [
    # the positive rows drawn again with replacement (stdlib random.choices) and stacked before the split
    ("df", "", {("fit_before_split", 10)}),
    # the same draw from the training part after the split: the copies stay on the training side
    ("train", "train, test = train_test_split(df, test_size=0.2)", set()),
])
def test_minority_rows_drawn_with_random_choices(tmp_path, table, split, expected):
    alarms = _alarms(tmp_path, f"""
        import random
        import pandas as pd
        from sklearn.model_selection import train_test_split
        from sklearn.linear_model import LogisticRegression

        df = pd.read_csv("data.csv")
        {split}
        pos = list({table}[{table}["label"] == 1].index)
        {table} = pd.concat([{table}, {table}.loc[random.choices(pos, k=3 * len(pos))]])
        {"train, test = train_test_split(df, test_size=0.2)" if not split else ""}
        model = LogisticRegression().fit(train.drop(columns=["label"]), train["label"])
        print(model.score(test.drop(columns=["label"]), test["label"]))
    """)
    assert alarms == expected
