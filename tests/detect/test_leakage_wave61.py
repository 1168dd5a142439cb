"""Wave 61 (project-style code: stages in separate modules and scripts): the kinds behind its misses, each found at
its line and each healthy look-alike silent. Every example is a small project written for this test (no public
code)."""

from __future__ import annotations

from pathlib import Path

from tests.detect.test_leakage_crossmodule import _alarms, _write

# --- a menu script names each stage's file as it calls the stage's function in another module (it reads the file
# too, to report its size): the writer is joined with the menu's whole program, where the scoring module runs -----

FILLER = """\
import pandas as pd
from sklearn.impute import SimpleImputer


def fill_gaps(source):
    table = pd.read_csv(source)
    filler = SimpleImputer(strategy="median")
    filler.fit(table)
    out = pd.DataFrame(filler.transform(table), columns=table.columns)
    out.to_csv("filled.csv", index=False)
"""

SCORER = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import LeaveOneOut


def loo_accuracy(source):
    table = pd.read_csv(source)
    x, y = table.drop(columns=["label"]), table["label"]
    hits = []
    for fit_rows, held in LeaveOneOut().split(x):
        clf = LogisticRegression().fit(x.iloc[fit_rows], y.iloc[fit_rows])
        hits.append(clf.score(x.iloc[held], y.iloc[held]))
    return sum(hits) / len(hits)
"""

MENU = """\
import pandas as pd
import filler
import scorer

choice = input("1: fill and score, 2: score a file of yours ")
if choice == "1":
    filler.fill_gaps("measurements.csv")
    print(len(pd.read_csv("filled.csv")), "rows filled")
    print(scorer.loo_accuracy("filled.csv"))
else:
    print(scorer.loo_accuracy(input("file? ")))
"""

MENU_OTHER_FILE = MENU.replace('scorer.loo_accuracy("filled.csv")', 'scorer.loo_accuracy("holdout_checked.csv")')


def test_stage_module_read_through_a_constant_its_caller_passes(tmp_path: Path) -> None:
    _write(tmp_path, {"README.md": "x", "filler.py": FILLER, "scorer.py": SCORER, "menu.py": MENU})
    assert ("fit_outside_cv", "filler.py", 8) in _alarms(tmp_path, "menu.py")


def test_writer_joined_with_the_menu_that_runs_the_scoring_module(tmp_path: Path) -> None:
    _write(tmp_path, {"README.md": "x", "filler.py": FILLER, "scorer.py": SCORER, "menu.py": MENU})
    assert ("fit_outside_cv", "filler.py", 8) in _alarms(tmp_path, "filler.py")


def test_menu_scoring_another_file_is_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"README.md": "x", "filler.py": FILLER, "scorer.py": SCORER, "menu.py": MENU_OTHER_FILE})
    assert _alarms(tmp_path, "menu.py") == set()
    assert _alarms(tmp_path, "filler.py") == set()


# --- mRMR picks columns with the labels; the indices of the picked names select the array's columns -----------

PICKER = """\
import numpy as np
import pandas as pd
from mrmr import mrmr_classif

signals = np.load("signals.npy")
labels = np.load("labels.npy")
names = [f"s{i}" for i in range(signals.shape[1])]
frame = pd.DataFrame(signals, columns=names)
picked = mrmr_classif(X=frame, y=pd.Series(labels), K=12)
keep = [names.index(n) for n in picked]
np.save("picked.npy", signals[:, keep])
"""

PICKER_BY_HAND = PICKER.replace("picked = mrmr_classif(X=frame, y=pd.Series(labels), K=12)",
                                'picked = ["s1", "s4", "s7"]')

TUNER = """\
import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier

x = np.load("picked.npy")
y = np.load("labels.npy")
search = GridSearchCV(KNeighborsClassifier(), {"n_neighbors": [3, 5, 9]}, cv=4)
search.fit(x, y)
print(search.best_score_)
"""


def test_mrmr_choice_written_then_cross_validated(tmp_path: Path) -> None:
    _write(tmp_path, {"README.md": "x", "picker.py": PICKER, "tuner.py": TUNER})
    assert ("fit_outside_cv", "picker.py", 9) in _alarms(tmp_path, "picker.py")


def test_columns_named_by_hand_are_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"README.md": "x", "picker.py": PICKER_BY_HAND, "tuner.py": TUNER})
    assert _alarms(tmp_path, "picker.py") == set()


SCORES_THEN_INDICES = """\
import numpy as np
import pandas as pd
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC

