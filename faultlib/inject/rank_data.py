"""``rank_data_poison``: one rank's data shard carries poisoned samples (NaN or inf features) from step K.

In a data-parallel job each rank reads its own shard; a corrupt shard part (a bad write, a broken
feature pipeline for one partition) reaches one rank only, and DDP's gradient all-reduce then spreads the
value to every rank within the same step. The repro passes its shard through the data fault point
``data.shard`` at every step::

    shard = through(ctx, "data.shard", shard, rank=ctx.rank, step=step)   # a float tensor [samples, features]

and this shim, on the one rank named and from ``start_step`` on, returns a copy whose ``samples`` rows (the
same rows every step, drawn with ``seed``) hold ``value`` in ``features`` columns. The rows are kept in
:attr:`RankDataPoison.rows` for the tests; the shim records one ``faultlib.fault`` span when the poison
first appears.
"""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.data import DataShim


class RankDataPoison(DataShim):
    """Poison ``samples`` rows of one rank's shard with NaN or inf from ``start_step`` on.

    Params:
        rank (int): the rank whose shard is poisoned.
        start_step (int): the first step at which the shard holds the poisoned rows.
        samples (int): rows poisoned, default 8.
        features (int): columns set in each poisoned row (the first ones), default 1.
        value (str): ``nan``, ``inf`` or ``-inf``, default ``nan``.
        seed (int): picks the rows, default 0.
    """

    name = "rank_data_poison"
    summary = "one rank's data shard holds NaN/inf samples from a step on (DDP spreads it to every rank)"
    point = "data.shard"
    params_schema = {
        "type": "object", "additionalProperties": False, "required": ["rank", "start_step"],
        "properties": {"rank": {"type": "integer", "minimum": 0}, "start_step": {"type": "integer", "minimum": 0},
                       "samples": {"type": "integer", "minimum": 1, "default": 8},
                       "features": {"type": "integer", "minimum": 1, "default": 1},
                       "value": {"enum": ["nan", "inf", "-inf"], "default": "nan"},
                       "seed": {"type": "integer", "default": 0}}}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rank, self.start_step = int(params["rank"]), int(params["start_step"])
        self.samples, self.features = int(params.get("samples", 8)), int(params.get("features", 1))
        self.value, self.seed = float(params.get("value", "nan")), int(params.get("seed", 0))
        self.rows: list[int] = []

    def matches(self, attributes: dict[str, Any]) -> bool:
        step = attributes.get("step")
        return attributes.get("rank") == self.rank and step is not None and step >= self.start_step

    def active_at(self, step: int | None) -> bool:
        return self._applied and step is not None and step >= self.start_step

    def _reached(self, point: str, attributes: dict[str, Any]) -> None:
        if self._target is None or not self.matches(attributes):
            return
        slot = attributes["slot"]
        first = not self.rows
        slot.value = self._poison(slot.value)
        self.hits += 1
        if first:
            self._target.record_fault(self.name, point=point, rank=self.rank, step=attributes["step"],
                                      samples=len(self.rows), value=str(self.value))

    def _poison(self, shard: Any) -> Any:
        import torch

        if not isinstance(shard, torch.Tensor) or shard.dim() != 2 or not shard.is_floating_point():
            raise InjectionError(f"shim {self.name!r}: data.shard must be a float tensor [samples, features], "
                                 f"got {type(shard).__name__} {tuple(getattr(shard, 'shape', ()))}")
        if not self.rows:
            count = min(self.samples, shard.shape[0])
            picked = torch.randperm(shard.shape[0], generator=torch.Generator().manual_seed(self.seed))[:count]
            self.rows = sorted(int(i) for i in picked)
        poisoned = shard.clone()
        poisoned[self.rows, : self.features] = self.value
        return poisoned
