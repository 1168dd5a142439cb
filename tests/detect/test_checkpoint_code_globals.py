"""A checkpoint whose pickle calls a command-running global (``os.system``) is named as such, and the advice never
tells the user to allow it; a harmless custom global (``argparse.Namespace``) keeps the add_safe_globals advice."""

from __future__ import annotations

import argparse
import io
import os
import pickle

import pytest

torch = pytest.importorskip("torch")

from faultlib.detect.checkpoints.reader import runs_code  # noqa: E402
from faultlib.detect.checkpoints.scan import UnloadableCheckpoint, read_checkpoint  # noqa: E402


class Shell:
    """Unpickling this would run a shell command that creates ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _refusal(path) -> UnloadableCheckpoint:
    with pytest.raises(UnloadableCheckpoint) as raised:
        read_checkpoint(path)
    return raised.value


def _saved(obj, **kwargs) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer, **kwargs)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt", ["zip", "legacy", "pickle"])
def test_a_command_running_global_is_never_advised_to_be_allowed(tmp_path, fmt):
    marker = tmp_path / "RAN"
    payload = {"weights": torch.zeros(2), "hook": Shell(marker)}
    data = {"zip": lambda: _saved(payload),
            "legacy": lambda: _saved(payload, _use_new_zipfile_serialization=False),
            "pickle": lambda: pickle.dumps({"hook": Shell(marker)})}[fmt]()
    path = tmp_path / f"{fmt}.pt"
    path.write_bytes(data)
    error = _refusal(path)
    assert error.kind == "unsafe_globals", error.message
    assert any(name.endswith(".system") for name in error.unsafe_globals), error.unsafe_globals
    assert "add_safe_globals([" not in error.message and "if you trust" not in error.message, error.message
    assert "run a command or code" in error.message, error.message
    assert not marker.exists(), "the checkpoint was unpickled"


def test_a_harmless_custom_global_keeps_the_allow_list_advice(tmp_path):
    path = tmp_path / "args.pt"
    path.write_bytes(_saved({"args": argparse.Namespace(lr=0.1), "w": torch.zeros(2)}))
    error = _refusal(path)
    assert error.unsafe_globals == ["argparse.Namespace"]
    assert "add_safe_globals" in error.message and "run a command" not in error.message, error.message


@pytest.mark.parametrize("name, expected", [
    ("posix.system", True), ("nt.system", True), ("subprocess.Popen", True), ("builtins.eval", True),
    ("builtins.getattr", True), ("io.open", True), ("operator.methodcaller", True), ("types.CodeType", True),
    ("argparse.Namespace", False), ("numpy.core.multiarray._reconstruct", False), ("numpy.dtype", False),
    ("pathlib.PosixPath", False), ("io.BytesIO", False), ("builtins.set", False), ("collections.OrderedDict", False),
    ("torch.nn.modules.linear.Linear", False), ("types.SimpleNamespace", False)])
def test_runs_code_names_the_globals_that_execute(name, expected):
    assert runs_code(name) is expected
