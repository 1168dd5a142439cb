"""`faultlib check resume` (static): each kind found on small scripts, healthy look-alikes silent."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from tests.conftest import cli
from faultlib.detect.training.resume import analyze_resume_source

HEAD = """
import torch
from torch import nn
"""

LOOP = """
    for epoch in range(start, 10):
        for x, y in loader:
            optimizer.zero_grad()
            loss = model(x).sum()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()
"""


def script(body: str) -> str:
    return HEAD + textwrap.dedent(body)


def kinds(source: str) -> list[tuple[str, str]]:
    return sorted((f.kind, f.evidence.get("object", "")) for f in analyze_resume_source(source, "t.py").findings)


SETUP = """
def main(args):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    scaler = torch.amp.GradScaler("cpu")
    start = 0
"""

SAVE_ALL = """
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "scaler": scaler.state_dict(), "epoch": epoch + 1}, path)
"""


def test_scheduler_saved_but_not_restored_and_scaler_never_saved():
    source = script(SETUP + """
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start = ckpt["epoch"]
""" + LOOP + """
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}, path)
""")
    report = analyze_resume_source(source, "t.py")
    assert kinds(source) == [("state_not_restored", "scheduler"), ("state_not_saved", "scaler")]
    restored = next(f for f in report.findings if f.kind == "state_not_restored")
    load_line = source.splitlines().index("        ckpt = torch.load(args.resume, weights_only=True)") + 1
    assert restored.location == {"file": "t.py", "line": load_line, "function": "main"}
    objects = {o.name: o for o in report.objects}
    assert objects["scheduler"].kind == "scheduler" and objects["scheduler"].saved and not objects["scheduler"].restored
    assert objects["epoch"].kind == "counter" and objects["epoch"].restored  # range(start, ...) from the checkpoint


def test_everything_saved_and_restored_is_silent():
    source = script(SETUP + """
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        scaler.load_state_dict(ckpt["scaler"])
        start = ckpt["epoch"]
""" + LOOP + SAVE_ALL)
    assert kinds(source) == []


def test_counter_restarting_from_zero_is_found():
    source = script(SETUP + """
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        scaler.load_state_dict(ckpt["scaler"])
""" + LOOP.replace("range(start, 10)", "range(10)") + """
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "scaler": scaler.state_dict()}, path)
""")
    assert kinds(source) == [("state_not_saved", "epoch")]


def test_scheduler_created_after_the_optimizer_load_is_restored_before_created():
    source = script("""
def main(args):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    start = 0
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scaler.load_state_dict(ckpt["scaler"])
        start = ckpt["epoch"]
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=100)
""" + LOOP + SAVE_ALL)
    report = analyze_resume_source(source, "t.py")
    assert kinds(source) == [("restored_before_created", "scheduler")]
    finding = report.findings[0]
    created = next(i for i, line in enumerate(source.splitlines(), 1) if "OneCycleLR" in line)
    assert finding.location["line"] == created and finding.evidence["optimizer"] == "optimizer"


def test_scheduler_created_after_the_load_and_then_restored_is_silent():
    source = script("""
def main(args):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    start = 0
    ckpt = torch.load(args.resume, weights_only=True) if args.resume else None
    if ckpt:
        optimizer.load_state_dict(ckpt["optimizer"])
        model.load_state_dict(ckpt["model"])
        scaler.load_state_dict(ckpt["scaler"])
        start = ckpt["epoch"]
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 5)
    if ckpt:
        scheduler.load_state_dict(ckpt["scheduler"])
""" + LOOP + SAVE_ALL)
    assert kinds(source) == []


def test_object_created_again_after_its_restore():
    source = script(SETUP + """
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        scaler.load_state_dict(ckpt["scaler"])
        start = ckpt["epoch"]
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)
""" + LOOP + SAVE_ALL)
    assert kinds(source) == [("restored_before_created", "scaler")]


def test_helpers_and_methods_are_followed():
    """State saved through a method's returned dict and restored through a helper's parameters."""
    source = script("""
import random

class Trainer:
    def __init__(self):
        self.model = nn.Linear(4, 2)
        self.opt = torch.optim.Adam(self.model.parameters())
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: 1.0)
        self.gen = torch.Generator().manual_seed(0)

    def state(self, step):
        return {"step": step, "model": self.model.state_dict(), "opt": self.opt.state_dict(),
                "gen": self.gen.get_state()}

    def train(self, start, steps):
        for step in range(start, steps):
            self.opt.step()
            self.sched.step()
            if step % 10 == 0:
                save(self.state(step), "ckpt.pt")


