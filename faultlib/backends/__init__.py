"""Backends: where a run's phases execute. ``local`` is built in; ``compose`` and
``kubernetes`` need a Docker engine or a cluster and say so (exit 3) when absent.

Every backend follows :class:`~faultlib.backends.base.Backend`: ``preflight(case)``, then
``session(case, run_id=, run_dir=)`` around ``run_phase(...)`` for each phase. The compose and
kubernetes modules load on demand, and load docker / kubernetes only when they talk to them.
"""

import re
from pathlib import Path

from faultlib.backends.base import Backend
from faultlib.backends.local import LocalBackend
from faultlib.errors import FaultlibError

BACKENDS = ("local", "compose", "kubernetes")


#: an image reference as Docker and Kubernetes parse it (the distribution project's reference grammar):
#: [registry[:port]/]path[:tag][@digest], path components lower-case
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_HOST = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*"
IMAGE_REFERENCE = re.compile(rf"(?:{_HOST}(?::[0-9]+)?/)?{_COMPONENT}(?:/{_COMPONENT})*(?::[\w][\w.-]{{0,127}})?"
                             r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?")


def check_image(image: str) -> str:
    """``image`` when it is an image reference a cluster or Docker accepts (``faultlib/trainer:0.1``,
    ``registry.example:5000/ml/trainer@sha256:...``).

    Raises:
        FaultlibError: anything else (exit 2, before any backend is reached): a newline or space, upper case in
            the path, an empty tag; it used to reach the rendered Job and compose file as it was.
    """
    if len(image) > 255 or not IMAGE_REFERENCE.fullmatch(image):
        raise FaultlibError(f"--image {image!r} is not an image reference: write [REGISTRY[:PORT]/]NAME[:TAG]"
                            "[@DIGEST], the name in lower case (e.g. faultlib/trainer:0.1)")
    return image


#: the backends each backend option applies to (what --help says, and what the error says)
OPTION_BACKENDS = {"--image": ("compose", "kubernetes"), "--namespace": ("kubernetes",),
                   "--crd-dir": ("kubernetes",), "--storage-class": ("kubernetes",), "--volume-size": ("kubernetes",),
                   "--world-workload": ("kubernetes",)}


def get_backend(name: str, *, image: str | None = None, namespace: str | None = None,
                crd_dir: str | Path | None = None, storage_class: str | None = None,
                volume_size: str | None = None, archive: str | None = None,
                world_workload: str | None = None) -> Backend:
    """The backend called ``name``, configured for a run.

    Args:
        name: ``local``, ``compose`` or ``kubernetes``.
        image: compose and kubernetes: the repro image (compose: ``FAULTLIB_IMAGE`` for the compose
            files; kubernetes: the image of the Job and of the topology's Deployments). Default: the backend's own.
        namespace: kubernetes only: the namespace of the run's objects (default ``default``).
        crd_dir: kubernetes only: Chaos Mesh CRD manifests to validate the chaos objects against.
        storage_class: kubernetes only: StorageClass of the run's volume (default: the cluster's default).
        volume_size: kubernetes only: size of the run's volume (default ``1Gi``).
        archive: the run's archive URI; kubernetes brings the pods' evidence back from an ``s3://`` one.
            Every backend takes it.
        world_workload: kubernetes only: a distributed case's ranks as a Kubeflow ``pytorchjob`` (default) or
            an ``indexed-job`` with a headless Service (a cluster without the training operator).

    Raises:
        FaultlibError: an unknown name, or an option the backend does not take (exit 2).
    """
    if name not in BACKENDS:
        raise FaultlibError(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")
    given = {"--image": image, "--namespace": namespace, "--crd-dir": crd_dir, "--storage-class": storage_class,
             "--volume-size": volume_size, "--world-workload": world_workload}
    for option, value in given.items():
        if value is not None and name not in OPTION_BACKENDS[option]:
            allowed = " or ".join(f"--backend {b}" for b in OPTION_BACKENDS[option])
            raise FaultlibError(f"{option} applies to {allowed}, not {name}")
    if image is not None:
        check_image(image)
    if name == "local":
        return LocalBackend()
    if name == "compose":
        from faultlib.backends.compose import ComposeBackend

        return ComposeBackend(image=image)
    from faultlib.backends.kubernetes import KubernetesBackend

    return KubernetesBackend(image=image, namespace=namespace, crd_dir=crd_dir, storage_class=storage_class,
                             volume_size=volume_size, archive=archive, world_workload=world_workload or "pytorchjob")


__all__ = ["BACKENDS", "Backend", "LocalBackend", "get_backend"]
