"""The static leakage analysis on the kinds a held-out wave of NLP courses, competition solutions and CTR code
showed (issue 17, wave 74: the folds' test predictions kept in a list, stacked and averaged over the folds, read as
a statistic of the test rows; a text corpus built by a loop that writes each row out with ``str()`` before
cleaning it, whose vectorizer was fitted before the split; a Trainer's or a Lightning checkpoint's best score on
the set that chose it, reported; old scikit-learn folds listed with ``list()``), each in both directions: the leak
found at its line, the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a made-up set of reviews kept as one pickled list of byte strings, and their labels
PICKLED_REVIEWS = """\
        import re
        import pickle
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.metrics import accuracy_score
        with open("reviews.pkl", "rb") as handle:
            reviews = pickle.load(handle)
        stars = np.load("stars.npy")
"""

#: a made-up keyword-spotting task: training clips, the competition's clips to label and a fold splitter
CLIPS = """\
        import torch
        from sklearn.model_selection import StratifiedKFold
        train = pd.read_csv("train_clips.csv")
        test = pd.read_csv("sample_submission.csv")
        folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=1)
        loader = make_loader(test.path.values.tolist())
"""

#: a made-up sentence-pair task tokenized into a training and a validation set (no labelled test set)
PAIRS = """\
        from datasets import load_dataset
        from transformers import Trainer, TrainingArguments
        pairs = load_dataset("pairs_corpus")
        tok_train = pairs["train"].map(encode)
        tok_val = pairs["validation"].map(encode)
        settings = TrainingArguments(output_dir="out", eval_strategy="epoch", save_strategy="epoch",
                                     load_best_model_at_end=True, metric_for_best_model="accuracy")
"""

#: one run of that trainer, scored by evaluate() without a dataset
TRAINER_RUN = """\
        tuner = Trainer(model=net, args=settings, train_dataset=tok_train, eval_dataset=tok_val)
        tuner.train()
        print(tuner.evaluate())
"""

#: a made-up Lightning setup: a module class and a data module per fold
LIGHTNING = """\
        import pytorch_lightning as pl
        from pytorch_lightning.callbacks import ModelCheckpoint
        fold_scores = []
"""

#: a made-up table as arrays, and the folds of a pre-0.18 scikit-learn splitter listed
OLD_FOLDS = """\
        from sklearn.cross_validation import StratifiedKFold as OldStratifiedKFold
        from sklearn.ensemble import RandomForestClassifier, AdaBoostClassifier
        Xa, ya = table.drop(columns=["label"]).values, table["label"].values
        splits = list(OldStratifiedKFold(ya, 5))
"""

#: five folds, each trained with a checkpoint that keeps its best validation accuracy, whose best score is kept
FOLD_RUNS = """\
        for fold in range(5):
            keeper = ModelCheckpoint(dirpath="ckpt", monitor="val_acc", mode="max")
            runner = pl.Trainer(max_epochs=20, callbacks=[keeper])
            runner.fit(SentimentModule(), FoldData(fold))
            fold_scores.append(float(keeper.best_model_score))
"""

LEAKS = {
    # each review written out with str() and cleaned in a loop over every index, TF-IDF on all of them, then split
    "vectorizer_on_a_loop_built_corpus_of_str_rows_then_split": (PICKLED_REVIEWS + """\
        texts = []
        for k in range(len(reviews)):
            text = re.sub(r"[^a-z ]", " ", str(reviews[k]).lower())
            texts.append(text)
        features = TfidfVectorizer(min_df=2).fit_transform(texts)
        f_tr, f_te, s_tr, s_te = train_test_split(features, stars, test_size=0.25)
        clf = LogisticRegression().fit(f_tr, s_tr)
        print(accuracy_score(s_te, clf.predict(f_te)))
""", [("fit_before_split", 12)]),
    # the same corpus with a literal count of rows, the row written out with str() first
    "vectorizer_on_the_first_rows_written_as_text_then_split": (PICKLED_REVIEWS + """\
        texts = []
        for k in range(0, 500):
            raw = str(reviews[k])
            texts.append(re.sub(r"\\s+", " ", raw))
        features = TfidfVectorizer().fit_transform(texts).toarray()
        f_tr, f_te, s_tr, s_te = train_test_split(features, stars[:500])
        print(LogisticRegression().fit(f_tr, s_tr).score(f_te, s_te))
""", [("fit_before_split", 12)]),
    # a list filled in a loop that is not over folds (one item per clip file): no fold axis is known, so the mean
    # over its first axis is still read as a statistic of the held-out clips (the rule stays with fold loops)
    "clip_outputs_appended_per_file_stacked_and_averaged": (CLIPS + """\
        preds_test = []
        for part in ["a", "b"]:
            preds_test.append(torch.sigmoid(torch.as_tensor(run_inference(model, loader, part))).numpy())
        preds_test = np.stack(preds_test)
        test[test.columns[1:]] = preds_test.mean(0)
        test.to_csv("submission.csv", index=False)
