"""Assertion suite of id_time_misalignment; the `evidence` fixture comes from faultlib.cases.fixture."""

from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
SHIMS = {s["shim"]: s["params"] for s in CASE["inject"]["local"]}


def _by_kind(phase):
    out = {}
    for f in phase.findings:
        if f.detector == "align":
            out.setdefault(f.kind, []).append(f)
    return out


def test_control_raises_no_finding(evidence):
    control = evidence.control
    assert control.status == "ok"
    assert control.findings == []
    s = control.summary
    assert s["naive_label_errors"] == 0 and s["fixed_label_errors"] == 0
    assert s["naive_rows"] == s["features_rows"] == s["diagnoses_rows"]
    assert s["key_matched_raw"] == s["features_rows"] and s["time_matched_raw"] == s["time_pairs"]
    assert s["naive_accuracy"] >= 0.93
    assert control.metric("faultlib_alignment_findings_total") == 0


def test_check_names_each_injected_fault(evidence):
    faulted = evidence.faulted
    s = faulted.summary
    found = _by_kind(faulted)
    assert {"key_dtype_mismatch", "key_zero_padding", "naive_vs_aware", "dst_local_time", "clock_offset",
            "duplicate_keys"} <= set(found), sorted(found)
    site_b = s["site_b_rows"]
    padding = found["key_zero_padding"][0].evidence
    assert padding["matched_after"] - padding["matched_before"] == site_b == s["key_matched_fixed"] - s["key_matched_raw"] \
        - (s["features_rows"] - site_b)
    assert all("0000" in str(e["right"]) for e in padding["examples"])
    dst = found["dst_local_time"][0].evidence
    assert dst["zone"] == SHIMS["clock_skew"]["local_zone"] and dst["rows"] == site_b
    assert dst["offsets_h"] == [1.0, 2.0] and dst["scope"] == "naive rows"
    symptoms = {t["kind"]: t for t in dst["transitions"] if t["symptom"]}
    assert symptoms["missing_hour"]["rows"] == 0 and symptoms["duplicated_hour"]["rows"] > 0
    assert symptoms["missing_hour"]["local_start"].startswith("2024-03-31T02:00")
    assert symptoms["duplicated_hour"]["local_start"].startswith("2024-10-27T02:00")
    clock = found["clock_offset"][0].evidence
    assert abs(clock["offset_ms"] - SHIMS["clock_skew"]["offset_ms"]) < 1 and clock["scope"] == "naive rows"
    assert clock["matched_after"] == s["time_pairs"] == s["time_matched_fixed"]
    assert found["naive_vs_aware"][0].evidence["naive_rows"] == site_b
    retried = [f for f in found["duplicate_keys"] if f.location["file"] == "diagnoses.csv"]
    extra = s["diagnoses_rows"] - s["features_rows"]
    assert retried and retried[0].evidence["extra_rows"] == extra > 0
    assert abs(s["join_row_multiplication"] - s["diagnoses_rows"] / s["features_rows"]) < 1e-6
    assert faulted.metric("faultlib_clock_offset_ms") == clock["offset_ms"]


def test_naive_join_mislabels_and_the_metric_suffers(evidence):
    f, c = evidence.faulted.summary, evidence.control.summary
    assert f["naive_label_errors"] > 0
    assert f["naive_rows"] == f["diagnoses_rows"] > f["features_rows"], "the retried rows fan the join out"
    assert f["naive_matched"] < 1.0
    assert f["naive_accuracy"] <= c["naive_accuracy"] - 0.03
    assert f["naive_recall"] <= c["naive_recall"] - 0.10
    assert (evidence.faulted.metric("faultlib_model_accuracy", join="naive")
            < evidence.faulted.metric("faultlib_model_accuracy", join="fixed"))


def test_fixed_join_restores_labels_and_metrics(evidence):
    f, c = evidence.faulted.summary, evidence.control.summary
    assert f["fixed_label_errors"] == 0 and f["fixed_matched"] == 1.0
    assert f["fixed_rows"] == f["features_rows"]
    for metric in ("accuracy", "recall", "auc"):
        assert f[f"fixed_{metric}"] == c[f"naive_{metric}"], metric


def test_feature_source_is_the_same_in_both_phases(evidence):
    assert evidence.faulted.summary["features_sha256"] == evidence.control.summary["features_sha256"]
    for phase in (evidence.control, evidence.faulted):
        stages = [s.attributes["stage"] for s in phase.steps("pipeline.stage")]
        assert stages == ["sources", "check", "naive_join", "fixed_join"]
        assert all(s.status != 2 for s in phase.spans)


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    assert evidence.faulted.missing_observability(CASE["observability"]) == []


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("label_errors", phase="faulted", window="during").max() > 0
    assert evidence.promql("label_errors", phase="control").max() == 0
    assert evidence.promql("key_match", phase="faulted", window="during").min() < 1
    assert evidence.promql("key_match", phase="control").min() == 1
