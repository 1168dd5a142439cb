"""The watch pass checks the gradients one step in k on tiny steps (faultlib.trace.sampling): a non-finite value
written at an unchecked step is still found (the parameters are checked after skipped steps) and the replay, armed
from the last step checked clean, names the step, op and line as if every step had been checked."""

from __future__ import annotations

import json
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
