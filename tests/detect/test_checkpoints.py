"""Checkpoint files: every format loads, every kind of bad file is named (and never unpickled), the newest
loadable one is found, and resuming skips the ones that do not load."""

from __future__ import annotations

import argparse
import io
import json
import os
import pickle
import struct
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.errors import InputError

torch = pytest.importorskip("torch")
nn = torch.nn

from faultlib.detect.checkpoints.scan import (  # noqa: E402
    KINDS, UnloadableCheckpoint, inspect_file, load_bytes, pickle_globals, read_checkpoint, resume_latest, scan,
    step_in_name)


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 8), nn.BatchNorm1d(8), nn.Linear(8, 10))


def saved(obj, **kwargs) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer, **kwargs)
    return buffer.getvalue()


def safetensors_bytes(tensors: dict, metadata=None, *, header_patch=None) -> bytes:
    """A safetensors file built by hand (format: u64 LE header size, JSON header, little-endian data)."""
    codes = {torch.float32: "F32", torch.int64: "I64", torch.bfloat16: "BF16", torch.bool: "BOOL"}
    header, data = {}, b""
    for name, tensor in tensors.items():
        raw = tensor.contiguous().view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
        header[name] = {"dtype": codes[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata is not None:
        header["__metadata__"] = metadata
    if header_patch:
        header_patch(header)
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def kind_of(data: bytes, tmp_path, name="ckpt.pt") -> tuple[str, UnloadableCheckpoint]:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(UnloadableCheckpoint) as raised:
        read_checkpoint(path)
    assert raised.value.path == str(path) and raised.value.kind in KINDS
    return raised.value.kind, raised.value


# ------------------------------------------------------------------------------------------------ formats


def test_torch_zip_legacy_and_safetensors_load_on_the_cpu(tmp_path):
    state = model().state_dict()
    for name, data, fmt in (("zip.pt", saved({"model": state, "step": 7}), "torch_zip"),
                            ("legacy.pt", saved({"model": state, "step": 7}, _use_new_zipfile_serialization=False),
                             "torch_legacy")):
        (tmp_path / name).write_bytes(data)
        loaded = read_checkpoint(tmp_path / name)
        assert loaded.format == fmt and loaded.content["step"] == 7 and loaded.size == len(data)
        assert all(torch.equal(loaded.content["model"][k], v) for k, v in state.items())
    tensors = {"w": torch.randn(3, 4), "i": torch.arange(5), "h": torch.randn(2).bfloat16(),
               "b": torch.tensor([True, False]), "empty": torch.zeros(0, 3)}
    (tmp_path / "m.safetensors").write_bytes(safetensors_bytes(tensors, {"format": "pt"}))
    loaded = read_checkpoint(tmp_path / "m.safetensors")
    assert loaded.format == "safetensors" and loaded.metadata == {"format": "pt"}
    assert set(loaded.content) == set(tensors)
    assert all(torch.equal(loaded.content[k], v) and loaded.content[k].dtype == v.dtype for k, v in tensors.items())


def test_files_written_by_the_safetensors_library_read_the_same(tmp_path):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    state = {k: v.contiguous() for k, v in model().state_dict().items()}
    safetensors_torch.save_file(state, tmp_path / "model.safetensors", metadata={"step": "3"})
    loaded = read_checkpoint(tmp_path / "model.safetensors")
    reference = safetensors_torch.load_file(tmp_path / "model.safetensors")
    assert loaded.metadata == {"step": "3"} and set(loaded.content) == set(reference)
    assert all(torch.equal(loaded.content[k], reference[k]) for k in reference)


# --------------------------------------------------------------------------------------------- bad files


@pytest.mark.parametrize("make, kind, phrase", [
    (lambda: b"", "empty_file", "is empty (0 bytes)"),
    (lambda: saved(model().state_dict())[:1000], "truncated", "cut off before its directory"),
    (lambda: saved(model().state_dict(), _use_new_zipfile_serialization=False)[:100], "truncated", "ends early"),
    (lambda: saved(model().state_dict(), _use_new_zipfile_serialization=False)[:1500], "truncated", "unexpected EOF"),
    (lambda: b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 9\n", "not_a_checkpoint",
     "Git LFS pointer"),
    (lambda: b"<!DOCTYPE html><html><body>Sign in</body></html>", "not_a_checkpoint", "HTML page"),
    (lambda: b"\x93NUMPY\x01\x00v\x00{'descr': '<f4'}", "not_a_checkpoint", "NumPy"),
    (lambda: b"step,loss\n1,0.5\n", "not_a_checkpoint", "a text file"),
    (lambda: bytes(range(7, 200)), "not_a_checkpoint", "unknown bytes"),
    (lambda: b"\0\0\0\0abc\n" * 8, "not_a_checkpoint", "unknown bytes 00 00 00 00"),  # UTF-8, but NULs: not text
    (lambda: struct.pack("<Q", 1 << 62) + b'{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}',
     "corrupt", "declare a 4611686018427387904-byte header"),  # was 'a text file'
    (lambda: struct.pack("<Q", 1) + b'{"w": {}}', "corrupt", "declare a 1-byte header"),
    (lambda: safetensors_bytes({"w": torch.ones(4)})[:-3], "truncated", "safetensors file cut off"),
    (lambda: struct.pack("<Q", 500) + b'{"w": {', "truncated", "inside its 500-byte header"),
])
def test_a_bad_file_is_named_by_kind(tmp_path, make, kind, phrase):
    found, error = kind_of(make(), tmp_path)
    assert found == kind and phrase in error.message, error.message


def test_zip_archives_that_are_not_state_dicts(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    kind, error = kind_of(buffer.getvalue(), tmp_path)
    assert kind == "not_a_checkpoint" and "without data.pkl" in error.message
    scripted = io.BytesIO()
    torch.jit.save(torch.jit.script(nn.Linear(2, 2)), scripted)
    kind, error = kind_of(scripted.getvalue(), tmp_path)
    assert kind == "not_a_checkpoint" and error.format == "torchscript" and "TorchScript" in error.message


def test_a_flipped_byte_inside_tensor_data_fails_the_crc(tmp_path):
    data = bytearray(saved({"w": torch.ones(1000)}))
    data[data.index(b"data/0") + 200] ^= 0xFF  # inside the record after the local header
    torch.load(io.BytesIO(bytes(data)), weights_only=True)  # torch itself loads the damaged tensor
    kind, error = kind_of(bytes(data), tmp_path)
    assert kind == "corrupt" and "data/0 fails its CRC-32 check" in error.message


@pytest.mark.parametrize("patch, phrase", [
    (lambda h: h["w"].update(dtype="F128"), "unknown dtype"),
    (lambda h: h["w"].update(shape=[3]), "16 bytes for F32 [3]"),
    (lambda h: h["w"].update(data_offsets=[4, 20]), "starts at byte 4"),
    (lambda h: h["w"].update(extra=1), "expected exactly dtype, shape, data_offsets"),
    (lambda h: h.update(__metadata__={"a": 1}), "__metadata__"),
    (lambda h: h["w"].update(shape=[-4]), "non-negative"),
])
def test_a_safetensors_header_that_lies_is_refused(tmp_path, patch, phrase):
    kind, error = kind_of(safetensors_bytes({"w": torch.ones(4)}, header_patch=patch), tmp_path, "m.safetensors")
    assert kind == "corrupt" and phrase in error.message, error.message


def test_safetensors_header_json_is_the_hardened_reader(tmp_path):
    text = b'{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {}}'
    kind, error = kind_of(struct.pack("<Q", len(text)) + text + b"\0" * 4, tmp_path)
    assert kind == "corrupt" and "duplicate key 'w'" in error.message
    trailing = safetensors_bytes({"w": torch.ones(1)}) + b"junk"
    assert "bytes after its last tensor" in kind_of(trailing, tmp_path)[1].message


class Boom:
    """Unpickling this would create a marker file: the tests check that nothing ever does."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_unsafe_globals_are_listed_and_never_unpickled(tmp_path):
    marker = tmp_path / "EXECUTED"
    cases = {
        "zip": saved({"model": model().state_dict(), "args": argparse.Namespace(lr=0.1)}),
        "legacy": saved({"args": argparse.Namespace(lr=0.1)}, _use_new_zipfile_serialization=False),
        "pickle": pickle.dumps({"payload": Boom(marker)}),
        "zip_payload": saved({"payload": Boom(marker)}),
    }
    expected = {"zip": ["argparse.Namespace"], "legacy": ["argparse.Namespace"], "pickle": ["io.open"],
                "zip_payload": ["io.open"]}
    for name, data in cases.items():
        kind, error = kind_of(data, tmp_path, f"{name}.pt")
        assert kind == "unsafe_globals", f"{name}; {error.message}"
        assert [g.replace("builtins.", "io.") for g in error.unsafe_globals] == expected[name], name
        assert "when unpickled" in error.message
    assert not marker.exists(), "a checkpoint was unpickled with its globals"
    whole = kind_of(saved(model()), tmp_path, "whole.pt")[1]
    assert "torch.nn.modules.linear.Linear" in whole.unsafe_globals
    assert "whole pickled model" in whole.message and "model.state_dict()" in whole.message
    assert pickle_globals(pickle.dumps({"a": [1, 2]})) == []


def test_symlinks_and_oversized_files_are_not_read(tmp_path):
    real = tmp_path / "real.pt"
    real.write_bytes(saved({"w": torch.ones(2)}))
    (tmp_path / "link.pt").symlink_to(real)
    with pytest.raises(InputError, match="symbolic link") as raised:
        read_checkpoint(tmp_path / "link.pt")
    assert not isinstance(raised.value, UnloadableCheckpoint)
    with pytest.raises(InputError, match="the limit is 100 bytes"):
        read_checkpoint(real, max_bytes=100)
    assert inspect_file(tmp_path / "link.pt").kind == "unreadable"
    with pytest.raises(InputError, match="file not found"):
        read_checkpoint(tmp_path / "nope.pt")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_damaged_checkpoints_fail_as_input_errors(data):
    """Cut or flip bytes anywhere in a real checkpoint of each format: it loads or raises UnloadableCheckpoint,
    never another exception."""
    originals = _originals()
    name = data.draw(st.sampled_from(sorted(originals)))
    raw = bytearray(originals[name])
    if data.draw(st.booleans()):
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    else:
        for _ in range(data.draw(st.integers(1, 4))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    try:
        load_bytes(bytes(raw), f"fuzz-{name}")
    except UnloadableCheckpoint as exc:
        assert exc.kind in KINDS


_CACHE: dict[str, bytes] = {}


def _originals() -> dict[str, bytes]:
    if not _CACHE:
        state = model().state_dict()
        _CACHE.update(zip=saved({"model": state, "step": 1}),
                      legacy=saved(state, _use_new_zipfile_serialization=False),
                      safetensors=safetensors_bytes({k: v for k, v in state.items() if v.dtype == torch.float32}))
    return _CACHE


# ---------------------------------------------------------------------------------- many files, resuming


def test_step_in_name():
    assert step_in_name("ckpt-000200.pt") == 200
    assert step_in_name("epoch=3-step=1000.ckpt") == 1000
    assert step_in_name(".ckpt-000200.pt.tmp-4242") == 200
    assert step_in_name("checkpoint_epoch_5.pth") == 5
    assert step_in_name("last.ckpt") is None and step_in_name("model.safetensors") is None


def write_run(directory, *, truncate_newest=True):
    directory.mkdir(parents=True, exist_ok=True)
    net = model()
    for step in (100, 200, 300):
        (directory / f"ckpt-{step:06d}.pt").write_bytes(saved({"model": net.state_dict(), "step": step}))
    if truncate_newest:
        newest = directory / "ckpt-000300.pt"
        newest.write_bytes(newest.read_bytes()[:5000])
    (directory / ".ckpt-000400.pt.tmp-99").write_bytes(b"PK\x03\x04 half")
    (directory / "notes.txt").write_text("not a checkpoint name: ignored")
    (directory / "partial").mkdir()


def test_scan_orders_by_step_and_names_where_to_resume(tmp_path):
    write_run(tmp_path / "run")
    result = scan([tmp_path / "run"])
    assert result.order == "step"
    assert [os.path.basename(s.file) for s in result.files] == [".ckpt-000400.pt.tmp-99", "ckpt-000300.pt",
                                                               "ckpt-000200.pt", "ckpt-000100.pt"]
    assert [s.loads for s in result.files] == [False, False, True, True]
    assert result.newest_loadable.saved_step == 200
    fields = result.fields()
    assert fields["newest_loadable"] == {"file": str(tmp_path / "run" / "ckpt-000200.pt"), "step": 200,
                                         "saved_step": 200}
    kinds = [f.kind for f in result.findings()]
    assert kinds == ["truncated", "truncated", "newest_not_loadable"]
    warning = result.findings()[-1]
    assert warning.severity.value == "warning" and "resume from ckpt-000200.pt (step 200)" in warning.message
    assert json.dumps(fields, allow_nan=False)


def test_scan_of_files_without_steps_orders_by_mtime_and_reports_nothing_loadable(tmp_path):
    (tmp_path / "a.pt").write_bytes(b"")
    (tmp_path / "b.pt").write_bytes(b"garbage")
    os.utime(tmp_path / "a.pt", ns=(1, 1))
    result = scan([tmp_path / "a.pt", tmp_path / "b.pt"])
    assert result.order == "mtime" and [os.path.basename(s.file) for s in result.files] == ["b.pt", "a.pt"]
    assert result.newest_loadable is None
    assert [f.kind for f in result.findings()] == ["not_a_checkpoint", "empty_file", "no_loadable_checkpoint"]
    assert result.findings()[-1].severity.value == "critical"


def test_scan_refuses_missing_paths_and_empty_directories(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        scan([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no checkpoint files"):
        scan([tmp_path / "empty"])


def test_a_symlink_in_the_directory_is_reported_not_followed(tmp_path):
    write_run(tmp_path / "run", truncate_newest=False)
    os.symlink(tmp_path / "run" / "ckpt-000100.pt", tmp_path / "run" / "ckpt-000500.pt")
    result = scan([tmp_path / "run"])
    assert result.files[0].file.endswith("ckpt-000500.pt") and result.files[0].kind == "unreadable"
    assert result.newest_loadable.step == 300
    said = next(f.message for f in result.findings() if f.kind == "unreadable")
    assert said.startswith("ckpt-000500.pt is a symbolic link") and said.count("ckpt-000500.pt") == 1, said


def test_resume_latest_skips_what_does_not_load(tmp_path):
    write_run(tmp_path / "run")
    resume = resume_latest(tmp_path / "run")
    assert resume.step == 200 and resume.checkpoint.content["step"] == 200
    assert resume.checkpoint.path == tmp_path / "run" / "ckpt-000200.pt"
    assert [(os.path.basename(s.file), s.kind) for s in resume.skipped] == [
        (".ckpt-000400.pt.tmp-99", "truncated"), ("ckpt-000300.pt", "truncated")]
    assert resume_latest(tmp_path / "missing") is None
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.pt").write_bytes(b"")
    assert resume_latest(tmp_path / "bad") is None


def test_resume_latest_never_reads_older_files(tmp_path):
    write_run(tmp_path / "run", truncate_newest=False)
    (tmp_path / "run" / "ckpt-000100.pt").write_bytes(b"")  # would be reported if it were read
    resume = resume_latest(tmp_path / "run")
    assert resume.step == 300 and [os.path.basename(s.file) for s in resume.skipped] == [".ckpt-000400.pt.tmp-99"]
