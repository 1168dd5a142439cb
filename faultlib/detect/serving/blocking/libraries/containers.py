"""The Docker Engine SDK (docker-py): a ``DockerClient`` and the containers, images, networks and volumes it hands
back, every action of which is a synchronous request to the Docker daemon over its socket.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 44 (an MCP server whose async tool handlers list, run, stop and remove containers). ``docker.from_env()``
returns a ``DockerClient``; its collections (``client.containers``, ``.images``, ``.networks``, ``.volumes``) send a
request on ``list``, ``get``, ``create``, ``run``, ``pull``, ``push``, ``build``, ``remove``, ``prune``; the objects
they return (``Container``, ``Image``, ``Network``, ``Volume``) send one on every action (``start``, ``stop``,
``remove``, ``logs``, ``stats``, ``exec_run``, ``reload``...), and ``Container.image`` is a property that fetches the
container's image from the daemon (``client.images.get``). There is no async client in docker-py.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
DOCKER = ("https://docker-py.readthedocs.io/en/stable/client.html (DockerClient; containers.html, images.html, "
          "networks.html, volumes.html: each collection and object method is an API request to the daemon)")
IMAGE_PROPERTY = ("https://docker-py.readthedocs.io/en/stable/containers.html#docker.models.containers.Container.image "
                  "(the property calls client.images.get for the container's image id)")
CLIENT = ("docker.DockerClient", "docker.client.DockerClient")
MODELS = ("docker.models.containers.Container", "docker.models.images.Image", "docker.models.networks.Network",
          "docker.models.volumes.Volume")

_VERBS = (
    # the client and its collections
    "list", "get", "create", "run", "prune", "pull", "push", "build", "remove", "load", "search",
    "get_registry_data", "info", "ping", "version", "df", "events", "login",
    # the objects: Container, Image, Network, Volume
    "attach", "commit", "diff", "exec_run", "export", "get_archive", "put_archive", "kill", "logs", "pause",
    "unpause", "reload", "rename", "resize", "restart", "start", "stats", "stop", "top", "update", "wait",
    "history", "save", "tag", "connect", "disconnect")

CONTAINERS = Vocabulary(
    returns={"docker.from_env": "docker.DockerClient", "docker.client.from_env": "docker.DockerClient"},
    families=(
        Family(CLIENT, {verb: H for verb in _VERBS}, DOCKER, resources=True),
        Family(MODELS, {verb: H for verb in _VERBS}, DOCKER),
    ),
    reads={"docker.models.containers.Container.image": (H, IMAGE_PROPERTY)},
)
