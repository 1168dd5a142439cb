"""The static leakage analysis on the kinds the measure-only wave 82 (Kaggle multi-script solutions) missed (issue 17,
stop 51), in both directions: a 0/1 flag built in steps from a quantile of the table it is run on, a per-column
vectorizer refitted after an early return for an empty column list, and an optimizer objective on a held-aside part
whose chosen candidate is scored again on that part, and test rows pseudo-labelled by a model of every training row
then cross-validated with the training rows found at their line; the look-alikes (a cut point handed in from the
training rows, a branch chosen by a flag, a pick judged on another part or not scored again, pseudo-labels only in
the submission or the final refit) silent. Every example
is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a helper run on the training file and on the test file by itself
FLAGS = """\
        def add_flags(frame):
            out = frame.copy()
            loud = out["noise"] > out["noise"].quantile(0.9)
            late = out["hour"] >= 22
            out["rowdy"] = (loud & late).astype(int)
            return out
        shops = pd.read_csv("shops_train.csv")
        fresh = pd.read_csv("shops_test.csv")
        tr, te = add_flags(shops), add_flags(fresh)
        model = LogisticRegression().fit(tr.drop(columns=["label"]), tr["label"])
        print(model.predict(te))
"""

#: a per-column TF-IDF step that hands the table back when it has no text column
WORDS = """\
        from sklearn.feature_extraction.text import TfidfVectorizer
        def word_columns(frame, is_test=False):
            out = frame.copy()
            texts = [c for c in frame.columns if c.endswith("_text")]
            if {guard}:
                return out
            for c in texts:
                vec = TfidfVectorizer(max_features=20)
                mat = vec.fit_transform(frame[c].astype(str))
                out[c + "_w0"] = mat[:, 0].toarray().ravel()
            return out
        notes = pd.read_csv("notes_train.csv")
        later = pd.read_csv("notes_test.csv")
        a, b = word_columns(notes), word_columns(later, is_test=True)
        model = LogisticRegression().fit(a.drop(columns=["label"]), a["label"])
        print(model.predict(b))
"""

#: an optuna search over a ridge penalty scored on a held-aside part of the training file
SEARCH = """\
        import optuna
        from sklearn.metrics import mean_squared_error
        rows = pd.read_csv("houses_train.csv")
        unseen = pd.read_csv("houses_test.csv")
        {parts}
        X_fit, y_fit = fit_part.drop(columns=["price"]), fit_part["price"]
        X_eval, y_eval = eval_part.drop(columns=["price"]), eval_part["price"]
        def objective(trial):
            alpha = trial.suggest_float("alpha", 1e-3, 10.0, log=True)
            reg = Ridge(alpha=alpha).fit(X_fit, y_fit)
            return mean_squared_error(y_eval, reg.predict(X_eval))
        study = optuna.create_study(direction="minimize")
        study.optimize(objective, n_trials=30)
"""
ONE_SPLIT = 'fit_part, eval_part = train_test_split(rows, train_size=0.8, random_state=1)'
TWO_SPLITS = ('dev, final_part = train_test_split(rows, test_size=0.2, random_state=1); '
              'fit_part, eval_part = train_test_split(dev, train_size=0.8, random_state=1)')

#: a teacher fitted on every training row labels the test file's rows
TEACHER = """\
        shop = pd.read_csv("baskets_train.csv")
        later = pd.read_csv("baskets_test.csv")
        X_all, y_all = shop.drop(columns=["label"]).values, shop["label"].values
        X_new = later.values
        teacher = LogisticRegression().fit(X_all, y_all)
        sure = teacher.predict_proba(X_new).max(axis=1) > 0.95
        guessed = teacher.predict(X_new)
"""

LEAKS = {
    # the 90th percentile of the test file's own rows sets its flag; the comparison is bound to a name first
    "flag_in_steps_cut_at_the_test_tables_quantile": (FLAGS, [("fit_on_test", 3)]),
    # the same before a split: the 95th percentile of every row, then the rows are split and scored
    "flag_in_steps_cut_before_the_split": ("""\
        top = table["spend"] > table["spend"].quantile(0.95)
        table["big_spender"] = top.astype(int)
        a, b, c, d = train_test_split(table.drop(columns=["label"]), table["label"])
        LogisticRegression().fit(a, c).score(b, d)