x = np.load("spectra.npy")
y = np.load("classes.npy")
cols = [f"b{i}" for i in range(x.shape[1])]
kbest = SelectKBest(f_classif, k=20).fit(pd.DataFrame(x, columns=cols), y)
kept = [cols.index(c) for c in kbest.get_feature_names_out()]
print(cross_val_score(SVC(), x[:, kept], y, cv=5).mean())
"""


def test_selector_on_a_frame_of_the_array_then_cv_on_the_array(tmp_path: Path) -> None:
    _write(tmp_path, {"one.py": SCORES_THEN_INDICES})
    assert ("fit_outside_cv", "one.py", 10) in _alarms(tmp_path, "one.py")


def test_selector_inside_the_cv_pipeline_is_silent(tmp_path: Path) -> None:
    healthy = SCORES_THEN_INDICES.replace(
        'kbest = SelectKBest(f_classif, k=20).fit(pd.DataFrame(x, columns=cols), y)\n'
        'kept = [cols.index(c) for c in kbest.get_feature_names_out()]\n'
        'print(cross_val_score(SVC(), x[:, kept], y, cv=5).mean())',
        'from sklearn.pipeline import make_pipeline\n'
        'print(cross_val_score(make_pipeline(SelectKBest(f_classif, k=20), SVC()), x, y, cv=5).mean())')
    _write(tmp_path, {"one.py": healthy})
    assert _alarms(tmp_path, "one.py") == set()


# --- Kedro: a node module's fit and the split in another node, joined by the pipeline's dataset names -----------

KEDRO_PREP = """\
import pandas as pd


def rescale(table: pd.DataFrame) -> pd.DataFrame:
    low = table.min().min()
    high = table.max().max()
    return (table - low) / (high - low)
"""

KEDRO_PREP_PIPELINE = """\
from kedro.pipeline import Pipeline, node, pipeline

from .nodes import rescale


def create_pipeline(**kwargs) -> Pipeline:
    return pipeline([node(func=rescale, inputs="sensor_table", outputs="rescaled_table", name="rescale")])
"""

KEDRO_MODEL = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split


def split_rows(table: pd.DataFrame, params: dict):
    x, y = table.drop(columns=["target"]), table["target"]
    return train_test_split(x, y, test_size=params["test_size"])


def fit_and_score(x_train, x_test, y_train, y_test) -> float:
    return Ridge().fit(x_train, y_train).score(x_test, y_test)
"""

KEDRO_MODEL_PIPELINE = """\
from kedro.pipeline import Pipeline, node, pipeline

from .nodes import fit_and_score, split_rows


def create_pipeline(**kwargs) -> Pipeline:
    return pipeline([
        node(split_rows, ["{source}", "params:split"], ["x_train", "x_test", "y_train", "y_test"]),
        node(fit_and_score, dict(x_train="x_train", x_test="x_test", y_train="y_train", y_test="y_test"), "r2"),
    ])
"""


def _kedro(root: Path, source: str) -> None:
    base = "src/plant/pipelines"
    _write(root, {"README.md": "x", f"{base}/__init__.py": "", f"{base}/prep/__init__.py": "",
                  f"{base}/prep/nodes.py": KEDRO_PREP, f"{base}/prep/pipeline.py": KEDRO_PREP_PIPELINE,
                  f"{base}/model/__init__.py": "", f"{base}/model/nodes.py": KEDRO_MODEL,
                  f"{base}/model/pipeline.py": KEDRO_MODEL_PIPELINE.replace("{source}", source)})


def test_kedro_min_max_node_before_the_split_node(tmp_path: Path) -> None:
    _kedro(tmp_path, "rescaled_table")
    found = _alarms(tmp_path, "src/plant/pipelines/prep/nodes.py")
    assert {("fit_before_split", "nodes.py", 5), ("fit_before_split", "nodes.py", 6)} <= found


