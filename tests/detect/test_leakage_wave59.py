"""The static leakage analysis on the kinds a held-out wave of staged ML pipelines showed (issue 17, wave 59:
MLOps templates, Kedro projects and numbered preprocessing stages whose files hand the rows on), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_handed_on import alarms as handed_alarms
from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # cluster ids learnt on the training and test files stacked, renamed item by item, then written for the models
    "cluster_ids_of_train_and_test_stacked_renamed_and_written": ("""\
        homes = pd.read_csv("homes_train.csv")
        later = pd.read_csv("homes_test.csv")
        from sklearn.cluster import KMeans
        ids = KMeans(3).fit_predict(pd.concat([homes[["area"]], later[["area"]]]))
        homes["zone"] = [f"zone_{i}" for i in ids[:len(homes)]]
        later["zone"] = [str(i) for i in ids[len(homes):]]
        homes.to_csv("homes_zoned.csv")
        """, [("fit_on_test", 4)]),
    # the test rows filled with their own mean, scored, in a notebook that also draws a decision boundary
    "test_rows_filled_with_their_own_mean_beside_a_boundary_plot": ("""\
        a, b, c, d = train_test_split(X, y)
        b = b.fillna(b.mean())
        model = LogisticRegression().fit(a, c)
        print(model.score(b, d))
        xx, yy = np.meshgrid(np.arange(0, 1, 0.1), np.arange(0, 1, 0.1))
        grid = np.tile(np.mean(a, axis=0), (xx.size, 1))
        grid[:, 0] = xx.ravel()
        model.predict(grid)
        """, [("fit_on_test", 2)]),
    # the test table filled with its own mean: a fit on the held-out rows, whatever the target of the assignment
    "the_test_table_filled_with_its_own_mean": ("""\
        homes = pd.read_csv("homes_train.csv")
        test = pd.read_csv("homes_test.csv")
        test["area"] = test["area"].fillna(test["area"].mean())
        model = Ridge().fit(homes[["area"]], homes["price"])
        model.predict(test[["area"]])
        """, [("fit_on_test", 3)]),
}

HEALTHY = {
    # the other features of a decision-boundary grid held at the test rows' mean: a picture, not a score
    "a_decision_boundary_grid_held_at_the_test_mean": """\
        a, b, c, d = train_test_split(X, y)
        model = LogisticRegression().fit(a, c)
        print(model.score(b, d))
        xx, yy = np.meshgrid(np.arange(0, 1, 0.1), np.arange(0, 1, 0.1))
        grid = np.tile(np.mean(b, axis=0), (xx.ravel().shape[0], 1))
        grid[:, 0] = xx.ravel()
        grid[:, 1] = yy.ravel()
        zone = model.predict(grid)
        """,
    # cluster ids learnt on the training rows only, the test rows assigned to them, renamed and written
    "cluster_ids_of_the_training_rows_renamed_and_written": """\
        homes = pd.read_csv("homes_train.csv")
        later = pd.read_csv("homes_test.csv")
        from sklearn.cluster import KMeans
        km = KMeans(3).fit(homes[["area"]])
        homes["zone"] = [f"zone_{i}" for i in km.labels_]
        later["zone"] = [f"zone_{i}" for i in km.predict(later[["area"]])]
        homes.to_csv("homes_zoned.csv")
        """,
    # a training mean fills only the test table's unseen districts; the tables are stacked and cut again later
    "a_training_mean_filling_the_test_table_only_then_stacked_and_cut": """\
        homes = pd.read_csv("homes_train.csv")
        test = pd.read_csv("homes_test.csv")
        test["area"] = test["area"].fillna(homes["area"].mean())
        both = pd.concat([homes, test])
        part = both.iloc[:len(homes)]
        cross_val_score(Ridge(), part[["area"]], part["price"])
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_wave_59_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_wave_59_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


# ---------------------------------------------------------------- stages that hand the rows on through files

def found(path):
    """(kind, line) of the findings at warning or above in ``path`` itself, and their ``handed_on`` evidence."""
    mine = handed_alarms(path)
    return [(kind, line) for kind, line, _ in mine], [evidence.get("handed_on") for _, _, evidence in mine]


SETTINGS = """\
    from pathlib import Path
    ROOT = Path(__file__).resolve().parents[1]
    STAGE1 = ROOT / "work" / "homes_stage1.csv"
    STAGE2 = ROOT / "work" / "homes_stage2.csv"
"""

SCALE = """\
    import pandas as pd
    from sklearn.preprocessing import {step}
    from project import settings

    if __name__ == "__main__":
        homes = pd.read_csv("homes.csv")
        homes[["area"]] = {step}().fit_transform(homes[["area"]])
        homes.to_csv(settings.STAGE1, index=False)
"""

ENCODE = """\
    import pandas as pd
    from project import settings

    def main(source=None, target=None):
        if source is None:
            source = settings.STAGE1
        if target is None:
            target = settings.STAGE2
        homes = pd.read_csv(source)
        homes["old"] = (homes["year"] < 1950).astype(int)
        homes.to_csv(target, index=False)

    if __name__ == "__main__":
        main()
"""

MODEL = """\
    import pandas as pd
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_score
    from project import settings

    homes = pd.read_csv(settings.{stage})
    print(cross_val_score(Ridge(), homes[["area", "old"]], homes["price"]).mean())
"""


def test_a_scaler_before_the_cv_of_the_model_script_named_by_a_config_module(tmp_path):
    """The folder of the file is computed at run time; the model script names it ``settings.STAGE1`` after
    ``from project import settings``."""
    write(tmp_path, "project/settings.py", SETTINGS)
    stage = write(tmp_path, "stages/s1_scale.py", SCALE.format(step="StandardScaler"))
    write(tmp_path, "models/ridge.py", MODEL.format(stage="STAGE1").replace('"area", "old"', '"area"'))
    kinds, how = found(stage)
    assert kinds == [("fit_outside_cv", 7)]
    assert how[0]["file"] == "homes_stage1.csv" and "relays" not in how[0]


def test_a_scaler_before_the_cv_two_stages_later(tmp_path):
    """Stage 2 reads stage 1's file and writes its own (its paths: parameters that default to None and fall back
    on the config module); the model script cross-validates stage 2's file."""
    write(tmp_path, "project/settings.py", SETTINGS)
    stage = write(tmp_path, "stages/s1_scale.py", SCALE.format(step="StandardScaler"))
    relay = write(tmp_path, "stages/s2_encode.py", ENCODE)
    write(tmp_path, "models/ridge.py", MODEL.format(stage="STAGE2"))
    kinds, how = found(stage)
    assert kinds == [("fit_outside_cv", 7)]
    assert how[0]["relays"] == [str(relay)]


def test_a_stateless_first_stage_two_stages_before_the_cv_is_silent(tmp_path):
    write(tmp_path, "project/settings.py", SETTINGS)
    stage = write(tmp_path, "stages/s1_scale.py", SCALE.format(step="FunctionTransformer"))
    write(tmp_path, "stages/s2_encode.py", ENCODE)
    write(tmp_path, "models/ridge.py", MODEL.format(stage="STAGE2"))
    assert found(stage) == ([], [])


def test_a_first_stage_whose_file_no_model_reads_is_silent(tmp_path):
    """Stage 2 writes a file nobody reads: the scaled rows reach no model."""
    write(tmp_path, "project/settings.py", SETTINGS)
    stage = write(tmp_path, "stages/s1_scale.py", SCALE.format(step="StandardScaler"))
    write(tmp_path, "stages/s2_encode.py", ENCODE)
    assert found(stage) == ([], [])
