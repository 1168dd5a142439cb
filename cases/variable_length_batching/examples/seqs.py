"""Example inputs for `faultlib check batching` (README): digits as variable-length column sequences.

`DigitColumns` reads each 8x8 digit left to right as 8-pixel columns with blank columns trimmed, so
samples are float32 tensors of shape (T, 8) with T in 2..8: the default collate cannot stack them.
`pad` is the remedy, faultlib's `pad_collate` (pads to the batch's longest, with a mask).
"""

import numpy as np
import torch
from sklearn.datasets import load_digits


class DigitColumns(torch.utils.data.Dataset):
    """digits read left to right as 8-pixel columns, blank columns trimmed: (T, 8) float32, T in 2..8."""

    def __init__(self):
        digits = load_digits()
        self.y, self.x = digits.target, []
        for cols in (digits.images.transpose(0, 2, 1) / 16).astype("float32"):
            ink = np.flatnonzero(cols.sum(1))
            self.x.append(torch.from_numpy(cols[ink[0]:ink[-1] + 1].copy()))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], int(self.y[i])


def pad(batch):
    from faultlib.remedies import pad_collate

    return pad_collate(batch)
