"""Real data the catalog's workloads share (shipped with scikit-learn: nothing to download).

The digits split is computed by scikit-learn once per (seed, test_size, scikit-learn and NumPy versions) and
kept in faultlib's cache (``$FAULTLIB_CACHE_DIR``, else ``$XDG_CACHE_HOME/faultlib``, else
``~/.cache/faultlib``): importing scikit-learn and SciPy costs a process about 1.4 s of CPU, and a case's
run starts one process per phase and rank, each taking the same split. A cached split is the same arrays
scikit-learn returned (float64 pixels, int64 labels, saved without pickle), so the tensors are the same bytes
either way; a cache that is missing, unreadable or not of the expected shape is recomputed, and a cache that
cannot be written is no error.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile

from faultlib.cache import cache_dir

#: the arrays a cached split holds, in :func:`digits_split`'s order
_ARRAYS = ("x_train", "y_train", "x_test", "y_test")
_MAX_CACHE_BYTES = 4 << 20  # the split is about 0.95 MB


def digits_split(seed: int, *, test_size: float = 0.25):
    """scikit-learn's digits: 1797 8x8 grey images of 0-9, pixels scaled to [0, 1], split stratified.

    Args:
        seed: ``random_state`` of the split.
        test_size: held-out fraction (default 0.25: 1347 train, 450 test).

    Returns:
        ``(x_train, y_train, x_test, y_test)``: float32 tensors of shape (N, 64) and int64 labels (N,).
    """
    import torch

    path = _cache_path(seed, test_size)
    arrays = _read_cache(path) if path else None
    if arrays is None:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split

        x, y = load_digits(return_X_y=True)
        x_train, x_test, y_train, y_test = train_test_split(x / 16.0, y, test_size=test_size, random_state=seed,
                                                            stratify=y)
        arrays = (x_train, y_train, x_test, y_test)
        if path:
            _write_cache(path, arrays)
    x_train, y_train, x_test, y_test = arrays
    return (torch.tensor(x_train, dtype=torch.float32), torch.tensor(y_train, dtype=torch.long),
            torch.tensor(x_test, dtype=torch.float32), torch.tensor(y_test, dtype=torch.long))


def _cache_path(seed: int, test_size: float) -> str | None:
    """Where the split for these arguments and the installed scikit-learn and NumPy is cached; None when
    there is no cache directory (no home) or scikit-learn is not installed (the import below says so)."""
    from importlib import metadata

    try:
        versions = [metadata.version("scikit-learn"), metadata.version("numpy")]
    except metadata.PackageNotFoundError:
        return None
    root = cache_dir()
    if root is None:
        return None
    key = hashlib.sha256(repr(("digits", 1, int(seed), float(test_size), *versions)).encode()).hexdigest()[:32]
    return str(root / f"digits-split-{key}.npz")


def _read_cache(path: str):
    """The four arrays cached at ``path``; None when absent, unreadable, too large or not of the expected shape."""
    import numpy as np

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(_MAX_CACHE_BYTES + 1)
        if len(data) > _MAX_CACHE_BYTES:
            return None
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = tuple(npz[name] for name in _ARRAYS)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    x_train, y_train, x_test, y_test = arrays
    shapes_ok = (x_train.ndim == x_test.ndim == 2 and x_train.shape[1] == x_test.shape[1] == 64
                 and y_train.shape == x_train.shape[:1] and y_test.shape == x_test.shape[:1])
    kinds_ok = x_train.dtype == x_test.dtype == np.float64 and y_train.dtype.kind == y_test.dtype.kind == "i"
    return arrays if shapes_ok and kinds_ok else None


def _write_cache(path: str, arrays) -> None:
    """Keep ``arrays`` at ``path`` (temp file and rename); a cache that cannot be written is no error."""
    import numpy as np

    from faultlib.outputs import replace_file

    buffer = io.BytesIO()
    np.savez(buffer, **dict(zip(_ARRAYS, arrays)))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_file(path, buffer.getvalue(), fsync=False)
    except OSError:
        pass