def test_kedro_split_of_another_dataset_is_silent(tmp_path: Path) -> None:
    _kedro(tmp_path, "sensor_table")  # the model pipeline splits the raw table; the rescaled one goes nowhere
    assert _alarms(tmp_path, "src/plant/pipelines/prep/nodes.py") == set()


def test_kedro_node_module_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    from faultlib.detect.data.leakage.kedronodes import kedro_program

    project, outside = tmp_path / "project", tmp_path / "outside"
    _kedro(project, "rescaled_table")
    _write(outside, {"model_nodes.py": KEDRO_MODEL + "OUTSIDE = 1\n"})
    model = project / "src/plant/pipelines/model/nodes.py"
    model.unlink()
    model.symlink_to(outside / "model_nodes.py")  # the node module leads out of the project
    assert kedro_program(project / "src/plant/pipelines/prep/nodes.py") is None  # its nodes are left out
    assert _alarms(project, "src/plant/pipelines/prep/nodes.py") == set()


# --- importances averaged with Python's sum over repeated fits, then the top columns cross-validated -----------

AVERAGED = """\
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.model_selection import cross_val_score

cells = pd.read_csv("cells.csv")
x, y = cells.drop(columns=["kind"]), cells["kind"]
runs = []
for seed in range(25):
    runs.append(ExtraTreesClassifier(random_state=seed).fit(x, y).feature_importances_)
mean_importance = sum(runs) / len(runs)
ranked = sorted(zip(x.columns, mean_importance), key=lambda pair: pair[1], reverse=True)
top = [name for name, _ in ranked[:8]]
print(cross_val_score(ExtraTreesClassifier(), x[top], y, cv=5).mean())
"""


def test_averaged_importances_choose_the_cross_validated_columns(tmp_path: Path) -> None:
    _write(tmp_path, {"rank.py": AVERAGED})
    assert ("fit_outside_cv", "rank.py", 9) in _alarms(tmp_path, "rank.py")


def test_sum_of_scores_is_silent(tmp_path: Path) -> None:
    healthy = AVERAGED.replace("runs.append(ExtraTreesClassifier(random_state=seed).fit(x, y).feature_importances_)",
                               "runs.append(len(x.columns) - seed)").replace("x[top]", "x")
    _write(tmp_path, {"rank.py": healthy})
    assert _alarms(tmp_path, "rank.py") == set()


# --- miceforest: the kernel's models fitted on every row (mice) before the split ---------------------------------

MICE = """\
import miceforest as mf
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split


def completed(table):
    kernel = mf.ImputationKernel(table, random_state=0)
    kernel.mice(5)
    return kernel.complete_data()


soil = pd.read_csv("soil.csv")
full = completed(soil)
fit_part, held_part = train_test_split(full, test_size=0.25)
model = GradientBoostingRegressor().fit(fit_part.drop(columns="yield"), fit_part["yield"])
print(model.score(held_part.drop(columns="yield"), held_part["yield"]))
"""


def test_mice_kernel_fitted_before_the_split(tmp_path: Path) -> None:
    _write(tmp_path, {"soil.py": MICE})
    assert ("fit_before_split", "soil.py", 9) in _alarms(tmp_path, "soil.py")


def test_mice_kernel_fitted_on_the_training_part_is_silent(tmp_path: Path) -> None:
    healthy = MICE.replace("full = completed(soil)\nfit_part, held_part = train_test_split(full, test_size=0.25)",
                           "fit_part, held_part = train_test_split(soil, test_size=0.25)\n"
                           "fit_part = completed(fit_part)")
    _write(tmp_path, {"soil.py": healthy})
    assert _alarms(tmp_path, "soil.py") == set()


# --- a table picked from a dict by a computed key (the clustering a score chose), then split -------------------

PICKED = """\
import pandas as pd
from sklearn.cluster import KMeans, AgglomerativeClustering
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

shops = pd.read_csv("shops.csv")
by_kmeans = shops.copy()
by_kmeans["segment"] = KMeans(n_clusters=4).fit_predict(shops[["area", "footfall"]])
by_tree = shops.copy()
by_tree["segment"] = AgglomerativeClustering(n_clusters=4).fit_predict(shops[["area", "footfall"]])
best = input("which clustering? ")
chosen = {"kmeans": by_kmeans, "tree": by_tree}[best]
a, b = train_test_split(chosen, test_size=0.3)
clf = LogisticRegression().fit(a[["area", "segment"]], a["closed"])
print(clf.score(b[["area", "segment"]], b["closed"]))
"""


