"""The static leakage analysis on the kinds a held-out wave showed (issue 17, wave 65: audio-feature notebooks
drawing decision surfaces, churn models with recursive feature elimination), each in both directions: the leak found
at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a projection of every row to two components, then a split into plainly named parts
PROJECT_THEN_SPLIT = """\
        from sklearn.svm import SVC
        flat = PCA(n_components=2).fit_transform(X)
        p_tr, p_te, q_tr, q_te = train_test_split(flat, y, test_size=0.5)
"""

#: an undersampled training part, one projection fitted on it and a second one fitted on the test part
SELECTION_ON_PROJECTIONS = """\
        from sklearn.feature_selection import RFECV, SelectKBest
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.metrics import classification_report
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, stratify=y)
        reducer = PCA(n_components=3)
        low_tr = reducer.fit_transform(X_tr)
        low_te = reducer.fit_transform(X_te)
"""

LEAKS = {
    # the projection learnt from every row; the model trained on the training part is scored on the held-out one
    "a_projection_before_a_split_whose_held_out_part_is_scored": (PROJECT_THEN_SPLIT + """\
        clf = SVC().fit(p_tr, q_tr)
        print(clf.score(p_te[:, :2], q_te))
        """, [("fit_before_split", 2)]),
    # the held-out part trains a model and a metric then reads its predictions: it is evaluated (on its own
    # training rows: trained_on_test as well)
    "a_held_out_part_that_trains_a_model_and_is_then_scored_by_a_metric": (PROJECT_THEN_SPLIT + """\
        from sklearn.metrics import f1_score
        clf = SVC().fit(p_te, q_te)
        print(f1_score(q_te, clf.predict(p_te)))
        """, [("fit_before_split", 2), ("trained_on_test", 5)]),
    # RFECV's predict is its wrapped forest's prediction: the refitted projection of the test rows reaches a model
    "a_projection_refitted_on_the_test_part_predicted_by_recursive_feature_elimination": (
        SELECTION_ON_PROJECTIONS + """\
        chooser = RFECV(RandomForestClassifier(), cv=5, scoring="recall")
        chooser = chooser.fit(low_tr, y_tr)
        print(classification_report(y_te, chooser.predict(low_te)))
        """, [("fit_outside_cv", 6), ("fit_on_test", 7)]),
}

HEALTHY = {
    # the split only thins the points: its "test" part trains the classifier whose regions are drawn over those
    # same points, the training part is never read and nothing held out is scored (heldouttrains.py)
    "a_projection_before_a_split_whose_held_out_part_only_trains_a_drawn_classifier": PROJECT_THEN_SPLIT + """\
        import matplotlib.pyplot as plt
        clf = SVC(kernel="linear")
        clf.fit(p_te, q_te)
        gx, gy = np.meshgrid(np.arange(p_te[:, 0].min(), p_te[:, 0].max(), 0.1), np.arange(-1, 1, 0.1))
        regions = clf.predict(np.c_[gx.ravel(), gy.ravel()])
        plt.contourf(gx, gy, regions.reshape(gx.shape))
        plt.scatter(p_te[:, 0], p_te[:, 1], c=q_te)
        """,
    # a selector without a predictor: the test part's own projection only goes through its transform, to a print
    "a_projection_refitted_on_the_test_part_only_reduced_by_a_univariate_selector": SELECTION_ON_PROJECTIONS + """\
        keep = SelectKBest(k=2).fit(low_tr, y_tr)
        print(keep.transform(low_te).shape)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_wave_65_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_wave_65_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
