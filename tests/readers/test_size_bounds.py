"""A file over a reader's size bound is refused in units people read, naming the one setting that raises every
bound (``FAULTLIB_MAX_FILE_BYTES``); before, `check features` said ``is 200600001 bytes; the limit is 67108864
bytes`` and nothing could admit a larger file a user trusts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from faultlib.errors import InputError
from faultlib.readers import Limits, iter_json_lines, load_json, read_bytes
from faultlib.readers.sizes import human_bytes, parse_size


def cli(*args: str, cwd, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faultlib", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize(("size", "said"), [(1, "1 byte"), (900, "900 bytes"), (64 << 20, "64 MiB"),
                                            (200_600_001, "191.3 MiB (200,600,001 bytes)"), (3 << 30, "3 GiB")])
def test_sizes_are_said_in_binary_units(size, said):
    assert human_bytes(size) == said


@pytest.mark.parametrize(("raw", "size"), [("2GiB", 2 << 30), ("512M", 512 << 20), ("12 kb", 12 << 10),
                                           ("1048576", 1 << 20)])
def test_a_setting_reads_bytes_or_a_number_with_a_unit(raw, size):
    assert parse_size(raw) == size


def test_a_file_over_its_bound_names_the_setting_that_admits_it(tmp_path, monkeypatch):
    monkeypatch.delenv("FAULTLIB_MAX_FILE_BYTES", raising=False)
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"bins": list(range(1800))}))  # 9.6 KiB
    with pytest.raises(InputError, match=r"is 9\.\d KiB \([\d,]+ bytes\); the limit is 4 KiB: if you trust the "
                                         r"file, set FAULTLIB_MAX_FILE_BYTES=10KiB \(or more\)"):
        read_bytes(config, limits=Limits(max_bytes=4096))
    monkeypatch.setenv("FAULTLIB_MAX_FILE_BYTES", "10KiB")
    assert read_bytes(config, limits=Limits(max_bytes=4096)) == config.read_bytes()
    assert load_json(config.read_bytes(), config, limits=Limits(max_bytes=4096))["bins"][-1] == 1799


def test_the_setting_never_lowers_a_bound(tmp_path, monkeypatch):
    monkeypatch.setenv("FAULTLIB_MAX_FILE_BYTES", "10")
    (tmp_path / "small.json").write_text('{"a": 1}' + " " * 100)
    assert load_json(read_bytes(tmp_path / "small.json"), "small.json") == {"a": 1}


def test_a_json_line_over_its_bound_is_raised_by_the_same_setting(tmp_path, monkeypatch):
    monkeypatch.delenv("FAULTLIB_MAX_FILE_BYTES", raising=False)
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps({"name": "x" * 3000}) + "\n")
    [line] = iter_json_lines(path, limits=Limits(max_bytes=1024))
    assert "line is longer than 1 KiB, the limit: if you trust the file, set FAULTLIB_MAX_FILE_BYTES=2KiB" \
        in line.error.message
    monkeypatch.setenv("FAULTLIB_MAX_FILE_BYTES", "4K")
    [line] = iter_json_lines(path, limits=Limits(max_bytes=1024))
    assert line.error is None and len(line.value["name"]) == 3000


def test_a_source_over_4_mib_is_checked_once_the_setting_raises_the_bound(tmp_path):
    script = tmp_path / "generated.py"
    body = "import pandas as pd\nframe = pd.read_csv('x.csv')\n" + "# padding line of a generated file\n" * 140_000
    script.write_text(body)  # 4.7 MiB
    env = {k: v for k, v in os.environ.items() if k != "FAULTLIB_MAX_FILE_BYTES"}
    refused = cli("check", "leakage", str(script), cwd=tmp_path, env=env)
    assert refused.returncode == 2, refused.stderr
    assert "the limit is 4 MiB: if you trust the file, set FAULTLIB_MAX_FILE_BYTES=5MiB (or more)" in refused.stderr
    admitted = cli("check", "leakage", str(script), cwd=tmp_path, env={**env, "FAULTLIB_MAX_FILE_BYTES": "5MiB"})
    assert admitted.returncode == 0, admitted.stderr + admitted.stdout
    bad = cli("check", "leakage", str(script), cwd=tmp_path, env={**env, "FAULTLIB_MAX_FILE_BYTES": "lots"})
    assert bad.returncode == 2 and "FAULTLIB_MAX_FILE_BYTES: is 'lots', not a size" in bad.stderr, bad.stderr
