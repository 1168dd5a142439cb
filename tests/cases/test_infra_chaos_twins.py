"""The Chaos Mesh twins of the catalog's cases, rendered as faultlib renders them for a run and validated
against the real CRD schemas (../shared/chaos-mesh-crds), then read as a reviewer reads the dry-run:
for every case with a twin, each chaos selector selects pods the run renders, each fault is applied
once, and the Jobs restart as ``repro.restarts`` says, with the evidence on a volume that outlives a pod.

The selector check here is written independently of :mod:`faultlib.chaos.selectors` on purpose."""

from __future__ import annotations

import copy
import json
import signal

import pytest

from faultlib.backends.kube_manifests import manifests
from faultlib.cases import discover, load_case
from faultlib.chaos import CrdSchemas, LABEL_RUN_ID, chaos_entries, render_chaos, validate_case_chaos
from faultlib.errors import CaseValidationError
from tests.conftest import CRDS, REPO, needs_crds

RUN_ID = "20261130T120048Z-3fa2c1"
TWINS = [c for c in discover(REPO / "cases") if load_case(c).raw["inject"]["kubernetes"]["twin"] is not None]
EMBEDDED = {"PodChaos": "podChaos", "NetworkChaos": "networkChaos", "StressChaos": "stressChaos",
            "IOChaos": "ioChaos", "HTTPChaos": "httpChaos", "TimeChaos": "timeChaos"}

pytestmark = needs_crds


def rendered(case_id):
    case = load_case(REPO / "cases" / case_id)
    return case, render_chaos(chaos_entries(case), case_id=case.id, run_id=RUN_ID, namespace="ml")


def test_downstream_delay_is_a_valid_network_chaos():
    case, [obj] = rendered("downstream_timeout")
    validate_case_chaos(case, [obj], CrdSchemas(CRDS))
    assert obj["apiVersion"] == "chaos-mesh.org/v1alpha1" and obj["kind"] == "NetworkChaos"
    assert obj["metadata"]["name"] == "downstream-delay-3fa2c1"
    spec = obj["spec"]
    assert spec["action"] == "delay" and spec["direction"] == "to"
    # the case's own selectors keep their labels and are scoped to the run (namespace, run-id label)
    assert spec["selector"] == {"namespaces": ["ml"], "labelSelectors": {"app": "feature-service",
                                                                          LABEL_RUN_ID: RUN_ID}}
    assert spec["target"]["selector"] == {"namespaces": ["ml"], "labelSelectors": {"app": "model-service",
                                                                                    LABEL_RUN_ID: RUN_ID}}
    shim = case.shims[0].params
    assert spec["delay"] == {"latency": f"{shim['latency_ms']}ms", "jitter": f"{shim['jitter_ms']}ms",
                             "correlation": "0"}, "the twin and the local shim must inject the same delay"


def test_trainer_kill_is_a_valid_pod_chaos_aimed_at_the_runs_pod():
    case, [obj] = rendered("preempted_training")
    validate_case_chaos(case, [obj], CrdSchemas(CRDS))
    spec = obj["spec"]
    assert obj["kind"] == "PodChaos" and spec["action"] == "pod-kill" and spec["gracePeriod"] == 0
    assert spec["mode"] == "one"
    assert spec["selector"]["labelSelectors"][LABEL_RUN_ID] == RUN_ID  # filled in by faultlib
    assert spec["selector"]["namespaces"] == ["ml"]


@pytest.mark.parametrize("case_id, mutate, phrase", [
    ("downstream_timeout", lambda s: s.update(action="slowdown"), "'slowdown' is not one of"),
    ("downstream_timeout", lambda s: s.update(direction="sideways"), "'sideways' is not one of"),
    ("downstream_timeout", lambda s: s["delay"].update(latency=400), "400 is not of type 'string'"),
    ("preempted_training", lambda s: s.update(gracePeriod="0"), "'0' is not of type 'integer'"),
    ("preempted_training", lambda s: s.update(mode="some"), "'some' is not one of"),
])
def test_a_broken_twin_is_reported_against_case_yaml(case_id, mutate, phrase):
    case, [obj] = rendered(case_id)
    broken = copy.deepcopy(obj)
    mutate(broken["spec"])
    with pytest.raises(CaseValidationError, match=phrase) as info:
        validate_case_chaos(case, [broken], CrdSchemas(CRDS))
    problem = info.value.problems[0]
    assert problem.field.startswith("inject.kubernetes.chaos[0].spec") and problem.line is not None


