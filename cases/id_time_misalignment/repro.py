"""id_time_misalignment: features and diagnoses from two systems, joined on patient id and time.

scikit-learn's breast_cancer (569 samples) becomes two real-looking sources, generated
deterministically from the seed:

* ``features.parquet`` (the imaging feature store): ``patient_id`` (int64; 190 patients, three scans
  each), ``scanned_at`` (tz-aware UTC; scans 150 s apart in two half-days around the 2024 European
  daylight-saving transitions) and the 30 measurements;
* ``diagnoses.csv`` (the lab system): ``patient_id``, ``sampled_at`` (ISO 8601 UTC with ``Z``), ``malignant``
  (0/1) and ``site`` (A or B: the lab that read the sample), one row per scan.

Both pass the data fault point ``data.source`` before they are written (in the faulted phase the lab at
site B writes zero-padded ids and naive Europe/Berlin wall-clock time from a clock 1.5 s fast, and site
A's integration delivers 5% of its messages twice), then the pipeline reads them back as production
code does and joins them:

* the **naive join** (the pipeline's own code): ids compared as text, times parsed as UTC instants (naive
  strings silently taken as UTC), a left merge on (id, time), a scan without a diagnosis on file counted
  as benign;
* ``faultlib.detect.data.alignment.check_alignment`` on the two files names each problem and its fix;
* the **fixed join** applies exactly the fixes the check names (key normalisation, localising the naive
  rows in the zone it found, removing the clock offset it measured, dropping repeated rows) and joins with
  ``merge_asof`` within the tolerance.

A StandardScaler + LogisticRegression is trained on each join's labels for the training patients and
scored on the held-out patients' true labels: the metric the bad join costs, and the fixed join's.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from faultlib import repro
from faultlib.remedies import normalise_keys, parse_times, to_utc
from faultlib.detect.data.alignment import check_alignment
from faultlib.inject.data import through
from faultlib.readers.tables import read_table

WINDOWS = ("2024-03-30T19:00:00Z", "2024-10-26T19:00:00Z")   # half-days around the EU DST transitions


def sources(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """The two clean sources and the true label of every scan (features row order)."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    order = np.random.Generator(np.random.PCG64(seed)).permutation(len(data.target))
    x, malignant = data.data[order], (data.target[order] == 0).astype(int)   # sklearn: 0 = malignant
    n = len(order)
    half = n // 2
    starts = [pd.Timestamp(w) for w in WINDOWS]
    scanned = pd.DatetimeIndex([starts[0] + pd.Timedelta(seconds=150 * i) for i in range(half)]
                               + [starts[1] + pd.Timedelta(seconds=150 * i) for i in range(n - half)]).as_unit("ns")
    patient = np.arange(n) // 3 + 1
    features = pd.DataFrame(x, columns=[c.replace(" ", "_") for c in data.feature_names])
    features.insert(0, "scanned_at", scanned)
    features.insert(0, "patient_id", patient.astype("int64"))
    diagnoses = pd.DataFrame({"patient_id": patient.astype("int64"),
                              "sampled_at": scanned.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                              "malignant": malignant, "site": np.where(patient % 5 < 2, "B", "A")})
    return features, diagnoses, malignant


def naive_join(features: pd.DataFrame, diagnoses: pd.DataFrame) -> pd.DataFrame:
    """The pipeline's own join: ids as text, times as UTC instants, left merge on both, no diagnosis = benign."""
    f = features.assign(key=features["patient_id"].astype(str), t=features["scanned_at"].dt.as_unit("ns"))
    d = diagnoses.assign(key=diagnoses["patient_id"].astype(str),
                         t=pd.to_datetime(diagnoses["sampled_at"], utc=True, format="ISO8601").dt.as_unit("ns"))
    joined = f.merge(d[["key", "t", "malignant"]], on=["key", "t"], how="left")
    joined["matched"] = joined["malignant"].notna()
    joined["malignant"] = joined["malignant"].fillna(0).astype(int)
    return joined


