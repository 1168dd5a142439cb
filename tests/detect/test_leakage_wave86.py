"""The static leakage analysis on the kinds a held-out wave of biomedical code showed (issue 17, wave 86: EEG, EMG
and ECG recordings, hospital readmissions), in both directions:

* a difference taken inside one recording and summed up there (``np.sum(np.diff(sig) ** 2, axis=1)`` in a feature
  function given one file's recording a pass) is that recording's own feature, no lag across the rows that are
  split (samplediffs.py; the file's path joined from a folder parameter and the listed name: peritem.py); a
  difference over the stacked rows is still a lag;
* a patient id spelt as a number (``patient_nbr``, ``subject_no``) is an entity id like ``patient_id``: counted per
  patient (``groupby('patient_nbr').cumcount()``), dropped, then split row by row, one patient's encounters sit on
  both sides (vocab.ENTITY_COLUMN); a group split by it, or a count per shop number, stays silent;
* ``sklearn.utils.resample(..., replace=False, n_samples=k)`` of one class's rows draws that class down, an
  under-sampler like ``RandomUnderSampler``: before the split, the test part is cut from the rebalanced rows
  (classdraws.py); a subsample of every row, a stratified draw or a draw of the training part's class is silent;
* overlapping windows cut from a channels-first recording (``rec[:, start:stop]``, ``stop = start + width`` bound
  in the loop) are windows (windows.py); only the windows' rows are a window split: the recording's own samples
  split elsewhere in the same script are not (design.py), nor is the held-out part parted again into validation and
  test; windows written one file per recording under a fixed ending and read back by a listing filtered on it keep
  their windows (filefamilies.py), a listing filtered on another ending or only on the file type does not;
* PyTorch's ``random_split`` is a shuffled split (the last part the test part) and ``TensorDataset`` holds its first
  tensor's rows; a Lightning data module's ``setup`` runs when a trainer is given it (datamodules.py): a min-max or
  z-score of every row in the data module's constructor is a fit before that split, and windows split by it are a
  shuffled time split; a per-sample scaling, or a data module no trainer sets up, is silent;
* a file read by a loading helper of another module at the path the importing script passes is that script's read
  (helperreads.py): a column filter over every row written by one script reaches the split of another; a helper
  that replaces the path, or a call given another file, links nothing;
* a helper that returns the threshold its precision-recall curve scored best on the labels it is given, called with
  the test labels, the predictions at that threshold then scored on the same labels by the caller (directly or
  through a scoring helper), is a threshold tuned on the test rows (thresholdhelpers.py); called with validation
  labels, or its threshold only printed or applied to other rows, it is silent;
* a variance filter whose spread is bound to a name first (``v = X.var(axis=0)``, then ``X.loc[:, v > v.quantile(.1)]``)
  is a fit of every row before the split (spreadfilters.py); the same filter of the training part is silent.

Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def alarms(tmp_path, program: str, name: str = "study.py") -> list[tuple[str, int]]:
    """(kind, line) of every finding at warning or above in ``program`` (a whole script)."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(program))
    report, _ = analyze_file(str(path))
    assert report.complete, report.stopped
    return [(f.kind, f.location["line"]) for f in report.findings if f.severity >= Severity.WARNING]


#: one feature row per recording file: a variance and the mean absolute first difference of each channel
RECORDINGS = """\
    import os
    import mne
    import numpy as np
    from sklearn.model_selection import cross_val_score, KFold
    from sklearn.linear_model import LogisticRegression

    def read_trace(path):
        rec = mne.io.read_raw_edf(path, preload=True)
        rec = rec.resample(128)
        return rec.get_data()

    def describe(trace):
        cols = [np.var(trace, axis=1)]
        cols.append(np.mean(np.abs(np.diff(trace)), axis=1))
        return np.column_stack(cols)

    def gather(folder):
        rows, marks = [], []
        for fname in sorted(os.listdir(folder)):
            trace = read_trace(os.path.join(folder, fname))
            rows.append(describe(trace).ravel())
            marks.append(int("_task" in fname))
        return np.array(rows), np.array(marks)

    feats, target = gather("sessions")
"""
SHUFFLED_CV = """\
    print(cross_val_score(LogisticRegression(), feats, target, cv=KFold(4, shuffle=True, random_state=0)).mean())
"""

