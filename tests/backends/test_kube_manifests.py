"""What the Kubernetes backend renders, without a cluster: the twin replaces the local shims unless
``keep_local`` says both; the topology's services become Deployments and Services the chaos can
select; selectors that select nothing are refused before anything runs; the run's volume, the
archive's Secret (never its values), the backend options and their errors; every object valid
against kubernetes-validate and the real CRDs."""

from __future__ import annotations

import json

import pytest
import yaml

from faultlib.backends import get_backend
from faultlib.backends.kube_manifests import REDACTED, RunSettings, manifests
from faultlib.backends.kube_topology import BASE_SERVICES
from faultlib.cases import discover, load_case
from faultlib.chaos import CrdSchemas
from faultlib.errors import CaseError, CaseValidationError, FaultlibError
from tests.backends.test_kubernetes_backend import DELAY, chaos_case, cli, k8s_validate
from tests.backends.test_kube_world import pytorchjob_problems
from tests.conftest import CRDS, REPO, needs_crds, tiny_case_data, write_case

RUN_ID = "20261130T120048Z-3fa2c1"
KILL = {"shim": "process_kill", "params": {"at_step": 2}}
TWO_SERVICES = """\
services:
  api:
    image: python:3.11-slim
    command: ["python", "/case/repro.py"]
    labels: {app: api}
    environment:
      CACHE_ADDR: cache:6379
      CACHE_URL: http://cache:6379/0
      OTEL_EXPORTER_OTLP_ENDPOINT: http://otel-collector:4318
      METRICS_ADDR: unlisted:9100
      NOT_A_HOST: cache-warmup
  cache:
    image: python:3.11-slim
    command: python -m http.server 6379
    labels: {app: cache, tier: backend}
    expose: ["6379"]
    healthcheck:
      test: ["CMD", "python", "-c", "print(1)"]
      interval: 1m30s
      timeout: 500ms
      retries: 4
  unlisted:
    image: python:3.11-slim
"""

CATALOG = discover(REPO / "cases")

pytestmark = needs_crds


def case_with(tmp_path, *, local=(), keep=None, chaos=None, twin="NetworkChaos", compose=None, services=None):
    data = tiny_case_data("kube_case")
    data["inject"]["local"] = list(local)
    data["inject"]["kubernetes"] = {"twin": twin, "reason": "test"}
    if twin:
        data["inject"]["kubernetes"]["chaos"] = chaos or [{"kind": "NetworkChaos", "name": "delay", "spec": DELAY}]
    if keep is not None:
        data["inject"]["kubernetes"]["keep_local"] = keep
    if services:
        data["topology"]["services"] = services
    case_dir = write_case(tmp_path / "cases", data)
    if compose:
        (case_dir / "compose.yaml").write_text(compose)
    return case_dir


def faults_in(objects, phase="faulted"):
    job = next(o for o in objects if o["kind"] == "Job" and o["metadata"]["labels"]["faultlib.dev/phase"] == phase)
    env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    return [f["shim"] for f in json.loads(env["FAULTLIB_FAULTS"])]


def validate_all(objects):
    for obj in objects:
        if obj["apiVersion"].startswith("chaos-mesh.org/"):
            assert CrdSchemas(CRDS).problems(obj) == []
        elif obj["kind"] == "PyTorchJob":
            assert pytorchjob_problems(obj) == []
        else:
            k8s_validate(obj)


@pytest.mark.parametrize("case_dir", CATALOG, ids=[c.name for c in CATALOG])
def test_every_object_of_every_catalog_case_is_valid_with_every_option(case_dir):
    objects = manifests(load_case(case_dir), run_id=RUN_ID, namespace="ml", storage_class="fast-ssd",
                        volume_size="20Gi", archive="s3://runs/nightly", image="registry.example/t:1")
    kinds = {o["kind"] for o in objects}
    workload = "PyTorchJob" if load_case(case_dir).world else "Job"  # a distributed case's ranks: tests/backends/test_kube_world.py
    assert {"Secret", "ConfigMap", "PersistentVolumeClaim", workload} <= kinds
    validate_all(objects)


