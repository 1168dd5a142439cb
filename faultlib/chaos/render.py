"""Render a case's Chaos Mesh twin (``inject.kubernetes.chaos``) into full custom resources.

A case names each chaos object by ``kind``, ``name`` and ``spec`` only. Rendering adds what
belongs to one run of the case:

- ``apiVersion: chaos-mesh.org/v1alpha1`` and the ``kind``;
- ``metadata``: ``name`` is ``<name>-<run suffix>`` (the 6 hex digits that end the run id, so two
  runs of one case never collide), the ``namespace``, and the labels
  ``app.kubernetes.io/managed-by: faultlib``, ``faultlib.dev/case`` and ``faultlib.dev/run-id``;
- a ``selector`` for the run's faulted pods wherever a chaos spec has none: the namespace and the
  label selectors ``faultlib.dev/run-id: <run id>`` and ``faultlib.dev/phase: faulted`` (the labels
  the Kubernetes backend puts on its Job's pods), plus any ``pod_labels`` given. Inside a
  ``Schedule`` the embedded spec of its ``type`` gets it; inside a ``Workflow`` every chaos template
  does.
- in a distributed case (``repro.world``), the label ``faultlib.dev/rank: "R"`` of a case-written selector
  becomes the labels of rank R's pod in the world's workload (:func:`rank_pod_labels`: the training
  operator's replica type and index in a PyTorchJob, the completion index in an Indexed Job);
- a selector the case wrote itself (``spec.selector``, and a NetworkChaos's ``spec.target.selector``)
  keeps every condition it states and is *scoped to the run*: it gets the run's ``namespaces`` when
  it names none, and the label ``faultlib.dev/run-id: <run id>``. ``app: feature-service`` alone
  would select every pod with that label in every namespace Chaos Mesh watches (other runs, other
  teams' services); scoped, a run's chaos can only ever touch the run's own pods.

Rendering never mutates the case; validation against the CRD schemas is :mod:`faultlib.chaos.crds`,
and :mod:`faultlib.chaos.selectors` tells which rendered pods a selector picks.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from faultlib.chaos.bounds import check_spec

if TYPE_CHECKING:
    from faultlib.cases import Case

GROUP = "chaos-mesh.org"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"

LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_CASE = "faultlib.dev/case"
LABEL_RUN_ID = "faultlib.dev/run-id"
LABEL_PHASE = "faultlib.dev/phase"
MANAGED_BY = "faultlib"
FAULTED_PHASE = "faulted"

#: a distributed case's selectors name one rank's pod with this label; rendering translates it into the labels
#: the pods of the world's workload carry (:func:`rank_pod_labels`)
LABEL_RANK = "faultlib.dev/rank"
#: the Kubeflow training operator's pod labels (kubeflow/common pkg/apis/common/v1/constants.go)
LABEL_REPLICA_TYPE = "training.kubeflow.org/replica-type"
LABEL_REPLICA_INDEX = "training.kubeflow.org/replica-index"
#: the pod label of an Indexed Job's completion index (Kubernetes >= 1.28; older clusters have only the annotation)
LABEL_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
#: how a distributed case's ranks run on Kubernetes
WORLD_WORKLOADS = ("pytorchjob", "indexed-job")

#: kind -> resource plural in the API (``/apis/chaos-mesh.org/v1alpha1/namespaces/NS/<plural>``)
PLURALS = {
    "PodChaos": "podchaos",
    "NetworkChaos": "networkchaos",
    "StressChaos": "stresschaos",
    "IOChaos": "iochaos",
    "HTTPChaos": "httpchaos",
    "TimeChaos": "timechaos",
    "Schedule": "schedules",
    "Workflow": "workflows",
}

#: the kinds that act on pods and therefore carry a ``selector``
POD_KINDS = ("PodChaos", "NetworkChaos", "StressChaos", "IOChaos", "HTTPChaos", "TimeChaos")

#: kind -> the field holding its spec when embedded in a Schedule spec or a Workflow template
EMBEDDED_FIELDS = {
    "PodChaos": "podChaos",
    "NetworkChaos": "networkChaos",
    "StressChaos": "stressChaos",
    "IOChaos": "ioChaos",
    "HTTPChaos": "httpChaos",
    "TimeChaos": "timeChaos",
    "Schedule": "schedule",
    "Workflow": "workflow",
}


@dataclass(frozen=True)
class ChaosEntry:
    """One item of ``inject.kubernetes.chaos`` in case.yaml.

    Attributes:
        kind: a Chaos Mesh kind (``NetworkChaos``, ``PodChaos``, ... ``Schedule``, ``Workflow``).
        name: the object's base name (DNS label, at most 52 characters; the run suffix is added).
        spec: the Chaos Mesh spec as written in the case.
    """

    kind: str
    name: str
    spec: Mapping[str, Any]


def chaos_entries(case: "Case") -> list[ChaosEntry]:
    """The chaos entries of a loaded case (empty when it has no Chaos Mesh twin)."""
    kubernetes = case.raw["inject"]["kubernetes"]
    return [ChaosEntry(e["kind"], e["name"], e["spec"]) for e in kubernetes.get("chaos") or []]


def run_suffix(run_id: str) -> str:
    """The random part of a run id, lower-cased: ``20261130T120048Z-3fa2c1`` -> ``3fa2c1``."""
    return run_id.rsplit("-", 1)[-1].lower()


def run_selector(*, namespace: str, run_id: str, pod_labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The selector of a run's faulted pods: its namespace and its run-id and phase labels.

    Args:
        namespace: the namespace the run's Job runs in.
        run_id: the run id (label ``faultlib.dev/run-id``).
        pod_labels: further labels every selected pod must carry (default none).

    Returns:
        A Chaos Mesh ``PodSelectorSpec``: ``{"namespaces": [...], "labelSelectors": {...}}``.
    """
    labels = {LABEL_RUN_ID: run_id, LABEL_PHASE: FAULTED_PHASE, **(pod_labels or {})}
    return {"namespaces": [namespace], "labelSelectors": labels}


