"""`faultlib check resume --probe`: a resume that restarts the LR schedule is caught at the first step it
changes; a complete resume is silent; the user's directory is never written."""

from __future__ import annotations

import textwrap

from faultlib.detect.training.probe import probe_resume

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


def test_probe_names_the_first_step_and_object_that_differ(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    bad = probe_resume(["python", "train.py", "--forget-schedule"], steps=16, stop_at=8)
    assert bad.resumed_at == 8 and bad.checkpoint == "ckpt/step8.pt"
    [finding] = bad.findings
    assert finding.kind == "resume_diverged" and finding.location == {"step": 10}  # StepLR(5) decays at 10, not 12
    assert finding.evidence["fields"][0] == "lr" and "LR scheduler" in finding.message
    assert finding.evidence["straight"]["lr"] == 0.025 and finding.evidence["resumed"]["lr"] == 0.05
    good = probe_resume(["python", "train.py"], steps=16, stop_at=8)
    assert good.findings == [] and good.compared == 8 and good.first_difference is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]  # nothing written beside the user's script


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


def test_probe_epochs_pth_tar_folder_and_a_run_that_never_resumes(tmp_path, monkeypatch):
    """An epoch-based script saving ``*.pth.tar`` into a folder per epoch resumes through {checkpoint_dir};
    resumed without its shuffle generator, the data differs at the first step after the resume; the same
    script resumed without its argument trains from step 0 again: ``resume_restarted``, although the
    seeded rerun matches the straight run step for step."""
    (tmp_path / "fit.py").write_text(EPOCHS)
    monkeypatch.chdir(tmp_path)
    good = probe_resume(["python", "fit.py"], steps=12, stop_at=8, resume_arg="--from-dir {checkpoint_dir}")
    assert good.checkpoint == "runs/epoch1/last.pth.tar" and good.resumed_at == 8
    assert good.findings == [] and good.compared >= 4  # steps 8..11 at least (the run may end before its kill)
    reshuffled = probe_resume(["python", "fit.py"], steps=12, stop_at=8,
                              resume_arg="--from-dir {checkpoint_dir} --forget-order")
    [finding] = reshuffled.findings  # the batch under no_grad before the step is not the step's batch
    assert finding.kind == "resume_diverged" and finding.location == {"step": 8}
    assert finding.evidence["fields"][0] == "data" and "data order" in finding.message
    restarted = probe_resume(["python", "fit.py"], steps=12, stop_at=8, resume_arg="")
    [finding] = restarted.findings
    assert finding.kind == "resume_restarted" and restarted.resumed_at == 0
    assert "runs/epoch1/last.pth.tar" in finding.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fit.py"]
