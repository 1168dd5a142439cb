"""`faultlib check state-dict` black-box: real checkpoints of digits models in a temp directory, saved through
the real wrappers; exit codes 0/1/2, the JSON fields, and messages that name the file and key.

The main paths run ``python -m faultlib`` in a subprocess; the many exit-2 variants run the same CLI entry
point in this process (``faultlib.cli.app.main``), which saves a torch import per case.
"""

from __future__ import annotations

import json
import pickle

import pytest

from tests.conftest import cli

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")
nn = torch.nn

FIELDS = {"detector", "ok", "findings", "checkpoint", "format", "reference", "state_dict_location", "candidates",
          "remap", "before", "missing", "unexpected", "shape_mismatch", "renamed", "optimizer"}
MODEL_PY = '''
from torch import nn


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 16), nn.BatchNorm1d(16), nn.ReLU())
        self.classifier = nn.Linear(16, classes)

    def forward(self, x):
        return self.classifier(self.features(x))


class Reordered(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(64, 16)
        self.second = nn.Linear(16, 16)
        self.first = nn.Linear(16, 16)


def build():
    print("building the model")  # must not break --json
    return Net()


def build_small():
    return Net(classes=5)


def broken():
    raise ValueError("no GPU here")


def not_a_model():
    return {"weight": 1}
'''