#: hospital encounters, several per patient, with an ordinal of the encounter per patient
ENCOUNTERS = """\
    import pandas as pd
    from sklearn.model_selection import train_test_split, GroupShuffleSplit
    from sklearn.ensemble import RandomForestClassifier
    visits = pd.read_csv("encounters.csv")
    visits["nth_stay"] = visits.groupby("patient_nbr").cumcount() + 1
"""
ROW_SPLIT = """\
    feats = visits.drop(columns=["patient_nbr", "readmit"])
    f_tr, f_te, t_tr, t_te = train_test_split(feats, visits["readmit"], test_size=0.2, random_state=0)
    print(RandomForestClassifier().fit(f_tr, t_tr).score(f_te, t_te))
"""

#: windows of two classes, the majority drawn down inside a helper, the split inside another
def balanced_windows(source: str, draw: str = "replace=False, n_samples=300") -> str:
    """A helper draws class 0 of ``source`` down with ``resample(..., <draw>)``; a second helper splits and scores."""
    return f"""\
    import numpy as np
    from sklearn.utils import resample
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC
    wins, marks = np.load("wins.npy"), np.load("marks.npy")

    def draw_down(feats, labels):
        many, many_y = {source}
        few, few_y = feats[labels == 1], labels[labels == 1]
        kept, kept_y = resample(many, many_y, {draw}, random_state=0)
        return np.concatenate([kept, few]), np.concatenate([kept_y, few_y])

    def fit_and_score(feats, labels):
        a, b, c, d = train_test_split(feats, labels, test_size=0.3, stratify=labels, random_state=0)
        return SVC().fit(a, c).score(b, d)
"""

DRAWN_DOWN_THEN_SPLIT = balanced_windows("feats[labels == 0], labels[labels == 0]") + """\
    print(fit_and_score(*draw_down(wins, marks)))
"""

#: a recording cut into windows of 256 samples at a hop of half a window, along the samples of every channel
def windows_of(hop: str = "width // 2") -> str:
    return f"""\
    import os
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier

    def windows(rec, onsets, width=256):
        step = {hop}
        n_ch, n_t = rec.shape
        cuts, tags = [], []
        for first in range(0, n_t - width + 1, step):
            last = first + width
            cuts.append(rec[:, first:last])
            tags.append(int(onsets[last - 1]))
        return np.stack(cuts), np.array(tags)
"""

WINDOW_SPLIT = """\
    W, t = windows(np.load("rec.npy"), np.load("onsets.npy"))
    W = W.reshape(len(W), -1)
    p, q, r, s = train_test_split(W, t, test_size=0.3, random_state=0)
    print(KNeighborsClassifier().fit(p, r).score(q, s))
"""


def family(ending: str = "_win.npz", filtered: str = "_win.npz") -> str:
    """Windows written one file per recording under ``ending``, read back by a listing filtered on ``filtered``."""
    return windows_of() + f"""\

    def write_all(src, dst):
        for name in os.listdir(src):
            W, t = windows(np.load(os.path.join(src, name)), np.load(os.path.join(src, "onsets", name)))
            np.savez(os.path.join(dst, f"{{name[:-4]}}{ending}"), X=W, y=t)

    def read_all(folder):
        xs, ys = [], []
        for name in sorted(os.listdir(folder)):
            if name.endswith("{filtered}"):
                part = np.load(os.path.join(folder, name))
                xs.append(part["X"])
                ys.append(part["y"])
        return np.concatenate(xs), np.concatenate(ys)

    write_all("recs", "cut")
    W, t = read_all("/data/cut")
    p, q, r, s = train_test_split(W.reshape(len(W), -1), t, test_size=0.3, random_state=0)
    print(KNeighborsClassifier().fit(p, r).score(q, s))
"""


