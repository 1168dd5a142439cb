"""Assertion suite of variable_length_batching; the `evidence` fixture comes from faultlib.cases.fixture."""

import math
from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data


def _check_findings(phase):
    return [f for f in phase.findings if f.detector == "batching"]


def test_control_raises_no_finding(evidence):
    control = evidence.control
    assert control.status == "ok"
    assert control.findings == []
    assert control.metric("faultlib_collate_failures_total") == 0
    assert control.metric("faultlib_batching_failing_batches") == 0
    assert control.spans_named("data.collate_error") == []
    assert control.summary["strategy"] == "pad_to_batch_max"
    assert control.summary["accuracy"] >= 0.85
    assert control.summary["length_min"] < control.summary["length_max"], "the sequences must vary in length"


def test_batching_check_fires_before_training(evidence):
    faulted = evidence.faulted
    assert faulted.status == "ok", "the faulted phase must end cleanly: the repro catches the collate failure"
    found = _check_findings(faulted)
    assert [f.kind for f in found] == ["unstackable_batch"]
    finding = found[0]
    assert finding.severity.value == "error"
    assert finding.evidence["dims"] == [0] and faulted.summary["varying_dim"] == 0
    assert finding.evidence["failing_batches"] == faulted.summary["predicted_failing_batches"] > 0
    check = faulted.spans_named("data.batching_check")[0]
    first_step = faulted.steps()[0] if faulted.steps() else None
    assert first_step is None or check.end_ns <= first_step.start_ns, "the check runs before any training step"


def test_training_fails_exactly_where_the_check_said(evidence):
    s = evidence.faulted.summary
    assert s["observed_batch"] == s["predicted_batch"]
    assert s["observed_dataset_index"] == s["predicted_dataset_index"]
    assert s["observed_entry_in_batch"] == s["predicted_entry_in_batch"]
    assert s["observed_reference_index"] == s["predicted_reference_index"]
    assert s["observed_shape"] == s["predicted_shape"]
    assert s["observed_reference_shape"] == s["predicted_reference_shape"]
    error = evidence.faulted.spans_named("data.collate_error")[0].attributes
    assert "stack expects each tensor to be equal size" in error["error"]
    loader = [f for f in evidence.faulted.findings if f.kind == "collate_failure"]
    assert len(loader) == 1 and loader[0].location["index"] == s["predicted_dataset_index"]
    assert loader[0].location["step"] == s["predicted_batch"]
    assert evidence.faulted.metric("faultlib_collate_failures_total") == 1


def test_mitigation_trains_to_control_accuracy(evidence):
    faulted, control = evidence.faulted.summary, evidence.control.summary
    assert faulted["strategy"] == "bucketed"
    assert faulted["accuracy"] >= control["accuracy"] - 0.05
    assert {s.attributes["strategy"] for s in evidence.faulted.steps()} == {"bucketed"}


def test_padding_does_not_change_real_outputs(evidence):
    for phase in (evidence.control, evidence.faulted):
        s = phase.summary
        assert s["padded_positions"] > 0
        assert s["masked_max_abs_diff"] < 1e-4
        assert s["unmasked_max_abs_diff"] > 1e-2, "without the mask, padding must change the outputs"
        assert s["neg_inf_pad_weight"] == 0.0 and s["neg_inf_weight_max_abs_diff"] < 1e-6
        assert phase.metric("faultlib_mask_invariance_max_abs_diff", masking="masked") < 1e-4


def test_length_buckets_waste_fewer_pad_positions(evidence):
    for phase in (evidence.control, evidence.faulted):
        s = phase.summary
        assert s["waste_bucketed"] < 0.25 * s["waste_pad_to_batch_max"]
        assert s["pad_positions_bucketed"] < s["pad_positions_pad_to_batch_max"]
        assert s["detector_waste_bucketed"] < 0.25 * s["detector_waste_pad_to_batch_max"]
        assert (phase.metric("faultlib_padding_waste_ratio", strategy="bucketed")
                < phase.metric("faultlib_padding_waste_ratio", strategy="pad_to_batch_max"))
    # the batches actually trained: the same number of epochs, a fraction of the pad positions
    bucketed = evidence.faulted.metric("faultlib_pad_positions_total", strategy="bucketed")
    padded = evidence.control.metric("faultlib_pad_positions_total", strategy="pad_to_batch_max")
    assert 0 < bucketed < 0.25 * padded


def test_losses_and_weights_stay_finite(evidence):
    for phase in (evidence.control, evidence.faulted):
        assert phase.summary["weights_finite"] is True
        steps = phase.steps()
        assert steps
        assert all(math.isfinite(s.attributes["loss"]) for s in steps)


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    assert evidence.faulted.missing_observability(CASE["observability"]) == []


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("collate_failures", phase="faulted", window="during").max() > 0
    assert evidence.promql("collate_failures", phase="control").max() == 0