def rank_pod_labels(rank: int, workload: str) -> dict[str, str]:
    """The labels that pick rank ``rank``'s pod among a world's pods.

    Args:
        rank: the rank (0-based).
        workload: ``pytorchjob`` (rank 0 is the Master replica, rank r >= 1 Worker replica r - 1: the training
            operator labels its pods ``training.kubeflow.org/replica-type: master|worker`` and
            ``training.kubeflow.org/replica-index``) or ``indexed-job`` (rank r is completion index r).

    Raises:
        ValueError: an unknown workload or a negative rank.
    """
    if rank < 0 or workload not in WORLD_WORKLOADS:
        raise ValueError(f"rank {rank} of workload {workload!r}: rank >= 0, workload one of {WORLD_WORKLOADS}")
    if workload == "indexed-job":
        return {LABEL_COMPLETION_INDEX: str(rank)}
    return {LABEL_REPLICA_TYPE: "master", LABEL_REPLICA_INDEX: "0"} if rank == 0 else \
        {LABEL_REPLICA_TYPE: "worker", LABEL_REPLICA_INDEX: str(rank - 1)}


def translate_rank(selector: Mapping[str, Any], workload: str | None) -> dict[str, Any]:
    """``selector`` with its ``faultlib.dev/rank: "R"`` label replaced by :func:`rank_pod_labels` and the faulted
    phase's label (a new dict).

    Args:
        selector: a Chaos Mesh ``PodSelectorSpec``.
        workload: the world's workload; None (not a distributed case): the selector is returned unchanged.

    Raises:
        ValueError: ``faultlib.dev/rank`` is not a non-negative integer in a string.
    """
    labels = dict(selector.get("labelSelectors") or {}) if isinstance(selector.get("labelSelectors"), Mapping) else {}
    if workload is None or LABEL_RANK not in labels:
        return dict(selector)
    value = labels.pop(LABEL_RANK)
    if not (isinstance(value, str) and value.isdigit()):
        raise ValueError(f"{LABEL_RANK}: {value!r} is not a rank: write it as a quoted integer, e.g. \"1\"")
    # the faulted phase's pod of that rank: the control's world has a pod with the same rank labels
    return {**selector, "labelSelectors": {**labels, **rank_pod_labels(int(value), workload),
                                           LABEL_PHASE: FAULTED_PHASE}}


