"""NonFiniteLocator on real modules: where values are born, what is not a birth."""

from __future__ import annotations

import math

import pytest

from faultlib.detect import NonFiniteLocator, locate

torch = pytest.importorskip("torch")
nn = torch.nn


class Masked(nn.Module):
    """Attention-style masking with -inf: healthy unless a whole row is masked."""

    def __init__(self, full_row: bool):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.full_row = full_row

    def forward(self, x):
        scores = self.proj(x) @ x.T
        mask = torch.zeros_like(scores, dtype=torch.bool)
        mask[0, 1:] = True
        if self.full_row:
            mask[0, 0] = True
        return torch.softmax(scores.masked_fill(mask, -math.inf), dim=-1)


def test_masked_fill_with_inf_is_not_a_birth_but_a_fully_masked_softmax_is():
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    assert locate(lambda: Masked(full_row=False)(x).sum().backward()) is None
    event = locate(lambda: Masked(full_row=True)(x).sum().backward())
    assert (event.phase, event.module, event.op) == ("forward", "Masked", "aten::_softmax")
    assert event.tensor.nan == 3 and event.tensor.shape == [3, 3]


def test_in_place_overflow_is_born_in_the_in_place_op():
    def step():
        h = torch.ones(4)
        h.mul_(1e39)  # fp32 overflow, in place
        return h

    event = locate(step)
    assert event.op == "aten::mul_" and event.tensor.inf == 4


def test_uninitialised_memory_is_not_a_birth():
    def step():
        t = torch.empty(1000)
        t.fill_(1.0)
        return t.sum()

    assert locate(step) is None


def test_backward_birth_names_the_node_module_and_forward_line():
    class Norm(nn.Module):
        def forward(self, h):
            return h.pow(2).sum(-1).sqrt()  # the forward line to be named

    model = nn.Sequential(nn.Linear(3, 3, bias=False), Norm())
    x = torch.zeros(2, 3)
    event = locate(lambda: model(x).sum().backward(), step=7)
    assert (event.step, event.phase, event.module, event.op) == (7, "backward", "1", "SqrtBackward0")
    assert event.file.endswith("test_nan_locator.py")
    assert "sqrt()" in open(event.file).read().splitlines()[event.line - 1]
    finding = event.finding()
    assert finding.location["op"] == "SqrtBackward0" and finding.severity.value == "error"
    # SqrtBackward0 runs grad / (2 * sqrt(s)): at s = 0 its division makes the value (1 / 0 = inf here,
    # 0 / 0 = NaN in the nan_gradient case). Message and evidence name both, labelled.
    assert (event.autograd_node, event.aten_op) == ("SqrtBackward0", "aten::div")
    assert finding.evidence["autograd_node"] == "SqrtBackward0" and finding.evidence["aten_op"] == "aten::div"
    assert finding.message == ("first inf born in backward in module 1 (test_nan_locator.py:"
                               f"{event.line}): autograd node SqrtBackward0, aten op aten::div")


def test_forward_birth_names_only_the_aten_op():
    event = locate(lambda: torch.log(torch.zeros(1) - 1.0))
    finding = event.finding()
    assert event.autograd_node is None and finding.evidence["autograd_node"] is None
    assert finding.evidence["aten_op"] == finding.location["op"] == "aten::log"
    assert finding.message.endswith(": aten op aten::log") and "autograd node" not in finding.message


def test_record_all_without_stopping_and_restore_everything():
    original_apply = torch.autograd.Function.__dict__["apply"]
    with NonFiniteLocator(stop=False) as locator:
        torch.log(torch.zeros(2))
        torch.sqrt(-torch.ones(2))
    assert [e.op for e in locator.events] == ["aten::log", "aten::sqrt"]
    assert torch.autograd.Function.__dict__["apply"] is original_apply
    assert locate(lambda: torch.log(torch.zeros(1))).op == "aten::log"  # nothing left installed


class OffByOneCausal(nn.Module):
    """A causal mask built in __init__ one diagonal too low: the first query sees no key."""

    def __init__(self, t: int = 4):
        super().__init__()
        self.register_buffer("causal", torch.tril(torch.ones(t, t), diagonal=-1))

    def forward(self, x):
        scores = x @ x.transpose(-1, -2)
        scores = scores.masked_fill(self.causal == 0, float("-inf"))
        return scores.softmax(-1)


def test_a_fully_masked_softmax_names_the_fill_the_mask_and_the_buffer_it_came_from():
    model = OffByOneCausal()
    event = locate(lambda: model(torch.randn(2, 4, 3)))
    assert event.op == "aten::_softmax"
    fill, mask, rows = event.upstream
    line = OffByOneCausal.forward.__code__.co_firstlineno + 2
    assert (fill["what"], fill["op"], fill["line"]) == ("the -inf in its input", "aten::masked_fill", line)
    assert (mask["what"], mask["op"], mask["line"], mask["from_buffer"]) == ("the mask", "aten::eq", line, "causal")
    assert rows == {"what": "fully masked rows", "count": 2}  # row 0 of each of the 2 sequences
    assert "the mask: aten::eq" in event.finding().message


def normalised_returns(rewards):
    returns = torch.tensor(rewards)
    return (returns - returns.mean()) / (returns.std() + 1e-8)


def test_a_nan_from_an_inf_made_from_python_values_names_where_they_became_a_tensor():
    event = locate(lambda: normalised_returns([1.0, 1.0, math.inf, 1.0]))
    assert (event.op, event.line) == ("aten::sub", normalised_returns.__code__.co_firstlineno + 2)
    [made] = event.upstream
    line = normalised_returns.__code__.co_firstlineno + 1
    assert (made["what"], made["op"], made["line"]) == (
        "the inf in its input, made from Python values", "torch.tensor", line), made
    assert locate(lambda: normalised_returns([1.0, 2.0, 3.0])) is None


def test_the_mask_names_the_line_that_registered_its_buffer_when_the_stack_saw_the_model_built():
    from faultlib.detect.numerics.module_stack import ModuleStack

    stack = ModuleStack().install()
    try:
        model = OffByOneCausal()
        with NonFiniteLocator(modules=stack, stop=True) as locator:
            try:
                model(torch.randn(2, 4, 3))
            except BaseException:  # NonFiniteFound
                pass
    finally:
        stack.remove()
    assert nn.Module.register_buffer.__module__ == "torch.nn.modules.module"  # nothing left installed
    _, mask, _ = locator.first.upstream
    built = OffByOneCausal.__init__.__code__.co_firstlineno + 2
    assert (mask["from_buffer"], mask["buffer_line"]) == ("causal", built), mask
    assert mask["buffer_file"] == __file__
    assert f"from buffer causal registered at test_nan_locator.py:{built}" in locator.first.finding().message
