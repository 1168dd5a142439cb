"""Statistics of every row handed from one script to another through a file (repofiles.py, pathexprs.py): the
leak reported at the writer's fit when a reader splits, cross-validates or scores what it wrote; silent for the
healthy look-alikes. Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.pathexprs import FilePath, PathEnv, path_of, same_file
from faultlib.findings import Severity


def write(folder, name, body):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("a project\n")  # its root: where scripts hand files to each other
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return path


def alarms(path):
    """(kind, line, evidence) of the findings at warning or above in ``path`` itself."""
    report, _ = analyze_file(str(path))
    return [(f.kind, f.location["line"], f.evidence) for f in report.findings
            if f.severity >= Severity.WARNING and f.location.get("file") == str(path)]


GAUGES = """\
    import os
    import pandas as pd
    from sklearn.preprocessing import MinMaxScaler

    FOLDER = "prepared"
    readings = pd.read_csv("gauges.csv")
    inputs = readings.drop(columns=["failed"])
    squashed = pd.DataFrame(MinMaxScaler().fit_transform(inputs), columns=inputs.columns)
    squashed["failed"] = readings["failed"]
    squashed.to_parquet(os.path.join(FOLDER, "gauges_scaled.parquet"))
"""

HOLDOUT = """\
    from pathlib import Path
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split

    BASE = Path("prepared")
    table = pd.read_parquet(BASE / "gauges_scaled.parquet")
    train, held = train_test_split(table, test_size=0.25, random_state=3)
    forest = RandomForestClassifier().fit(train.drop(columns=["failed"]), train["failed"])
    print(forest.score(held.drop(columns=["failed"]), held["failed"]))