def save(state, path):
    torch.save(state, path)


def restore(model, opt, path):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["opt"])
    return ckpt["step"]


t = Trainer()
t.train(restore(t.model, t.opt, "ckpt.pt"), 100)
""")
    assert kinds(source) == [("state_not_restored", "gen"), ("state_not_saved", "sched")]


def test_rng_state_named_when_the_script_seeds_and_shuffles():
    body = SETUP + """
    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(ds, shuffle=True)
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        scaler.load_state_dict(ckpt["scaler"])
        start = ckpt["epoch"]
        RESTORE
""" + LOOP + SAVE_ALL
    missing = analyze_resume_source(script(body.replace("RESTORE", "pass")), "t.py").findings
    assert [(f.kind, f.evidence["object_kind"], f.severity.value) for f in missing] == [
        ("state_not_saved", "rng_torch", "info")]
    healthy = script(body.replace("RESTORE", 'torch.set_rng_state(ckpt["rng"])').replace(
        '"epoch": epoch + 1}', '"epoch": epoch + 1, "rng": torch.get_rng_state()}'))
    assert kinds(healthy) == []


def test_checkpoints_without_a_resume_path():
    source = script(SETUP + LOOP + SAVE_ALL)
    assert kinds(source) == [("no_resume_path", "")]


def test_a_model_export_alone_is_not_a_checkpoint():
    source = script(SETUP + LOOP + """
    torch.save(model.state_dict(), "final.pt")
""")
    assert kinds(source) == []


def test_lightning_and_hf_trainer_state_is_implicit():
    lightning = """
import lightning as L
import torch

class Module(L.LightningModule):
    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters())
        return [opt], [torch.optim.lr_scheduler.StepLR(opt, 1)]

L.Trainer(max_epochs=3).fit(Module(), ckpt_path="last")
"""
    hf = """
from transformers import Trainer, TrainingArguments
trainer = Trainer(model=model, args=TrainingArguments("out"), train_dataset=ds)
trainer.train(resume_from_checkpoint=True)
"""
    for source, framework in ((lightning, "lightning"), (hf, "transformers.Trainer")):
        report = analyze_resume_source(source, "t.py")
        assert report.findings == [] and report.implicit == [framework]


def test_accelerate_state_follows_prepare():
    source = script("""
from accelerate import Accelerator
acc = Accelerator()
model = nn.Linear(4, 2)
optimizer = torch.optim.AdamW(model.parameters())
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer)
ema = ModelEmaV2(model)
model, optimizer, scheduler = acc.prepare(model, optimizer, scheduler)
if resume:
    acc.load_state(resume)
for step in range(start, 100):
    optimizer.step()
    scheduler.step()
    ema.update(model)
    if step % 50 == 0:
        acc.save_state(f"ckpt_{step}")
""")
    report = analyze_resume_source(source, "t.py")
    assert kinds(source) == [("state_not_saved", "ema")]
    assert report.implicit == ["accelerate"]


#: a resume path that restores the model, optimizer, scheduler and GradScaler and the epoch
RESUME_ALL = """
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        scaler.load_state_dict(ckpt["scaler"])
        start = ckpt["epoch"]
"""


def test_cli_json_and_checkpoint_contents(tmp_path):
    import torch

    train = tmp_path / "train.py"
    train.write_text(script(SETUP + RESUME_ALL + LOOP + SAVE_ALL))
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                "epoch": 3}, tmp_path / "ckpt.pt")
    result = cli("check", "resume", str(train), "--checkpoint", str(tmp_path / "ckpt.pt"), "--json", cwd=tmp_path)
    out = json.loads(result.stdout)
    assert result.returncode == 1, result.stderr
    assert {k["key"]: k["holds"] for k in out["checkpoint"]["keys"]} == {
        "model": "model", "optimizer": "optimizer", "scheduler": "scheduler", "epoch": "counter"}
    assert [(f["kind"], f["evidence"]["object"]) for f in out["findings"]] == [("checkpoint_lacks_state", "scaler")]


@pytest.mark.parametrize("name, content, message", [("train.py", "def f(:\n", "is not valid Python (line 1"),
                                                     ("train.py", "", "is empty"),
                                                     ("train.txt", "x = 1\n", "is not a Python script")])
def test_bad_input_is_an_input_error(tmp_path, name, content, message):
    """InputError: the CLI's one handler turns it into exit 2 with this message (tests/cli covers the handler)."""
    from faultlib.detect.training.resume import analyze_resume_file
    from faultlib.errors import InputError

    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=re.escape(message)):
        analyze_resume_file(str(path))


