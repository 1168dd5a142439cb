"""Backends: where a run's phases execute. ``local`` is built in; ``compose`` and
``kubernetes`` need a Docker engine or a cluster and say so (exit 3) when absent.

Every backend follows :class:`~faultlib.backends.base.Backend`: ``preflight(case)``, then
``session(case, run_id=, run_dir=)`` around ``run_phase(...)`` for each phase. The compose and
kubernetes modules load on demand, and load docker / kubernetes only when they talk to them.
"""

from pathlib import Path

from faultlib.backends.base import Backend
from faultlib.backends.local import LocalBackend, ProcessOutcome, run_process
from faultlib.errors import FaultlibError

BACKENDS = ("local", "compose", "kubernetes")


def get_backend(name: str, *, image: str | None = None, namespace: str | None = None,
                crd_dir: str | Path | None = None) -> Backend:
    """The backend called ``name``, configured for a run.

    Args:
        name: ``local``, ``compose`` or ``kubernetes``.
        image: the repro image (compose: ``FAULTLIB_IMAGE`` for the compose files; kubernetes: the
            Job's image). Default: the backend's own.
        namespace: kubernetes only: the namespace of the run's objects (default ``default``).
        crd_dir: kubernetes only: Chaos Mesh CRD manifests to validate the chaos objects against.

    Raises:
        FaultlibError: an unknown name, or an option the backend does not take (exit 2).
    """
    if name == "local":
        given = [opt for opt, value in (("--image", image), ("--namespace", namespace), ("--crd-dir", crd_dir))
                 if value is not None]
        if given:
            raise FaultlibError(f"{', '.join(given)} applies to --backend compose or kubernetes, not local")
        return LocalBackend()
    if name == "compose":
        if namespace is not None or crd_dir is not None:
            raise FaultlibError("--namespace and --crd-dir apply to --backend kubernetes, not compose")
        from faultlib.backends.compose import ComposeBackend

        return ComposeBackend(image=image)
    if name == "kubernetes":
        from faultlib.backends.kubernetes import KubernetesBackend

        return KubernetesBackend(image=image, namespace=namespace, crd_dir=crd_dir)
    raise FaultlibError(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")


__all__ = ["BACKENDS", "Backend", "LocalBackend", "ProcessOutcome", "get_backend", "run_process"]
