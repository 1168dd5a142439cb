"""A small stand-in for the Kubernetes API server on 127.0.0.1, for the calls the Kubernetes
backend makes: version; ConfigMaps, Secrets, Services and PersistentVolumeClaims (create, delete);
Deployments (create, status, delete); Jobs (create, status, delete); pods (list by label, log);
Chaos Mesh custom objects (create, dry run, get with status, delete).

It answers as the API server does (same paths, JSON shapes, status codes: 201 on create, 409 for a
name taken, 404 for missing objects, 422 ``Invalid`` when an object breaks its schema: custom objects
against the real CRDs, built-in kinds with kubernetes-validate) and records every request, so tests
can assert what was created, polled and deleted. A Secret's ``stringData`` is stored as base64
``data``, as the API server does.

Creating a Job creates its pod (labelled like the Job controller does), ``Running``; the first read
of the Job's status finishes the pod with ``exit_code`` and the Job Complete or Failed, unless
``job_finishes`` is False (the Job then stays active). With a ``kubelet`` (:class:`LocalKubelet`),
that first read *runs* the pod's container as a local process instead, and plays the Job controller:
a failed pod is replaced by a new one while ``backoffLimit`` and the ``podFailurePolicy`` allow.
Deployments report a ready replica unless ``deployments_ready`` is False.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from faultlib.chaos import CrdSchemas

CHAOS_PREFIX = "/apis/chaos-mesh.org/v1alpha1/namespaces/"
JOB_PREFIX = "/apis/batch/v1/namespaces/"
APPS_PREFIX = "/apis/apps/v1/namespaces/"
CORE_PREFIX = "/api/v1/namespaces/"
NOW = "2026-11-30T12:00:00Z"
KUBERNETES_VERSION = "1.33.0"   # the OpenAPI schemas built-in kinds are validated against (kubernetes-validate)
CORE_KINDS = {"configmaps": "ConfigMap", "secrets": "Secret", "services": "Service",
              "persistentvolumeclaims": "PersistentVolumeClaim"}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    body: dict | None

    @property
    def dry_run(self) -> bool:
        return self.query.get("dryRun") == ["All"]


@dataclass
class FakeKubeApi:
    """Behaviour knobs, state and the request log of the fake API server."""

    crd_dir: Path
    chaos_injected: bool = True
    job_finishes: bool = True
    deployments_ready: bool = True
    exit_code: int = 0
    pod_log: str = "phase output from the pod\n"
    kubelet: "LocalKubelet | None" = None
    requests: list[Request] = field(default_factory=list)
    objects: dict[str, dict] = field(default_factory=dict)   # path of the object -> object
    pods: dict[str, dict] = field(default_factory=dict)      # pod name -> pod

    def __post_init__(self):
        self.schemas = CrdSchemas(self.crd_dir)
        self.lock = threading.Lock()

    # -- request log helpers used by the tests -----------------------------------------------------

    def calls(self, method: str, contains: str = "") -> list[Request]:
        return [r for r in self.requests if r.method == method and contains in r.path]

    def index(self, method: str, contains: str, *, dry_run: bool = False) -> int:
        """Position of the first matching request in the log (ValueError when there is none)."""
        for i, r in enumerate(self.requests):
            if r.method == method and contains in r.path and r.dry_run == dry_run:
                return i
        raise ValueError(f"no {method} {contains} request in {[(r.method, r.path) for r in self.requests]}")

    # -- behaviour ---------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, list[str]], body: dict | None) -> tuple[int, object]:
        with self.lock:
            self.requests.append(Request(method, path, query, body))
            if path == "/version":
                return 200, {"major": "1", "minor": "33", "gitVersion": "v1.33.0", "gitCommit": "0" * 40,
                             "gitTreeState": "clean", "buildDate": NOW, "goVersion": "go1.24", "compiler": "gc",
                             "platform": "linux/amd64"}
            if path.startswith(CHAOS_PREFIX):
                return self._chaos(method, path, query, body)
            if path.startswith(JOB_PREFIX):
                return self._jobs(method, path, body)
            if path.startswith(APPS_PREFIX):
                return self._deployments(method, path, body)
            if path.startswith(CORE_PREFIX):
                return self._core(method, path, query, body)
            return _status(404, "NotFound", f"the server could not find the requested resource ({path})")

    def _create(self, path: str, body: dict, *, dry_run: bool = False) -> tuple[int, object]:
        name = body["metadata"]["name"]
        key = f"{path}/{name}"
        if key in self.objects:
            return _status(409, "AlreadyExists", f"{name} already exists")
        if not body["apiVersion"].startswith("chaos-mesh.org/"):
            problem = _builtin_problem(body)
            if problem:
                return _status(422, "Invalid", f"{body['kind']} \"{name}\" is invalid: {problem}")
        created = {**body, "metadata": {**body["metadata"], "uid": f"uid-{name}", "creationTimestamp": NOW}}
        if body["kind"] == "Secret" and "stringData" in body:
            data = {k: base64.b64encode(v.encode()).decode() for k, v in body["stringData"].items()}
            created = {k: v for k, v in created.items() if k != "stringData"}
            created["data"] = {**(body.get("data") or {}), **data}
        if not dry_run:
            self.objects[key] = created
        return 201, created

    def _delete(self, path: str) -> tuple[int, object]:
        if self.objects.pop(path, None) is None:
            return _status(404, "NotFound", f"{path} not found")
        return 200, {"kind": "Status", "apiVersion": "v1", "status": "Success"}

    def _chaos(self, method, path, query, body):
        rest = path[len(CHAOS_PREFIX):].split("/")   # NS/PLURAL[/NAME]
        if method == "POST" and len(rest) == 2:
            problems = self.schemas.problems(body)
            if problems:
                return _status(422, "Invalid", f"{body['kind']}.chaos-mesh.org \"{body['metadata']['name']}\" is "
                               "invalid: " + "; ".join(map(str, problems)))
            return self._create(path, body, dry_run=query.get("dryRun") == ["All"])
        if method == "GET" and len(rest) == 3:
            obj = self.objects.get(path)
            if obj is None:
                return _status(404, "NotFound", f"{path} not found")
            state = "True" if self.chaos_injected else "False"
            return 200, {**obj, "status": {"conditions": [{"type": "Selected", "status": "True"},
                                                         {"type": "AllInjected", "status": state},
                                                         {"type": "AllRecovered", "status": "False"}]}}
        if method == "DELETE" and len(rest) == 3:
            return self._delete(path)
        return _status(405, "MethodNotAllowed", f"{method} {path}")

    def _jobs(self, method, path, body):
        rest = path[len(JOB_PREFIX):].split("/")     # NS/jobs[/NAME[/status]]
        if method == "POST" and len(rest) == 2:
            code, job = self._create(path, body)
            if code == 201:
                self._new_pod(rest[0], body, f"{body['metadata']['name']}-x7k2p")
            return code, job
        key = "/".join([path.rsplit("/", 1)[0]] if rest[-1] == "status" else [path])
        if method == "GET" and len(rest) == 4 and rest[3] == "status":
            job = self.objects.get(key)
            if job is None:
                return _status(404, "NotFound", f"{key} not found")
            if "status" not in job and self.job_finishes:
                job["status"] = ({"conditions": [{"type": self._run_job(rest[0], job), "status": "True"}]}
                                 if self.kubelet else self._finish_without_kubelet(rest[2]))
            return 200, {**job, "status": job.get("status") or {"active": 1}}
        if method == "DELETE" and len(rest) == 3:
            for pod in self._pods_of(rest[2]):
                del self.pods[pod["metadata"]["name"]]
            return self._delete(key)
        return _status(405, "MethodNotAllowed", f"{method} {path}")

    def _finish_without_kubelet(self, job_name: str) -> dict:
        for pod in self._pods_of(job_name):
            pod["status"] = _finished_pod_status(self.exit_code)
        return {"conditions": [{"type": "Complete" if self.exit_code == 0 else "Failed", "status": "True"}]}

    def _new_pod(self, namespace: str, job: dict, name: str) -> dict:
        labels = {**job["spec"]["template"]["metadata"]["labels"], "job-name": job["metadata"]["name"]}
        stamp = f"2026-11-30T12:00:{len(self.pods) % 60:02d}Z"
        pod = {"metadata": {"name": name, "namespace": namespace, "creationTimestamp": stamp, "labels": labels},
               "spec": job["spec"]["template"]["spec"], "status": {"phase": "Running"}}
        self.pods[name] = pod
        return pod

    def _run_job(self, namespace: str, job: dict) -> str:
        """Play kubelet and Job controller: run pods until one succeeds or the Job may not retry."""
        name, spec = job["metadata"]["name"], job["spec"]
        failures = 0
        pod = self._pods_of(name)[0]
        while True:
            code, log = self.kubelet.run(self, namespace, pod)
            pod["status"], pod["log"] = _finished_pod_status(code), log
            if code == 0:
                return "Complete"
            failures += 1
            if failures > spec.get("backoffLimit", 6) or _fails_job(spec.get("podFailurePolicy"), code):
                return "Failed"
            pod = self._new_pod(namespace, job, f"{name}-retry{failures}")

    def _pods_of(self, job_name: str) -> list[dict]:
        return [p for p in self.pods.values() if p["metadata"]["labels"]["job-name"] == job_name]

    def _deployments(self, method, path, body):
        rest = path[len(APPS_PREFIX):].split("/")    # NS/deployments[/NAME[/status]]
        if method == "POST" and len(rest) == 2:
            return self._create(path, body)
        key = "/".join([path.rsplit("/", 1)[0]] if rest[-1] == "status" else [path])
        if method == "GET" and len(rest) == 4 and rest[3] == "status":
            deployment = self.objects.get(key)
            if deployment is None:
                return _status(404, "NotFound", f"{key} not found")
            ready = deployment["spec"].get("replicas", 1) if self.deployments_ready else 0
            return 200, {**deployment, "status": {"replicas": 1, "readyReplicas": ready, "availableReplicas": ready}}
        if method == "DELETE" and len(rest) == 3:
            return self._delete(key)
        return _status(405, "MethodNotAllowed", f"{method} {path}")

    def _core(self, method, path, query, body):
        rest = path[len(CORE_PREFIX):].split("/")    # NS/KIND[/NAME[/log]]
        if rest[1] in CORE_KINDS:
            if method == "POST" and len(rest) == 2:
                return self._create(path, body)
            if method == "DELETE" and len(rest) == 3:
                return self._delete(path)
        if rest[1] == "pods" and method == "GET":
            if len(rest) == 2:
                wanted = dict(pair.split("=", 1) for pair in query.get("labelSelector", [""])[0].split(",") if pair)
                items = [{k: v for k, v in p.items() if k != "log"} for p in self.pods.values()
                         if all(p["metadata"]["labels"].get(k) == v for k, v in wanted.items())]
                return 200, {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items}
            if len(rest) == 4 and rest[3] == "log":
                if rest[2] not in self.pods:
                    return _status(404, "NotFound", f"pod {rest[2]} not found")
                return 200, self.pods[rest[2]].get("log", self.pod_log)
        return _status(405, "MethodNotAllowed", f"{method} {path}")

    def stored(self, namespace: str, plural: str, name: str) -> dict | None:
        """An object as stored (``plural`` like ``secrets``), for the kubelet and the tests."""
        return self.objects.get(f"{CORE_PREFIX}{namespace}/{plural}/{name}")


class LocalKubelet:
    """Runs a pod's first container as a local process, as a kubelet would run it in a container.

    ConfigMap volumes become directories holding their data, a PersistentVolumeClaim a directory per
    claim under ``root`` (``subPath`` honoured), so pods of one claim share files; env values and
    ``secretKeyRef`` are resolved from the fake's stored objects; the container's mount paths in its
    command, env values and working directory are rewritten to those directories, and ``python`` is
    this interpreter. Nothing else of the host environment reaches the process but ``PATH``.
    """

    def __init__(self, root: Path, timeout_s: float = 120.0):
        self.root = Path(root)
        self.timeout_s = timeout_s
        self.runs: list[dict] = []   # {"pod", "argv", "env", "exit_code"} per pod run

    def _volume_dirs(self, api: FakeKubeApi, namespace: str, spec: dict, container: dict) -> dict[str, Path]:
        volumes = {v["name"]: v for v in spec.get("volumes") or []}
        mounts: dict[str, Path] = {}
        for mount in container.get("volumeMounts") or []:
            volume = volumes[mount["name"]]
            if "configMap" in volume:
                name = volume["configMap"]["name"]
                where = self.root / "configmaps" / name
                where.mkdir(parents=True, exist_ok=True)
                for key, text in (api.stored(namespace, "configmaps", name) or {}).get("data", {}).items():
                    (where / key).write_text(text)
            else:
                claim = volume["persistentVolumeClaim"]["claimName"]
                if api.stored(namespace, "persistentvolumeclaims", claim) is None:
                    raise RuntimeError(f"pod mounts PersistentVolumeClaim {claim}, which was not created")
                where = self.root / "volumes" / claim / mount.get("subPath", "")
                where.mkdir(parents=True, exist_ok=True)
            mounts[mount["mountPath"]] = where
        return mounts

    def run(self, api: FakeKubeApi, namespace: str, pod: dict) -> tuple[int, str]:
        """Run the pod's container; returns (exit code as the container runtime reports it, log)."""
        spec = pod["spec"]
        container = spec["containers"][0]
        mounts = self._volume_dirs(api, namespace, spec, container)

        def local(text: str) -> str:
            for path in sorted(mounts, key=len, reverse=True):
                if text == path or text.startswith(path + "/"):
                    return str(mounts[path]) + text[len(path):]
            return text

        env = {"PATH": os.environ.get("PATH", ""), "HOSTNAME": pod["metadata"]["name"]}
        for item in container.get("env") or []:
            if "value" in item:
                env[item["name"]] = local(item["value"])
                continue
            ref = item["valueFrom"]["secretKeyRef"]
            secret = api.stored(namespace, "secrets", ref["name"]) or {}
            if ref["key"] in (secret.get("data") or {}):
                env[item["name"]] = base64.b64decode(secret["data"][ref["key"]]).decode()
            elif not ref.get("optional"):
                return 1, f"CreateContainerConfigError: secret {ref['name']} has no key {ref['key']}\n"
        argv = [sys.executable if arg == "python" else local(arg)
                for arg in [*container.get("command", []), *container.get("args", [])]]
        cwd = local(container["workingDir"]) if container.get("workingDir") else self.root
        proc = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=self.timeout_s)
        code = 128 - proc.returncode if proc.returncode < 0 else proc.returncode
        self.runs.append({"pod": pod["metadata"]["name"], "argv": argv, "env": env, "exit_code": code})
        return code, proc.stdout.decode(errors="replace")


