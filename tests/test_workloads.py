"""The digits split the catalog's cases share: computed by scikit-learn once, then read from faultlib's cache
by every later process (a case's phases and ranks) without importing scikit-learn, as the same tensors."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")

from faultlib import workloads  # noqa: E402  (after the skips: it is torch's and scikit-learn's)

#: a process that takes the split and says which heavy modules it imported and what it got
TAKE_SPLIT = """
import hashlib, sys
from faultlib.workloads import digits_split
parts = digits_split(7)
print("sklearn" in sys.modules, "scipy" in sys.modules)
print(hashlib.sha256(b"".join(t.numpy().tobytes() for t in parts)).hexdigest())
"""


def _digest(parts) -> str:
    return hashlib.sha256(b"".join(t.numpy().tobytes() for t in parts)).hexdigest()


def _scikit_learns(seed: int, test_size: float = 0.25):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x / 16.0, y, test_size=test_size, random_state=seed, stratify=y)
    return (torch.tensor(x_train, dtype=torch.float32), torch.tensor(y_train, dtype=torch.long),
            torch.tensor(x_test, dtype=torch.float32), torch.tensor(y_test, dtype=torch.long))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_later_process_reads_the_same_split_without_importing_scikit_learn(cache):
    first = workloads.digits_split(7)  # a miss: scikit-learn splits, the cache keeps it
    assert [tuple(t.shape) for t in first] == [(1347, 64), (1347,), (450, 64), (450,)]
    assert [t.dtype for t in first] == [torch.float32, torch.long, torch.float32, torch.long]
    assert all(torch.equal(a, b) for a, b in zip(first, _scikit_learns(7)))
    assert len(list(cache.glob("digits-split-*.npz"))) == 1
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", TAKE_SPLIT], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    imported, digest = proc.stdout.splitlines()
    assert imported == "False False", "a cached split must not import scikit-learn or SciPy"
    assert digest == _digest(first)


def test_each_seed_and_size_has_its_own_split(cache):
    a, b = workloads.digits_split(7), workloads.digits_split(8)
    c = workloads.digits_split(7, test_size=0.5)
    assert len(list(cache.glob("digits-split-*.npz"))) == 3
    assert _digest(a) != _digest(b) and len(c[2]) == 899
    assert _digest(workloads.digits_split(8)) == _digest(b) == _digest(_scikit_learns(8))  # b read back
    assert _digest(workloads.digits_split(7, test_size=0.5)) == _digest(_scikit_learns(7, 0.5))


@pytest.mark.parametrize("damage", ["truncated", "not_npz", "wrong_shape", "link"])
def test_a_damaged_cache_is_split_again_and_replaced(cache, damage, tmp_path):
    expected = _digest(workloads.digits_split(7))
    path = next(cache.glob("digits-split-*.npz"))
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:1000])
    elif damage == "not_npz":
        path.write_text("not a cache")
    elif damage == "wrong_shape":
        import numpy as np

        with open(path, "wb") as fh:  # another valid npz: the train pixels have 63 columns
            np.savez(fh, x_train=np.zeros((10, 63)), y_train=np.zeros(10, dtype=np.int64),
                     x_test=np.zeros((5, 63)), y_test=np.zeros(5, dtype=np.int64))
    else:  # a link planted at the cache's name is not followed
        elsewhere = tmp_path / "elsewhere.npz"
        elsewhere.write_bytes(path.read_bytes())
        path.unlink()
        path.symlink_to(elsewhere)
    assert _digest(workloads.digits_split(7)) == expected
    assert not path.is_symlink() and workloads._read_cache(str(path)) is not None  # replaced by a good one


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(blocked / "cache"))
    assert _digest(workloads.digits_split(7)) == _digest(_scikit_learns(7))
    assert blocked.read_text().startswith("a file")


def test_the_key_follows_the_installed_versions(cache, monkeypatch):
    from importlib import metadata

    path = workloads._cache_path(7, 0.25)
    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "0.0" if name == "scikit-learn" else real(name))
    assert workloads._cache_path(7, 0.25) != path and Path(path).parent == cache
