"""The static leakage analysis on the kinds a held-out wave of forecasting, clinical and competition code showed
(issue 17, wave 62: demand forecasts, ICU mortality models, football odds, credit scorecards), each in both
directions: the leak found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # a mean over every month fills the gaps before the table is cut at a date: the later months shaped it
    # (timecuts.py: the side at or after the cut is the test part)
    "gaps_filled_with_a_mean_of_all_months_then_cut_at_a_date": ("""\
        sales = pd.read_csv("monthly.csv")
        sales["price"] = sales["price"].fillna(sales["price"].mean())
        past = sales[sales["month"] < "2024-07-01"]
        future = sales[sales["month"] >= "2024-07-01"]
        reg = Ridge().fit(past[["price"]], past["units"])
        print(reg.score(future[["price"]], future["units"]))
        """, [("fit_before_split", 2)]),
    # the same cut through a name bound to the date, the later side named for nothing in particular
    "a_scaler_over_all_rows_then_a_cut_at_a_named_date": ("""\
        visits = pd.read_csv("visits.csv")
        cutoff = pd.Timestamp("2023-01-01")
        visits[["hr"]] = StandardScaler().fit_transform(visits[["hr"]])
        early = visits[visits["admitted"] < cutoff]
        late = visits[visits["admitted"] >= cutoff]
        clf = LogisticRegression().fit(early[["hr"]], early["died"])
        print(clf.score(late[["hr"]], late["died"]))
        """, [("fit_before_split", 3)]),
    # feature importances of a forest fitted on all training rows, ranked by a helper that reads its *args in a
    # comprehension, pick the columns a grid search then cross-validates (embeddings._any_item)
    "importances_ranked_through_a_helpers_args_then_a_grid_search": ("""\
        from sklearn.ensemble import RandomForestClassifier
        def mean_rank(*scores):
            ranks = [s.rank(ascending=False) for s in scores]
            return pd.concat(ranks, axis=1).mean(axis=1).sort_values()

        cohort = pd.read_csv("cohort.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(cohort.drop(columns=["died"]), cohort["died"])
        forest = RandomForestClassifier().fit(X_tr.values, y_tr.values)
        weights = pd.Series(forest.feature_importances_, index=X_tr.columns)
        keep = mean_rank(weights).head(10).index.tolist()
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=5).fit(X_tr[keep], y_tr)
        print(search.best_score_)
        """, [("fit_outside_cv", 8)]),
    # a supervised selector's kept names over all rows choose the columns before the split (the look-alike of the
    # stateless expansion below: this one learnt from the rows and their labels)
    "columns_named_by_a_selector_fitted_on_all_rows_then_split": ("""\
        from sklearn.feature_selection import SelectKBest, f_classif
        icu = pd.read_csv("icu.csv")
        feats, died = icu.drop(columns=["died"]), icu["died"]
        picker = SelectKBest(f_classif, k=5).fit(feats, died)
        kept = feats[picker.get_feature_names_out()]
        X_tr, X_te, y_tr, y_te = train_test_split(kept, died)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """, [("fit_before_split", 4)]),
}

HEALTHY = {
    # per-series means of the months before the cut fill the gaps of both sides; the two sides are stacked again
    # and re-cut per month to predict, each month's model trained on the months before it
    "means_of_the_earlier_side_then_the_stack_recut_per_month": """\
        def prepare(path):
            table = pd.read_csv(path)
            past = table[table["month"] < "2025-04-01"].copy()
            ahead = table[table["month"] >= "2025-04-01"].copy()
            means = past.groupby(["sku", "store"])["amount"].mean().reset_index()
            past["amount"] = past["amount"].fillna(past.groupby(["sku", "store"])["amount"].transform("mean"))
            ahead = ahead.merge(means, on=["sku", "store"], how="left", suffixes=("", "_mean"))
            return past, ahead

        past, ahead = prepare("sales.csv")
        everything = pd.concat([past, ahead], ignore_index=True)
        known = everything[everything["month"] < "2025-04-01"].copy()
        for month in ["2025-04-01", "2025-05-01", "2025-06-01"]:
            test_rows = everything[everything["month"] == month].copy()
            reg = Ridge().fit(known[["amount"]], known["qty"])
            print(reg.predict(test_rows[["amount"]]))
            known = pd.concat([known, test_rows], ignore_index=True)
        """,
    # a cut on a number is a subgroup, not a split in time: the younger group's mean fills the older group's
    # gaps, and neither group is held out by the cut itself
    "a_subgroup_cut_on_a_number_is_no_split_in_time": """\
        people = pd.read_csv("people.csv")
        young = people[people["age"] < 30]
        old = people[people["age"] >= 30]
        fill = young["bmi"].mean()
        reg = Ridge().fit(young[["bmi"]].fillna(fill), young["sbp"])
        print(reg.score(old[["bmi"]].fillna(fill), old["sbp"]))
        """,
    # the same helper ranks weights typed into the script: no fit on the rows picks the columns
    "fixed_weights_ranked_through_a_helpers_args_then_a_grid_search": """\
        def mean_rank(*scores):
            ranks = [s.rank(ascending=False) for s in scores]
            return pd.concat(ranks, axis=1).mean(axis=1).sort_values()

        cohort = pd.read_csv("cohort.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(cohort.drop(columns=["died"]), cohort["died"])
        weights = pd.Series([3.0, 2.0, 1.0], index=["age", "hr", "sbp"])
        keep = mean_rank(weights).head(2).index.tolist()
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=5).fit(X_tr[keep], y_tr)
        print(search.best_score_)
        """,
    # pairwise products of every row's own vitals, named by the expander: PolynomialFeatures learns no statistic of
    # the rows, so expanding before the split is no leak (scoring.selection)
    "pairwise_products_named_by_a_stateless_expander_before_the_split": """\
        from sklearn.preprocessing import PolynomialFeatures
        icu = pd.read_csv("icu.csv")
        vitals = ["hr", "sbp", "temp"]
        expander = PolynomialFeatures(degree=2, interaction_only=True, include_bias=False)
        products = expander.fit_transform(icu[vitals])
        extra = pd.DataFrame(products, columns=expander.get_feature_names_out(vitals), index=icu.index)
        table = pd.concat([icu, extra], axis=1)
        X_tr, X_te, y_tr, y_te = train_test_split(table.drop(columns=["died"]), table["died"])
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_wave_62_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_wave_62_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_a_date_cut_written_date_first_reads_as_its_mirror():
    import ast

    from faultlib.detect.data.leakage.timecuts import _MIRROR, date_cut

    assert all(_MIRROR[_MIRROR[op]] is op for op in _MIRROR)  # a >= b is b <= a: each operator's converse
    for text, later in (("'2025-04-01' <= df.d", True), ("'2025-04-01' > df.d", False), ("df.d >= '2025-04-01'", True)):
        assert date_cut(ast.parse(text, mode="eval").body, 1, {}) == ("df.d <cut> '2025-04-01'", later)
