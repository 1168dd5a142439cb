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
