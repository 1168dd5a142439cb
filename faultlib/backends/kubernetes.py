"""The Kubernetes backend: each phase runs as a batch/v1 Job beside the case's topology; the
faulted phase's fault is the case's Chaos Mesh twin, applied while that Job's pod runs and deleted
right after it.

Per run (objects from :mod:`faultlib.backends.kube_manifests`, all labelled with the run id)::

    preflight   render every object (case checks: keep_local, topology, every chaos selector selects
                one of the run's pods; the chaos objects against --crd-dir when given); with an s3://
                archive, check its endpoint and keys are set; reach the API server (GET /version)
                -> BackendUnavailable (exit 3) when it does not answer
    session     server-side dry run of the chaos objects when no --crd-dir was given; create the
                Secret (s3:// archives), the ConfigMap with the case's files, the run's
                PersistentVolumeClaim and the topology's Deployments and Services; wait until the
                Deployments are ready ... on exit (also on failure) delete them all, newest first
    each phase  create the Job; faulted: wait for its pod to run, create the chaos objects, poll
                their status until Chaos Mesh reports AllInjected; wait for the Job (its pods: one
                per attempt, up to repro.restarts.max + 1); fetch what the pods uploaded into the
                local run directory (s3:// archives); write the pods' logs to stdout.txt; finally
                (also when waiting fails or times out) delete the chaos objects and the Job

The pods write their evidence on the run's volume and upload it to an ``s3://`` archive, from which
the runner fetches it after each phase (:mod:`faultlib.backends.kube_evidence`): a Kubernetes run
then has the same evidence as a local one. A ``file://`` archive cannot be reached from a pod: only
the pods' logs come back, and the backend says so (stderr, stderr.txt, a ``kubernetes`` finding).

API calls go through :class:`~faultlib.backends.kube_api.KubeApi`, which translates client errors.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from faultlib.backends.base import Backend
from faultlib.backends.kube_api import KubeApi
from faultlib.backends.kube_evidence import (MANIFESTS_EVIDENCE, append_findings, fetch_run_dir, loopback_endpoint,
                                             not_collected, secret_values)
from faultlib.backends.kube_manifests import (CONTAINER, DEFAULT_IMAGE, DEFAULT_NAMESPACE, DEFAULT_VOLUME_SIZE,
                                              POD_START_GRACE_S, RunSettings, manifests, pod_label_selector,
                                              render_archive_secret, render_configmap, render_job,
                                              render_volume_claim, to_yaml)
from faultlib.backends.kube_topology import load_topology, render_services
from faultlib.backends.kube_world import check_workload
from faultlib.processes import ProcessOutcome
from faultlib.chaos import PLURALS, CrdSchemas, chaos_entries, render_chaos, validate_case_chaos
from faultlib.chaos.render import POD_KINDS
from faultlib.errors import BackendUnavailable, FaultlibError
from faultlib.evidence import layout

if TYPE_CHECKING:
    from faultlib.cases import Case, World

PROVISIONAL_RUN_ID = "00000000T000000Z-000000"
FILE_ARCHIVE_NOTE = ("the archive is not s3://, and a pod cannot write into a directory of this machine: the pods' "
                     "evidence files stay on the run's volume (deleted with the run) and only their logs come back. "
                     "Use --archive s3://BUCKET/PREFIX for the full evidence")


class KubernetesBackend(Backend):
    """Runs phases as Jobs on the cluster of the current kubeconfig (or in-cluster config).

    Args:
        image: the repro image (default :data:`~faultlib.backends.kube_manifests.DEFAULT_IMAGE`).
        namespace: where every object of the run goes (default ``default``).
        crd_dir: Chaos Mesh CRD manifests to validate the chaos objects against before anything is
            created; without it the API server validates them in a dry run.
        storage_class: StorageClass of the run's PersistentVolumeClaim (default: the cluster's default class).
        volume_size: size of that claim, a Kubernetes quantity (default ``1Gi``).
        archive: the run's archive URI; with ``s3://`` the pods upload their evidence and the backend
            fetches it back (endpoint and keys from the environment, handed to the pods in a Secret).
        api_client: a ``kubernetes.client.ApiClient`` (default: built from kubeconfig, else in-cluster).
        poll_s: seconds between status polls.
        inject_timeout_s: how long Chaos Mesh may take to report a chaos object injected.
        start_timeout_s: how long a pod may take to start (scheduling, image pull) and a Deployment to
            become ready; added to the phase's timeout in the Job's ``activeDeadlineSeconds`` for each
            pod the Job may start.
        deadline_margin_s: how long past ``activeDeadlineSeconds`` to wait for the Job to report
            ``DeadlineExceeded`` before giving up on it as timed out.
        world_workload: a distributed case's ranks as a Kubeflow ``pytorchjob`` (default) or an ``indexed-job``
            with a headless Service (:mod:`faultlib.backends.kube_world`); rendered (``--dry-run``) only: running
            a distributed case on a cluster is refused in :meth:`preflight`.

    Raises:
        FaultlibError: a namespace, storage class or volume size Kubernetes would reject (exit 2).
    """

    name = "kubernetes"

    def __init__(self, *, image: str | None = None, namespace: str | None = None,
                 crd_dir: str | Path | None = None, storage_class: str | None = None, volume_size: str | None = None,
                 archive: str | None = None, api_client: Any = None, poll_s: float = 2.0,
                 inject_timeout_s: float = 120.0, start_timeout_s: float = POD_START_GRACE_S,
                 deadline_margin_s: float = 60.0, world_workload: str = "pytorchjob"):
        self.settings = RunSettings(image=image or DEFAULT_IMAGE, namespace=namespace or DEFAULT_NAMESPACE,
                                    storage_class=storage_class, volume_size=volume_size or DEFAULT_VOLUME_SIZE,
                                    archive=archive, start_grace_s=start_timeout_s)
        self.image, self.namespace = self.settings.image, self.settings.namespace
        self.crd_dir = crd_dir
        self.poll_s = poll_s
        self.inject_timeout_s = inject_timeout_s
        self.start_timeout_s = start_timeout_s
        self.deadline_margin_s = deadline_margin_s
        self.world_workload = check_workload(world_workload)
        self.api = KubeApi(self.namespace, api_client)
        self._case: Case | None = None
        self._run_id = ""
        self._topology = None
        self._chaos: list[dict[str, Any]] = []
        self._findings: list[dict[str, Any]] = []
        self._manifest_file: Path | None = None

    # -- rendering ---------------------------------------------------------------------------------

    def render(self, case: "Case", *, run_id: str, seed: int | None = None, timeout_s: float | None = None,
               control: bool = True) -> list[dict[str, Any]]:
        """Every object a run would create (``--dry-run``), validated against ``crd_dir`` when given.

        Needs no cluster and no kubernetes client.

        Returns:
            The objects in creation order (see :func:`~faultlib.backends.kube_manifests.manifests`).

        Raises:
            CaseValidationError: a chaos object breaks its CRD schema, or a selector selects none of
                the run's pods.
            CaseError: ``keep_local`` or the topology is wrong, or a ``faultlib.dev/rank`` selector does not select
                exactly that rank's pod.
        """
        if self.crd_dir is not None:
            chaos = render_chaos(chaos_entries(case), case_id=case.id, run_id=run_id, namespace=self.namespace,
                                 workload=self.world_workload if case.world else None)
            validate_case_chaos(case, chaos, CrdSchemas(self.crd_dir))
        s = self.settings
        return manifests(case, run_id=run_id, image=s.image, namespace=s.namespace, seed=seed, timeout_s=timeout_s,
                         control=control, start_grace_s=s.start_grace_s, storage_class=s.storage_class,
                         volume_size=s.volume_size, archive=s.archive, world_workload=self.world_workload)

    # -- preflight and session ---------------------------------------------------------------------

    def preflight(self, case: "Case") -> None:
        """Render and check every object, check the archive's keys, then check the API server answers.

        Raises:
            CaseValidationError, CaseError: see :meth:`render` (exit 2).
            FaultlibError: a distributed case (``repro.world``): rendered, not run on a cluster yet (exit 2).
            ArchiveError: an s3:// archive without endpoint or keys in the environment (exit 2).
            MissingDependency: the kubernetes client is not installed.
            BackendUnavailable: no configuration, or the API server does not answer (exit 3).
        """
        self.render(case, run_id=PROVISIONAL_RUN_ID)
        if case.world is not None:
            raise FaultlibError(
                f"{case.id} is a distributed case (repro.world, {case.world.ranks} ranks): the kubernetes backend renders "
                f"its world (`faultlib run {case.path} --backend kubernetes --dry-run` prints the {self.world_workload} "
                "and the chaos objects, for kubectl apply) but does not run it yet; run it here with --backend local")
        if self.settings.s3_archive:
            from faultlib.archive.credentials import environ

            secret_values(environ())
        self.api.version()

    @contextmanager
    def session(self, case: "Case", *, run_id: str, run_dir: Path) -> Iterator[None]:
        """Create what both phases share and delete what is left of the run on exit, also on failure.

        Raises:
            FaultlibError: the API server rejects a chaos object in the dry run, or another object.
            BackendUnavailable: a Deployment of the topology did not become ready in time.
        """
        s = self.settings
        self._case, self._run_id, self._findings = case, run_id, []
        self._topology = load_topology(case)
        self._chaos = render_chaos(chaos_entries(case), case_id=case.id, run_id=run_id, namespace=s.namespace)
        shared = [render_configmap(case, run_id=run_id, namespace=s.namespace),
                  render_volume_claim(case, run_id=run_id, settings=s),
                  *render_services(case, self._topology, run_id=run_id, image=s.image, namespace=s.namespace)]
        shown = list(shared)
        if s.s3_archive:
            from faultlib.archive.credentials import environ

            values = secret_values(environ())
            shared.insert(0, render_archive_secret(case, run_id=run_id, namespace=s.namespace, values=values))
            shown.insert(0, render_archive_secret(case, run_id=run_id, namespace=s.namespace))
            if loopback_endpoint(values):
                _note("FAULTLIB_S3_ENDPOINT names this machine (a loopback address), which a pod cannot reach: "
                      "the pods' uploads will fail unless the cluster runs here with host networking")
        else:
            _note(f"kubernetes backend: {FILE_ARCHIVE_NOTE}")
        self._manifest_file = run_dir / MANIFESTS_EVIDENCE
        self._manifest_file.write_text(to_yaml([*shown, *self._chaos]))  # never the Secret's values
        try:
            if self.crd_dir is None:
                for obj in self._chaos:
                    self.api.dry_run(obj)
            for obj in shared:
                self.api.create(obj)
            self._wait_deployments([o for o in shared if o["kind"] == "Deployment"])
            yield
        finally:
            self._case = None
            try:
                append_findings(run_dir, self._findings)
            finally:
                self.api.delete_all()

    # -- waiting -----------------------------------------------------------------------------------

    def _wait_deployments(self, deployments: list[dict[str, Any]]) -> None:
        """Wait until every Deployment has a ready pod (compose's ``depends_on: service_healthy``).

        Raises:
            BackendUnavailable: one was not ready within ``start_timeout_s``.
        """
        deadline = time.monotonic() + self.start_timeout_s
        for obj in deployments:
            name = obj["metadata"]["name"]
            while True:
                status = self.api.deployment_status(name).status
                if status is not None and (status.ready_replicas or 0) >= 1:
                    break
                if time.monotonic() >= deadline:
                    raise BackendUnavailable(
                        f"Deployment {name} (service {obj['metadata']['labels'].get('faultlib.dev/service')}) had no "
                        f"ready pod within {self.start_timeout_s:g} s: check `kubectl -n {self.namespace} describe "
                        f"deployment {name}` (image pull, readiness probe)")
                time.sleep(self.poll_s)

    def _pods(self, phase: str) -> list[Any]:
        return self.api.pods(pod_label_selector(self._run_id, phase))

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
                conditions = ((self.api.chaos(obj) or {}).get("status") or {}).get("conditions") or []
                if any(c.get("type") == "AllInjected" and c.get("status") == "True" for c in conditions):
                    break
                if time.monotonic() >= deadline:
                    raise BackendUnavailable(
                        f"Chaos Mesh did not report {obj['kind']} {obj['metadata']['name']} injected within "
                        f"{self.inject_timeout_s:g} s (conditions: {conditions or 'none'}): check that Chaos Mesh "
                        f"runs in the cluster and that the selector matches the run's pods")
                time.sleep(self.poll_s)

    def _wait_job(self, job: dict[str, Any], timeout_s: float) -> tuple[str | None, bool]:
        """Poll the Job until it is Complete or Failed; returns (condition, timed out)."""
        name = job["metadata"]["name"]
        deadline = time.monotonic() + timeout_s
        while True:
            current = self.api.job_status(name)
            for condition in (current.status.conditions if current.status else None) or []:
                if condition.type in ("Complete", "Failed") and condition.status == "True":
                    return condition.type, condition.reason == "DeadlineExceeded"
            if time.monotonic() >= deadline:
                return None, True
            time.sleep(self.poll_s)

    def _exit_code(self, phase: str) -> int | None:
        """The repro container's exit code in the newest pod of ``phase`` (its last attempt)."""
        for pod in reversed(self._pods(phase)):
            for status in (pod.status.container_statuses if pod.status else None) or []:
                if status.name == CONTAINER and status.state and status.state.terminated:
                    return status.state.terminated.exit_code
        return None

    # -- evidence ----------------------------------------------------------------------------------

    def _write_logs(self, phase: str, out) -> None:
        for pod in self._pods(phase):
            name = pod.metadata.name
            text = self.api.pod_log(name, CONTAINER)
            out.write(f"# faultlib pod={name}\n{text or ''}".encode())
            if text and not text.endswith("\n"):
                out.write(b"\n")

    def _collect(self, phase: str, run_dir: Path, err) -> None:
        """Bring the pods' evidence back (s3://), or say why it cannot come (stderr.txt and a finding)."""
        archive = self.settings.s3_archive
        if not archive:
            err.write(f"# faultlib: {FILE_ARCHIVE_NOTE}\n".encode())
            self._findings.append(not_collected(phase, self.settings.archive, "the archive is not s3://, and a pod "
                                                "cannot write into a directory of the runner's machine"))
            return
        try:
            names = fetch_run_dir(archive, self._case.id, self._run_id, run_dir)
        except FaultlibError as exc:
            err.write(f"# faultlib: the pods' evidence was not fetched from {archive}: {exc}\n".encode())
            self._findings.append(not_collected(phase, archive, f"fetching it from the archive failed ({exc})"))
            return
        err.write(f"# faultlib: fetched {len(names)} evidence file(s) the pods uploaded to {archive}\n".encode())

    # -- phases ------------------------------------------------------------------------------------

    def run_phase(self, *, script: Path, run_dir: Path, phase: str, env: dict[str, str], timeout_s: float,
                  on_step: Callable[[int, int | None], None], world: "World | None" = None) -> ProcessOutcome:
        """Run one phase as a Job; in the faulted phase, inject the chaos objects while its pod runs.

        The pods' logs (stdout and stderr together) go to stdout.txt; what the backend did, and why
        a phase ended, to stderr.txt. The pods' evidence files come back with an s3:// archive. Step
        progress is not reported (``on_step`` is not called).

        Returns:
            How the phase ended: the exit code of the Job's last pod (the repro's, 128 + N after a
            death by signal N), or timed out.

        Raises:
            BackendUnavailable: the API server stopped answering, or Chaos Mesh did not inject in time.
            FaultlibError: called outside :meth:`session`, or the API server rejected an object.
        """
        case = self._case
        if case is None:
            raise FaultlibError("KubernetesBackend.run_phase called outside session(): the runner enters "
                                "session(case, run_id=..., run_dir=...) first")
        job = render_job(case, run_id=self._run_id, phase=phase, env=env, timeout_s=timeout_s,
                         settings=self.settings, topology=self._topology)
        with open(self._manifest_file, "a") as fh:
            fh.write(to_yaml([job]))
        started = time.monotonic()
        outcome = ProcessOutcome(None, False, 0.0)
        budget_s = job["spec"]["activeDeadlineSeconds"] + self.deadline_margin_s
        with open(run_dir / layout.STDOUT, "ab") as out, open(run_dir / layout.STDERR, "ab") as err:
            for fh in (out, err):
                fh.write(f"# faultlib phase={phase} backend=kubernetes job={job['metadata']['name']}\n".encode())
                fh.flush()
            try:
                self.api.create(job)
                if phase == "faulted" and self._chaos:
                    self._inject(err)
                condition, timed_out = self._wait_job(job, budget_s)
                code = None if timed_out else self._exit_code(phase)
                if code is None and not timed_out:
                    code = 0 if condition == "Complete" else 1
                outcome = ProcessOutcome(code, timed_out, time.monotonic() - started)
            finally:
                try:
                    for step in (lambda: self._collect(phase, run_dir, err), lambda: self._write_logs(phase, out)):
                        try:
                            step()
                        except (FaultlibError, OSError) as exc:
                            err.write(f"# faultlib: {exc}\n".encode())
                    note = (f"# faultlib: phase {phase} killed after {timeout_s:g} s (repro.timeout_s)\n"
                            if outcome.timed_out else f"# faultlib: phase {phase} exit code {outcome.exit_code}\n")
                    err.write(note.encode())
                    err.flush()
                finally:
                    self.api.delete_all(kinds=(*PLURALS, "Job"))
        return outcome

    def _inject(self, err) -> None:
        """Create the chaos objects once the faulted pod runs, and wait until they are injected."""
        if not self._wait_for_running_pod("faulted"):
            err.write(b"# faultlib: the faulted pod did not run in time: chaos objects not created\n")
            return
        for obj in self._chaos:
            self.api.create(obj)
        self._wait_injected()
        names = ", ".join(f"{o['kind']}/{o['metadata']['name']}" for o in self._chaos)
        err.write(f"# faultlib: chaos injected: {names}\n".encode())


def _note(message: str) -> None:
    """A note for the person at the terminal (stderr; stdout may carry --json)."""
    sys.stderr.write(f"note: {message}\n")
    sys.stderr.flush()
