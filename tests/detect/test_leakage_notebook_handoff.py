"""Rows a notebook fits and writes to a file that another notebook or a script reads and evaluates (nbfiles.py,
repofiles.py): the fit reported at the writer notebook's cell and line; silent for the healthy look-alikes. Every
example is written for this test."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.nbfiles import join_program, place
from faultlib.findings import Severity


def notebook(folder, name, *cells):
    """A notebook of a markdown cell then ``cells`` as code cells (cell numbers 2, 3, ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("a project\n")
    doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
           "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# notes"}] + [
               {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                "source": textwrap.dedent(c)} for c in cells]}
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


def script(folder, name, body):
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


def alarms(path):
    """(kind, cell, line, evidence) of the findings at warning or above in ``path`` itself."""
    report, _ = analyze_file(str(path))
    return [(f.kind, f.location.get("index"), f.location["line"], f.evidence) for f in report.findings
            if f.severity >= Severity.WARNING and f.location.get("file") == str(path)]


LOAD = """\
    import pandas as pd
    from sklearn.preprocessing import StandardScaler
    pumps = pd.read_csv("pumps.csv")
"""

SCALE_ALL = """\
    inputs = pumps.drop(columns=["broke"])
    scaled = pd.DataFrame(StandardScaler().fit_transform(inputs), columns=inputs.columns)
    scaled["broke"] = pumps["broke"]
"""

SAVE = """\
    scaled.to_csv("pumps_ready.csv", index=False)
"""

SPLIT_READER = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    ready = pd.read_csv("pumps_ready.csv")
    fit_part, check_part = train_test_split(ready, test_size=0.3, random_state=0)
    model = LogisticRegression().fit(fit_part.drop(columns=["broke"]), fit_part["broke"])
    print(model.score(check_part.drop(columns=["broke"]), check_part["broke"]))
"""

CV_READER = """\
    import pandas as pd
    from sklearn.model_selection import cross_val_score
    from sklearn.tree import DecisionTreeClassifier
    ready = pd.read_csv("pumps_ready.csv")
    print(cross_val_score(DecisionTreeClassifier(), ready.drop(columns=["broke"]), ready["broke"], cv=5).mean())
"""


def test_a_notebook_writes_scaled_rows_that_another_notebook_splits(tmp_path):
    writer = notebook(tmp_path, "prep.ipynb", LOAD, SCALE_ALL, SAVE)
    notebook(tmp_path, "model.ipynb", SPLIT_READER)
    found = alarms(writer)
    assert [(k, cell, line) for k, cell, line, _ in found] == [("fit_before_split", 3, 2)]
    how = found[0][3]["handed_on"]
    assert how["file"] == "pumps_ready.csv"
    assert how["written"]["index"] == 4 and how["written"]["line"] == 1
    assert how["read"]["index"] == 2 and how["read"]["line"] == 4


def test_a_notebook_writes_scaled_rows_that_a_script_cross_validates(tmp_path):
    writer = notebook(tmp_path, "prep.ipynb", LOAD, SCALE_ALL, SAVE)
    script(tmp_path, "evaluate.py", CV_READER)
    found = alarms(writer)
    assert [(k, cell, line) for k, cell, line, _ in found] == [("fit_outside_cv", 3, 2)]
    assert found[0][3]["handed_on"]["read"] == {"file": str(tmp_path / "evaluate.py"), "line": 4}


def test_nans_filled_with_the_mean_of_every_row_then_saved_for_a_notebook_that_cross_validates(tmp_path):
    fill = """\
        pumps["pressure"] = pumps["pressure"].fillna(pumps["pressure"].mean())
        pumps.to_csv("pumps_ready.csv", index=False)
    """
    writer = notebook(tmp_path, "clean.ipynb", LOAD, fill)
    notebook(tmp_path, "score.ipynb", CV_READER)
    assert [(k, cell, line) for k, cell, line, _ in alarms(writer)] == [("fit_outside_cv", 3, 1)]


def test_the_writer_fits_on_its_training_part_only(tmp_path):
    healthy = """\
        from sklearn.model_selection import train_test_split
        train, test = train_test_split(pumps, test_size=0.3, random_state=0)
        scaler = StandardScaler().fit(train.drop(columns=["broke"]))
        for part, name in ((train, "train_ready.csv"), (test, "test_ready.csv")):
            ready = pd.DataFrame(scaler.transform(part.drop(columns=["broke"])))
            ready["broke"] = part["broke"].values
            ready.to_csv(name, index=False)
    """
    writer = notebook(tmp_path, "prep.ipynb", LOAD, healthy)
    notebook(tmp_path, "model.ipynb", """\
        import pandas as pd
        from sklearn.linear_model import LogisticRegression
        train = pd.read_csv("train_ready.csv")
        test = pd.read_csv("test_ready.csv")
        model = LogisticRegression().fit(train.drop(columns=["broke"]), train["broke"])
        print(model.score(test.drop(columns=["broke"]), test["broke"]))
    """)
    assert alarms(writer) == []


def test_the_reader_reads_another_file(tmp_path):
    writer = notebook(tmp_path, "prep.ipynb", LOAD, SCALE_ALL, SAVE)
    notebook(tmp_path, "model.ipynb", SPLIT_READER.replace("pumps_ready.csv", "pumps_raw.csv"))
    assert alarms(writer) == []


def test_the_reader_only_plots(tmp_path):
    writer = notebook(tmp_path, "prep.ipynb", LOAD, SCALE_ALL, SAVE)
    notebook(tmp_path, "charts.ipynb", """\
        import pandas as pd
        import matplotlib.pyplot as plt
        ready = pd.read_csv("pumps_ready.csv")
        ready.hist()
        plt.show()
    """)
    assert alarms(writer) == []


def test_a_joined_program_maps_a_notebooks_lines_to_its_cells(tmp_path):
    writer = notebook(tmp_path, "prep.ipynb", LOAD, SAVE)
    reader = script(tmp_path, "evaluate.py", CV_READER)
    source, smap = join_program([str(writer), str(reader)], str(writer))
    assert smap.where(4) == {"file": str(writer), "index": 3, "line": 1}
    assert smap.where(5) == {"file": str(reader), "line": 1}
    assert source.split("\n")[3].startswith("scaled.to_csv")
    assert place(writer, 4) == {"index": 3, "line": 1} and place(reader, 4) == {"line": 4}


def test_a_demo_split_in_the_writer_is_not_handed_on_by_the_readers_model(tmp_path):
    """The writer fills another frame with its mean and splits it to show ``train_test_split``; the reader splits
    and scores under the same names (through a function of its own). The reader runs in a kernel of its own: only
    the fit that shaped the written file is handed on, not the demo."""
    demo = """\
        from sklearn.model_selection import train_test_split
        toys = pd.read_csv("toys.csv")
        toys = toys.fillna(value=toys.price.mean())
        X = toys[["price", "rating"]].values
        y = toys["in_stock"].values
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)
    """
    writer = notebook(tmp_path, "prep.ipynb", LOAD, demo, SCALE_ALL, SAVE)
    notebook(tmp_path, "model.ipynb", """\
        import pandas as pd
        from sklearn.model_selection import train_test_split
        from sklearn.svm import SVC
        df = pd.read_csv("pumps_ready.csv")
        X_train, X_test, y_train, y_test = train_test_split(df[["a", "b"]].values, df["broke"].values, test_size=0.3)
        svm = SVC().fit(X_train, y_train)
        def check_model_fit(clf, X_test, y_test):
            print(clf.score(X_test, y_test))
        check_model_fit(svm, X_test, y_test)
    """)
    assert [(k, cell, line) for k, cell, line, _ in alarms(writer)] == [("fit_before_split", 4, 2)]


def test_a_group_mean_over_several_lines_is_handed_on_at_its_statement(tmp_path):
    """The mean per group is one statement over several lines: the finding names its first line, the written rows
    trace it to a line inside; the fit is still the one that shaped the file."""
    group_fill = """\
        per_site = (
            pumps.groupby("site")
            .pressure
            .mean()
        )
        pumps["pressure"] = pumps["pressure"].fillna(pumps["site"].map(dict(per_site)))
        pumps.to_csv("pumps_ready.csv", index=False)
    """
    writer = notebook(tmp_path, "clean.ipynb", LOAD, group_fill)
    notebook(tmp_path, "score.ipynb", CV_READER)
    assert [(k, cell) for k, cell, _, _ in alarms(writer)] == [("fit_outside_cv", 3)]


def test_listing_a_roots_notebooks_looks_at_each_other_files_name_as_text(tmp_path, monkeypatch):
    """Every ``check leakage`` lists its root's notebooks; a root of image or data files (tens of thousands) is
    walked at the cost of the scripts' walk: a name is tested as text, with no ``Path`` built for each file."""
    from faultlib.detect.data.leakage import nbfiles

    for i in range(300):
        (tmp_path / f"img{i}.png").touch()
    (tmp_path / "Model.IPYNB").touch()
    built = []
    monkeypatch.setattr(nbfiles, "Path", lambda *a: built.append(a) or Path(*a))
    assert nbfiles.project_notebooks(tmp_path) == [tmp_path / "Model.IPYNB"]
    assert len(built) <= 2