def data_module(scale: str, given: bool = True, cut: str = "") -> str:
    """A Lightning data module whose constructor runs ``scale`` on ``X`` and whose setup splits 70/10/20."""
    fed = "trainer.fit(net, datamodule=parts)" if given else "print(parts)"
    return f"""\
    import torch
    import pytorch_lightning as pl
    from torch.utils.data import DataLoader, TensorDataset, random_split
{cut}
    class Parts(pl.LightningDataModule):
        def __init__(self, X, y):
            super().__init__()
            {scale}
            self.X, self.y = X, y

        def setup(self, stage=None):
            full = TensorDataset(self.X, self.y)
            self.fit_ds, self.val_ds, self.test_ds = random_split(full, [0.7, 0.1, 0.2])

        def train_dataloader(self):
            return DataLoader(self.fit_ds, batch_size=128, shuffle=True)

    samples, gestures = torch.load("samples.pt"), torch.load("gestures.pt")
    net = torch.nn.Linear(8, 7)
    trainer = pl.Trainer(max_epochs=3)
    parts = Parts(samples, gestures)
    {fed}
"""


#: overlapping windows of the samples, cut before the data module gets them
WINDOWED = """\

    def windows(table, width=16):
        out = []
        for j in range(0, len(table) - width + 1):
            stop = j + width
            out.append(torch.tensor(table[j:stop]))
        return torch.stack(out)
"""

#: a utility that returns the F1-best threshold of a precision-recall curve, and one that prints metrics
THRESHOLD_UTILS = """\
    import numpy as np
    from sklearn.metrics import precision_recall_curve, f1_score, recall_score
    from sklearn.model_selection import train_test_split
    from sklearn.ensemble import GradientBoostingClassifier

    def f1_cut(truth, scores):
        prec, rec, cuts = precision_recall_curve(truth, scores)
        f1 = 2 * prec[:-1] * rec[:-1] / (prec[:-1] + rec[:-1] + 1e-9)
        best = int(np.argmax(f1))
        return float(cuts[best]), float(f1[best])

    def show(truth, labels):
        print(f1_score(truth, labels), recall_score(truth, labels))

    feats, flag = np.load("feats.npy"), np.load("flag.npy")
    f_tr, f_te, g_tr, g_te = train_test_split(feats, flag, test_size=0.25, random_state=4)
    f_fit, f_val, g_fit, g_val = train_test_split(f_tr, g_tr, test_size=0.25, random_state=4)
    gbm = GradientBoostingClassifier().fit(f_fit, g_fit)
    p_val, p_te = gbm.predict_proba(f_val)[:, 1], gbm.predict_proba(f_te)[:, 1]
"""

#: an expression table of cell lines and a response
GENES = """\
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import ElasticNet
    expr = pd.read_csv("expression.csv", index_col=0)
    resp = pd.read_csv("response.csv", index_col=0)["ic50"]
"""

