"""The static leakage analysis on the kinds a held-out wave of clinical and Kaggle tabular code showed (issue 17,
wave 92), in both directions:

* a program that names a patient's id beside an encounter's id (or a lesion's beside an image's) holds several rows
  per entity; a hold-out split of those rows row by row, whose test part a model scores or a file keeps, is
  ``entity_across_split`` (rowunits.py); a split of the entity ids themselves, a split whose test part nothing uses,
  a program that keeps one row per patient (``drop_duplicates``) or splits by groups are silent.

Every example is written for this test."""

from __future__ import annotations

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_handed_on import write


def alarms(path) -> list[tuple[str, int]]:
    report, _ = analyze_file(str(path))
    return sorted((f.kind, f.location["line"]) for f in report.findings
                  if f.severity >= Severity.WARNING and f.location.get("file", str(path)) == str(path))


def line_of(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# ---------------------------------------------------------------- encounters of one patient

VISITS = """\
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.ensemble import RandomForestClassifier

    stays = pd.read_csv("hospital_stays.csv")
    stays["early"] = (stays["returned_after"] == "<30").astype(int)
    X = stays.drop(columns=["returned_after", "early"])
    y = stays["early"]
    X_fit, X_held, y_fit, y_held = train_test_split(X, y, test_size=0.25, stratify=y)
    X_fit = X_fit.drop(["visit_id", "patient_nbr"], axis=1)
    X_held = X_held.drop(["visit_id", "patient_nbr"], axis=1)
    forest = RandomForestClassifier().fit(X_fit, y_fit)
    print(forest.score(X_held, y_held))
"""


def entity_alarm(tmp_path, body) -> bool:
    """Whether the visits program ``body`` gets an ``entity_across_split`` alarm."""
    return "entity_across_split" in {k for k, _ in alarms(write(tmp_path, "visits.py", body))}


def test_encounters_split_row_by_row_are_an_entity_across_the_split(tmp_path):
    path = write(tmp_path, "visits.py", VISITS)
    assert ("entity_across_split", line_of(path, "train_test_split(X, y")) in alarms(path)


def test_one_row_per_patient_is_silent(tmp_path):
    body = VISITS.replace('stays = pd.read_csv("hospital_stays.csv")\n',
                          'stays = pd.read_csv("hospital_stays.csv").drop_duplicates(subset=["patient_nbr"])\n')
    assert not entity_alarm(tmp_path, body)


def test_a_group_split_is_silent(tmp_path):
    body = VISITS.replace(
        "X_fit, X_held, y_fit, y_held = train_test_split(X, y, test_size=0.25, stratify=y)\n",
        "from sklearn.model_selection import GroupShuffleSplit\n"
        "    fit_rows, held_rows = next(GroupShuffleSplit(test_size=0.25).split(X, y, groups=X['patient_nbr']))\n"
        "    X_fit, X_held, y_fit, y_held = X.iloc[fit_rows], X.iloc[held_rows], y.iloc[fit_rows], y.iloc[held_rows]\n")
    assert not entity_alarm(tmp_path, body)


def test_a_held_out_part_nothing_uses_is_silent(tmp_path):
    body = VISITS.replace("print(forest.score(X_held, y_held))\n", "print(len(X_held))\n")
    assert not entity_alarm(tmp_path, body)


def test_a_patient_id_without_a_finer_row_id_is_silent(tmp_path):
    body = VISITS.replace('"visit_id", ', "")
    assert not entity_alarm(tmp_path, body)


# ---------------------------------------------------------------- images of one lesion, shuffled rows cut by np.split

PHOTOS = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split

    meta = pd.read_csv("dermoscopy.csv").sort_values(by=["image_id"])

    def lesion_parts(frame):
        ids = frame["lesion_id"].unique()
        keep, out = train_test_split(ids, test_size=0.2)
        return frame[frame["lesion_id"].isin(keep)], frame[frame["lesion_id"].isin(out)]

    def image_parts(frame):
        a, b, c = np.split(frame.sample(frac=1), [int(0.7 * len(frame)), int(0.85 * len(frame))])
        return a, b, c

    fit_part, held_part = lesion_parts(meta)
    held_part.to_csv("lesion_test.csv")
    first, second, third = image_parts(meta)
    for part, tag in [(first, 0), (second, 1), (third, 2)]:
        part.assign(split=tag).to_csv(f"images_{tag}.csv")
"""


def test_images_of_a_lesion_cut_by_np_split_are_an_entity_across_the_split(tmp_path):
    path = write(tmp_path, "photos.py", PHOTOS)
    found = alarms(path)
    assert ("entity_across_split", line_of(path, "np.split(frame.sample")) in found
    assert ("entity_across_split", line_of(path, "train_test_split(ids")) not in found  # whole lesions


# ---------------------------------------------------------------- a binarizer of a label column named in words

XRAY_SET = """\
    import numpy as np
    import pandas as pd
    from sklearn.preprocessing import MultiLabelBinarizer

    class ChestSet:
        def __init__(self, table_path):
            table = pd.read_csv(table_path)
            self.names = table["Image Name"]
            self.coder = MultiLabelBinarizer()
            codes = self.coder.fit_transform(table["Finding Labels"].str.split("|")).astype(np.float32)
            self.targets = codes

        def __getitem__(self, i):
            return self.names[i], self.targets[i]

    held = ChestSet("test_list.csv")
    print(len(held.targets))
"""


def test_a_binarizer_of_a_label_column_named_in_words_is_silent(tmp_path):
    path = write(tmp_path, "xray.py", XRAY_SET)
    assert alarms(path) == []


def test_a_binarizer_of_a_feature_column_named_in_words_on_test_rows_still_alarms(tmp_path):
    body = XRAY_SET.replace('table["Finding Labels"]', 'table["Drug Classes"]').replace(
        "self.targets = codes", "self.inputs = codes").replace("self.targets[i]", "self.inputs[i]").replace(
        "held.targets", "held.inputs")
    path = write(tmp_path, "xray.py", body)
    assert ("fit_on_test", line_of(path, "fit_transform(table")) in alarms(path)


# ---------------------------------------------------------------- Kaggle helpers: columns kept in a dict, a blanked test

COUNTS_HELPER = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import StratifiedKFold
    from sklearn.metrics import roc_auc_score
    from sklearn.ensemble import ExtraTreesClassifier

    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")


    def with_counts(frame, columns):
        frame = frame.copy()
        made = {}
        for name in columns:
            seen = frame[name].value_counts()
            made[f"{name}_seen"] = frame[name].map(seen)
        return pd.concat([frame, pd.DataFrame(made)], axis=1)


    def prepare(train, test, goal="repaid"):
        labels = train[goal].values
        train = train.copy()
        test = test.copy()
        train["from_train"] = 1
        test["from_train"] = 0
        test[goal] = np.nan
        both = pd.concat([train, test], axis=0, ignore_index=True)
        both["ratio"] = both["debt"] / both["income"]
        mine = both[both["from_train"] == 1].copy()
        mine = with_counts(mine, ["grade", "purpose"])
        return mine.drop(columns=[goal, "from_train"]), labels


    X, y = prepare(train, test)
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=1)
    held = np.zeros(len(X))
    for fit_rows, val_rows in folds.split(X, y):
        forest = ExtraTreesClassifier().fit(X.iloc[fit_rows], y[fit_rows])
        held[val_rows] = forest.predict_proba(X.iloc[val_rows])[:, 1]
    print(roc_auc_score(y, held))
"""


def test_counts_kept_in_a_dict_of_columns_reach_the_cv(tmp_path):
    path = write(tmp_path, "counts.py", COUNTS_HELPER)
    assert ("fit_outside_cv", line_of(path, "value_counts()")) in alarms(path)


def test_a_dict_of_row_wise_columns_is_silent(tmp_path):
    body = COUNTS_HELPER.replace("seen = frame[name].value_counts()", "seen = {0: 0}").replace(
        "frame[name].map(seen)", "frame[name] * 2")
    path = write(tmp_path, "counts.py", body)
    assert alarms(path) == []


def test_counts_over_train_and_test_stacked_stay_a_fit_on_test(tmp_path):
    body = COUNTS_HELPER.replace('mine = with_counts(mine, ["grade", "purpose"])', "pass").replace(
        'both["ratio"] = both["debt"] / both["income"]', 'both = with_counts(both, ["grade", "purpose"])')
    path = write(tmp_path, "counts.py", body)
    assert ("fit_on_test", line_of(path, "value_counts()")) in alarms(path)


def test_a_blanked_test_table_keeps_its_train_mark(tmp_path):
    body = COUNTS_HELPER.replace('mine = with_counts(mine, ["grade", "purpose"])',
                                 'mine["grade_seen"] = mine["grade"].map(mine["grade"].value_counts())')
    path = write(tmp_path, "counts.py", body)
    found = alarms(path)
    assert ("fit_outside_cv", line_of(path, 'mine["grade"].value_counts()')) in found
    assert "fit_on_test" not in {k for k, _ in found}


# ---------------------------------------------------------------- fold predictions stacked inside the mean

FOLD_MEAN = """\
    import numpy as np
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor


    def one_fold(k):
        table = pd.read_csv("with_folds.csv")
        test = pd.read_csv("test.csv")
        part = table[table.fold != k]
        forest = RandomForestRegressor().fit(part.drop(columns=["price", "fold"]), part.price)
        return forest.predict(test)


    outputs = []
    for k in range(5):
        outputs.append(one_fold(k))
    blend = np.mean(np.array(outputs), axis=0)
    pd.DataFrame({"price": blend}).to_csv("submission.csv")
"""


def test_fold_predictions_stacked_inside_the_mean_are_a_blend(tmp_path):
    path = write(tmp_path, "folds.py", FOLD_MEAN)
    assert alarms(path) == []


def test_test_rows_stacked_inside_the_mean_are_still_a_statistic(tmp_path):
    body = FOLD_MEAN.replace("blend = np.mean(np.array(outputs), axis=0)",
                             "test = pd.read_csv('test.csv')\n    blend = np.mean(np.array(test.values), axis=0)")
    path = write(tmp_path, "folds.py", body)
    assert ("fit_on_test", line_of(path, "np.mean(np.array(test.values)")) in alarms(path)


def test_a_helper_naming_its_prediction_like_the_fold_list_is_still_a_blend(tmp_path):
    body = FOLD_MEAN.replace("return forest.predict(test)", "outputs = forest.predict(test)\n        return outputs")
    path = write(tmp_path, "folds.py", body)
    assert alarms(path) == []