def scope_selector(selector: Mapping[str, Any], *, namespace: str, run_id: str) -> dict[str, Any]:
    """A case-written selector narrowed to one run's pods (a new dict; the case is not touched).

    Args:
        selector: a Chaos Mesh ``PodSelectorSpec`` as the case wrote it.
        namespace: the run's namespace, used when the selector names no ``namespaces``.
        run_id: the run id: ``faultlib.dev/run-id`` is added to ``labelSelectors``.

    Returns:
        The selector with every condition of the case, plus the run's namespace and run-id label.
    """
    scoped = copy.deepcopy(dict(selector))
    if not scoped.get("namespaces"):
        scoped["namespaces"] = [namespace]
    scoped["labelSelectors"] = {**(scoped.get("labelSelectors") or {}), LABEL_RUN_ID: run_id}
    return scoped


def _fill_selectors(kind: str, spec: dict[str, Any], selector: dict[str, Any], *, namespace: str,
                    run_id: str, workload: str | None = None) -> None:
    """Give every pod-acting spec under ``spec`` (of ``kind``) the run's ``selector`` when it has none,
    and scope the selectors it has (:func:`scope_selector`)."""
    if kind in POD_KINDS:
        if not spec.get("selector"):
            spec["selector"] = copy.deepcopy(selector)
        else:
            spec["selector"] = scope_selector(translate_rank(spec["selector"], workload), namespace=namespace,
                                              run_id=run_id)
        target = spec.get("target")
        if kind == "NetworkChaos" and isinstance(target, dict) and target.get("selector"):
            target["selector"] = scope_selector(translate_rank(target["selector"], workload), namespace=namespace,
                                                run_id=run_id)
    elif kind == "Schedule":
        inner = spec.get("type")
        embedded = spec.get(EMBEDDED_FIELDS.get(inner, ""))
        if isinstance(embedded, dict):
            _fill_selectors(inner, embedded, selector, namespace=namespace, run_id=run_id, workload=workload)
    elif kind == "Workflow":
        for template in spec.get("templates") or []:
            if not isinstance(template, dict):
                continue
            for inner, field in EMBEDDED_FIELDS.items():
                if isinstance(template.get(field), dict):
                    _fill_selectors(inner, template[field], selector, namespace=namespace, run_id=run_id,
                                    workload=workload)


def render_chaos(entries: list[ChaosEntry], *, case_id: str, run_id: str, namespace: str,
                 pod_labels: Mapping[str, str] | None = None, workload: str | None = None) -> list[dict[str, Any]]:
    """Render chaos entries into Chaos Mesh custom resources for one run.

    Args:
        entries: the case's entries (:func:`chaos_entries`), or inline ones.
        case_id: the case id (label ``faultlib.dev/case``).
        run_id: the run id (label ``faultlib.dev/run-id``; its suffix ends every name).
        namespace: where the objects and the run's pods live.
        pod_labels: extra labels the default selector requires (default none).
        workload: a distributed case's world workload (:data:`WORLD_WORKLOADS`): every ``faultlib.dev/rank``
            label of a case-written selector becomes that rank's pod labels (:func:`translate_rank`).

    Raises:
        CaseError: a duration, percentage, size or count out of its Go type's range (:mod:`faultlib.chaos.bounds`).

    Returns:
        One dict per entry, in order: ``apiVersion``, ``kind``, ``metadata``, ``spec`` (every selector
        the run's default or scoped to the run, see the module docstring); ready to
        validate (:class:`faultlib.chaos.CrdSchemas`) and to create with ``CustomObjectsApi``.
    """
    selector = run_selector(namespace=namespace, run_id=run_id, pod_labels=pod_labels)
    suffix = run_suffix(run_id)
    objects = []
    for number, entry in enumerate(entries):
        check_spec(entry.spec, where=f"inject.kubernetes.chaos[{number}].spec")  # a duration Go cannot hold ...
        spec = copy.deepcopy(dict(entry.spec))
        _fill_selectors(entry.kind, spec, selector, namespace=namespace, run_id=run_id, workload=workload)
        objects.append({
            "apiVersion": API_VERSION,
            "kind": entry.kind,
            "metadata": {
                "name": f"{entry.name}-{suffix}",
                "namespace": namespace,
                "labels": {LABEL_MANAGED_BY: MANAGED_BY, LABEL_CASE: case_id, LABEL_RUN_ID: run_id},
            },
            "spec": spec,
        })
    return objects
