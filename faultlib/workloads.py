"""Real data the catalog's workloads share (shipped with scikit-learn: nothing to download)."""

from __future__ import annotations


def digits_split(seed: int, *, test_size: float = 0.25):
    """scikit-learn's digits: 1797 8x8 grey images of 0-9, pixels scaled to [0, 1], split stratified.

    Args:
        seed: ``random_state`` of the split.
        test_size: held-out fraction (default 0.25: 1347 train, 450 test).

    Returns:
        ``(x_train, y_train, x_test, y_test)``: float32 tensors of shape (N, 64) and int64 labels (N,).
    """
    import torch
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x / 16.0, y, test_size=test_size, random_state=seed,
                                                        stratify=y)
    return (torch.tensor(x_train, dtype=torch.float32), torch.tensor(y_train, dtype=torch.long),
            torch.tensor(x_test, dtype=torch.float32), torch.tensor(y_test, dtype=torch.long))
