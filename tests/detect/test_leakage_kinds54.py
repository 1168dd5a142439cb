"""The static leakage analysis on false-alarm kinds judged at stop 53 (issue 17), in both directions:

* a column dropped because it holds one value over all the rows (``nunique() <= 1``, ``std() == 0``,
  ``VarianceThreshold()`` at threshold 0) before the split is no fit: no model can use a column constant in its
  training part (constancy.py); a drop by a missing share, a variance cut or many distinct values stays a fit;
* a whole table repeated and nothing else (``pd.concat([X] * k)``, ``pd.concat([df, df])``) is oversampling only
  where a row-wise split (``train_test_split``, ``KFold``, a random mask) then parts the copies; kept together by a
  split on a key they share, repeated after the split or only predicted, it is silent; a class's rows repeated and
  joined to the rest stay oversampling (rowdraws.py, copysplits.py);
* a statistic or an encoder fitted on training and validation rows whose value goes only onto test rows it never saw
  is no fit of held-out rows; written onto the validation rows too, it is (testfills.py);
* training and validation rows oversampled for the final refit, the test part apart, are no fit of held-out rows;
  the whole held-out part oversampled with them is (refits.py);
* the mean over the first axis of an ensemble's stacked probabilities (models x examples x classes) averages the
  models, no statistic of the examples (predbuffers.py).

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from faultlib.detect.data.leakage.constancy import constancy_tests
from tests.detect.leakage_source import dedented_alarms as _alarms
from tests.detect.leakage_source import line_of as _line


# ---------------------------------------------------------------- constant columns dropped before the split

_HEAD = """\
    import pandas as pd
    from sklearn.feature_selection import VarianceThreshold
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    visits = pd.read_csv("shop_visits.csv")
"""

_TAIL = """\
    inputs = visits.drop(columns=["bought"])
    X_fit, X_held, y_fit, y_held = train_test_split(inputs, visits["bought"], test_size=0.25, random_state=3)
    shopper = LogisticRegression(max_iter=500).fit(X_fit, y_fit)
    print(shopper.score(X_held, y_held))
"""

#: each cleaning step before the split: (the step, the line that drops, whether it learns from the rows)
_DROPS = [
    ("for name in visits.columns:\n        if visits[name].nunique() == 1:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "visits.drop(name", False),
    ("for name in list(visits.columns):\n        distinct = visits[name].nunique()\n        if distinct < 2:\n"
     "            del visits[name]\n", "del visits", False),
    ("for name in list(visits.columns):\n        if len(visits[name].unique()) <= 1:\n"
     "            visits = visits.drop(name, axis=1)\n", "visits = visits.drop", False),
    ("flat = [c for c in visits.columns if visits[c].nunique() <= 1]\n    if flat:\n"
     "        visits = visits.drop(columns=flat)\n", "flat = [c", False),
    ("visits = visits.loc[:, visits.std() > 0]\n", "visits.std()", False),
    ("visits = visits.loc[:, visits.var() != 0]\n", "visits.var()", False),
    ("for name in list(visits.columns):\n        if visits[name].min() == visits[name].max():\n"
     "            visits.pop(name)\n", "visits.pop", False),
    # the look-alikes that learn from the rows stay fits before the split
    ("for name in visits.columns:\n        if visits[name].isnull().mean() > 0.5:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "if visits[name].isnull()", True),
    ("gappy = [c for c in visits.columns if visits[c].isnull().mean() > 0.5]\n    if gappy:\n"
     "        visits = visits.drop(columns=gappy)\n", "gappy = [c", True),
    ("for name in visits.columns:\n        if visits[name].nunique() > 40:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "if visits[name].nunique()", True),
    ("visits = visits.loc[:, visits.std() > 0.3]\n", "visits.std()", True),
    ("for name in visits.columns:\n        if visits[name].nunique() == 1 or visits[name].isnull().mean() > 0.9:\n"
     "            visits.drop(name, axis=1, inplace=True)\n", "if visits[name].nunique()", True),
]


@pytest.mark.parametrize("step,needle,learns", _DROPS, ids=[
    "loop-nunique-eq-1", "named-count-lt-2", "len-unique", "comprehension-guarded", "std-gt-0", "var-ne-0",
    "min-eq-max", "loop-missing-share", "comprehension-missing-share", "many-distinct", "std-gt-cut",
    "constant-or-missing"])
def test_a_drop_of_constant_columns_learns_nothing_other_drops_stay_fits(
        tmp_path: Path, step: str, needle: str, learns: bool) -> None:
    script = _HEAD + "    " + step + _TAIL
    found = _alarms(tmp_path, script)
    if learns:
        assert found, step
    else:
        assert found == set(), step


def _selector(threshold: str) -> str:
    return _HEAD + f"""\
    inputs = visits.drop(columns=["bought"])
    inputs = VarianceThreshold({threshold}).fit_transform(inputs)
    X_fit, X_held, y_fit, y_held = train_test_split(inputs, visits["bought"], test_size=0.25, random_state=3)
    shopper = LogisticRegression(max_iter=500).fit(X_fit, y_fit)
    print(shopper.score(X_held, y_held))
