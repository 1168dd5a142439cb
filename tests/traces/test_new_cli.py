"""`faultlib new NAME --from-trace TRACE`, black-box in a temp directory, from real traces."""

from __future__ import annotations

import ast
import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from faultlib.cases import load_case
from tests.conftest import CRDS, cli, cli_in_process, needs_crds, run_json


def test_new_from_a_real_slow_trace_writes_a_case_that_validates(real_traces, tmp_path):
    proc = cli("new", "inventory_delay", "--from-trace", str(real_traces["slow"]), "--out", "cases", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    case_dir = tmp_path / "cases" / "inventory_delay"
    assert sorted(p.name for p in case_dir.iterdir()) == ["README.md", "case.yaml", "compose.yaml", "repro.py",
                                                           "test_case.py"]
    assert "latency_outlier on frontend/inventory.get -> inventory/inventory.lookup" in proc.stdout
    assert "still to fill in" in proc.stdout and "request_body()" in proc.stdout
    readme = (case_dir / "README.md").read_text()
    assert "## Still to fill in" in readme and "request_body()" in readme

    valid = cli("validate", str(case_dir), cwd=tmp_path)
    assert valid.returncode == 0, valid.stderr
    case = load_case(case_dir)
    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    assert data["id"] == "inventory_delay" and case.id == "inventory_delay"
    [shim] = data["inject"]["local"]
    assert shim["shim"] == "tcp_latency" and shim["params"]["endpoint"] == "inventory"
    assert shim["params"]["latency_ms"] >= 140   # the outlier the trace showed (~150 ms)
    assert data["repro"]["params"]["deadline_ms"] < shim["params"]["latency_ms"]
    chaos = data["inject"]["kubernetes"]["chaos"][0]
    assert chaos["kind"] == "NetworkChaos" and chaos["spec"]["selector"]["labelSelectors"] == {"app": "inventory"}
    assert chaos["spec"]["target"]["selector"]["labelSelectors"] == {"app": "frontend"}
    assert set(data["observability"]["spans"]) >= {"frontend.order", "inventory.get", "inventory.lookup"}
    queries = " ".join(q["query"] for q in data["observability"]["promql"])
    assert 'span_name="inventory.lookup"' in queries and "STATUS_CODE_ERROR" in queries

    compose = yaml.safe_load((case_dir / "compose.yaml").read_text())
    assert compose["name"] == "faultlib-inventory-delay"
    assert set(compose["services"]) == {"frontend", "inventory"}
    for service in compose["services"].values():
        assert service["environment"]["FAULTLIB_CASE_ID"] == "inventory_delay"
        assert service["environment"]["OTEL_SERVICE_NAME"] == "inventory_delay"
    assert compose["services"]["frontend"]["environment"]["INVENTORY_ADDR"] == "inventory:8080"

    repro = (case_dir / "repro.py").read_text()
    ast.parse(repro)
    assert 'ctx.endpoint(ENDPOINT' in repro and "TODO" in repro and "ENDPOINT = 'inventory'" in repro
    tests = ast.parse((case_dir / "test_case.py").read_text())
    assert "test_delayed_calls_get_a_timeout_status_not_a_crash" in {f.name for f in tests.body
                                                                      if isinstance(f, ast.FunctionDef)}


@needs_crds
def test_new_without_a_trace_writes_the_same_case_between_placeholder_services(tmp_path):
    """DESIGN gives `faultlib new NAME [--from-trace TRACE.json]`: without a trace, the same files and schema,
    between two services the README tells a person to rename."""
    proc = cli("new", "my_case", "--out", "cases", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    case_dir = tmp_path / "cases" / "my_case"
    assert out["case_dir"] == "cases/my_case" and out["edge"]["child"]["service"] == "upstream"
    assert sorted(p.name for p in case_dir.iterdir()) == ["README.md", "case.yaml", "compose.yaml", "repro.py",
                                                           "test_case.py"]
    assert "placeholders, rename them" in (case_dir / "README.md").read_text()
    valid = cli("validate", str(case_dir), cwd=tmp_path)
    assert valid.returncode == 0, valid.stderr
    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    assert data["id"] == "my_case" and data["fault_class"] == "infra.network_delay"
    [shim] = data["inject"]["local"]
    assert shim["shim"] == "tcp_latency" and shim["params"]["endpoint"] == "upstream"
    ast.parse((case_dir / "repro.py").read_text())


@needs_crds
def test_the_generated_network_chaos_twin_passes_the_real_crd_schema(real_traces, tmp_path):
    from faultlib.chaos import CrdSchemas, render_chaos, validate_case_chaos
    from faultlib.chaos.render import chaos_entries

    assert cli("new", "lookup_errors", "--from-trace", str(real_traces["broken"]), "--out", ".",
               cwd=tmp_path).returncode == 0
    case = load_case(tmp_path / "lookup_errors")
    objects = render_chaos(chaos_entries(case), case_id=case.id, run_id="20261130T120048Z-3fa2c1", namespace="ml")
    validate_case_chaos(case, objects, CrdSchemas(CRDS))


def test_new_from_an_error_trace_gzip_json_output(real_traces, tmp_path):
    packed = tmp_path / "incident.json"
    packed.write_bytes(gzip.compress(real_traces["broken"].read_bytes()))
    proc = cli("new", "lookup_errors", "--from-trace", str(packed), "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = run_json(proc)
    assert out["reason"] == "error" and out["endpoint"] == "inventory" and out["edge"]["errors"] == 3
    assert out["todo"] and (tmp_path / "out" / "lookup_errors" / "case.yaml").is_file()
    suite = ast.parse((tmp_path / "out" / "lookup_errors" / "test_case.py").read_text())
    seen = next(ast.literal_eval(n.value) for n in suite.body if isinstance(n, ast.Assign) and n.targets[0].id == "SEEN")
    assert seen["http_status_codes"] == [500] and seen["errors"] > 0


def test_refuses_to_overwrite_and_rejects_bad_names(real_traces, tmp_path):
    (tmp_path / "cases" / "taken").mkdir(parents=True)
    (tmp_path / "cases" / "taken" / "keep.txt").write_text("mine")
    proc = cli_in_process("new", "taken", "--from-trace", str(real_traces["slow"]), cwd=tmp_path)
    assert proc.returncode == 2 and "already exists" in proc.stderr
    assert [p.name for p in (tmp_path / "cases" / "taken").iterdir()] == ["keep.txt"]
    for bad in ("Bad-Name", "x", "9lives", "a/b", "../up"):
        proc = cli_in_process("new", bad, "--from-trace", str(real_traces["slow"]), cwd=tmp_path)
        assert proc.returncode == 2 and "not a valid case id" in proc.stderr, bad
    assert sorted(p.name for p in (tmp_path / "cases").iterdir()) == ["taken"]


@pytest.mark.parametrize("content, phrase", [
    (b"not json at all\n", "trace.json:1: invalid JSON"),
    (b"", "trace.json: is empty"),
    (b'{"resourceSpans": []}\n{"resourceSpans": [{"scope', "trace.json:2: truncated last line"),
    (b'{"data": [{"traceID": "abc", "spans": []}]}', "trace.json:1: not OTLP/JSON traces"),
])
def test_a_bad_trace_exits_2_naming_file_and_line_and_writes_nothing(tmp_path, content, phrase):
    (tmp_path / "trace.json").write_bytes(content)
    proc = cli_in_process("new", "from_bad", "--from-trace", "trace.json", cwd=tmp_path)
    assert proc.returncode == 2 and phrase in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "cases").exists()


def test_a_trace_without_any_call_exits_2(real_traces, tmp_path):
    roots = [json.loads(line) for line in real_traces["normal"].read_text().splitlines()]
    for doc in roots:
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    s.pop("parentSpanId", None)
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(d) + "\n" for d in roots))
    proc = cli_in_process("new", "no_calls", "--from-trace", "t.jsonl", cwd=tmp_path)
    assert proc.returncode == 2 and "no parent -> child call" in proc.stderr


