"""The watch pass checks the gradients one step in k on tiny steps (faultlib.trace.sampling): a non-finite value
written at an unchecked step is still found (the parameters are checked after skipped steps) and the replay, armed
from the last step checked clean, names the step, op and line as if every step had been checked."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")

SCRIPT = Path(__file__).with_name("sampled_script.py")
NAN_LINE = next(i for i, line in enumerate(SCRIPT.read_text().splitlines(), 1) if "# NAN IN BACKWARD" in line)


@pytest.mark.parametrize("every", ["4"])  # steps 21-23, 25-27, ... unchecked
def test_nan_in_an_unread_row_at_an_unchecked_step_is_named_at_its_step(tmp_path, monkeypatch, every):
    monkeypatch.setenv("FAULTLIB_TRACE_CHECK_EVERY", every)  # k fixed after the warm-up: steps 21-23, 25-27... skipped
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    first = json.loads(proc.stdout)["first_nonfinite"]
    assert (first["step"], first["phase"], first["line"]) == (25, "backward", NAN_LINE)
    assert first["op"] in ("SqrtBackward0", "AbsBackward0", "MulBackward0")


def test_the_sampler_skips_after_the_warmup_and_keeps_every_step_with_continue(monkeypatch):
    from faultlib.trace.sampling import WARMUP, GradientSampler

    monkeypatch.setenv("FAULTLIB_TRACE_CHECK_EVERY", "3")
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1)
    for enabled, expected in ((True, 3), (False, 1)):
        sampler = GradientSampler(enabled=enabled)
        checked = []
        for step in range(WARMUP + 9):
            if not sampler.skip():
                checked.append(step)
                assert sampler.params_finite(opt)
                sampler.clean(step, step, opt, 0 if step == 0 else step * 1000)
        gaps = {b - a for a, b in zip(checked[WARMUP:], checked[WARMUP + 1:])}
        assert checked[:WARMUP] == list(range(WARMUP)) and gaps == {expected}
    with torch.no_grad():
        opt.param_groups[0]["params"][0][1] = float("nan")
    assert not GradientSampler().params_finite(opt)


NESTED = Path(__file__).with_name("nested_script.py")
LOG_LINE = next(i for i, line in enumerate(NESTED.read_text().splitlines(), 1) if "# LOG OF ZERO" in line)


@pytest.mark.parametrize("every", ["4"])  # step 25 unchecked: its output check is left to the loss read
def test_a_nan_born_in_a_nested_module_is_named_by_path_and_step_after_the_cheap_first_pass(tmp_path, monkeypatch,
                                                                                             every):
    """The watch pass tracks only the outermost module and, on a step whose gradient check is skipped, reads only
    the loss: the trip still says the output, and the replay (every module tracked from the tripped step's
    first model call) names the nested module's path, the op, the line and the step."""
    monkeypatch.setenv("FAULTLIB_TRACE_CHECK_EVERY", every)
    proc = cli("trace", "--json", "--", "python", str(NESTED), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert report["replayed"] and report["replay_step"] == 25
    assert (first["step"], first["phase"], first["module"], first["op"], first["line"]) == (
        25, "forward", "body.1", "aten::log", LOG_LINE)
    assert first["seen_in"] == "the output of the outermost module" and first["source"] == "op"


def test_a_skipped_training_step_runs_lean_and_its_nan_output_is_named_by_the_replay_at_its_step(monkeypatch):
    """In process: with k = 4 after the warm-up, steps 21-23 and 25-27 run lean (no output reduced, no loss read:
    see faultlib.trace.lean), checked steps reduce the output. The NaN input of step 25 reaches the gradients, SGD
    writes it into the parameters, and checked step 28 trips on them (its output), armed from the last step checked clean (24)
    and deferred; the replay, armed by optimizer step, names step 25 and the script's op that made the NaN."""
    from faultlib.trace import boot
    from faultlib.trace.sampling import WARMUP

    monkeypatch.setenv("FAULTLIB_TRACE_CHECK_EVERY", "4")

    def run(tracer, reads=None):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        if reads is not None:
            finite = tracer._finite
            monkeypatch.setattr(tracer, "_finite", lambda t: reads.append((tracer.step, t.dim())) or finite(t))
        tracer.install()
        try:
            with pytest.raises(boot._Stop):
                for step in range(30):
                    out = model(x * (float("nan") if step == 25 else 1.0))
                    loss = torch.nn.functional.mse_loss(out, y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
        finally:
            tracer.uninstall()

    tracer = boot.Tracer(arm_at=None, keep_going=False, dump_path=None)
    reads: list[tuple[int, int]] = []  # (step, dims of the tensor reduced): the outputs (the loss is read inline)
    run(tracer, reads)
    assert {s for s, dims in reads if dims == 2} == set(range(WARMUP + 1)) | {24, 28}
    assert {k: tracer.trip.get(k) for k in ("step", "phase", "where", "arm_at", "arm_step", "update_step", "deferred")} \
        == {"step": 28, "phase": "forward", "where": "the output of the outermost module", "arm_at": None,
            "arm_step": 24, "update_step": 24, "deferred": True}  # the parameters' NaN reaches step 28's output
    replay = boot.Tracer(arm_at=None, keep_going=False, dump_path=None, trip_step=28, arm_step=24)
    run(replay)
    event = replay.results()["event"]
    assert (event["step"], event["phase"], event["op"]) == (25, "forward", "aten::mul")


def _simulate(monkeypatch, lean_ns, checked_extra_ns, check_ns, steps, lean_ns_of=None):
    """Drive a GradientSampler through ``steps`` optimizer steps on a fake clock, as the watch pass does: a skipped
    step runs lean (its end stamped when it is the last of its window), a checked step takes ``lean_ns`` plus
    ``checked_extra_ns``, of which the check itself (between the pre-hook and clean()) is ``check_ns``. Returns the
    sampler's ``every`` after each checked step."""
    from faultlib.trace import sampling

    clock = [10**9]
    monkeypatch.setattr(sampling.time, "perf_counter_ns", lambda: clock[0])
    monkeypatch.delenv("FAULTLIB_TRACE_CHECK_EVERY", raising=False)
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1)
    sampler, seen = sampling.GradientSampler(), []
    for step in range(steps):
        if sampler.skip():
            clock[0] += lean_ns if lean_ns_of is None else lean_ns_of(step)
            if not sampler.left:
                sampler.lean_end_ns = clock[0]
            continue
        clock[0] += lean_ns // 2  # the forward and backward before optimizer.step()
        started = clock[0]
        clock[0] += check_ns
        sampler.clean(step, step, opt, started)
        clock[0] += lean_ns - lean_ns // 2 + checked_extra_ns - check_ns
        sampler.window(clock[0], lean=sampler.left > 0)
        seen.append(sampler.every)
    return seen


def test_k_counts_what_a_checked_step_costs_beyond_a_lean_one(monkeypatch):
    """A 300 us lean step, a checked step 90 us longer of which the kernels are 20 us: k is set by the 90 us once
    lean windows ran (ceil(90 / (1 % of 300)) = 30), not by the 20 us the kernels alone take (6)."""
    from faultlib.trace.sampling import BUDGET, MAX_EVERY, WARMUP

    seen = _simulate(monkeypatch, 300_000, 90_000, 20_000, 600)
    assert seen[WARMUP] == math.ceil(20_000 / (BUDGET * 390_000))  # before any lean window: the kernels' time
    assert seen[-1] == 30 <= MAX_EVERY
    # a slower machine's costlier checked step: k stops at MAX_EVERY
    assert _simulate(monkeypatch, 300_000, 900_000, 20_000, 600)[-1] == MAX_EVERY


def test_interrupted_lean_steps_never_leave_k_at_one(monkeypatch):
    """Lean steps an interruption made 3x longer than the checked step: the measured difference is negative, and k
    falls back to what the kernels' own time gives instead of 1 (which would leave no lean window to measure again)."""
    from faultlib.trace.sampling import WARMUP

    seen = _simulate(monkeypatch, 300_000, 90_000, 20_000, 400, lean_ns_of=lambda step: 1_200_000)
    assert min(seen[WARMUP:]) > 1
