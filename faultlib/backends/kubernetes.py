"""The Kubernetes backend: each phase runs as a batch/v1 Job; the faulted phase's fault is the
case's Chaos Mesh twin, applied while that Job's pod runs and deleted right after it.

Per run (objects from :mod:`faultlib.backends.kube_manifests`, all labelled with the run id)::

    preflight   validate the chaos objects (against --crd-dir, else a server-side dry run later);
                reach the API server (GET /version) -> BackendUnavailable (exit 3) when it does not answer
    session     server-side dry run of the chaos objects when no --crd-dir was given; create the
                ConfigMap with the case's files ... delete it on exit (also on failure)
    each phase  create the Job; faulted: wait for its pod to run, create the chaos objects, poll
                their status until Chaos Mesh reports AllInjected; wait for the Job; write the pods'
                logs to stdout.txt; finally (also when waiting fails or times out) delete the chaos
                objects and the Job (propagation Background: its pods go too)

Every call goes through the official client (``CustomObjectsApi``, ``BatchV1Api``, ``CoreV1Api``);
its errors are translated to ours at this boundary. What the pod writes under ``/faultlib/run``
stays in the pod (an ``emptyDir``): the evidence that comes back is the pods' logs.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from faultlib.backends.base import Backend
from faultlib.backends.kube_manifests import (CONTAINER, DEFAULT_IMAGE, DEFAULT_NAMESPACE, POD_START_GRACE_S,
                                              manifests, pod_label_selector, render_configmap, render_job,
                                              to_yaml)
from faultlib.backends.local import ProcessOutcome
from faultlib.chaos import GROUP, PLURALS, VERSION, CrdSchemas, chaos_entries, render_chaos, validate_case_chaos
from faultlib.chaos.render import POD_KINDS
from faultlib.errors import BackendUnavailable, FaultlibError, require
from faultlib.evidence import layout

if TYPE_CHECKING:
    from faultlib.cases import Case

MANIFESTS_EVIDENCE = "kubernetes.yaml"
REQUEST_TIMEOUT_S = 15
PROVISIONAL_RUN_ID = "00000000T000000Z-000000"


class KubernetesBackend(Backend):
    """Runs phases as Jobs on the cluster of the current kubeconfig (or in-cluster config).

    Args:
        image: the repro image (default :data:`~faultlib.backends.kube_manifests.DEFAULT_IMAGE`).
        namespace: where the Job, ConfigMap and chaos objects go (default ``default``).
        crd_dir: Chaos Mesh CRD manifests to validate the chaos objects against before anything is
            created; without it the API server validates them in a dry run.
        api_client: a ``kubernetes.client.ApiClient`` (default: built from kubeconfig, else in-cluster).
        poll_s: seconds between status polls.
        inject_timeout_s: how long Chaos Mesh may take to report a chaos object injected.
        start_timeout_s: how long a Job's pod may take to start (scheduling, image pull); added to
            the phase's timeout in the Job's ``activeDeadlineSeconds``.
        deadline_margin_s: how long past ``activeDeadlineSeconds`` to wait for the Job to report
            ``DeadlineExceeded`` before giving up on it as timed out.
    """

    name = "kubernetes"

    def __init__(self, *, image: str | None = None, namespace: str | None = None,
                 crd_dir: str | Path | None = None, api_client: Any = None, poll_s: float = 2.0,
                 inject_timeout_s: float = 120.0, start_timeout_s: float = POD_START_GRACE_S,
                 deadline_margin_s: float = 60.0):
        self.image = image or DEFAULT_IMAGE
        self.namespace = namespace or DEFAULT_NAMESPACE
        self.crd_dir = crd_dir
        self.poll_s = poll_s
        self.inject_timeout_s = inject_timeout_s
        self.start_timeout_s = start_timeout_s
        self.deadline_margin_s = deadline_margin_s
        self._api_client = api_client
        self._case: Case | None = None
        self._run_id = ""
        self._chaos: list[dict[str, Any]] = []
        self._live: list[dict[str, Any]] = []   # created and not yet deleted, in creation order
        self._manifest_file: Path | None = None

    # -- client and error translation --------------------------------------------------------------

    def _client(self):
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

    def _apis(self):
        from kubernetes import client

        api = self._client()
        return client.CustomObjectsApi(api), client.BatchV1Api(api), client.CoreV1Api(api)

    def _call(self, what: str, fn: Callable[..., Any], *args: Any, missing_ok: bool = False,
              hint: str = "", **kwargs: Any) -> Any:
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
            host = self._client().configuration.host
            if exc.status in (401, 403):
                raise BackendUnavailable(f"the Kubernetes API at {host} refused to {what} (HTTP {exc.status} "
                                         f"{exc.reason}): check your credentials and RBAC in namespace "
                                         f"{self.namespace}") from exc
            detail = f": {hint}" if hint and exc.status == 404 else ""
            raise FaultlibError(f"the Kubernetes API at {host} rejected the request to {what} (HTTP {exc.status} "
                                f"{exc.reason}){detail}: {(exc.body or '')[:500]}") from exc
        except (HTTPError, OSError) as exc:
            host = self._client().configuration.host
            raise BackendUnavailable(f"the Kubernetes API server at {host} is not reachable ({exc}): check the "
                                     "cluster and your kubeconfig, or print the objects with --dry-run") from exc

    def _chaos_hint(self, kind: str) -> str:
        return (f"the cluster has no {GROUP}/{VERSION} {PLURALS[kind]} resource, or no namespace {self.namespace}: "
                "install Chaos Mesh (https://chaos-mesh.org/docs/) or pass --namespace")

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, case: "Case", *, run_id: str, seed: int | None = None, timeout_s: float | None = None,
               control: bool = True) -> list[dict[str, Any]]:
        """Every object a run would create (``--dry-run``), validated against ``crd_dir`` when given.

        Needs no cluster and no kubernetes client.

        Returns:
            The ConfigMap, the Job of each phase, then the chaos objects (see :func:`manifests`).

        Raises:
            CaseValidationError: a chaos object breaks its CRD schema.
        """
        objects = manifests(case, run_id=run_id, image=self.image, namespace=self.namespace, seed=seed,
                            timeout_s=timeout_s, control=control, start_grace_s=self.start_timeout_s)
        if self.crd_dir is not None:
            chaos = [o for o in objects if o["apiVersion"].startswith(f"{GROUP}/")]
            validate_case_chaos(case, chaos, CrdSchemas(self.crd_dir))
        return objects

    # -- preflight and session ---------------------------------------------------------------------

    def preflight(self, case: "Case") -> None:
        """Validate the case's chaos objects (with ``crd_dir``), then check the API server answers.

        Raises:
            CaseValidationError: a chaos spec breaks its CRD schema (exit 2).
            MissingDependency: the kubernetes client is not installed.
            BackendUnavailable: no configuration, or the API server does not answer (exit 3).
        """
        if self.crd_dir is not None:
            objects = render_chaos(chaos_entries(case), case_id=case.id, run_id=PROVISIONAL_RUN_ID,
                                   namespace=self.namespace)
            validate_case_chaos(case, objects, CrdSchemas(self.crd_dir))
        require("kubernetes", "kubernetes")
        from kubernetes import client

        self._call("read the server version", client.VersionApi(self._client()).get_code)

    @contextmanager
    def session(self, case: "Case", *, run_id: str, run_dir: Path) -> Iterator[None]:
        """Create the run's ConfigMap (after a dry run of the chaos objects) and delete what is left on exit.

        Raises:
            FaultlibError: the API server rejects a chaos object in the dry run.
        """
        custom, _, core = self._apis()
        self._case, self._run_id = case, run_id
        self._chaos = render_chaos(chaos_entries(case), case_id=case.id, run_id=run_id, namespace=self.namespace)
        configmap = render_configmap(case, run_id=run_id, namespace=self.namespace)
        self._manifest_file = run_dir / MANIFESTS_EVIDENCE
        self._manifest_file.write_text(to_yaml([configmap, *self._chaos]))
        try:
            if self.crd_dir is None:
                for obj in self._chaos:
                    self._call(f"dry-run create {obj['kind']} {obj['metadata']['name']}",
                               custom.create_namespaced_custom_object, GROUP, VERSION, self.namespace,
                               PLURALS[obj["kind"]], obj, dry_run="All", hint=self._chaos_hint(obj["kind"]))
            self._create(configmap, core.create_namespaced_config_map, self.namespace, configmap,
                         hint=f"namespace {self.namespace} does not exist: create it or pass --namespace")
            yield
        finally:
            self._case = None
            self._delete_all()

    # -- create / delete ---------------------------------------------------------------------------

    def _create(self, obj: dict[str, Any], fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._call(f"create {obj['kind']} {obj['metadata']['name']}", fn, *args, **kwargs)
        self._live.append(obj)

    def _delete(self, obj: dict[str, Any]) -> None:
        custom, batch, core = self._apis()
        name, kind = obj["metadata"]["name"], obj["kind"]
        if kind == "Job":
            fn, args, kwargs = batch.delete_namespaced_job, (name, self.namespace), {"propagation_policy": "Background"}
        elif kind == "ConfigMap":
            fn, args, kwargs = core.delete_namespaced_config_map, (name, self.namespace), {}
        else:
            fn, args, kwargs = (custom.delete_namespaced_custom_object,
                                (GROUP, VERSION, self.namespace, PLURALS[kind], name), {})
        self._call(f"delete {kind} {name}", fn, *args, missing_ok=True, **kwargs)
        self._live.remove(obj)

    def _delete_all(self, kinds: tuple[str, ...] | None = None) -> None:
        """Delete live objects, newest first; try every one, then raise the first failure."""
        first: BaseException | None = None
        for obj in reversed(list(self._live)):
            if kinds is None or obj["kind"] in kinds:
                try:
                    self._delete(obj)
                except FaultlibError as exc:
                    first = first or exc
        if first is not None:
            raise first

    # -- waiting -----------------------------------------------------------------------------------

    def _pods(self, phase: str) -> list[Any]:
        _, _, core = self._apis()
        pods = self._call(f"list the {phase} pods", core.list_namespaced_pod, self.namespace,
                          label_selector=pod_label_selector(self._run_id, phase))
        return sorted(pods.items, key=lambda p: str(p.metadata.creation_timestamp or ""))

    def _wait_for_running_pod(self, phase: str) -> bool:
        """True once a pod of ``phase`` runs; False when they all finished first or none started in time."""
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            states = [p.status.phase if p.status else None for p in self._pods(phase)]
            if "Running" in states:
                return True
            if states and all(s in ("Succeeded", "Failed") for s in states):
                return False
            time.sleep(self.poll_s)
        return False

    def _injected(self, obj: dict[str, Any]) -> tuple[bool, list[dict[str, Any]]]:
        custom, _, _ = self._apis()
        name = obj["metadata"]["name"]
        current = self._call(f"read {obj['kind']} {name}", custom.get_namespaced_custom_object, GROUP, VERSION,
                             self.namespace, PLURALS[obj["kind"]], name)
        conditions = ((current or {}).get("status") or {}).get("conditions") or []
        done = any(c.get("type") == "AllInjected" and c.get("status") == "True" for c in conditions)
        return done, conditions

    def _wait_injected(self) -> None:
        """Poll each pod-acting chaos object until Chaos Mesh reports it AllInjected.

        Schedules and Workflows inject on their own timetable and are not waited for.

        Raises:
            BackendUnavailable: an object was not reported injected within ``inject_timeout_s``.
        """
        deadline = time.monotonic() + self.inject_timeout_s
        for obj in self._chaos:
            if obj["kind"] not in POD_KINDS:
                continue
            while True:
                done, conditions = self._injected(obj)
                if done:
                    break
                if time.monotonic() >= deadline:
                    raise BackendUnavailable(
                        f"Chaos Mesh did not report {obj['kind']} {obj['metadata']['name']} injected within "
                        f"{self.inject_timeout_s:g} s (conditions: {conditions or 'none'}): check that Chaos Mesh "
                        f"runs in the cluster and that the selector matches the Job's pods")
                time.sleep(self.poll_s)

    def _wait_job(self, job: dict[str, Any], timeout_s: float) -> tuple[str | None, bool]:
        """Poll the Job until it is Complete or Failed; returns (condition, timed out)."""
        _, batch, _ = self._apis()
        name = job["metadata"]["name"]
        deadline = time.monotonic() + timeout_s
        while True:
            current = self._call(f"read Job {name}", batch.read_namespaced_job_status, name, self.namespace)
            for condition in (current.status.conditions if current.status else None) or []:
                if condition.type in ("Complete", "Failed") and condition.status == "True":
                    return condition.type, condition.reason == "DeadlineExceeded"
            if time.monotonic() >= deadline:
                return None, True
            time.sleep(self.poll_s)

    def _exit_code(self, phase: str) -> int | None:
        for pod in reversed(self._pods(phase)):
            for status in (pod.status.container_statuses if pod.status else None) or []:
                if status.name == CONTAINER and status.state and status.state.terminated:
                    return status.state.terminated.exit_code
        return None

    def _write_logs(self, phase: str, out) -> None:
        _, _, core = self._apis()
        for pod in self._pods(phase):
            name = pod.metadata.name
            text = self._call(f"read the log of pod {name}", core.read_namespaced_pod_log, name, self.namespace,
                              container=CONTAINER, missing_ok=True)
            out.write(f"# faultlib pod={name}\n{text or ''}".encode())
            if text and not text.endswith("\n"):
                out.write(b"\n")

    # -- phases ------------------------------------------------------------------------------------

    def run_phase(self, *, script: Path, run_dir: Path, phase: str, env: dict[str, str], timeout_s: float,
                  on_step: Callable[[int, int | None], None]) -> ProcessOutcome:
        """Run one phase as a Job; in the faulted phase, inject the chaos objects while its pod runs.

        The pods' logs (stdout and stderr together) go to stdout.txt; what the backend did, and why
        a phase ended, to stderr.txt. Step progress is not reported (``on_step`` is not called).

        Raises:
            BackendUnavailable: the API server stopped answering, or Chaos Mesh did not inject in time.
            FaultlibError: called outside :meth:`session`, or the API server rejected an object.
        """
        if self._case is None:
            raise FaultlibError("KubernetesBackend.run_phase called outside session(): the runner enters "
                                "session(case, run_id=..., run_dir=...) first")
        _, batch, _ = self._apis()
        job = render_job(self._case, run_id=self._run_id, phase=phase, env=env, image=self.image,
                         namespace=self.namespace, timeout_s=timeout_s, start_grace_s=self.start_timeout_s)
        with open(self._manifest_file, "a") as fh:
            fh.write(to_yaml([job]))
        started = time.monotonic()
        outcome = ProcessOutcome(None, False, 0.0)
        with open(run_dir / layout.STDOUT, "ab") as out, open(run_dir / layout.STDERR, "ab") as err:
            for fh in (out, err):
                fh.write(f"# faultlib phase={phase} backend=kubernetes job={job['metadata']['name']}\n".encode())
                fh.flush()
            try:
                self._create(job, batch.create_namespaced_job, self.namespace, job,
                             hint=f"namespace {self.namespace} does not exist: create it or pass --namespace")
                if phase == "faulted" and self._chaos:
                    self._inject(err)
                condition, timed_out = self._wait_job(job, timeout_s + self.start_timeout_s + self.deadline_margin_s)
                code = None if timed_out else self._exit_code(phase)
                if code is None and not timed_out:
                    code = 0 if condition == "Complete" else 1
                outcome = ProcessOutcome(code, timed_out, time.monotonic() - started)
            finally:
                try:
                    self._write_logs(phase, out)
                except FaultlibError as exc:
                    err.write(f"# faultlib: pod logs not collected: {exc}\n".encode())
                note = (f"# faultlib: phase {phase} killed after {timeout_s:g} s (repro.timeout_s)\n"
                        if outcome.timed_out else f"# faultlib: phase {phase} exit code {outcome.exit_code}\n")
                err.write(note.encode())
                err.flush()
                self._delete_all(kinds=(*PLURALS, "Job"))
        return outcome

    def _inject(self, err) -> None:
        """Create the chaos objects once the faulted pod runs, and wait until they are injected."""
        custom, _, _ = self._apis()
        if not self._wait_for_running_pod("faulted"):
            err.write(b"# faultlib: the faulted pod did not run in time: chaos objects not created\n")
            return
        for obj in self._chaos:
            self._create(obj, custom.create_namespaced_custom_object, GROUP, VERSION, self.namespace,
                         PLURALS[obj["kind"]], obj, hint=self._chaos_hint(obj["kind"]))
        self._wait_injected()
        names = ", ".join(f"{o['kind']}/{o['metadata']['name']}" for o in self._chaos)
        err.write(f"# faultlib: chaos injected: {names}\n".encode())
