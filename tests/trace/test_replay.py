"""`faultlib trace` black-box on real scripts: the step the report gives when the two runs differ,
a NaN already in the batch or the loss's target, the dump that replays the loss, the output."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")

HERE = Path(__file__).parent
FLAKY = HERE / "flaky_script.py"
REGRESS = HERE / "regress_script.py"
REGRESS_LINES = REGRESS.read_text().splitlines()


def line_of(snippet: str, lines: list[str] = REGRESS_LINES) -> int:
    return next(i for i, line in enumerate(lines, 1) if snippet in line)


# -- two runs that differ -------------------------------------------------------------------
@pytest.mark.parametrize("plan, replay_step", [("3,5", 5), ("5,2", 2), ("4,none", None)])
def test_the_first_runs_step_stands_when_the_replay_differs(plan, replay_step, tmp_path):
    counter = tmp_path / "runs"
    proc = cli("trace", "--json", "--dump-dir", str(tmp_path / "dump"), "--", "python", str(FLAKY), str(counter),
               plan, cwd=tmp_path)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and counter.read_text() == "2", proc.stderr  # both runs happened
    first = report["first_nonfinite"]
    step = int(plan.split(",")[0])
    assert first["step"] == step and report["replay_step"] == replay_step and report["replayed"] is False
    assert first["op"] is None and first["file"] is None and first["source"] is None
    note = " ".join(report["notes"])
    assert f"at step {step}" in note and "does not run the same way twice" in note
    if replay_step is not None:
        assert f"step {replay_step} instead" in note


def test_a_replay_that_sees_the_same_step_is_the_answer(tmp_path):
    counter = tmp_path / "runs"
    proc = cli("trace", "--json", "--", "python", str(FLAKY), str(counter), "3,3", cwd=tmp_path)
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert proc.returncode == 1 and report["replayed"] is True and report["replay_step"] == 3 == first["step"]
    log_line = line_of("torch.log(", FLAKY.read_text().splitlines())
    assert (first["op"], first["source"], first["line"]) == ("aten::log", "op", log_line)
    assert report["notes"] == []


# -- a NaN already in what the step consumed ------------------------------------------------
def test_nan_in_the_input_batch_from_dataloader_workers(tmp_path):
    out = tmp_path / "report.json"
    proc = cli("trace", "--out", str(out), "--quiet-replay", "--dump-dir", str(tmp_path), "--", "python", str(REGRESS),
               "nan_input", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(out.read_text())
    first = report["first_nonfinite"]
    assert (first["step"], first["source"], first["input"], first["batch_index"]) == \
        (2, "input", "args[0] of Sequential.forward", 2)
    assert first["op"] is None and first["tensor"]["nan"] == 1 and first["tensor"]["shape"] == [8, 4]
    assert first["line"] == line_of("loss = distance_loss(model(xb), yb)")  # where the model got the batch
    assert report["replayed"] is True and not any("seed" in note for note in report["notes"])
    assert "already in the input batch: args[0] of Sequential.forward (batch 2)" in proc.stdout
    dump = torch.load(report["dump"], weights_only=True)
    (xb,) = dump["batch"]
    assert torch.isnan(xb[5, 2]) and int(torch.isnan(xb).sum()) == 1  # sample 21 = batch 2, row 5
    # --quiet-replay: the script's output appears once, and the separator says the replay is hidden
    assert proc.stdout.count("step 1 loss") == 1
    assert "replaying the script to locate step 2; its output is hidden (--quiet-replay)" in proc.stderr


def test_nan_in_the_loss_target_and_the_dump_recomputes_the_nan_loss(tmp_path):
    from tests.trace.tiny_model import build, distance_loss

    proc = cli("trace", "--json", "--dump-dir", str(tmp_path), "--", "python", str(REGRESS), "nan_target",
               cwd=tmp_path)
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert proc.returncode == 1 and report["replayed"] is True, proc.stderr
    assert (first["step"], first["source"], first["module"], first["op"]) == (2, "input", None, None)
    assert first["input"].startswith("argument 1 of Tensor.") and Path(first["file"]).name == "tiny_model.py"
    dump = torch.load(report["dump"], weights_only=True)
    model = build()
    model.load_state_dict(dump["model_state"])
    (xb,) = dump["batch"]
    (target,) = [c["tensor"] for c in dump["consumed"]]  # the only tensor from outside the step but the batch
    loss = distance_loss(model(xb), target)
    assert torch.isnan(loss) and torch.isnan(dump["loss"])


def test_the_dump_replays_the_loss_and_its_nan_gradient(tmp_path):
    from tests.trace.tiny_model import build, distance_loss

    proc = cli("trace", "--json", "--dump-dir", str(tmp_path), "--", "python", str(REGRESS), "norm_at_zero",
               cwd=tmp_path)
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert proc.returncode == 1 and (first["step"], first["phase"], first["op"], first["source"]) == \
        (2, "backward", "SqrtBackward0", "op"), proc.stderr
    assert report["stopped_by_trace"] is True and report["script_exit"] is None
    dump = torch.load(report["dump"], weights_only=True)
    assert dump["step"] == 2 and dump["event"]["op"] == "SqrtBackward0"
    (consumed,) = dump["consumed"]
    assert Path(consumed["file"]).name == "tiny_model.py" and consumed["shape"] == [8, 2]
    model = build()
    model.load_state_dict(dump["model_state"])
    (xb,) = dump["batch"]
    loss = distance_loss(model(xb), consumed["tensor"])
    assert torch.equal(loss, dump["loss"]) and torch.isfinite(loss)  # the same loss, finite: born in backward
    loss.backward()
    assert any(not torch.isfinite(p.grad).all() for p in model.parameters())
    # the replay's output is marked: watch output, the separator, then the replay's output (all on stderr)
    err = proc.stderr
    separator = err.index("──── faultlib trace: replaying the script to locate step 2; its output follows")
    assert err.count("step 1 loss") == 2 and err.index("step 1 loss") < separator < err.rindex("step 1 loss")


# -- user text is never markup ----------------------------------------------------------------
def test_paths_that_look_like_markup_are_printed_as_they_are(tmp_path):
    weird = tmp_path / "a[" / "b]"
    weird.mkdir(parents=True)
    for name in ("regress_script.py", "tiny_model.py"):
        shutil.copy(HERE / name, weird / name)
    # stdout and stderr in one stream, as on a terminal or in a CI log: the replay banner comes before the result
    proc = subprocess.run([sys.executable, "-m", "faultlib", "trace", "--dump-dir", str(tmp_path / "dump"), "--",
                           "python", str(weird / "regress_script.py"), "norm_at_zero"], cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stdout, proc.stdout
    assert f"{weird / 'tiny_model.py'}:" in proc.stdout
    assert proc.stdout.index("faultlib trace: replaying the script") < proc.stdout.index("first non-finite")


def test_the_replay_banner_names_the_step_the_table_names(tmp_path):
    """A value written after a healthy optimizer step (a weight rescaled in place) is found at the next step: the
    banner names that step (and the earlier one it searches from), not only the earlier one."""
    script = tmp_path / "rescale.py"
    script.write_text(
        "import torch\n"
        "torch.manual_seed(0)\n"
        "net = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 1))\n"
        "opt = torch.optim.SGD(net.parameters(), lr=0.05)\n"
        "x, y = torch.randn(16, 3), torch.randn(16, 1)\n"
        "for i in range(4):\n"
        "    loss = (net(x) - y).abs().mean()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    if i == 1:\n"
        "        with torch.no_grad():\n"
        "            net[2].weight.mul_(1e39)  # a broken rescale: inf in the weights\n")
    proc = cli("trace", "--quiet-replay", "--dump-dir", str(tmp_path / "d"), "--", "python", str(script),
               cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "inf at step 2, forward" in proc.stdout and "aten::mul_" in proc.stdout and "rescale.py:13" in proc.stdout
    assert "replaying the script to locate step 2, searching from step 1 where it may have been written" in proc.stderr
    # the in-place op's own output is not an input that "already held inf" before it
    assert "already held" not in proc.stderr, proc.stderr
