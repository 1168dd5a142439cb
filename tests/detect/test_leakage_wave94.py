"""The static leakage analysis on the kinds held-out wave 94 of public code showed (audio clips of one speaker or one
recording on both sides of a random split, a data set's own folds pooled and reshuffled), in both directions. Every
example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms, line_of

# every cepstral frame of each bird-call file becomes a row; the file's label is repeated per frame; frames split
FRAMES_STACKED = """\
import os
import numpy as np
from python_speech_features import mfcc
from scipy.io import wavfile
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

calls = [name for name in os.listdir("calls") if name.endswith(".wav")]
rows = None
tags = []
for name in calls:
    rate, sound = wavfile.read(os.path.join("calls", name))
    coeffs = mfcc(sound, rate)
    if rows is None:
        rows = coeffs
    else:
        rows = np.vstack((rows, coeffs))
    tags.extend([name.split("_")[0]] * coeffs.shape[0])
a_tr, a_te, b_tr, b_te = train_test_split(rows, np.array(tags), test_size=0.3)
print(SVC().fit(a_tr, b_tr).score(a_te, b_te))
"""

# the look-alike: one averaged vector per file (one row per recording), stacked the same way
ONE_ROW_PER_FILE = FRAMES_STACKED.replace("    coeffs = mfcc(sound, rate)\n",
                                          "    coeffs = mfcc(sound, rate).mean(axis=0)\n").replace(
    "    tags.extend([name.split(\"_\")[0]] * coeffs.shape[0])\n", "    tags.append(name.split(\"_\")[0])\n")

# clips of every actor's folder pooled, the emotion parsed from the clip's name, then a random split
ACTOR_FOLDERS = """\
import os
import numpy as np
import librosa
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

sample, rate = librosa.load("corpus/Actor_03/03-01-04-02-01-02-03.wav")
pool = []
for folder, _, clips in os.walk("corpus"):
    for clip in clips:
        wave, rate = librosa.load(os.path.join(folder, clip))
        vector = np.mean(librosa.feature.mfcc(y=wave, sr=rate, n_mfcc=30).T, axis=0)
        pool.append((vector, int(clip[6:8]) - 1))
feats, moods = zip(*pool)
feats = np.asarray(feats)
f_tr, f_te, m_tr, m_te = train_test_split(feats, np.asarray(moods), test_size=0.25)
print(MLPClassifier().fit(f_tr, m_tr).score(f_te, m_te))
"""

# the look-alike: speaker identification, the folder is the label (every speaker must be on both sides)
SPEAKER_IS_LABEL = ACTOR_FOLDERS.replace(
    "        pool.append((vector, int(clip[6:8]) - 1))\n",
    "        pool.append((vector, os.path.basename(folder)))\n")

# the data set's ten folds pooled into one list of clips, then a random test part
POOLED_FOLDS = """\
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestClassifier

parts = ["fold1", "fold2", "fold3", "fold4", "fold5", "fold6", "fold7", "fold8", "fold9", "fold10"]
xs, ys = [], []
for part in parts:
    saved = np.load(f"features/{part}.npz")
    xs.append(saved["x"])
    ys.append(saved["y"])
x_all = np.concatenate(xs)
y_all = np.concatenate(ys)
x_tr, x_te, y_tr, y_te = train_test_split(x_all, y_all, test_size=0.2)
print(RandomForestClassifier().fit(x_tr, y_tr).score(x_te, y_te))
"""

# the look-alike: each fold held out in turn, as the data set's authors ask
LEAVE_ONE_FOLD_OUT = """\
import numpy as np
from sklearn.ensemble import RandomForestClassifier

parts = ["fold1", "fold2", "fold3", "fold4", "fold5"]
for held in parts:
    xs, ys = [], []
    for part in parts:
        if part == held:
            continue
        saved = np.load(f"features/{part}.npz")
        xs.append(saved["x"])
        ys.append(saved["y"])
    test = np.load(f"features/{held}.npz")
    model = RandomForestClassifier().fit(np.concatenate(xs), np.concatenate(ys))
    print(held, model.score(test["x"], test["y"]))