def _fails_job(policy: dict | None, exit_code: int) -> bool:
    """Whether a pod failure policy's FailJob rule matches ``exit_code`` (onExitCodes rules only)."""
    for rule in (policy or {}).get("rules") or []:
        codes = rule.get("onExitCodes")
        if rule.get("action") != "FailJob" or not codes:
            continue
        listed = exit_code in codes["values"]
        if listed == (codes["operator"] == "In"):
            return True
    return False


def _builtin_problem(body: dict) -> str | None:
    """What kubernetes-validate says is wrong with a built-in object (None: valid, or no validator here)."""
    try:
        import kubernetes_validate
    except ImportError:
        return None
    try:
        kubernetes_validate.validate(body, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return str(exc)[:500]
    return None


def _finished_pod_status(exit_code: int) -> dict:
    return {"phase": "Succeeded" if exit_code == 0 else "Failed",
            "containerStatuses": [{"name": "repro", "image": "faultlib/trainer:0.1", "imageID": "sha256:" + "0" * 64,
                                   "ready": False, "restartCount": 0,
                                   "state": {"terminated": {"exitCode": exit_code, "reason": "Completed"}}}]}


def _status(code: int, reason: str, message: str) -> tuple[int, dict]:
    return code, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
                  "reason": reason, "code": code}


class _Handler(BaseHTTPRequestHandler):
    api: FakeKubeApi

    def _serve(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        code, payload = self.api.handle(self.command, url.path.rstrip("/"), parse_qs(url.query), body)
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain" if isinstance(payload, str) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _serve

    def log_message(self, *args) -> None:  # keep the test output clean
        pass


class FakeKubeServer:
    """Context manager: serves ``api`` on a free port of 127.0.0.1; ``host`` is its URL."""

    def __init__(self, api: FakeKubeApi):
        handler = type("Handler", (_Handler,), {"api": api})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.host = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "FakeKubeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
