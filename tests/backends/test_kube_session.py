"""A Kubernetes run against the stand-in API server: the run's volume, Deployments and Services live
for the whole run and are deleted after it, also when it fails; a file:// archive is said to lose the
pods' evidence; and, with the fake's local kubelet running the real pod entry point, the Job's
restarts follow ``repro.restarts`` with the attempt number counted on the run's volume."""

from __future__ import annotations

import json

import pytest
import yaml

from faultlib.backends.kube_names import claim_name
from faultlib.errors import BackendUnavailable
from faultlib.evidence import layout
from faultlib.record import Verdict
from tests.backends.kube_api_fake import FakeKubeApi, FakeKubeServer, LocalKubelet
from tests.backends.test_kube_manifests import TWO_SERVICES, case_with
from tests.backends.test_kubernetes_backend import _backend, _run, chaos_case, kubernetes
from tests.conftest import CRDS, needs_crds

pytestmark = needs_crds

# attaches (so that process_kill can act) and steps; exits with FAULTLIB_TEST_EXIT in the faulted phase
RESTART_REPRO = '''
import os, sys
from faultlib import repro

with repro.context() as ctx:
    ctx.attach(None)
    for step in range(4):
        with ctx.step(step, total=4) as span:
            span.set(value=step)
    print(f"phase={ctx.phase} attempt={ctx.attempt}", flush=True)
code = int(ctx.params.get("exit_faulted", 0)) if ctx.phase == "faulted" else 0
sys.exit(code)
'''


@pytest.fixture
def fake_api(tmp_path):
    api = FakeKubeApi(CRDS)
    with FakeKubeServer(api) as server:
        client = kubernetes.client.ApiClient(kubernetes.client.Configuration(host=server.host))
        yield api, client
        client.close()


def restart_case(tmp_path, *, restarts=1, exit_faulted=0, kill=True):
    case_dir = case_with(tmp_path, local=[{"shim": "process_kill", "params": {"at_step": 2, "attempt": 1}}] if kill
                         else [], keep=["process_kill"] if kill else None)
    data_path = case_dir / "case.yaml"
    data = yaml.safe_load(data_path.read_text())
    data["repro"]["restarts"] = {"max": restarts, "on_signal": ["SIGKILL"]}
    data["repro"]["params"]["exit_faulted"] = exit_faulted
    data_path.write_text(yaml.safe_dump(data, sort_keys=False))
    (case_dir / "repro.py").write_text(RESTART_REPRO)
    return case_dir


def test_volume_and_topology_live_for_the_run_and_are_deleted_after_it(tmp_path, fake_api, capsys):
    api, client = fake_api
    spec = {"action": "delay", "mode": "all", "delay": {"latency": "100ms"}, "direction": "to",
            "selector": {"labelSelectors": {"app": "cache"}},
            "target": {"mode": "all", "selector": {"labelSelectors": {"app": "api"}}}}
    case_dir = case_with(tmp_path, compose=TWO_SERVICES, services=["api", "cache"],
                         chaos=[{"kind": "NetworkChaos", "name": "slow-cache", "spec": spec}])
    record, archive, case = _run(case_dir, tmp_path, _backend(client, storage_class="standard", volume_size="2Gi"))
    claim = claim_name(case.id, record.run_id)
    created = [r.body["kind"] for r in api.calls("POST") if not r.dry_run]
    assert created == ["ConfigMap", "PersistentVolumeClaim", "Deployment", "Service", "Job", "Job", "NetworkChaos"]
    assert api.calls("POST", "/persistentvolumeclaims")[0].body["spec"]["storageClassName"] == "standard"
    assert api.calls("GET", "/deployments/"), "the Deployment's readiness was not awaited"
    last_job = max(i for i, r in enumerate(api.requests) if r.method == "DELETE" and "/jobs/" in r.path)
    assert api.index("DELETE", f"/persistentvolumeclaims/{claim}") > last_job
    assert api.calls("DELETE", "/deployments/") and api.calls("DELETE", "/services/")
    assert api.objects == {} and api.pods == {}, "the run left objects behind"

    # a file:// archive: said on stderr, in stderr.txt, and as a finding of each phase
    assert "note: kubernetes backend: the archive is not s3://" in capsys.readouterr().err
    run_dir = archive.root / case.id / record.run_id
    assert (run_dir / layout.STDERR).read_text().count("only their logs come back") == 2
    for phase in (record.control, record.faulted):
        [finding] = [f for f in phase.findings if f.detector == "kubernetes"]
        assert finding.severity.value == "warning" and "did not come back" in finding.message


