"""The Kubernetes Python clients: the official client's synchronous API classes and both clients' config loaders.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 49 (a gateway's async ``setup`` and a launch quota's lazily built API object). Describing the package
here means the analysis no longer follows its installed source, so its blocking calls are all named:

* the official client (``kubernetes``) is synchronous: every method of its generated API classes
  (``CoreV1Api().read_namespaced_pod(...)``, ``AppsV1Api``, ``CustomObjectsApi``... all named ``*Api``) sends an
  HTTP request with urllib3 and waits for the answer; ``kubernetes.stream.stream`` runs a command over a websocket
  and ``Watch().stream`` reads the event stream;
* ``kubernetes.config.load_incluster_config()`` reads the service-account token and CA certificate from
  ``/var/run/secrets/kubernetes.io/serviceaccount``; ``load_kube_config()`` reads and parses ``~/.kube/config`` (and
  may run an exec credential plugin); ``load_config()`` does one or the other: synchronous file reads;
* the asyncio client ``kubernetes_asyncio`` keeps ``load_incluster_config`` synchronous (its API methods and its
  kubeconfig loaders are coroutines, awaited and so never findings): a sync loader inside an async client library.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

F = "blocking_file_io"
H = "blocking_http"
API = ("https://github.com/kubernetes-client/python#examples (CoreV1Api().list_pod_for_all_namespaces(...) returns "
       "the response: each generated *Api method sends the request synchronously unless async_req=True) and "
       "https://github.com/kubernetes-client/python/blob/master/kubernetes/docs/CoreV1Api.md")
STREAMS = ("https://github.com/kubernetes-client/python/blob/master/examples/pod_exec.py (stream() runs the exec "
           "over a websocket and returns its output) and https://github.com/kubernetes-client/python/blob/master/"
           "examples/watch/pod_namespace_watch.py (Watch().stream blocks for each event)")
INCLUSTER = ("https://github.com/kubernetes-client/python/blob/master/kubernetes/base/config/incluster_config.py "
             "(InClusterConfigLoader reads the token and CA files of the service account) and "
             "https://github.com/tomplus/kubernetes_asyncio (config.load_incluster_config() is called without await)")
KUBECONFIG = ("https://github.com/kubernetes-client/python/blob/master/kubernetes/base/config/kube_config.py "
              "(load_kube_config reads and parses the kubeconfig file)")

_SYNC = ("kubernetes.config", "kubernetes.config.incluster_config", "kubernetes.config.kube_config")
_ASYNC_CLIENT = ("kubernetes_asyncio.config", "kubernetes_asyncio.config.incluster_config")

KUBERNETES = Vocabulary(
    calls={
        **{f"{m}.load_incluster_config": (F, INCLUSTER) for m in (*_SYNC, *_ASYNC_CLIENT)},
        **{f"{m}.{f}": (F, KUBECONFIG) for m in _SYNC for f in ("load_kube_config", "load_config")},
        **{f"{m}.stream": (H, STREAMS) for m in ("kubernetes.stream", "kubernetes.stream.stream")},
    },
    families=(
        Family(("kubernetes.client.",), {"*": H}, API, prefix=True, suffix="Api"),
        Family(("kubernetes.watch.Watch", "kubernetes.watch.watch.Watch"), {"stream": H}, STREAMS),
    ),
    returns={"kubernetes.watch.Watch": "kubernetes.watch.Watch"},
)