"""


def test_frames_of_each_file_split_row_by_row_put_one_recording_on_both_sides(tmp_path: Path) -> None:
    assert ("entity_across_split", line_of(FRAMES_STACKED, "train_test_split(rows")) in alarms(tmp_path,
                                                                                              FRAMES_STACKED)


def test_one_averaged_row_per_file_is_no_frame_stack(tmp_path: Path) -> None:
    assert not any(kind == "entity_across_split" for kind, _ in alarms(tmp_path, ONE_ROW_PER_FILE))


def test_clips_of_actor_folders_split_at_random_mix_the_actors(tmp_path: Path) -> None:
    assert ("entity_across_split", line_of(ACTOR_FOLDERS, "train_test_split(feats")) in alarms(tmp_path,
                                                                                              ACTOR_FOLDERS)


def test_speaker_folders_as_labels_are_speaker_identification(tmp_path: Path) -> None:
    assert not any(kind == "entity_across_split" for kind, _ in alarms(tmp_path, SPEAKER_IS_LABEL))


def test_predefined_folds_pooled_and_split_at_random(tmp_path: Path) -> None:
    assert ("entity_across_split", line_of(POOLED_FOLDS, "train_test_split(x_all")) in alarms(tmp_path,
                                                                                             POOLED_FOLDS)


def test_leave_one_fold_out_keeps_the_predefined_folds(tmp_path: Path) -> None:
    assert not any(kind == "entity_across_split" for kind, _ in alarms(tmp_path, LEAVE_ONE_FOLD_OUT))

# an out-of-fold target encoding whose gaps are filled with the label mean of every row, then lightgbm's own CV
PRIOR_OF_EVERY_ROW = """\
import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.model_selection import KFold

loans = pd.read_csv("loans.csv")
outcome = "repaid"
kinds = ["purpose", "region"]
splitter = KFold(5, shuffle=True, random_state=3)
overall = loans[outcome].mean()
for kind in kinds:
    coded = np.zeros(len(loans))
    for keep_idx, code_idx in splitter.split(loans):
        rates = loans.iloc[keep_idx].groupby(kind)[outcome].mean()
        coded[code_idx] = loans.iloc[code_idx][kind].map(rates).fillna(overall)
    loans["rate_" + kind] = coded
features = loans.drop(columns=[outcome] + kinds)
history = lgb.cv({"objective": "binary"}, lgb.Dataset(features, label=loans[outcome]), nfold=5, stratified=True)
print(history)
"""

# the look-alike: the test part is cut first, the encoding (its prior too) learnt on the training part only
PRIOR_OF_TRAINING_PART = """\
import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold, train_test_split

loans = pd.read_csv("loans.csv")
outcome = "repaid"
fit_part, held_part = train_test_split(loans, test_size=0.2, random_state=3)
fit_part = fit_part.reset_index(drop=True)
splitter = KFold(5, shuffle=True, random_state=3)
overall = fit_part[outcome].mean()
coded = np.zeros(len(fit_part))
for keep_idx, code_idx in splitter.split(fit_part):
    rates = fit_part.iloc[keep_idx].groupby("purpose")[outcome].mean()
    coded[code_idx] = fit_part.iloc[code_idx]["purpose"].map(rates).fillna(overall)
