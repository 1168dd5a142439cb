"""The activation_scale shim on a real torch module, and the injector registry."""

from __future__ import annotations

import pytest

from faultlib.errors import InjectionError
from faultlib.inject import InjectorSet, available, build

torch = pytest.importorskip("torch")


class Target:
    def __init__(self, model):
        self.model = model
        self.step = None


def test_registry_lists_builtin_and_validates_params():
    assert "activation_scale" in available()
    with pytest.raises(InjectionError, match="unknown shim 'nope'"):
        build("nope")
    with pytest.raises(InjectionError, match="start_step"):
        build("activation_scale", {"module": "0"})
    with pytest.raises(InjectionError, match="Additional properties"):
        build("activation_scale", {"module": "0", "start_step": 1, "bogus": 2})


def test_scales_only_inside_the_window_and_reverts():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
    x = torch.ones(2, 4)
    target = Target(model)
    shim = build("activation_scale", {"module": "0", "factor": 1e6, "start_step": 2, "steps": 2})
    faults = InjectorSet([shim])
    faults.apply(target)
    clean = model[0](x).detach()
    outputs = {}
    for step in range(5):
        target.step = step
        outputs[step] = model[0](x).detach()
    assert torch.equal(outputs[0], clean) and torch.equal(outputs[4], clean)
    assert torch.allclose(outputs[2], clean * 1e6) and torch.allclose(outputs[3], clean * 1e6)
    assert [faults.window(s) for s in range(5)] == ["before", "before", "during", "during", "after"]
    assert shim.hits == 2
    faults.revert()
    target.step = 2
    assert torch.equal(model[0](x).detach(), clean)


def test_overflows_fp16_under_autocast():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3))
    target = Target(model)
    faults = InjectorSet([build("activation_scale", {"module": "0", "factor": 1e6, "start_step": 0})])
    faults.apply(target)
    target.step = 0
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(torch.ones(2, 4))
    assert out.dtype == torch.float16 and not torch.isfinite(out).all()


def test_unknown_module_names_the_modules():
    target = Target(torch.nn.Sequential(torch.nn.Linear(4, 3)))
    faults = InjectorSet([build("activation_scale", {"module": "encoder.fc", "start_step": 0})])
    with pytest.raises(InjectionError, match=r"no module 'encoder.fc'.*\['0'\]"):
        faults.apply(target)


def test_apply_twice_is_an_ordering_error():
    target = Target(torch.nn.Sequential(torch.nn.Linear(4, 3)))
    faults = InjectorSet([build("activation_scale", {"module": "0", "start_step": 0})])
    faults.apply(target)
    with pytest.raises(InjectionError, match="call revert"):
        faults.apply(target)


def test_blank_inputs_zero_rows_in_window():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3, bias=False))
    seen = []
    model.register_forward_hook(lambda m, args, out: seen.append(args[0].clone()))
    target = Target(model)
    faults = InjectorSet([build("blank_inputs", {"module": "", "rows": 2, "start_step": 1})])
    faults.apply(target)
    for step in range(3):
        target.step = step
        model(torch.ones(4, 4))
    assert [int((s.abs().sum(1) == 0).sum()) for s in seen] == [0, 2, 0]


def test_gradient_scale_scales_one_parameter_in_window():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    target = Target(model)
    faults = InjectorSet([build("gradient_scale", {"parameter": "1.weight", "factor": 100.0, "start_step": 1})])
    faults.apply(target)
    grads = []
    for step in range(2):
        target.step = step
        model.zero_grad()
        model(torch.ones(2, 4)).sum().backward()
        grads.append((model[0].weight.grad.clone(), model[1].weight.grad.clone()))
    assert torch.allclose(grads[1][1], grads[0][1] * 100) and torch.allclose(grads[1][0], grads[0][0])
    with pytest.raises(InjectionError, match="no parameter 'nope'"):
        InjectorSet([build("gradient_scale", {"parameter": "nope", "start_step": 0})]).apply(Target(model))
