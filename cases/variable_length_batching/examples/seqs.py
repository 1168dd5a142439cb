"""Example inputs for `faultlib check batching` (README): digits as variable-length column sequences.

`DigitColumns` reads each 8x8 digit left to right as 8-pixel columns with blank columns trimmed, so
samples are float32 tensors of shape (T, 8) with T in 2..8: the default collate cannot stack them.
`pad` is the remedy, faultlib's `pad_collate` (pads to the batch's longest, with a mask).
"""

import importlib.util
from pathlib import Path

import numpy as np
import torch


def digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits as ``(images (1797, 8, 8) float64, target (1797,) int)``, the values of
    ``sklearn.datasets.load_digits()``, read from the CSV scikit-learn ships without importing scikit-learn
    (its import costs more CPU than the whole check); ``load_digits`` itself where the file is not there."""
    spec = importlib.util.find_spec("sklearn")
    path = Path(spec.submodule_search_locations[0]) / "datasets" / "data" / "digits.csv.gz" if spec else None
    if path is None or not path.is_file():
        from sklearn.datasets import load_digits

        found = load_digits()
        return found.images, found.target
    data = np.loadtxt(path, delimiter=",")
    return data[:, :-1].reshape(-1, 8, 8), data[:, -1].astype(int)


class DigitColumns(torch.utils.data.Dataset):
    """digits read left to right as 8-pixel columns, blank columns trimmed: (T, 8) float32, T in 2..8."""

    def __init__(self):
        images, self.y = digits()
        self.x = []
        for cols in (images.transpose(0, 2, 1) / 16).astype("float32"):
            ink = np.flatnonzero(cols.sum(1))
            self.x.append(torch.from_numpy(cols[ink[0]:ink[-1] + 1].copy()))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], int(self.y[i])


def pad(batch):
    from faultlib.remedies import pad_collate

    return pad_collate(batch)
