"""`faultlib trace` names a module by its attribute path in the model that holds it, also when the script calls a
submodule on its own (``model.body(x)``), not by its index in that submodule (``2``)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

SCRIPT = """\
import torch
from torch import nn


class Root(nn.Module):
    def forward(self, x):
        return torch.sqrt(x)  # NaN where tanh is negative


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), Root())

    def forward(self, x):
        return self.body(x).sum(1)

    def embed(self, x):
        return self.body(x)  # the submodule called on its own, from a method


torch.manual_seed(0)
model = Head()
x = torch.randn(5, 3)
for step in range(2):
    {call}
"""


@pytest.mark.parametrize("call", ["model.body(x)", "model.embed(x)", "model(x); model.body(x)"])
def test_a_submodule_called_on_its_own_is_named_by_its_path_in_the_model(call, tmp_path):
    script = tmp_path / "names.py"
    script.write_text(SCRIPT.replace("{call}", call))
    proc = cli("trace", "--json", "--dump-dir", str(tmp_path / "d"), "--", "python", str(script), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    first = json.loads(proc.stdout)["first_nonfinite"]
    assert (first["module"], first["op"]) == ("body.2", "aten::sqrt"), first
