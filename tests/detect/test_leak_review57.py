"""Review of the leakage rules added at stop 57 (issue 17): realistic look-alikes of the programs each new rule was
written for, in both directions. Every example is written for this test."""

from __future__ import annotations

from tests.detect.leakage_source import dedented_alarms, line_of

# ------------------------------------------- origintargets.py: a label set per class file is no train/test mark

_CLASS_FILES = """\
    import lightgbm as lgb
    import pandas as pd
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    spam = pd.read_csv("{first}")
    ham = pd.read_csv("{second}")
    spam["is_spam"] = 1
    ham["is_spam"] = 0
    mails = pd.concat([spam, ham], ignore_index=True)
    X_train, X_test, y_train, y_test = train_test_split(mails[["n_links", "n_caps"]], mails["is_spam"])
    clf = lgb.LGBMClassifier(n_estimators=2000)
    clf.fit(X_train, y_train, eval_set=[(X_test, y_test)], early_stopping_rounds=50)
    print(accuracy_score(y_test, clf.predict(X_test)))
"""


def test_a_stop_on_the_test_part_of_two_class_files_marked_with_their_label_is_found(tmp_path):
    text = _CLASS_FILES.format(first="spam.csv", second="ham.csv")
    assert ("tuned_on_test", line_of(text, "clf.fit(")) in dedented_alarms(tmp_path, text)


def test_a_train_versus_test_file_classifier_on_the_same_marks_is_silent(tmp_path):
    text = _CLASS_FILES.format(first="train.csv", second="test.csv")
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ----------------------------------- silentstops.py: a quiet fit's model read back through its container

_QUIET_LOOP = """\
    import pandas as pd
    from lightgbm import LGBMClassifier
    from xgboost import XGBClassifier
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    loans = pd.read_csv("loans.csv")
    X_train, X_test, y_train, y_test = train_test_split(loans.drop(columns="default"), loans["default"])
    candidates = {"xgb": XGBClassifier(n_estimators=3000, early_stopping_rounds=100),
                  "lgb": LGBMClassifier(n_estimators=3000)}
    for tag, model in candidates.items():
        model.fit(X_train, y_train, eval_set=[(X_test, y_test)], verbose=False)
    {after}
"""


def test_a_quiet_stop_whose_models_are_scored_through_their_dict_is_found(tmp_path):
    text = _QUIET_LOOP.replace("{after}", """for tag, fitted in candidates.items():
        print(tag, accuracy_score(y_test, fitted.predict(X_test)))""")
    assert ("tuned_on_test", line_of(text, "model.fit(")) in dedented_alarms(tmp_path, text)


def test_a_quiet_stop_whose_models_nobody_reads_again_is_silent(tmp_path):
    text = _QUIET_LOOP.replace("{after}", "print('fitted', len(X_train))")
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}


# ----------------------------------------------- fitinputs.py: one pass over the module's flows per question

def test_whether_each_statistic_of_a_long_notebook_reaches_a_fit_is_answered_in_linear_time():
    """``reaches_fit`` is asked once per statistic of a scored table; a notebook of a few hundred chained cells
    must not make each answer re-walk every assignment until nothing changes (minutes before the mend)."""
    import ast
    import time

    from faultlib.detect.data.leakage.fitinputs import reaches_fit

    lines = ["res = load()"]
    for i in range(300):  # each link read before it is bound (a loop's or a function's order): one hop per pass
        lines += [f"s{i} = res.groupby('y')['pred'].mean()", f"v{i} = s{i} * 2 + v{i + 1}"]
    lines.append("model.fit(v0, y)")
    tree = ast.parse("\n".join(lines))
    means = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "mean"]
    started = time.perf_counter()
    answers = [reaches_fit(tree, call) for call in means]
    assert all(answers)  # every mean flows along the chain into the fit
    assert time.perf_counter() - started < 10


# ------------------------------------------- spread.py / boosterparams.py: a stop set through dict.update

def _updated(update: str) -> str:
    """test_leakage_misses57's fold loop, its params dict given one more setting by ``dict.update``."""
    from tests.detect.test_leakage_misses57 import PARAMS_STOP

    return PARAMS_STOP.replace("'learning_rate': 0.05, {stop}}", f"'learning_rate': 0.05}}\n    params.update({update})")


def test_early_stopping_added_to_the_params_by_update_stops_on_the_scored_fold(tmp_path):
    text = _updated("early_stopping_round=60")
    assert ("tuned_on_test", line_of(text, "lgb.train(")) in dedented_alarms(tmp_path, text)


def test_an_update_that_sets_other_params_is_silent(tmp_path):
    text = _updated("{'num_leaves': 15, 'min_data_in_leaf': 40}")
    assert "params.update" in text
    assert not {a for a in dedented_alarms(tmp_path, text) if a[0] == "tuned_on_test"}
