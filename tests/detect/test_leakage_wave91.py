"""The static leakage analysis on the kinds a held-out wave of text-classification and sensor projects showed (issue
17, wave 91: spam and sentiment classifiers, EEG emotion and wearable activity recognition), in both directions:

* a results table rebuilt from per-model result dicts (each a helper's test metrics), sorted by a test metric, whose
  first row names the best model, is ``tuned_on_test``; the same table of validation metrics, or only shown, is
  silent;
* a hand-written cross-validation whose inner loop keeps the best held-out score of a grid and stores it as the
  fold's result is ``tuned_on_test`` whatever the held-out part is called; a hand-written nested cross-validation
  (the winner refitted and scored on the outer fold) is silent;
* a vectorizer fitted on every message before a split none of whose parts is read again (a left-over split; the
  vectorizer saved for scripts that use every row) is no ``fit_before_split`` alarm; the same split whose parts
  train and score a model is;
* a model file one script fits on every row of a table and another script loads and scores on the same table
  (a metric, no split anywhere) is ``trained_on_test`` at the scoring line; a training script that holds rows out, or
  a loaded model used only to predict new inputs, is silent;
* overlapping windows of one series (a hop smaller than the window, both written as numbers; or bounds yielded by a
  generator whose start advances by half a window) split at random -- by ``KFold(shuffle=True)`` or by a random
  boolean mask and its negation -- are ``shuffled_time_split``; windows that do not overlap, and a mask of the
  data's own values, stay silent.

Every example is a small project written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from tests.detect.test_leakage_fix84 import _alarms, _kinds, _write  # a small project written to disk, its alarms


# ---------------------------------------------------------------- overlapping windows split at random

#: 64-sample windows every 16 samples of one pressure recording, scored by shuffled folds
HOP_WINDOWS = """\
    import numpy as np
    from sklearn.model_selection import KFold
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import f1_score

    pressure = np.load('pressure.npy')
    phases = np.load('phases.npy')
    SPAN = 64
    hop = {hop}
    pieces, tags = [], []
    for i in range(0, len(pressure) - SPAN, hop):
        pieces.append(pressure[i:i + SPAN].ravel())
        tags.append(phases[i + SPAN - 1])
    pieces = np.asarray(pieces)
    tags = np.asarray(tags)
    cv = KFold(n_splits=4, shuffle=True, random_state=3)
    for fit_idx, eval_idx in cv.split(pieces):
        forest = RandomForestClassifier().fit(pieces[fit_idx], tags[fit_idx])
        print(f1_score(tags[eval_idx], forest.predict(pieces[eval_idx]), average='macro'))
"""


def test_windows_with_a_shorter_hop_split_by_shuffled_folds(tmp_path: Path) -> None:
    _write(tmp_path, {"folds.py": HOP_WINDOWS.format(hop=16)})
    assert ("shuffled_time_split", "folds.py", None, 17) in _alarms(tmp_path, "folds.py")


def test_windows_a_whole_span_apart_are_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"folds.py": HOP_WINDOWS.format(hop=64)})
    assert "shuffled_time_split" not in _kinds(tmp_path, "folds.py")


#: windows whose bounds a generator yields, half a window apart, sent to training or test by a random mask
GENERATED_BOUNDS = """\
    import numpy as np
    import pandas as pd
    from sklearn.svm import SVC

    def spans(stamps, length):
        first = 0
        while first < stamps.count():
            yield int(first), int(first + length)
            first += {advance}

    log = pd.read_csv('gyro.csv')
    blocks, kinds = [], []
    for (lo, hi) in spans(log['stamp'], 50):
        block = log['gx'][lo:hi]
        if len(block) == 50:
            blocks.append(np.asarray(block))
            kinds.append(log['gesture'][lo])
    blocks = np.asarray(blocks)
    kinds = np.asarray(kinds)
    share = 0.7
    chosen = np.random.rand(len(blocks)) < share
    fit_x, fit_y = blocks[chosen], kinds[chosen]
    hold_x, hold_y = blocks[~chosen], kinds[~chosen]
    model = SVC().fit(fit_x, fit_y)
    print(model.score(hold_x, hold_y))
