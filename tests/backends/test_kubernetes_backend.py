"""The Kubernetes backend: objects it renders (validated with kubernetes-validate and the real
Chaos Mesh CRDs), its calls against a stand-in API server on 127.0.0.1 (create, status polls,
delete: also when the assertions fail, injection never comes, or the Job never finishes), an
unreachable API server (exit 3), and ``run --dry-run`` black-box."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
import yaml

from faultlib.archive import FileArchive
from faultlib.backends.kube_manifests import job_name, manifests
from faultlib.backends.kubernetes import KubernetesBackend
from faultlib.cases import discover, load_case
from faultlib.chaos import CrdSchemas
from faultlib.errors import BackendUnavailable, CaseValidationError, FaultlibError
from faultlib.evidence import layout
from faultlib.record import Verdict
from faultlib.runner import Runner
from tests.backends.kube_api_fake import FakeKubeApi, FakeKubeServer
from tests.conftest import CRDS, REPO, needs_crds, tiny_case_data, write_case

kubernetes = pytest.importorskip("kubernetes", reason="the kubernetes client is not installed: pip install "
                                                      "'faultlib-ml[kubernetes]'")
kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed: "
                                                                        "pip install kubernetes-validate")

CATALOG = discover(REPO / "cases")
SINGLE = [c for c in CATALOG if load_case(c).world is None]  # one pod per phase (worlds: test_kube_world.py)
# a Kubernetes version whose OpenAPI schemas kubernetes-validate ships (1.32 to 1.37 in 1.37.0); offline
KUBERNETES_VERSION = "1.33.0"
DELAY = {"action": "delay", "mode": "all", "delay": {"latency": "200ms", "jitter": "20ms"}, "duration": "30s"}
BUILT_IN_KINDS = ("Secret", "ConfigMap", "PersistentVolumeClaim", "Deployment", "Service", "Job")

pytestmark = needs_crds


def chaos_case(root, *, spec=None, name="chaos_case"):
    data = tiny_case_data(name)
    data["inject"]["kubernetes"] = {"twin": "NetworkChaos", "chaos": [
        {"kind": "NetworkChaos", "name": "downstream-delay", "spec": spec or DELAY}]}
    return write_case(root / "cases", data)


def cli(*args: str, cwd, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m faultlib ARGS`` black-box in ``cwd``, with extra environment variables."""
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "faultlib", *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=300)


def k8s_validate(obj: dict) -> None:
    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


@pytest.fixture
def fake_api():
    api = FakeKubeApi(CRDS)
    with FakeKubeServer(api) as server:
        client = kubernetes.client.ApiClient(kubernetes.client.Configuration(host=server.host))
        yield api, client
        client.close()


def _backend(client, **kwargs) -> KubernetesBackend:
    options = {"namespace": "ml", "crd_dir": CRDS, "poll_s": 0.01, "inject_timeout_s": 2.0, "start_timeout_s": 2.0,
               "deadline_margin_s": 0.1}
    return KubernetesBackend(api_client=client, **{**options, **kwargs})


def _run(case_dir, tmp_path, backend, **kwargs):
    archive = FileArchive(tmp_path / "archive")
    case = load_case(case_dir)
    return Runner(archive, backend=backend).run(case, **kwargs), archive, case


# -- rendered objects ----------------------------------------------------------------------------

