"""GradScalerAudit: each misuse found at its call site; the healthy loops silent."""

from __future__ import annotations

import pytest
import torch

from faultlib.detect import GradScalerAudit


def loop(mode: str, steps: int = 4):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu")
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    lines = {}
    with GradScalerAudit(scaler, [opt]) as audit:
        for _ in range(steps):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            if mode == "unscaled_backward":
                scaler.scale(loss)
                loss.backward()
            else:
                scaler.scale(loss).backward()
            if mode in ("healthy", "unscaled_backward"):
                scaler.unscale_(opt)
            lines["clip"] = _line() + 1
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            if mode == "clip_then_unscale":
                scaler.unscale_(opt)
            lines["step"] = _line() + 1
            scaler.step(opt)
            scaler.update()
    return audit, lines


def _line() -> int:
    import sys
    return sys._getframe(1).f_lineno


def test_clipping_after_unscale_is_silent():
    audit, _ = loop("healthy")
    assert audit.findings() == []
    assert audit.step == 4


@pytest.mark.parametrize("mode", ["clip_first", "clip_then_unscale"])
def test_clipping_scaled_gradients_is_found_at_the_clip(mode):
    audit, lines = loop(mode)
    [finding] = audit.findings()
    assert finding.kind == "clip_scaled_gradients" and finding.severity.value == "error"
    assert finding.location["file"] == __file__ and finding.location["line"] == lines["clip"]
    assert finding.location["function"] == "loop" and finding.location["step"] == 0
    assert finding.evidence["count"] == 4 and finding.evidence["loss_scale"] == 65536.0
    assert finding.evidence["effective_max_norm"] == pytest.approx(1.0 / 65536)
    assert "unscale_" in finding.evidence["fix"]


def test_step_without_a_scaled_backward_is_found_at_the_step():
    audit, lines = loop("unscaled_backward")
    assert [(f.kind, f.location["line"]) for f in audit.findings()] == [("step_without_scaled_backward",
                                                                          lines["step"])]


def test_fp16_master_weights_and_eps_that_rounds_to_zero():
    half = torch.nn.Linear(4, 2).half()
    with GradScalerAudit(torch.amp.GradScaler("cpu"), [torch.optim.Adam(half.parameters(), eps=1e-8)]) as audit:
        pass
    assert sorted((f.kind, f.evidence["parameter_dtype"]) for f in audit.findings()) == [
        ("eps_underflow", "float16"), ("fp16_master_weights", "float16")]
    fp32 = torch.nn.Linear(4, 2)
    with GradScalerAudit(torch.amp.GradScaler("cpu"), [torch.optim.Adam(fp32.parameters(), eps=1e-8)]) as audit:
        pass
    assert audit.findings() == []


def test_close_restores_torch_and_the_scaler():
    original = torch.nn.utils.clip_grad_norm_
    scaler = torch.amp.GradScaler("cpu")
    audit = GradScalerAudit(scaler)
    assert torch.nn.utils.clip_grad_norm_ is not original
    audit.close()
    audit.close()
    assert torch.nn.utils.clip_grad_norm_ is original and "scale" not in scaler.__dict__


def test_an_unscale_that_did_not_happen_is_not_counted():
    """The clip_before_unscale shim defers the loop's unscale_ to step: the audit reads the scaler's own stage."""
    from faultlib.inject.amp import ClipBeforeUnscale

    class Target:
        model, step, attempt = None, 0, 1

    shim = ClipBeforeUnscale(start_step=0, steps=100)
    shim.apply(Target())
    try:
        audit, lines = loop("healthy")
    finally:
        shim.revert()
    assert [(f.kind, f.location["line"]) for f in audit.findings()] == [("clip_scaled_gradients", lines["clip"])]
    assert shim.hits == 4
    assert loop("healthy")[0].findings() == []  # reverted
