"""The legacy_checkpoint_objects shim through a real repro context: what it saves, what torch.load then refuses."""

from __future__ import annotations

import argparse

import pytest

from faultlib.errors import InjectionError
from faultlib.evidence import layout
from faultlib.evidence.reader import iter_spans
from faultlib.inject import InjectorSet, available, build
from faultlib.inject.data import through
from faultlib.repro import ReproContext

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")


def context(tmp_path, shims: list) -> ReproContext:
    faults = InjectorSet([build(name, params) for name, params in shims])
    return ReproContext(run_dir=tmp_path, run_id="r", case_id="c", phase="faulted" if shims else "control", seed=0,
                        params={}, faults=faults)


def payload() -> dict:
    model = torch.nn.Linear(3, 2)
    return {"model": model.state_dict(), "optimizer": {"state": {}, "param_groups": []}, "step": 7,
            "args": {"lr": 0.01, "hidden": 8, "name": "mlp"}, "best_acc": 0.93,
            "confusion": torch.tensor([[3, 1], [0, 4]])}


def save_through(ctx, tmp_path, state):
    ctx.attach(torch.nn.Linear(1, 1))
    try:
        saved = through(ctx, "checkpoint.save", state, step=7)
    finally:
        ctx.faults.revert()
        ctx.evidence.close()
    path = tmp_path / "ckpt.pt"
    torch.save(saved, path)
    return saved, path


def test_registered_with_a_closed_schema():
    assert "legacy_checkpoint_objects" in available()
    with pytest.raises(InjectionError, match="Additional properties"):
        build("legacy_checkpoint_objects", {"sparse": True})
    with pytest.raises(InjectionError, match="objects"):
        build("legacy_checkpoint_objects", {"objects": ["pickle_everything"]})


def test_control_saves_what_the_default_torch_load_reads(tmp_path):
    state = payload()
    saved, path = save_through(context(tmp_path, []), tmp_path, state)
    assert saved is state
    loaded = torch.load(path, map_location="cpu")  # weights_only=True, the default since torch 2.6
    assert loaded["args"] == state["args"] and loaded["best_acc"] == 0.93


def test_faulted_saves_namespace_and_numpy_objects_the_default_load_refuses(tmp_path):
    import pickle

    state = payload()
    ctx = context(tmp_path, [("legacy_checkpoint_objects", {})])
    saved, path = save_through(ctx, tmp_path, state)
    assert isinstance(state["args"], dict) and isinstance(state["confusion"], torch.Tensor)  # caller's dict kept
    assert saved["args"] == argparse.Namespace(lr=0.01, hidden=8, name="mlp")
    assert type(saved["best_acc"]) is np.float64 and saved["best_acc"] == 0.93
    assert isinstance(saved["confusion"], np.ndarray) and saved["confusion"].tolist() == [[3, 1], [0, 4]]
    assert saved["model"] is state["model"] and saved["step"] == 7 and saved["optimizer"] is state["optimizer"]
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path, map_location="cpu")
    [fault] = [s for _, s in iter_spans(tmp_path / layout.TRACES) if s.name == "faultlib.fault"]
    assert fault.attributes["faultlib.injector"] == "legacy_checkpoint_objects"
    assert sorted(fault.attributes["converted"]) == ["args:argparse.Namespace", "best_acc:numpy.float64",
                                                     "confusion:numpy.ndarray"]


def test_objects_and_keep_choose_what_is_converted(tmp_path):
    ctx = context(tmp_path, [("legacy_checkpoint_objects", {"objects": ["numpy_scalar"], "keep": ["model", "args"]})])
    saved, path = save_through(ctx, tmp_path, payload())
    assert isinstance(saved["args"], dict) and isinstance(saved["confusion"], torch.Tensor)
    assert type(saved["best_acc"]) is np.float64
    names = set(torch.serialization.get_unsafe_globals_in_checkpoint(str(path)))
    assert names and all(n.startswith("numpy") for n in names)  # a scalar only: no Namespace, no array
    assert "argparse.Namespace" not in names and "numpy.ndarray" not in names


def test_a_payload_with_nothing_to_convert_is_an_injection_error(tmp_path):
    ctx = context(tmp_path, [("legacy_checkpoint_objects", {})])
    with pytest.raises(InjectionError, match="nothing outside"):
        save_through(ctx, tmp_path, {"model": {}, "step": 3})
    ctx = context(tmp_path / "b", [("legacy_checkpoint_objects", {})])
    with pytest.raises(InjectionError, match="must be a dict"):
        save_through(ctx, tmp_path, [1, 2])
