"""OverflowSentinel on real gradients: silent on healthy steps, fires on overflow, no fp16 false alarm on fp32."""

from __future__ import annotations

import math

import pytest

from faultlib.detect import FP16_MAX, GradientSentinel, OverflowSentinel, Severity
from faultlib.errors import DetectorError

torch = pytest.importorskip("torch")
datasets = pytest.importorskip("sklearn.datasets")


def _digits_batches(n_steps: int, batch: int = 64):
    x, y = datasets.load_digits(return_X_y=True)
    x = torch.tensor(x / 16.0, dtype=torch.float32)
    y = torch.tensor(y)
    g = torch.Generator().manual_seed(0)
    for _ in range(n_steps):
        idx = torch.randint(0, len(x), (batch,), generator=g)
        yield x[idx], y[idx]


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.LayerNorm(32), torch.nn.ReLU(),
                               torch.nn.Linear(32, 10))


def _train(model, sentinel, steps, *, scale, autocast):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=scale)
    largest_scaled = 0.0
    for step, (xb, yb) in enumerate(_digits_batches(steps)):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16, enabled=autocast):
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
        scaler.scale(loss).backward()
        largest_scaled = max(largest_scaled, max(p.grad.abs().max().item() for p in model.parameters()))
        check = sentinel.check(step)  # before unscale_: fp32 grads of the scaled loss
        assert not check.overflow and check.finding() is None, check
        scaler.step(opt)
        scaler.update()
    return largest_scaled


def test_silent_on_healthy_amp_training():
    model = _model()
    sentinel = OverflowSentinel(model.named_parameters())
    _train(model, sentinel, 60, scale=65536.0, autocast=True)
    assert sentinel.overflow_steps == 0 and sentinel.steps_checked == 60


def test_no_false_alarm_on_fp32_gradients_above_the_fp16_limit():
    model = _model()
    sentinel = OverflowSentinel(model.named_parameters())
    largest = _train(model, sentinel, 20, scale=2.0**20, autocast=False)
    assert largest > FP16_MAX, "test premise: scaled fp32 gradients exceed the fp16 limit"
    assert sentinel.overflow_steps == 0


def test_fires_on_inf_and_nan_and_names_parameters():
    model = _model()
    xb, yb = next(_digits_batches(1))
    torch.nn.functional.cross_entropy(model(xb), yb).backward()
    model[3].weight.grad[0, 0] = math.inf
    model[0].bias.grad[1] = math.nan
    check = OverflowSentinel(model.named_parameters()).check(step=7)
    assert check.overflow
    assert check.nonfinite == ("0.bias", "3.weight")  # model order
    assert check.counts["3.weight"]["inf"] == 1 and check.counts["0.bias"]["nan"] == 1
    finding = check.finding()
    assert finding.severity is Severity.ERROR
    assert finding.location == {"module": "0", "phase": "backward", "step": 7}
    assert "non-finite gradients in 2 parameter(s) at step 7" in finding.message


def test_fp16_limit_only_applies_to_fp16_gradients():
    a = torch.nn.Parameter(torch.zeros(4, dtype=torch.float16))
    b = torch.nn.Parameter(torch.zeros(4, dtype=torch.float32))
    a.grad = torch.tensor([1.0, FP16_MAX, 0.0, 0.0], dtype=torch.float16)
    b.grad = torch.tensor([1e6, 0.0, 0.0, 0.0])
    check = OverflowSentinel([("half", a), ("full", b)]).check(0)
    assert check.saturated == ("half",) and check.nonfinite == ()
    assert check.finding().severity is Severity.WARNING
    a.grad = torch.tensor([1.0, 60000.0, 0.0, 0.0], dtype=torch.float16)
    assert not OverflowSentinel([("half", a), ("full", b)]).check(0).overflow


def test_needs_gradients_and_parameters():
    model = _model()
    with pytest.raises(DetectorError, match="call loss.backward"):
        OverflowSentinel(model.named_parameters()).check()
    with pytest.raises(DetectorError, match="named_parameters"):
        OverflowSentinel([])


def test_reuses_gradscalers_fused_check_after_unscale():
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=65536.0)
    sentinel = OverflowSentinel(model.named_parameters(), scaler=scaler)
    for step, (xb, yb) in enumerate(_digits_batches(3)):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
        scaler.scale(loss).backward()
        if step == 2:
            model[3].bias.grad[0] = math.nan
        scaler.unscale_(opt)
        check = sentinel.check(step, opt)
        assert check.overflow == (step == 2)
        scaler.step(opt)
        scaler.update()
    assert check.nonfinite == ("3.bias",) and check.counts["3.bias"]["nan"] == 1
    assert scaler.get_scale() == 32768.0  # GradScaler skipped the same step the sentinel flagged


def test_watch_outputs_names_the_first_module_with_a_nonfinite_output():
    model = _model()
    sentinel = GradientSentinel(model.named_parameters(), watch_outputs=model)
    xb, yb = next(_digits_batches(1))
    torch.nn.functional.cross_entropy(model(xb), yb).backward()
    assert not sentinel.check(0).overflow
    model.zero_grad()
    with torch.no_grad():
        model[0].weight[0, 0] = math.inf
    torch.nn.functional.cross_entropy(model(xb), yb).backward()
    check = sentinel.check(1)
    assert check.nonfinite_outputs[0] == "0"
    assert check.finding().location == {"module": "0", "phase": "forward", "step": 1}
    assert check.finding().detector == "gradient_sentinel"
    sentinel.close()
    assert not model[0]._forward_hooks
