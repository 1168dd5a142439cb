"""The static leakage analysis on the kinds a held-out wave of portfolio and textbook notebooks showed (issue 17,
wave 68: columns winsorised by SciPy at quantiles of every row before the split, ...), each in both directions:
the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

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
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_68_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected
