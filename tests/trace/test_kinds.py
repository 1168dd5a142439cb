"""`faultlib trace` on kinds found by measuring public bug reports (benchmarks/trace_reports, trace_corpus.json):
a value made before the step's first model call, a backward NaN in a script that never calls a module, an
``optimizer.step()`` past a GradScaler's skipped overflow, and a buffer or parameter corrupted under no_grad that no
output shows.
The scripts are ours (kinds_script.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")

SCRIPT = Path(__file__).with_name("kinds_script.py")
LINES = SCRIPT.read_text().splitlines()


def line_of(snippet: str) -> int:
    return next(i for i, line in enumerate(LINES, 1) if snippet in line)


def trace(tmp_path, cause: str) -> tuple[int, dict]:
    proc = cli("trace", "--json", "--quiet-replay", "--dump-dir", str(tmp_path / "dump"), "--", "python", str(SCRIPT),
               cause, cwd=tmp_path)
    return proc.returncode, json.loads(proc.stdout)


def test_a_nan_made_before_the_first_model_call_is_named_not_blamed_on_the_batch(tmp_path):
    code, report = trace(tmp_path, "std_first")
    first = report["first_nonfinite"]
    assert code == 1 and report["replayed"] is True, report
    # the last batch holds one row: its std is made by the script, not read from the data
    assert (first["step"], first["op"], first["source"], first["input"]) == (2, "aten::std", "op", None)
    assert first["line"] == line_of("/ x.std(0)")


def test_a_backward_nan_in_a_script_that_only_indexes_a_module_names_the_node_line_and_parameter(tmp_path):
    code, report = trace(tmp_path, "indexed_sqrt")
    first = report["first_nonfinite"]
    assert code == 1 and report["replayed"] is True, report
    assert (first["step"], first["phase"], first["op"]) == (2, "backward", "SqrtBackward0")
    assert first["line"] == line_of(".sqrt())")
    assert first["gradients_reached"] == {"parameters": ["SGD.param_groups[0][0]"], "count": 1}


def test_an_optimizer_step_past_the_grad_scaler_is_named_not_the_scalers_own_overflow(tmp_path):
    code, report = trace(tmp_path, "scaler_extra_step")
    first = report["first_nonfinite"]
    assert code == 1 and report["replayed"] is True, report
    assert (first["kind"], first["step"], first["phase"], first["source"]) == ("optimizer_update", 0, "optimizer",
                                                                              "gradient")
    assert first["line"] == line_of("opt.step()  # extra step")
    assert first["optimizer"]["optimizer"] == "SGD" and "outside GradScaler.step()" in first["optimizer"]["cause"]
    assert first["upstream"][0]["what"] == "the scaler's skipped overflow"


def test_a_grad_scaler_overflow_it_skips_and_a_minus_inf_mask_buffer_stay_ok(tmp_path):
    code, report = trace(tmp_path, "scaler_ok")
    assert code == 0 and report["ok"] is True and report["first_nonfinite"] is None, report


def test_a_buffer_written_non_finite_under_no_grad_is_found_though_no_output_shows_it(tmp_path):
    code, report = trace(tmp_path, "ema_buffer")
    first = report["first_nonfinite"]
    assert code == 1 and report["replayed"] is True, report
    assert (first["step"], first["module"], first["op"], first["source"]) == (0, "Centroids", "aten::div", "op")
    assert first["line"] == line_of("# renormalise")
    assert first["seen_in"].startswith("buffer centroid of Centroids at the script's end")


def test_weights_a_hand_written_update_made_nan_are_found_though_every_output_stays_finite(tmp_path):
    code, report = trace(tmp_path, "hidden_weights")
    first = report["first_nonfinite"]
    assert code == 1 and report["ok"] is False, report
    assert first["seen_in"].startswith("parameter proj.weight of Gated at the script's end"), first
    # the replay names the discarded sqrt of negatives, whose backward made the gradients NaN
    assert (first["step"], first["op"], first["line"]) == (0, "aten::sqrt", line_of("sqrt of negatives, discarded"))