def fixed_join(features: pd.DataFrame, diagnoses: pd.DataFrame, report, tolerance: str) -> pd.DataFrame:
    """The join with exactly the fixes the alignment check names (keys, zone, clock offset, repeats)."""
    steps = report.keys["normalisation"]["patient_id"]
    f = features.assign(key=normalise_keys(features["patient_id"], steps).to_numpy(),
                        t=features["scanned_at"].dt.as_unit("ns"))
    zone = (report.time or {}).get("zone")
    naive_zone = zone["name"] if zone and zone["local_side"] == "right" else "UTC"
    t = to_utc(diagnoses["sampled_at"], naive_zone=naive_zone)
    naive = ~parse_times(diagnoses["sampled_at"], column="sampled_at").aware
    for shift in (report.time or {}).get("clock_offsets", []):
        scope = naive if shift["scope"] == "naive rows" else np.ones(len(t), dtype=bool)
        t = t.where(~scope, t - pd.Timedelta(milliseconds=shift["offset_ms"]))
    d = pd.DataFrame({"key": normalise_keys(diagnoses["patient_id"], steps).to_numpy(), "t": t.dt.as_unit("ns"),
                      "malignant": diagnoses["malignant"].to_numpy()}).drop_duplicates(["key", "t"])
    joined = pd.merge_asof(f.sort_values("t", kind="stable"), d.sort_values("t", kind="stable"), on="t", by="key",
                           tolerance=pd.Timedelta(tolerance), direction="nearest").sort_index()
    joined["matched"] = joined["malignant"].notna()
    joined["malignant"] = joined["malignant"].fillna(0).astype(int)
    return joined


