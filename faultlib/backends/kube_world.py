"""A distributed case's world on Kubernetes: the ranks as a Kubeflow ``PyTorchJob`` or as an Indexed Job.

A case with ``repro.world`` (N ranks) renders each phase as one of two workloads (``workload``):

- ``pytorchjob`` (default): a ``kubeflow.org/v1`` PyTorchJob (the training operator's CRD,
  https://github.com/kubeflow/training-operator, v1 API). Rank 0 is the ``Master`` replica, ranks 1..N-1 are
  the ``Worker`` replicas 0..N-2; the operator sets ``MASTER_ADDR``, ``MASTER_PORT``, ``WORLD_SIZE`` and
  ``RANK`` in each pod and labels it ``training.kubeflow.org/replica-type: master|worker`` and
  ``training.kubeflow.org/replica-index`` (kubeflow/common ``pkg/apis/common/v1/constants.go``). The operator
  only configures the container named ``pytorch``, so the repro's container takes that name here.
- ``indexed-job``: where the training operator is absent, a batch/v1 Job with ``completionMode: Indexed``
  (``completions`` = ``parallelism`` = N, so every rank runs at once), a headless Service giving each pod
  the DNS name ``<job>-<index>.<service>``, ``RANK`` from the pod's completion-index annotation (the
  downward API), ``WORLD_SIZE`` = N and ``MASTER_ADDR`` = rank 0's name. Kubernetes >= 1.28 also labels
  each pod ``batch.kubernetes.io/job-completion-index``, which the chaos selectors use.

Both keep the single-rank Job's pod template (image, command, environment, volumes, the run's labels on
every pod); ``restartPolicy: Never``: a rank that fails fails the phase (the runner decides on restarts, as
torchrun's ``--max-restarts 0`` does locally). The run's volume becomes ``ReadWriteMany``: every rank's pod
mounts it, possibly from different nodes, and each rank keeps its attempt count in its own ``state/rank-R``.

:func:`world_pods` lists the pods the workload will create (name and labels, as the operator or the Job
controller will set them), so a chaos selector of ``faultlib.dev/rank: "R"`` can be proved to select exactly
rank R's pod before anything runs.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from faultlib.backends.kube_names import STATE_MOUNT, slug
from faultlib.chaos.render import (LABEL_COMPLETION_INDEX, LABEL_REPLICA_INDEX, LABEL_REPLICA_TYPE, WORLD_WORKLOADS,
                                   rank_pod_labels)
from faultlib.errors import FaultlibError

if TYPE_CHECKING:
    from faultlib.cases import World

PYTORCH_CONTAINER = "pytorch"   # the only container the training operator configures (its default container name)
MASTER_PORT = 29500             # torchrun's default rendezvous port
LABEL_JOB_NAME = "training.kubeflow.org/job-name"
LABEL_OPERATOR = "training.kubeflow.org/operator-name"
LABEL_JOB_ROLE = "training.kubeflow.org/job-role"
OPERATOR_NAME = "pytorchjob-controller"
COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"


def check_workload(workload: str) -> str:
    """Raise :class:`FaultlibError` (exit 2) for a workload that is not one of :data:`WORLD_WORKLOADS`."""
    if workload not in WORLD_WORKLOADS:
        raise FaultlibError(f"world workload {workload!r}: choose one of {', '.join(WORLD_WORKLOADS)}")
    return workload


def headless_service_name(job: str) -> str:
    """The headless Service of an Indexed Job world (a DNS-1035 label: it is the pods' subdomain)."""
    return f"{slug(job, 50)}-ranks"


def _per_rank_state(template: dict[str, Any]) -> None:
    """Each rank keeps its attempt count in ``state/rank-$(RANK)`` of the shared volume (``subPathExpr``)."""
    for mount in template["spec"]["containers"][0]["volumeMounts"]:
        if mount["mountPath"] == STATE_MOUNT:
            mount.pop("subPath", None)
            mount["subPathExpr"] = "state/rank-$(RANK)"


def render_pytorchjob(job: dict[str, Any], world: "World") -> dict[str, Any]:
    """The PyTorchJob of a phase, built from the phase's single-rank Job (:func:`render_job`).

    Args:
        job: the batch/v1 Job the phase would run with one rank.
        world: ``repro.world``.

    Returns:
        A ``kubeflow.org/v1`` PyTorchJob (valid against the training operator's CRD): the Job's name, labels and
        pod template; ``runPolicy`` with the Job's ``activeDeadlineSeconds`` and ``backoffLimit``.
    """
    template = copy.deepcopy(job["spec"]["template"])
    template["spec"].pop("restartPolicy", None)  # a replica spec field in a PyTorchJob
    template["spec"]["containers"][0]["name"] = PYTORCH_CONTAINER
    _per_rank_state(template)
    replicas: dict[str, Any] = {"Master": {"replicas": 1, "restartPolicy": "Never", "template": template}}
    if world.ranks > 1:
        replicas["Worker"] = {"replicas": world.ranks - 1, "restartPolicy": "Never", "template": copy.deepcopy(template)}
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": copy.deepcopy(job["metadata"]),
            "spec": {"runPolicy": {"cleanPodPolicy": "All", "backoffLimit": job["spec"]["backoffLimit"],
                                   "activeDeadlineSeconds": job["spec"]["activeDeadlineSeconds"]},
                     "pytorchReplicaSpecs": replicas}}


