"""Kubernetes client configuration loaders: reading the pod's service-account files or a kubeconfig.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 49 (a gateway's async ``setup`` and a launch quota's lazily built API object). The official client's
``kubernetes.config.load_incluster_config()`` reads the service-account token and CA certificate from
``/var/run/secrets/kubernetes.io/serviceaccount``; ``load_kube_config()`` reads and parses ``~/.kube/config`` (and
may run an exec credential plugin); ``load_config()`` does one or the other. All are synchronous file reads. The
asyncio client ``kubernetes_asyncio`` keeps ``load_incluster_config`` synchronous (only its kubeconfig loaders are
coroutines, awaited and so never a finding): a sync loader inside an async client library.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

F = "blocking_file_io"
INCLUSTER = ("https://github.com/kubernetes-client/python/blob/master/kubernetes/base/config/incluster_config.py "
             "(InClusterConfigLoader reads the token and CA files of the service account) and "
             "https://github.com/tomplus/kubernetes_asyncio (config.load_incluster_config() is called without await)")
KUBECONFIG = ("https://github.com/kubernetes-client/python/blob/master/kubernetes/base/config/kube_config.py "
              "(load_kube_config reads and parses the kubeconfig file)")

_SYNC = ("kubernetes.config", "kubernetes.config.incluster_config", "kubernetes.config.kube_config")
_ASYNC_CLIENT = ("kubernetes_asyncio.config", "kubernetes_asyncio.config.incluster_config")

KUBE_CONFIG = Vocabulary(
    calls={
        **{f"{m}.load_incluster_config": (F, INCLUSTER) for m in (*_SYNC, *_ASYNC_CLIENT)},
        **{f"{m}.{f}": (F, KUBECONFIG) for m in _SYNC for f in ("load_kube_config", "load_config")},
    },
)
