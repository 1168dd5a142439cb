"""The case's service topology on Kubernetes: the compose services a run needs beside its Job.

A case describes its topology once, in its compose file (``topology.compose``), and lists the
services a run needs in ``topology.services``, the repro's own service first (the compose
backend's rule; a compose file with one service needs no list). The Kubernetes backend renders
that same topology:

- the **repro service** becomes the Job's pod: its compose ``labels`` become pod labels (the labels
  a twin's selectors name, e.g. ``app: model-service``), and its ``environment`` the container's,
  with every host name of a rendered service rewritten to that service's Kubernetes Service name
  (``FEATURE_SERVICE_ADDR: feature-service:8081`` -> ``faultlib-...-feature-service-3fa2c1:8081``);
- every **other listed service** becomes a Deployment (one replica, the run's image, compose
  ``entrypoint``/``command`` as the container's ``command``/``args``, the case's files at ``/case``,
  the compose ``healthcheck`` as readiness probe) and a ClusterIP Service on its ``expose``/``ports``
  ports. Both live for the whole run (both phases); the backend waits until the Deployments are
  ready before the first phase, as compose's ``depends_on: service_healthy`` does.

Why separate pods and not more containers in the Job's pod: containers of one pod share one
network namespace and talk over loopback, while Chaos Mesh's NetworkChaos puts netem (tc) rules on
the selected pods' interface towards the *target* pods' addresses. Traffic between two containers
of one pod never crosses that interface, and a selector and target naming the same pod delay
nothing. With the feature service in its own pods behind a Service, its responses travel from the
feature-service pod to the model-service pod (the Job's) over the pod network: exactly the packets
``selector: app=feature-service``, ``direction: to``, ``target: app=model-service`` delays.

A variable that names a host the cluster does not get (the base topology's collector,
``OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318``, or a compose service not listed in
``topology.services``) is left out of the pod: it would point at nothing.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from faultlib.backends.kube_names import (CASE_MOUNT, LABEL_SERVICE, configmap_name, run_labels, service_name,
                                          slug)
from faultlib.chaos.render import LABEL_RUN_ID
from faultlib.errors import CaseError

if TYPE_CHECKING:
    from pathlib import Path

    from faultlib.cases import Case

#: the services of the compose backend's base topology (compose/compose.yaml): never on the cluster
BASE_SERVICES = ("minio", "otel-collector", "prometheus", "grafana")

_LABEL_NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]"
LABEL_KEY = re.compile(rf"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?{_LABEL_NAME}$")
LABEL_VALUE = re.compile(rf"^({_LABEL_NAME})?$")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(us|ms|s|m|h)")
_UNITS_S = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class ComposeService:
    """One service of the case's compose file, as the cluster needs it.

    Attributes:
        name: the compose service name.
        labels: its ``labels`` (pod labels on the cluster).
        environment: its ``environment`` (values as written).
        command: ``command`` as an argv (the container's ``args``), or None.
        entrypoint: ``entrypoint`` as an argv (the container's ``command``), or None.
        working_dir: ``working_dir``, or None.
        ports: container ports from ``expose`` and ``ports``.
        probe: the readiness probe from ``healthcheck``, or None.
    """

    name: str
    labels: dict[str, str]
    environment: dict[str, str]
    command: list[str] | None
    entrypoint: list[str] | None
    working_dir: str | None
    ports: tuple[int, ...]
    probe: dict[str, Any] | None


@dataclass(frozen=True)
class Topology:
    """The repro's service (the Job's pod) and the services rendered beside it.

    Attributes:
        repro: the service whose place the Job's pod takes.
        services: the other services of ``topology.services``, each a Deployment and a Service.
        absent: compose host names the cluster does not get (unlisted services, the base topology).
    """

    repro: ComposeService
    services: tuple[ComposeService, ...]
    absent: tuple[str, ...]


def _argv(value: Any) -> list[str] | None:
    if value is None:
        return None
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


def _mapping(value: Any) -> dict[str, str]:
    """A compose ``list_or_dict`` (``{K: V}`` or ``["K=V", ...]``); entries without a value are skipped."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items() if v is not None}
    pairs = (str(item).split("=", 1) for item in value or [])
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2}


def _ports(data: dict[str, Any]) -> tuple[int, ...]:
    found: list[int] = []
    for item in data.get("expose") or []:
        found.append(int(str(item).split("/")[0]))
    for item in data.get("ports") or []:
        if isinstance(item, dict):
            found.append(int(item["target"]))
        else:
            found.append(int(str(item).split("/")[0].rsplit(":", 1)[-1]))
    return tuple(dict.fromkeys(found))


def _seconds(value: Any, default: int) -> int:
    """A compose duration (``2s``, ``1m30s``, ``500ms``) in whole seconds, at least 1."""
    if value is None:
        return default
    total = sum(float(n) * _UNITS_S[unit] for n, unit in _DURATION.findall(str(value)))
    return max(1, math.ceil(total))


def _probe(healthcheck: Any) -> dict[str, Any] | None:
    """The compose ``healthcheck`` as a Kubernetes exec readiness probe (None when it has none)."""
    if not isinstance(healthcheck, dict) or healthcheck.get("disable"):
        return None
    test = healthcheck.get("test")
    if isinstance(test, str):
        test = ["CMD-SHELL", test]
    if not test or test[0] == "NONE":
        return None
    argv = [str(t) for t in test[1:]] if test[0] == "CMD" else ["/bin/sh", "-c", " ".join(map(str, test[1:]))]
    return {"exec": {"command": argv}, "periodSeconds": _seconds(healthcheck.get("interval"), 10),
            "timeoutSeconds": _seconds(healthcheck.get("timeout"), 1),
            "failureThreshold": int(healthcheck.get("retries", 3))}


