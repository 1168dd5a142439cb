"""The static leakage analysis on the kinds a held-out wave of credit-risk and churn code showed (issue 17, wave 88:
scorecards with weight-of-evidence binning, loan default, insurance claims, bank churn), in both directions:

* the base models of a stacking ensemble refitted on every row, whose predictions on a hold-out tail of the same
  rows go through the meta model's scaler, are models trained on the rows they score (``trained_on_test``), not a
  preprocessing fit before a split (modelkinds.py); a scaler fitted on every row before the tail is cut stays a
  fit before the split, and base models fitted on the head alone are silent;
* a result named for the development sample beside the same result for the out-of-time sample (``auc_dev``,
  ``auc_oot``) makes ``dev`` the training rows, as credit scoring uses the word (devparts.py): a summary of them is
  no held-out part; without the out-of-time partner ``dev`` keeps reading as held out;
* ``pd.concat([majority] + [minority] * k)`` lists the minority rows again, oversampling by hand
  (repeatedlists.py): done to the training part before ``GridSearchCV``, copies of one row sit in a training fold
  and its validation fold; the same upsampled rows fitted once and scored on the untouched test part are silent;
* ``[c for c in df.columns if df[c].isnull().mean() > .5]`` dropped before the split is the missing-share filter of
  every row, its statistic kept by the comprehension (columnfilters.py); a filter on the dtype, or the same filter
  of the training part, is silent;
* what an encoder fitted with labels reports by a method the analysis does not know (a project ``WoEEncoder``'s
  information values) carries that fit (encoderreports.py): features kept by it over every row, then a fold loop,
  is ``fit_outside_cv``; kept by a fit on the training part and scored on the test part, silent;
* a comparison table written out one call of a scoring helper a row, on the test labels, whose best row is picked
  (``table.loc[table['auc'].idxmax()]``) chose the model on the test rows (scoretables.py): ``tuned_on_test``; the
  table only printed, or a table of validation scores, is silent.

Every example is written for this test."""

from __future__ import annotations

from tests.detect.test_leakage_wave86 import alarms


#: applications, the last fifth kept as a hold-out; a stack of two forests and a logistic meta model
STACK = """\
    import numpy as np
    import pandas as pd
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    apps = pd.read_csv("applications.csv")
    X, y = apps.drop(columns="default"), apps["default"]
    cut = int(len(apps) * 0.8)
    X_head, y_head = X.iloc[:cut], y.iloc[:cut]
    holdout = apps.iloc[cut:]
    X_test, y_test = holdout.drop(columns="default"), holdout["default"]
    head_meta = np.column_stack([RandomForestClassifier().fit(X_head, y_head).predict_proba(X_head)[:, 1],
                                 ExtraTreesClassifier().fit(X_head, y_head).predict_proba(X_head)[:, 1]])
    gauge = StandardScaler().fit(head_meta)
    blender = LogisticRegression().fit(gauge.transform(head_meta), y_head)
    forest = RandomForestClassifier()
    forest.fit({rows})
    trees = ExtraTreesClassifier()
    trees.fit({rows})
    saved = {{"forest": forest, "trees": trees, "gauge": gauge, "blender": blender}}
    test_in = saved["gauge"].transform(np.column_stack([saved["forest"].predict_proba(X_test)[:, 1],
                                                        saved["trees"].predict_proba(X_test)[:, 1]]))
    print(saved["blender"].score(test_in, y_test))
"""


def test_stacked_base_models_fitted_on_every_row_score_the_tail_they_saw(tmp_path):
    found = alarms(tmp_path, STACK.format(rows="X, y"))
    assert ("trained_on_test", 17) in found and ("trained_on_test", 19) in found
    assert not any(kind == "fit_before_split" for kind, _ in found)


def test_stacked_base_models_fitted_on_the_head_are_silent(tmp_path):
    assert alarms(tmp_path, STACK.format(rows="X_head, y_head")) == []


def test_a_scaler_fitted_on_every_row_before_the_tail_is_cut_stays_a_fit_before_the_split(tmp_path):
    found = alarms(tmp_path, """\
        import pandas as pd
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler
        apps = pd.read_csv("applications.csv")
        X, y = apps.drop(columns="default"), apps["default"]
        X = StandardScaler().fit_transform(X)
        cut = int(len(apps) * 0.8)
        model = LogisticRegression().fit(X[:cut], y[:cut])
        print(model.score(X[cut:], y[cut:]))
    """)
    assert [kind for kind, _ in found] == ["fit_before_split"]


#: a development sample (booked up to 2016) and the later applications; the income capped at the development
#: sample's 99th percentile
DEV_SAMPLE = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    book = pd.read_csv("book.csv")
    dev = book[book["vintage"] <= 2016].copy()
    later = book[book["vintage"] > 2016].copy()
    cap = dev["income"].quantile(0.99)
    dev["income"] = dev["income"].clip(upper=cap)
    later["income"] = later["income"].clip(upper=cap)
    cols = ["income", "tenure"]
    card = LogisticRegression().fit(dev[cols], dev["bad"])
    income_dev = dev["income"].describe()
    gini_dev = 2 * roc_auc_score(dev["bad"], card.predict_proba(dev[cols])[:, 1]) - 1
    gini_{other} = 2 * roc_auc_score(later["bad"], card.predict_proba(later[cols])[:, 1]) - 1
    print(income_dev, gini_dev, gini_{other})