class _Inventory(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b'{"stock": 3}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_the_generated_case_runs_and_its_assertions_pass_against_a_real_service(real_traces, tmp_path, monkeypatch):
    """The skeleton as generated (request body still the TODO default) against a real HTTP service:
    the control answers ok, the faulted run gets the timeout status under the shim's delay, nothing crashes."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Inventory)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("INVENTORY_ADDR", f"127.0.0.1:{server.server_address[1]}")
        assert cli("new", "inventory_delay", "--from-trace", str(real_traces["slow"]), cwd=tmp_path).returncode == 0
        proc = cli("run", "cases/inventory_delay", "--json", cwd=tmp_path, timeout=240)
    finally:
        server.shutdown()
        server.server_close()
    record = run_json(proc)
    junit = next((tmp_path / ".faultlib" / "runs" / "inventory_delay").glob("*/junit.xml")).read_text()
    assert proc.returncode == 0, junit[-4000:] + proc.stderr[-2000:]
    assert record["verdict"] == "passed"
    assert record["assertions"]["passed"] == ["control_answers_normally", "timeout_status_at_deadline", "no_crash",
                                              "recovers_after"]


def test_the_readme_example_trace_runs_as_documented(tmp_path):
    """README's `faultlib new --from-trace` example uses tests/traces/data/incident.jsonl, a real trace
    recorded from tests/traces/twoservice.py (20 orders, ids 8-12 slow in inventory)."""
    from tests.conftest import REPO
    from tests.test_readme import readme_argv  # the README's commands, as written (test_readme leaves them here)

    proc = cli(*readme_argv("faultlib new inventory_delay", tmp_path)[1:], cwd=REPO)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "latency_outlier on frontend/inventory.get -> inventory/inventory.lookup" in proc.stdout
    proc = cli(*readme_argv("faultlib validate /tmp/cases/inventory_delay", tmp_path)[1:], cwd=REPO)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    again = cli("new", "inventory_delay", "--from-trace", str(REPO / "tests/traces/data/incident.jsonl"),
                "--out", str(tmp_path / "cases"), cwd=REPO)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_a_case_made_in_the_catalog_takes_free_panel_ids_and_validates_after_dashboards(real_traces, tmp_path):
    """In a catalog with infra cases, the new case's panels take the next free infra ids; validate names its
    panels missing from the checked-in dashboard until `faultlib dashboards` regenerates it."""
    import shutil

    from tests.conftest import REPO

    cases = tmp_path / "cases"
    for name in ("downstream_timeout", "preempted_training"):
        shutil.copytree(REPO / "cases" / name, cases / name)
    # five commands that only read and write files: in process (the tests above run new and validate in their own)
    assert cli_in_process("dashboards", str(cases), cwd=tmp_path).returncode == 0
    taken = {p["id"] for name in ("downstream_timeout", "preempted_training")
             for p in yaml.safe_load((cases / name / "case.yaml").read_text())["observability"]["grafana"]["panels"]}

    assert cli_in_process("new", "inventory_delay", "--from-trace", str(real_traces["slow"]), "--out", str(cases),
                          cwd=tmp_path).returncode == 0
    panels = yaml.safe_load((cases / "inventory_delay" / "case.yaml").read_text())["observability"]["grafana"]["panels"]
    assert [p["id"] for p in panels] == [max(taken) + 1, max(taken) + 2]

    stale = cli_in_process("validate", str(cases / "inventory_delay"), cwd=tmp_path)
    assert stale.returncode == 2 and "faultlib dashboards" in stale.stderr + stale.stdout
    assert cli_in_process("dashboards", str(cases), cwd=tmp_path).returncode == 0
    valid = cli_in_process("validate", str(cases), cwd=tmp_path)
    assert valid.returncode == 0, valid.stderr + valid.stdout