def test_the_volume_is_deleted_also_when_the_run_fails(tmp_path, fake_api):
    api, client = fake_api
    api.chaos_injected = False
    with pytest.raises(BackendUnavailable, match="did not report NetworkChaos"):
        _run(chaos_case(tmp_path), tmp_path, _backend(client, inject_timeout_s=0.2))
    assert api.calls("POST", "/persistentvolumeclaims") and api.calls("DELETE", "/persistentvolumeclaims/")
    assert api.objects == {} and api.pods == {}


def test_a_deployment_never_ready_stops_the_run_before_any_job(tmp_path, fake_api):
    api, client = fake_api
    api.deployments_ready = False
    case_dir = case_with(tmp_path, compose=TWO_SERVICES, services=["api", "cache"])
    with pytest.raises(BackendUnavailable, match=r"Deployment faultlib-kube-case-cache-\w+ \(service cache\) had no "
                                                 r"ready pod within 0.2 s"):
        _run(case_dir, tmp_path, _backend(client, start_timeout_s=0.2))
    assert not api.calls("POST", "/jobs") and api.objects == {}


def test_restarts_follow_repro_restarts_and_the_attempt_comes_from_the_volume(tmp_path, fake_api):
    api, client = fake_api
    api.kubelet = kubelet = LocalKubelet(tmp_path / "node")
    record, archive, case = _run(restart_case(tmp_path), tmp_path, _backend(client))
    faulted = [r for r in kubelet.runs if r["env"]["FAULTLIB_PHASE"] == "faulted"]
    assert [r["exit_code"] for r in faulted] == [137, 0], "killed by the kept process_kill, then restarted once"
    assert "FAULTLIB_ATTEMPT" not in faulted[0]["env"], "no fixed attempt in the Job spec"
    assert record.faulted.exit_code == 0 and record.control.exit_code == 0
    job = api.calls("POST", "/jobs")[1].body
    assert job["spec"]["backoffLimit"] == 1
    volume = tmp_path / "node" / "volumes" / claim_name(case.id, record.run_id)
    assert sorted(p.name for p in (volume / "state" / "attempts" / "faulted").iterdir()) == ["1", "2"]
    attempts = set()
    for line in (volume / "run" / layout.TRACES).read_text().splitlines():
        for span in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            attrs = {a["key"]: a["value"] for a in span.get("attributes", [])}
            if span["name"] == "train.step" and "faultlib.attempt" in attrs:
                attempts.add(int(attrs["faultlib.attempt"]["intValue"]))
    assert attempts == {1, 2}, "the evidence of the killed attempt outlived its pod"
    stdout = (archive.root / case.id / record.run_id / layout.STDOUT).read_text()
    assert "# faultlib phase=faulted attempt=1" in stdout and "# faultlib phase=faulted attempt=2" in stdout
    assert "\nphase=faulted attempt=2\n" in stdout, "the repro saw attempt 2"


def test_an_exit_no_listed_signal_caused_fails_the_job_at_once(tmp_path, fake_api):
    api, client = fake_api
    api.kubelet = kubelet = LocalKubelet(tmp_path / "node")
    record, _, _ = _run(restart_case(tmp_path, restarts=2, exit_faulted=3, kill=False), tmp_path, _backend(client),
                        control=False)
    assert [r["exit_code"] for r in kubelet.runs] == [3], "podFailurePolicy: no retry for exit code 3"
    assert record.faulted.exit_code == 3 and record.verdict is Verdict.ERROR


def test_pod_logs_come_back_verbatim_even_when_they_look_like_json(tmp_path, fake_api):
    api, client = fake_api
    api.pod_log = '{"step": 1, "loss": 0.5}\nplain line\n'
    record, archive, case = _run(chaos_case(tmp_path), tmp_path, _backend(client), control=False)
    stdout = (archive.root / case.id / record.run_id / layout.STDOUT).read_text()
    assert '\n{"step": 1, "loss": 0.5}\nplain line\n' in stdout and "b'" not in stdout
