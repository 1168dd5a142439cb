"""GradientSentinel(flat_grads=True): every gradient a view of one buffer, checked by one kernel call over it. A NaN
or an inf in any gradient element (each parameter, the buffer's first and last element) is caught before
``optimizer.step()`` by that one call; training is the same as without the buffer; a loop that drops the views
(``zero_grad(set_to_none=True)``, ``create_graph=True``) is still checked, one gradient at a time, and warned."""

from __future__ import annotations

import math
import warnings

import pytest

from faultlib.detect import GradientSentinel, OverflowSentinel
from faultlib.detect.numerics.flat_grads import FlatGradients
from faultlib.errors import DetectorError

torch = pytest.importorskip("torch")

from tests.detect.test_sentinel import _spy_on_fused_op  # noqa: E402 - the same spy
from tests.detect.test_sentinel_steps import NAMES, _batches, _model  # noqa: E402 - the same model and data


def _loss(model, xb, yb):
    return torch.nn.functional.cross_entropy(model(xb), yb)


@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_bad_gradient_is_caught_before_the_step_by_one_kernel_call_over_the_buffer(monkeypatch, opt_name, value):
    calls = _spy_on_fused_op(monkeypatch)
    model = _model()
    opt = (torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9) if opt_name == "sgd"
           else torch.optim.Adam(model.parameters(), lr=1e-3))
    sentinel = GradientSentinel(model.named_parameters(), flat_grads=True)
    born, checks = 4, []
    for step, (xb, yb) in enumerate(_batches(7)):
        sentinel.zero_grad()
        _loss(model, xb, yb).backward()
        if step == born:
            model[3].weight.grad[1, 2] = value
        check = sentinel.check(step, opt)
        checks.append(check)
        if not check.overflow:
            opt.step()
    assert [c.overflow for c in checks] == [s == born for s in range(7)]
    assert checks[born].nonfinite == ("3.weight",) and checks[born].finding().location["step"] == born
    assert calls == [1] * 7, "every check is one kernel call over the one buffer"
    assert all(torch.isfinite(p).all() for p in model.parameters()), "the poisoned update was skipped"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_the_flat_pass_misses_no_element_of_any_gradient(monkeypatch, value):
    calls = _spy_on_fused_op(monkeypatch)
    model = _model()
    sentinel = GradientSentinel(model.named_parameters(), flat_grads=True)
    xb, yb = _batches(1)[0]
    _loss(model, xb, yb).backward()
    assert not sentinel.check(0).overflow and sentinel.tripped() is False
    step = 1
    for name, p in model.named_parameters():
        for index in (0, p.numel() - 1):  # the first and the last element: the buffer's boundaries between params
            flat = p.grad.view(-1)
            kept = flat[index].item()
            flat[index] = value
            assert sentinel.tripped() is True, f"{name}[{index}]"
            check = sentinel.check(step)
            assert check.overflow and check.nonfinite == (name,), f"{name}[{index}]"
            flat[index] = kept
            assert not sentinel.check(step + 1).overflow, "the flag is cleared after a trip"
            step += 2
    assert set(calls) == {1}, "only the one-tensor pass ran"


def test_training_with_the_buffer_is_the_training_without_it():
    def train(flat: bool):
        model = _model()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sentinel = GradientSentinel(model.named_parameters(), flat_grads=flat)
        for step, (xb, yb) in enumerate(_batches(12)):
            sentinel.zero_grad() if flat else opt.zero_grad()
            for half in (slice(0, 16), slice(16, 32)):  # two micro-batches accumulated into the gradients
                _loss(model, xb[half], yb[half]).backward()
            assert not sentinel.check(step, opt).overflow
            opt.step()
        return model.state_dict()

    plain, flat = train(False), train(True)
    assert all(torch.equal(plain[k], flat[k]) for k in plain)


def test_dropped_views_are_still_checked_warned_once_and_put_back_by_zero_grad(monkeypatch):
    calls = _spy_on_fused_op(monkeypatch)
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sentinel = GradientSentinel(model.named_parameters(), flat_grads=True)
    (xb, yb), (xb2, yb2), (xb3, yb3) = _batches(3)
    opt.zero_grad()  # set_to_none=True: the views are gone
    _loss(model, xb, yb).backward()
    model[0].bias.grad[3] = math.nan
    with pytest.warns(RuntimeWarning, match=r"no longer views of its buffer.*sentinel\.zero_grad\(\)"):
        check = sentinel.check(0)
    assert check.nonfinite == ("0.bias",), "the gradients as they are were checked"
    assert calls == [len(NAMES)]
    opt.zero_grad()
    _loss(model, xb2, yb2).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once is enough
        assert not sentinel.check(1).overflow
    sentinel.zero_grad()
    assert sentinel._flat.attached() and all(p.grad.abs().sum() == 0 for p in model.parameters())
    _loss(model, xb3, yb3).backward()
    assert not sentinel.check(2).overflow and calls[-1] == 1, "back on the one-tensor pass"


def test_create_graph_gradients_are_not_written_by_the_check(monkeypatch):
    calls = _spy_on_fused_op(monkeypatch)
    model = _model()
    sentinel = GradientSentinel(model.named_parameters(), flat_grads=True)
    xb, yb = _batches(1)[0]
    with warnings.catch_warnings():  # torch warns of the grad<->param cycle once per process: not asserted
        warnings.simplefilter("ignore", UserWarning)
        _loss(model, xb, yb).backward(create_graph=True)
    assert all(p.grad.requires_grad for p in model.parameters())
    versions = [p.grad._version for p in model.parameters()]
    with pytest.warns(RuntimeWarning, match="create_graph"):
        assert not sentinel.check(0).overflow
    assert [p.grad._version for p in model.parameters()] == versions and calls == []
    model.zero_grad(set_to_none=True)  # break the cycle torch warned about


def test_existing_gradients_move_into_the_buffer():
    model = _model()
    xb, yb = _batches(1)[0]
    _loss(model, xb, yb).backward()
    before = {n: p.grad.clone() for n, p in model.named_parameters()}
    flat = FlatGradients(list(model.named_parameters()))
    assert flat.attached() and all(torch.equal(p.grad, before[n]) for n, p in model.named_parameters())
    assert all(p.grad.data_ptr() == v.data_ptr() for p, v in zip(model.parameters(), flat.views))


def test_bad_layouts_and_calls_are_refused_with_what_to_do():
    model = _model()
    model[0].to(torch.float16)
    with pytest.raises(DetectorError, match="one device and one dtype"):
        GradientSentinel(model.named_parameters(), flat_grads=True)
    with pytest.raises(DetectorError, match=r"call optimizer\.zero_grad\(\)"):
        GradientSentinel(_model().named_parameters()).zero_grad()


def test_the_fp16_saturation_test_keeps_its_own_pass_over_the_buffer():
    model = _model().to(torch.float16)
    sentinel = OverflowSentinel(model.named_parameters(), flat_grads=True)
    for p in model.parameters():
        p.grad.fill_(1.0)
    model[3].bias.grad[0] = 65504.0  # finite, at the fp16 limit: only the saturation test sees it
    check = sentinel.check(0)
    assert check.saturated == ("3.bias",) and not check.nonfinite