def test_helpers_of_other_files_and_closed_form_restores():
    """utils.save_on_master / misc.load_model / smart_resume live in other files: what is passed to them counts;
    a LambdaLR restored by `scheduler.last_epoch = start - 1` is restored; the GradScaler passed to an external
    train_one_epoch is used by the loop."""
    body = """
import utils
from engine import train_one_epoch

def main(args):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.AdamW(model.parameters())
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.9 ** e)
    scaler = torch.amp.GradScaler("cpu")
    start = 0
    if args.resume:
        start = utils.smart_resume(torch.load(args.resume, weights_only=True), optimizer, model)
    scheduler.last_epoch = start - 1
    for epoch in range(start, 10):
        train_one_epoch(model, optimizer, scaler)
        scheduler.step()
        utils.save_on_master({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                              "epoch": epoch SCALER}, "ckpt.pt")
"""
    assert kinds(script(body.replace("SCALER", ""))) == [("state_not_saved", "scaler")]
    healthy = body.replace("SCALER", ', "scaler": scaler.state_dict()').replace(
        "optimizer, model)", "optimizer, model, scaler)")
    assert kinds(script(healthy)) == []


def test_state_followed_by_value_through_instances_parameters_and_past_an_early_return():
    """Saves and restores are followed by value on the shared interpreter: the scheduler reaches ``torch.save``
    two calls deep under other names (``write(box, ...)`` -> ``Box.state()`` -> ``self.s``) and is restored
    through an alias of a parameter (``current = sched``: the name-matching index called it not restored), and
    the training loop after ``if args.eval: ...; return`` is still read. Only the GradScaler is not saved."""
    source = script(SETUP + """
    if args.eval:
        print(model(torch.zeros(1, 4)))
        return
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        restore(model, optimizer, scheduler, ckpt)
        start = ckpt["epoch"]
    box = Box(model, optimizer, scheduler)
""" + LOOP + """
        write(box, epoch + 1, "last.pt")


class Box:
    def __init__(self, m, o, s):
        self.m, self.o, self.s = m, o, s

    def state(self, at):
        return {"m": self.m.state_dict(), "o": self.o.state_dict(), "s": self.s.state_dict(), "at": at}


def write(holder, at, path):
    torch.save(holder.state(at), path)


def restore(net, opt, sched, ckpt):
    net.load_state_dict(ckpt["m"])
    opt.load_state_dict(ckpt["o"])
    current = sched  # an alias: the same object, under a name no creation has
    current.load_state_dict(ckpt["s"])
""")
    assert kinds(source) == [("state_not_saved", "scaler")]


@pytest.mark.parametrize("flag, expected", [("resume", [("state_not_saved", "optimizer")]), ("load", [])])
def test_weights_only_restore_is_a_resume_only_when_the_script_says_so(flag, expected):
    """``if args.resume: model.load_state_dict(...)`` with the optimizer never saved: the resumed run restarts its
    moments (makemore's --resume). The same restore under ``--load`` is a fine-tuning start: silent."""
    source = script(f"""
def main(args):
    model = nn.Linear(4, 2)
    if args.{flag}:
        model.load_state_dict(torch.load("model.pt", weights_only=True))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    torch.save(model.state_dict(), "model.pt")
""")
    assert kinds(source) == expected


def test_a_script_that_never_checkpoints_says_so_instead_of_a_bare_ok(tmp_path):
    train = tmp_path / "train.py"  # a loop with a model, an optimizer and a step counter, and no torch.save at all
    train.write_text(textwrap.dedent("""\
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        step = 0
        for x in torch.randn(10, 4):
            opt.zero_grad(); model(x).sum().backward(); opt.step(); step += 1
        """))
    result = cli("check", "resume", str(train), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "checkpointing: none found" in result.stdout and "no resume to check" in result.stdout
    saving = tmp_path / "saving.py"
    saving.write_text(train.read_text() + "    torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), "
                      "'step': step}, 'ckpt.pt')\n")
    assert "checkpointing: none found" not in cli("check", "resume", str(saving), cwd=tmp_path).stdout
