"""The static leakage analysis on hyperparameter grids whose every setting is scored on the test part and reported
(issue 17, stop 48: ``tuned_on_test`` for a grid read off its printed or collected test scores), each in both
directions: the grid found at its line, the healthy look-alike (a validation part, cross-validation, model classes,
seeds, one final test score) silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_kinds import alarms

#: a split of a loaded table into a training and a test part
SPLIT = """\
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.svm import SVC
        frame = pd.read_csv("orders.csv")
        feats, label = frame.drop(columns="late"), frame["late"]
        X_train, X_test, y_train, y_test = train_test_split(feats, label, random_state=1)
"""

#: a helper that fits one setting on the training part and returns its accuracy on the test part
HELPER = """\
        def holdout_accuracy(settings):
            forest = RandomForestClassifier(**settings).fit(X_train, y_train)
            return (forest.predict(X_test) == y_test).mean()
"""

LEAKS = {
    # nested loops over written-out settings, the helper's test accuracy printed for each (found at the helper's
    # score, as a loop calling a helper of the same file is)
    "a_nested_grid_scored_on_test_by_a_helper_and_printed": (SPLIT + HELPER + """\
        for depth in [2, 4, 8]:
            for trees in [50, 200]:
                acc = holdout_accuracy({"max_depth": depth, "n_estimators": trees})
                print(depth, trees, acc)
""", [("tuned_on_test", 9)]),
    # a list of configurations (lag, alpha), each judged by its error on the last rows, the errors stored
    "configurations_each_scored_on_the_last_rows_then_sorted": ("""\
        from sklearn.linear_model import Ridge
        def last_rows_error(series, n_test, cfg):
            train, test = series[:-n_test], series[-n_test:]
            model = Ridge(alpha=cfg[1]).fit(train[[f"lag{cfg[0]}"]], train["y"])
            return ((model.predict(test[["lag"]]) - test["y"]) ** 2).mean()
        sales = pd.read_csv("sales.csv")
        errors = {}
        for cfg in [(1, 0.1), (1, 10.0), (7, 0.1), (7, 10.0)]:
            errors[cfg] = last_rows_error(sales, 12, cfg)
        ranked = sorted(errors.items(), key=lambda kv: kv[1])
""", [("tuned_on_test", 5)]),
}

HEALTHY = {
    # one size parameter swept, each test score collected for a plot and nothing chosen: a single curve stays
    # silent by the house tests (a grid of two settings or more counts)
    "a_size_parameter_swept_with_test_scores_collected": (SPLIT + """\
        curve = []
        for k in range(1, 25):
            knn = KNeighborsClassifier(n_neighbors=k).fit(X_train, y_train)
            curve.append(knn.score(X_test, y_test))
        plt.plot(range(1, 25), curve)
""", []),
    # the same nested grid scored on a validation part carved from the training part
    "a_grid_scored_on_a_validation_part": (SPLIT + """\
        X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, random_state=2)
        for depth in [2, 4, 8]:
            for trees in [50, 200]:
                forest = RandomForestClassifier(max_depth=depth, n_estimators=trees).fit(X_fit, y_fit)
                print(depth, trees, forest.score(X_val, y_val))
""", []),
    # the grid judged by cross-validation on the training part
    "a_grid_scored_by_cross_validation_on_the_training_part": (SPLIT + """\
        for depth in [2, 4, 8]:
            scores = cross_val_score(RandomForestClassifier(max_depth=depth), X_train, y_train, cv=5)
            print(depth, scores.mean())
""", []),
    # several model classes, each scored once on the test part (a spot-check report)
    "model_classes_each_scored_once_on_test": (SPLIT + """\
        for model in [RandomForestClassifier(), SVC(), KNeighborsClassifier()]:
            model.fit(X_train, y_train)
            print(type(model).__name__, model.score(X_test, y_test))
""", []),
    # one model over several seeds: the spread of one setting
    "one_model_over_several_seeds": (SPLIT + """\
        for seed in [0, 1, 2, 3]:
            forest = RandomForestClassifier(random_state=seed).fit(X_train, y_train)
            print(seed, forest.score(X_test, y_test))
""", []),
    # the test part scored once, after the setting was chosen on the training part
    "one_final_test_score_after_a_search_on_the_training_part": (SPLIT + """\
        search = GridSearchCV(RandomForestClassifier(), {"max_depth": [2, 4, 8]}, cv=5).fit(X_train, y_train)
        print(search.best_estimator_.score(X_test, y_test))
""", []),
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_grid48_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected


def test_a_grid_scored_by_a_helper_module_on_the_import_path_is_found_at_the_loop_call(tmp_path):
    """The helper lives in another folder put on ``sys.path``, behind more helper modules than a session joins: the
    script's own import still joins, and the finding is on the script's call in the loop."""
    lib = tmp_path / "lib"
    (lib / "models").mkdir(parents=True)
    (lib / "scoring").mkdir()
    for k in range(4):  # model wrappers the script imports first, each needing a base module
        (lib / "models" / f"wrap{k}.py").write_text(f"from models.base{k} import Base{k}\n\nclass Wrap{k}(Base{k}):\n"
                                                    "    pass\n")
        (lib / "models" / f"base{k}.py").write_text(f"class Base{k}:\n    pass\n")
    (lib / "scoring" / "holdout.py").write_text(
        "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n\n"
        "def holdout_accuracy(model_class, settings):\n"
        "    frame = pd.read_csv('matches.csv')\n"
        "    X_train, X_test, y_train, y_test = train_test_split(frame.drop(columns='won'), frame['won'])\n"
        "    model = model_class(**settings).fit(X_train, y_train)\n"
        "    return (model.predict(X_test) == y_test).mean()\n")
    script = tmp_path / "runs" / "grid.py"
    script.parent.mkdir()
    imports = "".join(f"from models.wrap{k} import Wrap{k}\n" for k in range(4))
    script.write_text("import sys\nsys.path.append('../lib')\n" + imports
                      + "from sklearn.ensemble import RandomForestClassifier\n"
                      + "from scoring.holdout import holdout_accuracy\n\n"
                      + "for depth in [1, 3, 5]:\n"
                      + "    for trees in [10, 100]:\n"
                      + "        score = holdout_accuracy(RandomForestClassifier, {'max_depth': depth, 'n_estimators': trees})\n"
                      + "        print(depth, score)\n")
    report, _ = analyze_file(str(script))
    found = [(f.kind, f.location["line"]) for f in report.findings if f.severity >= Severity.WARNING
             and f.location.get("file") == str(script)]
    assert found == [("tuned_on_test", 12)]
    message = next(f.message for f in report.findings if f.kind == "tuned_on_test")
    assert "every candidate's test score is reported to be read off" in message and "best is kept" not in message


HEALTHY_MORE = {
    # one model per label column, its settings looked up per column, the unlabelled test file predicted
    "one_model_per_label_column_with_settings_looked_up": (SPLIT + """\
        chosen = {"C": [0.5, 2.0], "tol": [1e-3, 1e-4]}
        for j, column in enumerate(["spam", "abuse"]):
            model = LogisticRegression(C=chosen["C"][j], tol=chosen["tol"][j]).fit(X_train, frame[column][:10])
            print(column, model.predict(X_test)[:5])
""", []),
    # every setting cross-validated by a splitter's folds inside the grid
    "a_grid_with_a_splitter_fold_loop_inside": (SPLIT + """\
        table = []
        for a in [0.1, 1.0, 10.0]:
            for fit_rows, held_rows in KFold(4).split(X_train):
                model = Ridge(alpha=a).fit(X_train.iloc[fit_rows], y_train.iloc[fit_rows])
                table.append((a, model.score(X_train.iloc[held_rows], y_train.iloc[held_rows])))
""", []),
    # a train-versus-test curve over k: the over- and under-fitting picture, nothing read off it (house labels)
    "a_train_versus_test_curve": (SPLIT + """\
        fit_acc, held_acc = [], []
        for k in range(1, 20):
            knn = KNeighborsClassifier(n_neighbors=k).fit(X_train, y_train)
            fit_acc.append(knn.score(X_train, y_train))
            held_acc.append(knn.score(X_test, y_test))
        plt.plot(fit_acc)
        plt.plot(held_acc)
""", []),
    # the same search repeated under several seeds handed to a helper
    "a_helper_run_under_several_random_states": (SPLIT + """\
        def once(ran_state):
            forest = RandomForestClassifier(random_state=ran_state).fit(X_train, y_train)
            return forest.score(X_test, y_test)
        outcomes = []
        for ran_state in [11, 22, 33]:
            outcomes.append(once(ran_state))
""", []),
    # one cross-validated search per metric, each refitted model scored once on the test part
    "a_search_per_metric_then_one_test_report_each": (SPLIT + """\
        for metric in ["precision", "recall"]:
            search = GridSearchCV(KNeighborsClassifier(), {"n_neighbors": [3, 5, 9]}, scoring=f"{metric}_macro", cv=3)
            search.fit(X_train, y_train)
            print(metric, search.score(X_test, y_test))
""", []),
}


@pytest.mark.parametrize("name", sorted(HEALTHY_MORE))
def test_grid48_lookalikes_seen_on_public_code_stay_silent(tmp_path, name):
    body, expected = HEALTHY_MORE[name]
    assert alarms(tmp_path, body) == expected