"""


def test_scaler_on_every_row_written_then_split_by_another_script(tmp_path):
    writer = write(tmp_path, "a_prepare.py", GAUGES)
    write(tmp_path, "b_evaluate.py", HOLDOUT)
    found = alarms(writer)
    assert [(k, line) for k, line, _ in found] == [("fit_before_split", 8)]
    how = found[0][2]["handed_on"]
    assert how["file"] == "prepared/gauges_scaled.parquet"
    assert how["written"]["line"] == 10 and how["read"]["line"] == 7


def test_the_reader_may_sort_first_and_sit_in_another_folder(tmp_path):
    """The run order is unknown: a reader whose name sorts before the writer's, in a sibling folder, with the
    path from a config module of the repository and a %-format."""
    write(tmp_path, "settings.py", 'OUT = "prepared"\n')
    writer = write(tmp_path, "prep/zz_features.py", GAUGES.replace('FOLDER = "prepared"', "from settings import *")
                   .replace("FOLDER", "OUT"))
    write(tmp_path, "models/aa_cv.py", """\
        import pickle
        import pandas as pd
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import cross_val_score
        import settings

        table = pd.read_parquet("%s/gauges_scaled.parquet" % settings.OUT)
        X, y = table.drop(columns=["failed"]), table["failed"]
        print(cross_val_score(LogisticRegression(), X, y, cv=5).mean())
    """)
    assert [(k, line) for k, line, _ in alarms(writer)] == [("fit_outside_cv", 8)]


def test_hand_written_mean_pickled_and_cross_validated(tmp_path):
    writer = write(tmp_path, "centre.py", """\
        import pickle
        import numpy as np

        values = np.load("signals.npy")
        centred = (values - values.mean(axis=0)) / values.std(axis=0)
        with open("work/centred.pkl", "wb") as handle:
            pickle.dump(centred, handle)
    """)
    write(tmp_path, "fit.py", """\
        import pickle
        import numpy as np
        from sklearn.svm import SVC
        from sklearn.model_selection import KFold, cross_val_score

        centred = pickle.load(open("work/centred.pkl", "rb"))
        labels = np.load("labels.npy")
        print(cross_val_score(SVC(), centred, labels, cv=KFold(4)).mean())
    """)
    assert [k for k, _, _ in alarms(writer)] == ["fit_outside_cv"]


@pytest.mark.parametrize("reader", [
    # only predicts a submission: nothing is scored on rows the scaler saw
    """\
    import pandas as pd
    import joblib
    table = pd.read_parquet("prepared/gauges_scaled.parquet")
    model = joblib.load("model.pkl")
    pd.DataFrame({"failed": model.predict(table.drop(columns=["failed"]))}).to_csv("submission.csv")
    """,
    # reads a file of the same name in another known folder: another file
    HOLDOUT.replace('BASE = Path("prepared")', 'BASE = Path("raw")'),
    # reads a path built at run time: no guess
    HOLDOUT.replace('BASE = Path("prepared")', 'import sys\nBASE = Path(sys.argv[1])').replace(
        'BASE / "gauges_scaled.parquet"', 'BASE / sys.argv[2]'),
])
def test_readers_that_do_not_make_the_write_a_leak(tmp_path, reader):
    writer = write(tmp_path, "prepare.py", GAUGES)
    write(tmp_path, "use.py", reader)
    assert alarms(writer) == []


def test_per_row_features_and_training_only_fits_are_healthy(tmp_path):
    """Features computed row by row (no statistic) and a scaler fitted on the training part after the split,
    both written and then read by a script that trains on one file and scores the other."""
    per_row = write(tmp_path, "rows.py", """\
        import numpy as np
        import pandas as pd
        readings = pd.read_csv("gauges.csv")
        readings["log_load"] = np.log1p(readings["load"])
        readings.to_csv("prepared/rows.csv", index=False)
    """)
    after_split = write(tmp_path, "split_then_scale.py", """\
        import pandas as pd
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler
        readings = pd.read_csv("prepared/rows.csv")
        train, test = train_test_split(readings, random_state=1)
        scaler = StandardScaler().fit(train[["log_load"]])
        train[["log_load"]] = scaler.transform(train[["log_load"]])
        test[["log_load"]] = scaler.transform(test[["log_load"]])
        train.to_csv("prepared/train_part.csv", index=False)
        test.to_csv("prepared/test_part.csv", index=False)
    """)
    write(tmp_path, "score.py", """\
        import pandas as pd
        from sklearn.linear_model import LogisticRegression
        train = pd.read_csv("prepared/train_part.csv")
        test = pd.read_csv("prepared/test_part.csv")
        model = LogisticRegression().fit(train[["log_load"]], train["failed"])
        print(model.score(test[["log_load"]], test["failed"]))
    """)
    assert alarms(per_row) == []
    assert alarms(after_split) == []


def test_path_expressions():
    import ast

    source = textwrap.dedent("""\
        import os
        from pathlib import Path
        import sys
        ROOT = "data"
        SUB = os.path.join(ROOT, "feats")
        def job(name):
            here = Path(SUB) / "a.csv"
            there = "{}/b.csv".format(ROOT)
            fmt = f"{ROOT}/c_{name}.csv"
            unknown = os.path.join(sys.argv[1], "d.csv")
            return here, there, fmt, unknown
    """)
    tree = ast.parse(source)
    env = PathEnv(tree)
    got = {t.id: path_of(t, env, 11) for t in ast.walk(tree.body[-1].body[-1]) if isinstance(t, ast.Name)}
    assert got == {"here": FilePath("data/feats/a.csv"), "there": FilePath("data/b.csv"), "fmt": None,
                   "unknown": FilePath("d.csv", exact=False)}
    assert same_file(FilePath("../data/x.csv"), FilePath("data/x.csv"), lambda n: True)
    assert not same_file(FilePath("raw/x.csv"), FilePath("clean/x.csv"), lambda n: True)
    assert not same_file(FilePath("a/x.csv"), FilePath("x.csv", exact=False), lambda n: False)
    assert not same_file(FilePath("x.csv"), FilePath("../input/comp/x.csv"), lambda n: True)


def test_a_reader_in_another_project_is_not_linked(tmp_path):
    """Two projects side by side (each with its own README): a script of one never reads the other's files."""
    writer = write(tmp_path / "gauges", "prepare.py", GAUGES)
    write(tmp_path / "other", "evaluate.py", HOLDOUT)
    assert alarms(writer) == []
    write(tmp_path / "gauges", "evaluate.py", HOLDOUT)
    assert [k for k, _, _ in alarms(writer)] == ["fit_before_split"]


def test_a_name_rebound_from_itself_is_resolved_once(monkeypatch):
    """``p = p + ...`` in 30 places: every binding of ``p`` refers to ``p`` again. Each lookup re-evaluating every
    binding at every level is 30 ** 12 evaluations (a notebook collection hung the whole-repository index on it); the
    answer is memoised by name and scope, so the evaluations stay linear in the bindings."""
    import ast

    from faultlib.detect.data.leakage import pathexprs

    lines = ['p = "data"'] + [f'p = p + "/part{i}"' for i in range(30)] + ['q = p + "/rows.csv"']
    tree = ast.parse("\n".join(lines))
    env = PathEnv(tree)
    calls = []
    original = pathexprs.path_of

    def counted(*args, **kwargs):
        calls.append(1)
        assert len(calls) < 500, "path expressions re-evaluated: exponential in the bindings"
        return original(*args, **kwargs)

    monkeypatch.setattr(pathexprs, "path_of", counted)
    assert env.lookup("q", len(lines)) == FilePath("rows.csv", exact=False)  # p is ambiguous: only the tail is known
    assert PathEnv(ast.parse('r = "data"\ns = r + "/x.csv"')).lookup("s", 2) == FilePath("data/x.csv")
