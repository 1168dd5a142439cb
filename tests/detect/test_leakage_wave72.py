"""The static leakage analysis on the kinds a held-out wave of Kaggle fraud and credit solutions showed (issue 17,
wave 72: a group statistic whose reduction name is held in a loop variable, ``agg([how])``, over train and test
stacked; a statistic inside a block switched off with ``if False:``; a statistic written into a column that every
feature list, written as "every column but these", leaves out; a statistic written into a column the modelled list
of names does not name; frames handed back by a helper the analysis cannot see, asked for their missing-value
mask before a count over train and test), each in both directions: the leak found at its
line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a competition's labelled training file beside its unlabelled test file, cross-validated at the end
COMPETITION = """\
        from lightgbm import LGBMClassifier
        shops = pd.read_csv("shops_train.csv")
        unseen = pd.read_csv("shops_test.csv")
"""

SCORE = """\
        target = shops.pop("fraud")
        print(cross_val_score(LGBMClassifier(), shops, target, cv=5))
"""

#: a per-owner reduction of the amount over train and test stacked, its name the loop variable over HOWS
LOOPED = """\
        for how in HOWS:
            both = pd.concat([shops[["owner", "amount"]], unseen[["owner", "amount"]]])
            table = both.groupby(["owner"])["amount"].agg([how])
            shops["owner_" + how] = shops["owner"].map(table[how])
            unseen["owner_" + how] = unseen["owner"].map(table[how])
"""

#: a helper that maps per-key statistics of a column, the reductions named by its caller
KEYED_STATS = """\
        def keyed_stats(values, keys, hows=["mean"], left=shops, right=unseen):
            for value in values:
                for key in keys:
                    for how in hows:
                        name = value + "_" + key + "_" + how
                        rows = pd.concat([left[[key, value]], right[[key, value]]])
                        table = rows.groupby([key])[value].agg([how]).rename(columns={how: name})
                        left[name] = left[key].map(table[name])
                        right[name] = right[key].map(table[name])
"""

#: per-week lowest value of a column over each frame's own rows, into a column named by the loop
WEEK_LOWS = """\
        def week_lows(frame, weeks, cols):
            for week in weeks:
                for col in cols:
                    low = frame.groupby([week])[col].agg(["min"]).reset_index()
                    frame[col + "_" + week + "_low"] = frame[week].map(low["min"].to_dict())
            return frame
        shops = week_lows(shops, ["week"], ["opened"])
        unseen = week_lows(unseen, ["week"], ["opened"])
"""

#: the feature list by exclusion, a fold loop over the whole frame, the models fitted on the list's columns
BY_EXCLUSION = """\
        features = [c for c in list(shops) if c not in left_out and c != "fraud"]
        for a, b in KFold(5).split(shops):
            model = LGBMClassifier().fit(shops[features].iloc[a], shops["fraud"].iloc[a])
            print(model.score(shops[features].iloc[b], shops["fraud"].iloc[b]))
            model.predict(unseen[features])
"""

#: a loan table with two filled variants of the income, a random split of the columns a list names
LOANS = """\
        loans = pd.read_csv("loans.csv")
        loans["income_mean"] = loans["income"].fillna(loans["income"].mean())
        loans["income_median"] = loans["income"].fillna(loans["income"].median())
"""

SPLIT_LISTED = """\
        a, b, c, d = train_test_split(loans[modelled], loans["default"], test_size=0.3)
        print(LogisticRegression().fit(a, c).score(b, d))
"""

#: the two frames come back from a helper out of sight; each row's count of empty cells is a column
WIDENED = """\
        from lightgbm import LGBMClassifier
        from helpers_out_of_sight import widen
        train, test = widen(pd.read_csv("shops_train.csv"), pd.read_csv("shops_test.csv"))
        train["empties"] = train.isna().sum(axis=1)
        test["empties"] = test.isna().sum(axis=1)
"""

#: the widened training frame cross-validated
SCORE_WIDENED = """\
        target = train.pop("fraud")
        print(cross_val_score(LGBMClassifier(), train, target, cv=5))
