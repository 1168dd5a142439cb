"""A tiny torch model for the ``faultlib check onnx`` example: the breast_cancer MLP of the case.

``build()`` is the ``--compare-torch`` factory: it trains the same model the same way every time
(seeded, full batch, one thread), so the model ``make_model.py`` exported and the one ``build()``
returns compute the same function. ``sample()`` is real input: the first 64 standardised rows.
"""

from __future__ import annotations

import numpy as np


def _data() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_breast_cancer

    x, y = load_breast_cancer(return_X_y=True)
    return ((x - x.mean(0)) / x.std(0)).astype(np.float32), y


def build():
    """The trained model (``torch.nn.Sequential``: Linear 30->16, LayerNorm, GELU, Linear 16->2), in eval mode."""
    import torch
    from torch import nn

    x, y = _data()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        generator = torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(30, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 2))
        optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
        features, labels = torch.from_numpy(x), torch.from_numpy(y)
        for _ in range(60):
            optimizer.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(features), labels).backward()
            optimizer.step()
        del generator
    finally:
        torch.set_num_threads(threads)
    return model.eval()


def sample() -> np.ndarray:
    """64 real rows, float32, shape (64, 30)."""
    return _data()[0][:64]
