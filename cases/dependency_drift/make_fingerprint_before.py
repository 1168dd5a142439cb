"""Regenerate ``fingerprint-before.json``: the environment the case's old checkpoint was written in.

It is this environment's fingerprint (``faultlib.fingerprint.collect()``) with torch set back to
2.5.1, the last release whose ``torch.load`` defaulted to ``weights_only=False``: the package
version and the torch build's version change, nothing else (the build's config texts, CUDA and cuDNN
stay as collected). Run it from the repository root after an environment change that should not
show in the case's diff::

    python cases/dependency_drift/make_fingerprint_before.py

The file is canonical JSON (``faultlib.fingerprint.dumps``); the assertion suite checks that it
loads, that it is canonical, and that its torch is older than the change the case is about.
"""

from __future__ import annotations

import sys
from pathlib import Path

from faultlib.fingerprint import collect, dumps

TORCH_BEFORE = "2.5.1"
OUT = Path(__file__).resolve().parent / "fingerprint-before.json"


def before() -> dict:
    """This environment with torch at :data:`TORCH_BEFORE` (the local build tag, e.g. ``+cpu``, kept)."""
    fp = collect()
    if fp["torch"] is None:
        sys.exit("torch is not installed: the recorded environment needs a torch build to rewrite")
    local = fp["torch"]["version"].partition("+")[2]
    version = TORCH_BEFORE + (f"+{local}" if local else "")
    fp["torch"]["version"] = version
    fp["packages"]["torch"] = version
    return fp


if __name__ == "__main__":
    OUT.write_text(dumps(before()), encoding="utf-8")
    print(f"wrote {OUT}")
