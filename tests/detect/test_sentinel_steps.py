"""GradientSentinel in real training loops: a NaN or an inf born in one parameter's gradient at step s is reported
at step s, with that parameter named, for SGD and Adam, without clipping, with the split clip (total norm checked
before clipping) and with ``clip_grad_norm_``; no false trip before it; the per-step path's own edges."""

from __future__ import annotations

import dataclasses
import math

import pytest

from faultlib.detect import GradientSentinel
from faultlib.detect.numerics.gradient_check import GradientCheck

torch = pytest.importorskip("torch")

BORN = 5  # the step whose gradient gets the bad value (the fast path is planned by then)
NAMES = ("0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias")


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LayerNorm(16), torch.nn.Tanh(),
                               torch.nn.Linear(16, 3))


def _batches(n: int):
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(32, 8, generator=g), torch.randint(0, 3, (32,), generator=g)) for _ in range(n)]


def _optimizer(name: str, params):
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9)
    return torch.optim.Adam(params, lr=1e-3)


def _train_until_trip(opt_name: str, clip: str | None, value: float, steps: int = BORN + 3):
    """Train, put ``value`` into one element of ``3.weight``'s gradient at step BORN, skip the update the sentinel
    flags; return the model, its optimizer, the sentinel and every check."""
    model = _model()
    params = list(model.parameters())
    opt = _optimizer(opt_name, params)
    sentinel = GradientSentinel(model.named_parameters())
    checks = []
    for step, (xb, yb) in enumerate(_batches(steps)):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        if step == BORN:
            model[3].weight.grad[1, 2] = value
        if clip is None:
            check = sentinel.check(step, opt)
        elif clip == "split":  # the norm checked before clipping: the gradients are still as backward left them
            norm = torch.nn.utils.get_total_norm([p.grad for p in params])
            check = sentinel.check(step, opt, total_norm=norm)
            if not check.overflow:
                torch.nn.utils.clip_grads_with_norm_(params, 1.0, norm)
        else:
            check = sentinel.check(step, opt, total_norm=torch.nn.utils.clip_grad_norm_(params, 1.0))
        checks.append(check)
        if not check.overflow:
            opt.step()
    return model, opt, sentinel, checks


@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
@pytest.mark.parametrize("clip", [None, "split"])
@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_nan_or_inf_in_one_gradient_is_reported_at_its_step_with_the_parameter(opt_name, clip, value):
    model, opt, sentinel, checks = _train_until_trip(opt_name, clip, value)
    assert [c.overflow for c in checks] == [step == BORN for step in range(len(checks))], "no false trip"
    assert all(c.finding() is None for step, c in enumerate(checks) if step != BORN)
    tripped = checks[BORN]
    assert tripped.nonfinite == ("3.weight",) and not tripped.every_nan and tripped.norm_overflow is None
    counts = tripped.counts["3.weight"]
    assert (counts["nan"], counts["inf"]) == ((1, 0) if math.isnan(value) else (0, 1))
    finding = tripped.finding()
    assert finding.location == {"module": "3", "phase": "backward", "step": BORN}
    assert "first 3.weight" in finding.message
    assert sentinel.overflow_steps == 1 and sentinel.steps_checked == len(checks)
    assert all(torch.isfinite(p).all() for p in model.parameters()), "the flagged update was skipped"
    state = [t for s in opt.state.values() for t in s.values() if isinstance(t, torch.Tensor)]
    assert state and all(torch.isfinite(t).all() for t in state), "momentum / Adam moments untouched by the value"


@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
def test_clip_grad_norm_with_an_inf_gradient_still_names_the_parameter(opt_name):
    # the total norm is inf: clip_grad_norm_ multiplies every gradient by max_norm / inf = 0, which turns the inf
    # element into NaN and every other element into 0: the parameter stays the only non-finite one
    *_, checks = _train_until_trip(opt_name, "clip_grad_norm_", math.inf)
    assert [c.overflow for c in checks] == [step == BORN for step in range(len(checks))]
    tripped = checks[BORN]
    assert tripped.nonfinite == ("3.weight",) and tripped.counts["3.weight"]["nan"] == 1
    assert tripped.finding().location == {"module": "3", "phase": "backward", "step": BORN}


@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
def test_clip_grad_norm_with_a_nan_gradient_is_caught_and_no_parameter_is_blamed(opt_name):
    # the total norm is NaN: clip_grad_norm_ multiplies every gradient by NaN, so every parameter's gradient is NaN
    # and the one where it began cannot be told apart: the finding says so and says how to keep it nameable
    model, *_, checks = _train_until_trip(opt_name, "clip_grad_norm_", math.nan)
    assert [c.overflow for c in checks] == [step == BORN for step in range(len(checks))]
    tripped = checks[BORN]
    assert tripped.every_nan and tripped.nonfinite == NAMES and tripped.norm_overflow is None
    finding = tripped.finding()
    assert finding.location == {"phase": "backward", "step": BORN}
    assert "get_total_norm" in finding.message and "clip_grads_with_norm_" in finding.message
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_every_nan_is_not_claimed_when_one_gradient_keeps_a_finite_value():
    model = _model()
    sentinel = GradientSentinel(model.named_parameters())
    xb, yb = _batches(1)[0]
    torch.nn.functional.cross_entropy(model(xb), yb).backward()
    for p in model.parameters():
        p.grad.fill_(math.nan)
    model[3].bias.grad[0] = 0.0
    check = sentinel.check(0)
    assert not check.every_nan and check.nonfinite == NAMES  # 3.bias keeps NaN in its other elements
    assert check.finding().location["module"] == "0"


def test_a_parameter_without_a_gradient_leaves_the_fast_path_and_is_not_a_trip():
    model = _model()
    extra = torch.nn.Linear(3, 3)  # a parameter no loss reaches on some steps
    sentinel = GradientSentinel([*model.named_parameters(), *(("extra." + n, p) for n, p in extra.named_parameters())])
    (xb, yb), (xb2, yb2) = _batches(2)
    torch.nn.functional.cross_entropy(extra(model(xb)), yb).backward()
    assert sentinel.tripped() is None, "nothing planned before the first check()"
    assert not sentinel.check(0).overflow
    assert sentinel.tripped() is False
    model.zero_grad(set_to_none=True)
    extra.zero_grad(set_to_none=True)
    torch.nn.functional.cross_entropy(model(xb2), yb2).backward()
    assert sentinel.tripped() is None, "extra.* have no gradient: the full check() handles that layout"
    assert not sentinel.check(1).overflow
    model[0].bias.grad[3] = math.inf
    check = sentinel.check(2)
    assert check.nonfinite == ("0.bias",) and check.finding().location["step"] == 2


def test_a_healthy_check_is_a_plain_gradient_check():
    model = _model()
    sentinel = GradientSentinel(model.named_parameters())
    xb, yb = _batches(1)[0]
    torch.nn.functional.cross_entropy(model(xb), yb).backward()
    first, second = sentinel.check(0), sentinel.check(1)  # the second takes the per-step fast path
    assert second == GradientCheck(1) and first == GradientCheck(0)
    assert dataclasses.asdict(second) == dataclasses.asdict(GradientCheck(1))
    assert second.counts is not first.counts, "each result has its own counts"
    with pytest.raises(dataclasses.FrozenInstanceError):
        second.step = 3

