"""The Kubernetes objects of one run, as plain dicts: a ConfigMap with the case's files, one
batch/v1 Job per phase, and the Chaos Mesh objects of the case's twin (:mod:`faultlib.chaos`).

The Job runs ``python /case/<repro.script>`` in the repro image (default
:data:`DEFAULT_IMAGE`, the same as the compose files' ``FAULTLIB_IMAGE`` default: Python, faultlib
and the case's packages), with the case's files mounted at ``/case`` from the ConfigMap, an
``emptyDir`` at ``/faultlib/run`` for the evidence, and the phase's variables of
:func:`faultlib.repro.phase_env`. Its pods carry the labels ``faultlib.dev/run-id``,
``faultlib.dev/case`` and ``faultlib.dev/phase``, which the chaos objects' default selector matches.

Nothing here talks to a cluster: ``faultlib run CASE --backend kubernetes --dry-run`` prints
:func:`manifests` as YAML documents.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faultlib.chaos.render import (LABEL_CASE, LABEL_MANAGED_BY, LABEL_PHASE, LABEL_RUN_ID, MANAGED_BY,
                                   chaos_entries, render_chaos, run_suffix)
from faultlib.errors import CaseError

if TYPE_CHECKING:
    from faultlib.cases import Case

DEFAULT_IMAGE = "faultlib/trainer:0.1"
DEFAULT_NAMESPACE = "default"
CONTAINER = "repro"
CASE_MOUNT = "/case"
EVIDENCE_MOUNT = "/faultlib/run"
POD_START_GRACE_S = 120.0        # image pull and scheduling, on top of the phase's timeout
CONFIGMAP_LIMIT_BYTES = 900_000  # a ConfigMap holds at most 1 MiB, object metadata included
CONFIGMAP_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
PHASE_BACKOFF_LIMIT = {"control": 0, "faulted": 1}  # a pod that PodChaos kills is replaced once, as after preemption


def _slug(case_id: str, width: int = 30) -> str:
    return case_id.replace("_", "-")[:width].strip("-")


def configmap_name(case_id: str, run_id: str) -> str:
    """``faultlib-fp16-overflow-3fa2c1``: a DNS label for the run's ConfigMap."""
    return f"faultlib-{_slug(case_id)}-{run_suffix(run_id)}"


def job_name(case_id: str, phase: str, run_id: str) -> str:
    """``faultlib-fp16-overflow-faulted-3fa2c1``: at most 54 characters, a valid Job name."""
    return f"faultlib-{_slug(case_id)}-{phase}-{run_suffix(run_id)}"


def run_labels(case_id: str, run_id: str, phase: str | None = None) -> dict[str, str]:
    """The labels of every object of a run (and of its pods, with ``phase``)."""
    labels = {LABEL_MANAGED_BY: MANAGED_BY, LABEL_CASE: case_id, LABEL_RUN_ID: run_id}
    if phase:
        labels[LABEL_PHASE] = phase
    return labels


def pod_label_selector(run_id: str, phase: str) -> str:
    """The label selector (``key=value,...``) of one phase's pods."""
    return f"{LABEL_RUN_ID}={run_id},{LABEL_PHASE}={phase}"


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


def render_job(case: "Case", *, run_id: str, phase: str, env: dict[str, str], image: str, namespace: str,
               timeout_s: float, start_grace_s: float = POD_START_GRACE_S) -> dict[str, Any]:
    """The batch/v1 Job of one phase.

    Args:
        case: the case.
        run_id: the run id (labels, names).
        phase: ``control`` or ``faulted``.
        env: the phase's variables (:func:`faultlib.repro.phase_env`); ``FAULTLIB_RUN_DIR`` is
            replaced by the pod's evidence mount.
        image: the repro image.
        namespace: where the Job runs.
        timeout_s: the phase's budget in seconds; the Job's ``activeDeadlineSeconds`` is
            ``timeout_s + start_grace_s``.
        start_grace_s: time allowed for scheduling and the image pull (default :data:`POD_START_GRACE_S`).

    Returns:
        The Job as a dict (valid against the Kubernetes OpenAPI schema of batch/v1 Job).
    """
    from faultlib.repro import ENV_RUN_DIR  # faultlib.repro loads the injector registry (jsonschema)

    labels = run_labels(case.id, run_id, phase)
    container_env = {**env, ENV_RUN_DIR: EVIDENCE_MOUNT, "PYTHONUNBUFFERED": "1"}
    container = {
        "name": CONTAINER,
        "image": image,
        "command": ["python", f"{CASE_MOUNT}/{case.script.name}"],
        "workingDir": CASE_MOUNT,
        "env": [{"name": key, "value": value} for key, value in container_env.items()],
        "volumeMounts": [{"name": "case", "mountPath": CASE_MOUNT, "readOnly": True},
                         {"name": "evidence", "mountPath": EVIDENCE_MOUNT}],
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job_name(case.id, phase, run_id), "namespace": namespace, "labels": dict(labels)},
        "spec": {
            "backoffLimit": PHASE_BACKOFF_LIMIT.get(phase, 0),
            "activeDeadlineSeconds": math.ceil(timeout_s + start_grace_s),
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [container],
                    "volumes": [{"name": "case", "configMap": {"name": configmap_name(case.id, run_id)}},
                                {"name": "evidence", "emptyDir": {}}],
                },
            },
        },
    }


def phase_variables(case: "Case", *, run_id: str, phase: str, seed: int) -> dict[str, str]:
    """The variables the runner gives a phase (control: no faults; faulted: the case's shims)."""
    from faultlib.repro import phase_env

    faults = [{"shim": s.name, "params": s.params} for s in case.shims] if phase == "faulted" else []
    return phase_env(run_dir=Path(EVIDENCE_MOUNT), run_id=run_id, case_id=case.id, phase=phase, seed=seed,
                     params=case.params, faults=faults)


def manifests(case: "Case", *, run_id: str, image: str = DEFAULT_IMAGE, namespace: str = DEFAULT_NAMESPACE,
              seed: int | None = None, timeout_s: float | None = None, control: bool = True,
              start_grace_s: float = POD_START_GRACE_S) -> list[dict[str, Any]]:
    """Every object a run would create: the ConfigMap, the Job of each phase, the chaos objects.

    Args:
        case: the case.
        run_id: the run id.
        image: the repro image.
        namespace: the namespace of every object.
        seed: the run's seed (default ``repro.seed``).
        timeout_s: the per-phase budget (default ``repro.timeout_s``).
        control: include the control phase's Job (``--no-control`` leaves it out).
        start_grace_s: time each Job may take to start (see :func:`render_job`).

    Returns:
        The objects in creation order.
    """
    seed = case.seed if seed is None else seed
    timeout_s = timeout_s or case.timeout_s
    phases = ("control", "faulted") if control else ("faulted",)
    objects = [render_configmap(case, run_id=run_id, namespace=namespace)]
    for phase in phases:
        env = phase_variables(case, run_id=run_id, phase=phase, seed=seed)
        objects.append(render_job(case, run_id=run_id, phase=phase, env=env, image=image, namespace=namespace,
                                  timeout_s=timeout_s, start_grace_s=start_grace_s))
    objects += render_chaos(chaos_entries(case), case_id=case.id, run_id=run_id, namespace=namespace)
    return objects


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
