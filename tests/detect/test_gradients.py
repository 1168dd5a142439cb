"""Exploding-gradient detector and the clipping comparison on real gradients."""

from __future__ import annotations

import pytest

from faultlib.detect import ExplodingGradientDetector, compare_clipping, gradient_norms
from faultlib.errors import DetectorError

torch = pytest.importorskip("torch")
nn = torch.nn


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def _backward(model, scale_layer=None, factor=1.0):
    model.zero_grad()
    x = torch.randn(32, 8)
    y = torch.randint(0, 4, (32,))
    nn.functional.cross_entropy(model(x), y).backward()
    if scale_layer is not None:
        model[scale_layer].weight.grad *= factor


def test_norms_match_clip_grad_norm():
    model = _model()
    _backward(model)
    norms = gradient_norms(model.named_parameters())
    expected = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
    assert norms.global_norm == pytest.approx(expected, rel=1e-5)
    assert set(norms.norms) == {"0.weight", "0.bias", "2.weight", "2.bias"}


def test_silent_on_healthy_steps_then_fires_and_names_the_layer():
    model = _model()
    detector = ExplodingGradientDetector(model.named_parameters(), warmup=5)
    for step in range(30):
        _backward(model)
        _, finding = detector.observe(step)
        assert finding is None, finding
    _backward(model, scale_layer=2, factor=1e4)
    norms, finding = detector.observe(30)
    assert finding is not None and finding.location == {"step": 30, "phase": "backward", "module": "2"}
    assert finding.evidence["parameter"] == "2.weight" and finding.evidence["global_ratio"] > 100
    _backward(model, scale_layer=2, factor=1e4)  # a burst keeps firing: exploded steps stay out of the baseline
    assert detector.observe(31)[1] is not None
    assert len(detector.history) == 32


def test_clipping_comparison_shows_what_each_strategy_hides():
    model = _model()
    _backward(model, scale_layer=2, factor=1e4)
    norms = gradient_norms(model.named_parameters())
    comparison = compare_clipping(norms, max_norm=1.0)
    assert comparison.exploding == ("2.weight",)
    assert comparison.healthy_kept_by_global < 1e-2
    for name, norm in norms.norms.items():
        assert comparison.per_parameter_scale[name] == pytest.approx(min(1.0, 1.0 / (norm + 1e-6)))
    assert comparison.healthy_kept_by_per_parameter > 100 * comparison.healthy_kept_by_global
    # the global scale is exactly what clip_grad_norm_ applies
    before = model[0].weight.grad.clone()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    assert torch.allclose(model[0].weight.grad, before * comparison.global_scale, rtol=1e-4)
    assert any("stalls" in note for note in comparison.notes)


def test_misuse():
    model = _model()
    with pytest.raises(DetectorError, match="call loss.backward"):
        gradient_norms(model.named_parameters())
    with pytest.raises(DetectorError, match="ratio > 1"):
        ExplodingGradientDetector(model.named_parameters(), ratio=1)


def test_findings_carry_the_severity_the_catalog_lists_for_the_case():
    """`faultlib list` shows the case's severity; the detector's findings must not contradict it."""
    import pathlib

    import yaml

    case = yaml.safe_load((pathlib.Path(__file__).resolve().parents[2] / "cases/exploding_gradient/case.yaml")
                          .read_text())
    model = _model()
    detector = ExplodingGradientDetector(model.named_parameters(), warmup=5)
    for step in range(10):
        _backward(model)
        detector.observe(step)
    _backward(model, scale_layer=2, factor=1e4)
    finding = detector.observe(10)[1]
    assert finding.detector == case["id"]
    assert finding.severity.value == case["severity"] == "error"