def fit_and_score(joined: pd.DataFrame, features: pd.DataFrame, truth: np.ndarray, test_patients: set[int],
                  columns: list[str]) -> dict[str, float]:
    """Train on the join's labels for the training patients; score on the held-out patients' true labels."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, recall_score, roc_auc_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    train = joined[~joined["patient_id"].isin(test_patients)]
    test = features["patient_id"].isin(test_patients).to_numpy()
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(train[columns].to_numpy(), train["malignant"].to_numpy())
    scores = model.predict_proba(features.loc[test, columns].to_numpy())[:, 1]
    y = truth[test]
    return {"accuracy": float(accuracy_score(y, scores >= 0.5)), "recall": float(recall_score(y, scores >= 0.5)),
            "auc": float(roc_auc_score(y, scores)), "train_rows": int(len(train))}


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        tolerance = str(p.get("tolerance", "500ms"))
        features, diagnoses, truth = sources(ctx.seed)
        ctx.attach(None)   # no model to attach: the faults act on the data fault points below

        rows = ctx.evidence.gauge("faultlib_join_rows", "rows out of each join")
        errors = ctx.evidence.gauge("faultlib_join_label_errors", "joined labels that differ from the truth")
        matched_ratio = ctx.evidence.gauge("faultlib_join_matched_ratio", "feature rows that found a diagnosis")
        accuracy = ctx.evidence.gauge("faultlib_model_accuracy", "held-out accuracy of the model trained on each join")
        recall = ctx.evidence.gauge("faultlib_model_recall", "held-out malignant recall of each join's model")
        key_ratio = ctx.evidence.gauge("faultlib_key_match_ratio", "feature rows whose id the diagnoses have")
        clock = ctx.evidence.gauge("faultlib_clock_offset_ms", "largest clock offset the alignment check measured")
        found = ctx.evidence.counter("faultlib_alignment_findings_total", "alignment check findings")

        with ctx.step(0, name="pipeline.stage") as span:
            span.set(stage="sources")
            features = through(ctx, "data.source", features, source="features")
            diagnoses = through(ctx, "data.source", diagnoses, source="diagnoses")
            features.to_parquet(ctx.dump_dir / "features.parquet", index=False)
            diagnoses.to_csv(ctx.dump_dir / "diagnoses.csv", index=False)
            # read back as production code does: the lab's ids are identifiers, kept as text
            features = pd.read_parquet(ctx.dump_dir / "features.parquet")
            diagnoses = pd.read_csv(ctx.dump_dir / "diagnoses.csv", dtype={"patient_id": str})
            digest = hashlib.sha256(pd.util.hash_pandas_object(features, index=False).to_numpy()).hexdigest()
            span.set(features_rows=len(features), diagnoses_rows=len(diagnoses), features_sha256=digest)

        with ctx.step(1, name="pipeline.stage") as span:
            span.set(stage="check")
            with ctx.evidence.span("data.check_alignment", tolerance=tolerance):
                report = check_alignment(
                    read_table(ctx.dump_dir / "features.parquet"), read_table(ctx.dump_dir / "diagnoses.csv"),
                    on=["patient_id"], time_col=("scanned_at", "sampled_at"), tolerance=tolerance,
                    left_name="features.parquet", right_name="diagnoses.csv", right_line_offset=2)
            span.set(findings=len(report.findings))
        for finding in report.findings:
            ctx.report(finding)
            found.add(1, severity=finding.severity.value)
        found.add(0, severity="error")
        offsets = [abs(c["offset_ms"]) for c in report.time["clock_offsets"]]
        clock.set(max(offsets, default=0.0))
        key_ratio.set(report.keys["matched_left_rows_raw"] / len(features), stage="raw")
        key_ratio.set(report.keys["matched_left_rows"] / len(features), stage="fixed")

        columns = [c for c in features.columns if c not in ("patient_id", "scanned_at")]
        patients = np.unique(features["patient_id"])
        test_patients = set(np.random.Generator(np.random.PCG64(ctx.seed + 1)).choice(
            patients, size=len(patients) // 4, replace=False).tolist())
        results = {}
        for step, (name, join) in enumerate((("naive", lambda: naive_join(features, diagnoses)),
                                             ("fixed", lambda: fixed_join(features, diagnoses, report, tolerance))), 2):
            with ctx.step(step, name="pipeline.stage") as span:
                with ctx.evidence.span("data.join", join=name):
                    joined = join()
                wrong = _label_errors(joined, features, truth)
                with ctx.evidence.span("model.fit", join=name):
                    scores = fit_and_score(joined, features, truth, test_patients, columns)
                result = {"rows": int(len(joined)), "label_errors": wrong,
                          "matched": float(joined["matched"].mean()), **scores}
                results[name] = result
                span.set(stage=f"{name}_join", **result)
                rows.set(result["rows"], join=name)
                errors.set(wrong, join=name)
                matched_ratio.set(result["matched"], join=name)
                accuracy.set(result["accuracy"], join=name)
                recall.set(result["recall"], join=name)
        print(" ".join(f"{name}: rows={r['rows']} label_errors={r['label_errors']} accuracy={r['accuracy']:.4f} "
                       f"recall={r['recall']:.4f} auc={r['auc']:.4f}" for name, r in results.items()))
        ctx.summary(**{f"{name}_{k}": v for name, r in results.items() for k, v in r.items()},
                    features_rows=len(features), diagnoses_rows=len(diagnoses), features_sha256=digest,
                    site_b_rows=int((diagnoses["site"] == "B").sum()),
                    key_matched_raw=report.keys["matched_left_rows_raw"], key_matched_fixed=report.keys["matched_left_rows"],
                    join_row_multiplication=report.join["row_multiplication"],
                    time_pairs=report.time["pairs"], time_matched_raw=report.time["matched_within_tolerance"]["raw"],
                    time_matched_fixed=report.time["matched_within_tolerance"].get("after_fix", 0),
                    zone=(report.time.get("zone") or {}).get("name", ""),
                    clock_offset_ms=max(offsets, default=0.0))


def _label_errors(joined: pd.DataFrame, features: pd.DataFrame, truth: np.ndarray) -> int:
    """Rows of a (possibly fanned-out) join whose label is not the scan's true label."""
    key = features["patient_id"].astype(str) + "@" + features["scanned_at"].astype(str)
    true = pd.Series(truth, index=key.to_numpy())
    joined_key = joined["patient_id"].astype(str) + "@" + joined["scanned_at"].astype(str)
    return int((true.reindex(joined_key.to_numpy()).to_numpy() != joined["malignant"].to_numpy()).sum())


if __name__ == "__main__":
    main()
