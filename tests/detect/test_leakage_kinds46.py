"""The static leakage analysis on kinds of miss that recurred across the held-out waves (issue 17, stop 46):
columns kept by a linear model's coefficients, by a score function's best item, or by a per-class statistic written
by hand, and an Optuna objective handed over as a bound method or a lambda. Each in both directions: the leak found
at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # an L1 model fitted on every row keeps the columns with a non-zero weight; the split comes after
    "columns_kept_by_lasso_weights_then_split": ("""\
        from sklearn.linear_model import LassoCV
        sparse = LassoCV(cv=5).fit(X, y)
        kept = X.columns[np.abs(sparse.coef_) > 0]
        a, b, c, d = train_test_split(X[kept], y)
        Ridge().fit(a, c).score(b, d)
        """, [("fit_before_split", 2)]),
    # a forest's importances and an L1 logistic model's weights ranked together on the training rows; the top
    # columns are then cross-validated on those rows (the weights come last, and still carry their fit)
    "forest_and_l1_weights_ranked_together_then_cross_validated": ("""\
        from sklearn.ensemble import RandomForestClassifier
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        forest = RandomForestClassifier().fit(X_tr.values, y_tr.values)
        l1 = LogisticRegression(penalty="l1", solver="liblinear").fit(X_tr.values, y_tr.values)
        by_forest = pd.Series(forest.feature_importances_, index=X_tr.columns).rank(ascending=False)
        by_weight = pd.Series(np.abs(l1.coef_[0]), index=X_tr.columns).rank(ascending=False)
        keep = pd.concat([by_weight, by_forest], axis=1).mean(axis=1).sort_values().head(8).index
        print(cross_val_score(LogisticRegression(), X_tr[keep], y_tr, cv=5).mean())
        """, [("fit_outside_cv", 3), ("fit_outside_cv", 4)]),
    # the best column by mutual information seeds a list of positions, then the model is cross-validated on them
    "best_mutual_information_position_in_a_list_then_cross_validated": ("""\
        from sklearn.feature_selection import mutual_info_classif
        A, b = X.values, y.values
        relevance = mutual_info_classif(A, b)
        picked = [np.argmax(relevance)]
        for _ in range(4):
            best, best_col = -1.0, 0
            for j in range(A.shape[1]):
                if relevance[j] > best:
                    best, best_col = relevance[j], j
            picked.append(best_col)
        print(cross_val_score(LogisticRegression(), A[:, picked], b, cv=5).mean())
        """, [("fit_outside_cv", 3)]),
    # the same written without a seed: only the comparison with the scores decides which position is kept
    "best_f_score_position_picked_by_a_comparison_then_cross_validated": ("""\
        from sklearn.feature_selection import f_classif
        A, b = X.values, y.values
        f_scores, _ = f_classif(A, b)
        kept = []
        for _ in range(3):
            best, best_col = -1.0, -1
            for j in range(A.shape[1]):
                if j not in kept and f_scores[j] > best:
                    best = f_scores[j]
                    best_col = j
            kept.append(best_col)
        print(cross_val_score(LogisticRegression(), A[:, kept], b, cv=5).mean())
        """, [("fit_outside_cv", 3)]),
    # chi2's pair unpacked: the statistic ranks the columns kept before the split
    "chi2_statistic_unpacked_from_its_pair_then_split": ("""\
        from sklearn.feature_selection import chi2
        stat, p_values = chi2(X, y)
        top = X.columns[np.argsort(stat)[-5:]]
        a, b, c, d = train_test_split(X[top], y)
        LogisticRegression().fit(a, c).score(b, d)
        """, [("fit_before_split", 2)]),
    # columns ranked by a separation score computed from each class's rows (the labels choose the rows)
    "columns_ranked_by_per_class_means_then_cross_validated": ("""\
        A, labels = X.values, y.values
        separation = []
        for j in range(A.shape[1]):
            gaps = []
            for c in np.unique(labels):
                rows_of_c = A[labels == c, j]
                gaps.append(np.mean(rows_of_c) ** 2 / (np.var(rows_of_c) + 1e-9))
            separation.append(np.mean(gaps))
        top = np.argsort(separation)[-6:]
        print(cross_val_score(LogisticRegression(), A[:, top], labels, cv=5).mean())
        """, [("fit_outside_cv", 7)]),
    # the objective is a bound method that cross-validates the rows a scaler saw whole
    "scaled_rows_tuned_by_a_bound_method_objective": ("""\
        import optuna

        class Search:
            def __init__(self, A, b):
                self.A, self.b = A, b

            def objective(self, trial):
                model = Ridge(alpha=trial.suggest_float("alpha", 0.01, 10.0))
                return cross_val_score(model, self.A, self.b, cv=5).mean()

        A = StandardScaler().fit_transform(X)
        study = optuna.create_study(direction="maximize")
        study.optimize(Search(A, y).objective, n_trials=30)
        """, [("fit_outside_cv", 11)]),
    # the same through a lambda that hands the scaled rows to a plain function with a fold loop of its own
    "scaled_rows_tuned_through_a_lambda_objective": ("""\
        import optuna

        def objective(trial, A, b):
            losses = []
            for tr, va in KFold(5).split(A):
                model = Ridge(alpha=trial.suggest_float("alpha", 0.01, 10.0)).fit(A[tr], b[tr])
                losses.append(np.mean((model.predict(A[va]) - b[va]) ** 2))
            return np.mean(losses)

        A = MinMaxScaler().fit_transform(X.values)
        study = optuna.create_study()
        study.optimize(lambda t: objective(t, A, y.values), n_trials=30)
        """, [("fit_outside_cv", 10)]),
}

HEALTHY = {
    # the L1 weights come from the training part only; the held-out part is scored once
    "lasso_weights_of_the_training_part_then_scored_on_the_test_part": """\
        from sklearn.linear_model import LassoCV
        a, b, c, d = train_test_split(X, y)
        sparse = LassoCV(cv=5).fit(a, c)
        kept = a.columns[np.abs(sparse.coef_) > 0]
        Ridge().fit(a[kept], c).score(b[kept], d)
        """,
    # the best position by mutual information of the training part only, scored once on the held-out part
    "best_position_of_the_training_part_scored_on_the_test_part": """\
        from sklearn.feature_selection import mutual_info_classif
        a, b, c, d = train_test_split(X.values, y.values)
        relevance = mutual_info_classif(a, c)
        best, best_col = -1.0, 0
        for j in range(a.shape[1]):
            if relevance[j] > best:
                best, best_col = relevance[j], j
        LogisticRegression().fit(a[:, [best_col]], c).score(b[:, [best_col]], d)
        """,
    # the best hyperparameter by cross-validated score: a comparison of scores, not of a ranking of columns
    "best_depth_picked_by_a_comparison_of_cross_validated_scores": """\
        best, best_c = -1.0, 1.0
        for c in [0.1, 1.0, 10.0]:
            score = cross_val_score(LogisticRegression(C=c), X, y, cv=5).mean()
            if score > best:
                best, best_c = score, c
        print(best_c)
        """,
    # a linear model's weights only printed: nothing is chosen by them
    "weights_of_a_model_printed_after_cross_validation": """\
        print(cross_val_score(LogisticRegression(), X, y, cv=5).mean())
        full = LogisticRegression().fit(X, y)
        print(pd.Series(full.coef_[0], index=X.columns).sort_values())
        """,
    # a per-column mean over every row (no label mask): a plain statistic, not a supervised ranking
    "columns_ranked_by_their_own_spread_of_values_only_printed": """\
        A = X.values
        spread = [np.var(A[:, j]) for j in range(A.shape[1])]
        print(np.argsort(spread)[-6:])
        print(cross_val_score(LogisticRegression(), A, y.values, cv=5).mean())
        """,
    # each class's mean inside the folds, from the training fold only
    "per_class_means_taken_inside_each_training_fold": """\
        A, labels = X.values, y.values
        for tr, va in KFold(5).split(A):
            gaps = [np.mean(A[tr][labels[tr] == c, 0]) for c in np.unique(labels[tr])]
            print(gaps)
            LogisticRegression().fit(A[tr], labels[tr]).score(A[va], labels[va])
        """,
    # the objective scales inside each fold: every fold's scaler sees its training rows only
    "an_objective_that_scales_inside_each_fold": """\
        import optuna

        class Search:
            def __init__(self, A, b):
                self.A, self.b = A, b

            def objective(self, trial):
                model = make_pipeline(StandardScaler(), Ridge(alpha=trial.suggest_float("alpha", 0.01, 10.0)))
                return cross_val_score(model, self.A, self.b, cv=5).mean()

        study = optuna.create_study(direction="maximize")
        study.optimize(Search(X, y).objective, n_trials=30)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_recurring_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert sorted(alarms(tmp_path, body)) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