""", [("fit_on_test", 11)]),
    # the best epoch kept by the validation accuracy, then evaluate() with no dataset reports it on the same rows
    "trainer_best_checkpoint_then_evaluate_on_the_same_set": (PAIRS + TRAINER_RUN, [("tuned_on_test", 9)]),
    # each fold's best validation accuracy over the epochs is collected as that fold's score
    "lightning_best_model_score_collected_as_the_fold_score": (LIGHTNING + FOLD_RUNS + """\
        print(np.mean(fold_scores))
""", [("tuned_on_test", 7)]),
    # the scaler learns on every row, then each listed fold is scored
    "scaler_on_every_row_then_the_listed_old_folds_scored": (OLD_FOLDS + """\
        Xs = StandardScaler().fit_transform(Xa)
        for train, test in splits:
            model = LogisticRegression().fit(Xs[train], ya[train])
            print(model.score(Xs[test], ya[test]))
""", [("fit_outside_cv", 5)]),
}

HEALTHY = {
    # one list item per fold: every fold model's outputs for all the clips to label, averaged over the folds
    "fold_outputs_appended_stacked_and_averaged_over_folds": (CLIPS + """\
        preds_test = []
        for fold, (fit_idx, val_idx) in enumerate(folds.split(train.path, train.word)):
            model.load_state_dict(torch.load(f"fold{fold}.pth"))
            preds_test.append(torch.sigmoid(torch.as_tensor(run_inference(model, loader))).numpy())
        preds_test = np.stack(preds_test)
        test[test.columns[1:]] = preds_test.mean(0)
        test.to_csv("submission.csv", index=False)
""", []),
    # the same with np.mean over the first axis of an array of the list, the folds counted by a range
    "fold_outputs_from_a_counted_fold_loop_averaged_by_np_mean": (CLIPS + """\
        test_probs = []
        for fold in range(4):
            model.load_state_dict(torch.load(f"fold{fold}.pth"))
            test_probs.append(run_inference(model, loader))
        test_probs = np.array(test_probs)
        test[test.columns[1:]] = np.mean(test_probs, axis=0)
        test.to_csv("submission.csv", index=False)
""", []),
    # the reviews cleaned in the loop, but the vectorizer learns on the training part only
    "vectorizer_fitted_on_the_training_part_of_a_loop_built_corpus": (PICKLED_REVIEWS + """\
        texts = []
        for k in range(len(reviews)):
            texts.append(re.sub(r"[^a-z ]", " ", str(reviews[k]).lower()))
        t_tr, t_te, s_tr, s_te = train_test_split(texts, stars, test_size=0.25)
        vec = TfidfVectorizer(min_df=2).fit(t_tr)
        clf = LogisticRegression().fit(vec.transform(t_tr), s_tr)
        print(accuracy_score(s_te, clf.predict(vec.transform(t_te))))
""", []),
    # the same trainer, but the reported score is on a test set it is given
    "trainer_best_checkpoint_then_evaluate_on_a_separate_test_set": (PAIRS + """\
        tok_test = pairs["test"].map(encode)
        tuner = Trainer(model=net, args=settings, train_dataset=tok_train, eval_dataset=tok_val)
        tuner.train()
        print(tuner.evaluate())
        print(tuner.evaluate(tok_test))
""", []),
    # evaluation every epoch, but no checkpoint is chosen by it: evaluate() reports the last epoch
    "trainer_without_best_checkpoint_then_evaluate": (
        PAIRS.replace("load_best_model_at_end=True", "save_total_limit=1") + TRAINER_RUN, []),
    # the checkpoint kept by the training loss: its best value is no held-out score
    "lightning_best_training_loss_printed": (
        LIGHTNING + FOLD_RUNS.replace('monitor="val_acc", mode="max"', 'monitor="train_loss", mode="min"'), []),
    # the best checkpoint's path loaded back and scored by the trainer's test loop on other rows
    "lightning_best_checkpoint_loaded_and_tested_elsewhere": (LIGHTNING + """\
        keeper = ModelCheckpoint(dirpath="ckpt", monitor="val_acc", mode="max")
        runner = pl.Trainer(max_epochs=20, callbacks=[keeper])
        runner.fit(SentimentModule(), FoldData(0))
        best = SentimentModule.load_from_checkpoint(keeper.best_model_path)
        print(runner.test(best, datamodule=HeldOutData()))
""", []),
    # stacking: each base model's out-of-fold predictions over the listed folds, a blender on top, rescaled
    "stacking_over_listed_old_folds": (OLD_FOLDS + """\
        models = [RandomForestClassifier(), AdaBoostClassifier()]
        blend = np.zeros((len(ya), len(models)))
        for j, clf in enumerate(models):
            for i, (train, test) in enumerate(splits):
                X_train, y_train, X_test = Xa[train], ya[train], Xa[test]
                clf.fit(X_train, y_train)
                blend[test, j] = clf.predict_proba(X_test)[:, 1]
        top = LogisticRegression().fit(blend, ya).predict_proba(blend)[:, 1]
        top = (top - top.min()) / (top.max() - top.min())
""", []),
}

EXPECTED = {**LEAKS, **HEALTHY}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wave_74_alarms_are_the_leaks_and_only_them(tmp_path, name):
    body, expected = EXPECTED[name]
    assert alarms(tmp_path, body) == expected
