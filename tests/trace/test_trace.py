"""`faultlib trace` black-box on a real script, one run per distinct cause of a NaN/inf."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")
datasets = pytest.importorskip("sklearn.datasets")

SCRIPT = Path(__file__).with_name("nan_script.py")
SOURCE = SCRIPT.read_text().splitlines()


def line_of(snippet: str) -> int:
    return next(i for i, line in enumerate(SOURCE, 1) if snippet in line)


@pytest.fixture(scope="module")
def digits_npz(tmp_path_factory):
    import numpy as np

    path = tmp_path_factory.mktemp("data") / "digits.npz"
    x, y = datasets.load_digits(return_X_y=True)
    np.savez(path, x=x, y=y)
    return path


@pytest.fixture(autouse=True)
def _cached_digits(digits_npz, monkeypatch):
    monkeypatch.setenv("DIGITS_NPZ", str(digits_npz))


@pytest.fixture(scope="module")
def sqrt_at_zero_run(digits_npz, tmp_path_factory):
    """One trace of ``nan_script.py sqrt_at_zero`` (two script runs), shared read-only by the tests of its report
    and of its dump: ``(proc, report)``, the human report on ``proc.stdout``, the JSON one from ``--out``."""
    folder = tmp_path_factory.mktemp("sqrt_at_zero")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DIGITS_NPZ", str(digits_npz))
        proc = cli("trace", "--out", str(folder / "report.json"), "--dump-dir", str(folder), "--", "python",
                   str(SCRIPT), "sqrt_at_zero", cwd=folder)
    assert proc.returncode == 1, proc.stderr
    return proc, json.loads((folder / "report.json").read_text())


# cause -> (step, phase, module, op, the source line that must be named)
EXPECTED = {
    "unsafe_where": (0, "forward", "encoder.1", "aten::sqrt", "torch.where(h > 0, torch.sqrt(h)"),
    "sqrt_at_zero": (0, "backward", "norm", "SqrtBackward0", ".pow(2).sum(-1, keepdim=True).sqrt()"),
    "masked_softmax": (0, "forward", "attention", "aten::_softmax", "torch.softmax(scores, dim=-1) @ h"),
    "log_of_zero": (3, "forward", None, "aten::log", "loss = -torch.log("),
    "fp16_overflow": (5, "forward", "encoder.0", "aten::_to_copy", "h = self.norm(self.encoder(inputs))"),
    "custom_function": (0, "backward", "Net", "ClampedExpBackward", "ClampedExp.apply(h * 0.01)"),
    "inference_fp16": (2, "forward", "attention", "aten::mm", "scores = self.query(h) @ h.T"),
}


@pytest.mark.parametrize("cause", sorted(EXPECTED))
def test_names_step_phase_module_op_and_line(cause, tmp_path, request):
    if cause == "sqrt_at_zero":  # the run the dump's test reads too (its JSON report from --out)
        proc, report = request.getfixturevalue("sqrt_at_zero_run")
    else:
        proc = cli("trace", "--json", "--dump-dir", str(tmp_path), "--", "python", str(SCRIPT), cause, cwd=tmp_path)
        report = json.loads(proc.stdout)
    assert proc.returncode == 1, proc.stderr
    first = report["first_nonfinite"]
    step, phase, module, op, snippet = EXPECTED[cause]
    assert (first["step"], first["phase"], first["module"], first["op"]) == (step, phase, module, op), f"{first}"
    assert Path(first["file"]).name == SCRIPT.name and first["line"] == line_of(snippet)
    tensor = first["tensor"]
    assert tensor["nan"] + tensor["inf"] > 0 and tensor["dtype"] in ("float32", "float16")
    assert report["replayed"] is True and report["ok"] is False
    if cause == "masked_softmax":  # one step upstream: the -inf fill and the op that built the mask
        fill, mask, rows = first["upstream"]
        assert (fill["op"], fill["line"]) == ("aten::masked_fill", line_of("scores.masked_fill(mask"))
        assert (mask["what"], mask["op"], mask["line"]) == ("the mask", "aten::fill_", line_of("mask[0] = True"))
        assert rows == {"what": "fully masked rows", "count": 1}
    if cause == "sqrt_at_zero":  # the parameters the backward NaN reaches
        assert first["gradients_reached"] == {"parameters": ["encoder.0.weight", "encoder.0.bias"], "count": 2}


def test_healthy_run_reports_nothing(tmp_path):
    proc = cli("trace", "--json", "--", "python", str(SCRIPT), "healthy", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is True and report["first_nonfinite"] is None and report["dump"] is None
    assert "done" in proc.stderr  # under --json the script's own stdout goes to stderr


def test_dump_loads_with_weights_only_and_replays_the_step(sqrt_at_zero_run):
    proc, report = sqrt_at_zero_run
    assert "SqrtBackward0" in proc.stdout and "norm" in proc.stdout  # the human table
    dump = torch.load(report["dump"], weights_only=True)
    assert dump["step"] == 0 and dump["event"]["op"] == "SqrtBackward0"
    (inputs,) = dump["batch"]
    assert inputs.shape == (32, 64)
    assert set(dump["model_state"]) >= {"encoder.0.weight", "head.bias"}
    assert dump["optimizer_state"]["param_groups"][0]["lr"] == 0.05
    assert torch.isfinite(dump["loss"])  # the forward was finite: the NaN is born in backward


def test_continue_counts_the_steps(tmp_path):
    proc = cli("trace", "--json", "--continue", "--dump-dir", str(tmp_path), "--", "python", str(SCRIPT),
               "unsafe_where", cwd=tmp_path)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and report["tripped_steps"] == 12  # every step of the script


def test_script_errors_pass_through(tmp_path):
    crash = tmp_path / "crash.py"
    crash.write_text("import sys\nprint('working')\nsys.exit(3)\n")
    proc = cli("trace", "--", "python", str(crash), cwd=tmp_path)
    assert proc.returncode == 3 and "exited with code 3" in proc.stderr
    boom = tmp_path / "boom.py"
    boom.write_text("raise ValueError('bad config')\n")
    proc = cli("trace", "--", "python", str(boom), cwd=tmp_path)
    assert proc.returncode == 4 and "ValueError: bad config" in proc.stderr  # 1 means only "found"
    proc = cli("trace", "--", "python", str(tmp_path / "missing.py"), cwd=tmp_path)
    assert proc.returncode == 2 and "no such script" in proc.stderr