class Boom:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Checkpoints of a digits MLP trained 20 Adam steps: plain, DataParallel+compile, reordered layers, bad files."""
    import importlib.util

    from sklearn.datasets import load_digits

    root = tmp_path_factory.mktemp("state_dict_check")
    (root / "model.py").write_text(MODEL_PY)
    spec = importlib.util.spec_from_file_location("check_sd_model", root / "model.py")
    user = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(user)
    x, y = load_digits(return_X_y=True)
    x, y = torch.tensor(x / 16.0, dtype=torch.float32), torch.tensor(y)
    torch.manual_seed(0)
    net = user.Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for step in range(20):
        idx = torch.arange(step * 32, step * 32 + 32)
        optimizer.zero_grad()
        nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
        optimizer.step()
    torch.save({"model": net.state_dict(), "optimizer": optimizer.state_dict(), "step": 20}, root / "plain.pt")
    wrapped = torch.compile(nn.DataParallel(net), backend="eager")
    torch.save({"state_dict": wrapped.state_dict(), "optimizer": optimizer.state_dict()}, root / "wrapped.pt")
    ordered = nn.Module()
    ordered.inp, ordered.first, ordered.second = nn.Linear(64, 16), nn.Linear(16, 16), nn.Linear(16, 16)
    opt = torch.optim.SGD(ordered.parameters(), lr=0.1, momentum=0.9)
    ordered.second(ordered.first(ordered.inp(x[:8]))).sum().backward()
    opt.step()
    torch.save({"model": ordered.state_dict(), "optimizer": opt.state_dict()}, root / "ordered.pt")
    data = (root / "plain.pt").read_bytes()
    (root / "truncated.pt").write_bytes(data[: len(data) // 3])
    (root / "lfs.pt").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n")
    (root / "evil.pt").write_bytes(pickle.dumps({"model": Boom(root / "EXECUTED")}))
    (root / "notes.txt").write_text("x")
    return root


def check(cwd, *args):
    proc = cli("check", "state-dict", *args, cwd=cwd, timeout=180)
    out = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None
    return proc, out


def in_process(capsys, *args):
    from faultlib.cli.app import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(["check", "state-dict", *args])
    captured = capsys.readouterr()
    return exited.value.code, captured.out, captured.err


def test_a_checkpoint_that_fits_exits_0(files):
    proc, out = check(files, "plain.pt", "--model", "model.py:build", "--json")
    assert proc.returncode == 0, proc.stderr
    assert set(out) == FIELDS and out["ok"] is True and out["findings"] == []
    assert out["state_dict_location"] == "model" and out["remap"] == [] and out["format"] == "torch_zip"
    assert out["before"] == {"missing": 0, "unexpected": 0} and out["optimizer"]["order_ok"] is True
    assert out["reference"] == {"model": "model.py:build", "class": "Net"}
    assert "building the model" in proc.stderr


def test_a_checkpoint_saved_through_dataparallel_and_compile_exits_1_with_the_remap(files):
    proc, out = check(files, "wrapped.pt", "--model", "model.py:build", "--json")
    assert proc.returncode == 1, proc.stderr
    assert out["state_dict_location"] == "state_dict"
    assert [(r["kind"], r["from"], r["to"], r["keys"]) for r in out["remap"]] == [
        ("prefix", "_orig_mod.module.", "", 9)]
    assert out["before"] == {"missing": 9, "unexpected": 9}
    assert out["missing"] == [] and out["unexpected"] == [] and out["shape_mismatch"] == {} and out["renamed"] == 9
    assert [f["kind"] for f in out["findings"]] == ["wrapper_prefix"]
    finding = out["findings"][0]
    assert finding["detector"] == "state-dict" and finding["severity"] == "warning"
    assert finding["location"] == {"key": "_orig_mod.module.features.0.weight"}
    human = check(files, "wrapped.pt", "--model", "model.py:build")[0]
    assert human.returncode == 1 and "remap: prefix '_orig_mod.module.' -> '' (9 keys)" in human.stdout
    assert "before remap: 9 missing, 9 unexpected" in human.stdout


def test_reordered_layers_and_a_reference_checkpoint(files, capsys):
    code, out, _ = in_process(capsys, str(files / "ordered.pt"), "--model", f"{files / 'model.py'}:Reordered", "--json")
    report = json.loads(out)
    assert code == 1 and [f["kind"] for f in report["findings"]] == ["optimizer_state_order"]
    assert report["optimizer"]["moved_count"] == 4 and report["optimizer"]["source"] == "checkpoint_order"
    code, out, _ = in_process(capsys, str(files / "wrapped.pt"), "--reference", str(files / "plain.pt"), "--json")
    report = json.loads(out)
    assert code == 1 and [r["from"] for r in report["remap"]] == ["_orig_mod.module."]
    assert report["reference"] == {"checkpoint": str(files / "plain.pt"), "state_dict_location": "model"}
    assert report["optimizer"]["order_ok"] is True
    code, out, _ = in_process(capsys, str(files / "plain.pt"), "--model", str(files / "model.py") + ":build_small",
                              "--json", "--fail-on", "critical")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True  # errors exist, none critical
    assert set(report["shape_mismatch"]) == {"classifier.weight", "classifier.bias"}
    assert {f["kind"] for f in report["findings"]} == {"shape_mismatch", "optimizer_state_mismatch"}
    code, out, _ = in_process(capsys, str(files / "plain.pt"), "--model", str(files / "model.py") + ":build",
                              "--key", "model", "--json")
    assert code == 0 and json.loads(out)["state_dict_location"] == "model"


@pytest.mark.parametrize("args, phrase", [
    (["truncated.pt", "--model", "model.py:build"], "truncated.pt: is a zip archive cut off before its directory"),
    (["lfs.pt", "--model", "model.py:build"], "lfs.pt: is not a checkpoint: a Git LFS pointer file"),
    (["evil.pt", "--model", "model.py:build"], "evil.pt: is a plain pickle (not written by torch.save) that imports"),
    (["notes.txt", "--model", "model.py:build"], "notes.txt: is not a checkpoint: a text file"),
    (["missing.pt", "--model", "model.py:build"], "missing.pt: file not found"),
    (["plain.pt", "--model", "nope.py:build"], "nope.py: file not found"),
    (["plain.pt", "--model", "notes.txt:build"], "notes.txt: --model: not a Python file"),
    (["plain.pt", "--model", "model.py"], "--model must be FILE.py:FACTORY"),
    (["plain.pt", "--model", "model.py:nope"], "model.py: nope: defines no 'nope'"),
    (["plain.pt", "--model", "model.py:broken"], "broken() raised ValueError: no GPU here"),
    (["plain.pt", "--model", "model.py:not_a_model"], "not_a_model() returned a dict, not a torch.nn.Module"),
    (["plain.pt"], "give exactly one of --model FILE.py:FACTORY or --reference CKPT2"),
    (["plain.pt", "--model", "model.py:build", "--reference", "plain.pt"], "give exactly one of"),
    (["plain.pt", "--model", "model.py:build", "--key", "optimizer"],
     "plain.pt: optimizer: 'optimizer' is a dict, not a state dict"),
    (["plain.pt", "--model", "model.py:build", "--key", "ema"], "plain.pt: ema: no 'ema' in the checkpoint"),
])
def test_bad_input_exits_2_naming_the_file_and_key(files, capsys, monkeypatch, args, phrase):
    monkeypatch.chdir(files)
    code, out, err = in_process(capsys, *args)
    assert code == 2 and phrase in err, err
    assert "Traceback" not in err
    assert not (files / "EXECUTED").exists(), "a pickle was unpickled"


def test_bad_input_as_json_and_in_a_subprocess(files):
    proc, out = check(files, "evil.pt", "--model", "model.py:build", "--json")
    assert proc.returncode == 2 and out["error"] == "UnloadableCheckpoint" and out["file"] == "evil.pt"
    assert "io.open" in out["message"] or "builtins.open" in out["message"]
    assert not (files / "EXECUTED").exists()
    assert "Traceback" not in proc.stderr
