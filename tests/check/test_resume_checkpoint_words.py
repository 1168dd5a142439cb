"""``check resume --checkpoint``: a finding about state the file lacks read "a run resumed from it torch's global RNG
restarts" and "a run resumed from it its moments ... restart"; it reads as a sentence now."""

from __future__ import annotations

import json

import pytest

from tests.check.test_check_resume import LOOP, RESUME_ALL, SAVE_ALL, SETUP, cli, script

torch = pytest.importorskip("torch")


def test_a_checkpoint_that_lacks_the_scaler_says_so_in_a_sentence(tmp_path):
    train = tmp_path / "train.py"
    train.write_text(script(SETUP + RESUME_ALL + LOOP + SAVE_ALL))
    model = torch.nn.Linear(4, 2)
    torch.save({"model": model.state_dict(), "epoch": 3}, tmp_path / "ckpt.pt")
    result = cli("check", "resume", str(train), "--checkpoint", str(tmp_path / "ckpt.pt"), "--json", cwd=tmp_path)
    messages = [f["message"] for f in json.loads(result.stdout)["findings"] if f["kind"] == "checkpoint_lacks_state"]
    assert messages and all("after a resume from this file, " in m for m in messages), messages
    assert not any("resumed from it its" in m or "resumed from it torch" in m for m in messages), messages
