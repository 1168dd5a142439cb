"""A features table cut at the training file's row count stacks train.csv's rows and test.csv's: a fit over it
before the cut is ``fit_on_test`` (trainrows.py), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str) -> set[tuple[str, int]]:
    return alarms(tmp_path, text, "shop.py")


# features of train.csv and test.csv built elsewhere into one file, scaled whole, cut at len(train.csv)
STACKED_FEATURES = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import Ridge

orders = pd.read_csv("orders_train.csv")
later = pd.read_csv("orders_test.csv")
n_orders = orders.shape[0]
feats = pd.read_csv("features_all.csv")
scaled = StandardScaler().fit_transform(feats)
X_fit = scaled[:n_orders]
X_test = scaled[n_orders:]
model = Ridge().fit(X_fit, orders["basket"])
print(model.predict(X_test))
"""

# the same table cut at a fraction of its own rows: a split of labelled rows, fit_before_split as before
OWN_FRACTION = STACKED_FEATURES.replace("n_orders = orders.shape[0]", "n_orders = int(0.8 * len(feats))").replace(
    'feats = pd.read_csv("features_all.csv")\n', "").replace('orders = pd.read_csv("orders_train.csv")\n',
                                                          'orders = pd.read_csv("orders_train.csv")\nfeats = '
                                                          'pd.read_csv("features_all.csv")\n')


def test_scale_over_table_cut_at_training_file_count_is_fit_on_test(tmp_path: Path) -> None:
    assert _alarms(tmp_path, STACKED_FEATURES) == {("fit_on_test", 9)}


def test_cut_at_len_of_training_file_inline(tmp_path: Path) -> None:
    text = STACKED_FEATURES.replace("scaled[:n_orders]", "scaled[:len(orders)]").replace(
        "scaled[n_orders:]", "scaled[len(orders):]")
    assert _alarms(tmp_path, text) == {("fit_on_test", 9)}


def test_cut_at_a_fraction_of_the_table_stays_fit_before_split(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in _alarms(tmp_path, OWN_FRACTION)
    assert not any(kind == "fit_on_test" for kind, _ in _alarms(tmp_path, OWN_FRACTION))


def test_without_a_test_file_the_count_is_no_test_boundary(tmp_path: Path) -> None:
    text = STACKED_FEATURES.replace('later = pd.read_csv("orders_test.csv")\n', "")
    assert not any(kind == "fit_on_test" for kind, _ in _alarms(tmp_path, text))


# topics over every comment only define the cluster labels a classifier then predicts from the word counts
TOPICS_AS_LABELS = """\
from sklearn.cluster import KMeans
from sklearn.decomposition import NMF
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
import pandas as pd

notes = pd.read_csv("tickets.csv")
counts = CountVectorizer().fit(notes["body"][:100]).transform(notes["body"])
themes = NMF(n_components=6).fit_transform(counts)
groups = KMeans(5).fit_predict(themes)
c_tr, c_te, g_tr, g_te = train_test_split(counts, groups, random_state=1)
clf = LogisticRegression().fit(c_tr, g_tr)
print(clf.score(c_te, g_te))
"""

# the same cluster ids used as a feature column beside the counts: the topics reach the model's inputs
TOPICS_AS_FEATURE = TOPICS_AS_LABELS.replace(
    "c_tr, c_te, g_tr, g_te = train_test_split(counts, groups, random_state=1)",
    "c_tr, c_te, g_tr, g_te = train_test_split(groups.reshape(-1, 1), notes['urgent'], random_state=1)")


def _all_kinds(tmp_path: Path, text: str) -> dict[int, str]:
    script = tmp_path / "topics.py"
    script.write_text(text)
    report, _ = analyze_file(str(script), alone=True)
    return {f.location.get("line"): f.severity.name for f in report.findings if f.kind == "fit_before_split"}


def test_topics_that_only_build_the_labels_are_no_feature_leak(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TOPICS_AS_LABELS) == set()
    assert _all_kinds(tmp_path, TOPICS_AS_LABELS).get(10) == "INFO"  # still listed, below the fail-on level


def test_topics_whose_clusters_are_a_feature_still_leak(tmp_path: Path) -> None:
    assert ("fit_before_split", 10) in _alarms(tmp_path, TOPICS_AS_FEATURE)


# a training helper scales the rows it is given, then keeps a tenth of them aside as its early-stopping monitor
HELPER_MONITOR = """\
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler


def fit_net(X, y, net):
    X = StandardScaler().fit_transform(X)
    order = np.random.RandomState(0).permutation(len(X))
    cut = len(X) // 10
    X_val, y_val = X[order[:cut]], y[order[:cut]]
    X_fit, y_fit = X[order[cut:]], y[order[cut:]]
    best = None
    for epoch in range(50):
        net.step(X_fit, y_fit)
        loss = net.loss(X_val, y_val)
        if best is None or loss < best:
            best = loss
        else:
            break
    return net


games = pd.read_csv("games.csv")
fitted = fit_net(games.drop(columns="won").values, games["won"].values, object())
"""

# the same helper cutting its rows for a test named as such, and one scoring a model on its validation rows
HELPER_TEST = HELPER_MONITOR.replace("X_val, y_val", "X_test, y_test").replace("net.loss(X_val, y_val)",
                                                                              "net.loss(X_test, y_test)")
HELPER_SCORED = HELPER_MONITOR.replace("    best = None\n", "    from sklearn.linear_model import LogisticRegression\n"
                                       "    print(LogisticRegression().fit(X_fit, y_fit).score(X_val, y_val))\n"
                                       "    best = None\n")


def test_a_helpers_early_stopping_monitor_is_no_held_out_part(tmp_path: Path) -> None:
    assert _alarms(tmp_path, HELPER_MONITOR) == set()


def test_a_helpers_test_part_or_scored_validation_part_still_leaks(tmp_path: Path) -> None:
    assert ("fit_before_split", 7) in _alarms(tmp_path, HELPER_TEST)
    assert ("fit_before_split", 7) in _alarms(tmp_path, HELPER_SCORED)
