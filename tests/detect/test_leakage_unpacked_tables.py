"""Tables unpacked from a comprehension keep their rows: ``a, b, c = [scaler.transform(d) for d in parts]`` is not
a statistic unpacked into names (statunpack.py only takes one reduction call, ``lo, hi = s.quantile([a, b])``)."""

from faultlib.detect.data.leakage import analyze_file

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
