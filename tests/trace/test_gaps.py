"""`faultlib trace` on non-finite values no model forward produced: sampling and metrics outside modules (the script
dies of them), a total gradient norm that overflows, an optimizer update that writes NaN, an inf read from a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")

SCRIPT = Path(__file__).with_name("gaps_script.py")
LINES = SCRIPT.read_text().splitlines()


def line_of(snippet: str) -> int:
    return next(i for i, line in enumerate(LINES, 1) if snippet in line)


def trace(tmp_path, *args: str) -> tuple[int, dict]:
    proc = cli("trace", "--json", "--quiet-replay", "--dump-dir", str(tmp_path / "dump"), "--", "python", str(SCRIPT),
               *args, cwd=tmp_path)
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("cause, op, snippet, error", [
    ("sample_temp0", "aten::div", "logits / temperature", "RuntimeError: probability tensor contains"),
    ("metric_assert", "aten::div", "kept.sum() / kept.numel()", "AssertionError: accuracy is not finite"),
])
def test_a_script_that_dies_of_a_nonfinite_value_names_the_op_outside_modules(cause, op, snippet, error, tmp_path):
    code, report = trace(tmp_path, cause)
    first = report["first_nonfinite"]
    assert code == 1 and report["reason"] == "nonfinite" and report["replayed"] is True, report
    assert (first["step"], first["module"], first["op"], first["source"]) == (0, None, op, "op")
    assert Path(first["file"]).name == SCRIPT.name and first["line"] == line_of(snippet)
    assert first["seen_in"].startswith(f"the script's error ({error}")
    assert report["error"].startswith(error) and any("also failed" in n for n in report["notes"])


def test_a_total_gradient_norm_that_overflows_is_its_own_kind_at_its_step(tmp_path):
    code, report = trace(tmp_path, "clip_overflow")
    first = report["first_nonfinite"]
    assert code == 1 and report["replayed"] is True, report
    # step 0 is healthy; at step 1 the gradients are finite but the sum of their squares passes the fp32 maximum
    assert (first["kind"], first["step"], first["phase"], first["module"]) == ("grad_norm_overflow", 1, "optimizer",
                                                                              None)
    assert first["op"] in ("aten::_foreach_norm", "aten::linalg_vector_norm") and first["tensor"]["inf"] == 1
    assert first["line"] == line_of("clip_grad_norm_(model.parameters(), 1.0)")


def test_a_healthy_run_that_clips_stays_ok(tmp_path):
    code, report = trace(tmp_path, "healthy_clip")
    assert code == 0 and report["ok"] is True and report["first_nonfinite"] is None


def test_nan_written_by_adam_names_optimizer_group_parameter_and_eps(tmp_path):
    code, report = trace(tmp_path, "adam_fp16_eps")
    first = report["first_nonfinite"]
    assert code == 1 and report["replayed"] is True, report
    # the forward of step 1 met the NaN weight; the update of step 0 wrote it
    assert (first["kind"], first["step"], first["phase"], first["source"]) == ("optimizer_update", 0, "optimizer", "op")
    assert first["op"] == "aten::addcdiv_" and first["line"] == line_of("opt.step()  # adam")
    update = first["optimizer"]
    assert (update["optimizer"], update["param_group"], update["parameter"], update["dtype"], update["eps"]) == \
        ("Adam", 0, "weight", "float16", 1e-8)
    assert "rounds to 0" in update["cause"] and "second moment v is 0 (here at 1 of the 1" in update["cause"]


def test_a_deterministic_inf_read_from_a_file_is_found_again_on_replay(tmp_path):
    data = tmp_path / "rows.pt"
    x = torch.randn(24, 4, generator=torch.Generator().manual_seed(1))
    x[13, 1] = float("inf")  # row 13: the batch of step 3 (4 rows per step)
    torch.save({"x": x, "y": torch.zeros(24, 1)}, data)
    code, report = trace(tmp_path, "inf_row", str(data))
    first = report["first_nonfinite"]
    assert code == 1 and report["replayed"] is True and report["replay_step"] == 3, report
    assert (first["step"], first["source"], first["input"], first["batch_index"]) == \
        (3, "input", "args[0] of Linear.forward", 3)
    assert first["tensor"]["inf"] == 1 and not any("same way twice" in n for n in report["notes"])
