"""`check state-dict --optimizer`: the saved optimizer state vs the optimizer the resume code rebuilds."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch

from tests.conftest import cli

CODE = textwrap.dedent("""
    import torch
    from torch import nn


    def build():
        return nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))


    def split(model, names=False):
        items = list(model.named_parameters())
        decay = [(n, p) if names else p for n, p in items if n.endswith("weight")]
        rest = [(n, p) if names else p for n, p in items if not n.endswith("weight")]
        return [{"params": decay}, {"params": rest, "weight_decay": 0.0}]


    def saved_order(model):
        return torch.optim.AdamW(split(model))


    def named(model):
        return torch.optim.AdamW(split(model, names=True))


    def declared_backwards(model):
        groups = split(model)
        groups[0]["params"][:2] = groups[0]["params"][1::-1]  # 0.weight and 2.weight swapped: both 8x8
        return torch.optim.AdamW(groups)


    def one_group(model):
        return torch.optim.AdamW(model.parameters())


    def head_only(model):
        return torch.optim.AdamW([{"params": [model[4].weight]}, {"params": [model[4].bias], "weight_decay": 0.0}])
""")


@pytest.fixture()
def files(tmp_path):
    import importlib.util

    (tmp_path / "code.py").write_text(CODE)
    spec = importlib.util.spec_from_file_location("code_for_test", tmp_path / "code.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for factory in ("saved_order", "named"):
        torch.manual_seed(0)
        model = module.build()
        opt = getattr(module, factory)(model)
        model(torch.randn(4, 8)).sum().backward()
        opt.step()
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, tmp_path / f"{factory}.pt")
    return tmp_path


def check(files, ckpt: str, factory: str) -> tuple[int, dict]:
    """The check in process (the function behind the command): (exit code it would give, its JSON)."""
    from faultlib.check.state_dict import command

    result = command.callback.__wrapped__(checkpoint=str(files / ckpt), model_target=f"{files / 'code.py'}:build",
                                          reference=None, key=None, optimizer_target=f"{files / 'code.py'}:{factory}")
    return (0 if result.ok() else 1), json.loads(json.dumps(result.to_json()))


def test_rebuilt_in_the_saved_order_is_silent(files):
    """The positional check alone would flag the weight/bias split; the rebuilt optimizer says it is fine."""
    for ckpt, factory in (("saved_order.pt", "saved_order"), ("named.pt", "named")):
        code, out = check(files, ckpt, factory)
        assert code == 0 and out["findings"] == [], f'{out["findings"]}'
        assert out["rebuilt_optimizer"]["current_sizes"] == out["rebuilt_optimizer"]["saved_sizes"] == [3, 3]


def test_same_shapes_in_another_order_is_named_with_the_mapping_by_param_names(files):
    code, out = check(files, "named.pt", "declared_backwards")
    assert code == 1
    [finding] = out["findings"]
    assert finding["kind"] == "optimizer_state_misplaced"
    assert finding["location"] == {"key": "2.weight", "index": 0}  # position 0 now holds 2.weight
    assert finding["evidence"]["silent"] == 2  # 0.weight and 2.weight are both 8x8: nothing would raise
    misplaced = {m["current"]: m["saved"] for m in finding["evidence"]["misplaced"]}
    assert misplaced == {"2.weight": "0.weight", "0.weight": "2.weight"}
    assert out["rebuilt_optimizer"]["mapping_source"] == "param_names"
    assert out["rebuilt_optimizer"]["mapping"]["2.weight"] == [0, 1]


def test_group_count_and_group_sizes(files):
    code, out = check(files, "saved_order.pt", "one_group")
    assert code == 1 and [f["kind"] for f in out["findings"]] == ["optimizer_group_count"]
    assert out["rebuilt_optimizer"]["current_sizes"] == [6] and out["rebuilt_optimizer"]["mapping"] is None
    code, out = check(files, "named.pt", "head_only")
    assert [(f["kind"], f["location"]) for f in out["findings"]] == [
        ("optimizer_group_size", {"index": 0}), ("optimizer_group_size", {"index": 1})]
    assert out["rebuilt_optimizer"]["mapping"] == {"4.weight": [0, 2], "4.bias": [1, 2]}


def test_optimizer_needs_a_model_and_a_factory_that_returns_an_optimizer(files):
    proc = cli("check", "state-dict", str(files / "named.pt"), "--reference", str(files / "named.pt"),
               "--optimizer", f"{files / 'code.py'}:named", cwd=files)
    assert proc.returncode == 2 and "--optimizer needs --model" in proc.stderr
    from faultlib.errors import InputError

    with pytest.raises(InputError, match="declared_backwards"):
        check(files, "named.pt", "declared_backwards_typo")
    (files / "bad.py").write_text("def build(model):\n    return 3\n")
    with pytest.raises(InputError, match="not a torch.optim.Optimizer"):
        from faultlib.check.optimizer_groups import rebuild_optimizer
        rebuild_optimizer(f"{files / 'bad.py'}:build", None)
