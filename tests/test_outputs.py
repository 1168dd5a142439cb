"""One writer for every output file the CLI takes: files replaced atomically, FIFOs and devices written in
place (never renamed over), links and directories refused, the target checked before the work starts.

Device nodes are scratch nodes made in the test's temp dir (never the real /dev/null: sessions run as root).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import pytest

from faultlib.errors import InputError
from faultlib.outputs import output_file
from tests.conftest import cli


def _read_fifo(path, into: list) -> threading.Thread:
    def read():
        with open(path, "rb") as fh:
            into.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


def _scratch_null(tmp_path):
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a scratch character device here ({exc}); needs CAP_MKNOD")
    return node


def test_a_regular_file_is_replaced_whole_and_a_new_one_created(tmp_path):
    old = tmp_path / "report.json"
    old.write_text("old contents, longer than the new ones")
    assert output_file(old).write_text("new") == 3
    assert old.read_text() == "new"
    fresh = output_file(tmp_path / "fresh.json")
    fresh.write_bytes(b"{}")
    assert (tmp_path / "fresh.json").read_bytes() == b"{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "report.json"]  # no temp file left


def test_a_fifo_is_written_as_a_stream_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    target = output_file(fifo)
    assert target.stream
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    target.write_text("through the pipe")
    reader.join(10)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_character_device_is_written_in_place_not_replaced(tmp_path):
    null = _scratch_null(tmp_path)
    target = output_file(null, "--junit")
    assert target.stream
    target.write_bytes(b"x" * 100_000)
    info = os.lstat(null)
    assert stat.S_ISCHR(info.st_mode) and info.st_rdev == os.makedev(1, 3)


@pytest.mark.parametrize("make, phrase", [
    (lambda p: os.symlink(p.parent / "elsewhere", p), "symbolic link"),
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: (p.write_text("keep"), os.chmod(p, 0o444)), "read-only"),
])
def test_links_directories_and_read_only_files_are_refused(tmp_path, make, phrase):
    target = tmp_path / "out.json"
    make(target)
    with pytest.raises(InputError, match=phrase) as info:
        output_file(target, "--report")
    assert info.value.field == "--report"
    assert not (tmp_path / "elsewhere").exists()


def test_the_directory_is_checked_at_once(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        output_file(tmp_path / "missing" / "out.xml", "--junit")
    made = output_file(tmp_path / "made" / "deep" / "out.xml", "--junit", parents=True)
    assert (tmp_path / "made" / "deep").is_dir() and not made.stream
    with pytest.raises(InputError, match="cannot be written there"):
        output_file("/proc/faultlib-test-output", "--out")  # a directory where no file can be created


def test_a_target_that_became_a_link_after_the_check_is_refused_at_write(tmp_path):
    target = output_file(tmp_path / "out.json")
    os.symlink(tmp_path / "victim", tmp_path / "out.json")
    with pytest.raises(InputError, match="symbolic link"):
        target.write_text("x")
    assert not (tmp_path / "victim").exists()


def test_fingerprint_out_to_a_fifo_and_to_a_scratch_device(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    proc = cli("fingerprint", "--out", str(fifo), cwd=tmp_path)
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert got and got[0].startswith(b"{") and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    null = _scratch_null(tmp_path)
    assert cli("fingerprint", "--out", str(null), cwd=tmp_path).returncode == 0
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_a_bad_out_fails_before_the_work(tmp_path):
    os.symlink("/etc/passwd", tmp_path / "link.json")
    for args in (["fingerprint", "--out", str(tmp_path / "link.json")],
                 ["fingerprint", "--out", "/proc/faultlib-test-output"],
                 ["trace", "--out", str(tmp_path / "link.json"), "--", "python", str(tmp_path / "never_run.py")]):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, f"{args}; {proc.stderr}"
        assert "--out" in proc.stderr and "Traceback" not in proc.stderr


def test_junit_merge_out_to_a_fifo(tmp_path):
    shard = tmp_path / "shard.xml"
    shard.write_text('<?xml version="1.0"?><testsuites name="x"><testsuite name="case" tests="1" failures="0" '
                     'errors="0" skipped="0" time="1.0"><testcase name="a" time="1.0"/></testsuite></testsuites>')
    fifo = tmp_path / "all.xml"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    proc = subprocess.run([sys.executable, "-m", "faultlib.regress.junit", "merge", "--out", str(fifo), str(shard)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "GITHUB_STEP_SUMMARY": ""})
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert got and b"<testsuites" in got[0] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    os.symlink(tmp_path / "victim.xml", tmp_path / "link.xml")
    refused = subprocess.run([sys.executable, "-m", "faultlib.regress.junit", "merge", "--out",
                              str(tmp_path / "link.xml"), str(shard)], cwd=tmp_path, capture_output=True, text=True,
                             timeout=60)
    assert refused.returncode == 2 and "symbolic link" in refused.stderr
    assert not (tmp_path / "victim.xml").exists()


def test_a_name_too_long_for_the_filesystem_is_refused_at_once_and_long_names_write(tmp_path):
    with pytest.raises(InputError, match="at most 255 bytes"):
        output_file(tmp_path / ("a" * 300 + ".json"))
    near = tmp_path / ("b" * 245 + ".json")  # fits, but ".NAME.hex.tmp" would not: the temp name is short
    output_file(near).write_text("{}")
    assert near.read_text() == "{}"


def test_junit_merge_summary_is_appended_never_through_a_link_or_into_a_directory(tmp_path):
    shard = tmp_path / "shard.xml"
    shard.write_text('<?xml version="1.0"?><testsuites name="x"><testsuite name="c|a`se\u0085" tests="1" failures="1" '
                     'errors="0" skipped="0" time="1.0"><testcase name="t\u009d0;x"><failure message="boom \u009b31m"/>'
                     '</testcase></testsuite></testsuites>')
    merge = [sys.executable, "-m", "faultlib.regress.junit", "merge", "--out", str(tmp_path / "all.xml"), str(shard)]
    (tmp_path / "summary.md").write_text("before\n")
    ok = subprocess.run([*merge, "--summary", str(tmp_path / "summary.md")], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("before\n") and "| c\\|a\\`se |" in summary and "`t\\x9d0;x`" in summary
    assert "\x1b" not in ok.stdout and "\u009b" not in ok.stdout and "\u009d" not in ok.stdout
    (tmp_path / "adir").mkdir()
    os.symlink(tmp_path / "victim.md", tmp_path / "link.md")
    for target, phrase in (("adir", "is a directory"), ("link.md", "symbolic link")):
        (tmp_path / "all.xml").unlink(missing_ok=True)
        refused = subprocess.run([*merge, "--summary", str(tmp_path / target)], capture_output=True, text=True,
                                 timeout=60)
        assert refused.returncode == 2 and phrase in refused.stderr, refused.stderr
        assert not (tmp_path / "all.xml").exists()  # checked before the work
    assert not (tmp_path / "victim.md").exists()
