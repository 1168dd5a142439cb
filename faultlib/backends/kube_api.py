"""The one boundary between the Kubernetes backend and the API server.

Every call goes through the official client (``CoreV1Api``, ``AppsV1Api``, ``BatchV1Api``,
``CustomObjectsApi``) with a request timeout, and its errors are translated here:
:class:`~faultlib.errors.BackendUnavailable` (exit 3) when the server does not answer or refuses
our credentials, :class:`~faultlib.errors.FaultlibError` (exit 2) when it rejects a request.

:class:`KubeApi` also remembers every object it created and not yet deleted, so that the backend
can delete what is left of a run, newest first, also when the run fails.
"""

from __future__ import annotations

from typing import Any, Callable

from faultlib.chaos.render import GROUP, PLURALS, VERSION
from faultlib.errors import BackendUnavailable, FaultlibError, require

REQUEST_TIMEOUT_S = 15


class KubeApi:
    """The API calls of one backend, against one namespace.

    Args:
        namespace: where every namespaced call goes.
        api_client: a ``kubernetes.client.ApiClient`` (default: built from kubeconfig, else in-cluster).
    """

    def __init__(self, namespace: str, api_client: Any = None):
        self.namespace = namespace
        self._api_client = api_client
        self.live: list[dict[str, Any]] = []   # created and not yet deleted, in creation order

    # -- client ------------------------------------------------------------------------------------

    def client(self):
        """The ``ApiClient``, built on first use.

        Raises:
            MissingDependency: the kubernetes client is not installed.
            BackendUnavailable: neither a kubeconfig nor an in-cluster configuration is found.
        """
        if self._api_client is None:
            require("kubernetes", "kubernetes")
            from kubernetes import client, config

            configuration = client.Configuration()
            try:
                try:
                    config.load_kube_config(client_configuration=configuration)
                except config.ConfigException:
                    config.load_incluster_config(client_configuration=configuration)
            except config.ConfigException as exc:
                raise BackendUnavailable(f"no Kubernetes configuration found ({exc}): set KUBECONFIG or "
                                         "~/.kube/config, or print the objects with --dry-run") from exc
            self._api_client = client.ApiClient(configuration)
        return self._api_client

    @property
    def core(self):
        from kubernetes import client

        return client.CoreV1Api(self.client())

    @property
    def apps(self):
        from kubernetes import client

        return client.AppsV1Api(self.client())

    @property
    def batch(self):
        from kubernetes import client

        return client.BatchV1Api(self.client())

    @property
    def custom(self):
        from kubernetes import client

        return client.CustomObjectsApi(self.client())

    # -- calls and error translation ---------------------------------------------------------------

    def call(self, what: str, fn: Callable[..., Any], *args: Any, missing_ok: bool = False, hint: str = "",
             **kwargs: Any) -> Any:
        """Call the API, translating client errors at this boundary.

        Returns:
            What ``fn`` returns; None for a 404 when ``missing_ok``.

        Raises:
            BackendUnavailable: the server does not answer, or refuses our credentials (401/403).
            FaultlibError: the server rejected the request (the message quotes its reason and ``hint``).
        """
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        try:
            return fn(*args, _request_timeout=REQUEST_TIMEOUT_S, **kwargs)
        except ApiException as exc:
            if exc.status == 404 and missing_ok:
                return None
            host = self.client().configuration.host
            if exc.status in (401, 403):
                raise BackendUnavailable(f"the Kubernetes API at {host} refused to {what} (HTTP {exc.status} "
                                         f"{exc.reason}): check your credentials and RBAC in namespace "
                                         f"{self.namespace}") from exc
            detail = f": {hint}" if hint and exc.status == 404 else ""
            raise FaultlibError(f"the Kubernetes API at {host} rejected the request to {what} (HTTP {exc.status} "
                                f"{exc.reason}){detail}: {(exc.body or '')[:500]}") from exc
        except (HTTPError, OSError) as exc:
            host = self.client().configuration.host
            raise BackendUnavailable(f"the Kubernetes API server at {host} is not reachable ({exc}): check the "
                                     "cluster and your kubeconfig, or print the objects with --dry-run") from exc

    def chaos_hint(self, kind: str) -> str:
        return (f"the cluster has no {GROUP}/{VERSION} {PLURALS[kind]} resource, or no namespace {self.namespace}: "
                "install Chaos Mesh (https://chaos-mesh.org/docs/) or pass --namespace")

    def _route(self, kind: str) -> tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]:
        """(create function, delete function, leading arguments) of a kind."""
        core, ns = self.core, self.namespace
        if kind == "Job":
            batch = self.batch
            return batch.create_namespaced_job, batch.delete_namespaced_job, ()
        if kind == "Deployment":
            apps = self.apps
            return apps.create_namespaced_deployment, apps.delete_namespaced_deployment, ()
        simple = {"ConfigMap": (core.create_namespaced_config_map, core.delete_namespaced_config_map),
                  "Secret": (core.create_namespaced_secret, core.delete_namespaced_secret),
                  "Service": (core.create_namespaced_service, core.delete_namespaced_service),
                  "PersistentVolumeClaim": (core.create_namespaced_persistent_volume_claim,
                                            core.delete_namespaced_persistent_volume_claim)}
        if kind in simple:
            return (*simple[kind], ())
        custom = self.custom
        return (custom.create_namespaced_custom_object, custom.delete_namespaced_custom_object,
                (GROUP, VERSION, ns, PLURALS[kind]))

    def create(self, obj: dict[str, Any]) -> None:
        """Create ``obj`` in the namespace and remember it for :meth:`delete_all`."""
        kind, name = obj["kind"], obj["metadata"]["name"]
        create, _, lead = self._route(kind)
        hint = (self.chaos_hint(kind) if kind in PLURALS
                else f"namespace {self.namespace} does not exist: create it or pass --namespace")
        if lead:
            self.call(f"create {kind} {name}", create, *lead, obj, hint=hint)
        else:
            self.call(f"create {kind} {name}", create, self.namespace, obj, hint=hint)
        self.live.append(obj)

    def dry_run(self, obj: dict[str, Any]) -> None:
        """Have the server validate a chaos object without creating it (``dryRun=All``)."""
        kind = obj["kind"]
        self.call(f"dry-run create {kind} {obj['metadata']['name']}", self.custom.create_namespaced_custom_object,
                  GROUP, VERSION, self.namespace, PLURALS[kind], obj, dry_run="All", hint=self.chaos_hint(kind))

    def delete(self, obj: dict[str, Any]) -> None:
        """Delete ``obj`` (already gone is fine); Jobs and Deployments take their pods with them."""
        kind, name = obj["kind"], obj["metadata"]["name"]
        _, delete, lead = self._route(kind)
        kwargs = {"propagation_policy": "Background"} if kind in ("Job", "Deployment") else {}
        if lead:
            self.call(f"delete {kind} {name}", delete, *lead, name, missing_ok=True, **kwargs)
        else:
            self.call(f"delete {kind} {name}", delete, name, self.namespace, missing_ok=True, **kwargs)
        if obj in self.live:
            self.live.remove(obj)

    def delete_all(self, kinds: tuple[str, ...] | None = None) -> None:
        """Delete live objects (of ``kinds``, default all), newest first; try every one, then raise the first failure."""
        first: BaseException | None = None
        for obj in reversed(list(self.live)):
            if kinds is None or obj["kind"] in kinds:
                try:
                    self.delete(obj)
                except FaultlibError as exc:
                    first = first or exc
        if first is not None:
            raise first

    # -- reads -------------------------------------------------------------------------------------

    def pods(self, label_selector: str) -> list[Any]:
        """Pods matching ``label_selector``, oldest first."""
        found = self.call("list pods", self.core.list_namespaced_pod, self.namespace, label_selector=label_selector)
        return sorted(found.items, key=lambda p: str(p.metadata.creation_timestamp or ""))

    def pod_log(self, name: str, container: str) -> str | None:
        """The container's log as text, or None when the pod is gone.

        Read raw (``_preload_content=False``) and decoded here: the client would otherwise parse a
        log that looks like JSON, and kubernetes-client 36 returns the ``repr`` of the bytes
        (``"b'...'"``, kubernetes-client/python#2596).
        """
        response = self.call(f"read the log of pod {name}", self.core.read_namespaced_pod_log, name, self.namespace,
                             container=container, missing_ok=True, _preload_content=False)
        if response is None:
            return None
        try:
            return response.data.decode("utf-8", errors="replace")
        finally:
            response.release_conn()

    def job_status(self, name: str) -> Any:
        return self.call(f"read Job {name}", self.batch.read_namespaced_job_status, name, self.namespace)

    def deployment_status(self, name: str) -> Any:
        return self.call(f"read Deployment {name}", self.apps.read_namespaced_deployment_status, name, self.namespace)

    def chaos(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        kind, name = obj["kind"], obj["metadata"]["name"]
        return self.call(f"read {kind} {name}", self.custom.get_namespaced_custom_object, GROUP, VERSION,
                         self.namespace, PLURALS[kind], name)

    def version(self) -> Any:
        from kubernetes import client

        return self.call("read the server version", client.VersionApi(self.client()).get_code)