"""


@pytest.mark.parametrize("threshold", ["", "0", "threshold=0.0"])
def test_variance_threshold_at_zero_before_the_split_is_silent(tmp_path: Path, threshold: str) -> None:
    assert _alarms(tmp_path, _selector(threshold)) == set()


def test_variance_threshold_with_a_cut_before_the_split_is_still_reported(tmp_path: Path) -> None:
    script = _selector("threshold=0.2")
    assert ("fit_before_split", _line(script, "VarianceThreshold(threshold")) in _alarms(tmp_path, script)


def test_which_comparisons_ask_whether_a_column_is_constant() -> None:
    import ast

    cases = {
        "x.nunique() == 1": True, "x.nunique() <= 1": True, "x.nunique() > 1": True, "1 < x.nunique()": True,
        "x.n_unique() != 1": True, "len(set(x)) == 1": True, "x.std() == 0": True, "x.var() <= 0.0": True,
        "x.std() < 1e-9": True, "x.max() == x.min()": True,
        "x.nunique() > 2": False, "x.nunique() == 2": False, "x.std() > 0.1": False, "x.mean() == 0": False,
        "x.isnull().mean() > 0.5": False, "x.nunique() <= 1 <= 2": False, "x.std(axis=1) == 0": False,
    }
    for text, expected in cases.items():
        tree = ast.parse(text)
        compare = tree.body[0].value  # type: ignore[attr-defined]
        assert (id(compare) in constancy_tests(tree)) is expected, text


# ---------------------------------------------------------------- a whole table repeated

_REPEATS = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    days = pd.read_csv("store_days.csv")
    {stack}
    X_fit, X_held, y_fit, y_held = train_test_split(days[["price", "promo"]], days["busy"], test_size=0.2)
    model = LogisticRegression().fit(X_fit, y_fit)
    print(model.score(X_held, y_held))
"""


_STACKS = [
    "days = pd.concat([days] * 3)",
    "days = pd.concat([days, days], ignore_index=True)",
    "copies = 2\n    days = pd.concat([days] * copies)",
]
_STACK_IDS = ["list-times-k", "listed-twice", "times-a-name"]


@pytest.mark.parametrize("stack", _STACKS, ids=_STACK_IDS)
def test_a_whole_table_repeated_then_split_row_by_row_is_reported(tmp_path: Path, stack: str) -> None:
    script = _REPEATS.format(stack=stack)
    assert ("fit_before_split", _line(script, "pd.concat")) in _alarms(tmp_path, script)


_REPEATED_THEN = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import {splitter}, cross_val_score

    days = pd.read_csv("store_days.csv")
    days = pd.concat([days] * 3, ignore_index=True)
    X, y = days[["price", "promo"]], days["busy"]
    {evaluation}
