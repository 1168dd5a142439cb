"""The static leakage analysis on the kinds a held-out wave of tabular course projects showed (issue 17, wave 83:
churn, attrition, loan and booking models), in both directions:

* a loop that keeps its best candidate by comparing one value (a search's ``best_score_``) chooses by that value
  only: a test score or a cross-validation over all rows computed in the same loop and only shown chooses nothing
  (comparedby.py); kept by the test score or by the all-rows cross-validation, it is still found;
* one class's rows cut from a stack of the training and validation parts (hand-written down/up-sampling) keep the
  validation rows of that class, so a model trained on them and scored on the validation part saw rows it scores
  (classfilters.py); the same cut of the training part alone, or a class cut before any split, is silent;
* ``s.nlargest(2).iloc[-1]`` (the second-largest value, which replaces an outlier) is an order statistic of the rows
  it runs over: before the split it is a fit before the split; the DataFrame form (rows) is not a statistic.

Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a small tabular job: a split, three candidates and a running best
CANDIDATES = """\
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.metrics import classification_report
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=3)
        candidates = [("lr", LogisticRegression(), {"C": [0.1, 1.0]}),
                      ("knn", KNeighborsClassifier(), {"n_neighbors": [3, 5]})]
        top_score, top_model = 0, None
"""

def searched(rows: str) -> str:
    """A loop body's grid search fitted on ``rows``, its best kept by the search's cross-validated score."""
    return f"""\
            search = GridSearchCV(model, grid, cv=5)
            search.fit({rows})
            if search.best_score_ > top_score:
                top_score, top_model = search.best_score_, search.best_estimator_
"""


#: the training part and a validation part, stacked again before a class is cut
STACKED = """\
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.metrics import f1_score
        from sklearn.utils import shuffle
        X_tr, X_rest, y_tr, y_rest = train_test_split(X, y, test_size=0.4, random_state=3)
        X_val, X_te, y_val, y_te = train_test_split(X_rest, y_rest, test_size=0.5, random_state=3)
"""

def balanced(X: str, y: str) -> str:
    """The majority class of ``X``/``y`` drawn down to the minority's size, a forest trained on the result and
    scored on the validation part."""
    return f"""\
        X_few, y_few = {X}[{y} == 1], {y}[{y} == 1]
        X_many = {X}[{y} == 0].sample(len(X_few), random_state=3)
        y_many = {y}[{y} == 0].sample(len(y_few), random_state=3)
        X_bal, y_bal = shuffle(pd.concat([X_many, X_few]), pd.concat([y_many, y_few]), random_state=3)
        forest = RandomForestClassifier(max_depth=5)
        forest.fit(X_bal, y_bal)
        print(f1_score(y_val, forest.predict(X_val)))
"""


LEAKS = {
    # the loop keeps the candidate whose test accuracy is highest: multi-test leakage
    "running_best_by_the_test_score": (CANDIDATES + """\
        for tag, model, grid in candidates:
            model.fit(X_tr, y_tr)
            acc = model.score(X_te, y_te)
            if acc > top_score:
                top_score, top_model = acc, model
""", [("tuned_on_test", 10)]),
    # the test score is printed, then computed again in the comparison that keeps the best: found where printed
    "running_best_by_a_printed_test_score": (CANDIDATES + """\
        for tag, model, grid in candidates:
            model.fit(X_tr, y_tr)
            print(tag, model.score(X_te, y_te))
            if model.score(X_te, y_te) > top_score:
                top_score, top_model = model.score(X_te, y_te), model
""", [("tuned_on_test", 10)]),
    # the loop keeps the candidate whose cross-validation over every row (the test part too) is highest
    "running_best_by_a_cross_validation_of_all_rows": (CANDIDATES + """\
        for tag, model, grid in candidates:
            folds = cross_val_score(model, X, y, cv=5)
            if folds.mean() > top_score:
                top_score, top_model = folds.mean(), model
        top_model.fit(X_tr, y_tr)
        print(top_model.score(X_te, y_te))
""", [("trained_on_test", 9)]),
    # searches fitted on every row, compared by their best_score_; the refitted best scores the test part
    "running_best_of_searches_fitted_on_all_rows": (CANDIDATES + """\
        for tag, model, grid in candidates:
