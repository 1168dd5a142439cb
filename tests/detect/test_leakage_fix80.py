"""Kinds found by the held-out leakage wave 80 (gene expression, QSAR, peptides; issue 17, stop 51), in both
directions: each new rule's case found (or silenced) and its look-alike left as it was. Every example is written
for this test."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.pictureembeds import picture_embedding
from faultlib.findings import Severity
from tests.detect.leakage_source import alarms

# ---------------------------------------------------------------- experiment grids whose rows only record conditions

# training-set fractions x label-noise levels, each condition's test score stored in a row; {model} is the model
CONDITIONS = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

table = pd.read_csv("solubility.csv")
X_train, X_test, y_train, y_test = train_test_split(table.drop(columns="logS"), table["logS"], random_state=1)
rows = []
for share in [0.25, 0.5, 1.0]:
    for noise in [0.0, 0.1, 0.3]:
        n = int(len(X_train) * share)
        y_noisy = y_train[:n] + np.random.normal(0, noise, n)
        info = {{"share": share, "noise": noise}}
        model = {model}
        model.fit(X_train[:n], y_noisy)
        rows.append({{**info, "r2": model.score(X_test, y_test)}})
pd.DataFrame(rows).to_csv("conditions.csv")
"""


def test_a_grid_of_experiment_conditions_recorded_in_rows_is_no_search(tmp_path: Path) -> None:
    found = alarms(tmp_path, CONDITIONS.format(model="RandomForestRegressor(random_state=0)"))
    assert not any(kind == "tuned_on_test" for kind, _ in found)


def test_a_grid_of_model_settings_recorded_in_rows_is_still_read_off(tmp_path: Path) -> None:
    text = CONDITIONS.replace("share in [0.25, 0.5, 1.0]", "depth in [2, 4, 8]").replace(
        "noise in [0.0, 0.1, 0.3]", "leaves in [1, 5, 10]").replace('"share": share, "noise": noise',
                                                                     '"depth": depth, "leaves": leaves')
    text = text.replace("int(len(X_train) * share)", "len(X_train)").replace(
        "np.random.normal(0, noise, n)", "0")
    found = alarms(tmp_path, text.format(
        model="RandomForestRegressor(max_depth=depth, min_samples_leaf=leaves)"))
    assert any(kind == "tuned_on_test" for kind, _ in found)


# a featurisation radius for each label column of a multi-task table; {key} feeds the loop over columns
ENDPOINTS = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

assays = pd.read_csv("assays.csv")


def fingerprint(smiles, radius):
    return pd.DataFrame([[hash((s, radius, b)) % 2 for b in range(64)] for s in smiles])


def measured(table, column):
    return table[table[column].notna()]


results = []
for radius in [1, 2, 3]:
    for {key} in ["clearance", "permeability"]:
        rows = measured(assays, {target})
        X = fingerprint(rows["smiles"], radius=radius)
        y = rows[{target}]
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        model = Ridge({setting}).fit(X_train, y_train)
        print(radius, {key}, model.score(X_test, y_test))
"""


def test_a_loop_over_label_columns_is_no_axis_of_a_grid(tmp_path: Path) -> None:
    found = alarms(tmp_path, ENDPOINTS.format(key="endpoint", target="endpoint", setting=""))
    assert not any(kind == "tuned_on_test" for kind, _ in found)


def test_a_radius_crossed_with_a_model_setting_is_still_read_off(tmp_path: Path) -> None:
    text = ENDPOINTS.replace('["clearance", "permeability"]', "[0.1, 1.0, 10.0]")
    found = alarms(tmp_path, text.format(key="alpha", target='"clearance"', setting="alpha=alpha"))
    assert any(kind == "tuned_on_test" for kind, _ in found)


# ---------------------------------------------------------------- a development part split against an external part

DEVELOPMENT = """\
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression

frame = pd.read_csv("actives.csv")
X = frame.drop(columns="active").to_numpy()
y = frame["active"].to_numpy()


def hold_out(n, seed):
    order = np.random.RandomState(seed).permutation(n)
    return order[: int(0.8 * n)], order[int(0.8 * n):]


{first}, {second} = hold_out(len(X), 0)
desc_dev_train = X[{first}]
desc_outside = X[{second}]
scaler = StandardScaler().fit(desc_dev_train)
desc_dev_scaled = scaler.transform(desc_dev_train)
model = LogisticRegression().fit(desc_dev_scaled, y[{first}])
print(model.score(scaler.transform(desc_outside), y[{second}]))
"""


def test_dev_split_against_an_external_part_names_training_rows(tmp_path: Path) -> None:
    assert alarms(tmp_path, DEVELOPMENT.format(first="dev_idx", second="ext_idx")) == set()


def test_dev_without_an_external_counterpart_keeps_its_held_out_reading(tmp_path: Path) -> None:
    found = alarms(tmp_path, DEVELOPMENT.format(first="fit_idx", second="other_idx"))
    assert ("fit_before_split", 19) in found


# ---------------------------------------------------------------- an embedding fitted for a figure

EMBEDDING = """\
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from sklearn.manifold import TSNE
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

cells = pd.read_csv("cells.csv")
X_train, X_test, y_train, y_test = train_test_split(cells.drop(columns="type"), cells["type"], random_state=0)
print(SVC().fit(X_train, y_train).score(X_test, y_test))
emb = TSNE(n_components=2).fit_transform(np.vstack([X_train, X_test]))
tr_emb = emb[: len(X_train)]
te_emb = emb[len(X_train):]
plt.scatter(tr_emb[:, 0], tr_emb[:, 1])
plt.scatter(te_emb[:, 0], te_emb[:, 1])
plt.savefig("map.png")
{use}
"""


def test_a_tsne_map_of_train_and_test_rows_drawn_only_is_info(tmp_path: Path) -> None:
    assert alarms(tmp_path, EMBEDDING.format(use="")) == set()


def test_only_manifold_learners_for_figures_ignore_a_held_out_name_on_their_output() -> None:
    # the wave-80 shape (a held-out name on a slice of the embedding, with no model after it) needs the whole
    # checkout to reproduce; the rule itself: t-SNE/UMAP/MDS are pictures, PCA and SVD stay transformers
    assert picture_embedding("TSNE") and picture_embedding("umap.UMAP") and picture_embedding("MDS")
    assert not picture_embedding("PCA") and not picture_embedding("TruncatedSVD") and not picture_embedding("Isomap")


def test_a_tsne_embedding_that_trains_a_model_is_still_an_alarm(tmp_path: Path) -> None:
    found = alarms(tmp_path, EMBEDDING.format(use="print(SVC().fit(tr_emb, y_train).score(te_emb, y_test))"))
    assert ("fit_on_test", 11) in found or ("fit_before_split", 11) in found


# ---------------------------------------------------------------- statistics of residuals for a report

RESIDUALS = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

data = pd.read_csv("binding.csv")
X_train, X_test, y_train, y_test = train_test_split(data.drop(columns="bound"), data["bound"], random_state=0)
model = LogisticRegression().fit(X_train, y_train)
p_test = model.predict_proba(X_test)[:, 1]


def standardise(v):
    return (v - np.mean(v)) / np.std(v)


{arg} = {value}
table = pd.DataFrame({{"z": standardise({arg})}})
table.to_csv("{name}.csv")
"""


def test_standardised_residuals_of_test_predictions_are_no_fit(tmp_path: Path) -> None:
    found = alarms(tmp_path, RESIDUALS.format(arg="test_resid", value="y_test.to_numpy() - p_test", name="williams"))
    assert found == set()


def test_the_same_helper_on_a_test_feature_column_is_still_a_statistic_of_the_test_rows(tmp_path: Path) -> None:
    found = alarms(tmp_path, RESIDUALS.format(arg="test_mass", value='X_test["mass"].to_numpy()', name="mass"))
    assert any(kind == "fit_on_test" for kind, _ in found)


# ---------------------------------------------------------------- a hand-written variance filter before the CV

SPREAD = """\
import pandas as pd
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.svm import SVC

expr = pd.read_csv("microarray.csv")
y = expr.pop("subtype")
{filter}
search = GridSearchCV(SVC(), {{"C": [1, 10]}}, cv=5).fit(expr, y)
print(search.best_score_)
"""


def test_columns_kept_by_their_variance_over_every_sample_before_a_search_are_a_fit(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 7) in alarms(tmp_path, SPREAD.format(filter="expr = expr.loc[:, expr.var() > 0.5]"))


def test_columns_kept_by_their_range_before_a_search_are_a_fit(tmp_path: Path) -> None:
    found = alarms(tmp_path, SPREAD.format(filter="expr = expr.loc[:, expr.max() - expr.min() > 2]"))
    assert ("fit_outside_cv", 7) in found


def test_columns_kept_by_their_name_are_no_fit(tmp_path: Path) -> None:
    found = alarms(tmp_path, SPREAD.format(filter="expr = expr.loc[:, expr.columns.str.startswith('probe')]"))
    assert found == set()


def test_a_variance_filter_of_the_training_part_only_stays_silent(tmp_path: Path) -> None:
    text = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

expr = pd.read_csv("microarray.csv")
y = expr.pop("subtype")
X_train, X_test, y_train, y_test = train_test_split(expr, y, random_state=0)
X_train = X_train.loc[:, X_train.std() > 0.1]
X_test = X_test[X_train.columns]
print(SVC().fit(X_train, y_train).score(X_test, y_test))
"""
    assert alarms(tmp_path, text) == set()


# ---------------------------------------------------------------- one Keras model across repeated splits

REPEATS = """\
import numpy as np
from sklearn.model_selection import train_test_split
from tensorflow import keras

X = np.load("signals.npy")
y = np.load("labels.npy")
{before}
for repeat in range(5):
    X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.5)
{inside}
    net.fit(X_a, y_a, epochs=20)
    print(net.evaluate(X_b, y_b))
"""
BUILD = """net = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
net.compile(optimizer="adam", loss="sparse_categorical_crossentropy")"""


def test_one_keras_model_refitted_across_repeated_splits_carries_test_rows(tmp_path: Path) -> None:
    assert ("trained_on_test", 12) in alarms(tmp_path, REPEATS.format(before=BUILD, inside=""))


def test_a_keras_model_built_on_each_split_stays_silent(tmp_path: Path) -> None:
    inside = "\n".join("    " + line for line in BUILD.splitlines())
    assert not any(kind == "trained_on_test" for kind, _ in alarms(
        tmp_path, REPEATS.format(before="", inside=inside)))


def test_weights_set_back_on_each_split_stay_silent(tmp_path: Path) -> None:
    text = REPEATS.format(before=BUILD + "\nstart = net.get_weights()", inside="    net.set_weights(start)")
    assert not any(kind == "trained_on_test" for kind, _ in alarms(tmp_path, text))


# ---------------------------------------------------------------- a wrapper selector the project writes itself

WRAPPER = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier


class {cls}:
    def __init__(self, {param}, rounds=20):
        self.{param} = {param}
        self.rounds = rounds

    def select_features(self, X, y):
        best, best_mask = -1.0, np.ones(X.shape[1], dtype=bool)
        for _ in range(self.rounds):
            mask = np.random.rand(X.shape[1]) > 0.5
            score = {score}
            if score > best:
                best, best_mask = score, mask
        return X[:, best_mask]


genes = pd.read_csv("tumours.csv")
labels = genes.pop("grade").to_numpy()
values = genes.to_numpy()
chosen = {cls}({param}=KNeighborsClassifier()).select_features(values, labels)
print(cross_val_score(KNeighborsClassifier(), chosen, labels, cv=5).mean())
"""


def test_a_genetic_wrapper_selector_over_every_sample_before_the_cv_is_a_supervised_fit(tmp_path: Path) -> None:
    text = WRAPPER.format(cls="EvolvedSubset", param="estimator",
                          score="cross_val_score(self.estimator, X[:, mask], y, cv=3).mean()")
    assert ("fit_outside_cv", 25) in alarms(tmp_path, text)


def test_a_selector_class_that_holds_no_model_stays_as_it_was(tmp_path: Path) -> None:
    text = WRAPPER.format(cls="RandomSubset", param="rng_seed", score="float(np.random.rand())")
    assert not any(line == 25 for _, line in alarms(tmp_path, text))


def test_every_new_finding_is_reported_at_its_severity(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(REPEATS.format(before=BUILD, inside=""))
    report, _ = analyze_file(str(script), alone=True)
    carried = [f for f in report.findings if f.kind == "trained_on_test"]
    assert carried and all(f.severity == Severity.ERROR for f in carried)
    assert carried[0].evidence["variable"] == "net"


# the same search written as a function; {body} scores a model on column subsets, or does not
SEARCH_FUNCTION = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.linear_model import LogisticRegression


def forward_pick(X, y, model, rounds=5):
    chosen = np.zeros(X.shape[1], dtype=bool)
    for _ in range(rounds):
        gains = []
        for j in np.flatnonzero(~chosen):
            trial = chosen.copy()
            trial[j] = True
            {body}
            gains.append((gain, j))
        chosen[max(gains)[1]] = True
    return X[:, chosen]


peptides = pd.read_csv("peptides.csv")
target = peptides.pop("active").to_numpy()
features = peptides.to_numpy()
{use}
"""
SCORED = "gain = cross_val_score(model, X[:, trial], y, cv=3).mean()"
BEFORE_CV = """subset = forward_pick(features, target, LogisticRegression())
print(cross_val_score(LogisticRegression(), subset, target, cv=5).mean())"""


def test_a_wrapper_search_function_over_every_sample_before_the_cv_is_a_supervised_fit(tmp_path: Path) -> None:
    found = alarms(tmp_path, SEARCH_FUNCTION.format(body=SCORED, use=BEFORE_CV))
    assert ("fit_outside_cv", 23) in found


def test_a_column_sampler_that_scores_no_model_stays_silent(tmp_path: Path) -> None:
    text = SEARCH_FUNCTION.format(body="gain = float(trial.sum())", use=BEFORE_CV)
    assert alarms(tmp_path, text) == set()


def test_a_wrapper_search_on_the_training_part_only_stays_silent(tmp_path: Path) -> None:
    use = """X_tr, X_te, y_tr, y_te = train_test_split(features, target, random_state=0)
picked = forward_pick(X_tr, y_tr, LogisticRegression())
print(LogisticRegression().fit(picked, y_tr).predict(X_te[:, :picked.shape[1]]))"""
    found = alarms(tmp_path, SEARCH_FUNCTION.format(body=SCORED, use=use))
    assert not any(kind in ("fit_outside_cv", "fit_before_split", "fit_on_test") for kind, _ in found)
