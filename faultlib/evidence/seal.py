"""Sealing a finished run: list every evidence file with its size and sha256, and write
``manifest.json`` last (atomically). A run directory without a manifest is incomplete.

Reading a manifest back (archives, ``archive get``) lives in :mod:`faultlib.archive.manifest`.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from faultlib.evidence import layout
from faultlib.record import Artifact

CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def artifacts(run_dir: Path, *, exclude: tuple[str, ...] = ()) -> list[Artifact]:
    """Every regular file under ``run_dir`` (sorted, ``/``-separated names) but ``exclude`` and the manifest."""
    out = []
    for path in sorted(p for p in run_dir.rglob("*") if p.is_file()):
        name = path.relative_to(run_dir).as_posix()
        if name == layout.MANIFEST or name in exclude:
            continue
        out.append(Artifact(name, path.stat().st_size, sha256_file(path)))
    return out


def write_manifest(run_dir: Path, *, run_id: str, case_id: str) -> list[Artifact]:
    """Write ``manifest.json`` atomically (temp file, fsync, rename) and return what it lists."""
    files = artifacts(run_dir)
    body = {"manifest_version": 1, "case": case_id, "run_id": run_id,
            "files": [{"name": a.name, "bytes": a.bytes, "sha256": a.sha256} for a in files]}
    tmp = run_dir / (layout.MANIFEST + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(body, fh, indent=2)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, run_dir / layout.MANIFEST)
    return files
