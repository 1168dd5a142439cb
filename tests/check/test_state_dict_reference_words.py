"""``check state-dict CKPT --reference CKPT2`` compares two checkpoints: its messages said "the model's 0.weight"
and its summary "state dict: model of v2.pt", as if a model had been given. They name the reference now, and the
summary says what was compared with what."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

torch = pytest.importorskip("torch")


def _check(*argv: str) -> tuple[int, str]:
    from faultlib.cli.app import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["check", "state-dict", *argv])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue()


@pytest.fixture
def checkpoints(tmp_path):
    old = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    new = torch.nn.Sequential(torch.nn.Linear(8, 12), torch.nn.ReLU(), torch.nn.Linear(12, 2))
    torch.save({"model": old.state_dict(), "step": 3}, tmp_path / "v1.pt")
    torch.save({"model": new.state_dict(), "step": 9}, tmp_path / "v2.pt")
    (tmp_path / "net.py").write_text("import torch\n\ndef build():\n    return torch.nn.Sequential(torch.nn.Linear(8, 12), "
                                     "torch.nn.ReLU(), torch.nn.Linear(12, 2))\n")
    return tmp_path


def test_a_reference_checkpoint_is_called_the_reference(checkpoints):
    code, text = _check(str(checkpoints / "v1.pt"), "--reference", str(checkpoints / "v2.pt"), "--json")
    out = json.loads(text)
    messages = [f["message"] for f in out["findings"] if f["kind"] == "shape_mismatch"]
    assert code == 1 and messages and all("the reference's" in m and "model's" not in m for m in messages), messages
    code, text = _check(str(checkpoints / "v1.pt"), "--reference", str(checkpoints / "v2.pt"))
    assert "state dict: 'model' in" in text and "v1.pt" in text, text
    assert "compared with: the reference checkpoint's state dict ('model' in" in text and "v2.pt" in text, text


def test_a_model_is_still_called_the_model(checkpoints):
    code, text = _check(str(checkpoints / "v1.pt"), "--model", f"{checkpoints / 'net.py'}:build", "--json")
    messages = [f["message"] for f in json.loads(text)["findings"] if f["kind"] == "shape_mismatch"]
    assert code == 1 and messages and all("the model's" in m for m in messages), messages
    code, text = _check(str(checkpoints / "v1.pt"), "--model", f"{checkpoints / 'net.py'}:build")
    assert "compared with: the model" in text and "(Sequential)" in text, text
