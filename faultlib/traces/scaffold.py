"""Writing a new case directory from an incident trace, or without one (``faultlib new NAME [--from-trace T]``).

Promise: nothing is written until the trace has been read and the case rendered in memory; the
target directory must not exist (an existing one is never overwritten or merged into), and the
files are written into a temporary sibling, checked there, and renamed into place at the end, so a
failure leaves nothing behind.

Text from the trace (service and span names, the file's name) is untrusted: it reaches the generated
Python only as literals of module-level constants, the YAML only through the safe emitter, the compose
command only as a literal, the README only inside code spans; each generated file is parsed back and
proven before anything is written (:mod:`faultlib.traces.codegen`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from faultlib.errors import InputError
from faultlib.outputs import output_dir
from faultlib.traces.bounds import check_size, checked_names
from faultlib.traces.codegen import md_code, promql_string, python_command, python_module, yaml_document
from faultlib.traces.graph import SpanGraph, build_graph
from faultlib.traces.load import iter_spans, no_spans, placeholder_spans
from faultlib.traces.suspect import Suspect, pick_suspect

CASE_ID = re.compile(r"^[a-z][a-z0-9_]{1,63}$")
IMAGE = "${FAULTLIB_IMAGE:-faultlib/trainer:0.1}"
SERVICE_PORT = 8080
REQUESTS, START, STEPS = 60, 20, 20
MIN_LATENCY_MS = 300
MAX_PROMQL_SPANS = 12

TODO = [
    "repro.py: request_body() - the request the caller sent to {service} ({operation}); the trace does not carry bodies",
    "repro.py: REQUEST_PATH and METHOD - the HTTP route of {operation} on {service}",
    "compose.yaml: the image and command of each service ({services}); the generated ones are placeholders",
    ("case.yaml: repro.params.upstream_host/upstream_port - where {service} listens when run locally "
     "(or set {env}=host:port)"),
    "case.yaml: title, description, references (public reports of this fault) and, once it passes, verified_with",
    ("then `faultlib dashboards` - adds the case's panels (ids unique in the infra family) to "
     "compose/grafana/dashboards/faultlib-infra.json; commit it"),
    "test_case.py: tighten the assertions once the repro runs (they encode what the trace showed)",
]


def check_name(name: str) -> str:
    """``name`` if it is a valid case id (snake_case, 2-64 chars, starting with a letter).

    Raises:
        InputError: it is not.
    """
    if not CASE_ID.match(name or ""):
        raise InputError(f"case name {name!r} is not a valid case id: use snake_case, 2-64 characters, starting "
                         "with a letter (e.g. grpc_timeout)", field="NAME")
    return name


def dns_name(service: str) -> str:
    """A compose/Kubernetes-safe service name (``feature_service`` -> ``feature-service``)."""
    name = re.sub(r"[^a-z0-9]+", "-", service.lower()).strip("-")
    return (name if name and name[0].isalpha() else f"svc-{name}".rstrip("-"))[:50].rstrip("-")


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return slug if slug and slug[0].isalpha() else f"s_{slug}"


@dataclass
class Scaffold:
    """The rendered case: ``files`` maps a file name to its text; ``todo`` lists what a person fills in."""

    name: str
    suspect: Suspect
    graph: SpanGraph
    files: dict[str, str]
    todo: list[str]


def _promql(graph: SpanGraph, suspect: Suspect) -> list[dict]:
    nodes = [suspect.child] + sorted(n for n in graph.nodes if n != suspect.child)
    out, seen = [], set()
    for service, operation in nodes[:MAX_PROMQL_SPANS]:
        slug = _slug(f"{service}_{operation}")[:50]
        if slug in seen:
            continue
        seen.add(slug)
        labels = f'service_name="{promql_string(service)}", span_name="{promql_string(operation)}"'
        out.append({"id": f"latency_p99_{slug}",
                    "query": f"histogram_quantile(0.99, sum by (le) (rate("
                             f"traces_span_metrics_duration_milliseconds_bucket{{{labels}}}[5m])))",
                    "description": f"P99 latency of {operation} on {service} in ms (spanmetrics connector)"})
        out.append({"id": f"error_rate_{slug}",
                    "query": f"sum(rate(traces_span_metrics_calls_total{{{labels}, status_code=\"STATUS_CODE_ERROR\"}}"
                             f"[5m])) / sum(rate(traces_span_metrics_calls_total{{{labels}}}[5m]))",
                    "description": f"fraction of {operation} spans on {service} with status ERROR"})
    return out


def latency_ms_for(observed_ms: float) -> int:
    """The delay to inject for a call observed taking ``observed_ms``: at least :data:`MIN_LATENCY_MS` (so a
    deadline of half of it leaves a loaded machine room), at most 60 s, in whole ms."""
    return int(min(max(round(observed_ms), MIN_LATENCY_MS), 60_000))


def latency_injection(caller_service: str, callee_service: str, endpoint: str, latency_ms: int) -> tuple[dict, dict]:
    """The ``tcp_latency`` shim entry (``inject.local[i]``) that delays ``endpoint``'s responses by ``latency_ms``
    (+- 10 %) for requests :data:`START` to ``START + STEPS - 1``, and its Chaos Mesh twin
    (``inject.kubernetes.chaos[i]``): a NetworkChaos ``delay`` on the callee pods' traffic to the caller pods
    (pods labelled ``app: <dns_name(service)>``, as the generated compose.yaml labels them).

    Returns:
        ``(shim, chaos)`` as case.yaml holds them (the chaos entry is ``{kind, name, spec}``).
    """
    caller, callee = dns_name(caller_service), dns_name(callee_service)
    jitter = round(latency_ms / 10)
    shim = {"shim": "tcp_latency", "params": {
        "endpoint": endpoint, "latency_ms": latency_ms, "jitter_ms": jitter, "direction": "downstream",
        "start_step": START, "steps": STEPS, "seed": 0}}
    chaos = {"kind": "NetworkChaos", "name": f"{dns_name(endpoint)}-delay"[:52].strip("-"),
             "spec": {"action": "delay", "mode": "all", "selector": {"labelSelectors": {"app": callee}},
                      "direction": "to", "target": {"mode": "all", "selector": {"labelSelectors": {"app": caller}}},
                      "delay": {"latency": f"{latency_ms}ms", "jitter": f"{jitter}ms", "correlation": "0"},
                      "duration": "2m"}}
    return shim, chaos


def _case_yaml(name: str, source: str, graph: SpanGraph, suspect: Suspect, latency_ms: int, deadline_ms: int,
               first_panel_id: int) -> dict:
    (parent_service, parent_op), (child_service, child_op) = suspect.edge
    promql = _promql(graph, suspect)
    caller, callee = dns_name(parent_service), dns_name(child_service)
    shim, chaos = latency_injection(parent_service, child_service, suspect.endpoint, latency_ms)
    spans = sorted({op for _, op in graph.nodes} | {"serve.request"})
    return {
        "id": name, "version": "0.1.0",
        "title": f"{child_op} on {child_service} slows down; {parent_op} must answer with a timeout status",
        "description": (f"Generated by `faultlib new` from {source}. In the trace the edge "
                        f"{parent_service}/{parent_op} -> {child_service}/{child_op} was picked ({suspect.reason}): "
                        f"{suspect.stats['count']} calls, {suspect.stats['errors']} failed, P50 "
                        f"{suspect.stats['p50_ms']} ms, P99 {suspect.stats['p99_ms']} ms (trace median "
                        f"{suspect.median_ms:.1f} ms). The tcp_latency shim delays {suspect.endpoint}'s responses by "
                        f"{latency_ms} ms for requests {START}-{START + STEPS - 1}; with a {deadline_ms} ms deadline "
                        "the caller must answer with an explicit timeout status, never hang or crash."),
        "fault_class": "infra.network_delay", "severity": "error",
        "requires": {"python": ">=3.10", "packages": {"aiohttp": ">=3.9"}, "devices": ["cpu"]},
        "repro": {"script": "repro.py", "seed": 0, "timeout_s": max(120, int(REQUESTS * (deadline_ms + 200) / 1000) + 60),
                  "params": {"requests": REQUESTS, "deadline_ms": deadline_ms, "margin_ms": 50,
                             "upstream_host": "127.0.0.1", "upstream_port": SERVICE_PORT}},
        "inject": {
            "local": [shim],
            "kubernetes": {
                "twin": "NetworkChaos",
                "reason": (f"netem delay on the {callee} pods' traffic to the {caller} pods: the same delay on the "
                           "responses the caller waits for; it replaces the tcp_latency shim on a cluster."),
                "keep_local": [],
                "chaos": [chaos]}},
        "observability": {
            "promql": promql,
            "grafana": {"dashboard_uid": "faultlib-infra",
                        "panels": [{"id": first_panel_id, "title": f"{child_op} P99 latency (ms)",
                                    "query": promql[0]["id"]},
                                   {"id": first_panel_id + 1, "title": f"{child_op} error rate",
                                    "query": promql[1]["id"]}]},
            "spans": spans},
        "topology": {"compose": "compose.yaml", "services": [dns_name(s) for s in graph.services]},
        "assertions": [
            {"id": "control_answers_normally", "when": "before", "test": "test_control_answers_every_request",
             "description": "without the fault every request is answered with status ok"},
            {"id": "timeout_status_at_deadline", "when": "during",
             "test": "test_delayed_calls_get_a_timeout_status_not_a_crash",
             "description": f"under the delay on {suspect.endpoint}, the caller answers with the timeout status "
                            "within deadline + margin"},
            {"id": "no_crash", "when": "continuous", "test": "test_no_crash_no_traceback",
             "description": "both phases exit 0, no traceback, no HTTP code besides 200 and 504"},
            {"id": "recovers_after", "when": "after", "test": "test_recovers_once_the_delay_is_gone",
             "description": "requests after the fault window are answered normally again"}],
        "references": ["https://chaos-mesh.org/docs/simulate-network-chaos-on-kubernetes/",
                       "https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding"],
    }


def _compose(name: str, graph: SpanGraph, suspect: Suspect) -> str:
    caller, callee = dns_name(suspect.parent[0]), dns_name(suspect.child[0])
    env_key = f"{suspect.endpoint.upper()}_ADDR"
    services = {}
    for service in graph.services:
        dns = dns_name(service)
        env = {"FAULTLIB_CASE_ID": name, "OTEL_SERVICE_NAME": name,
               "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4318"}
        body = {"image": IMAGE, "working_dir": "/case", "labels": {"app": dns},
                "volumes": [{"type": "bind", "source": ".", "target": "/case", "read_only": True}],
                "environment": env, "restart": "no"}
        if dns == caller:
            body["command"] = ["python", "/case/repro.py"]
            if callee != caller:
                env[env_key] = f"{callee}:{SERVICE_PORT}"
                body["depends_on"] = [callee]
        else:
            # Compose interpolates $ in every string: $$ is a literal $ (compose-spec, "Interpolation")
            body["command"] = ["python", "-c", python_command("raise SystemExit({MESSAGE})", {
                "MESSAGE": f"TODO: the command that starts {service}"}).replace("$", "$$")]
            body["expose"] = [str(SERVICE_PORT)]
        services[dns] = body
    header = ("# Generated by `faultlib new --from-trace`: the services named in the trace's resource attributes.\n"
              "# TODO: replace each placeholder image/command with the real service; the one whose command is\n"
              "# `python /case/repro.py` runs the repro.\n")
    return yaml_document({"name": f"faultlib-{name.replace('_', '-')}", "services": services}, header=header,
                         name="compose.yaml")


def _repro(name: str, trace_file: str | None, suspect: Suspect) -> str:
    (parent_service, parent_op), (child_service, child_op) = suspect.edge
    values = {"TRACE_FILE": trace_file, "CALLER": (parent_service, parent_op), "PICKED_BECAUSE": suspect.reason,
              "SEEN": dict(suspect.stats), "ENDPOINT": suspect.endpoint, "SERVICE": child_service,
              "OPERATION": child_op, "ADDRESS_ENV": f"{suspect.endpoint.upper()}_ADDR"}
    return python_module(REPRO_TEMPLATE, values, trusted={"name": name, "SERVICE_PORT": SERVICE_PORT,
                                                          "REQUESTS": REQUESTS}, name="repro.py")


REPRO_TEMPLATE = """\"\"\"{name}: generated by `faultlib new --from-trace` - a SKELETON to complete.

The incident trace (TRACE_FILE) showed CALLER calling SERVICE/OPERATION; PICKED_BECAUSE and SEEN
say why this call was picked and what the trace showed (calls, failures, latency). This repro
plays the caller: each request resolves ENDPOINT with ``ctx.endpoint`` (in the faulted phase the
tcp_latency shim's delaying proxy) and calls SERVICE under a per-request deadline. Contract:
status "ok" in time, otherwise an explicit "timeout" (HTTP 504) at the deadline; never a hang or
a crash.

TODO: fill in request_body(), REQUEST_PATH and METHOD (the trace does not carry request bodies).
\"\"\"

from __future__ import annotations

import asyncio
import os
import time

import aiohttp
from opentelemetry import propagate, trace

from faultlib import repro

# what the trace showed (written as literals by faultlib new; names are the trace's own)
TRACE_FILE = {TRACE_FILE}
CALLER = {CALLER}
PICKED_BECAUSE = {PICKED_BECAUSE}
SEEN = {SEEN}
ENDPOINT = {ENDPOINT}
SERVICE = {SERVICE}
OPERATION = {OPERATION}
ADDRESS_ENV = {ADDRESS_ENV}
METHOD = "POST"                 # TODO: the HTTP method of OPERATION
REQUEST_PATH = "/"              # TODO: the HTTP route of OPERATION on SERVICE
DRAIN_S = 0.5


def request_body(i: int) -> dict:
    \"\"\"TODO: the request body the caller sent to SERVICE for request ``i``.\"\"\"
    return {{"id": i}}  # TODO: replace with a real request body


def resolve(ctx) -> tuple[str, int]:
    \"\"\"SERVICE's real address (the ADDRESS_ENV variable, or the case params), routed through ctx.endpoint.\"\"\"
    given = os.environ.get(ADDRESS_ENV)
    if given:
        host, _, port = given.rpartition(":")
    else:
        host, port = ctx.params.get("upstream_host", "127.0.0.1"), ctx.params.get("upstream_port", {SERVICE_PORT})
    return ctx.endpoint(ENDPOINT, host, int(port))


async def call(client: aiohttp.ClientSession, url: str, i: int, deadline_s: float) -> tuple[int, str]:
    \"\"\"One call under the deadline: (HTTP code, status) - 504 "timeout" at the deadline, 502 on a failed call.\"\"\"
    headers: dict[str, str] = {{}}
    propagate.inject(headers)

    async def once() -> int:
        async with client.request(METHOD, url, json=request_body(i), headers=headers) as resp:
            await resp.read()
            return resp.status

    try:
        code = await asyncio.wait_for(once(), timeout=deadline_s)
        return code, "ok" if code < 400 else "downstream_error"
    except asyncio.TimeoutError:
        return 504, "timeout"
    except (aiohttp.ClientError, OSError):
        return 502, "downstream_error"


async def run(ctx) -> None:
    p = ctx.params
    requests, deadline_ms = int(p.get("requests", {REQUESTS})), float(p.get("deadline_ms", 250))
    ctx.attach(None)   # no model in this workload: this applies the phase's faults (the tcp_latency proxy)
    host, port = resolve(ctx)
    url = f"http://{{host}}:{{port}}{{REQUEST_PATH}}"
    tracer = ctx.evidence.tracer
    timeouts = 0
    async with aiohttp.ClientSession() as client:
        for i in range(requests):
            with ctx.step(i, total=requests, name="serve.request") as span:
                started = time.perf_counter()
                with tracer.start_as_current_span(OPERATION, kind=trace.SpanKind.CLIENT):
                    code, status = await call(client, url, i, deadline_ms / 1e3)
                latency_ms = (time.perf_counter() - started) * 1e3
                timeouts += status == "timeout"
                span.set(**{{"http.status_code": code, "status": status, "latency_ms": latency_ms,
                            "deadline_ms": deadline_ms}})
    # let the shim's proxy see its last connections close before the phase ends and the proxy is stopped
    await asyncio.sleep(DRAIN_S)
    ctx.summary(requests=requests, timeouts=timeouts, deadline_ms=deadline_ms)


def main() -> None:
    with repro.context() as ctx:
        asyncio.run(run(ctx))


if __name__ == "__main__":
    main()
"""


def _test_case(name: str, suspect: Suspect, source: str) -> str:
    values = {"EDGE": tuple(tuple(side) for side in suspect.edge), "PICKED_BECAUSE": suspect.reason,
              "SEEN": {**suspect.stats, "http_status_codes": list(suspect.status_codes)}}
    return python_module(TEST_TEMPLATE, values, trusted={"name": name, "source": source}, name="test_case.py")


TEST_TEMPLATE = """\"\"\"Assertion suite of {name}, generated {source}; the `evidence` fixture comes from
faultlib.cases.fixture.

EDGE is the call the trace showed ((caller service, operation), (callee service, operation)), PICKED_BECAUSE
why it was picked and SEEN what the trace showed on it. The case asks that, under the same delay, the
caller answers with an explicit timeout status at its deadline instead of hanging or crashing.
TODO: tighten these once the repro runs against the real service.
\"\"\"

from pathlib import Path

from faultlib.readers import load_yaml_file

# what the trace showed (written as literals by faultlib new; names are the trace's own)
EDGE = {EDGE}
PICKED_BECAUSE = {PICKED_BECAUSE}
SEEN = {SEEN}

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
PARAMS = CASE["repro"]["params"]
SHIM = CASE["inject"]["local"][0]["params"]
FIRST, LAST = SHIM["start_step"], SHIM["start_step"] + SHIM["steps"] - 1
DEADLINE_MS, MARGIN_MS = PARAMS["deadline_ms"], PARAMS["margin_ms"]


def requests(phase):
    return phase.steps("serve.request")


def window(spans, first, last):
    return [s for s in spans if first <= s.attributes["faultlib.step"] <= last]


def test_control_answers_every_request(evidence):
    spans = requests(evidence.control)
    assert len(spans) == PARAMS["requests"]
    for span in spans:
        assert span.attributes["status"] == "ok", span.attributes


def test_delayed_calls_get_a_timeout_status_not_a_crash(evidence):
    during = window(requests(evidence.faulted), FIRST, LAST)
    assert len(during) == LAST - FIRST + 1
    for span in during:
        a = span.attributes
        assert a["status"] == "timeout" and a["http.status_code"] == 504, a
        assert a["latency_ms"] <= DEADLINE_MS + MARGIN_MS, f"request {{a['faultlib.step']}} took {{a['latency_ms']:.1f}} ms"


def test_no_crash_no_traceback(evidence):
    for phase in (evidence.control, evidence.faulted):
        assert phase.status == "ok" and phase.exit_code == 0
        assert {{s.attributes["http.status_code"] for s in requests(phase)}} <= {{200, 504}}
    assert "Traceback" not in (evidence.path / "stderr.txt").read_text()


def test_recovers_once_the_delay_is_gone(evidence):
    after = window(requests(evidence.faulted), LAST + 1, PARAMS["requests"] - 1)
    assert after, "no request after the fault window"
    for span in after:
        assert span.attributes["status"] == "ok", span.attributes
"""


def render(name: str, trace: Path | str | None, *, first_panel_id: int = 1) -> Scaffold:
    """Read ``trace`` and render the case files in memory (nothing is written). Without a trace (``None``), the
    same case from :func:`~faultlib.traces.load.placeholder_spans`: one slow call between two placeholder services.

    ``first_panel_id``: the id of the case's first panel on the ``faultlib-infra`` dashboard (the second
    is one above): pass one no case of the catalog's infra family claims
    (:func:`faultlib.observability.dashboards.next_free_id`).

    Raises:
        InputError: a bad name, a trace that cannot be read or has no call between spans, a service or
            span name over :data:`~faultlib.traces.bounds.MAX_NAME_CHARS` characters, more services or operations than
            a case can stand up (:mod:`faultlib.traces.bounds`), or a generated file that does not read back as
            intended (:mod:`faultlib.traces.codegen`).
    """
    check_name(name)
    trace = None if trace is None else Path(trace)
    spans = placeholder_spans() if trace is None else iter_spans(trace)  # streamed: never all in memory
    source = "no trace (placeholder services: rename them)" if trace is None else f"the trace {trace.name}"
    graph = build_graph(checked_names(spans, trace))
    if not graph.spans:
        raise no_spans(trace)
    check_size(graph, trace)
    try:
        suspect = pick_suspect(graph)
    except InputError as exc:  # what the trace holds is wrong: name the trace file
        raise InputError(exc.message, path=exc.path or trace, line=exc.line, field=exc.field) from None
    # the delay the trace showed, at least MIN_LATENCY_MS so the deadline (half of it) leaves a loaded machine room
    latency_ms = latency_ms_for(max(suspect.stats["p99_ms"], suspect.threshold_ms))
    deadline_ms = max(50, latency_ms // 2)
    data = _case_yaml(name, source, graph, suspect, latency_ms, deadline_ms, first_panel_id)
    header = f"# Generated by `faultlib new {name}`; see README.md for what to fill in.\n"  # no trace text in a comment
    fill = {"service": suspect.child[0], "operation": suspect.child[1],
            "services": ", ".join(dns_name(s) for s in graph.services), "env": f"{suspect.endpoint.upper()}_ADDR"}
    todo = [line.format(**fill) for line in TODO]
    shown = {key: md_code(value) for key, value in fill.items()}
    readme = (f"# {name}\n\nGenerated by `faultlib new {name}` from "
              f"{md_code(trace.name) if trace else 'no trace: the services are placeholders, rename them'}.\n\n"
              f"Picked edge ({suspect.reason}): {md_code(suspect.parent[0] + '/' + suspect.parent[1])} -> "
              f"{md_code(suspect.child[0] + '/' + suspect.child[1])}: {md_code(json.dumps(suspect.stats))}\n"
              f"Trace: {graph.spans} spans, {len(graph.edges)} edges, {graph.orphans} with a missing parent, "
              f"{graph.skewed} starting before their parent (clock skew).\n\n## Still to fill in\n\n"
              + "".join(f"- {line.format(**shown)}\n" for line in TODO)
              + "\nThen: `faultlib validate <dir>` and `faultlib run <dir>`.\n")
    files = {"case.yaml": yaml_document(data, header=header, name="case.yaml"),
             "compose.yaml": _compose(name, graph, suspect), "repro.py": _repro(name, trace.name if trace else None, suspect),
             "test_case.py": _test_case(name, suspect, "from an incident trace" if trace else
                                         "without a trace (placeholder services and edge: rename them)"),
             "README.md": readme}
    return Scaffold(name, suspect, graph, files, todo)


def write(scaffold: Scaffold, out: Path | str, *, check: Callable[[Path], object] | None = None) -> Path:
    """Write ``scaffold`` to ``out/<name>`` (see the module docstring).

    The files are written into ``out/.<name>.XXXX/<name>``; ``check`` (e.g. the case loader) is called on
    that directory, and only when it returns does the directory move to ``out/<name>``. Whatever fails
    (a write, ``check``, Ctrl-C), nothing is left behind.

    Raises:
        InputError: ``out/<name>`` already exists (never overwritten), or ``out`` cannot be written.
        Whatever ``check`` raises.
    """
    out = Path(out)
    target = out / scaffold.name
    if os.path.lexists(target):
        raise InputError("already exists: faultlib new never overwrites a case; pick another NAME or remove it",
                         path=str(target))
    try:
        output_dir(out, "--out")  # created one component at a time, never through a symbolic link
        staging = Path(tempfile.mkdtemp(prefix=f".{scaffold.name}.", dir=out))
    except OSError as exc:
        raise InputError(f"cannot create the case directory: {exc.strerror}", path=str(out)) from None
    try:
        staged = staging / scaffold.name
        staged.mkdir()
        for file_name, text in scaffold.files.items():
            (staged / file_name).write_text(text, encoding="utf-8")
        os.chmod(staged, 0o755)
        if check is not None:
            try:
                check(staged)
            except InputError as exc:  # name the case as the user will know it, not the staging directory
                raise InputError(f"{str(exc).replace(str(staged), str(target))} (the case was not written)",
                                 field="NAME") from None
        if os.path.lexists(target):
            raise InputError("already exists (created meanwhile): not overwritten", path=str(target))
        os.rename(staged, target)
    except OSError as exc:
        raise InputError(f"cannot write the case: {exc.strerror or exc}", path=str(target)) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