"""

#: splits after the repeat: (the splitter imported, the evaluation, whether it parts the copies of a row)
_AFTER_REPEAT = [
    ("KFold", "print(cross_val_score(LogisticRegression(), X, y, cv=KFold(5, shuffle=True, random_state=1)))", True),
    ("KFold", "folds = KFold(4, shuffle=True)\n    for tr, te in folds.split(X):\n"
     "        m = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])\n        print(m.score(X.iloc[te], y.iloc[te]))",
     True),
    ("ShuffleSplit", "print(cross_val_score(LogisticRegression(), X, y, cv=ShuffleSplit(3, test_size=0.2)))", True),
    ("KFold", "test_mask = np.random.rand(len(days)) < 0.2\n"
     "    m = LogisticRegression().fit(X[~test_mask], y[~test_mask])\n"
     "    print(m.score(X[test_mask], y[test_mask]))", True),
    # the tail held out without shuffling is copies of earlier rows
    ("train_test_split", "X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.3, shuffle=False)\n"
     "    print(LogisticRegression().fit(X_a, y_a).score(X_b, y_b))", True),
    # the copies share the store, the key the folds keep together
    ("GroupKFold", "print(cross_val_score(LogisticRegression(), X, y, groups=days['store'], cv=GroupKFold(4)))",
     False),
    ("GroupKFold", "for tr, te in GroupKFold(4).split(X, y, days['store']):\n"
     "        m = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])\n        print(m.score(X.iloc[te], y.iloc[te]))",
     False),
    # the copies share the day, the key of the time split
    ("KFold", "test_mask = days['day'] >= '2024-06-01'\n"
     "    m = LogisticRegression().fit(X[~test_mask], y[~test_mask])\n"
     "    print(m.score(X[test_mask], y[test_mask]))", False),
]


@pytest.mark.parametrize("splitter,evaluation,parts", _AFTER_REPEAT, ids=[
    "shuffled-kfold", "kfold-loop", "shuffle-split", "random-mask", "unshuffled-tail", "group-kfold", "group-kfold-loop",
    "time-cut-on-a-shared-key"])
def test_a_whole_table_repeated_is_reported_only_where_the_split_parts_its_copies(
        tmp_path: Path, splitter: str, evaluation: str, parts: bool) -> None:
    script = _REPEATED_THEN.format(splitter=splitter, evaluation=evaluation)
    found = _alarms(tmp_path, script)
    if parts:
        assert any(line == _line(script, "pd.concat") for _, line in found), evaluation
    else:
        assert not any(line == _line(script, "pd.concat") for _, line in found), evaluation


def test_a_random_draw_made_before_the_repeat_parts_no_copies(tmp_path: Path) -> None:
    # some days drawn at random and appended, then the whole table repeated: the draw came before the copies were
    # made, and the folds keep each store's copies together
    script = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    days = pd.read_csv("store_days.csv")
    extra = days[np.random.rand(len(days)) < 0.3]
    days = pd.concat([days, extra])
    days = pd.concat([days] * 2)
    X, y = days[["price", "promo"]], days["busy"]
    for tr, te in GroupKFold(4).split(X, y, days["store"]):
        m = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])
        print(m.score(X.iloc[te], y.iloc[te]))
"""
    assert not any(line == _line(script, "[days] * 2") for _, line in _alarms(tmp_path, script))


@pytest.mark.parametrize("evaluation,parts", [
    ("for tr, te in GroupKFold(4).split(X, y, stores):\n"
     "        m = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])\n        print(m.score(X.iloc[te], y.iloc[te]))", False),
    ("X_a, X_b, y_a, y_b = train_test_split(X, y)\n    print(LogisticRegression().fit(X_a, y_a).score(X_b, y_b))",
     True),
], ids=["group-folds", "train-test-split"])
def test_a_helper_that_repeats_the_table_is_judged_by_its_callers_split(
        tmp_path: Path, evaluation: str, parts: bool) -> None:
    script = f"""\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, train_test_split

    def copies(frame, k):
        frame = pd.concat([frame] * k)
        return frame[["price", "promo"]], frame["busy"], frame["store"]

    X, y, stores = copies(pd.read_csv("store_days.csv"), 3)
    {evaluation}
"""
    found = any(line == _line(script, "pd.concat") for _, line in _alarms(tmp_path, script))
    assert found is parts, evaluation


def test_the_training_part_repeated_after_the_split_is_silent(tmp_path: Path) -> None:
    script = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    days = pd.read_csv("store_days.csv")
    X_fit, X_held, y_fit, y_held = train_test_split(days[["price", "promo"]], days["busy"], test_size=0.2)
    X_fit = pd.concat([X_fit] * 3)
    y_fit = pd.concat([y_fit] * 3)
    model = LogisticRegression().fit(X_fit, y_fit)
    print(model.score(X_held, y_held))
