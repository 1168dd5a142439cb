"""The static leakage analysis on missed-leak kinds labelled as false negatives before stop 54 (issue 17, second
set), in both directions:

* a calibrator fitted once per band of the scored rows (``for band, part in frame.groupby('band')``, groupitems.py)
  and kept in a dict under the band (``per_band[band] = cal``, fittedslots.py), then applied band by band to the
  same validation rows and scored there, is trained on the rows it scores (wave 89, a click-through notebook's
  bucketized Platt layer); the same per-band calibrators fitted on a calibration part apart from the scored test
  part stay silent.

Every example is written for this test."""

from __future__ import annotations

from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_misses54 import alarms, line_of

# ---------------------------------------------------------------- a calibrator fitted per band of the scored rows

BANDS = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.metrics import log_loss

    clicks = pd.read_csv('clicks.csv')
    X = clicks.drop(columns=['clicked'])
    y = clicks['clicked']
    X_fit, X_hold, y_fit, y_hold = train_test_split(X, y, test_size=0.3, random_state=0)
    {calibration_part}
    first = LogisticRegression(max_iter=500).fit(X_fit, y_fit)
    p_cal = first.predict_proba({cal_x})[:, 1]
    p_hold = first.predict_proba(X_hold)[:, 1]
    table = pd.DataFrame({{'score': p_cal, 'label': {cal_y}}})
    table['band'] = pd.qcut(table['score'], q=5, duplicates='drop')
    per_band = {{}}
    for band, members in table.groupby('band'):
        layer = LogisticRegression()
        layer.fit(members[['score']].values, members['label'].values)
        per_band[band] = layer


    def calibrated(scores, bands, layers):
        out = np.zeros_like(scores)
        for b in np.unique(bands):
            sel = bands == b
            out[sel] = layers[b].predict_proba(scores[sel].reshape(-1, 1))[:, 1]
        return out


    hold_bands = pd.cut(p_hold, bins=table['band'].cat.categories)
    print(log_loss(y_hold, calibrated(p_hold, hold_bands, per_band)))
"""


def test_a_calibrator_fitted_per_band_of_the_scored_rows_is_trained_on_them(tmp_path):
    path = write(tmp_path, "bands.py", BANDS.format(calibration_part="", cal_x="X_hold", cal_y="y_hold"))
    assert alarms(path) == [("trained_on_test", line_of(path, "layer.fit("))]


def test_per_band_calibrators_fitted_on_a_calibration_part_stay_silent(tmp_path):
    path = write(tmp_path, "bands.py", BANDS.format(
        calibration_part="X_fit, X_cal, y_fit, y_cal = train_test_split(X_fit, y_fit, test_size=0.25, random_state=0)",
        cal_x="X_cal", cal_y="y_cal"))
    assert alarms(path) == []


# ---------------------------------------------------------------- a search's choice typed in by another script

LOADER = """\
    import pickle
    from surprise import Dataset, Reader
    from surprise.model_selection import cross_validate


    def read_stars():
        return Dataset.load_from_file('stars.csv', reader=Reader(line_format='user item rating', sep=','))


    def save_model(name, algo):
        with open(name + '.pkl', 'wb') as f:
            pickle.dump(algo, f)


    def load_model(name):
        with open(name + '.pkl', 'rb') as f:
            return pickle.load(f)


    def folds_report(algo, data, folds=5):
        return cross_validate(algo, data, measures=['rmse'], cv=folds)
"""

SEARCH = """\
    from surprise import SVD
    from surprise.model_selection import GridSearchCV
    from stars_io import read_stars

    data = read_stars()
    grid = {'n_factors': [8, 16, 32], 'lr_all': [0.002, 0.005]}
    finder = GridSearchCV(SVD, grid, measures=['rmse'], cv=5)
    finder.fit(data)
    print(finder.best_params['rmse'])
"""

TRAIN = """\
    from surprise import SVD
    from stars_io import read_stars, save_model

    data = read_stars()
    algo = SVD({args})
    algo.fit(data.build_full_trainset())
    save_model('svd_model', algo)
"""

EVALUATE = """\
    from stars_io import folds_report, load_model, read_stars

    data = read_stars()
    {body}
"""


def _project(tmp_path, args: str, body: str):
    write(tmp_path, "stars_io.py", LOADER)
    write(tmp_path, "train_svd.py", TRAIN.format(args=args))
    write(tmp_path, "evaluate_svd.py", EVALUATE.format(body=body))
    return write(tmp_path, "search_svd.py", SEARCH)


def test_a_search_whose_choice_another_script_types_in_and_cross_validates_is_reported_at_its_fit(tmp_path):
    path = _project(tmp_path, "n_factors=16, lr_all=0.005", "print(folds_report(load_model('svd_model'), data))")
    assert alarms(path) == [("trained_on_test", line_of(path, "finder.fit("))]


def test_a_typed_in_model_left_at_defaults_or_scored_on_a_held_out_split_stays_silent(tmp_path):
    defaults = _project(tmp_path / "a", "", "print(folds_report(load_model('svd_model'), data))")
    assert alarms(defaults) == []
    held_out = _project(tmp_path / "b", "n_factors=16", "from surprise import accuracy\n"
                        "    from surprise.model_selection import train_test_split\n"
                        "    fit_set, held = train_test_split(data, test_size=0.2)\n"
                        "    print(accuracy.rmse(load_model('svd_model').test(held)))")
    assert alarms(held_out) == []


# ---------------------------------------------------------------- hand-written weights of evidence before the CV

WOE = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score, train_test_split

    loans = pd.read_csv('loans.csv')
    fit_part, test_part = train_test_split(loans, test_size=0.25, random_state=1)
    binned = ['salary_band', 'tenure_band']
    kinds = ['sector', 'city', 'channel', 'housing', 'marital', 'education', 'car', 'phone', 'email', 'contract']
    band_tabs = []
    for name in binned:
        band_tabs.append(pd.crosstab(fit_part[name], fit_part['bad']))
    kind_tabs = []
    for name in kinds:
        kind_tabs.append(pd.crosstab(fit_part[name], fit_part['bad']))
    weights = {{}}
    for tab in band_tabs + kind_tabs:
        share_good, share_bad = tab[0] / tab[0].sum(), tab[1] / tab[1].sum()
        weights[tab.index.name] = np.log(share_good / share_bad).to_dict()


    def encoded(rows):
        out = rows[binned + kinds].copy()
        for name in out.columns:
            out[name] = out[name].map(weights[name])
        return out


    {score}
"""


def test_weights_of_evidence_from_crosstabs_of_every_training_row_before_their_cv_are_fits_outside_it(tmp_path):
    path = write(tmp_path, "scorecard.py", WOE.format(
        score="print(cross_val_score(LogisticRegression(), encoded(fit_part), fit_part['bad'], cv=5).mean())"))
    assert alarms(path) == [("fit_outside_cv", line_of(path, t)) for t in (
        "band_tabs.append(", "kind_tabs.append(")]


def test_weights_of_evidence_from_the_training_part_scored_on_the_test_part_stay_silent(tmp_path):
    path = write(tmp_path, "scorecard.py", WOE.format(
        score="model = LogisticRegression().fit(encoded(fit_part), fit_part['bad'])\n"
              "    print(model.score(encoded(test_part), test_part['bad']))"))
    assert alarms(path) == []