LEAKS = {
    # a first difference over the stacked recordings' rows: each row gets the previous row's value
    "difference_across_the_stacked_rows": (RECORDINGS + """\
    feats = np.column_stack([feats, np.diff(feats[:, 0], prepend=0.0)])
""" + SHUFFLED_CV, [("shuffled_time_split", 27)]),
    # the patient number groups the encounters, then is dropped before a row-by-row split
    "patient_number_grouped_then_split_row_by_row": (ENCOUNTERS + ROW_SPLIT, [("entity_across_split", 7)]),
    # the same id spelt subject_no
    "subject_number_grouped_then_split_row_by_row": (ENCOUNTERS.replace(
        'visits.groupby("patient_nbr").cumcount() + 1', 'visits.groupby("subject_no").cumcount() + 1')
        + ROW_SPLIT, [("entity_across_split", 7)]),
    # the majority class drawn down without replacement to a size, then the split of the balanced rows
    "majority_class_drawn_down_before_the_split": (DRAWN_DOWN_THEN_SPLIT, [("fit_before_split", 10)]),
    # the class's rows bound to names first
    "majority_class_bound_then_drawn_down_before_the_split": (balanced_windows(
        "feats[labels == 0], labels[labels == 0]").replace("many, many_y = feats", "many = feats").replace(
        ", labels[labels == 0]\n", "\n        many_y = labels[labels == 0]\n").replace(
        "random_state=0)\n        return", "random_state=0)\n        return") + """\
    print(fit_and_score(*draw_down(wins, marks)))
""", [("fit_before_split", 11)]),
    # half-overlapping windows of every channel, split with shuffling
    "half_overlapping_channel_windows_split_with_shuffling": (windows_of() + WINDOW_SPLIT,
                                                               [("shuffled_time_split", 18)]),
    # the held-out windows parted again into validation and test: the first split is the leak, the second none
    "held_out_windows_parted_again": (windows_of() + WINDOW_SPLIT.replace(
        "    print(KNeighborsClassifier", "    q1, q2, s1, s2 = train_test_split(q, s, test_size=0.5, random_state=0)\n"
        "    print(KNeighborsClassifier"), [("shuffled_time_split", 18)]),
    # the windows reach the split through one file per recording, read back by their ending
    "windows_through_a_family_of_files": (family(), [("shuffled_time_split", 33)]),
    # z-scored over every row in the constructor, then random_split in setup, which the trainer runs
    "data_module_standardised_before_its_split": (data_module(
        "X = (X - X.mean(dim=0)) / X.std(dim=0)"), [("fit_before_split", 8)]),
    # min-max scaled in place over every row
    "data_module_min_max_scaled_in_place": (data_module(
        "X -= X.min(dim=0, keepdim=True).values"), [("fit_before_split", 8)]),
    # overlapping windows handed to the data module and split there with shuffling
    "windows_split_by_the_data_module": (data_module("X = X.float()", cut=WINDOWED).replace(
        "parts = Parts(samples, gestures)", "parts = Parts(windows(samples), gestures[15:])"),
        [("shuffled_time_split", 20)]),
    # the threshold chosen on the test labels, applied to the test scores, scored by a printing helper
    "threshold_helper_on_the_test_labels_scored_by_a_helper": (THRESHOLD_UTILS + """\
    cut, top = f1_cut(g_te, p_te)
    show(g_te, (p_te >= cut).astype(int))
""", [("tuned_on_test", 20)]),
    # ... the predictions at it built first, then scored by a metric
    "threshold_helper_on_the_test_labels_scored_directly": (THRESHOLD_UTILS + """\
    cut, top = f1_cut(g_te, p_te)
    at_cut = p_te >= cut
    print(f1_score(g_te, at_cut))
""", [("tuned_on_test", 20)]),
    # genes kept by their variance over every cell line (above the 10th percentile), then the split
    "named_variance_filter_before_the_split": (GENES + """\
    spread = expr.var(axis=0)
    expr = expr.loc[:, spread > spread.quantile(0.10)]
    e_tr, e_te, r_tr, r_te = train_test_split(expr, resp, test_size=0.2, random_state=1)
    print(ElasticNet().fit(e_tr, r_tr).score(e_te, r_te))
""", [("fit_before_split", 6)]),
}

