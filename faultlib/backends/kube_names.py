"""Names, labels and mount points shared by every Kubernetes object of a run.

Every object of a run is named ``faultlib-<case>-...-<run suffix>`` (a DNS label, at most 63
characters; the suffix is the 6 hex digits that end the run id, so two runs never collide) and
labelled ``app.kubernetes.io/managed-by: faultlib``, ``faultlib.dev/case`` and ``faultlib.dev/run-id``;
pods add ``faultlib.dev/phase`` (the Job's) or ``faultlib.dev/service`` (a topology service's).
"""

from __future__ import annotations

import re

from faultlib.chaos.render import LABEL_CASE, LABEL_MANAGED_BY, LABEL_PHASE, LABEL_RUN_ID, MANAGED_BY, run_suffix

LABEL_SERVICE = "faultlib.dev/service"

DEFAULT_IMAGE = "faultlib/trainer:0.1"
DEFAULT_NAMESPACE = "default"
DEFAULT_VOLUME_SIZE = "1Gi"
CONTAINER = "repro"
CASE_MOUNT = "/case"
EVIDENCE_MOUNT = "/faultlib/run"    # the run directory (FAULTLIB_RUN_DIR): subPath run/ of the run's volume
STATE_MOUNT = "/faultlib/state"     # the pod entry point's bookkeeping (attempts): subPath state/ of the volume
POD_START_GRACE_S = 120.0           # image pull and scheduling, on top of the phase's timeout

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def slug(name: str, width: int = 30) -> str:
    """``name`` as a piece of a DNS label: lower case, ``[a-z0-9-]``, at most ``width`` characters."""
    return _NOT_DNS.sub("-", name.lower())[:width].strip("-") or "x"


def configmap_name(case_id: str, run_id: str) -> str:
    """``faultlib-fp16-overflow-3fa2c1``: the run's ConfigMap (the case's files)."""
    return f"faultlib-{slug(case_id)}-{run_suffix(run_id)}"


def job_name(case_id: str, phase: str, run_id: str) -> str:
    """``faultlib-fp16-overflow-faulted-3fa2c1``: at most 54 characters, a valid Job name."""
    return f"faultlib-{slug(case_id)}-{phase}-{run_suffix(run_id)}"


def claim_name(case_id: str, run_id: str) -> str:
    """``faultlib-preempted-training-run-3fa2c1``: the run's PersistentVolumeClaim."""
    return f"faultlib-{slug(case_id)}-run-{run_suffix(run_id)}"


def secret_name(case_id: str, run_id: str) -> str:
    """``faultlib-downstream-timeout-archive-3fa2c1``: the run's Secret with the archive's endpoint and keys."""
    return f"faultlib-{slug(case_id)}-archive-{run_suffix(run_id)}"


def service_name(case_id: str, service: str, run_id: str) -> str:
    """``faultlib-downstream-timeo-feature-service-3fa2c1``: the Deployment and Service of a topology
    service (a DNS-1035 label of at most 58 characters: it is also the service's host name)."""
    return f"faultlib-{slug(case_id, 20)}-{slug(service, 22)}-{run_suffix(run_id)}"


def run_labels(case_id: str, run_id: str, phase: str | None = None) -> dict[str, str]:
    """The labels of every object of a run (and of its Job's pods, with ``phase``)."""
    labels = {LABEL_MANAGED_BY: MANAGED_BY, LABEL_CASE: case_id, LABEL_RUN_ID: run_id}
    if phase:
        labels[LABEL_PHASE] = phase
    return labels


def pod_label_selector(run_id: str, phase: str) -> str:
    """The label selector (``key=value,...``) of one phase's pods."""
    return f"{LABEL_RUN_ID}={run_id},{LABEL_PHASE}={phase}"
