"""`faultlib trace` reports GradScaler misuse (the GradScalerAudit hook in the traced process) as findings at the
user's call site, without turning a finite run into exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")

SCRIPT = Path(__file__).with_name("scaler_script.py")
SOURCE = SCRIPT.read_text().splitlines()


def line_of(snippet: str) -> int:
    return next(i for i, line in enumerate(SOURCE, 1) if snippet in line)


def test_clip_before_unscale_is_reported_at_the_clip_line_and_exit_stays_0(tmp_path):
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), "clip_before", "1024", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["first_nonfinite"] is None
    [finding] = report["findings"]
    assert (finding["detector"], finding["kind"], finding["severity"]) == (
        "gradscaler", "clip_scaled_gradients", "error")
    assert Path(finding["location"]["file"]).name == SCRIPT.name
    assert finding["location"]["line"] == line_of("# CLIP SCALED")
    assert finding["evidence"]["count"] == 4 and finding["evidence"]["loss_scale"] == 1024.0
    assert "scaler.unscale_" in finding["message"]


@pytest.mark.parametrize("mode, marker, call, limit", [("clip_before_named", "# CLIP NAMED", "clip_grad_norm_", 1.0),
                                                       ("value_before_named", "# CLIP VALUE NAMED",
                                                        "clip_grad_value_", 0.5)])
def test_clipping_imported_by_name_before_any_gradscaler_is_audited(tmp_path, mode, marker, call, limit):
    """``from torch.nn.utils import clip_grad_norm_`` at the script's top binds the function before the GradScaler
    (and its audit) exists: trace's own wrapper, installed before the script, still routes the call to the audit."""
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), mode, "1024", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["first_nonfinite"] is None
    [finding] = report["findings"]
    assert (finding["kind"], finding["evidence"]["call"]) == ("clip_scaled_gradients", call)
    assert finding["location"]["line"] == line_of(marker) and Path(finding["location"]["file"]).name == SCRIPT.name
    assert finding["evidence"]["count"] == 4
    assert finding["evidence"]["max_norm"] == limit and finding["evidence"]["effective_max_norm"] == limit / 1024


def test_clip_after_unscale_reports_no_misuse(tmp_path):
    proc = cli("trace", "--", "python", str(SCRIPT), "clip_after", "1024", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "clip_scaled_gradients" not in proc.stdout + proc.stderr
    assert "ok: no non-finite value" in proc.stdout


def test_an_overflow_gradscaler_skips_is_not_a_finding(tmp_path):
    """GradScaler's default scale (65536) overflows this model's fp16 backward at step 0: the scaler skips the step
    and halves the scale (torch/amp/grad_scaler.py), so the non-finite total norm clip_grad_norm_ sees after
    unscale_ is its ordinary overflow handling, not a fault to stop the script for."""
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), "clip_after", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["first_nonfinite"] is None and report["findings"] == []


def test_the_hook_is_removed_cleanly():
    from faultlib.trace.boot import Tracer

    original = torch.amp.GradScaler.__init__
    clip, value = torch.nn.utils.clip_grad_norm_, torch.nn.utils.clip_grad.clip_grad_value_
    tracer = Tracer(arm_at=None, keep_going=False, dump_path=None)
    tracer.install()
    try:
        scaler = torch.amp.GradScaler("cpu")
        assert [a.scaler for a in tracer.audits] == [scaler] and "step" in scaler.__dict__
        assert tracer.results()["findings"] == []
        assert "step" not in scaler.__dict__ and not tracer.audits
    finally:
        tracer.uninstall()
    assert torch.amp.GradScaler.__init__ is original and torch.nn.utils.clip_grad_norm_ is clip
    assert torch.nn.utils.clip_grad.clip_grad_value_ is value


def test_step_without_scaled_backward_is_reported_at_the_step_and_exit_stays_0(tmp_path):
    """``scaler.scale(loss)`` made but the raw loss backwarded: ``scaler.step`` divides the raw gradients by the
    scale (1024) and training crawls, every value finite."""
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), "no_scale", "1024", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["first_nonfinite"] is None
    [finding] = report["findings"]
    assert (finding["kind"], finding["severity"]) == ("step_without_scaled_backward", "error")
    assert Path(finding["location"]["file"]).name == SCRIPT.name
    assert finding["location"]["line"] == line_of("# STEP UNSCALED")
    assert finding["evidence"]["count"] == 4 and finding["evidence"]["loss_scale"] == 1024.0


def test_fp16_parameters_under_an_enabled_scaler_are_named_before_unscale_refuses_them(tmp_path):
    """GradScaler.unscale_ raises on float16 gradients (the script dies, exit 4): the finding names why, at the
    user's step call."""
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), "fp16", "1024", cwd=tmp_path)
    assert proc.returncode == 4
    report = json.loads(proc.stdout)
    assert "Attempting to unscale FP16 gradients" in report["error"]
    [finding] = report["findings"]
    assert (finding["kind"], finding["evidence"]["parameter_dtype"]) == ("fp16_master_weights", "float16")
    assert finding["location"]["line"] == line_of("# STEP HALF")
    assert "float32" in finding["evidence"]["fix"]


def test_eps_that_rounds_to_0_beside_a_disabled_scaler(tmp_path):
    """float16 parameters, Adam eps 1e-8 (0 in float16), GradScaler(enabled=False): the audit names the eps (not
    fp16 master weights "under a GradScaler": there is none in effect) and trace's own non-finite report agrees."""
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), "eps", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # the NaN/inf Adam makes
    report = json.loads(proc.stdout)
    assert report["first_nonfinite"]["optimizer"]["eps"] == 1e-8
    [finding] = report["findings"]
    assert (finding["kind"], finding["evidence"]["eps"]) == ("eps_underflow", 1e-8)
    assert finding["evidence"]["smallest_normal"] == pytest.approx(6.1035e-05, rel=1e-3)
    assert finding["location"]["line"] == line_of("# STEP HALF")
