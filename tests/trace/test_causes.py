"""What trace says about a value no forward made, in-process on real torch errors and real optimizers."""

from __future__ import annotations

import os

import pytest

from faultlib.trace.causes import nonfinite_error, optimizer_update

torch = pytest.importorskip("torch")
HERE = os.path.abspath(__file__)


def raised(fn) -> BaseException:
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001 - the test keeps what the call raised
        return exc
    raise AssertionError("did not raise")


def test_errors_that_say_a_value_was_not_finite():
    probs = torch.tensor([[float("nan"), 1.0]])
    said = nonfinite_error(raised(lambda: torch.multinomial(probs, 1)), HERE)
    assert said["error"].startswith("RuntimeError: probability tensor contains") and said["file"] == HERE
    logits = torch.tensor([float("nan"), 0.0])
    said = nonfinite_error(raised(lambda: torch.distributions.Categorical(logits=logits, validate_args=True)), HERE)
    assert said is not None and said["error"].startswith("ValueError: Expected parameter")
    loss = torch.tensor(float("inf"))

    def check():
        assert torch.isfinite(loss)  # no message: the asserted line says it

    said = nonfinite_error(raised(check), HERE)  # pytest's message ("assert tensor(False)") says nothing: the line does
    assert said["error"].startswith("AssertionError") and (said["file"], said["line"]) == \
        (HERE, check.__code__.co_firstlineno + 1)


def test_other_errors_are_the_scripts_own():
    assert nonfinite_error(raised(lambda: int("ten")), HERE) is None
    assert nonfinite_error(raised(lambda: {}["information"]), HERE) is None  # "inf" inside a word is not a word
    assert nonfinite_error(KeyboardInterrupt(), HERE) is None

    def check():
        assert 1 + 1 == 3, "arithmetic"

    assert nonfinite_error(raised(check), HERE) is None


def _step(optimizer, param, grad):
    param.grad = grad
    optimizer.step()


def test_adam_on_fp16_with_an_eps_that_rounds_to_zero():
    weight = torch.nn.Parameter(torch.ones(4, dtype=torch.float16))
    optimizer = torch.optim.Adam([weight], lr=1e-3, eps=1e-8)
    _step(optimizer, weight, torch.tensor([1.0, 1.0, 0.0, 1.0], dtype=torch.float16))
    update = optimizer_update(optimizer, {id(weight): "head.weight"})
    assert (update["optimizer"], update["param_group"], update["parameter"], update["dtype"]) == \
        ("Adam", 0, "head.weight", "float16")
    assert "eps=1e-08 is below the smallest positive float16 value (5.96e-08)" in update["cause"]
    assert "(here at 1 of the 1 non-finite elements)" in update["cause"]
    fine = torch.nn.Parameter(torch.ones(4, dtype=torch.float16))
    optimizer = torch.optim.Adam([fine], lr=1e-3, eps=1e-4)  # representable in fp16: finite
    _step(optimizer, fine, torch.tensor([1.0, 1.0, 0.0, 1.0], dtype=torch.float16))
    assert optimizer_update(optimizer, {}) is None


def test_the_eps_cause_says_what_the_division_made():
    """A zero gradient gives 0 / 0 = NaN; a gradient whose square underflows fp16 (v = 0, m > 0) gives m / 0 = inf."""
    weight = torch.nn.Parameter(torch.ones(3, dtype=torch.float16))
    optimizer = torch.optim.Adam([weight], lr=1e-3, eps=1e-8)
    _step(optimizer, weight, torch.tensor([1e-4, 1.0, 1.0], dtype=torch.float16))
    assert bool(torch.isinf(weight).any()) and not bool(torch.isnan(weight).any())
    cause = optimizer_update(optimizer, {})["cause"]
    assert "is m / 0 = inf where the second moment v is 0" in cause and "0 / 0" not in cause
    weight = torch.nn.Parameter(torch.ones(3, dtype=torch.float16))
    optimizer = torch.optim.Adam([weight], lr=1e-3, eps=1e-8)
    _step(optimizer, weight, torch.tensor([0.0, 1.0, 1.0], dtype=torch.float16))
    assert "is 0 / 0 = NaN where the second moment v is 0" in optimizer_update(optimizer, {})["cause"]


def test_sgd_with_an_infinite_lr_and_with_an_update_beyond_the_dtype():
    first, second = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([{"params": [first]}, {"params": [second], "lr": float("inf")}], lr=0.1)
    first.grad, second.grad = torch.ones(2), torch.ones(2)
    optimizer.step()
    update = optimizer_update(optimizer, {})
    assert (update["param_group"], update["cause"]) == (1, "lr is inf")
    big = torch.nn.Parameter(torch.ones(2, dtype=torch.float16))
    optimizer = torch.optim.SGD([big], lr=1e4)
    _step(optimizer, big, torch.full((2,), 100.0, dtype=torch.float16))  # 1e6: beyond the fp16 maximum
    assert "beyond the float16 maximum (6.55e+04)" in optimizer_update(optimizer, {})["cause"]


def test_the_state_check_reads_only_dense_tensors_with_data_here():
    """A model built on the meta device (its weights materialised later) must not make the end-of-run state check
    raise into the script's forward, nor a sparse buffer; a plain NaN parameter of the same model kind is found."""
    torch = pytest.importorskip("torch")
    from faultlib.trace.causes import corrupted_state, finite_state

    meta = torch.nn.Linear(3, 2, device="meta")
    meta.register_buffer("sparse", torch.eye(2).to_sparse())
    assert finite_state(meta) == []
    plain = torch.nn.Linear(3, 2)
    state = finite_state(plain)
    assert state == [("parameter", "weight"), ("parameter", "bias")]
    with torch.no_grad():
        plain.weight[0, 0] = float("nan")
    assert corrupted_state([(plain, state, 0, 0)]) == (plain, "parameter", "weight", 0, 0)
