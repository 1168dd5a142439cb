"""The Kubernetes objects of one run, as plain dicts, in creation order:

1. a **Secret** with the archive's endpoint and keys, only when the archive is ``s3://`` (the pod
   uploads its evidence there; the Job reads the values with ``secretKeyRef``, never as plain values);
2. a **ConfigMap** with the case's files, mounted at ``/case``;
3. a **PersistentVolumeClaim** for the run directory, shared by both phases' pods: what a pod
   writes (evidence, checkpoints) outlives the pod, so a pod killed by PodChaos leaves its
   checkpoints to the pod the Job starts next (``subPath: run`` at ``/faultlib/run``), and the
   entry point keeps its attempt count beside it (``subPath: state`` at ``/faultlib/state``);
4. a **Deployment** and a **Service** per service of the case's topology beside the repro
   (:mod:`faultlib.backends.kube_topology`);
5. the batch/v1 **Job** of each phase;
6. the **Chaos Mesh objects** of the case's twin (:mod:`faultlib.chaos`), created while the faulted
   Job's pod runs.

The Job runs the pod entry point :mod:`faultlib.backends.kube_pod` in the repro image (default
:data:`DEFAULT_IMAGE`: Python, faultlib and the case's packages), which numbers the attempt, runs
``python /case/<repro.script>`` and uploads the run directory to an ``s3://`` archive. Its pods carry
the labels ``faultlib.dev/run-id``, ``faultlib.dev/case`` and ``faultlib.dev/phase`` (which the chaos
objects' default selector matches) and the compose labels of the repro's service.

With a twin, the faulted pod gets the twin *instead of* the local shims: ``FAULTLIB_FAULTS`` keeps
only the shims listed in ``inject.kubernetes.keep_local`` (default none), so no fault is applied
twice. ``backoffLimit`` is ``repro.restarts.max`` and a ``podFailurePolicy`` fails the Job at once
on an exit that is not a death by one of ``repro.restarts.on_signal``, as the local runner does.

Nothing here talks to a cluster: ``faultlib run CASE --backend kubernetes --dry-run`` prints
:func:`manifests` as YAML documents (the Secret with its values redacted).
"""

from __future__ import annotations

import json
import math
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from faultlib.backends.kube_names import (CASE_MOUNT, CONTAINER, DEFAULT_IMAGE, DEFAULT_NAMESPACE,
                                          DEFAULT_VOLUME_SIZE, DNS_LABEL, DNS_SUBDOMAIN, EVIDENCE_MOUNT,
                                          POD_START_GRACE_S, STATE_MOUNT, claim_name, configmap_name, job_name,
                                          pod_label_selector, run_labels, secret_name)
from faultlib.backends.kube_topology import Topology, host_names, load_topology, pod_environment, render_services
from faultlib.backends.kube_world import rank_of, render_world, world_pods
from faultlib.chaos.render import GROUP, LABEL_RANK, chaos_entries, render_chaos
from faultlib.chaos.selectors import pod_selectors, selects
from faultlib.errors import CaseError, CaseValidationError, FaultlibError

if TYPE_CHECKING:
    from faultlib.cases import Case

