"""Click parameter types for numbers from users: finite and inside a stated range, always."""

from __future__ import annotations

import math

import click

MAX_SEED = 2**32 - 1          # numpy's RandomState takes seeds below 2**32; torch takes them too
MAX_TIMEOUT_S = 86_400.0      # one day: the same bound as case.yaml's repro.timeout_s


class FiniteFloat(click.ParamType):
    """A finite float in ``(min, max]`` (or ``[min, max]`` with ``min_open=False``): ``nan``, ``inf``
    and ``1e400`` are refused with the range in the message (``click.FloatRange`` lets ``nan`` through).
    """

    name = "number"

    def __init__(self, min: float, max: float, *, min_open: bool = True, unit: str = ""):
        self.min, self.max, self.min_open, self.unit = min, max, min_open, unit

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, float) and math.isfinite(value):
            number = value
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number", param, ctx)
        low_ok = number > self.min if self.min_open else number >= self.min
        if not math.isfinite(number) or not low_ok or number > self.max:
            bracket = "(" if self.min_open else "["
            self.fail(f"{value!r} is not a finite number in {bracket}{self.min:g}, {self.max:g}]{self.unit}",
                      param, ctx)
        return number


TIMEOUT_S = FiniteFloat(0.0, MAX_TIMEOUT_S, unit=" seconds")
SEED = click.IntRange(0, MAX_SEED)


def world_workload_option(command):  # type: ignore[no-untyped-def]
    """``--world-workload``: how ``--backend kubernetes`` renders a distributed case's ranks (``repro.world``)."""
    from faultlib.chaos.render import WORLD_WORKLOADS  # no third-party import: --help stays fast

    return click.option(
        "--world-workload", type=click.Choice(WORLD_WORKLOADS), default=None,
        help="kubernetes only: a distributed case's ranks as a Kubeflow PyTorchJob (pytorchjob, the default; "
             "needs the training operator) or an Indexed Job with a headless Service (indexed-job; Kubernetes "
             ">= 1.28, no operator).")(command)