"""


def test_dev_beside_out_of_time_names_the_development_sample(tmp_path):
    assert alarms(tmp_path, DEV_SAMPLE.format(other="oot")) == []


def test_dev_without_an_out_of_time_partner_still_reads_as_held_out(tmp_path):
    assert alarms(tmp_path, DEV_SAMPLE.format(other="later"))


#: churners upsampled by a helper that lists them three times
UPSAMPLE = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import GridSearchCV, train_test_split

    def upsample(features, target, repeat):
        stayed, left = features[target == 0], features[target == 1]
        stayed_y, left_y = target[target == 0], target[target == 1]
        features_up = pd.concat([stayed] + [left] * repeat)
        target_up = pd.concat([stayed_y] + [left_y] * repeat)
        return features_up, target_up

    clients = pd.read_csv("clients.csv")
    X, y = clients.drop(columns="churned"), clients["churned"]
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=3)
    X_up, y_up = upsample(X_tr, y_tr, 3)
"""


def test_minority_rows_listed_k_times_then_a_grid_search_cross_validates_them(tmp_path):
    found = alarms(tmp_path, UPSAMPLE + """\
    grid = GridSearchCV(RandomForestClassifier(), {"max_depth": [4, 8]}, cv=3, scoring="f1").fit(X_up, y_up)
    print(grid.best_score_)
    """)
    assert found == [("fit_outside_cv", 8)]


def test_upsampled_training_rows_fitted_once_and_scored_on_the_test_part_are_silent(tmp_path):
    assert alarms(tmp_path, UPSAMPLE + """\
    print(RandomForestClassifier().fit(X_up, y_up).score(X_te, y_te))
    """) == []


def missing_filter(test: str, rows: str = "apps") -> str:
    """Columns of ``rows`` dropped from every row when ``test`` holds for them, then a split and a score."""
    return f"""\
        import pandas as pd
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import train_test_split
        apps = pd.read_csv("apps.csv")
        part = apps.sample(frac=0.8, random_state=0)
        gone = [c for c in {rows}.columns if {test}]
        apps.drop(columns=gone, inplace=True)
        X_tr, X_te, y_tr, y_te = train_test_split(apps.drop(columns="bad"), apps["bad"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
    """


def test_a_missing_share_filter_written_as_a_comprehension_is_a_fit_before_the_split(tmp_path):
    assert alarms(tmp_path, missing_filter("apps[c].isnull().mean() > 0.5 and c != 'bad'")) == [
        ("fit_before_split", 6)]


def test_a_comprehension_over_the_dtypes_computes_nothing(tmp_path):
    assert alarms(tmp_path, missing_filter("apps[c].dtype == object")) == []


#: features kept by the information values of a weight-of-evidence encoder the project writes itself
WOE = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, train_test_split
    from scoring.woe import WoEEncoder
    book = pd.read_csv("book.csv")
    X, y = book.drop(columns="bad"), book["bad"]
"""


def test_features_an_encoder_report_kept_over_every_row_before_a_fold_loop(tmp_path):
    found = alarms(tmp_path, WOE + """\
    encoder = WoEEncoder(bins=8).fit(X, y)
    values = encoder.information_values()
    X = X[values[values >= 0.02].index.tolist()]
    aucs = []
    for tr, va in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        card = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])
        aucs.append(roc_auc_score(y.iloc[va], card.predict_proba(X.iloc[va])[:, 1]))
    print(np.mean(aucs))
    """)
    assert found == [("fit_outside_cv", 9)]


def test_features_an_encoder_report_kept_on_the_training_part_are_silent(tmp_path):
    assert alarms(tmp_path, WOE + """\
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    encoder = WoEEncoder(bins=8).fit(X_tr, y_tr)
    values = encoder.information_values()
    keep = values[values >= 0.02].index.tolist()
    card = LogisticRegression().fit(X_tr[keep], y_tr)
    print(roc_auc_score(y_te, card.predict_proba(X_te[keep])[:, 1]))
    """) == []


#: two candidates scored by one helper, the comparison table written out one call a row
SCORE_TABLE = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import train_test_split
    claims = pd.read_csv("claims.csv")
    X, y = claims.drop(columns="filed"), claims["filed"]
    X_fit, X_{part}, y_fit, y_{part} = train_test_split(X, y, test_size=0.25, random_state=5)

    def scores(truth, prob, label):
        return {{"model": label, "auc": roc_auc_score(truth, prob)}}

    glm = LogisticRegression().fit(X_fit, y_fit)
    gbm = GradientBoostingClassifier().fit(X_fit, y_fit)
    table = pd.DataFrame([scores(y_{part}, glm.predict_proba(X_{part})[:, 1], "glm"),
                          scores(y_{part}, gbm.predict_proba(X_{part})[:, 1], "gbm")])
    print(table)
"""


def test_the_best_row_of_a_written_out_table_of_test_scores_is_picked(tmp_path):
    found = alarms(tmp_path, SCORE_TABLE.format(part="test") + """\
    winner = table.loc[table["auc"].idxmax()]
    print("deploy", winner["model"], winner["auc"])
    """)
    assert found == [("tuned_on_test", 18)]


def test_a_table_of_test_scores_only_printed_is_silent(tmp_path):
    assert alarms(tmp_path, SCORE_TABLE.format(part="test")) == []


def test_the_best_row_of_a_table_of_validation_scores_is_silent(tmp_path):
    assert alarms(tmp_path, SCORE_TABLE.format(part="valid") + """\
    winner = table.loc[table["auc"].idxmax()]
    print("deploy", winner["model"], winner["auc"])
    """) == []