CONFIGMAP_LIMIT_BYTES = 900_000  # a ConfigMap holds at most 1 MiB, object metadata included
CONFIGMAP_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$")
ARCHIVE_KEYS = ("FAULTLIB_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
OPTIONAL_ARCHIVE_KEYS = ("AWS_SESSION_TOKEN",)
REDACTED = "<redacted: set from the runner's environment at run time>"
POD_ENTRY = "faultlib.backends.kube_pod"


#: the largest value a Kubernetes quantity holds: larger ones are capped to it (apimachinery resource.Quantity)
MAX_QUANTITY = 2**63 - 1
_SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def quantity_bytes(text: str) -> int | None:
    """The bytes a quantity such as ``1Gi`` or ``1.5G`` stands for (rounded up, as Kubernetes rounds), or None when
    ``text`` is not one (:data:`QUANTITY`). Any number of digits is accepted and compared exactly (no ``int()`` of
    thousands of digits: a number too long to be <= :data:`MAX_QUANTITY` answers ``MAX_QUANTITY + 1``)."""
    match = QUANTITY.match(text)
    if not match:
        return None
    whole, _, fraction = match[0].rstrip("KMGTPEik").partition(".")
    if len(whole.lstrip("0")) > 20:
        return MAX_QUANTITY + 1
    factor = _SUFFIX[match[2] or ""]
    fraction = fraction[:24]  # beyond 24 decimals nothing changes a byte count of at most 2**63
    return -(-(int(whole + fraction or "0") * factor) // 10 ** len(fraction))


@dataclass(frozen=True)
class RunSettings:
    """How a run's objects are configured (the ``faultlib run`` options of the kubernetes backend).

    Attributes:
        image: the repro image of the Job and of the topology's Deployments.
        namespace: where every object goes (a DNS label).
        storage_class: the PersistentVolumeClaim's ``storageClassName``; None: the cluster's default class.
        volume_size: the claim's requested size, a Kubernetes quantity (default ``1Gi``).
        archive: the run's archive URI; only ``s3://`` makes the pod upload its evidence.
        start_grace_s: time each pod may take to start (scheduling, image pull).

    Raises:
        FaultlibError: a namespace, storage class or size Kubernetes would reject (exit 2).
    """

    image: str = DEFAULT_IMAGE
    namespace: str = DEFAULT_NAMESPACE
    storage_class: str | None = None
    volume_size: str = DEFAULT_VOLUME_SIZE
    archive: str | None = None
    start_grace_s: float = POD_START_GRACE_S

    def __post_init__(self) -> None:
        if not DNS_LABEL.match(self.namespace):
            raise FaultlibError(f"--namespace {self.namespace!r} is not a valid namespace name: at most 63 "
                                "characters of a-z, 0-9 and '-', starting and ending with a letter or digit")
        if self.storage_class is not None and not DNS_SUBDOMAIN.match(self.storage_class):
            raise FaultlibError(f"--storage-class {self.storage_class!r} is not a valid StorageClass name "
                                "(lower-case DNS subdomain): see `kubectl get storageclass`")
        size = quantity_bytes(self.volume_size)
        if size is None or size <= 0:
            raise FaultlibError(f"--volume-size {self.volume_size!r} is not a positive Kubernetes quantity: "
                                "write it like 1Gi, 500Mi or 10G")
        if size > MAX_QUANTITY:
            raise FaultlibError(f"--volume-size {self.volume_size!r} is larger than a Kubernetes quantity holds "
                                "(2**63-1 bytes, about 8Ei; the API server would cap it silently): write the size "
                                "the volume needs, like 20Gi")

    @property
    def s3_archive(self) -> str | None:
        """The archive URI when the pod can upload into it (``s3://``), else None."""
        return self.archive if self.archive and self.archive.startswith("s3://") else None


def render_configmap(case: "Case", *, run_id: str, namespace: str) -> dict[str, Any]:
    """A ConfigMap holding the case directory's top-level text files (repro script, case.yaml ...).

    Raises:
        CaseError: the files exceed what a ConfigMap holds, or the repro script is not text.
    """
    data: dict[str, str] = {}
    for path in sorted(p for p in case.path.iterdir() if p.is_file() and CONFIGMAP_KEY.match(p.name)):
        try:
            data[path.name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            if path == case.script:
                raise CaseError("the repro script is not UTF-8 text", path=path) from None
    size = sum(len(v.encode()) for v in data.values())
    if size > CONFIGMAP_LIMIT_BYTES:
        raise CaseError(f"the case's files take {size} bytes, more than a ConfigMap holds ({CONFIGMAP_LIMIT_BYTES}): "
                        "keep data out of the case directory (load it at run time)", path=case.path)
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": configmap_name(case.id, run_id), "namespace": namespace,
                         "labels": run_labels(case.id, run_id)},
            "data": data}


def render_volume_claim(case: "Case", *, run_id: str, settings: RunSettings) -> dict[str, Any]:
    """The run's PersistentVolumeClaim: ReadWriteOnce (the phases' pods use it one after the other), or
    ReadWriteMany for a distributed case (every rank's pod mounts it at once, maybe on different nodes)."""
    spec: dict[str, Any] = {"accessModes": ["ReadWriteMany" if case.world else "ReadWriteOnce"], "resources": {"requests": {"storage": settings.volume_size}}}
    if settings.storage_class is not None:
        spec["storageClassName"] = settings.storage_class
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim_name(case.id, run_id), "namespace": settings.namespace,
                         "labels": run_labels(case.id, run_id)},
            "spec": spec}