"""
    assert _alarms(tmp_path, script) == set()


@pytest.mark.parametrize("table", ["coming_days", "test"])
def test_unlabelled_rows_repeated_and_only_predicted_are_silent(tmp_path: Path, table: str) -> None:
    # rows to forecast, or the test file repeated for test-time augmentation (each copy jittered): all copies held out
    script = f"""\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    days = pd.read_csv("store_days.csv")
    {table} = pd.read_csv("{table}.csv")
    model = LogisticRegression().fit(days[["price", "promo"]], days["busy"])
    {table} = pd.concat([{table}] * 4, ignore_index=True)
    {table}["price"] += np.random.normal(0, 0.1, size=len({table}))
    {table}["busy"] = model.predict({table}[["price", "promo"]])
    {table}.to_csv("forecast.csv", index=False)
"""
    assert _alarms(tmp_path, script) == set()


@pytest.mark.parametrize("stack,needle", [
    ("busy = days[days['busy'] == 1]\n    days = pd.concat([days] + [busy] * 3)", "days = pd.concat"),
    ("busy = days[days['busy'] == 1]\n    quiet = days[days['busy'] == 0]\n"
     "    busy = pd.concat([busy] * 4)\n    days = pd.concat([quiet, busy])", "busy = pd.concat"),
    ("promos = days[days['promo'] > 0]\n    days = pd.concat([days, promos, promos])", "days = pd.concat"),
], ids=["class-rows-repeated", "class-rows-repeated-alone-then-joined", "subset-listed-twice"])
def test_a_class_or_subset_repeated_and_joined_to_the_rest_is_still_oversampling(
        tmp_path: Path, stack: str, needle: str) -> None:
    script = _REPEATS.format(stack=stack)
    assert ("fit_before_split", _line(script, needle)) in _alarms(tmp_path, script)


# ---------------------------------------------------------------- train + validation, written onto the test rows only

_FOLD_FEATURES = """\
    import numpy as np
    import pandas as pd
    import category_encoders as ce
    from lightgbm import LGBMClassifier
    from sklearn.model_selection import KFold

    clicks = pd.read_csv("clicks_train.csv")
    test_df = pd.read_csv("clicks_test.csv")
    feats = ["item_count", "shop_te", "price"]
    preds = np.zeros(len(test_df))
    for fit_idx, hold_idx in KFold(5).split(clicks):
        train_df, valid_df = clicks.iloc[fit_idx].copy(), clicks.iloc[hold_idx].copy()
        own = train_df["item"].value_counts()
        train_df["item_count"] = train_df["item"].map(own)
        valid_df["item_count"] = valid_df["item"].map(own)
        counts = pd.concat([train_df, valid_df])["item"].value_counts()
        test_df.loc[:, "item_count"] = test_df["item"].map(counts)
        early = ce.TargetEncoder(cols=["shop"]).fit(train_df[["shop"]], train_df["clicked"])
        train_df["shop_te"] = early.transform(train_df[["shop"]])["shop"]
        valid_df["shop_te"] = early.transform(valid_df[["shop"]])["shop"]
        late = ce.TargetEncoder(cols=["shop"])
        late.fit(pd.concat([train_df[["shop"]], valid_df[["shop"]]]), pd.concat([train_df, valid_df])["clicked"])
        test_df["shop_te"] = late.transform(test_df[["shop"]])["shop"]
        model = LGBMClassifier().fit(train_df[feats], train_df["clicked"])
        print(model.score(valid_df[feats], valid_df["clicked"]))
        preds += model.predict_proba(test_df[feats])[:, 1] / 5
"""


def test_train_and_validation_statistics_written_onto_the_test_rows_only_are_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, _FOLD_FEATURES) == set()


def test_train_and_validation_counts_written_onto_the_validation_rows_too_are_still_reported(tmp_path: Path) -> None:
    script = _FOLD_FEATURES.replace(
        '    test_df.loc[:, "item_count"] = test_df["item"].map(counts)\n',
        '    test_df.loc[:, "item_count"] = test_df["item"].map(counts)\n'
        '        valid_df["item_count"] = valid_df["item"].map(counts)\n')
    assert ("fit_on_test", _line(script, "counts = pd.concat")) in _alarms(tmp_path, script)


def test_an_encoder_of_train_and_validation_that_also_encodes_the_validation_rows_is_still_reported(
        tmp_path: Path) -> None:
    script = _FOLD_FEATURES.replace(
        '    test_df["shop_te"] = late.transform(test_df[["shop"]])["shop"]\n',
        '    test_df["shop_te"] = late.transform(test_df[["shop"]])["shop"]\n'
        '        valid_df["shop_te"] = late.transform(valid_df[["shop"]])["shop"]\n')
    assert ("fit_on_test", _line(script, "late.fit(")) in _alarms(tmp_path, script)


# ---------------------------------------------------------------- train + validation oversampled for the final refit

#: three parts of the clients by two splits: training, validation (half the held-out 40 %), test
_THREE_PARTS = """\
    clients = pd.read_csv("clients.csv")
    X = clients.drop(columns=["left"])
    y = clients["left"]
    X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, test_size=0.4, random_state=1)
    X_val, X_hold, y_val, y_hold = train_test_split(X_rest, y_rest, test_size=0.5, random_state=1)
