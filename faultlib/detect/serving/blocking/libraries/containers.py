"""The Docker Engine SDK (docker-py): a ``DockerClient`` and the containers, images, networks and volumes it hands
back, every action of which is a synchronous request to the Docker daemon over its socket.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 44 (an MCP server whose async tool handlers list, run, stop and remove containers). ``docker.from_env()``
returns a ``DockerClient``; its collections (``client.containers``, ``.images``, ``.networks``, ``.volumes``) send a
request on ``list``, ``get``, ``create``, ``run``, ``pull``, ``push``, ``build``, ``remove``, ``prune``; the objects
they return (``Container``, ``Image``, ``Network``, ``Volume``) send one on every action (``start``, ``stop``,
``remove``, ``logs``, ``stats``, ``exec_run``, ``reload``...), and ``Container.image`` is a property that fetches the
container's image from the daemon (``client.images.get``). There is no async client in docker-py.
Making the client is a request too: ``docker.from_env()`` and ``DockerClient(...)`` build an ``APIClient``, which
asks the daemon for its API version (``GET /version``) when ``version`` is left out, ``None`` or ``"auto"`` (docker-py
7's default; found by held-out wave 49, a build handler that makes its client per request); a pinned version
(``version="1.41"``) sends nothing.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

H = "blocking_http"
DOCKER = ("https://docker-py.readthedocs.io/en/stable/client.html (DockerClient; containers.html, images.html, "
          "networks.html, volumes.html: each collection and object method is an API request to the daemon)")
IMAGE_PROPERTY = ("https://docker-py.readthedocs.io/en/stable/containers.html#docker.models.containers.Container.image "
                  "(the property calls client.images.get for the container's image id)")
VERSION_QUERY = ("https://docker-py.readthedocs.io/en/stable/client.html#docker.client.from_env (version: \"The version "
                 "of the API to use. Set to auto to automatically detect the server's version\"; docker-py 7 "
                 "detects it when left out: APIClient.__init__ calls _retrieve_server_version, a GET /version)")
CLIENT = ("docker.DockerClient", "docker.client.DockerClient")
_MAKERS = ("docker.from_env", "docker.client.from_env", *CLIENT, *(f"{c}.from_env" for c in CLIENT))
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
    calls={maker: (H, VERSION_QUERY) for maker in _MAKERS},
    when={maker: BlocksWhen("version", None, "one_of", absent=True, values=(None, "auto")) for maker in _MAKERS},
    returns={maker: "docker.DockerClient" for maker in _MAKERS},
    families=(
        Family(CLIENT, {verb: H for verb in _VERBS}, DOCKER, resources=True),
        Family(MODELS, {verb: H for verb in _VERBS}, DOCKER),
    ),
    reads={"docker.models.containers.Container.image": (H, IMAGE_PROPERTY)},
)
