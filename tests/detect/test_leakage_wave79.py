"""The static leakage analysis on the kinds a held-out wave of sensor, signal and click-through code showed (issue 17,
wave 79), in both directions: rare levels chosen by their counts over every row and a pandas bootstrap before a
cross-validated search found at their line, each recording normalised by its own level (in a helper called once
per file of a loop) silent. Every example is written
for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

LEAKS = {
    # levels seen once over all the rows become "other" before the split (a count table wrapped in a frame)
    "rare_levels_of_a_wrapped_count_replaced": ("""\
        seen = pd.DataFrame(table.groupby("shop").size())
        lonely = seen[seen[0] == 1].index
        table["shop"] = np.where(table["shop"].isin(lonely), "other", table["shop"])
        a, b, c, d = train_test_split(table.drop(columns=["label"]), table["label"])
        LogisticRegression().fit(a, c).score(b, d)
""", [("fit_before_split", 1)]),
    # the twenty most frequent levels kept, the rest folded, before the split
    "most_frequent_levels_kept": ("""\
        common = table["city"].value_counts()[:20].index
        table["city"] = table["city"].where(table["city"].isin(common), "rest")
        a, b, c, d = train_test_split(table.drop(columns=["label"]), table["label"])
        LogisticRegression().fit(a, c).score(b, d)
""", [("fit_before_split", 1)]),
    # a helper that z-scores what it is given, called on the whole stacked array after the loop
    "helper_also_called_on_every_row": ("""\
        import os
        def zscore(signal):
            return (signal - np.mean(signal)) / np.std(signal)
        pieces = []
        for fname in os.listdir("recordings"):
            trace = np.load(os.path.join("recordings", fname))
            pieces.append(zscore(trace))
        stacked = zscore(np.array(pieces))
        a, b, c, d = train_test_split(stacked, y)
        LogisticRegression().fit(a, c).score(b, d)
""", [("fit_before_split", 3)]),
    # a bootstrap of the table drawn with pandas, then a cross-validated search over it
    "pandas_bootstrap_before_a_search": ("""\
        drawn = table.sample(n=len(table), replace=True, random_state=5)
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=5)
        search.fit(drawn.drop(columns=["label"]), drawn["label"])
        print(search.best_params_)
""", [("fit_outside_cv", 1)]),
}

HEALTHY = {
    # the table shuffled (every row once) before the search: no copies
    "pandas_shuffle_before_a_search": ("""\
        mixed = table.sample(frac=1, random_state=5)
        search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=5)
        search.fit(mixed.drop(columns=["label"]), mixed["label"])
        print(search.best_params_)
"""),
    # a bootstrap of the training part only, scored on the untouched test part
    "pandas_bootstrap_of_the_training_part": ("""\
        part, rest = train_test_split(table, random_state=5)
        drawn = part.sample(n=len(part), replace=True, random_state=5)
        model = LogisticRegression().fit(drawn.drop(columns=["label"]), drawn["label"])
        print(model.score(rest.drop(columns=["label"]), rest["label"]))
"""),
    # the rare levels found on the training part only
    "rare_levels_counted_on_the_training_part": ("""\
        a, b, c, d = train_test_split(table.drop(columns=["label"]), table["label"])
        seen = pd.DataFrame(a.groupby("shop").size())
        lonely = seen[seen[0] == 1].index
        a["shop"] = np.where(a["shop"].isin(lonely), "other", a["shop"])
        b["shop"] = np.where(b["shop"].isin(lonely), "other", b["shop"])
        LogisticRegression().fit(a, c).score(b, d)
"""),
    # each recording z-scored by its own mean and deviation in a helper called once per file, then cut into windows
    "each_recording_normalised_by_a_helper": ("""\
        import os
        FOLDER = "recordings"
        def zscore(signal):
            return (signal - np.mean(signal)) / np.std(signal)
        windows, kinds = [], []
        for fname in os.listdir(FOLDER):
            trace = zscore(np.load(os.path.join(FOLDER, fname))[:, 0])
            for start in range(0, len(trace) - 250, 250):
                windows.append(trace[start:start + 250])
                kinds.append(fname[:3])
        a, b, c, d = train_test_split(np.array(windows), np.array(kinds))
        LogisticRegression().fit(a, c).score(b, d)
"""),
    # the same normalisation written in the body of a loop over sorted glob results
    "each_recording_normalised_in_the_loop": ("""\
        from glob import glob
        beats = []
        for path in sorted(glob("records/*.npy")):
            raw = np.load(path)
            level = (raw - raw.mean()) / raw.std()
            beats.append(level[:300])
        a, b, c, d = train_test_split(np.array(beats), y)
        LogisticRegression().fit(a, c).score(b, d)
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_79_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_79_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