""", [("fit_before_split", 1)]),
    # an early return when no column is text, then one TF-IDF per column refitted on the test file's texts
    "vectorizer_refit_per_column_after_an_empty_guard": (WORDS.replace("{guard}", "not texts"),
                                                          [("fit_on_test", 9)]),
    "vectorizer_refit_per_column_after_a_length_guard": (WORDS.replace("{guard}", "len(texts) == 0"),
                                                          [("fit_on_test", 9)]),
    # the held-aside part chose the penalty, and the chosen model's score is reported on the same part
    "objective_pick_scored_again_on_its_own_part": (SEARCH.replace("{parts}", ONE_SPLIT) + """\
        chosen = Ridge(**study.best_params).fit(X_fit, y_fit)
        print("tuned score", mean_squared_error(y_eval, chosen.predict(X_eval)))
        print(chosen.predict(unseen))
""", [("tuned_on_test", 11)]),
    # the same through a name holding the best parameters and set_params
    "objective_pick_through_set_params": (SEARCH.replace("{parts}", ONE_SPLIT) + """\
        best = study.best_params
        chosen = Ridge()
        chosen.set_params(**best)
        chosen.fit(X_fit, y_fit)
        print("tuned score", chosen.score(X_eval, y_eval))
""", [("tuned_on_test", 11)]),
    # the confident test rows join the training data with the teacher's labels, and the augmented set is
    # cross-validated: the pseudo-labels of a fold's training part were learnt from its held-out rows
    "pseudo_labelled_rows_cross_validated": (TEACHER + """\
        X_more = np.vstack([X_all, X_new[sure]])
        y_more = np.hstack([y_all, guessed[sure]])
        print(cross_val_score(LogisticRegression(), X_more, y_more, cv=5).mean())
""", [("fit_outside_cv", 5)]),
    # the same in a fold loop of its own
    "pseudo_labelled_rows_in_a_fold_loop": (TEACHER + """\
        X_more = np.vstack([X_all, X_new[sure]])
        y_more = np.hstack([y_all, guessed[sure]])
        for fit_idx, held_idx in KFold(5).split(X_more, y_more):
            m = LogisticRegression().fit(X_more[fit_idx], y_more[fit_idx])
            print(m.score(X_more[held_idx], y_more[held_idx]))
""", [("fit_outside_cv", 5)]),
}

HEALTHY = {
    # the cut point is computed on the training file and handed to the helper: the test rows only use it
    "flag_in_steps_cut_at_a_training_statistic": ("""\
        def add_flags(frame, cut):
            out = frame.copy()
            loud = out["noise"] > cut
            late = out["hour"] >= 22
            out["rowdy"] = (loud & late).astype(int)
            return out
        shops = pd.read_csv("shops_train.csv")
        fresh = pd.read_csv("shops_test.csv")
        cut = shops["noise"].quantile(0.9)
        tr, te = add_flags(shops, cut), add_flags(fresh, cut)
        model = LogisticRegression().fit(tr.drop(columns=["label"]), tr["label"])
        print(model.predict(te))
"""),
    # the early return is chosen by a flag the test call sets: the test texts are never fitted on
    "vectorizer_skipped_for_the_test_file_by_a_flag": WORDS.replace("{guard}", "is_test"),
    # the held-aside part chooses, and the chosen model is judged on a test part the search never saw
    "objective_pick_judged_on_another_part": (SEARCH.replace("{parts}", TWO_SPLITS) + """\
        X_final, y_final = final_part.drop(columns=["price"]), final_part["price"]
        chosen = Ridge(**study.best_params).fit(X_fit, y_fit)
        print("test score", mean_squared_error(y_final, chosen.predict(X_final)))
"""),
    # the validation part only chooses: the best trial is printed, no model is scored on the part again
    "objective_pick_not_scored_again": (SEARCH.replace("{parts}", ONE_SPLIT) + """\
        print(study.best_params, study.best_value)
        chosen = Ridge(**study.best_params).fit(X_fit, y_fit)
        print(chosen.predict(unseen))
"""),
    # the teacher's predictions of the test rows are the submission: nothing is cross-validated with them
    "teacher_predictions_only_submitted": (TEACHER + """\
        pd.DataFrame({"label": guessed}).to_csv("submission.csv", index=False)
"""),
    # the cross-validation runs on the training rows' own labels; the pseudo rows only join the final refit
    "pseudo_labels_only_in_the_final_refit": (TEACHER + """\
        print(cross_val_score(LogisticRegression(), X_all, y_all, cv=5).mean())
        final = LogisticRegression().fit(np.vstack([X_all, X_new[sure]]), np.hstack([y_all, guessed[sure]]))
        pd.DataFrame({"label": final.predict(X_new)}).to_csv("submission.csv", index=False)
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_fix_82_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_fix_82_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