def render_archive_secret(case: "Case", *, run_id: str, namespace: str,
                          values: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The run's Secret with the archive's endpoint and keys (``stringData``).

    Args:
        values: the values by variable name (:data:`ARCHIVE_KEYS`, optionally ``AWS_SESSION_TOKEN``);
            None renders :data:`REDACTED` placeholders, for ``--dry-run`` and the evidence.
    """
    data = {k: REDACTED for k in ARCHIVE_KEYS} if values is None else {
        k: values[k] for k in (*ARCHIVE_KEYS, *OPTIONAL_ARCHIVE_KEYS) if values.get(k)}
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": secret_name(case.id, run_id), "namespace": namespace,
                         "labels": run_labels(case.id, run_id)},
            "stringData": data}


def keep_local(case: "Case") -> list[str]:
    """``inject.kubernetes.keep_local``: the shims that still apply beside the twin (default none)."""
    return list(case.raw["inject"]["kubernetes"].get("keep_local") or [])


def check_keep_local(case: "Case") -> None:
    """Raise :class:`CaseError` when ``keep_local`` names a shim the case has not, or the case has no twin."""
    kubernetes = case.raw["inject"]["kubernetes"]
    path, names = case.path / "case.yaml", {s.name for s in case.shims}
    for index, name in enumerate(keep_local(case)):
        if kubernetes.get("twin") is None:
            raise CaseError("keep_local keeps shims beside a twin, and this case has none (twin: null): leave it out",
                            path=path, field=f"inject.kubernetes.keep_local[{index}]")
        if name not in names:
            raise CaseError(f"keep_local names {name!r}, which is not a shim of inject.local "
                            f"({', '.join(sorted(names)) or 'none'})", path=path,
                            field=f"inject.kubernetes.keep_local[{index}]")


def pod_faults(case: "Case", faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The faults the faulted pod applies itself: all of them without a twin; with one, only the
    shims in ``keep_local`` (the twin replaces the rest)."""
    if case.raw["inject"]["kubernetes"].get("twin") is None:
        return list(faults)
    kept = set(keep_local(case))
    return [f for f in faults if f.get("shim") in kept]


def _failure_policy(case: "Case") -> dict[str, Any]:
    """Fail the Job at once on an exit that no listed signal caused (exit 128+N is a death by signal N)."""
    codes = sorted({128 + signal.Signals[name].value for name in case.restarts.on_signal})
    return {"rules": [{"action": "FailJob",
                       "onExitCodes": {"containerName": CONTAINER, "operator": "NotIn", "values": codes}}]}


def render_job(case: "Case", *, run_id: str, phase: str, env: dict[str, str], timeout_s: float,
               settings: RunSettings, topology: Topology | None = None) -> dict[str, Any]:
    """The batch/v1 Job of one phase.

    Args:
        case: the case.
        run_id: the run id (labels, names).
        phase: ``control`` or ``faulted``.
        env: the phase's variables (:func:`faultlib.repro.phase_env`). ``FAULTLIB_RUN_DIR`` becomes
            the pod's evidence mount, ``FAULTLIB_ATTEMPT`` is left to the pod entry point (it counts
            the phase's attempts on the run's volume), ``FAULTLIB_FAULTS`` keeps :func:`pod_faults`.
        timeout_s: the phase's budget in seconds; ``activeDeadlineSeconds`` adds ``start_grace_s`` for
            each pod the Job may start (``repro.restarts.max`` + 1).
        settings: image, namespace, archive (:class:`RunSettings`).
        topology: the case's topology (default: read from its compose file).

    Returns:
        The Job as a dict (valid against the Kubernetes OpenAPI schema of batch/v1 Job).
    """
    from faultlib.repro import ENV_ATTEMPT, ENV_FAULTS, ENV_RUN_DIR  # loads the injector registry (jsonschema)

    topology = topology or load_topology(case)
    labels = {**topology.repro.labels, **run_labels(case.id, run_id, phase)}
    compose_env = pod_environment(topology.repro.environment, hosts=host_names(case, topology, run_id),
                                  absent=topology.absent)
    phase_env = {k: v for k, v in env.items() if k != ENV_ATTEMPT}
    phase_env[ENV_FAULTS] = json.dumps(pod_faults(case, json.loads(env.get(ENV_FAULTS) or "[]")))
    container_env = {**compose_env, **phase_env, ENV_RUN_DIR: EVIDENCE_MOUNT, "PYTHONUNBUFFERED": "1"}
    env_list: list[dict[str, Any]] = [{"name": k, "value": v} for k, v in container_env.items()]
    command = ["python", "-m", POD_ENTRY, "--state-dir", STATE_MOUNT]
    if settings.s3_archive:
        command += ["--archive", settings.s3_archive]
        secret = secret_name(case.id, run_id)
        env_list += [{"name": k, "valueFrom": {"secretKeyRef": {"name": secret, "key": k,
                                                                **({"optional": True} if k in OPTIONAL_ARCHIVE_KEYS
                                                                   else {})}}}
                     for k in (*ARCHIVE_KEYS, *OPTIONAL_ARCHIVE_KEYS)]
    container = {
        "name": CONTAINER,
        "image": settings.image,
        "command": [*command, "--", "python", f"{CASE_MOUNT}/{case.script.name}"],
        "workingDir": CASE_MOUNT,
        "env": env_list,
        "volumeMounts": [{"name": "case", "mountPath": CASE_MOUNT, "readOnly": True},
                         {"name": "run", "mountPath": EVIDENCE_MOUNT, "subPath": "run"},
                         {"name": "run", "mountPath": STATE_MOUNT, "subPath": "state"}],
    }
    spec: dict[str, Any] = {
        "backoffLimit": case.restarts.max,
        "activeDeadlineSeconds": math.ceil(timeout_s + settings.start_grace_s * (case.restarts.max + 1)),
        "template": {
            "metadata": {"labels": labels},
            "spec": {
                "restartPolicy": "Never",
                "containers": [container],
                "volumes": [{"name": "case", "configMap": {"name": configmap_name(case.id, run_id)}},
                            {"name": "run", "persistentVolumeClaim": {"claimName": claim_name(case.id, run_id)}}],
            },
        },
    }
    if case.restarts.max:
        spec["podFailurePolicy"] = _failure_policy(case)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": job_name(case.id, phase, run_id), "namespace": settings.namespace,
                         "labels": run_labels(case.id, run_id, phase)},
            "spec": spec}


