"""A small stand-in for the Kubernetes API server on 127.0.0.1, for the calls the Kubernetes
backend makes: version; ConfigMaps; Jobs (create, status, delete); pods (list by label, log);
Chaos Mesh custom objects (create, dry run, get with status, delete).

It answers as the API server does (same paths, JSON shapes, status codes: 201 on create, 404 for
missing objects, 422 ``Invalid`` when a custom object breaks its CRD schema, validated against the
real CRDs) and records every request, so tests can assert what was created, polled and deleted.

Creating a Job creates its pod (labelled like the Job controller does), ``Running``; the first read
of the Job's status finishes the pod with ``exit_code`` and the Job Complete or Failed, unless
``job_finishes`` is False (the Job then stays active).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from faultlib.chaos import CrdSchemas

CHAOS_PREFIX = "/apis/chaos-mesh.org/v1alpha1/namespaces/"
JOB_PREFIX = "/apis/batch/v1/namespaces/"
CORE_PREFIX = "/api/v1/namespaces/"
NOW = "2026-11-30T12:00:00Z"


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
    exit_code: int = 0
    pod_log: str = "phase output from the pod\n"
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
            if path.startswith(CORE_PREFIX):
                return self._core(method, path, query, body)
            return _status(404, "NotFound", f"the server could not find the requested resource ({path})")

    def _create(self, path: str, body: dict, *, dry_run: bool = False) -> tuple[int, object]:
        name = body["metadata"]["name"]
        key = f"{path}/{name}"
        if key in self.objects:
            return _status(409, "AlreadyExists", f"{name} already exists")
        created = {**body, "metadata": {**body["metadata"], "uid": f"uid-{name}", "creationTimestamp": NOW}}
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
                name = f"{body['metadata']['name']}-x7k2p"
                labels = {**body["spec"]["template"]["metadata"]["labels"], "job-name": body["metadata"]["name"]}
                self.pods[name] = {"metadata": {"name": name, "namespace": rest[0], "creationTimestamp": NOW,
                                                "labels": labels},
                                   "status": {"phase": "Running"}}
            return code, job
        key = "/".join([path.rsplit("/", 1)[0]] if rest[-1] == "status" else [path])
        if method == "GET" and len(rest) == 4 and rest[3] == "status":
            job = self.objects.get(key)
            if job is None:
                return _status(404, "NotFound", f"{key} not found")
            if self.job_finishes:
                for pod in self._pods_of(rest[2]):
                    pod["status"] = _finished_pod_status(self.exit_code)
                kind = "Complete" if self.exit_code == 0 else "Failed"
                return 200, {**job, "status": {"conditions": [{"type": kind, "status": "True"}]}}
            return 200, {**job, "status": {"active": 1}}
        if method == "DELETE" and len(rest) == 3:
            for pod in self._pods_of(rest[2]):
                del self.pods[pod["metadata"]["name"]]
            return self._delete(key)
        return _status(405, "MethodNotAllowed", f"{method} {path}")

    def _pods_of(self, job_name: str) -> list[dict]:
        return [p for p in self.pods.values() if p["metadata"]["labels"]["job-name"] == job_name]

    def _core(self, method, path, query, body):
        rest = path[len(CORE_PREFIX):].split("/")    # NS/KIND[/NAME[/log]]
        if rest[1] == "configmaps":
            if method == "POST" and len(rest) == 2:
                return self._create(path, body)
            if method == "DELETE" and len(rest) == 3:
                return self._delete(path)
        if rest[1] == "pods" and method == "GET":
            if len(rest) == 2:
                wanted = dict(pair.split("=", 1) for pair in query.get("labelSelector", [""])[0].split(",") if pair)
                items = [p for p in self.pods.values()
                         if all(p["metadata"]["labels"].get(k) == v for k, v in wanted.items())]
                return 200, {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items}
            if len(rest) == 4 and rest[3] == "log":
                if rest[2] not in self.pods:
                    return _status(404, "NotFound", f"pod {rest[2]} not found")
                return 200, self.pod_log
        return _status(405, "MethodNotAllowed", f"{method} {path}")


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
