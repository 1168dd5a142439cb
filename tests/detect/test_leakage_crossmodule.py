"""The static leakage analysis follows a fit into the project's own helper modules, packages and classes, in both
directions. Every example is a small project written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.session import session_members
from faultlib.findings import Severity


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _alarms(root: Path, entry: str) -> set[tuple[str, str, int]]:
    report, _ = analyze_file(str(root / entry))
    return {(f.kind, Path(f.location.get("file", "")).name, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


# a static method of a class in a package module, reached through a folder the script puts on sys.path
WARD_HELPER = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler


class Ward:
    @staticmethod
    def load():
        return pd.read_csv("stays.csv")

    @staticmethod
    def matrix(cfg):
        stays = Ward.load()
        numbers = stays[["age", "days"]]
        if cfg["scale"]:
            scaler = StandardScaler()
            scaler.fit(numbers.values)
            numbers = pd.DataFrame(scaler.transform(numbers.values), columns=numbers.columns)
        return numbers.values, stays["back_within_30"].values
"""

WARD_RAW_HELPER = """\
import pandas as pd


class Ward:
    @staticmethod
    def matrix(cfg):
        stays = pd.read_csv("stays.csv")
        return stays[["age", "days"]].values, stays["back_within_30"].values
"""

WARD_CV = """\
import sys
sys.path.append('..')
from clinic import records
from sklearn.model_selection import KFold
from sklearn.linear_model import LogisticRegression

X, y = records.Ward.matrix({"scale": True})
for train_idx, test_idx in KFold(n_splits=5, shuffle=True).split(X):
    model = LogisticRegression().fit(X[train_idx], y[train_idx])
    print(model.score(X[test_idx], y[test_idx]))
"""


def test_fit_in_a_static_method_of_a_package_module_on_sys_path(tmp_path):
    _write(tmp_path, {"clinic/__init__.py": "", "clinic/records.py": WARD_HELPER, "experiments/run_cv.py": WARD_CV})
    assert tmp_path / "clinic" / "records.py" in session_members(tmp_path / "experiments" / "run_cv.py")
    assert ("fit_outside_cv", "records.py", 16) in _alarms(tmp_path, "experiments/run_cv.py")


def test_helper_that_only_reads_rows_stays_silent(tmp_path):
    _write(tmp_path, {"clinic/__init__.py": "", "clinic/records.py": WARD_RAW_HELPER, "experiments/run_cv.py": WARD_CV})
    assert _alarms(tmp_path, "experiments/run_cv.py") == set()


# a function re-exported by a package's __init__ (relative import), fitted on every row before the split
PREP = """\
from sklearn.preprocessing import MinMaxScaler


def squash(table):
    return MinMaxScaler().fit_transform(table)
"""

TRAIN_AFTER_SQUASH = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC
from tools import squash

readings = pd.read_csv("readings.csv")
X = squash(readings[["volts", "amps"]])
X_tr, X_te, y_tr, y_te = train_test_split(X, readings["fault"], test_size=0.2)
print(SVC().fit(X_tr, y_tr).score(X_te, y_te))
"""

TRAIN_SQUASH_TRAINING_PART = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC
from tools import squash

readings = pd.read_csv("readings.csv")
X_tr, X_te, y_tr, y_te = train_test_split(readings[["volts", "amps"]], readings["fault"], test_size=0.2)
print(SVC().fit(squash(X_tr), y_tr).predict(X_tr[:3]))
"""


def test_fit_in_a_function_an_init_re_exports(tmp_path):
    _write(tmp_path, {"tools/__init__.py": "from .prep import squash\n", "tools/prep.py": PREP,
                      "train.py": TRAIN_AFTER_SQUASH})
    assert ("fit_before_split", "prep.py", 5) in _alarms(tmp_path, "train.py")


def test_re_exported_function_fitted_on_the_training_part_stays_silent(tmp_path):
    _write(tmp_path, {"tools/__init__.py": "from .prep import squash\n", "tools/prep.py": PREP,
                      "train.py": TRAIN_SQUASH_TRAINING_PART})
    assert _alarms(tmp_path, "train.py") == set()


# a list of feature blocks appended under a condition, stacked through a comprehension, then cross-validated
BLOCKS = """\
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import KFold
from sklearn.linear_model import Ridge


def design(cfg):
    sales = pd.read_csv("sales.csv")
    blocks = []
    if cfg["numeric"]:
        {fit}
        blocks.append(numeric)
    keep = np.ones(len(sales)) == 1
    return np.hstack([b[keep] for b in blocks]), sales["units"].values[keep]


X, y = design({{"numeric": True}})
for tr, te in KFold(5, shuffle=True).split(X):
    print(Ridge().fit(X[tr], y[tr]).score(X[te], y[te]))
"""


