"""Lean steps of the watch pass (faultlib.trace.lean): on a step whose checks the sampler skips, the module wrapper
is paused and ``Tensor.backward`` is torch's own; steps are counted by ``optimizer.step()`` and the replay is armed
by optimizer step. In process, with k = 4 after the 20-step warm-up: steps 21-23, 25-27, 29-31 ... are lean."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from faultlib.trace import boot  # noqa: E402
from faultlib.trace.sampling import WARMUP  # noqa: E402


@pytest.fixture(autouse=True)
def _every_four(monkeypatch):
    monkeypatch.setenv("FAULTLIB_TRACE_CHECK_EVERY", "4")


class Pair(torch.nn.Module):
    """Two roots per step: an encoder and a head called one after the other by the script."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.enc, self.head = torch.nn.Linear(4, 8), torch.nn.Linear(8, 1)


def _train(tracer, steps, *, bad_step=None, eval_every=None, eval_bad=None, two_roots=False, seen=None,
           evaluate=torch.no_grad):
    """SGD steps under ``tracer``; the input of ``bad_step`` holds a NaN; an evaluation under ``evaluate()``
    (``eval()`` first) after each ``eval_every``-th step, its input NaN after step ``eval_bad``. Returns the steps run
    (the step it stopped at)."""
    torch.manual_seed(0)
    pair = Pair()
    model = torch.nn.Sequential(pair.enc, torch.nn.ReLU(), pair.head)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    tracer.install()
    try:
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        for step in range(steps):
            model.train()
            batch = x * (float("nan") if step == bad_step else 1.0)
            out = pair.head(pair.enc(batch).relu()) if two_roots else model(batch)
            loss = torch.nn.functional.mse_loss(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if seen is not None:
                seen.append((step, tracer.lean.active))
            if eval_every and step % eval_every == eval_every - 1:
                model.eval()
                with evaluate():
                    model(x * (float("nan") if eval_bad is not None and step >= eval_bad else 1.0))
    except boot._Stop:
        return step
    finally:
        tracer.uninstall()
    return steps


def _watch():
    return boot.Tracer(arm_at=None, keep_going=False, dump_path=None)


def test_steps_the_sampler_skips_run_lean_and_a_healthy_script_does_not_trip():
    seen: list[tuple[int, bool]] = []
    tracer = _watch()
    torch_own = (torch.nn.Module.__call__, torch.set_grad_enabled.__enter__, torch.Tensor.backward, torch.no_grad.__enter__)
    assert _train(tracer, 40, seen=seen) == 40 and tracer.trip is None
    lean_after = {step for step, active in seen if active}  # lean from the end of this step to the next one's end
    assert lean_after == {s for s in range(WARMUP, 40) if (s - WARMUP) % 4 != 3} and tracer.lean.since == WARMUP + 1
    assert (torch.nn.Module.__call__, torch.set_grad_enabled.__enter__, torch.Tensor.backward, torch.no_grad.__enter__) == \
        torch_own and not tracer.lean.active  # all removed


def test_a_nan_at_a_lean_step_trips_at_the_next_checked_step_and_the_replay_names_its_step():
    """The NaN input of step 25 (lean: nothing reads it) makes the gradients NaN; SGD writes them into the
    parameters, which the next checked step (28) finds. The trip arms from the last step checked clean (24),
    deferred; the replay, armed by optimizer step, names step 25 and the script's op that made the NaN."""
    tracer = _watch()
    assert _train(tracer, 40, bad_step=25) == 28
    assert {k: tracer.trip.get(k) for k in ("step", "arm_at", "arm_step", "update_step", "deferred")} == {
        "step": 28, "arm_at": None, "arm_step": 24, "update_step": 24, "deferred": True}
    replay = boot.Tracer(arm_at=None, keep_going=False, dump_path=None, trip_step=28, arm_step=24)
    assert _train(replay, 40, bad_step=25) == 25
    event = replay.results()["event"]
    assert (event["step"], event["source"], event["op"]) == (25, "op", "aten::mul")


def test_a_nan_at_a_lean_step_near_the_end_is_found_at_the_scripts_end():
    tracer = _watch()
    assert _train(tracer, 27, bad_step=25) == 27 and tracer.trip is None  # steps 25 and 26 lean, no checked step
    tracer.check_buffers_at_end()
    assert {k: tracer.trip.get(k) for k in ("step", "arm_step", "update_step", "deferred")} == {
        "step": 26, "arm_step": 24, "update_step": 24, "deferred": True}
    assert tracer.trip["where"].startswith("the parameters at the script's end")


@pytest.mark.parametrize("evaluate", [torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)],
                         ids=["no_grad", "inference_mode", "set_grad_enabled"])
def test_an_evaluation_between_lean_steps_is_checked_as_before(evaluate):
    """Evaluation puts the wrappers back for the rest of the step: a NaN output of an evaluation after step 22
    (lean) trips at once, at step 23, on the outermost output."""
    tracer, seen = _watch(), []
    assert _train(tracer, 40, eval_every=1, eval_bad=22, evaluate=evaluate, seen=seen) == 22
    assert seen[-1] == (22, True)  # lean when the evaluation began
    assert (tracer.trip["step"], tracer.trip["where"], tracer.trip["module"]) == (
        23, "the output of the outermost module", "Sequential")


def test_two_roots_per_step_are_armed_by_optimizer_step():
    tracer = _watch()
    assert _train(tracer, 40, bad_step=29, two_roots=True) == 32
    assert (tracer.trip["arm_step"], tracer.trip["update_step"]) == (28, 28)
    replay = boot.Tracer(arm_at=None, keep_going=False, dump_path=None, trip_step=32, arm_step=28)
    assert _train(replay, 40, bad_step=29, two_roots=True) == 29
    event = replay.results()["event"]
    assert (event["step"], event["op"], replay.arm_at) == (29, "aten::mul", 2 * 28)  # its own count: 2 calls a step


def test_a_script_with_no_optimizer_counts_model_calls_and_never_runs_lean():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    tracer = _watch()
    tracer.install()
    try:
        with pytest.raises(boot._Stop):
            for call in range(40):
                model(torch.randn(3, 4) * (float("nan") if call == 33 else 1.0))
    finally:
        tracer.uninstall()
    assert tracer.lean.since is None and (tracer.trip["step"], tracer.trip["arm_at"]) == (33, 33)
    assert "arm_step" not in tracer.trip
