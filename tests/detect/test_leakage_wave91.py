"""The static leakage analysis on the kinds a held-out wave of text-classification and sensor projects showed (issue
17, wave 91: spam and sentiment classifiers, EEG emotion and wearable activity recognition), in both directions:

* overlapping windows of one series (a hop smaller than the window, both written as numbers; or bounds yielded by a
  generator whose start advances by half a window) split at random -- by ``KFold(shuffle=True)`` or by a random
  boolean mask and its negation -- are ``shuffled_time_split``; windows that do not overlap, and a mask of the
  data's own values, stay silent.

Every example is a small project written for this test (no public code)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".ipynb"):
            cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                      "source": textwrap.dedent(c)} for c in text.split("# %%\n")]
            path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        else:
            path.write_text(textwrap.dedent(text))


def _alarms(root: Path, entry: str) -> set[tuple[str, str, object, int]]:
    """(kind, file name, cell or None, line) of every finding at warning or above."""
    report, _ = analyze_file(str(root / entry))
    return {(f.kind, Path(f.location.get("file", "")).name, f.location.get("index"), f.location.get("line"))
            for f in report.findings if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


def _kinds(root: Path, entry: str) -> set[str]:
    return {a[0] for a in _alarms(root, entry)}


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