"""

LEAKS = {
    # the reduction's name is the loop variable over a literal list, over train and test stacked
    "a_group_statistic_named_by_a_loop_variable_over_train_and_test": (COMPETITION + LOOPED.replace("HOWS", '["mean", "std"]') + SCORE, [("fit_on_test", 6)]),
    # the names come from a helper's parameter, looped over inside it
    "a_helper_looping_over_the_reductions_its_caller_names": (COMPETITION + KEYED_STATS + """\
        keyed_stats(["amount"], ["owner"], hows=["mean", "std"])
""" + SCORE, [("fit_on_test", 10)]),
    # a block switched on by hand runs
    "a_count_over_train_and_test_inside_if_true": (COMPETITION + """\
        if True:
            counts = pd.concat([shops, unseen])["owner"].value_counts()
            shops["owner_n"] = shops["owner"].map(counts)
""" + SCORE, [("fit_on_test", 5)]),
    # the exclusion list leaves out the source column but not the statistic's column: the models read it
    "a_statistic_column_the_exclusion_list_keeps": (COMPETITION + WEEK_LOWS + """\
        left_out = ["opened", "week"]
""" + BY_EXCLUSION, [("fit_on_test", 7)]),
    # the list names the mean-filled column: its fill before the split reaches the model
    "a_fill_in_a_column_the_modelled_list_names": (LOANS + """\
        modelled = ["income_mean", "age"]
""" + SPLIT_LISTED, [("fit_before_split", 2)]),
    # the same picked through .loc and a list held by an object's attribute
    "a_fill_in_a_listed_column_picked_through_loc": (LOANS + """\
        class Spec:
            pass
        spec = Spec()
        spec.names = ["income_median", "age"]
        a, b, c, d = train_test_split(loans.loc[:, spec.names], loans["default"], test_size=0.3)
        print(LogisticRegression().fit(a, c).score(b, d))
""", [("fit_before_split", 3)]),
    # then a count over both frames stacked: the frames are still tables, the count reaches the folds
    "a_count_over_train_and_test_after_a_missing_value_mask_of_frames_out_of_sight": (WIDENED + """\
        counts = pd.concat([train, test])["owner"].value_counts()
        train["owner_n"] = train["owner"].map(counts)
""" + SCORE_WIDENED, [("fit_on_test", 6)]),
}

HEALTHY = {
    # the same loop naming each key's first and last amount: a value the rows carry, no statistic
    "a_loop_variable_naming_first_and_last_over_train_and_test": (COMPETITION + LOOPED.replace("HOWS", '["first", "last"]') + SCORE, []),
    # the count over train and test inside a block switched off by hand: it never runs
    "a_count_over_train_and_test_inside_if_false": (COMPETITION + """\
        if False:
            counts = pd.concat([shops, unseen])["owner"].value_counts()
            shops["owner_n"] = shops["owner"].map(counts)
""" + SCORE, []),
    # the same switched off with a zero
    "a_group_mean_over_train_and_test_inside_if_zero": (COMPETITION + """\
        if 0:
            both = pd.concat([shops, unseen])
            shops["owner_mean"] = shops["owner"].map(both.groupby("owner")["amount"].mean())
""" + SCORE, []),
    # the statistic's column is in the list every model's features leave out
    "a_statistic_column_the_exclusion_list_leaves_out": (COMPETITION + WEEK_LOWS + """\
        left_out = ["opened", "opened_week_low", "week"]
""" + BY_EXCLUSION, []),
    # the same with the features taken straight off the frame's columns
    "a_statistic_column_left_out_of_a_list_over_the_columns": (COMPETITION + WEEK_LOWS + """\
        left_out = ("opened_week_low",)
""" + BY_EXCLUSION.replace("list(shops)", "shops.columns"), []),
    # both filled before the split, but the modelled list names neither
    "fills_in_columns_the_modelled_list_leaves_out": (LOANS + """\
        modelled = ["income", "age"]
""" + SPLIT_LISTED, []),
    # the row-wise count of empty cells alone: no statistic over rows
    "a_missing_value_mask_of_frames_out_of_sight_counted_per_row": (WIDENED + SCORE_WIDENED, []),
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_72_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected
