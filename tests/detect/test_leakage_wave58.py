"""The static leakage analysis on the kinds a held-out wave of science and health code showed (issue 17, wave 58:
EEG feature selection scripts, clinical and MRI course projects, time-series notebooks), each in both directions:
the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import ast

import pytest

from faultlib.detect.data.leakage.callerpaths import CallerPaths
from faultlib.detect.data.leakage.pathexprs import PathEnv, path_of
from tests.detect.test_leakage_handed_on import alarms as script_alarms
from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # the script's own test part, written out and read back: still the held-out rows
    "a_test_part_written_then_read_back_and_filled_with_its_own_median": ("""\
        fit_rows, held_rows = train_test_split(table)
        held_rows.to_csv("held_rows_test.csv")
        later = pd.read_csv("held_rows_test.csv")
        later["age"] = later["age"].fillna(later["age"].median())
        Ridge().fit(fit_rows[["age"]], fit_rows["label"]).predict(later[["age"]])
        """, [("fit_on_test", 4)]),
    # a subsample kept from the scaled rows, then split again: the scaler saw the test rows of that second split
    "rows_scaled_then_subsampled_then_split": ("""\
        Z = StandardScaler().fit_transform(X)
        _, z_small, _, y_small = train_test_split(Z, y, test_size=0.5)
        a, b, c, d = train_test_split(z_small, y_small)
        LogisticRegression().fit(a, c).score(b, d)
        """, [("fit_before_split", 1)]),
    # a scaler fitted on the training rows stacked with the test file: the test rows are not a validation part
    "a_scaler_fitted_on_train_and_test_stacked": ("""\
        fit_part = pd.read_csv("train.csv")
        test_part = pd.read_csv("test.csv")
        both = pd.concat([fit_part, test_part])
        sc = StandardScaler().fit(both[["age"]])
        Ridge().fit(sc.transform(fit_part[["age"]]), fit_part["label"]).predict(sc.transform(test_part[["age"]]))
        """, [("fit_on_test", 4)]),
    # a table stacked with a copy of its own positive rows (oversampling by hand) before the split
    "rows_stacked_with_their_own_minority_before_the_split": ("""\
        arr = table[["age", "weight"]].values
        up = np.vstack((arr, arr[table["label"].values == 1]))
        a, b = train_test_split(up)
        LogisticRegression().fit(a[:, :1], a[:, 1]).score(b[:, :1], b[:, 1])
        """, [("fit_before_split", 2)]),
}

HEALTHY = {
    # the script writes its own selected columns under a name that starts with "test", then reads them back
    "own_file_named_test_for_an_experiment_read_back": """\
        from sklearn.feature_selection import SelectKBest
        def keep_columns(name="all_features.csv"):
            rows = pd.read_csv(name)
            pd.DataFrame(np.array(rows)[:, :5]).to_csv("test_sklearn_first_five.csv")
        def select_again(name="test_sklearn_first_five.csv"):
            rows = pd.read_csv(name)
            chosen = SelectKBest(k=2).fit_transform(rows, table["label"])
            pd.DataFrame(chosen).to_csv("selected.csv")
        def start():
            keep_columns()
            select_again()
        """,
    # the part train_test_split calls "test" is kept as a smaller training set; the rest is thrown away
    "a_training_subsample_kept_from_the_second_part": """\
        docs = load_rows(config["fit_file"])
        held = load_rows(config["eval_file"])
        scaler = StandardScaler()
        x_docs = scaler.fit_transform(docs[["age"]])
        x_held = scaler.transform(held[["age"]])
        _, x_small, _, y_small = train_test_split(x_docs, docs["label"], test_size=0.3)
        LogisticRegression().fit(x_small, y_small).score(x_held, held["label"])
        """,
    # the final refit on the training and validation files together, scored on the separate test file
    "final_refit_on_train_and_validation_scored_on_test": """\
        fit_part = pd.read_csv("train.csv")
        valid_part = pd.read_csv("valid.csv")
        test_part = pd.read_csv("test.csv")
        both = pd.concat([fit_part, valid_part])
        sc = StandardScaler()
        z = sc.fit_transform(both[["age"]])
        Ridge().fit(z, both["label"]).predict(sc.transform(test_part[["age"]]))
        """,
    # two columns of one table stacked by NumPy and transposed: a feature matrix, not repeated rows
    "two_columns_stacked_into_a_feature_matrix": """\
        first = np.array(table.age)
        second = np.array(table["weight"])
        Z = np.transpose(np.vstack((first, second)))
        a, b, c, d = train_test_split(Z, table["label"])
        LogisticRegression().fit(a, c).score(b, d)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_wave_58_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_wave_58_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


# --- a selection on every row written to files whose names reach the scoring script through a list, a loop and
# --- parameters (callerpaths.py; the EEG scripts of wave 58)

SELECT = """\
    import numpy as np
    import pandas as pd
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.feature_selection import SelectFromModel
    from tsfresh import select_features

    FOLDER = "/srv/sleep/"


    def stages():
        return np.loadtxt(FOLDER + "stages.csv", delimiter=",")[:, 1]


    def by_relevance(table):
        kept = select_features(table, stages(), fdr_level=0.01)
        kept.to_csv(FOLDER + "kept_by_relevance.csv")


    def by_forest(table):
        grid = np.array(table)
        forest = ExtraTreesClassifier(n_estimators=8).fit(grid, stages())
        pd.DataFrame(SelectFromModel(forest, prefit=True).transform(grid)).to_csv(FOLDER + "kept_by_forest.csv")


    def main(source="all_windows.csv"):
        table = pd.read_csv(FOLDER + source)
        by_relevance(table)
        by_forest(table)
"""