def _service(name: str, data: dict[str, Any], path: "Path") -> ComposeService:
    labels = _mapping(data.get("labels"))
    for key, value in labels.items():
        if not LABEL_KEY.match(key) or not LABEL_VALUE.match(value):
            raise CaseError(f"label {key}={value!r} is not a valid Kubernetes label (name and value: at most 63 "
                            "characters of [A-Za-z0-9-_.], starting and ending alphanumeric)", path=path,
                            field=f"services.{name}.labels")
    try:
        ports = _ports(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise CaseError(f"cannot read the service's ports ({exc}): use expose: [PORT] or ports: [\"PORT\"]",
                        path=path, field=f"services.{name}") from exc
    return ComposeService(name, labels, _mapping(data.get("environment")), _argv(data.get("command")),
                          _argv(data.get("entrypoint")), data.get("working_dir"), ports,
                          _probe(data.get("healthcheck")))


def load_topology(case: "Case") -> Topology:
    """Read the case's compose file and pick the repro's service and the services beside it.

    Raises:
        CaseError: the compose file is unreadable, the repro service is unclear, ``topology.services``
            names a service the file does not define, or a label is not a valid Kubernetes label.
    """
    import yaml

    path = case.path / case.raw["topology"]["compose"]
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CaseError(f"cannot read the compose file: {exc}", path=path) from exc
    services = (data or {}).get("services") if isinstance(data, dict) else None
    if not isinstance(services, dict) or not services:
        raise CaseError("a compose file must define services", path=path, field="services")
    listed = list(case.raw["topology"].get("services") or [])
    case_yaml = case.path / "case.yaml"
    if not listed:
        if len(services) != 1:
            raise CaseError(f"the compose file defines {len(services)} services ({', '.join(map(str, services))}): "
                            "name the one that runs the repro first in topology.services", path=case_yaml,
                            field="topology.services")
        listed = list(services)
    for index, name in enumerate(listed):
        if name not in services:
            raise CaseError(f"topology.services names {name!r}, which {path.name} does not define "
                            f"({', '.join(map(str, services))})", path=case_yaml, field=f"topology.services[{index}]")
    chosen = [_service(name, services[name] or {}, path) for name in listed]
    absent = tuple(dict.fromkeys([*(str(s) for s in services if s not in listed), *BASE_SERVICES]))
    return Topology(chosen[0], tuple(chosen[1:]), absent)


def _host_pattern(name: str) -> re.Pattern[str]:
    """``name`` used as a host: before ``:PORT``, after ``//``, or as the whole value."""
    word = re.escape(name)
    return re.compile(rf"(?<![A-Za-z0-9_.-]){word}(?=:[0-9])|(?<=//){word}(?![A-Za-z0-9_.-])|^{word}$")


def host_names(case: "Case", topology: Topology, run_id: str) -> dict[str, str]:
    """Compose service name -> the Kubernetes Service name that replaces it as a host name."""
    return {s.name: service_name(case.id, s.name, run_id) for s in topology.services}


def pod_environment(environment: dict[str, str], *, hosts: dict[str, str], absent: tuple[str, ...]) -> dict[str, str]:
    """A compose ``environment`` for a pod: rendered hosts renamed, variables naming absent hosts left out."""
    out: dict[str, str] = {}
    for key, value in environment.items():
        if any(_host_pattern(name).search(value) for name in absent):
            continue
        for name, replacement in hosts.items():
            value = _host_pattern(name).sub(replacement, value)
        out[key] = value
    return out


def render_services(case: "Case", topology: Topology, *, run_id: str, image: str,
                    namespace: str) -> list[dict[str, Any]]:
    """A Deployment and (when it has ports) a Service per service beside the repro, in that order.

    Returns:
        The objects as dicts (valid against the Kubernetes OpenAPI schemas of apps/v1 Deployment and
        v1 Service). Pods are labelled with the compose labels, the run's labels and
        ``faultlib.dev/service``; the Deployment and the Service select them by run id and service.
    """
    hosts = host_names(case, topology, run_id)
    objects: list[dict[str, Any]] = []
    for service in topology.services:
        name = hosts[service.name]
        match = {LABEL_RUN_ID: run_id, LABEL_SERVICE: service.name}
        pod_labels = {**service.labels, **run_labels(case.id, run_id), **match}
        env = {**pod_environment(service.environment, hosts=hosts, absent=topology.absent), "PYTHONUNBUFFERED": "1"}
        container: dict[str, Any] = {"name": slug(service.name, 63), "image": image,
                                     "env": [{"name": k, "value": v} for k, v in env.items()],
                                     "volumeMounts": [{"name": "case", "mountPath": CASE_MOUNT, "readOnly": True}]}
        if service.entrypoint is not None:
            container["command"] = service.entrypoint
        if service.command is not None:
            container["args"] = service.command
        if service.working_dir:
            container["workingDir"] = service.working_dir
        if service.ports:
            container["ports"] = [{"containerPort": p, "protocol": "TCP"} for p in service.ports]
        if service.probe:
            container["readinessProbe"] = service.probe
        meta = {"name": name, "namespace": namespace, "labels": {**run_labels(case.id, run_id),
                                                                  LABEL_SERVICE: service.name}}
        objects.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {
            "replicas": 1, "selector": {"matchLabels": match},
            "template": {"metadata": {"labels": pod_labels}, "spec": {
                "containers": [container],
                "volumes": [{"name": "case", "configMap": {"name": configmap_name(case.id, run_id)}}]}}}})
        if service.ports:
            objects.append({"apiVersion": "v1", "kind": "Service", "metadata": dict(meta), "spec": {
                "selector": match, "ports": [{"name": f"tcp-{p}", "port": p, "targetPort": p, "protocol": "TCP"}
                                             for p in service.ports]}})
    return objects
