"""Stop 51's final review: alarms of the stop's new rules on the corpus that were wrong, each with a look-alike.

Tables unpacked from a comprehension keep their rows: ``a, b, c = [scaler.transform(d) for d in parts]`` is not
a statistic unpacked into names (statunpack.py only takes one reduction call, ``lo, hi = s.quantile([a, b])``)."""

from faultlib.detect.data.leakage import analyze_file


def _kinds(tmp_path, name: str, text: str) -> set[str]:
    """The kinds of the findings of ``text`` analysed as ``tmp_path / name``."""
    path = tmp_path / name
    path.write_text(text)
    report, _ = analyze_file(str(path))
    return {f.kind for f in report.findings}

SOURCE = """
import pandas as pd
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import cross_validate, train_test_split
from sklearn.preprocessing import StandardScaler

homes = pd.read_csv("homes.csv")
rest, test = train_test_split(homes, test_size=0.2)
train, val = train_test_split(rest, test_size=0.25)
parts = [p[["rooms", "area"]] for p in (train, val, test)]
scaler = StandardScaler().fit(parts[0])
X_train, X_val, X_test = [scaler.transform(p) for p in parts]
wide = StandardScaler().fit_transform(X_train)
cross_validate(RidgeCV(), wide, train["price"], cv=4)
"""


def test_a_scaler_fitted_on_unpacked_training_rows_before_cv_is_found(tmp_path):
    path = tmp_path / "homes.py"
    path.write_text(SOURCE)
    report, _ = analyze_file(str(path))
    assert ("fit_outside_cv", 13) in {(f.kind, f.location["line"]) for f in report.findings}


WRAPPER = """
import numpy as np
import xgboost as xgb
from sklearn.model_selection import StratifiedKFold


class Booster:
    def fit(self, X, y, X_val, y_val):
        self.model = xgb.train({}, xgb.DMatrix(X, y), evals=[(xgb.DMatrix(X_val, y_val), "val")],
                               early_stopping_rounds=10)

    def evaluate(self, X, y):
        return float(np.mean(self.model.predict(xgb.DMatrix(X)).round() == y))

    def cross_validate(self, X, y):
        scores = []
        for tr, va in StratifiedKFold(5).split(X, y):
            self.fit(X[tr], y[tr], X[va], y[va])
            scores.append(self.evaluate(X[va], y[va]))
        return scores
"""


def test_a_class_calling_its_own_fit_per_fold_is_not_a_keras_model_carried_across_splits(tmp_path):
    assert "trained_on_test" not in _kinds(tmp_path, "booster.py", WRAPPER)


BOOSTED = """
import lightgbm as lgb
import pandas as pd
from sklearn.model_selection import KFold

shops = pd.read_csv("shops.csv")
X, y = shops.drop(columns="sales"), shops["sales"]
model = lgb.LGBMRegressor(n_estimators=500)
for tr, va in KFold(5, shuffle=True).split(X):
    model.fit(X.iloc[tr], y.iloc[tr], eval_set=[(X.iloc[va], y.iloc[va])], callbacks=[lgb.log_evaluation(100)])
    print(model.score(X.iloc[va], y.iloc[va]))
"""


def test_a_booster_refitted_per_fold_with_callbacks_is_not_carried_weights(tmp_path):
    assert "trained_on_test" not in _kinds(tmp_path, "shops.py", BOOSTED)


def test_a_keras_model_refitted_per_fold_for_some_epochs_still_is(tmp_path):
    assert "trained_on_test" in _kinds(tmp_path, "shops_nn.py", BOOSTED.replace("import lightgbm as lgb\n", "from tensorflow import keras\n").replace(
        "lgb.LGBMRegressor(n_estimators=500)", "keras.Sequential([keras.layers.Dense(1)])").replace(
        "eval_set=[(X.iloc[va], y.iloc[va])], callbacks=[lgb.log_evaluation(100)]", "epochs=5"))