def render_indexed_job(job: dict[str, Any], world: "World") -> list[dict[str, Any]]:
    """The Indexed Job of a phase and its headless Service (Service first), from the single-rank Job.

    Returns:
        ``[Service, Job]``, both valid against the Kubernetes OpenAPI schema.
    """
    name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
    service = headless_service_name(name)
    indexed = copy.deepcopy(job)
    pod = indexed["spec"]["template"]
    pod["spec"]["subdomain"] = service
    _per_rank_state(pod)
    container = pod["spec"]["containers"][0]
    container["env"] = [e for e in container["env"] if e["name"] not in ("RANK", "WORLD_SIZE", "MASTER_ADDR",
                                                                        "MASTER_PORT")]
    container["env"] = [
        {"name": "RANK", "valueFrom": {"fieldRef": {
            "fieldPath": f"metadata.annotations['{COMPLETION_INDEX_ANNOTATION}']"}}},
        {"name": "WORLD_SIZE", "value": str(world.ranks)},
        {"name": "MASTER_ADDR", "value": f"{name}-0.{service}.{namespace}.svc"},
        {"name": "MASTER_PORT", "value": str(MASTER_PORT)},
        *container["env"]]
    container["ports"] = [{"name": "rendezvous", "containerPort": MASTER_PORT}]
    indexed["spec"].update(completionMode="Indexed", completions=world.ranks, parallelism=world.ranks)
    labels = pod["metadata"]["labels"]
    headless = {"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": service, "namespace": namespace, "labels": copy.deepcopy(job["metadata"]["labels"])},
                "spec": {"clusterIP": "None", "publishNotReadyAddresses": True,
                         "selector": {k: labels[k] for k in ("faultlib.dev/run-id", "faultlib.dev/phase")},
                         "ports": [{"name": "rendezvous", "port": MASTER_PORT, "targetPort": MASTER_PORT}]}}
    return [headless, indexed]


def render_world(job: dict[str, Any], world: "World", workload: str) -> list[dict[str, Any]]:
    """The objects of one phase of a distributed case: ``[PyTorchJob]`` or ``[Service, Job]``."""
    check_workload(workload)
    return [render_pytorchjob(job, world)] if workload == "pytorchjob" else render_indexed_job(job, world)


def world_pods(obj: dict[str, Any]) -> list[tuple[str, str, dict[str, str]]]:
    """``(pod name, namespace, labels)`` of every pod a PyTorchJob or an Indexed Job will create, with the
    labels its controller adds (one entry per rank, rank order); ``[]`` for any other object."""
    meta = obj["metadata"]
    name, namespace = meta["name"], meta["namespace"]
    if obj["kind"] == "PyTorchJob":
        pods = []
        for rtype, spec in obj["spec"]["pytorchReplicaSpecs"].items():
            for index in range(spec["replicas"]):
                labels = {**spec["template"]["metadata"]["labels"], LABEL_JOB_NAME: name, LABEL_OPERATOR: OPERATOR_NAME,
                          LABEL_REPLICA_TYPE: rtype.lower(), LABEL_REPLICA_INDEX: str(index)}
                if rtype == "Master":
                    labels[LABEL_JOB_ROLE] = "master"
                pods.append((f"{name}-{rtype.lower()}-{index}", namespace, labels))
        return pods
    if obj["kind"] == "Job" and obj["spec"].get("completionMode") == "Indexed":
        labels = obj["spec"]["template"]["metadata"]["labels"]
        return [(f"{name}-{i}", namespace, {**labels, LABEL_COMPLETION_INDEX: str(i),
                                                                "batch.kubernetes.io/job-name": name})
                for i in range(obj["spec"]["completions"])]
    return []


def rank_of(labels: dict[str, str], workload: str, ranks: int) -> int | None:
    """The rank whose pod carries ``labels`` (None when no rank's labels are all there)."""
    for rank in range(ranks):
        if all(labels.get(k) == v for k, v in rank_pod_labels(rank, workload).items()):
            return rank
    return None


__all__ = ["MASTER_PORT", "PYTORCH_CONTAINER", "check_workload", "headless_service_name", "rank_of",
           "render_indexed_job", "render_pytorchjob", "render_world", "world_pods"]
