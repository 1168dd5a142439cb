"""Reading ``manifest.json`` back: checking a stored or spooled run against it.

Writing the manifest (the runner's last step) lives in :mod:`faultlib.evidence.seal`.
"""

from __future__ import annotations

import json
from pathlib import Path

from faultlib.evidence import layout
from faultlib.evidence.seal import CHUNK, sha256_file

__all__ = ["CHUNK", "verify"]


def verify(run_dir: Path) -> list[str]:
    """Problems with ``run_dir`` against its manifest: missing manifest, missing files, size or sha256 mismatch.
    An empty list means the run is complete and intact."""
    manifest = run_dir / layout.MANIFEST
    if not manifest.is_file():
        return ["no manifest.json: the run is incomplete"]
    problems = []
    for entry in json.loads(manifest.read_text())["files"]:
        path = run_dir / entry["name"]
        if not path.is_file():
            problems.append(f"{entry['name']}: listed in the manifest but missing")
        elif path.stat().st_size != entry["bytes"]:
            problems.append(f"{entry['name']}: {path.stat().st_size} bytes, manifest says {entry['bytes']}")
        elif sha256_file(path) != entry["sha256"]:
            problems.append(f"{entry['name']}: sha256 differs from the manifest")
    return problems