def test_table_picked_by_a_computed_key_keeps_its_fits(tmp_path: Path) -> None:
    _write(tmp_path, {"shops.py": PICKED})
    assert ("fit_before_split", "shops.py", 8) in _alarms(tmp_path, "shops.py")


def test_table_picked_without_a_fitted_column_is_silent(tmp_path: Path) -> None:
    healthy = PICKED.replace('KMeans(n_clusters=4).fit_predict(shops[["area", "footfall"]])', 'shops["zone"]').replace(
        'AgglomerativeClustering(n_clusters=4).fit_predict(shops[["area", "footfall"]])', 'shops["zone"] * 2')
    _write(tmp_path, {"shops.py": healthy})
    assert _alarms(tmp_path, "shops.py") == set()


# --- stage scripts whose paths are keys of the project's YAML configuration ---------------------------------------

YAML_CONFIG = """\
scaling:
  folder: data/ready
search:
  features_path: data/ready/{name}
  labels_path: data/ready/labels.csv
"""

SCALE_STAGE = """\
import os
import pandas as pd
from sklearn.preprocessing import StandardScaler


class ScaleStage:
    def __init__(self, config):
        self.config = config

    def run(self):
        rows = pd.read_csv(os.path.join(self.config.folder, "train_rows.csv"))
        scaled = pd.DataFrame(StandardScaler().fit_transform(rows), columns=rows.columns)
        scaled.to_csv(os.path.join(self.config.folder, "train_scaled.csv"), index=False)
"""

SEARCH_STAGE = """\
import pandas as pd
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVR


class SearchStage:
    def __init__(self, config):
        self.config = config

    def run(self):
        x = pd.read_csv(self.config.features_path)
        y = pd.read_csv(self.config.labels_path)
        search = GridSearchCV(SVR(), {"C": [0.1, 1.0, 10.0]}, cv=5)
        search.fit(x, y.values.ravel())
        return search.best_params_
"""


def _stages(root: Path, read_name: str) -> None:
    _write(root, {"README.md": "x", "config/config.yaml": YAML_CONFIG.replace("{name}", read_name),
                  "src/scale_stage.py": SCALE_STAGE, "src/search_stage.py": SEARCH_STAGE})


def test_scaler_written_to_the_file_a_yaml_key_names_for_the_search(tmp_path: Path) -> None:
    _stages(tmp_path, "train_scaled.csv")
    assert ("fit_outside_cv", "scale_stage.py", 12) in _alarms(tmp_path, "src/scale_stage.py")


def test_search_reading_another_yaml_file_is_silent(tmp_path: Path) -> None:
    _stages(tmp_path, "train_raw_copy.csv")
    assert _alarms(tmp_path, "src/scale_stage.py") == set()


def test_kedro_dataset_and_keyword_names_never_reach_the_written_program_as_code(tmp_path: Path) -> None:
    """A pipeline's names are user text: dataset names become sanitised variables, a keyword name that is no Python
    identifier leaves its node out, and the program the analysis writes still parses with none of that text in it."""
    import ast

    from faultlib.detect.data.leakage.kedronodes import kedro_program

    hostile = 'x=1); __import__("os").system("touch pwned"); (y'
    _kedro(tmp_path, "rescaled_table")
    pipeline = tmp_path / "src/plant/pipelines/model/pipeline.py"
    text = pipeline.read_text().replace('dict(x_train="x_train"', '{' + repr(hostile) + ': "x_train", "x_train": "x_train"')
    text = text.replace('y_test="y_test")', '"y_test": "y_test"}').replace(
        'x_test="x_test", y_train="y_train", ', '"x_test": "x_test", "y_train": "y_train", ')
    text = text.replace('"r2"', '"r2 \\n import os"')
    pipeline.write_text(text)
    program, _ = kedro_program(tmp_path / "src/plant/pipelines/prep/nodes.py")
    ast.parse(program)
    assert "system" not in program and "import os" not in program
    assert not (tmp_path / "pwned").exists()
