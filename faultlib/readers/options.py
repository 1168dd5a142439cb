"""Numbers from the command line, finite and inside a stated range: click parameter types.

``click.FloatRange`` lets ``nan`` through every bound (every comparison with NaN is false) and ``inf`` through
an open upper end, so ``--atol nan`` or ``--rtol inf`` silently turned a comparison off and
``--min-reserved-mib inf`` ended in an ``OverflowError`` traceback. Every float option of every command
(``faultlib check`` plugins included) is a :class:`FiniteFloat`: bad usage, exit 2, with the range.
"""

from __future__ import annotations

import math

import click


class FiniteFloat(click.ParamType):
    """A finite float in ``(min, max]`` (or ``[min, max]`` with ``min_open=False``): ``nan``, ``inf``
    and ``1e400`` are refused with the range in the message. ``max`` defaults to no bound but finiteness.
    """

    name = "number"

    def __init__(self, min: float, max: float = math.inf, *, min_open: bool = True, unit: str = ""):
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
            upper = f"{self.max:g}]" if math.isfinite(self.max) else "inf)"
            self.fail(f"{value!r} is not a finite number in {bracket}{self.min:g}, {upper}{self.unit}", param, ctx)
        return number