def phase_variables(case: "Case", *, run_id: str, phase: str, seed: int) -> dict[str, str]:
    """The variables the runner gives a phase (control: no faults; faulted: the case's shims)."""
    from faultlib.repro import phase_env

    faults = [{"shim": s.name, "params": s.params} for s in case.shims] if phase == "faulted" else []
    return phase_env(run_dir=Path(EVIDENCE_MOUNT), run_id=run_id, case_id=case.id, phase=phase, seed=seed,
                     params=case.params, faults=faults)


def pod_templates(objects: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, str]]]:
    """``(object name, namespace, pod labels)`` of every pod the objects would run, Jobs and Deployments; a
    distributed case's PyTorchJob or Indexed Job gives one entry per rank (:func:`~faultlib.backends.kube_world.world_pods`:
    the pod's name and the labels its controller adds)."""
    pods = []
    for o in objects:
        per_rank = world_pods(o)
        if per_rank:
            pods += per_rank
        elif o["kind"] in ("Job", "Deployment"):
            pods.append((o["metadata"]["name"], o["metadata"]["namespace"], o["spec"]["template"]["metadata"]["labels"]))
    return pods


def check_selectors(case: "Case", chaos: list[dict[str, Any]], pods: list[tuple[str, str, dict[str, str]]]) -> None:
    """Every selector of every chaos object must select at least one of ``pods`` (:func:`pod_templates`).

    Raises:
        CaseValidationError: each selector that selects none, as ``case.yaml:LINE: inject.kubernetes.chaos[i]...``.
    """
    from faultlib.readers import dotted, load_yaml_file

    found: list[tuple[list[str | int], str]] = []
    workload = _workload_of(pods)
    for index, obj in enumerate(chaos):
        for selector in pod_selectors(obj):
            hit = [(name, labels) for name, ns, labels in pods if selects(selector.selector, namespace=ns, labels=labels)]
            written = _case_selector(case, index, selector.path)
            if case.world and LABEL_RANK in written:
                rank = written[LABEL_RANK]
                if len(hit) != 1 or workload is None or str(rank_of(hit[0][1], workload, case.world.ranks)) != rank:
                    found.append((["inject", "kubernetes", "chaos", index, *selector.path, "labelSelectors", LABEL_RANK],
                                  f"this {selector.kind} selector names rank {rank} of a world of {case.world.ranks} "
                                  f"ranks and selects {len(hit)} pod(s) ({', '.join(n for n, _ in hit) or 'none'}), "
                                  "not exactly that rank's pod: a rank is 0 to ranks - 1, and the other labels must "
                                  "be the rank pods' own"))
                continue
            if hit:
                continue
            described = "; ".join(f"{name} in {ns}: {labels}" for name, ns, labels in pods)
            found.append((["inject", "kubernetes", "chaos", index, *selector.path],
                          f"this {selector.kind} selector selects none of the run's pods ({described}): name labels "
                          "that the compose file gives a service of topology.services, or leave the selector out "
                          "to select the faulted Job's pod"))
    if found:
        path = case.path / "case.yaml"
        doc = load_yaml_file(path)
        raise CaseValidationError([CaseError(message, path=path, line=doc.line_of(loc), field=dotted(loc))
                                   for loc, message in found])


