"""Assertion suite of exploding_gradient; the `evidence` fixture comes from faultlib.cases.fixture."""

from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
SHIM = CASE["inject"]["local"][0]["params"]
WINDOW = set(range(SHIM["start_step"], SHIM["start_step"] + SHIM["steps"]))
STRATEGIES = ("global", "per_parameter")


def test_control_raises_no_finding(evidence):
    assert evidence.control.findings == []
    for span in evidence.control.steps():
        for strategy in STRATEGIES:
            assert span.attributes[f"{strategy}.healthy_kept"] == 1.0


def test_detector_fires_at_the_injected_steps_and_names_the_layer(evidence):
    findings = [f for f in evidence.faulted.findings if f.detector == "exploding_gradient"]
    assert len(findings) == 2 * len(WINDOW)
    assert {f.location["step"] for f in findings} == WINDOW
    assert {f.location["module"] for f in findings} == {"2"}
    assert all(f.evidence["global_ratio"] > 100 for f in findings)
    for strategy in STRATEGIES:
        fired = {s.attributes["faultlib.step"] for s in evidence.faulted.steps() if s.attributes[f"{strategy}.exploded"]}
        assert fired == WINDOW


def test_evidence_compares_what_each_clipping_hides(evidence):
    during = [s for s in evidence.faulted.steps() if s.attributes["faultlib.step"] in WINDOW]
    assert max(s.attributes["global.healthy_kept"] for s in during) < 1e-2
    assert min(s.attributes["per_parameter.healthy_kept"] for s in during) == 1.0
    events = [attrs for s in during for name, attrs in s.events if name == "clipping.comparison"]
    assert {e["strategy"] for e in events} == set(STRATEGIES)
    assert all("2.weight" in e["exploding"] for e in events)
    assert evidence.faulted.metric("faultlib_healthy_grad_kept_ratio", strategy="global", window="during") < 1e-2


def test_training_ends_with_finite_weights_and_a_usable_model(evidence):
    summary = evidence.faulted.summary
    for strategy in STRATEGIES:
        assert summary[f"{strategy}.weights_finite"] is True
        assert summary[f"{strategy}.accuracy"] >= 0.9
        assert summary[f"{strategy}.exploded_steps"] == len(WINDOW)


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("exploding_rate", phase="faulted", window="before").max() == 0
    assert evidence.promql("exploding_rate", phase="faulted", window="during").max() > 0
    assert evidence.promql("exploding_rate", phase="control").max() == 0
    before = evidence.promql("global_norm", phase="faulted", window="before").max()
    assert evidence.promql("global_norm", phase="faulted", window="during").max() > 100 * before