# -- the twin instead of the shims ---------------------------------------------------------------

def test_the_twin_replaces_the_local_shims_unless_keep_local_names_them(tmp_path):
    replaced = load_case(case_with(tmp_path / "a", local=[KILL]))
    assert faults_in(manifests(replaced, run_id=RUN_ID)) == []
    both = load_case(case_with(tmp_path / "b", local=[KILL], keep=["process_kill"]))
    assert faults_in(manifests(both, run_id=RUN_ID)) == ["process_kill"]
    no_twin = load_case(case_with(tmp_path / "c", local=[KILL], twin=None))
    assert faults_in(manifests(no_twin, run_id=RUN_ID)) == ["process_kill"], "without a twin the shims are the fault"


@pytest.mark.parametrize("keep, phrase", [("process_kill", "is not of type 'array'"), (["a", "a"], "non-unique"),
                                          ([""], "should be non-empty")])
def test_keep_local_is_schema_validated(tmp_path, keep, phrase):
    with pytest.raises(CaseValidationError, match=phrase) as info:
        load_case(case_with(tmp_path, local=[KILL], keep=keep))
    assert info.value.problems[0].field.startswith("inject.kubernetes.keep_local")


def test_keep_local_must_name_a_shim_of_the_case_and_needs_a_twin(tmp_path):
    with pytest.raises(CaseError, match="keep_local names 'tcp_latency', which is not a shim of inject.local") as info:
        manifests(load_case(case_with(tmp_path / "a", local=[KILL], keep=["tcp_latency"])), run_id=RUN_ID)
    assert info.value.field == "inject.kubernetes.keep_local[0]"
    with pytest.raises(CaseError, match="this case has none"):
        manifests(load_case(case_with(tmp_path / "b", local=[KILL], keep=["process_kill"], twin=None)), run_id=RUN_ID)


# -- topology and selectors ----------------------------------------------------------------------

