"""The pods' evidence comes back through an s3:// archive, against a real S3 server (SeaweedFS on
127.0.0.1, as the archive tests use): the pod entry point uploads the run directory into the run's
place in the store without its keys ever reaching the repro; the runner fetches it back, checked by
sha256; and a whole run through the stand-in API server, whose kubelet runs the real pod entry point
with the Job's env (secretKeyRef resolved from the run's Secret), ends with the evidence of a local
run, the Secret deleted and no key in any object or file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
import yaml

from faultlib.archive import S3Archive
from faultlib.backends.kube_evidence import fetch_run_dir, run_location, upload_run_dir
from faultlib.cases import load_case
from faultlib.errors import ArchiveError
from faultlib.evidence import layout
from faultlib.record import Verdict
from faultlib.runner import Runner
from tests.backends.kube_api_fake import FakeKubeApi, FakeKubeServer, LocalKubelet
from tests.backends.test_kubernetes_backend import _backend, chaos_case, kubernetes
from tests.conftest import CRDS, needs_crds

BUCKET = "faultlib-k8s"
ENV_REPRO = '''
import json, os, pathlib
run_dir = pathlib.Path(os.environ["FAULTLIB_RUN_DIR"])
(run_dir / "dumps").mkdir(exist_ok=True)
(run_dir / "dumps" / "env.json").write_text(json.dumps(dict(os.environ)))
(run_dir / "traces.jsonl").write_text("{}\\n")
(run_dir / "stdout.txt").write_text("the runner owns this name\\n")
print("repro done")
'''

pytestmark = needs_crds


def pod_entry(tmp_path, server, *, archive, case_id="made_case", run_id="20261130T120048Z-3fa2c1"):
    """Run the pod entry point as a Job's container would: keys in its environment, a repro after --."""
    run_dir, state = tmp_path / "volume" / "run", tmp_path / "volume" / "state"
    run_dir.mkdir(parents=True, exist_ok=True)
    (tmp_path / "repro.py").write_text(ENV_REPRO)
    env = {"PATH": os.environ["PATH"], "FAULTLIB_RUN_DIR": str(run_dir), "FAULTLIB_PHASE": "faulted",
           "FAULTLIB_CASE_ID": case_id, "FAULTLIB_RUN_ID": run_id, **server.env()}
    proc = subprocess.run([sys.executable, "-m", "faultlib.backends.kube_pod", "--state-dir", str(state),
                           "--archive", archive, "--", sys.executable, str(tmp_path / "repro.py")],
                          env=env, capture_output=True, text=True, timeout=120)
    return proc, run_dir


def test_the_pod_uploads_its_run_directory_and_the_runner_fetches_it_back(tmp_path, s3):
    archive = f"s3://{BUCKET}/pods"
    proc, run_dir = pod_entry(tmp_path, s3, archive=archive)
    assert proc.returncode == 0, proc.stderr
    assert "# faultlib phase=faulted attempt=1" in proc.stdout and "evidence uploaded to the archive: 2 file(s) sent" \
        in proc.stdout
    repro_env = json.loads((run_dir / "dumps" / "env.json").read_text())
    assert not {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "FAULTLIB_S3_ENDPOINT"} & set(repro_env), \
        "the repro got the archive's keys"
    assert repro_env["FAULTLIB_ATTEMPT"] == "1"
    bucket, prefix = run_location(archive, "made_case", "20261130T120048Z-3fa2c1")
    stored = {o.object_name for o in s3.client().list_objects(bucket, prefix=prefix, recursive=True)}
    assert stored == {prefix + "traces.jsonl", prefix + "dumps/env.json"}, "runner files are not the pod's to upload"
    assert prefix == "pods/made_case/20261130T120048Z-3fa2c1/", "the run's own place in the archive (spool layout)"

    local = tmp_path / "local-run"
    local.mkdir()
    (local / layout.STDOUT).write_text("pod logs\n")
    assert fetch_run_dir(archive, "made_case", "20261130T120048Z-3fa2c1", local) == ["dumps/env.json",
                                                                                      "traces.jsonl"]
    assert (local / "dumps" / "env.json").read_bytes() == (run_dir / "dumps" / "env.json").read_bytes()
    assert (local / layout.STDOUT).read_text() == "pod logs\n"

    again, _ = pod_entry(tmp_path, s3, archive=archive)  # the next attempt sends only what changed
    assert "# faultlib phase=faulted attempt=2" in again.stdout and "1 file(s) sent, 1 unchanged" in again.stdout


def test_a_fetched_file_that_differs_from_its_sha256_is_refused(tmp_path, s3):
    archive = f"s3://{BUCKET}/tampered"
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "traces.jsonl").write_text("original\n")
    upload_run_dir(run_dir, archive, "made_case", "20261130T120048Z-3fa2c1")
    bucket, prefix = run_location(archive, "made_case", "20261130T120048Z-3fa2c1")
    data = b"replaced\n"
    s3.client().put_object(bucket, prefix + "traces.jsonl", io.BytesIO(data), len(data),
                           metadata={"sha256": "0" * 64})
    with pytest.raises(ArchiveError, match="the pod's traces.jsonl differs from the sha256 it was stored with"):
        fetch_run_dir(archive, "made_case", "20261130T120048Z-3fa2c1", tmp_path / "local")
    assert not (tmp_path / "local" / "traces.jsonl").exists()


def test_a_kubernetes_run_has_the_evidence_of_a_local_one_through_an_s3_archive(tmp_path, s3, capsys):
    api = FakeKubeApi(CRDS, kubelet=LocalKubelet(tmp_path / "node"))
    uri = f"s3://{BUCKET}/k8s"
    with FakeKubeServer(api) as server:
        client = kubernetes.client.ApiClient(kubernetes.client.Configuration(host=server.host))
        try:
            backend = _backend(client, archive=uri)
            record = Runner(S3Archive(uri, retry_delays_s=(0.0,)), backend=backend).run(load_case(chaos_case(tmp_path)))
        finally:
            client.close()
    assert "FAULTLIB_S3_ENDPOINT names this machine (a loopback address)" in capsys.readouterr().err
    # the tiny case's step assertions pass: both phases' spans came back from the pods
    assert record.verdict is Verdict.PASSED, f"{record.error}; {record.assertions}"
    assert record.control.findings == [] and record.faulted.findings == []
    secret_post = api.calls("POST", "/secrets")[0]
    assert set(secret_post.body["stringData"]) == {"FAULTLIB_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
    assert api.index("POST", "/secrets") < api.index("POST", "/jobs") and api.calls("DELETE", "/secrets/")
    assert api.objects == {} and api.pods == {}

    values = [s3.access_key, s3.secret_key, s3.endpoint]
    bodies = json.dumps([r.body for r in api.requests if r.body and r.body.get("kind") != "Secret"])
    assert not any(v in bodies for v in values), "a key or the endpoint reached a Job, the ConfigMap or a chaos object"
    local = tmp_path / "fetched"
    S3Archive(uri).get(record.case["id"], record.run_id, local)
    run_dir = local / record.case["id"] / record.run_id
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert not any(v.encode() in path.read_bytes() for v in values), f"{path.name} holds a key"
    applied = list(yaml.safe_load_all((run_dir / "kubernetes.yaml").read_text()))
    assert applied[0]["kind"] == "Secret" and "<redacted" in applied[0]["stringData"]["AWS_SECRET_ACCESS_KEY"]
    stderr = (run_dir / layout.STDERR).read_text()
    assert stderr.count("evidence file(s) the pods uploaded to " + uri) == 2, "fetched after each phase"