FOLDS = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import KFold
    from sklearn.neighbors import KNeighborsClassifier

    FOLDER = "/srv/sleep/"


    def matrix(which):
        return np.array(pd.read_csv(FOLDER + which)), np.loadtxt(FOLDER + "stages.csv", delimiter=",")[:, 1]


    def ten_folds(which):
        x, y = matrix(which)
        for fit_rows, held_rows in KFold(n_splits=10, shuffle=True).split(x):
            print(KNeighborsClassifier().fit(x[fit_rows], y[fit_rows]).score(x[held_rows], y[held_rows]))


    def main():
        choices = [{files}]
        for one in choices:
            ten_folds(one)
"""


def _handed(tmp_path, files):
    writer = write(tmp_path, "select.py", SELECT)
    write(tmp_path, "folds.py", FOLDS.replace("{files}", files))
    return [(kind, line) for kind, line, _ in script_alarms(writer)]


def test_selections_written_then_cross_validated_through_a_loop_of_file_names(tmp_path):
    """Both the FDR test and the forest behind SelectFromModel saw every row with its label; the reader's loop
    names both files (one join each): each fit reported at its own line."""
    found = _handed(tmp_path, '"kept_by_relevance.csv", "kept_by_forest.csv"')
    assert found == [("fit_outside_cv", 15), ("fit_outside_cv", 21)]


def test_a_loop_over_other_files_links_nothing(tmp_path):
    """The loop names files no fit shaped: the parameter's paths are known, and none is a selection's."""
    assert _handed(tmp_path, '"raw_windows.csv", "band_powers.csv"') == []


def test_a_caller_passing_an_unknown_path_links_nothing(tmp_path):
    """One call passes a path known only at run time: which file is read cannot be known, no guess."""
    assert _handed(tmp_path, '"kept_by_relevance.csv", sys.argv[1]') == []


def test_selection_inside_each_fold_is_healthy(tmp_path):
    """The writer keeps every column; each fold of the reader selects on its own training rows."""
    writer = write(tmp_path, "select.py", """\
        import pandas as pd

        def main(source="all_windows.csv"):
            pd.read_csv(source).dropna(axis=1).to_csv("kept_columns.csv")
        """)
    write(tmp_path, "folds.py", """\
        import numpy as np
        import pandas as pd
        from sklearn.feature_selection import SelectKBest
        from sklearn.model_selection import KFold
        from sklearn.svm import SVC

        def ten_folds(which):
            x = np.array(pd.read_csv(which))
            y = np.loadtxt("stages.csv", delimiter=",")[:, 1]
            for a, b in KFold(n_splits=10).split(x):
                pick = SelectKBest(k=5).fit(x[a], y[a])
                print(SVC().fit(pick.transform(x[a]), y[a]).score(pick.transform(x[b]), y[b]))

        def main():
            for one in ["kept_columns.csv"]:
                ten_folds(one)
        """)
    assert script_alarms(writer) == []


def test_paths_its_callers_pass():
    """A parameter's paths: a literal, a keyword, a default, a loop over a list bound to a name, two callers up,
    and an expression built from the parameter; one unknown caller: none."""
    source = (
        "BASE = 'out/'\n"
        "def read(name='c.csv'):\n"
        "    return pd.read_csv(BASE + name)\n"
        "def relay(which):\n"
        "    return read(which)\n"
        "def main():\n"
        "    names = ['a.csv', 'b.csv']\n"
        "    for n in names:\n"
        "        relay(n)\n"
        "    read(name='a.csv')\n"
        "    read()\n")
    tree = ast.parse(source)
    callers = CallerPaths(tree, PathEnv(tree))
    arg = tree.body[1].body[0].value.args[0]
    assert [p.text for p in callers.paths(arg, 3)] == ["out/a.csv", "out/b.csv", "out/c.csv"]
    unknown = ast.parse(source + "read(sys.argv[1])\n")
    assert CallerPaths(unknown, PathEnv(unknown)).paths(unknown.body[1].body[0].value.args[0], 3) == []


def test_a_folder_literal_ending_in_a_slash_keeps_it_when_added():
    tree = ast.parse("ROOT = '/home/me/runs/'\nx = ROOT + 'kept.csv'\ny = 'runs' + '_kept.csv'\n")
    env = PathEnv(tree)
    assert path_of(tree.body[1].value, env, 2).text == "/home/me/runs/kept.csv"
    assert path_of(tree.body[2].value, env, 3).text == "runs_kept.csv"


def test_a_reader_that_splits_ranks_before_one_that_cross_validates(tmp_path):
    """One selection read by two scripts, one holding out a test part, one cross-validating: reported as a fit
    before the split, as the same code in one script is (repofiles.HANDED_KINDS)."""
    writer = write(tmp_path, "select.py", """\
        import pandas as pd
        from tsfresh import select_features

        table = pd.read_csv("windows.csv")
        select_features(table.drop(columns=["stage"]), table["stage"]).join(table["stage"]).to_csv("kept.csv")
        """)
    write(tmp_path, "a_folds.py", """\
        import pandas as pd
        from sklearn.model_selection import cross_val_score
        from sklearn.svm import SVC

        kept = pd.read_csv("kept.csv")
        print(cross_val_score(SVC(), kept.drop(columns=["stage"]), kept["stage"], cv=5))
        """)
    write(tmp_path, "b_holdout.py", """\
        import pandas as pd
        from sklearn.model_selection import train_test_split
        from sklearn.svm import SVC

        kept = pd.read_csv("kept.csv")
        a, b = train_test_split(kept, test_size=0.3)
        print(SVC().fit(a.drop(columns=["stage"]), a["stage"]).score(b.drop(columns=["stage"]), b["stage"]))
        """)
    assert [(kind, line) for kind, line, _ in script_alarms(writer)] == [("fit_before_split", 5)]
