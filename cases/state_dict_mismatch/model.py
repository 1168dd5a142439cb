"""The digits classifier of the state_dict_mismatch case, as the serving code builds it: the bare module.

``build()`` is the factory ``faultlib check state-dict --model cases/state_dict_mismatch/model.py:build``
calls. :class:`ReorderedDigitsNet` is the same network after a refactor that declared its two hidden
layers in the other order (same shapes): its weights load by name, its optimizer state does not.
"""

from __future__ import annotations

from torch import nn


class DigitsNet(nn.Module):
    """An MLP for scikit-learn's digits: 64 pixels -> ``hidden`` -> ``hidden`` -> 10 logits.

    Keys: ``features.{0,1,3}.*`` (Linear, BatchNorm1d with its running statistics, Linear) and
    ``classifier.*``; input float32 ``(N, 64)``, output float32 logits ``(N, 10)``.
    """

    def __init__(self, hidden: int = 64):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                      nn.Linear(hidden, hidden), nn.ReLU())
        self.classifier = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.classifier(self.features(x))


class ReorderedDigitsNet(nn.Module):
    """Two square hidden layers, declared ``second`` before ``first`` (the forward order is unchanged)."""

    def __init__(self, hidden: int = 64):
        super().__init__()
        self.inp = nn.Linear(64, hidden)
        self.second = nn.Linear(hidden, hidden)
        self.first = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.out(self.second(self.first(self.inp(x).relu()).relu()).relu())


class OrderedDigitsNet(ReorderedDigitsNet):
    """:class:`ReorderedDigitsNet` as it was declared before the refactor (``inp``, ``first``, ``second``, ``out``)."""

    def __init__(self, hidden: int = 64):
        nn.Module.__init__(self)
        self.inp = nn.Linear(64, hidden)
        self.first = nn.Linear(hidden, hidden)
        self.second = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 10)


def build(hidden: int = 64) -> DigitsNet:
    """The bare serving model (what ``--model model.py:build`` loads)."""
    return DigitsNet(hidden)


def build_reordered(hidden: int = 64) -> ReorderedDigitsNet:
    """The refactored model whose layers are declared in another order."""
    return ReorderedDigitsNet(hidden)