def test_blocks_appended_in_a_branch_keep_their_fit_through_a_comprehension(tmp_path):
    fit = 'numeric = StandardScaler().fit_transform(sales[["price", "promo"]])'
    _write(tmp_path, {"design.py": BLOCKS.format(fit=fit)})
    assert ("fit_outside_cv", "design.py", 12) in _alarms(tmp_path, "design.py")


def test_blocks_without_a_fit_stay_silent(tmp_path):
    _write(tmp_path, {"design.py": BLOCKS.format(fit='numeric = np.log1p(sales[["price", "promo"]].values)')})
    assert _alarms(tmp_path, "design.py") == set()


# a frame an object keeps, changed through `self.df[col] = ...` in one method and returned by another
CLEANER = """\
import pandas as pd
from sklearn.model_selection import GridSearchCV
from sklearn.ensemble import RandomForestClassifier


class Cleaner:
    def __init__(self, df):
        self.df = df.copy()

    def fill_usage(self):
        self.df["usage"] = {fill}

    def result(self):
        return self.df


c = Cleaner(pd.read_csv("churn.csv"))
c.fill_usage()
clean = c.result()
search = GridSearchCV(RandomForestClassifier(), {{"max_depth": [3, 5]}}, cv=5)
search.fit(clean.drop(columns=["churn"]), clean["churn"])
"""


def test_statistic_written_into_a_frame_an_object_keeps(tmp_path):
    fill = 'self.df.groupby("plan")["usage"].transform(lambda s: s.fillna(s.median()))'
    _write(tmp_path, {"clean.py": CLEANER.format(fill=fill)})
    assert ("fit_outside_cv", "clean.py", 11) in _alarms(tmp_path, "clean.py")


def test_constant_written_into_a_frame_an_object_keeps_stays_silent(tmp_path):
    _write(tmp_path, {"clean.py": CLEANER.format(fill='self.df["usage"].fillna(0)')})
    assert _alarms(tmp_path, "clean.py") == set()


# the element-wise mean of a list of models' test predictions (a blend) is no statistic of the test rows; a mean of
# the test part's own rows still is
BLEND_OF_RUNS = """\
import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

table = pd.read_csv("orders.csv")
X_tr, X_te, y_tr, y_te = train_test_split(table.drop(columns=["late"]), table["late"], test_size=0.2)


def run_all(runs):
    all_test = [r["test"] for r in runs.values()]
    blend = np.mean(all_test, axis=0)
    pd.DataFrame({{"late": blend}}).to_csv("submission.csv", index=False)
{tail}
"""


def test_mean_across_a_list_of_test_predictions_is_no_fit(tmp_path):
    _write(tmp_path, {"blend.py": BLEND_OF_RUNS.format(tail="")})
    assert _alarms(tmp_path, "blend.py") == set()


def test_mean_of_the_test_rows_is_still_a_fit_on_test(tmp_path):
    tail = "\ncentre = np.mean(X_te, axis=0)\nmodel = LogisticRegression().fit(X_tr - centre, y_tr)\n" \
           "print(model.score(X_te - centre, y_te))\n"
    _write(tmp_path, {"blend.py": BLEND_OF_RUNS.format(tail=tail)})
    assert ("fit_on_test", "blend.py", 16) in _alarms(tmp_path, "blend.py")


def test_a_folder_put_on_sys_path_outside_the_reach_of_the_imports_is_not_read(tmp_path):
    """``sys.path.append`` with a literal path keeps to the folders the import resolution reaches (the script's
    folder and its nearest ancestors): ``/etc``-like folders far above it, or reached through a symlinked folder,
    join nothing."""
    project = tmp_path / "a" / "b" / "c" / "project"
    _write(tmp_path, {"elsewhere/clinic.py": WARD_HELPER.replace("class Ward", "class Far"),
                      "a/b/c/project/real/clinic2.py": WARD_HELPER})
    (project / "experiments").mkdir(parents=True)
    (project / "experiments" / "linked").symlink_to(project / "real")
    far = "../" * 5 + "elsewhere"
    for literal, module in ((far, "clinic"), (str(tmp_path / "elsewhere"), "clinic"), ("linked", "clinic2")):
        script = project / "experiments" / "run.py"
        script.write_text(f"import sys\nsys.path.append({literal!r})\nimport {module}\n")
        assert session_members(script) == [script], literal
    script.write_text("import sys\nsys.path.append('../real')\nimport clinic2\n")
    assert session_members(script) == [project / "real" / "clinic2.py"] + [script]