""" + searched("X, y") + """\
        print(top_model.score(X_te, y_te))
""", [("trained_on_test", 10)]),
    # the training and validation parts stacked, the majority class drawn down, the model scored on validation
    "validation_rows_inside_a_class_balanced_stack": (STACKED + """\
        X_both, y_both = pd.concat([X_tr, X_val]), pd.concat([y_tr, y_val])
""" + balanced("X_both", "y_both"), [("trained_on_test", 12)]),
    # one class of the stacked parts kept by the label column of a joined table
    "one_class_of_a_stacked_table_by_its_label_column": (STACKED + """\
        both = pd.concat([X_tr.assign(label=y_tr), X_val.assign(label=y_val)])
        positives = both[both["label"] == 1]
        negatives = both[both["label"] == 0].sample(len(positives), random_state=3)
        kept = pd.concat([positives, negatives])
        forest = RandomForestClassifier(max_depth=5)
        forest.fit(kept.drop(columns=["label"]), kept["label"])
        print(forest.score(X_val, y_val))
""", [("trained_on_test", 11)]),
    # the largest rate replaced by the second largest of every row, then split: an order statistic of all rows
    "second_largest_caps_the_largest_before_the_split": ("""\
        runner_up = table["rate"].nlargest(2).iloc[-1]
        table.loc[table["rate"].idxmax(), "rate"] = runner_up
        X2, y2 = table.drop(columns=["label"]), table["label"]
        a, b, c, d = train_test_split(X2, y2, random_state=3)
        print(LogisticRegression().fit(a, c).score(b, d))
""", [("fit_before_split", 1)]),
}

HEALTHY = {
    # each candidate's test report is only printed; the best is kept by its search's cross-validated score on the
    # training part, and the kept model is scored once
    "test_report_shown_best_kept_by_the_search_score": (CANDIDATES + """\
        for tag, model, grid in candidates:
            model.fit(X_tr, y_tr)
            print(classification_report(y_te, model.predict(X_te)))
""" + searched("X_tr, y_tr") + """\
        print(top_model.score(X_te, y_te))
"""),
    # a cross-validation over every row only printed beside the search that chooses on the training part
    "all_rows_cross_validation_shown_beside_the_choosing_search": (CANDIDATES + """\
        for tag, model, grid in candidates:
            shown = cross_val_score(model, X, y, cv=5)
            print(tag, shown.mean())
""" + searched("X_tr, y_tr") + """\
        print(top_model.score(X_te, y_te))
"""),
    # a second search over every row whose result is only printed; the compared search saw the training part
    "side_search_over_all_rows_only_printed": (CANDIDATES + """\
        for tag, model, grid in candidates:
""" + searched("X_tr, y_tr") + """\
            side = GridSearchCV(model, grid, cv=5)
            side.fit(X, y)
            print(side.best_params_, side.best_score_)
        print(top_model.score(X_te, y_te))
"""),
    # the majority class of the training part alone drawn down: the validation rows stay out
    "class_balanced_training_part_scored_on_validation": (STACKED + balanced("X_tr", "y_tr")),
    # a class left out of the task before any split: the split then parts the remaining rows
    "class_cut_before_the_split": ("""\
        two = table[table["label"] != 2]
        a, b, c, d = train_test_split(two.drop(columns=["label"]), two["label"], random_state=3)
        print(LogisticRegression().fit(a, c).score(b, d))
"""),
    # the five dearest rows shown (the DataFrame form names a column and returns rows)
    "largest_rows_only_shown": ("""\
        print(table.nlargest(5, "rate"))
        a, b, c, d = train_test_split(X, y, random_state=3)
        print(LogisticRegression().fit(a, c).score(b, d))
"""),
    # the cap taken from the training part after the split
    "second_largest_of_the_training_part": ("""\
        a, b, c, d = train_test_split(X, y, random_state=3)
        runner_up = a["rate"].nlargest(2).iloc[-1]
        a["rate"] = a["rate"].clip(upper=runner_up)
        b["rate"] = b["rate"].clip(upper=runner_up)
        print(LogisticRegression().fit(a, c).score(b, d))
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_83_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_83_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