@pytest.mark.parametrize("case_dir", CATALOG, ids=[c.name for c in CATALOG])
def test_catalog_jobs_and_configmap_validate_against_the_kubernetes_schemas(case_dir):
    case = load_case(case_dir)
    objects = manifests(case, run_id="20261130T120048Z-3fa2c1", image="registry.example/trainer:1.0",
                        namespace="ml")
    jobs = [o for o in objects if o["kind"] == ("PyTorchJob" if case.world else "Job")]
    assert [j["metadata"]["labels"]["faultlib.dev/phase"] for j in jobs] == ["control", "faulted"]
    for obj in objects:
        if obj["apiVersion"].startswith("chaos-mesh.org/"):
            assert CrdSchemas(CRDS).problems(obj) == []
        elif obj["kind"] == "PyTorchJob":
            from tests.backends.test_kube_world import pytorchjob_problems

            assert pytorchjob_problems(obj) == []
        else:
            k8s_validate(obj)
    if case.world:  # the rank pods' template (Master and Worker share it)
        jobs = [{**j, "spec": {"template": j["spec"]["pytorchReplicaSpecs"]["Master"]["template"]}} for j in jobs]
    for job in jobs:
        pod = job["spec"]["template"]
        assert pod["metadata"]["labels"]["faultlib.dev/run-id"] == "20261130T120048Z-3fa2c1"
        assert pod["metadata"]["labels"]["faultlib.dev/case"] == case.id
        container = pod["spec"]["containers"][0]
        assert container["image"] == "registry.example/trainer:1.0"
        # the pod entry point numbers the attempt, runs the repro, uploads the evidence (kube_pod)
        assert container["command"][:3] == ["python", "-m", "faultlib.backends.kube_pod"]
        assert container["command"][-3:] == ["--", "python", f"/case/{case.script.name}"]
        env = {e["name"]: e["value"] for e in container["env"]}
        assert env["FAULTLIB_PHASE"] == job["metadata"]["labels"]["faultlib.dev/phase"]
        assert env["FAULTLIB_RUN_DIR"] == "/faultlib/run" and env["FAULTLIB_CASE_ID"] == case.id
        assert env["FAULTLIB_SEED"] == str(case.seed)
    control_env = {e["name"]: e["value"] for e in jobs[0]["spec"]["template"]["spec"]["containers"][0]["env"]}
    faulted_env = {e["name"]: e["value"] for e in jobs[1]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert yaml.safe_load(control_env["FAULTLIB_FAULTS"]) == []
    twin = case.raw["inject"]["kubernetes"]["twin"]
    kept = case.raw["inject"]["kubernetes"].get("keep_local") or []
    expected = [s.name for s in case.shims if twin is None or s.name in kept]  # the twin replaces the others
    assert [f["shim"] for f in yaml.safe_load(faulted_env["FAULTLIB_FAULTS"])] == expected
    configmap = objects[0]
    assert configmap["kind"] == "ConfigMap" and case.script.name in configmap["data"]


def test_the_kubernetes_schema_check_is_real():
    case = load_case(SINGLE[0])
    job = next(o for o in manifests(case, run_id="20261130T120048Z-3fa2c1") if o["kind"] == "Job")
    job["spec"]["template"]["spec"]["containers"][0]["bogus"] = 1
    with pytest.raises(kubernetes_validate.ValidationError):
        k8s_validate(job)


def test_chaos_selectors_match_the_faulted_jobs_pods(tmp_path):
    case = load_case(chaos_case(tmp_path))
    objects = manifests(case, run_id="20261130T120048Z-3fa2c1", namespace="ml")
    faulted = next(o for o in objects if o["kind"] == "Job" and o["metadata"]["name"].split("-")[-2] == "faulted")
    control = next(o for o in objects if o["kind"] == "Job" and o["metadata"]["name"].split("-")[-2] == "control")
    chaos = objects[-1]
    selector = chaos["spec"]["selector"]
    assert selector["namespaces"] == [faulted["metadata"]["namespace"]]
    for job, selected in ((faulted, True), (control, False)):
        pod_labels = job["spec"]["template"]["metadata"]["labels"]
        assert all(pod_labels.get(k) == v for k, v in selector["labelSelectors"].items()) is selected


# -- against the stand-in API server ---------------------------------------------------------------

def test_run_creates_polls_and_deletes_even_when_the_assertions_fail(tmp_path, fake_api):
    api, client = fake_api
    record, archive, case = _run(chaos_case(tmp_path), tmp_path, _backend(client))
    # a file:// archive: the pod's evidence files cannot come back, so the tiny case's step assertions fail
    assert record.verdict is Verdict.FAILED and "steps_recorded" in record.assertions["failed"]
    assert record.control.exit_code == 0 and record.faulted.exit_code == 0 and record.backend == "kubernetes"
    chaos_name = "downstream-delay-" + record.run_id.rsplit("-", 1)[1]
    faulted_job = job_name(case.id, "faulted", record.run_id)
    control_job = job_name(case.id, "control", record.run_id)
    order = [api.index("POST", "/configmaps"), api.index("POST", "/jobs"), api.index("DELETE", control_job),
             api.index("POST", "/networkchaos"), api.index("GET", f"/networkchaos/{chaos_name}"),
             api.index("DELETE", f"/networkchaos/{chaos_name}"), api.index("DELETE", f"/jobs/{faulted_job}"),
             api.index("DELETE", "/configmaps/")]
    assert order == sorted(order)
    job_posts = [r.body["metadata"]["name"] for r in api.calls("POST", "/jobs")]
    assert job_posts == [control_job, faulted_job]
    assert api.calls("GET", f"/jobs/{faulted_job}/status")
    assert api.index("POST", "/networkchaos") > api.requests.index(api.calls("POST", "/jobs")[1])
    delete_job = api.calls("DELETE", f"/jobs/{faulted_job}")[0]
    assert delete_job.query["propagationPolicy"] == ["Background"]
    assert api.objects == {} and api.pods == {}, "the run left objects behind"
    run_dir = archive.root / case.id / record.run_id
    stdout = (run_dir / layout.STDOUT).read_text()
    assert stdout.count("phase output from the pod") == 2 and "# faultlib phase=faulted backend=kubernetes" in stdout
    assert "chaos injected: NetworkChaos/" + chaos_name in (run_dir / layout.STDERR).read_text()
    applied = list(yaml.safe_load_all((run_dir / "kubernetes.yaml").read_text()))
    assert [o["kind"] for o in applied] == ["ConfigMap", "PersistentVolumeClaim", "NetworkChaos", "Job", "Job"]


def test_chaos_never_injected_raises_and_still_deletes_everything(tmp_path, fake_api):
    api, client = fake_api
    api.chaos_injected = False
    with pytest.raises(BackendUnavailable, match="did not report NetworkChaos downstream-delay-.* injected"):
        _run(chaos_case(tmp_path), tmp_path, _backend(client, inject_timeout_s=0.3))
    assert len(api.calls("GET", "/networkchaos/")) >= 2, "the status was not polled"
    assert api.calls("DELETE", "/networkchaos/") and len(api.calls("DELETE", "/jobs/")) == 2
    assert api.calls("DELETE", "/configmaps/")
    assert api.objects == {} and api.pods == {}


def test_job_that_never_finishes_times_out_and_is_deleted(tmp_path, fake_api):
    api, client = fake_api
    api.job_finishes = False
    record, _, _ = _run(chaos_case(tmp_path), tmp_path, _backend(client, start_timeout_s=0.2), timeout_s=0.2,
                        control=False)
    assert record.verdict is Verdict.ERROR and record.faulted.status.value == "timeout"
    assert len(api.calls("GET", "/status")) >= 2
    assert api.calls("DELETE", "/networkchaos/") and api.calls("DELETE", "/jobs/")
    assert api.objects == {} and api.pods == {}


def test_without_crd_dir_the_server_dry_run_validates_before_anything_is_created(tmp_path, fake_api):
    api, client = fake_api
    bad = chaos_case(tmp_path, spec={**DELAY, "action": "teleport"})
    with pytest.raises(FaultlibError, match="HTTP 422.*teleport"):
        _run(bad, tmp_path, _backend(client, crd_dir=None))
    assert [r.dry_run for r in api.calls("POST")] == [True]
    assert api.objects == {}

    good = chaos_case(tmp_path, name="good_case")
    _run(good, tmp_path, _backend(client, crd_dir=None), control=False)
    dry, real = api.index("POST", "/networkchaos", dry_run=True), api.index("POST", "/networkchaos")
    assert dry < api.index("POST", "/configmaps") < real


def test_crd_dir_rejects_a_bad_spec_before_any_request(tmp_path, fake_api):
    api, client = fake_api
    bad = chaos_case(tmp_path, spec={k: v for k, v in DELAY.items() if k != "mode"})
    with pytest.raises(CaseValidationError) as info:
        _run(bad, tmp_path, _backend(client))
    assert "inject.kubernetes.chaos[0].spec: NetworkChaos 'mode' is a required property" in str(info.value)
    assert api.requests == []


# -- no cluster ----------------------------------------------------------------------------------

def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_api_server_is_backend_unavailable(tmp_path):
    client = kubernetes.client.ApiClient(kubernetes.client.Configuration(host=f"http://127.0.0.1:{_closed_port()}"))
    try:
        with pytest.raises(BackendUnavailable, match="is not reachable"):
            KubernetesBackend(api_client=client).preflight(load_case(chaos_case(tmp_path)))
    finally:
        client.close()


def test_cli_unreachable_cluster_exits_3_and_writes_no_run(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "gone",
        "clusters": [{"name": "gone", "cluster": {"server": f"http://127.0.0.1:{_closed_port()}"}}],
        "users": [{"name": "me", "user": {"token": "t"}}],
        "contexts": [{"name": "gone", "context": {"cluster": "gone", "user": "me"}}]}))
    archive = tmp_path / "runs"
    proc = cli("run", str(chaos_case(tmp_path)), "--backend", "kubernetes", "--archive", f"file://{archive}",
               cwd=tmp_path, env={"KUBECONFIG": str(kubeconfig)})
    assert proc.returncode == 3, proc.stderr
    assert "Kubernetes API server at http://127.0.0.1:" in proc.stderr and "is not reachable" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not archive.exists() or not any(archive.rglob("run.json"))