"""

_REFIT = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import f1_score
    from sklearn.model_selection import train_test_split

""" + _THREE_PARTS + """\
    probe = RandomForestClassifier().fit(X_fit, y_fit)
    print(f1_score(y_val, probe.predict(X_val)))
    X_both = pd.concat([X_fit, {second}])
    y_both = pd.concat([y_fit, {second_y}])
    stayed, went = X_both[y_both == 0], X_both[y_both == 1]
    X_up = pd.concat([stayed] + [went] * 3)
    y_up = pd.concat([y_both[y_both == 0]] + [y_both[y_both == 1]] * 3)
    final = RandomForestClassifier().fit(X_up, y_up)
    print(f1_score(y_hold, final.predict(X_hold)))
"""


def test_train_and_validation_oversampled_for_the_final_refit_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, _REFIT.format(second="X_val", second_y="y_val")) == set()


def test_smote_over_train_and_validation_for_the_final_refit_is_silent_unless_validation_is_scored(
        tmp_path: Path) -> None:
    script = """\
    import pandas as pd
    from imblearn.over_sampling import SMOTE
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

""" + _THREE_PARTS + """\
    print(LogisticRegression().fit(X_fit, y_fit).score(X_val, y_val))
    X_up, y_up = SMOTE().fit_resample(pd.concat([X_fit, X_val]), pd.concat([y_fit, y_val]))
    final = LogisticRegression().fit(X_up, y_up)
    print(final.score(X_hold, y_hold))
"""
    assert _alarms(tmp_path, script) == set()
    scored = script + "    print(final.score(X_val, y_val))\n"
    assert ("trained_on_test", _line(scored, "final = LogisticRegression")) in _alarms(tmp_path, scored)


def test_the_whole_held_out_part_oversampled_with_the_training_rows_is_still_reported(tmp_path: Path) -> None:
    script = _REFIT.format(second="X_rest", second_y="y_rest")
    assert ("fit_on_test", _line(script, "X_up = pd.concat")) in _alarms(tmp_path, script)


# ---------------------------------------------------------------- an ensemble's stacked probabilities

_ENSEMBLE = """\
    import numpy as np

    def scores_for_unlabelled(pred_probs_unlabeled, weights):
        for i in range(len(pred_probs_unlabeled)):
            pred_probs_unlabeled[i] = pred_probs_unlabeled[i] ** 0.5
        votes = np.argmax(pred_probs_unlabeled, axis=2).T
        blended = np.mean(pred_probs_unlabeled, axis=0)
        with_prior = np.average(np.concatenate((pred_probs_unlabeled, np.full((1, 4, 3), 1 / 3))), axis=0,
                                weights=weights)
        return votes, blended.max(axis=1), with_prior
"""


def test_which_arrays_are_stacks_of_model_probabilities() -> None:
    import ast

    from faultlib.detect.data.leakage.predbuffers import over_predictions, prediction_stacks

    tree = ast.parse(textwrap.dedent(_ENSEMBLE))
    names = prediction_stacks(tree)
    assert names == frozenset({"pred_probs_unlabeled"})
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") in ("mean",
                                                                                                      "average")]
    assert all(over_predictions(c.args[0], names) for c in calls)
    # a two-dimensional table of features, or a stack of another table, is no such array
    other = ast.parse("np.mean(X_test, axis=0)\nnp.argmax(images, axis=2)\nnp.concatenate((pred_probs, X_test))")
    assert prediction_stacks(other) == frozenset()
    assert not over_predictions(other.body[2].value, frozenset({"pred_probs"}))  # type: ignore[attr-defined]
