"""The static leakage analysis on the kinds held-out wave 98 of public code showed (marketing and e-commerce models:
lift and coverage tables of the scored test rows, a preprocessing stage handing an all-rows fit to a splitting stage
through a config entity's path, a profit cut-off swept on the test predictions by an imported helper, count encodings
over train and test stacked through a value_counts dict), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms, line_of

# a campaign model scored on the held-out file, then a lift-by-decile table of its predictions saved as a report
LIFT_REPORT = """\
import joblib
import pandas as pd

def lift_by_decile(y_true, y_pred):
    table = pd.DataFrame({"y_true": y_true, "y_pred": y_pred})
    table["decile"] = pd.qcut(table["y_pred"], 10, labels=False, duplicates="drop")
    base_rate = table["y_true"].mean()
    per_decile = table.groupby("decile").agg({"y_true": ["mean", "sum"], "y_pred": "mean"}).reset_index()
    per_decile.columns = ["decile", "rate", "buyers", "mean_score"]
    per_decile["lift"] = per_decile["rate"] / base_rate
    return per_decile

clf = joblib.load("campaign_model.pkl")
holdout = pd.read_csv("holdout.csv")
X_test = holdout.drop(columns=["bought"])
y_test = holdout["bought"].values
y_pred = clf.predict_proba(X_test)[:, 1]
lift = lift_by_decile(y_test, y_pred)
lift.to_csv("lift_by_decile.csv", index=False)
"""

# the look-alike: deciles of a feature of the held-out rows (their own income edges) fed to the model
FEATURE_DECILES = """\
import joblib
import pandas as pd

clf = joblib.load("campaign_model.pkl")
holdout = pd.read_csv("holdout.csv")
y_test = holdout["bought"].values
holdout["income_band"] = pd.qcut(holdout["income"], 10, labels=False)
X_test = holdout.drop(columns=["bought"])
y_pred = clf.predict_proba(X_test)[:, 1]
pd.DataFrame({"y_true": y_test, "y_pred": y_pred}).to_csv("scores.csv", index=False)
"""

# a value model's scored holdout: keys and the realised value beside the predictions, summarised per decile and tier
SCORED_HOLDOUT = """\
import joblib
import pandas as pd

TARGET_COLUMN = "spend_next_90d"

def predict_value(model, frame):
    out = pd.DataFrame(index=frame.index)
    out["predicted_spend"] = model.predict(frame.drop(columns=["shopper_id", "as_of_date", TARGET_COLUMN]))
    return out

def assign_tiers(predictions):
    tiers = predictions.copy()
    tiers["tier"] = pd.cut(tiers["predicted_spend"], [0, 50, 200, 1e9], labels=["low", "mid", "high"])
    return tiers

def decile_summary(frame):
    return frame.groupby("value_decile").agg(
        shoppers=("shopper_id", "count"),
        predicted=("predicted_spend", "mean"),
        realised=(TARGET_COLUMN, "mean"),
    ).reset_index()

def tier_summary(scored_holdout):
    return scored_holdout.groupby("tier").agg(realised=(TARGET_COLUMN, "sum"), predicted=("predicted_spend", "sum"))

model = joblib.load("value_model.pkl")
test = pd.read_csv("test_snapshot.csv")
decisions = assign_tiers(predict_value(model, test))
scored = pd.concat([test[["shopper_id", "as_of_date", TARGET_COLUMN]], decisions], axis=1)
scored = scored.reset_index(drop=True)
scored["value_decile"] = pd.qcut(scored["predicted_spend"].rank(method="first"), 10, labels=range(1, 11))
decile_summary(scored).to_csv("reports/deciles.csv", index=False)
tier_summary(scored).to_csv("reports/tiers.csv", index=False)
"""

# the look-alike: the held-out features standardised by their own mean before scoring, saved beside the predictions
TEST_STANDARDISED = """\
import joblib
import pandas as pd

model = joblib.load("value_model.pkl")
test = pd.read_csv("test_snapshot.csv")
features = test.drop(columns=["shopper_id", "spend_next_90d"])
features = (features - features.mean()) / features.std()
scored = pd.concat([test[["shopper_id", "spend_next_90d"]], pd.Series(model.predict(features), name="pred")], axis=1)
scored.to_csv("reports/scored.csv", index=False)
"""

# the look-alike: a frame of the held-out rows only named for scoring gets a per-city mean of a feature for the model
SCORED_NAMED_FEATURES = """\
import joblib
import pandas as pd

