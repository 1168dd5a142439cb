"""Backends: where a run's phases execute. ``local`` is built in; ``compose`` and
``kubernetes`` need a Docker engine or a cluster and say so (exit 3) when absent."""

from faultlib.backends.local import LocalBackend, ProcessOutcome, run_process
from faultlib.errors import BackendUnavailable

BACKENDS = ("local", "compose", "kubernetes")


def get_backend(name: str) -> LocalBackend:
    """The backend called ``name``.

    Raises:
        BackendUnavailable: ``compose`` or ``kubernetes`` (not available in this version).
    """
    if name == "local":
        return LocalBackend()
    raise BackendUnavailable(f"backend {name!r} is not available in this version of faultlib: use --backend local")


__all__ = ["BACKENDS", "LocalBackend", "ProcessOutcome", "get_backend", "run_process"]
