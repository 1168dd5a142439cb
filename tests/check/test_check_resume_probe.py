"""`faultlib check resume --probe`: a resume that restarts the LR schedule is caught at the first step it
changes; a complete resume is silent; the user's directory is never written.

Each script is probed once for all the ways its tests resume it (:func:`probe_resumes`: one straight run and
one preempted run, shared, and one resumed run per way), in a module-scoped fixture; each test asserts on its
own resume's report. :func:`probe_resume` is that with one way (its own test checks it passes everything on).
"""

from __future__ import annotations

import os
import textwrap

import pytest

from faultlib.detect.training import probe
from faultlib.detect.training.probe import probe_resumes


def _probed(folder, script: str, text: str, **kwargs):
    """``probe_resumes(["python", script], **kwargs)`` run from ``folder`` (holding only ``script``), and the
    names in ``folder`` after it."""
    (folder / script).write_text(text)
    here = os.getcwd()
    os.chdir(folder)
    try:
        reports = probe_resumes(["python", script], **kwargs)
    finally:
        os.chdir(here)
    return reports, sorted(p.name for p in folder.iterdir())

TRAIN = textwrap.dedent("""
    import argparse, os
    import torch

    p = argparse.ArgumentParser()
    p.add_argument("--resume")
    p.add_argument("--forget-schedule", action="store_true")
    a = p.parse_args()
    torch.manual_seed(0)
    x, y = torch.randn(128, 8), torch.randint(0, 3, (128,))
    model = torch.nn.Linear(8, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, 5, gamma=0.5)
    order = torch.Generator().manual_seed(1)
    start = 0
    if a.resume:
        ckpt = torch.load(a.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        order.set_state(ckpt["order"])
        if not a.forget_schedule:
            sched.load_state_dict(ckpt["sched"])
        start = ckpt["step"]
    os.makedirs("ckpt", exist_ok=True)
    for step in range(start, 16):
        idx = torch.randint(0, 128, (16,), generator=order)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
        opt.step()
        sched.step()
        if (step + 1) % 8 == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "order": order.get_state(), "step": step + 1}, f"ckpt/step{step + 1}.pt")
""")


@pytest.fixture(scope="module")
def schedule_probes(tmp_path_factory):
    """train.py resumed without its LR schedule (``--forget-schedule``), then completely."""
    return _probed(tmp_path_factory.mktemp("schedule"), "train.py", TRAIN, steps=16, stop_at=8,
                   resume_args=["--resume {checkpoint} --forget-schedule", "--resume {checkpoint}"])


def test_probe_names_the_first_step_and_object_that_differ(schedule_probes):
    (bad, _), _ = schedule_probes
    assert bad.resumed_at == 8 and bad.checkpoint == "ckpt/step8.pt"
    assert bad.resume_args == ["--resume", "{checkpoint}", "--forget-schedule"]
    [finding] = bad.findings
    assert finding.kind == "resume_diverged" and finding.location == {"step": 10}  # StepLR(5) decays at 10, not 12
    assert finding.evidence["fields"][0] == "lr" and "LR scheduler" in finding.message
    assert finding.evidence["straight"]["lr"] == 0.025 and finding.evidence["resumed"]["lr"] == 0.05


def test_a_complete_resume_is_silent_and_the_users_directory_is_never_written(schedule_probes):
    (bad, good), after = schedule_probes
    assert good.findings == [] and good.compared == 8 and good.first_difference is None
    assert after == ["train.py"]  # nothing written beside the user's script
    # one straight and one preempted run, shared by both resumes; each resume its own run
    assert good.runs["straight"] == bad.runs["straight"] and good.runs["preempted"] == bad.runs["preempted"]
    assert good.runs["resumed"] != bad.runs["resumed"] and good.runs["straight"]["steps"] == 16


def test_probe_resume_is_probe_resumes_with_one_way_to_resume(monkeypatch):
    calls = []
    monkeypatch.setattr(probe, "probe_resumes", lambda cmd, **kw: calls.append((cmd, kw)) or ["report"])
    assert probe.probe_resume(["python", "t.py"], steps=9, stop_at=4, resume_arg="--from {checkpoint_dir}",
                              output_dir="out", timeout_s=7) == "report"
    assert calls == [(["python", "t.py"], {"steps": 9, "stop_at": 4, "resume_args": ["--from {checkpoint_dir}"],
                                           "output_dir": "out", "timeout_s": 7})]


EPOCHS = textwrap.dedent("""
    import argparse, os
    import torch

    p = argparse.ArgumentParser()
    p.add_argument("--from-dir")
    p.add_argument("--forget-order", action="store_true")
    a = p.parse_args()
    torch.manual_seed(0)
    x, y = torch.randn(64, 4), torch.randn(64, 1)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    shuffle = torch.Generator().manual_seed(3)
    first = 0
    if a.from_dir:
        state = torch.load(os.path.join(a.from_dir, "last.pth.tar"), weights_only=True)
        model.load_state_dict(state["net"])
        opt.load_state_dict(state["adam"])
        if not a.forget_order:
            shuffle.set_state(state["shuffle"])
        first = state["epoch"] + 1
    for epoch in range(first, 4):
        with torch.no_grad():  # a held-out look before each epoch: the same batch in every run
            model(x[:8])
        order = torch.randperm(64, generator=shuffle)
        for i in range(0, 64, 16):
            opt.zero_grad()
            idx = order[i:i + 16]
            torch.nn.functional.mse_loss(model(x[idx]), y[idx]).backward()
            opt.step()
        os.makedirs(f"runs/epoch{epoch}", exist_ok=True)
        torch.save({"net": model.state_dict(), "adam": opt.state_dict(), "epoch": epoch,
                    "shuffle": shuffle.get_state()}, f"runs/epoch{epoch}/last.pth.tar")
""")


@pytest.fixture(scope="module")
def epoch_probes(tmp_path_factory):
    """fit.py resumed through {checkpoint_dir}: completely, without its shuffle generator, without the argument."""
    return _probed(tmp_path_factory.mktemp("epochs"), "fit.py", EPOCHS, steps=12, stop_at=8,
                   resume_args=["--from-dir {checkpoint_dir}", "--from-dir {checkpoint_dir} --forget-order", ""])


def test_probe_epochs_pth_tar_folder_resumes_through_its_folder(epoch_probes):
    """An epoch-based script saving ``*.pth.tar`` into a folder per epoch resumes through {checkpoint_dir}."""
    (good, _, _), after = epoch_probes
    assert good.checkpoint == "runs/epoch1/last.pth.tar" and good.resumed_at == 8
    assert good.findings == [] and good.compared >= 4  # steps 8..11 at least (the run may end before its kill)
    assert after == ["fit.py"]


def test_probe_epochs_resumed_without_its_shuffle_generator_differs_in_data(epoch_probes):
    """Resumed without its shuffle generator, the data differs at the first step after the resume."""
    (_, reshuffled, _), _ = epoch_probes
    [finding] = reshuffled.findings  # the batch under no_grad before the step is not the step's batch
    assert finding.kind == "resume_diverged" and finding.location == {"step": 8}
    assert finding.evidence["fields"][0] == "data" and "data order" in finding.message


def test_probe_epochs_a_run_that_never_resumes(epoch_probes):
    """The same script resumed without its argument trains from step 0 again: ``resume_restarted``, although
    the seeded rerun matches the straight run step for step."""
    (_, _, restarted), _ = epoch_probes
    [finding] = restarted.findings
    assert finding.kind == "resume_restarted" and restarted.resumed_at == 0
    assert "runs/epoch1/last.pth.tar" in finding.message