model = joblib.load("value_model.pkl")
test = pd.read_csv("test_snapshot.csv")
scored_df = test.copy()
scored_df["city_spend"] = scored_df.groupby("city")["past_spend"].transform("mean")
pred = model.predict(scored_df[["city_spend", "age"]])
pd.DataFrame({"pred": pred}).to_csv("reports/pred.csv", index=False)
"""


def _fit_on_test(found: set[tuple[str, int]]) -> set[int]:
    return {line for kind, line in found if kind == "fit_on_test"}


def test_lift_table_of_labels_and_predictions_is_a_report(tmp_path: Path) -> None:
    assert not _fit_on_test(alarms(tmp_path, LIFT_REPORT))


def test_deciles_of_a_held_out_feature_fed_to_the_model_stay_a_fit(tmp_path: Path) -> None:
    assert ("fit_on_test", line_of(FEATURE_DECILES, "pd.qcut(holdout")) in alarms(tmp_path, FEATURE_DECILES)


def test_decile_and_tier_tables_of_a_scored_holdout_are_reports(tmp_path: Path) -> None:
    assert not _fit_on_test(alarms(tmp_path, SCORED_HOLDOUT))


def test_held_out_features_standardised_by_their_own_mean_stay_a_fit(tmp_path: Path) -> None:
    assert ("fit_on_test", line_of(TEST_STANDARDISED, "features.mean()")) in alarms(tmp_path, TEST_STANDARDISED)


# a staged project: the entity classes hold every stage's paths, built from a module of file names
NAMES = """\
PREPARED_FILE: str = "prepared.csv"
TRAIN_FILE: str = "train_part.csv"
TEST_FILE: str = "test_part.csv"
"""

ENTITIES = """\
import os
from dataclasses import dataclass

from settings.names import *


@dataclass
class PrepareConfig:
    prepared_dir: str = os.path.join(os.getcwd(), "artifacts", "prepared")
    prepared_file_path: str = os.path.join(prepared_dir, PREPARED_FILE)


@dataclass
class PrepareArtifact:
    prepared_file_path: str


class SplitConfig:
    train_file_path: str = os.path.join(os.getcwd(), "artifacts", "split", TRAIN_FILE)
    test_file_path: str = os.path.join(os.getcwd(), "artifacts", "split", TEST_FILE)
"""

# the preparation stage: a median fill of a cleaned subset and a min-max scaler over every booking, saved
PREPARE = """\
import pandas as pd
from sklearn.preprocessing import MinMaxScaler

from settings.entities import PrepareArtifact, PrepareConfig


class Prepare:
    def __init__(self, config: PrepareConfig):
        self.config = config

    def fix_rates(self, df):
        typical = df[df["nightly_rate"] >= 0]["nightly_rate"].median()
        df.loc[df["nightly_rate"] < 0, "nightly_rate"] = typical
        return df

    def run(self, raw_path):
        df = pd.read_csv(raw_path)
        df = self.fix_rates(df)
        df = df[df["guests"] > 0]
        df[["nightly_rate", "lead_days"]] = MinMaxScaler().fit_transform(df[["nightly_rate", "lead_days"]])
        df.to_csv(self.config.prepared_file_path, index=False)
        return PrepareArtifact(prepared_file_path=self.config.prepared_file_path)
"""

# the next stage reads the prepared file through the artifact entity and splits it
SPLIT = """\
import pandas as pd
from sklearn.model_selection import train_test_split

from settings.entities import SplitConfig


class Split:
    def __init__(self, prepare_artifact, config: SplitConfig):
        self.prepare_artifact = prepare_artifact
        self.config = config

    def run(self):
        data = pd.read_csv(self.prepare_artifact.prepared_file_path)
        train, test = train_test_split(data, test_size=0.2, random_state=7)
        train.to_csv(self.config.train_file_path, index=False)
        test.to_csv(self.config.test_file_path, index=False)
"""

TRAIN = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

from settings.entities import SplitConfig


class Train:
    def __init__(self, config: SplitConfig):
        self.config = config

    def run(self):
        train = pd.read_csv(self.config.train_file_path)
        test = pd.read_csv(self.config.test_file_path)
        model = LogisticRegression().fit(train.drop(columns=["cancelled"]), train["cancelled"])
        print(model.score(test.drop(columns=["cancelled"]), test["cancelled"]))
"""

