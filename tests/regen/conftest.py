"""Fixtures for ``faultlib regen``: tmp copies of real catalog cases, and fingerprint files made from the
current environment (:func:`faultlib.fingerprint.collect`) with one thing changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO

#: the fastest real cases on 2 cores (measured: 4.5-5.7 s each with `faultlib run`, control and faulted);
#: label_mapping_drift and feature_config_diff require pyyaml, scaler_leakage does not
FAST_CASES = ("label_mapping_drift", "feature_config_diff", "scaler_leakage")


@pytest.fixture
def catalog(tmp_path):
    """Factory: ``catalog(*names)`` copies those real cases into ``tmp_path/cases`` and returns that folder."""

    def make(*names: str) -> Path:
        root = tmp_path / "cases"
        for name in names:
            shutil.copytree(REPO / "cases" / name, root / name)
        return root

    return make


@pytest.fixture
def old_fingerprint(tmp_path):
    """Factory: ``old_fingerprint(edit)`` writes the current fingerprint after ``edit(fp)`` changed it, and
    returns the file (``faultlib fingerprint``'s canonical JSON)."""
    from faultlib.fingerprint import collect, dumps

    def make(edit=None, name: str = "old.json") -> Path:
        fp = collect()
        if edit is not None:
            edit(fp)
        path = tmp_path / name
        path.write_text(dumps(fp), encoding="utf-8")
        return path

    return make


def older(version: str) -> str:
    """A lower version than ``version`` (``6.0.4`` -> ``6.0.3``; ``6.0`` -> ``5.0``): a real downgrade of it."""
    from packaging.version import Version

    release = list(Version(version).release)
    for i in range(len(release) - 1, -1, -1):
        if release[i] > 0:
            release[i] -= 1
            return ".".join(map(str, release))
    raise ValueError(f"no version below {version}")