# -- every case with a twin, as its dry-run renders it ----------------------------------------------

def run_objects(case_dir, **kwargs):
    case = load_case(case_dir)
    return case, manifests(case, run_id=RUN_ID, namespace="ml", **kwargs)


def selectors_of(kind, spec, where=("spec",)):
    """(where, kind, selector) of every pod selector in a chaos spec, embedded specs included."""
    if kind in EMBEDDED:
        if spec.get("selector"):
            yield where + ("selector",), kind, spec["selector"]
        if kind == "NetworkChaos" and (spec.get("target") or {}).get("selector"):
            yield where + ("target", "selector"), kind, spec["target"]["selector"]
    elif kind == "Schedule":
        field = EMBEDDED[spec["type"]]
        yield from selectors_of(spec["type"], spec[field], where + (field,))
    elif kind == "Workflow":
        for i, template in enumerate(spec["templates"]):
            for inner, field in EMBEDDED.items():
                if field in template:
                    yield from selectors_of(inner, template[field], where + ("templates", i, field))


def pods_of(objects):
    """(name, namespace, labels) of the pod template of every Job and Deployment, and of every rank pod of a
    PyTorchJob with the labels the Kubeflow training operator adds (replica type in lower case, replica index)."""
    pods = [(o["metadata"]["name"], o["metadata"]["namespace"], o["spec"]["template"]["metadata"]["labels"])
            for o in objects if o["kind"] in ("Job", "Deployment")]
    for o in objects:
        for rtype, spec in (o["spec"].get("pytorchReplicaSpecs") or {}).items() if o["kind"] == "PyTorchJob" else ():
            pods += [(f"{o['metadata']['name']}-{rtype.lower()}-{i}", o["metadata"]["namespace"],
                      {**spec["template"]["metadata"]["labels"], "training.kubeflow.org/replica-type": rtype.lower(),
                       "training.kubeflow.org/replica-index": str(i)}) for i in range(spec["replicas"])]
    return pods


def selected(selector, pods):
    assert set(selector) <= {"namespaces", "labelSelectors"}, f"this test cannot judge {sorted(selector)}"
    return [name for name, namespace, labels in pods
            if namespace in selector.get("namespaces", [namespace])
            and all(labels.get(k) == v for k, v in selector.get("labelSelectors", {}).items())]


def faulted_job(objects):
    return next(o for o in objects if o["kind"] in ("Job", "PyTorchJob")
                and o["metadata"]["labels"]["faultlib.dev/phase"] == "faulted")


def env_of(job):
    template = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"] if job["kind"] == "PyTorchJob" \
        else job["spec"]["template"]
    return {e["name"]: e.get("value") for e in template["spec"]["containers"][0]["env"]}


def test_the_catalog_has_twins_to_check():
    assert {c.name for c in TWINS} >= {"downstream_timeout", "preempted_training"}


@pytest.mark.parametrize("case_dir", TWINS, ids=[c.name for c in TWINS])
def test_every_chaos_selector_selects_pods_the_run_renders(case_dir):
    case, objects = run_objects(case_dir)
    # the chaos exists while the faulted Job runs: it may act on that Job's pod and on the topology's services
    pods = pods_of([o for o in objects if o["kind"] == "Deployment"] + [faulted_job(objects)])
    chaos = [o for o in objects if o["apiVersion"].startswith("chaos-mesh.org/")]
    assert chaos, "a twin renders chaos objects"
    for obj in chaos:
        found = list(selectors_of(obj["kind"], obj["spec"]))
        assert found, f"{obj['kind']} {obj['metadata']['name']} has no selector"
        picks = {}
        for where, kind, selector in found:
            assert selector["namespaces"] == ["ml"], where
            assert selector["labelSelectors"][LABEL_RUN_ID] == RUN_ID, f"{where}: not scoped to the run"
            picks[where] = selected(selector, pods)
            assert picks[where], f"{obj['kind']} {'.'.join(map(str, where))} selects none of {pods}"
            if case.world and "training.kubeflow.org/replica-type" in selector["labelSelectors"]:
                assert len(picks[where]) == 1, f"{where}: a rank selector picks exactly one rank's pod, not {picks[where]}"
        source = picks.get(("spec", "selector"))
        target = picks.get(("spec", "target", "selector"))
        if source and target:  # netem acts on the selected pods' interface towards the target's: two sets of pods
            assert not set(source) & set(target), f"selector and target pick the same pods {source}"


