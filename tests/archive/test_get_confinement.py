"""`archive get`, verify and flush stay inside the run and inside --out: case ids, run ids and manifest
entries are plain names, only listed files move, and no symbolic link below a run is ever followed.
file:// archives here; s3:// against the real SeaweedFS server (its keys and manifests may be hostile)."""

from __future__ import annotations

import hashlib
import io
import json
import os

import pytest

from faultlib.archive import FileArchive, ManifestError, S3Archive
from faultlib.archive.manifest import verify
from faultlib.errors import ArchiveError, InputError
from faultlib.evidence import layout
from faultlib.evidence.seal import write_manifest
from tests.conftest import cli, cli_in_process, run_json

CASE, RUN = "case_a", "20261130T000000Z-abcdef"
BUCKET = "faultlib-runs"


def _tree(root) -> dict[str, bytes | str]:
    """Every entry under ``root``: file bytes, or ``->target`` for links."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                out[rel] = "->" + os.readlink(path)
            elif name in filenames:
                out[rel] = open(path, "rb").read()
    return out


def _run(root, case=CASE, run=RUN, *, seal=True):
    path = root / case / run
    (path / "dumps").mkdir(parents=True)
    (path / layout.TRACES).write_text('{"a": 1}\n')
    (path / "dumps" / "state.bin").write_bytes(b"\x01" * 100)
    if seal:
        write_manifest(path, run_id=run, case_id=case)
    return path


def _manifest(path, *entries: tuple[str, bytes], case=CASE, run=RUN) -> None:
    files = [{"name": n, "bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in entries]
    (path / layout.MANIFEST).write_text(json.dumps({"manifest_version": 1, "case": case, "run_id": run,
                                                    "files": files}))


@pytest.mark.parametrize("case_id, run_id", [("../outside", RUN), ("..", RUN), (CASE, "../" + RUN), (CASE, "."),
                                             ("a/b", RUN), (CASE, ""), ("/abs", RUN), (CASE, "r\\..\\x")])
def test_get_refuses_ids_that_are_not_plain_names(tmp_path, case_id, run_id):
    store = tmp_path / "store"
    _run(store)
    _run(tmp_path, "outside")  # what ../outside would reach: beside the archive
    before = _tree(tmp_path)
    proc = cli_in_process("archive", "get", f"file://{store}", case_id, run_id, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "is not a plain" in proc.stderr and "Traceback" not in proc.stderr
    assert _tree(tmp_path) == before, "nothing written anywhere"


def test_get_copies_only_the_listed_files(tmp_path):
    run = _run(tmp_path / "store")
    (run / "not_listed.txt").write_text("added after the manifest")
    (run / "extra").mkdir()
    (run / "extra" / "x").write_text("x")
    got = FileArchive(tmp_path / "store").get(CASE, RUN, tmp_path / "out")
    assert sorted(_tree(got)) == ["dumps/state.bin", layout.MANIFEST, layout.TRACES]
    assert verify(got) == []


def test_get_refuses_manifest_entries_that_leave_the_run(tmp_path):
    store = tmp_path / "store"
    run = _run(store, seal=False)
    secret = b"outside the run\n"
    (tmp_path / "secret.txt").write_bytes(secret)
    _manifest(run, ("../../../secret.txt", secret), (layout.TRACES, b'{"a": 1}\n'))
    before = _tree(tmp_path)
    with pytest.raises(ManifestError, match=r"files\[0\]\.name: file name '\.\./\.\./\.\./secret\.txt' is not a plain"):
        FileArchive(store).get(CASE, RUN, tmp_path / "out")
    assert _tree(tmp_path) == before
    proc = cli("archive", "get", f"file://{store}", CASE, RUN, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2 and f"{CASE}/{RUN}: manifest.json: files[0].name" in proc.stderr


def test_a_listed_name_that_is_a_symlink_is_an_error_naming_it(tmp_path):
    store = tmp_path / "store"
    run = _run(store)
    outside = tmp_path / "outside.txt"
    outside.write_text('{"a": 1}\n')  # the same bytes: only the link gives it away
    (run / layout.TRACES).unlink()
    (run / layout.TRACES).symlink_to(outside)
    assert "traces.jsonl: is a symbolic link" in " ".join(verify(run))
    with pytest.raises(ArchiveError, match="traces.jsonl: is a symbolic link"):
        FileArchive(store).get(CASE, RUN, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_directory_link_on_the_way_to_a_listed_file_is_not_followed(tmp_path):
    store = tmp_path / "store"
    run = _run(store)
    elsewhere = tmp_path / "elsewhere"
    (run / "dumps").rename(elsewhere)
    (run / "dumps").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ArchiveError, match="dumps/state.bin: dumps: is a symbolic link"):
        FileArchive(store).get(CASE, RUN, tmp_path / "out")
    assert any("dumps: is a symbolic link" in p for p in verify(run))


def test_a_linked_run_or_case_directory_is_neither_listed_nor_fetched(tmp_path):
    store = tmp_path / "store"
    real = _run(tmp_path / "elsewhere")
    (store / CASE).mkdir(parents=True)
    (store / CASE / RUN).symlink_to(real, target_is_directory=True)
    (store / "linked_case").symlink_to(real.parent, target_is_directory=True)
    archive = FileArchive(store)
    assert archive.list_runs() == []
    with pytest.raises(ArchiveError, match="is a symbolic link"):
        archive.get(CASE, RUN, tmp_path / "out")


def test_get_never_writes_outside_out_through_a_link_there(tmp_path):
    store = tmp_path / "store"
    _run(store)
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    (out / CASE).symlink_to(victim, target_is_directory=True)
    with pytest.raises(InputError, match="is a symbolic link"):
        FileArchive(store).get(CASE, RUN, out)
    assert list(victim.iterdir()) == []


def test_get_into_an_existing_destination_and_a_file_as_out_are_refused(tmp_path):
    store = tmp_path / "store"
    _run(store)
    archive = FileArchive(store)
    archive.get(CASE, RUN, tmp_path / "out")
    with pytest.raises(ArchiveError, match="already exists"):
        archive.get(CASE, RUN, tmp_path / "out")
    (tmp_path / "a_file").write_text("x")
    proc = cli("archive", "get", f"file://{store}", CASE, RUN, "--out", str(tmp_path / "a_file" / "sub"),
               cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr


def _s3_archive(s3, tmp_path, prefix: str) -> S3Archive:
    return S3Archive(f"s3://{BUCKET}/{prefix}", spool_root=tmp_path / "spool", retry_delays_s=(0.0,))


def _put(s3, key: str, data: bytes) -> None:
    client = s3.client()
    if not client.bucket_exists(BUCKET):
        client.make_bucket(BUCKET)
    client.put_object(BUCKET, key, io.BytesIO(data), len(data))


def test_s3_get_with_a_hostile_manifest_writes_nothing_outside_out(s3, tmp_path):
    evil = b"owned\n"
    manifest = {"manifest_version": 1, "case": CASE, "run_id": RUN, "files": [
        {"name": "../../../escaped.txt", "bytes": len(evil), "sha256": hashlib.sha256(evil).hexdigest()}]}
    _put(s3, f"hostile/{CASE}/{RUN}/manifest.json", json.dumps(manifest).encode())
    before = _tree(tmp_path)
    with pytest.raises(ManifestError, match=r"files\[0\]\.name: file name '\.\./\.\./\.\./escaped\.txt'"):
        _s3_archive(s3, tmp_path, "hostile").get(CASE, RUN, tmp_path / "out")
    assert _tree(tmp_path) == before
    proc = cli("archive", "get", f"s3://{BUCKET}/hostile", CASE, RUN, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2 and "files[0].name" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "out").exists()


def test_s3_get_bounds_each_download_by_the_manifest(s3, tmp_path):
    small, big = b"x" * 10, b"y" * 5_000_000
    manifest = {"manifest_version": 1, "case": CASE, "run_id": RUN, "files": [
        {"name": "a.bin", "bytes": len(small), "sha256": hashlib.sha256(small).hexdigest()}]}
    _put(s3, f"bounded/{CASE}/{RUN}/manifest.json", json.dumps(manifest).encode())
    _put(s3, f"bounded/{CASE}/{RUN}/a.bin", big)  # replaced in the store by something far larger
    with pytest.raises(ArchiveError, match="a.bin: more than 10 bytes in the store, the manifest says 10"):
        _s3_archive(s3, tmp_path, "bounded").get(CASE, RUN, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    for bad in ("../x", "a/b"):
        with pytest.raises(InputError, match="is not a plain"):
            _s3_archive(s3, tmp_path, "bounded").get(bad, RUN, tmp_path / "out")


def test_s3_flush_refuses_a_listed_symlink_and_uploads_nothing_of_that_run(s3, tmp_path):
    archive = _s3_archive(s3, tmp_path, "links")
    run = archive.staging_dir(CASE, RUN)
    (run / layout.TRACES).write_text('{"a": 1}\n')
    write_manifest(run, run_id=RUN, case_id=CASE)
    outside = tmp_path / "outside.txt"
    outside.write_text('{"a": 1}\n')
    (run / layout.TRACES).unlink()
    (run / layout.TRACES).symlink_to(outside)
    proc = cli("archive", "flush", archive.uri, "--json", cwd=tmp_path, )
    assert proc.returncode == 2, proc.stderr
    [damaged] = run_json(proc)["damaged"]
    assert damaged["run_id"] == RUN and "traces.jsonl: is a symbolic link" in damaged["problem"]
    assert list(s3.client().list_objects(BUCKET, prefix="links/", recursive=True)) == []
    assert run.is_dir() and (run / layout.TRACES).is_symlink()