HEALTHY = {
    # the same filter learnt on the training part and applied to both parts
    "named_variance_filter_of_the_training_part": GENES + """\
    e_tr, e_te, r_tr, r_te = train_test_split(expr, resp, test_size=0.2, random_state=1)
    spread = e_tr.var(axis=0)
    e_tr = e_tr.loc[:, spread > spread.quantile(0.10)]
    e_te = e_te[e_tr.columns]
    print(ElasticNet().fit(e_tr, r_tr).score(e_te, r_te))
""",
    # chosen on the validation labels, then applied to the test part once
    "threshold_helper_on_the_validation_labels": THRESHOLD_UTILS + """\
    cut, top = f1_cut(g_val, p_val)
    show(g_te, (p_te >= cut).astype(int))
""",
    # the test-chosen threshold only printed
    "threshold_helper_on_the_test_labels_only_printed": THRESHOLD_UTILS + """\
    cut, top = f1_cut(g_te, p_te)
    print("best cut", cut, top)
    show(g_te, (p_te >= 0.5).astype(int))
""",
    # each sample scaled by its own peak (dim=1): no statistic over the rows
    "data_module_scaled_per_sample": data_module("X = X / X.abs().amax(dim=1, keepdim=True)"),
    # a data module built and printed but never given to a trainer: its setup never runs
    "data_module_never_set_up": data_module("X = (X - X.mean(dim=0)) / X.std(dim=0)", given=False),
    # windows a whole window apart share no sample
    "channel_windows_without_overlap": windows_of("width") + WINDOW_SPLIT,
    # the recording's own samples split row by row; the windows cut from it go nowhere near the split
    "recording_samples_split_beside_its_windows": windows_of() + """\
    table = pd.read_csv("samples.csv")
    W, t = windows(table.values[:, 1:-1].T, table.values[:, -1])
    print(W.shape)
    p, q, r, s = train_test_split(table.values[:, 1:-1], table.values[:, -1], test_size=0.3, random_state=0)
    print(KNeighborsClassifier().fit(p, r).score(q, s))
""",
    # the listing keeps other files of the folder
    "family_read_back_under_another_ending": family(filtered="_raw.npz"),
    # the listing filters on the file type only: any .npz of the folder
    "family_read_back_by_file_type_only": family(filtered=".npz"),
    # a random subsample of every row (the class mix kept), then the split
    "every_row_subsampled_before_the_split": balanced_windows("feats, labels") + """\
    print(fit_and_score(*draw_down(wins, marks)))
""",
    # a stratified draw keeps the class mix
    "stratified_draw_before_the_split": balanced_windows(
        "feats[labels == 0], labels[labels == 0]", "replace=False, n_samples=300, stratify=many_y") + """\
    print(fit_and_score(*draw_down(wins, marks)))
""",
    # the training part's majority drawn down after the split; the test part keeps the population's mix
    "training_part_drawn_down_after_the_split": balanced_windows("feats[labels == 0], labels[labels == 0]") + """\
    a, b, c, d = train_test_split(wins, marks, test_size=0.3, stratify=marks, random_state=0)
    a2, c2 = draw_down(a, c)
    print(SVC().fit(a2, c2).score(b, d))
""",
    # the encounters split by patient: each patient whole on one side
    "patient_number_grouped_then_group_split": ENCOUNTERS + """\
    feats = visits.drop(columns=["patient_nbr", "readmit"])
    cut = GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0)
    tr, te = next(cut.split(feats, visits["readmit"], groups=visits["patient_nbr"]))
    model = RandomForestClassifier().fit(feats.iloc[tr], visits["readmit"].iloc[tr])
    print(model.score(feats.iloc[te], visits["readmit"].iloc[te]))
""",
    # a running count per shop number: a shop is no observation unit of the task
    "shop_number_counted_then_split_row_by_row": ENCOUNTERS.replace('"patient_nbr").cumcount()',
                                                                    '"shop_nbr").cumcount()') + ROW_SPLIT,
    # the difference runs along one recording's samples and is averaged there: one number per channel and file
    "difference_summed_inside_one_recording": RECORDINGS + SHUFFLED_CV,
    # the same, the difference bound to a name first and only read by reductions
    "difference_bound_then_summed_inside_one_recording": RECORDINGS.replace(
        "        cols.append(np.mean(np.abs(np.diff(trace)), axis=1))\n",
        "        steps = np.diff(trace)\n        cols.append(np.var(steps, axis=1))\n") + SHUFFLED_CV,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_86_leaks_found_at_their_line(tmp_path, name):
    program, expected = LEAKS[name]
    assert alarms(tmp_path, program) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_86_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


# ---------------------------------------------------------------- a file read by a helper of another module
#: a preparation script drops the columns missing in most rows, over every row, and writes the table
SPARSE_DROP = """\
    from pathlib import Path
    import pandas as pd

    OUT = Path(__file__).resolve().parent / "data"
    vitals = pd.read_csv("vitals_raw.csv")
    share = vitals.isna().mean()
    vitals = vitals.drop(columns=share[share > 0.7].index.tolist())
    vitals.to_csv(OUT / "vitals_kept.csv", index=False)
"""

#: the loading helper of the project: the path is the caller's, made absolute against the project's folder
LOADER = """\
    import os
    import pandas as pd

    def fetch_table(where):
        if not os.path.isabs(where):
            where = os.path.join(os.path.dirname(os.path.abspath(__file__)), where.lstrip("/"))
        return pd.read_csv(where)
"""


def trainer(call: str) -> str:
    """The training script: reads through the loader (``call``), splits, scores."""
    return f"""\
    from sklearn.model_selection import train_test_split
    from sklearn.linear_model import LogisticRegression
    {call}

    table = fetch_table("/data/vitals_kept.csv")
    a, b = train_test_split(table, test_size=0.25, random_state=2)
    model = LogisticRegression().fit(a.drop(columns=["shock"]), a["shock"])
    print(model.score(b.drop(columns=["shock"]), b["shock"]))
"""


def project(tmp_path, loader: str = LOADER, call: str = "from loaders import fetch_table"):
    """The three scripts under one project root; the preparation script's path."""
    (tmp_path / "README.md").write_text("a project\n")
    (tmp_path / "loaders.py").write_text(textwrap.dedent(loader))
    (tmp_path / "train.py").write_text(textwrap.dedent(trainer(call)))
    prep = tmp_path / "prepare.py"
    prep.write_text(textwrap.dedent(SPARSE_DROP))
    return prep


def writer_alarms(path) -> list[tuple[str, int]]:
    report, _ = analyze_file(str(path))
    return [(f.kind, f.location["line"]) for f in report.findings
            if f.severity >= Severity.WARNING and f.location.get("file") == str(path)]


def test_wave_86_filter_of_every_row_read_back_through_a_helper_of_another_module(tmp_path):
    assert writer_alarms(project(tmp_path)) == [("fit_before_split", 6)]


def test_wave_86_helper_called_through_its_module(tmp_path):
    prep = project(tmp_path, call="import loaders\n    fetch_table = loaders.fetch_table")
    (tmp_path / "train.py").write_text(textwrap.dedent(trainer("import loaders")).replace(
        'fetch_table("/data', 'loaders.fetch_table("/data'))
    assert writer_alarms(prep) == [("fit_before_split", 6)]


def test_wave_86_helper_reading_a_file_of_its_own_is_silent(tmp_path):
    # the helper replaces the path it is given: the table it reads is not the one written
    own = LOADER.replace('where = os.path.join(os.path.dirname(os.path.abspath(__file__)), where.lstrip("/"))',
                         'where = "reference/vitals_clean.csv"')
    assert writer_alarms(project(tmp_path, loader=own)) == []


def test_wave_86_helper_given_another_file_is_silent(tmp_path):
    prep = project(tmp_path)
    (tmp_path / "train.py").write_text(textwrap.dedent(trainer("from loaders import fetch_table")).replace(
        "vitals_kept.csv", "vitals_external.csv"))
    assert writer_alarms(prep) == []
