"""The static leakage analysis on the kinds a held-out wave of biomedical code showed (issue 17, wave 86: EEG, EMG
and ECG recordings, hospital readmissions), in both directions:

* a difference taken inside one recording and summed up there (``np.sum(np.diff(sig) ** 2, axis=1)`` in a feature
  function given one file's recording a pass) is that recording's own feature, no lag across the rows that are
  split (samplediffs.py; the file's path joined from a folder parameter and the listed name: peritem.py); a
  difference over the stacked rows is still a lag;
* a patient id spelt as a number (``patient_nbr``, ``subject_no``) is an entity id like ``patient_id``: counted per
  patient (``groupby('patient_nbr').cumcount()``), dropped, then split row by row, one patient's encounters sit on
  both sides (vocab.ENTITY_COLUMN); a group split by it, or a count per shop number, stays silent.

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
}

HEALTHY = {
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
