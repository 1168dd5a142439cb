"""Checkpoints are mapped, never read whole: a huge or lying file is checked with memory that does not grow
with its size; a legacy pickle that calls a function is named for it, not called corrupt."""

from __future__ import annotations

import json
import struct
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

PEAK = """
import resource, sys
from faultlib.detect.checkpoints.reader import read_checkpoint
from faultlib.errors import InputError
try:
    loaded = read_checkpoint(sys.argv[1])
    result = {"format": loaded.format, "tensors": len(loaded.content)}
except InputError as exc:
    result = {"error": exc.message, "kind": getattr(exc, "kind", None)}
# VmHWM is this program's own high-water mark; ru_maxrss would also count the parent's resident memory at
# fork (Linux keeps it across exec), so a 1 GiB pytest worker made a 60 MiB read look like 1.1 GiB.
try:
    status = open("/proc/self/status").read()
    result["peak_mib"] = int(status.split("VmHWM:")[1].split()[0]) // 1024
except OSError:
    result["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(__import__("json").dumps(result))
"""


def _peak(path) -> dict:
    proc = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_6_gib_zip_cut_off_before_its_directory_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "big.pt"
    with open(path, "wb") as fh:
        fh.write(b"PK\x03\x04" + b"\0" * 26)
        fh.truncate(6 << 30)  # sparse: 6 GiB on paper, nothing on disk
    result = _peak(path)
    assert result["kind"] == "truncated", result
    assert result["peak_mib"] < 1024, f"read {result['peak_mib']} MiB for a file it need not read"


def test_a_large_safetensors_file_loads_mapped(tmp_path):
    path = tmp_path / "big.safetensors"
    count = (2 << 30) // 4  # one 2 GiB float32 tensor of zeros (a sparse file)
    header = json.dumps({"w": {"dtype": "F32", "shape": [count], "data_offsets": [0, count * 4]}}).encode()
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(header)) + header)
        fh.truncate(8 + len(header) + count * 4)
    result = _peak(path)
    assert result == {"format": "safetensors", "tensors": 1, "peak_mib": result["peak_mib"]}, result
    assert result["peak_mib"] < 1024


def test_a_mapped_zip_checkpoint_loads_and_its_tensors_can_be_changed(tmp_path):
    from faultlib.detect.checkpoints.reader import read_checkpoint

    path = tmp_path / "model.pt"
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "step": 7}, path)
    before = path.read_bytes()
    loaded = read_checkpoint(path)
    assert loaded.format == "torch_zip" and loaded.content["step"] == 7
    loaded.content["w"].add_(1)  # copy-on-write: the file never changes
    assert loaded.content["w"][0, 0].item() == 1.0 and path.read_bytes() == before


def test_a_legacy_pickle_that_calls_a_function_is_named_for_it(tmp_path):
    from faultlib.detect.checkpoints.reader import UnloadableCheckpoint, read_checkpoint

    class Payload:
        def __reduce__(self):
            import os
            return os.system, ("echo never-run",)

    path = tmp_path / "legacy.pt"
    torch.save({"model": Payload()}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(UnloadableCheckpoint) as info:
        read_checkpoint(path)
    assert info.value.kind == "unsafe_globals", info.value
    assert any(name.endswith(".system") for name in info.value.unsafe_globals)