fit_part["rate_purpose"] = coded
held_part["rate_purpose"] = held_part["purpose"].map(fit_part.groupby("purpose")[outcome].mean()).fillna(overall)
model = lgb.LGBMClassifier().fit(fit_part[["amount", "rate_purpose"]], fit_part[outcome])
print(roc_auc_score(held_part[outcome], model.predict_proba(held_part[["amount", "rate_purpose"]])[:, 1]))
"""


def test_label_mean_of_every_row_in_an_out_of_fold_encoding_before_the_cv(tmp_path: Path) -> None:
    assert ("fit_outside_cv", line_of(PRIOR_OF_EVERY_ROW, "overall = loans")) in alarms(tmp_path, PRIOR_OF_EVERY_ROW)


def test_label_mean_of_the_training_part_before_a_held_out_test_is_clean(tmp_path: Path) -> None:
    found = alarms(tmp_path, PRIOR_OF_TRAINING_PART)
    assert not any(kind in ("fit_outside_cv", "fit_before_split") for kind, _ in found), found

# a profit function of the notebook's own swept over cut-offs on the labelled test frame, the best cut-off kept
PROFIT_SWEEP_ON_TEST = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

apps = pd.read_csv("applications.csv")
X_fit, X_test, y_fit, y_test = train_test_split(apps[["income", "debt"]], apps["good"], test_size=0.3)
clf = LogisticRegression().fit(X_fit, y_fit)
X_test = X_test.copy()
X_test["points"] = clf.predict_proba(X_test[["income", "debt"]])[:, 1]
X_test["good"] = y_test.values


def margin(frame, cutoff):
    granted = frame["points"] >= cutoff
    return (np.where(granted & (frame["good"] == 1), 0.1, 0) - np.where(granted & (frame["good"] == 0), 1, 0)).sum()


rows = []
for cut in np.linspace(0, 1, 40):
    earned = margin(X_test, cutoff=cut)
    rows.append({"cut": cut, "earned": earned})
sweep = pd.DataFrame(rows)
chosen = sweep.loc[sweep["earned"].idxmax(), "cut"]
print(chosen, sweep["earned"].max())
"""

# the look-alike: the same sweep on a validation part cut from the training rows; the test part is scored once
PROFIT_SWEEP_ON_VALIDATION = PROFIT_SWEEP_ON_TEST.replace(
    "X_fit, X_test, y_fit, y_test = train_test_split(",
    "X_rest, X_test, y_rest, y_test = train_test_split(").replace(
    "clf = LogisticRegression()",
    "X_fit, X_val, y_fit, y_val = train_test_split(X_rest, y_rest, test_size=0.25)\n"
    "clf = LogisticRegression()").replace(
    'X_test["good"] = y_test.values\n',
    'X_test["good"] = y_test.values\n'
    'X_val = X_val.copy()\n'
    'X_val["points"] = clf.predict_proba(X_val[["income", "debt"]])[:, 1]\n'
    'X_val["good"] = y_val.values\n').replace(
    "margin(X_test, cutoff=cut)", "margin(X_val, cutoff=cut)").replace(
    'print(chosen, sweep["earned"].max())', "print(chosen, margin(X_test, cutoff=chosen))")

# the look-alike: every cut-off's profit on the test rows is only printed, none is kept
PROFIT_SWEEP_PRINTED = PROFIT_SWEEP_ON_TEST.replace(
    'chosen = sweep.loc[sweep["earned"].idxmax(), "cut"]\nprint(chosen, sweep["earned"].max())\n', "print(sweep)\n")


def test_a_profit_cutoff_swept_on_the_labelled_test_frame_is_tuned_on_test(tmp_path: Path) -> None:
    assert ("tuned_on_test", line_of(PROFIT_SWEEP_ON_TEST, "idxmax()")) in alarms(tmp_path, PROFIT_SWEEP_ON_TEST)


def test_a_profit_cutoff_swept_on_validation_rows_is_clean(tmp_path: Path) -> None:
    assert "margin(X_val, cutoff=cut)" in PROFIT_SWEEP_ON_VALIDATION and "y_val.values" in PROFIT_SWEEP_ON_VALIDATION
    assert not any(kind == "tuned_on_test" for kind, _ in alarms(tmp_path, PROFIT_SWEEP_ON_VALIDATION))


def test_a_profit_curve_only_printed_chooses_nothing(tmp_path: Path) -> None:
    assert "idxmax" not in PROFIT_SWEEP_PRINTED
    assert not any(kind == "tuned_on_test" for kind, _ in alarms(tmp_path, PROFIT_SWEEP_PRINTED))