def test_topology_services_become_deployments_and_services_and_hosts_are_renamed(tmp_path):
    spec = {**DELAY, "selector": {"labelSelectors": {"app": "cache"}}, "direction": "to",
            "target": {"mode": "all", "selector": {"labelSelectors": {"app": "api"}}}}
    case = load_case(case_with(tmp_path, compose=TWO_SERVICES, services=["api", "cache"],
                               chaos=[{"kind": "NetworkChaos", "name": "slow-cache", "spec": spec}]))
    objects = manifests(case, run_id=RUN_ID, namespace="ml", image="registry.example/t:1")
    validate_all(objects)
    kinds = [o["kind"] for o in objects]
    assert kinds == ["ConfigMap", "PersistentVolumeClaim", "Deployment", "Service", "Job", "Job", "NetworkChaos"]
    deployment, service = objects[2], objects[3]
    name = deployment["metadata"]["name"]
    assert name == service["metadata"]["name"] == "faultlib-kube-case-cache-3fa2c1" and len(name) <= 63
    pod = deployment["spec"]["template"]
    assert pod["metadata"]["labels"]["app"] == "cache" and pod["metadata"]["labels"]["tier"] == "backend"
    container = pod["spec"]["containers"][0]
    assert container["args"] == ["python", "-m", "http.server", "6379"] and container["image"] == "registry.example/t:1"
    assert container["readinessProbe"] == {"exec": {"command": ["python", "-c", "print(1)"]}, "periodSeconds": 90,
                                           "timeoutSeconds": 1, "failureThreshold": 4}
    assert service["spec"]["ports"][0]["port"] == 6379
    assert all(pod["metadata"]["labels"][k] == v for k, v in service["spec"]["selector"].items())
    job = objects[5]
    assert job["spec"]["template"]["metadata"]["labels"]["app"] == "api"
    env = {e["name"]: e["value"] for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["CACHE_ADDR"] == f"{name}:6379" and env["CACHE_URL"] == f"http://{name}:6379/0"
    assert env["NOT_A_HOST"] == "cache-warmup", "only host names are renamed"
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in env and "METRICS_ADDR" not in env, "hosts the cluster has not"
    chaos = objects[-1]["spec"]
    assert chaos["selector"]["labelSelectors"] == {"app": "cache", "faultlib.dev/run-id": RUN_ID}
    assert chaos["target"]["selector"]["labelSelectors"] == {"app": "api", "faultlib.dev/run-id": RUN_ID}


def test_a_selector_that_selects_none_of_the_runs_pods_is_refused_with_its_line(tmp_path):
    spec = {**DELAY, "selector": {"labelSelectors": {"app": "feature-service"}}}
    case = load_case(case_with(tmp_path, chaos=[{"kind": "NetworkChaos", "name": "delay", "spec": spec}]))
    with pytest.raises(CaseValidationError) as info:
        manifests(case, run_id=RUN_ID)
    [problem] = info.value.problems
    assert problem.field == "inject.kubernetes.chaos[0].spec.selector"
    assert "selects none of the run's pods" in problem.message and problem.line is not None


def test_bad_compose_inputs_are_case_errors(tmp_path):
    bad_label = TWO_SERVICES.replace("tier: backend", "tier: not a label value")
    with pytest.raises(CaseError, match="not a valid Kubernetes label"):
        manifests(load_case(case_with(tmp_path / "a", compose=bad_label, services=["api", "cache"])), run_id=RUN_ID)
    with pytest.raises(CaseError, match="defines 3 services"):
        manifests(load_case(case_with(tmp_path / "b", compose=TWO_SERVICES)), run_id=RUN_ID)


def test_base_services_are_those_of_the_compose_base_topology():
    base = yaml.safe_load((REPO / "compose" / "compose.yaml").read_text())
    assert set(BASE_SERVICES) == set(base["services"])


# -- the run's volume, the archive's Secret, the options ----------------------------------------

def test_storage_class_and_volume_size_reach_the_claim(tmp_path):
    case = load_case(chaos_case(tmp_path))
    [claim] = [o for o in manifests(case, run_id=RUN_ID, storage_class="fast-ssd", volume_size="5Gi")
               if o["kind"] == "PersistentVolumeClaim"]
    assert claim["spec"] == {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}},
                             "storageClassName": "fast-ssd"}
    [default] = [o for o in manifests(case, run_id=RUN_ID) if o["kind"] == "PersistentVolumeClaim"]
    assert "storageClassName" not in default["spec"] and default["spec"]["resources"]["requests"]["storage"] == "1Gi"


@pytest.mark.parametrize("kwargs, phrase", [({"namespace": "ML_team"}, "--namespace 'ML_team' is not a valid"),
                                            ({"storage_class": "Fast SSD"}, "--storage-class 'Fast SSD' is not"),
                                            ({"volume_size": "1 Gi"}, "--volume-size '1 Gi' is not a positive"),
                                            ({"volume_size": "0Gi"}, "is not a positive"),
                                            ({"volume_size": "9" * 5000 + "Gi"}, "larger than a Kubernetes quantity"),
                                            ({"volume_size": "8Ei"}, "larger than a Kubernetes quantity")])
def test_settings_kubernetes_would_reject_are_refused(kwargs, phrase):
    with pytest.raises(FaultlibError, match=phrase):
        RunSettings(**kwargs)


