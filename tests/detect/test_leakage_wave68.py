"""The static leakage analysis on the kinds a held-out wave of portfolio and textbook notebooks showed (issue 17,
wave 68: columns winsorised by SciPy at quantiles of every row before the split; a fit before the split that made
the validation part, with a grid on that split's training part; names kept one by one off a selector's mask, then
cross-validated; a column's mode spelled by counts inside ``apply``; pixels already divided by 255 scaled by their
own ends), each in both directions: the leak found at its line, the healthy look-alike silent. Every example is
written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a table of made-up firm ratios with a bankruptcy flag
FIRMS = """\
        firms = pd.read_csv("firms.csv")
"""

#: a random split of the firms, a model fitted on one part and scored on the other
SPLIT_AND_SCORE = """\
        a, b = train_test_split(firms, random_state=0)
        model = LogisticRegression().fit(a.drop(columns=["failed"]), a["failed"])
        print(model.score(b.drop(columns=["failed"]), b["failed"]))
"""

#: a competition's training file beside its unlabelled test file: the notebook splits the training file itself
COMPETITION = """\
        from sklearn.model_selection import GridSearchCV
        train_rows = pd.read_csv("train_rows.csv")
        test_rows = pd.read_csv("test_rows.csv")
        labels = pd.read_csv("train_labels.csv")["active"]
"""

#: a wrapper selector with its own folds, fitted on every row of the table of the header
SELECTED = """\
        from sklearn.feature_selection import RFECV
        folds = KFold(n_splits=5)
        names = list(X.columns)
        chooser = RFECV(LogisticRegression(), cv=folds).fit(X, y)
"""

LEAKS = {
    # one ratio clipped at its own 5th/95th percentile over every firm, then the random split
    "a_column_winsorised_over_every_row_then_split": (FIRMS + """\
        from scipy.stats.mstats import winsorize
        firms["margin"] = winsorize(firms["margin"], limits=(0.05, 0.05))
""" + SPLIT_AND_SCORE, [("fit_before_split", 3)]),
    # the same spelled through the module path and the limits given by position
    "a_column_winsorised_through_the_module_path_then_split": (FIRMS + """\
        import scipy.stats as st
        firms["debt"] = st.mstats.winsorize(firms["debt"], (0.0, 0.1))
""" + SPLIT_AND_SCORE, [("fit_before_split", 3)]),
    # an alias of the function
    "a_column_winsorised_through_an_alias_then_split": (FIRMS + """\
        from scipy.stats import mstats
        cap = mstats.winsorize
        firms["cash"] = cap(firms["cash"], limits=[0.01, 0.01])
""" + SPLIT_AND_SCORE, [("fit_before_split", 4)]),
    # the kept names read off the selector's mask one pair at a time, then the same folds score the kept columns
    "names_kept_by_a_mask_read_pair_by_pair_then_cross_validated": (SELECTED + """\
        kept = []
        for position, pair in enumerate(list(zip(names, chooser.support_))):
            if pair[1] == True:
                kept.append(pair[0])
        print(cross_val_score(LogisticRegression(), table[kept], y, cv=folds).mean())
        """, [("fit_outside_cv", 4)]),
    "names_kept_by_a_mask_unpacked_in_the_loop_then_cross_validated": (SELECTED + """\
        kept = []
        for column, chosen in zip(names, chooser.support_):
            if chosen:
                kept.append(column)
        print(cross_val_score(LogisticRegression(), table[kept], y, cv=folds).mean())
        """, [("fit_outside_cv", 4)]),
    # every column's gaps filled with its most frequent value over every row (the mode spelled by counts)
    "every_column_filled_with_its_most_counted_value_through_apply_then_split": (FIRMS + """\
        firms = firms.apply(lambda col: col.fillna(col.value_counts().index[0]))
""" + SPLIT_AND_SCORE, [("fit_before_split", 2)]),
}

HEALTHY = {
    # no limits: SciPy clips nothing
    "winsorize_without_limits_clips_nothing": (FIRMS + """\
        from scipy.stats.mstats import winsorize
        firms["margin"] = winsorize(firms["margin"])
""" + SPLIT_AND_SCORE, []),
    # the bounds of the training part alone
    "only_the_training_part_winsorised": (FIRMS + """\
        from scipy.stats.mstats import winsorize
        a, b = train_test_split(firms, random_state=0)
        a["margin"] = winsorize(a["margin"], limits=(0.05, 0.05))
        model = LogisticRegression().fit(a.drop(columns=["failed"]), a["failed"])
        print(model.score(b.drop(columns=["failed"]), b["failed"]))
        """, []),
    # names kept by their type, not by a fit, then cross-validated
    "names_kept_by_their_dtype_then_cross_validated": ("""\
        kept = []
        for column, kind in zip(list(X.columns), list(X.dtypes)):
            if kind != object:
                kept.append(column)
        print(cross_val_score(LogisticRegression(), table[kept], y, cv=KFold(n_splits=5)).mean())
        """, []),
    # the selector fitted on the training part only, its kept names then scored on the held-out part
    "names_kept_by_a_mask_fitted_on_the_training_part": ("""\
        from sklearn.feature_selection import RFECV
        x_tr, x_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        chooser = RFECV(LogisticRegression(), cv=5).fit(x_tr, y_tr)
        kept = []
        for column, chosen in zip(list(X.columns), chooser.support_):
            if chosen:
                kept.append(column)
        print(LogisticRegression().fit(x_tr[kept], y_tr).score(x_te[kept], y_te))
        """, []),
    # the counts only printed per column; the gaps filled with a constant
    "every_column_filled_with_a_constant_through_apply_then_split": (FIRMS + """\
        print(firms.apply(lambda col: col.value_counts().index[0]))
        firms = firms.apply(lambda col: col.fillna(0))
""" + SPLIT_AND_SCORE, []),
    # test images already divided by 255, then min-max scaled with their own (format's) ends
    "test_pixels_divided_by_255_then_scaled_by_their_own_ends": ("""\
        (x_tr, y_tr), (x_te, y_te) = load_images()
        x_tr, x_te = x_tr / 255.0, x_te / 255.0
        x_te = x_te / 255.0
        x_te = x_te.reshape(len(x_te), -1)
        x_te = (x_te - x_te.min()) / (x_te.max() - x_te.min())
        print(LogisticRegression().fit(x_tr.reshape(len(x_tr), -1), y_tr).score(x_te, y_te))
        """, []),
}

#: look-alikes whose alarm keeps another kind
OTHER_KIND = {
    # raw test readings (never divided by 255) scaled by their own ends
    "test_readings_scaled_by_their_own_ends": ("""\
        x_tr, x_te, y_tr, y_te = train_test_split(X.values, y, random_state=0)
        x_te = (x_te - x_te.min()) / (x_te.max() - x_te.min())
        print(LogisticRegression().fit(x_tr, y_tr).score(x_te, y_te))
        """, [("fit_on_test", 2)]),
    # the grid searches the whole training file: that search is the finding (validation.py)
    "a_scaler_on_the_training_file_then_a_grid_on_all_of_it_and_a_split": (COMPETITION + """\
        scaled = MinMaxScaler().fit_transform(train_rows)
        GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}).fit(scaled, labels)
        x_tr, x_te, y_tr, y_te = train_test_split(scaled, labels, random_state=0)
        print(LogisticRegression().fit(x_tr, y_tr).score(x_te, y_te))
        """, [("fit_outside_cv", 5)]),
}

EXPECTED = {**LEAKS, **HEALTHY, **OTHER_KIND}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_68_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected
