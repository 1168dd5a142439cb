"""The static leakage analysis on the kinds a held-out wave of churn, next-purchase and match-outcome code showed
(issue 17, wave 93), in both directions:

* of two strongly correlated features, the one less correlated with the label is dropped: each feature's
  ``Series.corr`` with the label column over every row decides which name the drop list receives, in the ``if``
  branch or in its ``else``; the pruned table is then split and scored (``fit_before_split``, relevance.py and
  keptnames.py); SciPy's ``pearsonr``/``spearmanr`` and NumPy's ``corrcoef`` of a feature column with the label
  are the same score. Pruning by the features' correlations with each other alone, deciding on the training part
  after the split, or ``pearsonr`` of the test labels with the predictions (a metric), is silent.

Every example is written for this test."""

from __future__ import annotations

from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_wave92 import alarms, line_of


# ---------------------------------------------------------------- pruning a correlated pair by the label

#: the pruning loop over the pairwise correlations of the features of ``{t}``, deciding by the label of ``{t}``
LOOP = """\
    pairwise = {t}.drop(columns=[target]).corr().abs()
    drop_these = []
    for first in pairwise.columns:
        for second in pairwise.index:
            if first < second and pairwise.loc[second, first] > 0.8:
                r_first = abs({t}[first].corr({t}[target]))
                r_second = abs({t}[second].corr({t}[target]))
                if r_first >= r_second:
                    drop_these.append(second)
                else:
                    drop_these.append(first)
"""

HEAD = """\
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import LogisticRegression

    shoppers = pd.read_csv("shopper_features.csv")
    target = "bought_again"
"""

PRUNE = HEAD + LOOP.format(t="shoppers") + """\
    kept = shoppers.drop(columns=list(set(drop_these)))
    X = kept.drop(columns=[target])
    y = kept[target]
    X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.2, random_state=3)
    clf = LogisticRegression().fit(X_a, y_a)
    print(clf.score(X_b, y_b))
"""


def test_pruning_a_pair_by_its_label_correlation_before_the_split_is_reported(tmp_path):
    path = write(tmp_path, "prune.py", PRUNE)
    found = alarms(path)
    assert any(kind == "fit_before_split" and line in (line_of(path, "r_first = abs"), line_of(path, "r_second = abs"))
               for kind, line in found), found


def test_a_label_correlation_deciding_only_the_else_branch_is_reported(tmp_path):
    body = PRUNE.replace("""\
                if r_first >= r_second:
                    drop_these.append(second)
                else:
                    drop_these.append(first)
""", """\
                if r_first >= r_second:
                    pass
                else:
                    drop_these.append(first)
""")
    path = write(tmp_path, "prune_else.py", body)
    assert any(kind == "fit_before_split" for kind, _ in alarms(path)), alarms(path)


def test_pruning_by_the_features_own_correlations_is_silent(tmp_path):
    body = PRUNE.replace("abs(shoppers[first].corr(shoppers[target]))", "shoppers[first].std()").replace(
        "abs(shoppers[second].corr(shoppers[target]))", "shoppers[second].std()")
    path = write(tmp_path, "prune_std.py", body)
    assert alarms(path) == []


def test_pruning_decided_on_the_training_part_is_silent(tmp_path):
    path = write(tmp_path, "prune_after.py", HEAD + """\
    part_a, part_b = train_test_split(shoppers, test_size=0.2, random_state=3)
""" + LOOP.format(t="part_a") + """\
    X_a = part_a.drop(columns=drop_these + [target])
    X_b = part_b.drop(columns=drop_these + [target])
    clf = LogisticRegression().fit(X_a, part_a[target])
    print(clf.score(X_b, part_b[target]))
""")
    assert alarms(path) == []


def test_two_feature_columns_correlated_with_each_other_are_no_label_score(tmp_path):
    path = write(tmp_path, "two_features.py", """\
        import pandas as pd
        from sklearn.model_selection import train_test_split
        from sklearn.linear_model import LogisticRegression

        shoppers = pd.read_csv("shopper_features.csv")
        target = "bought_again"
        drop_these = []
        if abs(shoppers["visits"].corr(shoppers["orders"])) > 0.9:
            drop_these.append("orders")
        X = shoppers.drop(columns=drop_these + [target])
        X_a, X_b, y_a, y_b = train_test_split(X, shoppers[target], test_size=0.2, random_state=3)
        print(LogisticRegression().fit(X_a, y_a).score(X_b, y_b))
        """)
    assert alarms(path) == []


# ---------------------------------------------------------------- the same score written with SciPy or NumPy

SCORED = HEAD + """\
    import numpy as np
    from scipy import stats
    from scipy.stats import pearsonr

    weak = []
    for name in ["visits", "basket_size", "days_since_last"]:
        strength = {score}
        if strength < 0.05:
            weak.append(name)
    X = shoppers.drop(columns=weak + [target])
    X_a, X_b, y_a, y_b = train_test_split(X, shoppers[target], test_size=0.2, random_state=3)
    clf = LogisticRegression().fit(X_a, y_a)
    print(clf.score(X_b, y_b))
"""


def test_scipy_and_numpy_correlations_with_the_label_choosing_columns_before_the_split_are_reported(tmp_path):
    for i, score in enumerate(["abs(pearsonr(shoppers[name], shoppers[target])[0])",
                               "abs(stats.spearmanr(shoppers[target], shoppers[name])[0])",
                               "abs(np.corrcoef(shoppers[name], shoppers[target])[0, 1])"]):
        path = write(tmp_path, f"scored{i}.py", SCORED.format(score=score))
        assert ("fit_before_split", line_of(path, "strength = ")) in alarms(path), f"{score}: {alarms(path)}"


def test_a_correlation_between_two_features_is_silent(tmp_path):
    path = write(tmp_path, "two.py", SCORED.format(score="abs(pearsonr(shoppers[name], shoppers['visits'])[0])"))
    assert alarms(path) == []


def test_pearsonr_of_the_test_labels_with_predictions_is_a_metric_and_silent(tmp_path):
    path = write(tmp_path, "metric.py", HEAD + """\
    from scipy.stats import pearsonr

    X = shoppers.drop(columns=[target])
    X_a, X_b, y_a, y_b = train_test_split(X, shoppers[target], test_size=0.2, random_state=3)
    clf = LogisticRegression().fit(X_a, y_a)
    predicted = clf.predict_proba(X_b)[:, 1]
    r, p = pearsonr(y_b, predicted)
    print(r, p, pearsonr(y_b, clf.predict(X_b))[0])
""")
    assert alarms(path) == []