def _workload_of(pods: list[tuple[str, str, dict[str, str]]]) -> str | None:
    """Which world workload the rendered pods belong to (None: no world among them)."""
    for _, _, labels in pods:
        if "training.kubeflow.org/replica-type" in labels:
            return "pytorchjob"
        if "batch.kubernetes.io/job-completion-index" in labels:
            return "indexed-job"
    return None


def _case_selector(case: "Case", index: int, path: tuple) -> dict[str, Any]:
    """The labelSelectors the case itself wrote at ``path`` of chaos entry ``index`` (before rendering)."""
    node: Any = case.raw["inject"]["kubernetes"]["chaos"][index]
    for key in path:
        if not isinstance(node, (dict, list)):
            return {}
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return {}
    labels = node.get("labelSelectors") if isinstance(node, dict) else None
    return labels if isinstance(labels, dict) else {}


def manifests(case: "Case", *, run_id: str, image: str = DEFAULT_IMAGE, namespace: str = DEFAULT_NAMESPACE,
              seed: int | None = None, timeout_s: float | None = None, control: bool = True,
              start_grace_s: float = POD_START_GRACE_S, storage_class: str | None = None,
              volume_size: str = DEFAULT_VOLUME_SIZE, archive: str | None = None,
              world_workload: str = "pytorchjob") -> list[dict[str, Any]]:
    """Every object a run would create, in creation order (see the module docstring).

    Args:
        case: the case.
        run_id: the run id.
        image, namespace, storage_class, volume_size, archive, start_grace_s: see :class:`RunSettings`.
        seed: the run's seed (default ``repro.seed``).
        timeout_s: the per-phase budget (default ``repro.timeout_s``).
        control: include the control phase's Job (``--no-control`` leaves it out).
        world_workload: a distributed case's ranks as a ``pytorchjob`` (default) or an ``indexed-job`` with a
            headless Service (:mod:`faultlib.backends.kube_world`); the chaos selectors' ``faultlib.dev/rank``
            labels become that workload's pod labels.

    Returns:
        The objects; the Secret (s3:// archives only) with redacted values.

    Raises:
        CaseError: ``keep_local`` or the topology is wrong, or a chaos selector selects none of the run's pods.
        FaultlibError: a setting Kubernetes would reject.
    """
    settings = RunSettings(image=image, namespace=namespace, storage_class=storage_class, volume_size=volume_size,
                           archive=archive, start_grace_s=start_grace_s)
    check_keep_local(case)
    topology = load_topology(case)
    seed = case.seed if seed is None else seed
    timeout_s = timeout_s or case.timeout_s
    objects = []
    if settings.s3_archive:
        objects.append(render_archive_secret(case, run_id=run_id, namespace=namespace))
    objects.append(render_configmap(case, run_id=run_id, namespace=namespace))
    objects.append(render_volume_claim(case, run_id=run_id, settings=settings))
    services = render_services(case, topology, run_id=run_id, image=image, namespace=namespace)
    jobs = {phase: render_job(case, run_id=run_id, phase=phase, timeout_s=timeout_s, settings=settings,
                              env=phase_variables(case, run_id=run_id, phase=phase, seed=seed), topology=topology)
            for phase in (("control", "faulted") if control else ("faulted",))}
    workload = world_workload if case.world else None
    phases = {phase: render_world(job, case.world, world_workload) if case.world else [job]
              for phase, job in jobs.items()}
    try:
        chaos = render_chaos(chaos_entries(case), case_id=case.id, run_id=run_id, namespace=namespace, workload=workload)
    except ValueError as exc:  # a faultlib.dev/rank that is not a rank
        raise CaseError(str(exc), path=case.path / "case.yaml", field="inject.kubernetes.chaos") from None
    check_selectors(case, chaos, pod_templates([*services, *phases["faulted"]]))  # chaos exists in the faulted phase only
    return objects + services + [o for objs in phases.values() for o in objs] + chaos


