"""Bad input vs data (DESIGN): every `check` that reads tables gets NaN, empty and infinite values in them and
answers with findings, never exit 2; and the options that let a real table in (`--true-col`/`--pred-col`,
`--features`). The checks run in this process, as the console script runs them, to keep the suite fast."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from faultlib.cli.app import main

pd = pytest.importorskip("pandas")
pytest.importorskip("sklearn")


def run_check(*argv: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["check", *argv, "--json"])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, json.loads(out.getvalue()), err.getvalue()


def _holes(frame: "pd.DataFrame", rng, share: float = 0.1) -> "pd.DataFrame":
    """``frame`` with NaN, empty and +-inf values sprinkled in every column (text columns get None)."""
    out = frame.copy().astype(object)
    n = len(out)
    for column in out.columns:
        rows = rng.choice(n, max(3, int(share * n)), replace=False)
        numeric = pd.api.types.is_numeric_dtype(frame[column].dtype)
        kinds = [np.nan, None, np.inf, -np.inf] if numeric else [None, np.nan]
        for i, row in enumerate(rows):
            out.iat[row, out.columns.get_loc(column)] = kinds[i % len(kinds)]
    return out


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from sklearn.datasets import load_wine

    data = load_wine(as_frame=True)
    frame = data.frame.rename(columns=lambda c: c.replace("/", "_"))
    frame.insert(0, "id", np.arange(len(frame)))
    return tmp_path_factory.mktemp("wine"), frame


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_nan_empty_and_inf_in_every_table_reading_check_are_data_not_bad_input(wine, suffix):
    from sklearn.preprocessing import StandardScaler

    path, frame = wine
    rng = np.random.default_rng(0)
    cols = ["alcohol", "malic_acid", "ash", "magnesium"]
    ref, cur = frame.iloc[::2].reset_index(drop=True), frame.iloc[1::2].reset_index(drop=True)
    holed = _holes(cur[["id", *cols]], rng)
    if suffix == ".csv":   # an empty cell is how a CSV writes a missing value
        holed.to_csv(path / f"cur{suffix}", index=False, na_rep="")
    elif suffix == ".parquet":
        holed.assign(id=holed["id"].astype("float64")).astype("float64").to_parquet(path / f"cur{suffix}")
    else:
        (path / f"cur{suffix}").write_text("\n".join(json.dumps(
            {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in row.items()})
            for row in holed.to_dict(orient="records")) + "\n")
    ref[["id", *cols]].to_csv(path / "ref.csv", index=False)
    cur_file = str(path / f"cur{suffix}")
    results = {}
    results["drift"] = run_check("drift", str(path / "ref.csv"), cur_file)
    results["align"] = run_check("align", cur_file, cur_file, "--on", "id")
    scaler = StandardScaler().fit(ref[cols])
    (path / "p.json").write_text(json.dumps({"mean_": scaler.mean_.tolist(), "var_": scaler.var_.tolist(),
                                             "n_samples_seen_": int(scaler.n_samples_seen_), "features": cols}))
    results["leakage"] = run_check("leakage", "--fitted", str(path / "p.json"), "--train", str(path / "ref.csv"),
                                   "--test", cur_file)
    (path / "map.json").write_text(json.dumps(["a", "b", "c"]))
    preds = pd.DataFrame({"y_true": ["a", None, "b", "c", ""], "y_pred": [0, 1, np.nan, 2, np.inf]})
    preds.to_csv(path / "preds.csv", index=False, na_rep="")
    results["labels"] = run_check("labels", str(path / "map.json"), str(path / "map.json"),
                                  "--predictions", str(path / "preds.csv"))
    for name, (code, out, err) in results.items():
        assert code in (0, 1), f"{name}; {out}; {err[-2000:]}"
        assert out["detector"] == name and "error" not in out, f"{name}; {out}"
    drift = results["drift"][1]
    assert all(drift["columns"][c]["missing"]["current"]["null"] + drift["columns"][c]["missing"]["current"]["posinf"]
               + drift["columns"][c]["missing"]["current"]["neginf"] >= 3 for c in cols)
    assert results["leakage"][1]["fitted_on"] == "unknown" or results["leakage"][1]["missing_values"]["test"] > 0
    [gap] = [f for f in results["labels"][1]["findings"] if f["kind"] == "missing_predictions"]
    assert gap["evidence"]["rows"] == 3 and results["labels"][1]["accuracy"]["predictions"] == 2


def test_fitted_scaler_with_nan_in_training_rows_is_recognised_like_sklearn(wine):
    from sklearn.preprocessing import StandardScaler

    path, frame = wine
    cols = ["alcohol", "ash", "hue"]
    train, test = frame.iloc[:120].copy(), frame.iloc[120:].copy()
    train.loc[train.index[[3, 9, 40]], "ash"] = np.nan           # sklearn ignores NaN when fitting
    scaler = StandardScaler().fit(train[cols])
    assert isinstance(scaler.n_samples_seen_, np.ndarray)         # one count per feature
    params = {"mean_": scaler.mean_.tolist(), "var_": scaler.var_.tolist(),
              "n_samples_seen_": scaler.n_samples_seen_.tolist(), "feature_names_in_": cols}
    (path / "nan_params.json").write_text(json.dumps(params))
    train.to_csv(path / "nan_train.csv", index=False)
    test.to_csv(path / "nan_test.csv", index=False)
    code, out, _ = run_check("leakage", "--fitted", str(path / "nan_params.json"), "--train",
                             str(path / "nan_train.csv"), "--test", str(path / "nan_test.csv"))
    assert code == 0 and out["fitted_on"] == "train" and out["missing_values"]["train"] == 3


def test_fitted_params_name_their_features_or_features_option_selects_them(wine):
    from sklearn.preprocessing import StandardScaler

    path, frame = wine
    cols = ["proline", "alcohol"]                                  # not the table's order, plus extra columns
    train, test = frame.iloc[:130], frame.iloc[130:]
    train.to_csv(path / "f_train.csv", index=False)
    test.to_csv(path / "f_test.csv", index=False)
    leaky = StandardScaler().fit(pd.concat([train, test])[cols])
    stats = {"mean_": leaky.mean_.tolist(), "var_": leaky.var_.tolist(), "n_samples_seen_": len(frame)}
    (path / "named.json").write_text(json.dumps({**stats, "features": cols}))
    (path / "bare.json").write_text(json.dumps(stats))
    args = ["--train", str(path / "f_train.csv"), "--test", str(path / "f_test.csv")]
    code, out, _ = run_check("leakage", "--fitted", str(path / "named.json"), *args)
    assert code == 1 and out["fitted_on"] == "train+test" and out["columns"] == cols
    assert [f["kind"] for f in out["findings"]] == ["fit_on_test"]
    code, out, _ = run_check("leakage", "--fitted", str(path / "bare.json"), *args)
    assert code == 2 and "--features" in out["message"]               # 15 numeric columns, 2 fitted: say how
    code, out, _ = run_check("leakage", "--fitted", str(path / "bare.json"), *args, "--features", "proline,alcohol")
    assert code == 1 and out["fitted_on"] == "train+test"
    honest = StandardScaler().fit(train[cols])
    (path / "honest.json").write_text(json.dumps({"mean_": honest.mean_.tolist(), "var_": honest.var_.tolist(),
                                                  "feature_names_in_": cols}))
    code, out, _ = run_check("leakage", "--fitted", str(path / "honest.json"), *args)
    assert code == 0 and out["fitted_on"] == "train" and out["findings"] == []


@pytest.mark.parametrize("header,flags", [("y_true,y_pred", []), ("label,prediction", []), ("Target,Pred", []),
                                          ("gold_class,argmax_id", ["--true-col", "gold_class", "--pred-col",
                                                                    "argmax_id"])])
def test_prediction_columns_by_common_name_or_option(tmp_path, header, flags):
    (tmp_path / "train.json").write_text(json.dumps(["cat", "dog", "fox"]))
    (tmp_path / "serving.json").write_text(json.dumps(["dog", "cat", "fox"]))
    (tmp_path / "p.csv").write_text(header + "\ncat,0\ndog,1\nfox,2\ncat,0\n")
    code, out, err = run_check("labels", str(tmp_path / "train.json"), str(tmp_path / "serving.json"),
                               "--predictions", str(tmp_path / "p.csv"), *flags)
    assert code == 1, err
    assert out["accuracy"]["training_mapping"] == 1.0 and out["accuracy"]["serving_mapping"] == 0.25


def test_prediction_table_without_a_recognised_column_names_the_option(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps(["a", "b"]))
    (tmp_path / "p.csv").write_text("who,what\na,0\n")
    code, out, _ = run_check("labels", str(tmp_path / "m.json"), str(tmp_path / "m.json"), "--predictions",
                             str(tmp_path / "p.csv"))
    assert code == 2 and "--true-col" in out["message"] and out["file"].endswith("p.csv")


def frame(seed: int, n: int = 300, shift: float = 0.0) -> "pd.DataFrame":
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.normal(40 + shift * 12, 12, n), "income": rng.lognormal(10, 1, n),
                         "visits": rng.poisson(3, n), "plan": rng.choice(["basic", "plus", "pro"], n, p=[.6, .3, .1])})


def test_a_feed_that_starts_sending_nulls_is_drift_and_an_all_null_column_a_freeze(tmp_path):
    ref = frame(0, n=600)
    ref.loc[ref.index[::50], "income"] = np.nan                    # 2 % missing is normal here
    ref.to_csv(tmp_path / "ref.csv", index=False)
    healthy = frame(1, n=600)
    healthy.loc[healthy.index[7::50], "income"] = np.nan
    healthy.to_csv(tmp_path / "healthy.csv", index=False)
    code, out, _ = run_check("drift", str(tmp_path / "ref.csv"), str(tmp_path / "healthy.csv"))
    assert code == 0 and out["findings"] == [], f'{out["findings"]}'
    assert out["columns"]["income"]["missing"]["reference_share"] == pytest.approx(0.02)
    nulls = frame(2, n=600)
    nulls.loc[nulls.index[:240], "income"] = np.nan               # 40 % missing: the upstream feed broke
    nulls["visits"] = nulls["visits"].astype(float)
    nulls.loc[nulls.index[:3], "visits"] = np.inf
    nulls.to_csv(tmp_path / "nulls.csv", index=False)
    code, out, _ = run_check("drift", str(tmp_path / "ref.csv"), str(tmp_path / "nulls.csv"))
    gap = out["columns"]["income"]["missing"]
    assert code == 1 and gap["drifted"] and gap["current_share"] == pytest.approx(0.4)
    assert out["columns"]["income"]["drifted"] and not out["columns"]["income"]["values_drifted"]
    assert out["columns"]["visits"]["missing"]["current"] == {"null": 0, "posinf": 3, "neginf": 0}
    assert {f["kind"] for f in out["findings"]} >= {"missing_share_drift"} and "income" in out["drifted"]
    gone = frame(3, n=600).assign(income=np.nan)
    gone.to_csv(tmp_path / "gone.csv", index=False)
    code, out, _ = run_check("drift", str(tmp_path / "ref.csv"), str(tmp_path / "gone.csv"))
    [f] = [f for f in out["findings"] if f["kind"] == "missing_share_drift"]
    assert code == 1 and f["severity"] == "error" and "all-missing" in f["message"]
    assert out["columns"]["income"]["method"] == "none" and out["response"] == "freeze"
