"""Click parameter types for numbers from users: finite and inside a stated range, always
(:class:`~faultlib.readers.options.FiniteFloat`, shared with the ``faultlib check`` plugins)."""

from __future__ import annotations

import click

from faultlib.readers.options import FiniteFloat

__all__ = ["MAX_SEED", "MAX_TIMEOUT_S", "SEED", "TIMEOUT_S", "FiniteFloat"]

MAX_SEED = 2**32 - 1          # numpy's RandomState takes seeds below 2**32; torch takes them too
MAX_TIMEOUT_S = 86_400.0      # one day: the same bound as case.yaml's repro.timeout_s

TIMEOUT_S = FiniteFloat(0.0, MAX_TIMEOUT_S, unit=" seconds")
SEED = click.IntRange(0, MAX_SEED)