@pytest.mark.parametrize("case_dir", TWINS, ids=[c.name for c in TWINS])
def test_every_topology_service_the_repro_reaches_is_rendered(case_dir):
    case, objects = run_objects(case_dir)
    services = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Service"}
    deployments = [o for o in objects if o["kind"] == "Deployment"]
    listed = case.raw["topology"].get("services") or []
    assert len(deployments) == max(len(listed) - 1, 0), "one Deployment per service beside the repro's"
    for service in services.values():  # each Service selects its Deployment's pods
        assert any(all(d["spec"]["template"]["metadata"]["labels"].get(k) == v
                       for k, v in service["spec"]["selector"].items()) for d in deployments)
    for job in (o for o in objects if o["kind"] == "Job"):
        for name, value in env_of(job).items():
            host = (value or "").rsplit("//", 1)[-1].split(":")[0]
            if ":" in (value or "") and host.startswith("faultlib-"):
                port = int(value.rsplit(":", 1)[1].split("/")[0])
                assert host in services and port in [p["port"] for p in services[host]["spec"]["ports"]], name
            assert "otel-collector" not in (value or ""), f"{name} points at the compose collector"


@pytest.mark.parametrize("case_dir", TWINS, ids=[c.name for c in TWINS])
def test_no_fault_is_applied_twice(case_dir):
    case, objects = run_objects(case_dir)
    kept = case.raw["inject"]["kubernetes"].get("keep_local") or []
    jobs = {o["metadata"]["labels"]["faultlib.dev/phase"]: o for o in objects if o["kind"] in ("Job", "PyTorchJob")}
    in_pod = [f["shim"] for f in json.loads(env_of(jobs["faulted"])["FAULTLIB_FAULTS"])]
    assert in_pod == [s.name for s in case.shims if s.name in kept], "a shim the twin replaces is still in the pod"
    assert json.loads(env_of(jobs["control"])["FAULTLIB_FAULTS"]) == []
    assert case.raw["inject"]["kubernetes"]["twin"] in {o["kind"] for o in objects}


@pytest.mark.parametrize("case_dir", TWINS, ids=[c.name for c in TWINS])
def test_jobs_restart_as_the_case_says_and_keep_their_evidence_on_a_volume(case_dir):
    case, objects = run_objects(case_dir)
    [claim] = [o for o in objects if o["kind"] == "PersistentVolumeClaim"]
    for job in (o for o in objects if o["kind"] == "Job"):
        spec = job["spec"]
        assert spec["backoffLimit"] == case.restarts.max
        if case.restarts.max:
            [rule] = spec["podFailurePolicy"]["rules"]
            assert rule["action"] == "FailJob" and rule["onExitCodes"]["operator"] == "NotIn"
            assert rule["onExitCodes"]["values"] == sorted(128 + signal.Signals[s] for s in case.restarts.on_signal)
        pod = spec["template"]["spec"]
        assert "FAULTLIB_ATTEMPT" not in env_of(job), "the attempt comes from the pod, not a fixed value"
        assert not any("emptyDir" in v for v in pod["volumes"])
        volumes = {v["name"]: v for v in pod["volumes"]}
        mounts = {m["mountPath"]: m for m in pod["containers"][0]["volumeMounts"]}
        run_dir = mounts[env_of(job)["FAULTLIB_RUN_DIR"]]
        assert volumes[run_dir["name"]]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
        state = pod["containers"][0]["command"][pod["containers"][0]["command"].index("--state-dir") + 1]
        assert volumes[mounts[state]["name"]] == volumes[run_dir["name"]], "attempts are counted on the same volume"