"""


def test_generated_half_overlapping_windows_split_by_a_random_mask(tmp_path: Path) -> None:
    _write(tmp_path, {"masked.py": GENERATED_BOUNDS.format(advance="length / 2")})
    assert ("shuffled_time_split", "masked.py", None, 21) in _alarms(tmp_path, "masked.py")


def test_generated_windows_a_whole_length_apart_are_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"masked.py": GENERATED_BOUNDS.format(advance="length")})
    assert "shuffled_time_split" not in _kinds(tmp_path, "masked.py")


def test_a_mask_of_the_data_values_is_no_random_split(tmp_path: Path) -> None:
    text = GENERATED_BOUNDS.format(advance="length / 2").replace(
        "np.random.rand(len(blocks)) < share", "blocks[:, 0] < share")
    _write(tmp_path, {"masked.py": text})
    assert "shuffled_time_split" not in _kinds(tmp_path, "masked.py")


# ---------------------------------------------------------------- a sorted table of per-model test results

#: a notebook scoring three classifiers on the test part with one helper, then ranking them by F1
RANKED = """\
    import joblib
    import pandas as pd
    from sklearn.linear_model import RidgeClassifier
    from sklearn.naive_bayes import ComplementNB
    from sklearn.tree import DecisionTreeClassifier
    from sklearn.metrics import f1_score, accuracy_score
    from sklearn.model_selection import train_test_split

    mails = pd.read_csv('mails.csv')
    X_train, X_{held}, y_train, y_{held} = train_test_split(mails.drop(columns='spam'), mails.spam, random_state=1)
    # %%
    def fit_and_measure(clf, label, X_a, y_a, X_b, y_b):
        clf.fit(X_a, y_a)
        guess = clf.predict(X_b)
        return {{"label": label, "clf": clf, "f1": f1_score(y_b, guess), "acc": accuracy_score(y_b, guess)}}
    # %%
    ridge_out = fit_and_measure(RidgeClassifier(), "ridge", X_train, y_train, X_{held}, y_{held})
    cnb_out = fit_and_measure(ComplementNB(), "cnb", X_train, y_train, X_{held}, y_{held})
    tree_out = fit_and_measure(DecisionTreeClassifier(), "tree", X_train, y_train, X_{held}, y_{held})
    # %%
    outcomes = [ridge_out, cnb_out, tree_out]
    lines = []
    for o in outcomes:
        lines.append({{"label": o["label"], "f1": o["f1"]}})
    board = pd.DataFrame(lines)
    board = board.sort_values(by="f1", ascending=False)
    {pick}
"""


def test_first_row_of_a_sorted_table_of_test_results_is_a_pick(tmp_path: Path) -> None:
    _write(tmp_path, {"compare.ipynb": RANKED.format(held="test", pick='winner = board.iloc[0]["label"]')})
    assert ("tuned_on_test", "compare.ipynb", 4, 7) in _alarms(tmp_path, "compare.ipynb")


def test_a_sorted_table_of_validation_results_is_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"compare.ipynb": RANKED.format(held="valid", pick='winner = board.iloc[0]["label"]')})
    assert "tuned_on_test" not in _kinds(tmp_path, "compare.ipynb")


def test_a_sorted_table_of_test_results_only_shown_is_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"compare.ipynb": RANKED.format(held="test", pick="print(board)")})
    assert "tuned_on_test" not in _kinds(tmp_path, "compare.ipynb")


# ---------------------------------------------------------------- the best of a grid stored as each fold's result

#: blocks of recordings held out in turn by a cross-validation written by hand
BLOCKS = """\
    import numpy as np
    from sklearn.svm import LinearSVC

    feats = np.load('band_power.npy')
    moods = np.load('moods.npy')
    penalties = [0.01, 0.1, 1.0, 10.0]
    n_blocks = 5
    block_scores = np.zeros(n_blocks)
    for b in range(n_blocks):
        idx = np.arange(len(feats))
        out_idx = idx[b::n_blocks]
        in_idx = np.setdiff1d(idx, out_idx)
"""
#: the penalty of a linear SVM tuned on each held-out block itself
PER_FOLD = BLOCKS + """\
        feats_fit, moods_fit = feats[in_idx], moods[in_idx]
        feats_check, moods_check = feats[out_idx], moods[out_idx]
        top = 0
        for pen in penalties:
            svm = LinearSVC(C=pen).fit(feats_fit, moods_fit)
            hits = svm.predict(feats_check)
            rate = np.mean(hits == moods_check)
            if rate > top:
                top = rate
                top_pen = pen
    {after}
    print('mean accuracy', block_scores.mean())
