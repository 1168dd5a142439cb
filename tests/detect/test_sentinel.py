"""OverflowSentinel on real gradients: silent on healthy steps, fires on overflow, no fp16 false alarm on fp32."""

from __future__ import annotations

import math
import warnings

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


def test_watched_outputs_are_one_read_per_step_and_large_finite_fp16_outputs_are_not_overflow():
    """Each watched output is summed (fp16 in fp32) and the sums read once: fp16 outputs near the fp16 maximum sum
    far past it, and still do not trip; a NaN in one output names that module only."""
    class Scale(torch.nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def forward(self, x):
            return x * self.factor

    model = torch.nn.Sequential(torch.nn.Linear(4, 64), Scale(60000.0), Scale(1.0)).half()
    sentinel = GradientSentinel(model.named_parameters(), watch_outputs=model)
    with torch.no_grad():
        model[0].weight.fill_(0.25)
        model[0].bias.zero_()
    out = model(torch.ones(8, 4, dtype=torch.float16))
    assert out.isfinite().all() and float(out.detach().float().sum()) > 65504 * 100  # each value finite, their sum is not
    out.float().sum().backward()
    assert sentinel._output_flags and all(total.dim() == 0 for _, total in sentinel._output_flags)
    assert not sentinel.check(0).nonfinite_outputs
    model.zero_grad()
    model[2].factor = math.nan
    model(torch.ones(8, 4, dtype=torch.float16)).float().sum().backward()
    assert sentinel.check(1).nonfinite_outputs == ("2",)
    sentinel.close()


# -- the fused pass (fp32/fp16/bf16 training without GradScaler) and check_every -----------------

def _spy_on_fused_op(monkeypatch):
    """Count the calls of GradScaler's fused op (and the gradients each call got); the sentinel
    takes the op from torch when it is built, so patch before building it."""
    calls = []
    real = torch._amp_foreach_non_finite_check_and_unscale_

    def spy(grads, found_inf, inv_scale):
        calls.append(len(grads))
        return real(grads, found_inf, inv_scale)

    monkeypatch.setattr(torch, "_amp_foreach_non_finite_check_and_unscale_", spy)
    return calls


def _bits(t):
    """The raw bits of a float tensor, NaNs replaced by one marker: finite and infinite values must
    keep their exact bits; a NaN must stay a NaN (bf16 conversion may change its sign and payload)."""
    bits = t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]).clone()
    return bits.masked_fill(torch.isnan(t), -1)


def _backward(model, dtype=torch.float32):
    xb, yb = next(_digits_batches(1))
    torch.nn.functional.cross_entropy(model(xb.to(dtype)).float(), yb).backward()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_fused_pass_finds_nan_and_inf_in_each_dtype_and_names_the_parameter(monkeypatch, dtype, value):
    calls = _spy_on_fused_op(monkeypatch)
    model = _model().to(dtype)
    sentinel = GradientSentinel(model.named_parameters())
    _backward(model, dtype)
    assert not sentinel.check(0).overflow
    model[3].weight.grad[2, 1] = value
    before = {name: _bits(p.grad) for name, p in model.named_parameters()}
    check = sentinel.check(1)
    assert calls == [6, 6], "one dispatch for all 6 gradients per step"
    assert check.overflow and check.nonfinite == ("3.weight",)
    counts = check.counts["3.weight"]
    assert (counts["nan"], counts["inf"]) == ((1, 0) if math.isnan(value) else (0, 1))
    assert counts["dtype"] == str(dtype).replace("torch.", "")
    finding = check.finding()
    assert finding.severity is Severity.ERROR and finding.detector == "gradient_sentinel"
    assert finding.location == {"module": "3", "phase": "backward", "step": 1}
    assert all(torch.equal(_bits(p.grad), before[name]) for name, p in model.named_parameters()), \
        "the fused pass (inverse scale 1.0) must leave every gradient value as it was"
    model[3].weight.grad[2, 1] = 0.0
    assert not sentinel.check(2).overflow, "the found-inf flag is cleared after a trip"


def test_fused_pass_groups_mixed_dtypes_and_names_each_offender():
    model = _model()
    model[0].to(torch.float16)
    model[1].to(torch.bfloat16)
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    model[0].bias.grad[3] = math.inf        # fp16
    model[1].weight.grad[0] = math.nan      # bf16
    check = GradientSentinel(model.named_parameters()).check(4)
    assert check.nonfinite == ("0.bias", "1.weight")
    assert check.counts["0.bias"]["dtype"] == "float16" and check.counts["1.weight"]["dtype"] == "bfloat16"
    assert check.finding().location == {"module": "0", "phase": "backward", "step": 4}