# the look-alike: the preparation stage only drops rows and fills a fixed code; nothing is learnt from the rows
CLEAN_ONLY = PREPARE.replace('''        typical = df[df["nightly_rate"] >= 0]["nightly_rate"].median()
        df.loc[df["nightly_rate"] < 0, "nightly_rate"] = typical
''', '''        df.loc[df["nightly_rate"] < 0, "nightly_rate"] = 0
''').replace('''        df[["nightly_rate", "lead_days"]] = MinMaxScaler().fit_transform(df[["nightly_rate", "lead_days"]])
''', '''        df["lead_days"] = df["lead_days"].clip(0, 365)
''')


def _staged_project(root: Path, prepare: str) -> Path:
    files = {"README.md": "hotel bookings\n", "settings/__init__.py": "", "settings/names.py": NAMES,
             "settings/entities.py": ENTITIES, "stages/__init__.py": "", "stages/prepare.py": prepare,
             "stages/split.py": SPLIT, "stages/train.py": TRAIN}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / "stages" / "prepare.py"


def _project_alarms(path: Path) -> set[tuple[str, int]]:
    from faultlib.detect.data.leakage import analyze_file
    from faultlib.findings import Severity

    report, _ = analyze_file(str(path))
    return {(f.kind, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.location.get("file", "").endswith("prepare.py")}


def test_fits_of_a_stage_whose_file_a_later_stage_splits_through_entity_paths(tmp_path: Path) -> None:
    found = _project_alarms(_staged_project(tmp_path, PREPARE))
    assert ("fit_before_split", line_of(PREPARE, "MinMaxScaler().fit_transform")) in found
    assert ("fit_before_split", line_of(PREPARE, "typical = ")) in found


def test_a_stage_that_only_cleans_before_the_split_is_silent(tmp_path: Path) -> None:
    assert not _project_alarms(_staged_project(tmp_path, CLEAN_ONLY))


# a profit-optimal cut-off swept on the test predictions by a helper of the project's package, its best shown
PROFIT_SWEEP = """\
import joblib
import pandas as pd
from sklearn.model_selection import train_test_split
from bookingkit.costs import load_costs, sweep_cutoffs_for_profit

model = joblib.load("cancel_model.pkl")
bookings = pd.read_csv("bookings.csv")
X_train, X_test, y_train, y_test = train_test_split(bookings.drop(columns=["cancelled"]), bookings["cancelled"],
                                                    test_size=0.2, random_state=3)
y_prob = model.predict_proba(X_test)[:, 1]
costs = load_costs()
result = sweep_cutoffs_for_profit(y_test.values, y_prob, costs)
print(f"Optimal threshold: {result.best_threshold:.3f}")
print(f"Max profit: {result.best_profit:,.0f}")
"""

# the look-alike: the sweep runs on a validation part; the cut-off found there is applied to the test part once
PROFIT_SWEEP_ON_VALIDATION = PROFIT_SWEEP.replace(
    """y_prob = model.predict_proba(X_test)[:, 1]
costs = load_costs()
result = sweep_cutoffs_for_profit(y_test.values, y_prob, costs)
""", """X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.25, random_state=3)
val_prob = model.predict_proba(X_val)[:, 1]
costs = load_costs()
result = sweep_cutoffs_for_profit(y_val.values, val_prob, costs)
test_pred = model.predict_proba(X_test)[:, 1] >= result.best_threshold
print((test_pred == y_test.values).mean())
""")


def test_cutoff_swept_on_the_test_predictions_by_an_unread_helper(tmp_path: Path) -> None:
    assert ("tuned_on_test", line_of(PROFIT_SWEEP, "result = sweep_cutoffs")) in alarms(tmp_path, PROFIT_SWEEP)


def test_cutoff_swept_on_a_validation_part_is_silent(tmp_path: Path) -> None:
    assert not any(kind == "tuned_on_test" for kind, _ in alarms(tmp_path, PROFIT_SWEEP_ON_VALIDATION))


def test_a_feature_frame_named_for_scoring_keeps_its_fits(tmp_path: Path) -> None:
    assert ("fit_on_test", line_of(SCORED_NAMED_FEATURES, "groupby(\"city\")")) in alarms(tmp_path,
                                                                                          SCORED_NAMED_FEATURES)