"""


def test_best_of_a_grid_on_the_held_out_block_stored_as_its_result(tmp_path: Path) -> None:
    _write(tmp_path, {"cv_svm.py": PER_FOLD.format(after="    block_scores[b] = top")})
    assert ("tuned_on_test", "cv_svm.py", None, 18) in _alarms(tmp_path, "cv_svm.py")


#: the same blocks, the penalty chosen on a slice of each block's training rows, the winner scored on the block
NESTED = BLOCKS + """\
        tune_idx, check_idx = in_idx[:-40], in_idx[-40:]
        top = 0
        for pen in penalties:
            svm = LinearSVC(C=pen).fit(feats[tune_idx], moods[tune_idx])
            rate = np.mean(svm.predict(feats[check_idx]) == moods[check_idx])
            if rate > top:
                top = rate
                top_pen = pen
        final = LinearSVC(C=top_pen).fit(feats[in_idx], moods[in_idx])
        block_scores[b] = final.score(feats[out_idx], moods[out_idx])
        print('inner best', top)
    print('mean accuracy', block_scores.mean())
"""


def test_a_nested_cross_validation_written_by_hand_is_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"cv_svm.py": NESTED})
    assert "tuned_on_test" not in _kinds(tmp_path, "cv_svm.py")


def test_best_of_a_grid_only_printed_per_fold_is_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"cv_svm.py": PER_FOLD.format(after="    print(b, top_pen, top)")})
    assert "tuned_on_test" not in _kinds(tmp_path, "cv_svm.py")


# ---------------------------------------------------------------- a split left over after a fit on every row

#: a vectorizing stage: TF-IDF over every review, a split made and dropped, the vectorizer saved for the next scripts
LEFT_OVER = """\
    import joblib
    import pandas as pd
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.model_selection import train_test_split

    reviews = pd.read_csv('reviews_clean.csv')
    vec = TfidfVectorizer(max_features=2000)
    M = vec.fit_transform(reviews['text'])
    stars = reviews['stars']
    M_a, M_b, s_a, s_b = train_test_split(M, stars, test_size=0.25, random_state=7)
    joblib.dump(vec, 'vectorizer.joblib')
    {more}
"""


def test_a_fit_before_a_split_whose_parts_train_and_score_is_an_alarm(tmp_path: Path) -> None:
    more = """from sklearn.linear_model import LogisticRegression
    print(LogisticRegression().fit(M_a, s_a).score(M_b, s_b))"""
    _write(tmp_path, {"vectorize.py": LEFT_OVER.format(more=more)})
    assert ("fit_before_split", "vectorize.py", None, 8) in _alarms(tmp_path, "vectorize.py")


def test_a_fit_before_a_split_nothing_reads_again_is_silent(tmp_path: Path) -> None:
    _write(tmp_path, {"vectorize.py": LEFT_OVER.format(more="print('saved', M_a.shape, M_b.shape)")})
    assert "fit_before_split" not in _kinds(tmp_path, "vectorize.py")


# ---------------------------------------------------------------- a model file scored on its own training rows

#: a three-script project: fit on the whole table and save; load and report on the same table
PIPELINE = {
    "fit_model.py": """\
        import joblib
        import pandas as pd
        from sklearn.ensemble import GradientBoostingClassifier

        claims = pd.read_csv('data/claims_clean.csv')
        {rows}
        booster = GradientBoostingClassifier().fit(claims[['amount', 'age']], claims['fraud'])
        joblib.dump(booster, 'models/booster.joblib')
    """,
    "report.py": """\
        import joblib
        import pandas as pd
        from sklearn.metrics import classification_report

        claims = pd.read_csv('data/claims_clean.csv')
        booster = joblib.load('models/booster.joblib')
        flagged = booster.predict(claims[['amount', 'age']])
        print(classification_report(claims['fraud'], flagged))
    """,
}


def test_a_saved_model_scored_on_the_table_it_was_fitted_on(tmp_path: Path) -> None:
    _write(tmp_path, {k: v.replace("{rows}", "") for k, v in PIPELINE.items()})
    assert ("trained_on_test", "report.py", None, 7) in _alarms(tmp_path, "report.py")


def test_a_saved_model_fitted_on_the_first_rows_only_is_silent(tmp_path: Path) -> None:
    _write(tmp_path, {k: v.replace("{rows}", "claims = claims[claims['year'] < 2023]") for k, v in PIPELINE.items()})
    assert "trained_on_test" not in _kinds(tmp_path, "report.py")


def test_a_saved_model_only_predicting_new_inputs_is_silent(tmp_path: Path) -> None:
    files = {k: v.replace("{rows}", "") for k, v in PIPELINE.items()}
    files["report.py"] = files["report.py"].replace("print(classification_report(claims['fraud'], flagged))",
                                                    "claims.assign(flag=flagged).to_csv('flags.csv')")
    _write(tmp_path, files)
    assert "trained_on_test" not in _kinds(tmp_path, "report.py")
