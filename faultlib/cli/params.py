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


def world_workload_option(command):  # type: ignore[no-untyped-def]
    """``--world-workload``: how ``--backend kubernetes`` renders a distributed case's ranks (``repro.world``)."""
    from faultlib.chaos.render import WORLD_WORKLOADS  # no third-party import: --help stays fast

    return click.option(
        "--world-workload", type=click.Choice(WORLD_WORKLOADS), default=None,
        help="kubernetes only: a distributed case's ranks as a Kubeflow PyTorchJob (pytorchjob, the default; "
             "needs the training operator) or an Indexed Job with a headless Service (indexed-job; Kubernetes "
             ">= 1.28, no operator).")(command)