def is_chaos(obj: Mapping[str, Any]) -> bool:
    """True for a Chaos Mesh object (API group ``chaos-mesh.org``)."""
    return str(obj.get("apiVersion", "")).startswith(f"{GROUP}/")


def to_yaml(objects: list[dict[str, Any]]) -> str:
    """The objects as YAML documents, each opened by ``---`` (what ``kubectl apply -f`` reads).

    Multi-line strings (the case's files in the ConfigMap) are written as literal blocks (``|``).
    """
    import yaml

    class BlockDumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:  # write shared dicts out in full: no &id001 anchors
            return True

    def represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|" if "\n" in data else None)

    BlockDumper.add_representer(str, represent_str)
    return yaml.dump_all(objects, Dumper=BlockDumper, sort_keys=False, explicit_start=True,
                         default_flow_style=False, allow_unicode=True)


__all__ = ["CONTAINER", "DEFAULT_IMAGE", "DEFAULT_NAMESPACE", "DEFAULT_VOLUME_SIZE", "POD_START_GRACE_S",
           "RunSettings", "check_keep_local", "check_selectors", "configmap_name", "is_chaos", "job_name",
           "manifests", "pod_faults", "pod_label_selector", "pod_templates", "render_archive_secret",
           "render_configmap", "render_job", "render_volume_claim", "run_labels", "to_yaml"]
