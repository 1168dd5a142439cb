"""Review of the leakage rules session 55 added (issue 17): look-alikes a user could write that the new rules
misjudged, in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms, line_of

# speaker identification: the speaker's folder is read back out of the clip's path and is the label
SPEAKER_FROM_PATH = """\
import os
import numpy as np
import librosa
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

PATTERN = "voices/spk_*/"
vectors, who = [], []
for where, _, clips in os.walk("voices"):
    for clip in clips:
        full = os.path.join(where, clip)
        wave, rate = librosa.load(full)
        vectors.append(librosa.feature.mfcc(y=wave, sr=rate).mean(axis=1))
        who.append(full.split(os.sep)[-2])
a_tr, a_te, b_tr, b_te = train_test_split(np.array(vectors), who, test_size=0.25, stratify=who)
print(SVC().fit(a_tr, b_tr).score(a_te, b_te))
"""

# the fault: the same walk, the label is the emotion in the clip's name, the speaker is dropped
EMOTION_FROM_NAME = SPEAKER_FROM_PATH.replace('who.append(full.split(os.sep)[-2])',
                                              'who.append(clip.split("-")[2])')

# whole actors held out by the id in the clip's name; the random split only cuts the training actors
ACTORS_HELD_OUT = """\
import os
import numpy as np
import librosa
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

print("layout: ravdess/Actor_01/03-01-05-01-02-01-01.wav")
fit_x, fit_y, held_x, held_y = [], [], [], []
for where, _, clips in os.walk("ravdess"):
    for clip in clips:
        fields = clip[:-4].split("-")
        mood, actor = int(fields[2]), int(fields[6])
        wave, rate = librosa.load(os.path.join(where, clip))
        vec = librosa.feature.mfcc(y=wave, sr=rate).mean(axis=1)
        if actor >= 21:
            held_x.append(vec)
            held_y.append(mood)
        else:
            fit_x.append(vec)
            fit_y.append(mood)
x_a, x_b, y_a, y_b = train_test_split(np.array(fit_x), fit_y, test_size=0.1)
clf = SVC().fit(x_a, y_a)
print(clf.score(x_b, y_b), clf.score(np.array(held_x), held_y))
"""


def test_speaker_folder_read_back_from_the_path_is_the_label(tmp_path: Path) -> None:
    assert not any(kind == "entity_across_split" for kind, _ in alarms(tmp_path, SPEAKER_FROM_PATH))


def test_speaker_folder_dropped_and_split_at_random_still_reported(tmp_path: Path) -> None:
    assert ("entity_across_split", line_of(EMOTION_FROM_NAME, "train_test_split(")) in alarms(
        tmp_path, EMOTION_FROM_NAME)


def test_actors_held_out_by_their_id_are_a_split_by_person(tmp_path: Path) -> None:
    assert not any(kind == "entity_across_split" for kind, _ in alarms(tmp_path, ACTORS_HELD_OUT))


# a hand-written epoch loop keeping the best test accuracy with the built-in max, then printing it
BEST_BY_MAX = """\
import torch
from torch import nn
from loaders import make_loaders