def test_fused_pass_leaves_training_bit_identical():
    def train(with_sentinel):
        model = _model()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sentinel = GradientSentinel(model.named_parameters()) if with_sentinel else None
        for step, (xb, yb) in enumerate(_digits_batches(20)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            if sentinel is not None:
                assert not sentinel.check(step).overflow
            opt.step()
        return model.state_dict()

    plain, checked = train(False), train(True)
    assert all(torch.equal(plain[k], checked[k]) for k in plain)


def test_where_the_fused_op_does_not_apply_the_reduction_pass_still_finds_nan(monkeypatch):
    calls = _spy_on_fused_op(monkeypatch)
    # a sparse gradient (nn.Embedding(sparse=True)): the fused op has no sparse kernel
    emb, head = torch.nn.Embedding(10, 4, sparse=True), torch.nn.Linear(4, 2)
    sentinel = GradientSentinel([*(("emb." + n, p) for n, p in emb.named_parameters()),
                                 *(("head." + n, p) for n, p in head.named_parameters())])
    head(emb(torch.tensor([1, 2]))).sum().backward()
    assert emb.weight.grad.is_sparse and not sentinel.check(0).overflow
    emb.weight.grad = torch.sparse_coo_tensor(torch.tensor([[1]]), torch.full((1, 4), math.nan), (10, 4),
                                              check_invariants=True)
    check = sentinel.check(1)
    assert check.nonfinite == ("emb.weight",) and check.counts["emb.weight"]["nan"] == 4
    assert calls == []
    # backward(create_graph=True): the gradients have autograd history; the pass must not write them
    model = _model()
    sentinel = GradientSentinel(model.named_parameters())
    xb, yb = next(_digits_batches(1))
    with warnings.catch_warnings():  # torch warns of the grad<->param cycle once per process: not asserted
        warnings.simplefilter("ignore", UserWarning)
        torch.nn.functional.cross_entropy(model(xb), yb).backward(create_graph=True)
    versions = [p.grad._version for p in model.parameters()]
    assert not sentinel.check(0).overflow
    assert [p.grad._version for p in model.parameters()] == versions and calls == []
    model.zero_grad(set_to_none=True)  # break the cycle torch warned about


def test_a_failing_fused_op_falls_back_once_and_for_good(monkeypatch):
    calls = []

    def unavailable(grads, found_inf, inv_scale):
        calls.append(len(grads))
        raise NotImplementedError("no kernel for this backend")

    monkeypatch.setattr(torch, "_amp_foreach_non_finite_check_and_unscale_", unavailable)
    model = _model()
    sentinel = GradientSentinel(model.named_parameters())
    _backward(model)
    assert not sentinel.check(0).overflow
    model[0].weight.grad[0, 0] = math.nan
    assert sentinel.check(1).nonfinite == ("0.weight",)
    assert len(calls) == 2, "tried, re-planned and tried once more, then the reduction pass only"


@pytest.mark.parametrize("k", [2, 3, 4])
def test_check_every_reports_a_nan_at_the_first_checked_step_at_or_after_it(k):
    for born in range(2 * k + 1):  # every position of the birth within the period
        model = _model()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sentinel = GradientSentinel(model.named_parameters(), check_every=k)
        reported = None
        for step, (xb, yb) in enumerate(_digits_batches(3 * k + 2)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            if step == born:
                model[0].weight.grad[0, 0] = math.nan  # born once; nothing but the sentinel skips updates
            check = sentinel.check(step)
            assert check.checked == (step % k == 0)
            if check.overflow:
                reported = check
                break
            opt.step()  # an unchecked step is applied: the NaN reaches the weights, as in real training
        first_checked = -(-born // k) * k
        assert reported is not None and reported.step == first_checked, f"{k}; {born}"
        assert first_checked - born <= k - 1
        assert reported.finding().location["step"] == first_checked
        assert sentinel.steps_checked == first_checked // k + 1


def test_check_every_skips_force_checks_and_rejects_bad_periods():
    model = _model()
    sentinel = GradientSentinel(model.named_parameters(), check_every=4)
    _backward(model)
    model[3].bias.grad[0] = math.inf
    results = [sentinel.check(step) for step in range(5)]
    assert [r.checked for r in results] == [True, False, False, False, True]
    assert [r.overflow for r in results] == [True, False, False, False, True]
    assert results[1].finding() is None
    assert sentinel.check(5, force=True).overflow, "force=True checks off the period (e.g. before a checkpoint)"
    assert sentinel.steps_checked == 3 and sentinel.calls == 6
    for bad in (0, -1, 1.5, True):
        with pytest.raises(DetectorError, match="check_every must be an integer >= 1"):
            GradientSentinel(model.named_parameters(), check_every=bad)


def test_check_every_watches_outputs_only_before_checked_steps():
    model = _model()
    sentinel = GradientSentinel(model.named_parameters(), watch_outputs=model, check_every=2)
    xb, yb = next(_digits_batches(1))
    with torch.no_grad():
        model[0].weight[0, 0] = math.inf
    for step in range(3):
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        check = sentinel.check(step)
        assert check.checked == (step != 1)
        assert check.nonfinite_outputs[:1] == (("0",) if step != 1 else ())
    sentinel.close()


def test_total_norm_from_clip_grad_norm_is_the_check_and_an_overflow_is_its_own_kind(monkeypatch):
    model = _model()
    sentinel = GradientSentinel(model.named_parameters())
    calls = []
    monkeypatch.setattr(sentinel, "_fused_op", lambda *a: calls.append(a))  # the norm must be enough
    xb, yb = next(_digits_batches(1))
    torch.nn.functional.cross_entropy(model(xb), yb).backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    assert sentinel.check(0, total_norm=norm).overflow is False and calls == []
    # every gradient finite, the sum of their squares beyond the fp32 maximum: the norm overflows to inf
    for p in model.parameters():
        p.grad = torch.full_like(p, 1e19)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    check = sentinel.check(1, total_norm=norm)
    assert math.isinf(norm) and check.overflow and check.nonfinite == () and check.norm_overflow == math.inf
    finding = check.finding()
    assert finding.kind == "grad_norm_overflow" and finding.location == {"phase": "backward", "step": 1}
    assert all(float(p.grad.abs().max()) == 0 for p in model.parameters())  # what clip_grad_norm_ did to them
    # a NaN gradient: the norm is NaN, clip_grad_norm_ spreads it to every gradient (max_norm / NaN), the check
    # trips and blames no parameter (tests/detect/test_sentinel_steps.py: the split clip names it)
    model[0].weight.grad[0, 0] = float("nan")
    check = sentinel.check(2, total_norm=torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
    assert check.every_nan and check.norm_overflow is None and check.finding().kind == "gradient_sentinel"
    assert "module" not in check.finding().location
