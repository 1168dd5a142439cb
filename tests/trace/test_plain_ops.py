"""`faultlib trace` on values made by plain tensor ops before any model call or optimizer step: the replay checks
every op from the script's start, so the op and line are named (it armed at a model call that never came and said
"saw one at step 0 instead ... does not run the same way twice")."""

from __future__ import annotations

import json

import pytest

from faultlib.trace import session
from faultlib.trace.session import TraceReport
from tests.conftest import cli

pytest.importorskip("torch")

# a gradient made non-finite by a square root at zero, before any optimizer exists and with no nn.Module at all
GRADIENT_BEFORE_ANY_STEP = '''
import torch

scale = torch.zeros(5, requires_grad=True)
spread = torch.sqrt(scale) * 2.0
spread.sum().backward()
sgd = torch.optim.SGD([scale], lr=0.5)
sgd.step()
print("scale after the step", scale.tolist())
'''

# sampling with a temperature of zero: the division makes inf, softmax NaN, multinomial raises
SAMPLE_WITH_ZERO_TEMPERATURE = '''
import torch

torch.manual_seed(3)
scores = torch.randn(6)
temperature = float("0")
weights = torch.softmax(scores / temperature, dim=0)
choice = torch.multinomial(weights, 1)
print("picked", int(choice))
'''


def _line(source: str, snippet: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if snippet in line)


def test_a_gradient_made_by_plain_ops_before_any_step_is_named_with_its_line(tmp_path):
    (tmp_path / "plain.py").write_text(GRADIENT_BEFORE_ANY_STEP)
    proc = cli("trace", "--json", "--quiet-replay", "--dump-dir", str(tmp_path / "dump"), "--", "python", "plain.py",
               cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert report["replayed"] is True and first["step"] == 0, report
    assert first["op"] == "SqrtBackward0" and first["phase"] == "backward", first
    assert first["line"] == _line(GRADIENT_BEFORE_ANY_STEP, "torch.sqrt(") and first["source"] == "op", first
    assert first["gradients_reached"] is None, "no model or optimizer existed at that backward: nothing to name"
    assert not any("same way twice" in note or "instead" in note for note in report["notes"]), report["notes"]


def test_a_sampling_error_from_plain_ops_names_the_division(tmp_path):
    (tmp_path / "sample.py").write_text(SAMPLE_WITH_ZERO_TEMPERATURE)
    proc = cli("trace", "--json", "--quiet-replay", "--dump-dir", str(tmp_path / "dump"), "--", "python",
               "sample.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert report["replayed"] is True and first["step"] == 0, report
    assert first["aten_op"] == "aten::div" and first["line"] == _line(SAMPLE_WITH_ZERO_TEMPERATURE, "/ temperature")
    assert not any("same way twice" in note for note in report["notes"]), report["notes"]


def test_a_replay_that_sees_the_same_step_without_an_op_says_so_not_nondeterminism():
    trip = {"step": 4, "where": "the gradients at optimizer.step()", "arm_at": 0, "input": None}
    replay = session._Pass("stopped", trip={**trip, "time": 1.0})
    report = TraceReport()
    session._add_replay(report, trip, replay)
    [note] = report.notes
    assert "saw the non-finite value again at step 4" in note and "op and source line are unknown" in note
    assert "instead" not in note and "same way twice" not in note
    assert report.replayed is False
