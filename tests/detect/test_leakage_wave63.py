"""The static leakage analysis on the kinds a held-out wave of research code showed (issue 17, wave 63: gene
selection on microarrays, radiomics regressors, EEG decoding), each in both directions: the leak found at its line,
the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: an imputer fitted on the rows it is given, and a split helper that logs its parts' sizes and returns them
IMPUTE_THEN_SPLIT = """\
        import logging
        from sklearn.impute import SimpleImputer
        log = logging.getLogger(__name__)

        def fill_gaps(values):
            filler = SimpleImputer()
            filler.fit(values)
            return filler.transform(values)

        def divide(values, labels):
            v_tr, v_te, l_tr, l_te = train_test_split(values, labels, test_size=0.25)
            log.info("held out %d samples, classes %s", len(v_te), np.unique(l_te, return_counts=True))
            return v_tr, v_te, l_tr, l_te

"""

LEAKS = {
    # a grid search over every row picks alpha, a fresh model is built from best_params_ through two names and
    # cross_validate reports it on the same rows (rescored.py: no nested cross-validation)
    "a_searched_alpha_read_back_into_a_fresh_model_then_cross_validated": ("""\
        from sklearn.model_selection import cross_validate
        from sklearn.linear_model import Lasso

        def tuned_lasso(features, target, folds):
            search = GridSearchCV(Lasso(), {"alpha": [0.01, 0.1, 1.0]}, cv=folds)
            search.fit(features, target)
            chosen = search.best_params_
            alpha = chosen["alpha"]
            model = Lasso(alpha=alpha)
            scores = cross_validate(model, features, target, cv=folds)
            print(scores["test_score"].mean())
        """, [("tuned_on_test", 6)]),
    # the refitted best estimator itself cross-validated on the rows the search chose it on
    "the_best_estimator_cross_validated_on_the_searched_rows": ("""\
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0, 10.0]}, cv=5)
        search.fit(X, y)
        print(cross_val_score(search.best_estimator_, X, y, cv=5).mean())
        """, [("tuned_on_test", 2)]),
    # the chosen values unpacked straight into the constructor
    "searched_parameters_unpacked_into_the_constructor_then_cross_validated": ("""\
        search = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=KFold(5))
        search.fit(X, y)
        print(cross_val_score(Ridge(**search.best_params_), X, y, cv=KFold(5)).mean())
        """, [("tuned_on_test", 2)]),
    # an imputer over every sample, then a helper's split whose test part the caller goes on to reshape: the
    # template of a preprocessing lesson keeps its alarm (unscored.py), whatever the display calls around it
    "an_imputer_before_a_helpers_split_whose_test_part_the_caller_reshapes": (IMPUTE_THEN_SPLIT + """\
        a, b, c, d = divide(fill_gaps(X), y)
        held_out = np.asarray(b).reshape(len(b), -1)
        """, [("fit_before_split", 7)]),
    # a method nobody calls scales with the scaler its class's __init__ made, on every row, then grid-searches the
    # scaled rows (interp._opaque_self: the method sees the attributes __init__ sets)
    "a_scaler_made_in_init_fitted_on_all_rows_then_a_grid_search_in_a_method": ("""\
        from sklearn.svm import SVC

        class TunedSVM:
            def __init__(self, C=1.0):
                self.C = C
                self.scaler = StandardScaler()

            def tune(self, features, labels):
                scaled = self.scaler.fit_transform(features)
                search = GridSearchCV(SVC(), {"C": [0.1, 1.0, 10.0]}, cv=5)
                search.fit(scaled, labels)
                return search.best_params_, search.best_score_
        """, [("fit_outside_cv", 9)]),
}

HEALTHY = {
    # nested cross-validation: the search itself is cross-validated, each outer fold re-runs it
    "the_search_itself_cross_validated": """\
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0, 10.0]}, cv=3)
        print(cross_val_score(search, X, y, cv=5).mean())
        """,
    # the choice is made on the training part and cross-validated on rows the search never saw
    "a_choice_made_on_the_training_part_cross_validated_on_the_held_out_part": """\
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5)
        search = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=5).fit(X_tr, y_tr)
        print(cross_val_score(Ridge(alpha=search.best_params_["alpha"]), X_te, y_te, cv=5).mean())
        """,
    # searches on the training part, their choices re-scored by cross-validating that part only to compare them, the
    # winner then scored on the part the split held out (rescored.held_out_elsewhere)
    "choices_made_and_compared_on_the_training_part_then_scored_on_the_held_out_part": """\
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25)
        ridge = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=5).fit(X_tr, y_tr)
        lasso = GridSearchCV(Lasso(), {"alpha": [0.1, 1.0]}, cv=5).fit(X_tr, y_tr)
        means = {"ridge": cross_val_score(ridge.best_estimator_, X_tr, y_tr, cv=5).mean(),
                 "lasso": cross_val_score(lasso.best_estimator_, X_tr, y_tr, cv=5).mean()}
        best = ridge if means["ridge"] >= means["lasso"] else lasso
        print(best.best_estimator_.score(X_te, y_te))
        """,
    # a model with fixed settings cross-validated after an unrelated search: it never read the search's result
    "a_fixed_model_cross_validated_beside_a_search": """\
        search = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=5)
        search.fit(X, y)
        print(search.best_params_)
        baseline = Ridge(alpha=1.0)
        print(cross_val_score(baseline, X, y, cv=5).mean())
        """,
    # the same helpers, but the caller only shows the parts' sizes and hands them back to __main__, which drops
    # them: no held-out row is used, the imputer's fit reaches no model (handedback.py)
    "an_imputer_before_a_helpers_split_whose_parts_are_only_logged_and_dropped": IMPUTE_THEN_SPLIT + """\
        def demo():
            a, b, c, d = divide(fill_gaps(X), y)
            print(a.shape, b.shape)
            return a, b, c, d

        if __name__ == "__main__":
            parts_tr, parts_te, labels_tr, labels_te = demo()
        """,
    # the same class, the scaler made in __init__ put in the pipeline the search cross-validates
    "a_scaler_made_in_init_inside_the_searched_pipeline": """\
        from sklearn.svm import SVC

        class TunedSVM:
            def __init__(self, C=1.0):
                self.C = C
                self.scaler = StandardScaler()

            def tune(self, features, labels):
                search = GridSearchCV(make_pipeline(self.scaler, SVC()), {"svc__C": [0.1, 1.0, 10.0]}, cv=5)
                search.fit(features, labels)
                return search.best_params_, search.best_score_
        """,
    # an object handed to __init__ holds a training and a test table under its fields: fitted on one, scored on
    # the other, it is not one table's rows (interp._opaque_self drops what __init__ only keeps)
    "a_holder_of_both_parts_kept_by_init_fitted_on_one_scored_on_the_other": """\
        class Trainer:
            def __init__(self, parts):
                self.parts = parts
                self.model = Ridge()

            def run(self):
                self.model.fit(self.parts.x_train, self.parts.y_train)
                return self.model.score(self.parts.x_test, self.parts.y_test)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_of_wave_63_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_of_wave_63_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
