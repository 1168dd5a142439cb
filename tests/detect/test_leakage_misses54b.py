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
