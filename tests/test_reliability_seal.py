"""Sealing a run directory a repro could write anything into (faultlib.evidence.seal)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from faultlib.archive.manifest import verify
from faultlib.evidence import layout
from faultlib.evidence.seal import LIMITS, SealLimits, claim, open_append, seal, write_atomic, write_manifest

SECRET = b"the content of a file outside the run directory\n"


def _names(rejected):
    return {r.name: r.reason for r in rejected}


def test_a_process_still_appending_cannot_change_what_the_manifest_lists(tmp_path):
    run = tmp_path / "case_a" / "20261130T000000Z-abcdef"
    run.mkdir(parents=True)
    (run / layout.TRACES).write_text('{"resourceSpans": []}\n')
    # a descendant that escaped the phase: holds traces.jsonl open and keeps appending
    writer = subprocess.Popen([sys.executable, "-c", (
        "import os, sys, time\n"
        f"fd = os.open({str(run / layout.TRACES)!r}, os.O_WRONLY | os.O_APPEND)\n"
        "print('ready', flush=True)\n"
        "while True:\n"
        "    os.write(fd, b'{\"resourceSpans\": []}\\n')\n"
        "    time.sleep(0.001)\n")], stdout=subprocess.PIPE)
    try:
        assert writer.stdout.readline() == b"ready\n"
        sealed = seal(run)
        write_manifest(run, run_id=run.name, case_id="case_a", files=sealed.files)
        listed = {a.name: a for a in sealed.files}[layout.TRACES]
        time.sleep(0.3)  # the writer goes on, into the unlinked inode
        assert writer.poll() is None, "the writer must still be running for this test to mean anything"
        assert verify(run) == []
        assert (run / layout.TRACES).stat().st_size == listed.bytes
    finally:
        writer.kill()
        writer.wait()


def test_symlinks_fifos_sockets_bad_names_and_huge_files_are_rejected_not_opened(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    run = tmp_path / "run"
    (run / "dumps").mkdir(parents=True)
    (run / layout.TRACES).write_text("{}\n")
    (run / "leak.txt").symlink_to(secret)
    (run / "dumps" / "outside").symlink_to(tmp_path)        # a directory link: not walked
    (run / "dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(run / "pipe")                                 # opening it would block forever
    with socket.socket(socket.AF_UNIX) as sock:
        cwd = os.getcwd()
        os.chdir(run)
        try:
            sock.bind("sock")
        finally:
            os.chdir(cwd)
    with open(os.path.join(os.fsencode(run), b"bad\xff.txt"), "wb") as fh:   # not UTF-8
        fh.write(b"x")
    (run / "new\nline.txt").write_text("x")
    with open(run / "dumps" / "huge.bin", "wb") as fh:      # sparse: 4 GiB + 1 byte apparent size
        fh.truncate(LIMITS.max_file_bytes + 1)
    sealed = seal(run)
    assert [a.name for a in sealed.files] == [layout.TRACES]
    rejected = _names(sealed.rejected)
    assert "symbolic link" in rejected["leak.txt"] and str(secret) in rejected["leak.txt"]
    assert "symbolic link" in rejected["dumps/outside"] and "dangling" in rejected
    assert "FIFO" in rejected["pipe"] and "socket" in rejected["sock"]
    assert "not valid UTF-8" in rejected["bad\\xff.txt"]
    assert "control character" in rejected["new\\nline.txt"]
    assert "over the limit" in rejected["dumps/huge.bin"]
    assert hashlib.sha256(SECRET).hexdigest() not in {a.sha256 for a in sealed.files}
    files = write_manifest(run, run_id="r", case_id="c", files=sealed.files)
    assert json.loads((run / layout.MANIFEST).read_text())["files"][0]["name"] == layout.TRACES == files[0].name
    assert secret.read_bytes() == SECRET and (run / "leak.txt").is_symlink()  # nothing removed


def test_depth_count_and_name_length_are_bounded(tmp_path):
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "f").write_text("x")
    for i in range(5):
        (tmp_path / f"file{i}").write_text(str(i))
    (tmp_path / ("n" * 200)).mkdir()
    (tmp_path / ("n" * 200) / ("m" * 200)).write_text("x")
    sealed = seal(tmp_path, limits=SealLimits(max_depth=2, max_files=3, max_rejected=3, max_name_bytes=300))
    assert [a.name for a in sealed.files] == ["file0", "file1", "file2"]
    reasons = [r.reason for r in sealed.rejected]
    assert any("deeper than 2" in r for r in reasons)
    assert sealed.rejected[-1].name == "..." and "more entries" in sealed.rejected[-1].reason
    long_names = _names(seal(tmp_path, limits=SealLimits(max_name_bytes=300)).rejected)
    assert "longer than 300 bytes" in long_names["n" * 200 + "/" + "m" * 200]


def test_runner_files_are_never_written_through_what_a_repro_put_there(tmp_path):
    target = tmp_path / "target.txt"
    target.write_bytes(SECRET)
    run = tmp_path / "run"
    run.mkdir()
    (run / layout.RUN).symlink_to(target)
    write_atomic(run, layout.RUN, b"{}")
    assert target.read_bytes() == SECRET and (run / layout.RUN).read_bytes() == b"{}"
    (run / layout.MANIFEST).mkdir()                       # a directory cannot be replaced: claim moves it aside
    moved = claim(run, layout.MANIFEST)
    assert moved and "directory" in moved.reason and not (run / layout.MANIFEST).exists()
    os.mkfifo(run / layout.STDOUT)                        # opening it for writing would block (or feed a reader)
    (run / layout.STDERR).symlink_to(target)
    claims = []
    with open_append(run, layout.STDOUT, claims.append) as out, open_append(run, layout.STDERR, claims.append) as err:
        out.write(b"o")
        err.write(b"e")
    assert [c.name for c in claims] == [layout.STDOUT, layout.STDERR]
    assert (run / layout.STDOUT).read_bytes() == b"o" and (run / layout.STDERR).read_bytes() == b"e"
    assert target.read_bytes() == SECRET
    aside = sorted(p.name for p in run.iterdir() if ".repro-" in p.name)
    assert len(aside) == 3  # every entry in the way is kept as evidence


@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_write_manifest_default_lists_files_in_place(tmp_path, kind):
    (tmp_path / "a.txt").write_text("a")
    if kind == "fifo":
        os.mkfifo(tmp_path / "b")
    files = write_manifest(tmp_path, run_id="r", case_id="c")
    assert [a.name for a in files] == ["a.txt"]
    assert verify(tmp_path) == []
