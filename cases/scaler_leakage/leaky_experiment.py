"""The scaler_leakage experiment as it is often written: selection and scaling fitted on every row first.

Not run by the case: `faultlib check leakage` reads it (test_case.py), and the static analysis must
name both fits below as fit_outside_cv, the selector as an error (it read the labels).
"""

from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.preprocessing import StandardScaler

from repro import wide_table


def prepare(x, y, k=10):
    selected = SelectKBest(f_classif, k=k).fit_transform(x, y)   # sees every row and label
    return StandardScaler().fit_transform(selected)               # sees every row


def main(seed=0):
    x, y_null, _ = wide_table(seed, 80, 2000)
    features = prepare(x, y_null)
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    scores = cross_val_score(LogisticRegression(max_iter=1000), features, y_null, cv=cv)
    print(f"accuracy {scores.mean():.3f} on a shuffled outcome")


if __name__ == "__main__":
    main()
