"""faultlib.fingerprint.collect and `faultlib fingerprint`: stable bytes, every distribution, torch's build,
the run record's fingerprint; no torch import at CLI import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata

import pytest
from packaging.utils import canonicalize_name

from faultlib import schemas
from faultlib.errors import InputError
from faultlib.fingerprint import FORMAT, UNKNOWN, collect, dumps, load
from tests.conftest import cli

torch = pytest.importorskip("torch")


def test_two_processes_print_byte_identical_fingerprints(tmp_path):
    first = cli("fingerprint", cwd=tmp_path)
    second = cli("fingerprint", "--out", "fp.json", "--json", cwd=tmp_path)
    assert first.returncode == second.returncode == 0, f"{first.stderr}; {second.stderr}"
    written = (tmp_path / "fp.json").read_text(encoding="utf-8")
    assert first.stdout == written and written.endswith("}\n")
    report = json.loads(second.stdout)
    assert report["bytes"] == len(written.encode()) and report["torch"] == torch.__version__
    fp = json.loads(written)
    assert fp["format"] == FORMAT and dumps(fp) == written  # canonical: sorted keys, indent 2, final newline
    assert report["packages"] == len(fp["packages"])


def test_every_installed_distribution_is_listed_with_its_version():
    fp = collect()
    expected: dict[str, str] = {}
    for dist in metadata.distributions():  # first one on sys.path wins, as for metadata.version
        if dist.metadata["Name"] and dist.version:
            expected.setdefault(canonicalize_name(dist.metadata["Name"]), dist.version)
    assert fp["packages"] == expected
    assert list(fp["packages"]) == sorted(fp["packages"])
    assert fp["packages"]["pyyaml"] == metadata.version("PyYAML")  # canonical names
    assert fp["packages"]["scikit-learn"] == metadata.version("scikit-learn")


def test_torch_block_holds_the_build_and_its_config_text():
    block = collect()["torch"]
    assert block["version"] == torch.__version__ and block["debug"] is bool(torch.version.debug)
    assert block["cuda"] == torch.version.cuda
    assert block["config"] == torch.__config__.show() and "PyTorch built with" in block["config"]
    assert "ATen/Parallel" in block["parallel"] and "ATen parallel backend" in block["parallel"]
    assert "get_num_threads" not in block["parallel"] and "OMP_NUM_THREADS" not in block["parallel"]
    assert block["cudnn"] is None or block["cudnn"].isdigit()
    cpu = collect()["devices"][0]
    assert cpu["type"] == "cpu" and cpu["count"] >= 1 and cpu["name"]
    cuda = [d for d in collect()["devices"] if d["type"] == "cuda"]
    assert len(cuda) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)


def test_collect_is_cached_and_hands_out_copies():
    fp = collect()
    fp["packages"]["torch"] = "0.0.1"
    fp["torch"]["version"] = "0.0.1"
    again = collect()
    assert again["packages"]["torch"] == metadata.version("torch") and again["torch"]["version"] == torch.__version__


def test_the_run_record_carries_the_same_fingerprint_and_the_schema_describes_it():
    from faultlib.record import RunRecord, fingerprint

    assert fingerprint() == collect()
    record = RunRecord(run_id="20261130T120048Z-3fa2c1", case={"id": "c", "version": "1.0.0", "path": "cases/c"},
                       backend="local", started_at="2026-11-30T12:00:48+00:00", seed=0, fingerprint=fingerprint())
    validator = schemas.validator("run")
    validator.validate(record.to_json())
    record.fingerprint = {**UNKNOWN, "packages": {}, "devices": []}  # what faultlib.runlock writes for a dead runner
    validator.validate(record.to_json())
    legacy = {"python": "3.11.7", "implementation": "cpython", "platform": "Linux", "machine": "x86_64",
              "packages": {"torch": "2.5.1", "onnx": None}}
    record.fingerprint = legacy  # records written before format 1 stay valid
    validator.validate(record.to_json())
    broken = dict(collect(), packages={"torch": None})  # format 1: every version a string
    record.fingerprint = broken
    assert list(validator.iter_errors(record.to_json()))
    record.fingerprint = dict(collect(), torch={"version": "2.13.0"})  # a torch block has every key
    assert list(validator.iter_errors(record.to_json()))


def test_unknown_fingerprint_is_refused_by_load(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"record_version": 1, "run_id": "x", "fingerprint": UNKNOWN}))
    with pytest.raises(InputError, match="records no environment") as info:
        load(path)
    assert info.value.field == "fingerprint" and info.value.path == str(path)


def test_cli_import_does_not_import_torch(tmp_path):
    code = "import sys, faultlib.cli.app; print(int('torch' in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "0", proc.stderr
    help_ = cli("--help", cwd=tmp_path)
    assert help_.returncode == 0 and "fingerprint" in help_.stdout


def test_out_into_a_missing_directory_is_bad_input(tmp_path):
    proc = cli("fingerprint", "--out", "missing/dir/fp.json", cwd=tmp_path)
    assert proc.returncode == 2 and "missing/dir" in proc.stderr and "does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "missing").exists()
    proc = cli("fingerprint", "--out", "missing/fp.json", "--json", cwd=tmp_path)
    error = json.loads(proc.stdout)
    assert proc.returncode == 2 and error["error"] == "InputError" and error["field"] == "--out"
    (tmp_path / "adir").mkdir()
    proc = cli("fingerprint", "--out", "adir", cwd=tmp_path)
    assert proc.returncode == 2 and "is a directory" in proc.stderr
    (tmp_path / "target.json").write_text("keep")
    (tmp_path / "link.json").symlink_to(tmp_path / "target.json")
    proc = cli("fingerprint", "--out", "link.json", cwd=tmp_path)
    assert proc.returncode == 2 and "symbolic link" in proc.stderr
    assert (tmp_path / "target.json").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "link.json", "target.json"]  # no temp file left


def test_without_torch_the_torch_block_is_null_and_only_the_cpu_is_listed(monkeypatch):
    from faultlib.fingerprint import environment

    monkeypatch.setattr(environment, "_torch_module", lambda: None)  # what find_spec("torch") is None leads to
    environment._cached.cache_clear()
    try:
        fp = collect()
    finally:
        environment._cached.cache_clear()
    assert fp["torch"] is None and [d["type"] for d in fp["devices"]] == ["cpu"]
    assert fp["packages"] and fp["format"] == FORMAT
    monkeypatch.undo()
    assert collect()["torch"]["version"] == torch.__version__


def test_out_writes_a_fifo_in_place_and_never_replaces_a_read_only_file(tmp_path):
    import os
    import threading

    os.mkfifo(tmp_path / "fifo.json")
    got = []
    reader = threading.Thread(target=lambda: got.append((tmp_path / "fifo.json").read_bytes()), daemon=True)
    reader.start()
    proc = cli("fingerprint", "--out", "fifo.json", cwd=tmp_path)
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert got and json.loads(got[0])["packages"] and (tmp_path / "fifo.json").is_fifo()  # a stream, not renamed over
    (tmp_path / "locked.json").write_text("keep")
    (tmp_path / "locked.json").chmod(0o444)
    proc = cli("fingerprint", "--out", "locked.json", cwd=tmp_path)
    assert proc.returncode == 2 and "read-only" in proc.stderr, proc.stderr
    assert (tmp_path / "locked.json").read_text() == "keep"

def test_a_warm_cache_gives_the_same_bytes_without_importing_torch(tmp_path):
    """The first process imports torch and caches its build (keyed by torch's files); the next one reads the
    cache, imports no torch (unless a GPU may be present: its devices need torch.cuda) and prints the same bytes."""
    from faultlib.fingerprint import environment

    probe = ("import sys; from faultlib.fingerprint import collect, dumps; sys.stdout.write(dumps(collect())); "
             "sys.stderr.write(str('torch' in sys.modules))")
    env = {**os.environ, "FAULTLIB_CACHE_DIR": str(tmp_path / "cache")}
    cold, warm = (subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300,
                                 check=True) for _ in range(2))
    assert cold.stderr == "True" and [p.name[:12] for p in (tmp_path / "cache").iterdir()] == ["torch-build-"]
    assert warm.stdout == cold.stdout and json.loads(warm.stdout)["torch"]["version"] == torch.__version__
    if not environment._gpu_possible():
        assert warm.stderr == "False", "a warm cache needs no torch import"
    (next((tmp_path / "cache").iterdir())).write_text('{"version": 1}')  # damaged: ignored, rebuilt
    again = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    assert again.stdout == cold.stdout and again.stderr == "True"


def test_thread_settings_of_the_process_leave_the_fingerprint_unchanged(tmp_path):
    """torchrun's workers run with OMP_NUM_THREADS=1, a case calls torch.set_num_threads(1): the same
    environment, so the same bytes. The child has its own empty cache, so it imports torch under its setting;
    this process (torch imported) computes its build afresh with 3 threads."""
    from faultlib.fingerprint import environment

    probe = "import sys; from faultlib.fingerprint import collect, dumps; sys.stdout.write(dumps(collect()))"
    env = {**os.environ, "FAULTLIB_CACHE_DIR": str(tmp_path / "cache"), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    child = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300,
                           check=True).stdout
    threads = torch.get_num_threads()
    torch.set_num_threads(3)  # this process asks with 3 threads, the child with 1
    try:
        here, _ = environment._torch_info()
    finally:
        torch.set_num_threads(threads)
    assert json.loads(child)["torch"] == here and "hardware_concurrency" in here["parallel"]


def test_parallel_build_keeps_the_build_and_drops_the_process_settings():
    from faultlib.fingerprint.environment import parallel_build

    info = ("ATen/Parallel:\n\tat::get_num_threads() : 7\n\tat::get_num_interop_threads() : 3\n"
            "OpenMP 201511 (a.k.a. OpenMP 4.5)\n\tomp_get_max_threads() : 7\n"
            "Intel(R) MKL version X\n\tmkl_get_max_threads() : 7\n"
            "std::thread::hardware_concurrency() : 16\nEnvironment variables:\n\tOMP_NUM_THREADS : 7\n"
            "\tMKL_NUM_THREADS : [not set]\nATen parallel backend: OpenMP\n")
    assert parallel_build(info) == ("ATen/Parallel:\nOpenMP 201511 (a.k.a. OpenMP 4.5)\nIntel(R) MKL version X\n"
                                    "std::thread::hardware_concurrency() : 16\nATen parallel backend: OpenMP\n")
    assert parallel_build(info.replace(": 7", ": 1")) == parallel_build(info)