fit_loader, test_loader = make_loaders()
net = nn.Linear(8, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
crit = nn.CrossEntropyLoss()
top = 0.0
for epoch in range(40):
    for xb, yb in fit_loader:
        opt.zero_grad()
        crit(net(xb), yb).backward()
        opt.step()
    hits = 0
    with torch.no_grad():
        for xb, yb in test_loader:
            hits += (net(xb).argmax(1) == yb).sum().item()
    acc = hits / len(test_loader.dataset)
    top = max(top, acc)
print("best test accuracy", top)
"""

# the look-alike: the lowest training loss kept the same way
LOWEST_TRAIN_LOSS = """\
import torch
from torch import nn
from loaders import make_loaders

fit_loader, test_loader = make_loaders()
net = nn.Linear(8, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
crit = nn.CrossEntropyLoss()
low = float("inf")
for epoch in range(40):
    total = 0.0
    for xb, yb in fit_loader:
        opt.zero_grad()
        loss = crit(net(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    train_loss = total / len(fit_loader)
    low = min(low, train_loss)
print("lowest training loss", low)
"""


def test_best_epoch_kept_with_builtin_max_on_test_rows(tmp_path: Path) -> None:
    assert ("tuned_on_test", line_of(BEST_BY_MAX, "top = max(top, acc)")) in alarms(tmp_path, BEST_BY_MAX)


def test_lowest_training_loss_kept_with_builtin_min_is_silent(tmp_path: Path) -> None:
    assert not any(kind == "tuned_on_test" for kind, _ in alarms(tmp_path, LOWEST_TRAIN_LOSS))


# a cut-off swept over the test rows, each F1 appended straight from the metric call, the best one kept
CUTS_SCORED_IN_PLACE = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

loans = pd.read_csv("loans.csv")
feats, label = loans.drop(columns="default"), loans["default"]
f_tr, f_te, y_tr, y_te = train_test_split(feats, label, test_size=0.3, random_state=3)
clf = LogisticRegression(max_iter=500).fit(f_tr, y_tr)
risk = clf.predict_proba(f_te)[:, 1]
grid = np.arange(0.1, 0.9, 0.05)
f1s = []
for cut in grid:
    f1s.append(f1_score(y_te, (risk >= cut).astype(int)))
print("cut", grid[int(np.argmax(f1s))], "f1", max(f1s))
"""

# the look-alike: the same sweep over a validation part cut from the training rows, the test scored once after
CUTS_ON_VALIDATION = CUTS_SCORED_IN_PLACE.replace(
    "clf = LogisticRegression(max_iter=500).fit(f_tr, y_tr)\nrisk = clf.predict_proba(f_te)[:, 1]\n",
    "f_fit, f_val, y_fit, y_val = train_test_split(f_tr, y_tr, test_size=0.25, random_state=3)\n"
    "clf = LogisticRegression(max_iter=500).fit(f_fit, y_fit)\nrisk = clf.predict_proba(f_val)[:, 1]\n").replace(
    "f1_score(y_te, (risk", "f1_score(y_val, (risk").replace(
    'print("cut", grid[int(np.argmax(f1s))], "f1", max(f1s))\n',
    'chosen = grid[int(np.argmax(f1s))]\n'
    'print("test f1", f1_score(y_te, (clf.predict_proba(f_te)[:, 1] >= chosen).astype(int)))\n')


def test_cut_off_scored_in_the_append_and_picked_on_test_rows(tmp_path: Path) -> None:
    assert ("tuned_on_test", line_of(CUTS_SCORED_IN_PLACE, "np.argmax(f1s)")) in alarms(
        tmp_path, CUTS_SCORED_IN_PLACE)


def test_cut_off_picked_on_a_validation_part_is_silent(tmp_path: Path) -> None:
    assert "f1_score(y_val, (risk" in CUTS_ON_VALIDATION and "chosen = grid" in CUTS_ON_VALIDATION
    assert not any(kind == "tuned_on_test" for kind, _ in alarms(tmp_path, CUTS_ON_VALIDATION))


def test_row_cuts_are_computed_once_per_tree(monkeypatch) -> None:
    """searchhandoff asks cuts_rows of every other script for each pair of scripts: one walk per tree, not per ask."""
    import ast

    from faultlib.detect.data.leakage import rowcuts

    walks = []
    real = rowcuts._shown
    monkeypatch.setattr(rowcuts, "_shown", lambda tree: walks.append(tree) or real(tree))
    tree = ast.parse("import pandas as pd\nframe = pd.read_csv('t.csv')\nhead = frame.sample(n=50)\n")
    assert rowcuts.cuts_rows(tree) and rowcuts.cuts_rows(tree) and rowcuts.cuts_rows(tree)
    assert len(walks) == 1


# UrbanSound8K's folds walked and pooled, each row keeping its fold; the tenth fold held out by that column, the
# random split only cuts a validation part from the other nine
LAST_FOLD_HELD_BY_COLUMN = """\
import os
import numpy as np
import pandas as pd
import librosa
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestClassifier

ROOT = "UrbanSound8K/audio"
parts = ["fold1", "fold2", "fold3", "fold4", "fold5", "fold6", "fold7", "fold8", "fold9", "fold10"]
records = []
for part in parts:
    for clip in os.listdir(os.path.join(ROOT, part)):
        sig, sr = librosa.load(os.path.join(ROOT, part, clip))
        records.append({"vec": librosa.feature.mfcc(y=sig, sr=sr).mean(axis=1), "cls": int(clip.split("-")[1]),
                        "fold": int(part[4:])})
table = pd.DataFrame(records)
test_rows = table[table.fold == 10]
fit_rows = table[table.fold != 10]
a_fit, a_val, b_fit, b_val = train_test_split(np.stack(fit_rows["vec"]), fit_rows["cls"], test_size=0.1)
forest = RandomForestClassifier().fit(a_fit, b_fit)
print(forest.score(a_val, b_val), forest.score(np.stack(test_rows["vec"]), test_rows["cls"]))
"""

# the fault: the same pooled table split at random, no fold held out
FOLDS_RESHUFFLED = LAST_FOLD_HELD_BY_COLUMN.replace(
    'test_rows = table[table.fold == 10]\nfit_rows = table[table.fold != 10]\n', 'fit_rows = table\n').replace(
    ', forest.score(np.stack(test_rows["vec"]), test_rows["cls"])', '')


def test_fold_held_out_through_the_rows_fold_column_is_silent(tmp_path: Path) -> None:
    assert not any(kind == "entity_across_split" for kind, _ in alarms(tmp_path, LAST_FOLD_HELD_BY_COLUMN))


def test_pooled_folds_reshuffled_without_a_held_fold_still_reported(tmp_path: Path) -> None:
    assert "test_rows" not in FOLDS_RESHUFFLED
    assert ("entity_across_split", line_of(FOLDS_RESHUFFLED, "train_test_split(")) in alarms(
        tmp_path, FOLDS_RESHUFFLED)


# each file's cepstral frames appended to a list, the list stacked row-wise after the loop, the label once per frame
FRAME_LISTS_STACKED = """\
import glob
import numpy as np
import librosa
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

pieces, species = [], []
for wav in sorted(glob.glob("calls/*.wav")):
    sound, rate = librosa.load(wav)
    coeffs = librosa.feature.mfcc(y=sound, sr=rate).T
    pieces.append(coeffs)
    species += [wav.split("_")[0]] * len(coeffs)
grid = np.vstack(pieces)
g_tr, g_te, s_tr, s_te = train_test_split(grid, species, test_size=0.2)
print(MLPClassifier().fit(g_tr, s_tr).score(g_te, s_te))
"""

# the look-alike: the same list kept as one padded sequence per file (one row per recording)
FRAME_LISTS_PADDED = FRAME_LISTS_STACKED.replace(
    "    species += [wav.split(\"_\")[0]] * len(coeffs)\n", "    species.append(wav.split(\"_\")[0])\n"
    "    longest = max(longest, len(coeffs))\n").replace("pieces, species = [], []\n", "pieces, species = [], []\n"
                                                        "longest = 0\n").replace(
    "grid = np.vstack(pieces)\n", "grid = np.stack([np.pad(p, ((0, longest - len(p)), (0, 0))) for p in pieces])"
    ".reshape(len(pieces), -1)\n")


def test_frames_appended_then_stacked_after_the_loop_split_row_by_row(tmp_path: Path) -> None:
    assert ("entity_across_split", line_of(FRAME_LISTS_STACKED, "train_test_split(")) in alarms(
        tmp_path, FRAME_LISTS_STACKED)


def test_frames_padded_into_one_row_per_file_are_silent(tmp_path: Path) -> None:
    assert "np.pad" in FRAME_LISTS_PADDED and "longest = 0" in FRAME_LISTS_PADDED
    assert not any(kind == "entity_across_split" for kind, _ in alarms(tmp_path, FRAME_LISTS_PADDED))