def test_an_s3_archive_adds_a_secret_read_through_secret_key_refs_and_never_its_values(tmp_path):
    case = load_case(chaos_case(tmp_path))
    objects = manifests(case, run_id=RUN_ID, namespace="ml", archive="s3://runs/nightly")
    validate_all(objects)
    secret = objects[0]
    assert secret["kind"] == "Secret" and set(secret["stringData"].values()) == {REDACTED}
    assert set(secret["stringData"]) == {"FAULTLIB_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
    for job in (o for o in objects if o["kind"] == "Job"):
        container = job["spec"]["template"]["spec"]["containers"][0]
        refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in container["env"] if "valueFrom" in e}
        assert set(refs) == {*secret["stringData"], "AWS_SESSION_TOKEN"}
        assert all(r["name"] == secret["metadata"]["name"] and r["key"] == n for n, r in refs.items())
        assert refs["AWS_SESSION_TOKEN"]["optional"] is True
        assert not any(e["name"] in refs and "value" in e for e in container["env"])
        assert container["command"][container["command"].index("--archive") + 1] == "s3://runs/nightly"
    configmap = next(o for o in objects if o["kind"] == "ConfigMap")
    assert not any("AWS_" in text for text in configmap["data"].values())


def test_get_backend_errors_agree_with_the_help(tmp_path):
    for option, kwargs in (("--namespace", {"namespace": "ml"}), ("--crd-dir", {"crd_dir": CRDS}),
                           ("--storage-class", {"storage_class": "fast"}), ("--volume-size", {"volume_size": "2Gi"})):
        for backend in ("local", "compose"):
            with pytest.raises(FaultlibError, match=f"^{option} applies to --backend kubernetes, not {backend}$"):
                get_backend(backend, **kwargs)
    with pytest.raises(FaultlibError, match="^--image applies to --backend compose or --backend kubernetes, not local$"):
        get_backend("local", image="x")
    assert get_backend("local", archive="s3://b/p").name == "local"
    proc = cli("run", "--help", cwd=tmp_path)
    flat = " ".join(proc.stdout.split())
    for option in ("--namespace NS kubernetes only:", "--crd-dir PATH kubernetes only:",
                   "--storage-class CLASS kubernetes only:", "--volume-size SIZE kubernetes only:"):
        assert option in flat, option
    wrong = cli("run", str(chaos_case(tmp_path)), "--namespace", "ml", cwd=tmp_path)
    assert wrong.returncode == 2 and "--namespace applies to --backend kubernetes, not local" in wrong.stderr


def test_cli_dry_run_takes_the_volume_options_and_redacts_the_archive_secret(tmp_path):
    proc = cli("run", str(chaos_case(tmp_path)), "--backend", "kubernetes", "--dry-run", "--crd-dir", str(CRDS),
               "--storage-class", "standard", "--volume-size", "3Gi", "--archive", "s3://runs/k8s", cwd=tmp_path,
               env={"AWS_SECRET_ACCESS_KEY": "not-to-be-printed", "AWS_ACCESS_KEY_ID": "AKIDNOTPRINTED",
                    "FAULTLIB_S3_ENDPOINT": "http://minio.example:9000"})
    assert proc.returncode == 0, proc.stderr
    assert "not-to-be-printed" not in proc.stdout + proc.stderr and "AKIDNOTPRINTED" not in proc.stdout
    docs = list(yaml.safe_load_all(proc.stdout))
    assert [d["kind"] for d in docs][:3] == ["Secret", "ConfigMap", "PersistentVolumeClaim"]
    assert docs[2]["spec"]["storageClassName"] == "standard"
    assert docs[2]["spec"]["resources"]["requests"]["storage"] == "3Gi"
    bad = cli("run", str(chaos_case(tmp_path)), "--backend", "kubernetes", "--dry-run", "--volume-size", "lots",
              cwd=tmp_path)
    assert bad.returncode == 2 and "--volume-size 'lots' is not a positive Kubernetes quantity" in bad.stderr
    huge = cli("run", str(chaos_case(tmp_path)), "--backend", "kubernetes", "--dry-run", "--volume-size",
               "9" * 5000 + "Gi", cwd=tmp_path)
    assert huge.returncode == 2 and "larger than a Kubernetes quantity holds" in huge.stderr
    assert "(5,002 characters)" in huge.stderr and len(huge.stderr) < 600  # the input is not repeated in full