def test_cli_dry_run_prints_valid_yaml_documents_without_a_cluster(tmp_path):
    case_dir = chaos_case(tmp_path)
    proc = cli("run", str(case_dir), "--backend", "kubernetes", "--dry-run", "--image", "registry.example/t:2",
               "--namespace", "ml", "--crd-dir", str(CRDS), cwd=tmp_path,
               env={"KUBECONFIG": str(tmp_path / "none")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("---\n")
    docs = list(yaml.safe_load_all(proc.stdout))
    assert [d["kind"] for d in docs] == ["ConfigMap", "PersistentVolumeClaim", "Job", "Job", "NetworkChaos"]
    for doc in docs[:4]:
        k8s_validate(doc)
        assert doc["metadata"]["namespace"] == "ml"
    assert docs[2]["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.example/t:2"
    assert CrdSchemas(CRDS).problems(docs[4]) == []
    run_id = docs[4]["metadata"]["labels"]["faultlib.dev/run-id"]
    assert docs[4]["spec"]["selector"]["labelSelectors"]["faultlib.dev/run-id"] == run_id
    assert not (tmp_path / ".faultlib").exists(), "a dry run wrote evidence"

    no_control = cli("run", str(case_dir), "--backend", "kubernetes", "--dry-run", "--no-control", cwd=tmp_path)
    assert [d["kind"] for d in yaml.safe_load_all(no_control.stdout)] == ["ConfigMap", "PersistentVolumeClaim",
                                                                           "Job", "NetworkChaos"]
    assert "not validated: pass --crd-dir" in no_control.stderr

    catalog = cli("run", str(SINGLE[0]), "--backend", "kubernetes", "--dry-run", cwd=tmp_path)
    assert catalog.returncode == 0 and all(d["kind"] in BUILT_IN_KINDS or d["apiVersion"].startswith(
        "chaos-mesh.org/") for d in yaml.safe_load_all(catalog.stdout))


def test_cli_dry_run_needs_the_kubernetes_backend(tmp_path):
    proc = cli("run", str(chaos_case(tmp_path)), "--dry-run", cwd=tmp_path)
    assert proc.returncode == 2 and "use it with --backend kubernetes" in proc.stderr


def test_cli_dry_run_reports_a_bad_chaos_spec_with_file_line_field(tmp_path):
    case_dir = chaos_case(tmp_path, spec={**DELAY, "action": "teleport"})
    proc = cli("run", str(case_dir), "--backend", "kubernetes", "--dry-run", "--crd-dir", str(CRDS), cwd=tmp_path)
    assert proc.returncode == 2
    line = next(i for i, text in enumerate((case_dir / "case.yaml").read_text().splitlines(), 1)
                if "teleport" in text)
    assert f"case.yaml:{line}: inject.kubernetes.chaos[0].spec.action: NetworkChaos 'teleport' is not one of" in \
        proc.stderr.replace("\n", "")


def test_importing_the_backends_loads_neither_kubernetes_nor_docker():
    probe = ("import sys; import faultlib.backends.kubernetes, faultlib.backends.compose, faultlib.chaos, "
             "faultlib.cli.app; print([m for m in ('kubernetes', 'docker', 'jsonschema') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
