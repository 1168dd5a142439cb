"""The compose backend: the docker compose command lines it builds, the order it runs them in
(up, run per phase, then stop / cp / down, also when up or a phase fails), and the real
no-engine path (exit 3) through the CLI.

There is no Docker engine here, so a recorder stands in for the docker CLI: it records every argv
and, for ``docker compose run``, runs the case's repro on this machine the way the container would
(same ``--env`` variables, the ``--volume`` run directory mapped back), so a whole run goes through
the backend and the runner for real. The collector's name resolves here to a stand-in that answers every OTLP
export (:func:`collector`), as the compose network's collector would: an unresolvable name made the SDK's exporters
retry with backoff (about 6 s of sleeping per phase at shutdown)."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from faultlib.archive import FileArchive
from faultlib.backends.compose import (COLLECTOR_ENDPOINT, COLLECTOR_EVIDENCE, ComposeBackend, ComposeProject,
                                      project_name)
from faultlib.processes import ProcessOutcome, run_process
from faultlib.cases import load_case
from faultlib.errors import BackendUnavailable, CaseError
from faultlib.evidence import layout
from faultlib.record import PhaseStatus, Verdict
from faultlib.runner import Runner
from tests.conftest import REPO, cli, tiny_case_data, write_case

BASE = REPO / "compose" / "compose.yaml"
PREFIX_LEN = 10  # docker compose --project-name P --project-directory D -f BASE -f CASE
#: where the collector's name resolves for the repro the recorder runs (set by :func:`collector`)
RESOLVED: dict[str, str] = {}


class _Collector(BaseHTTPRequestHandler):
    """Accepts every OTLP/HTTP export (traces, metrics, logs) with 200, as a running collector does."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module", autouse=True)
def collector():
    """A stand-in collector on 127.0.0.1 for this module's runs: the recorder's container env names
    ``otel-collector``, which only the compose network resolves."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    RESOLVED[COLLECTOR_ENDPOINT] = f"http://127.0.0.1:{server.server_address[1]}"
    yield
    RESOLVED.clear()
    server.shutdown()
    server.server_close()


@dataclass
class Call:
    argv: list[str]
    env: dict[str, str]
    timeout_s: float

    @property
    def subcommand(self) -> str:
        return self.argv[PREFIX_LEN]

    @property
    def args(self) -> list[str]:
        return self.argv[PREFIX_LEN + 1:]


class FakeDockerCli:
    """Records each command. ``exit_codes`` maps a subcommand to the exit code it returns (None: it
    timed out); for ``run`` only in ``failing_phase``. Other commands succeed; ``run`` runs the repro."""

    def __init__(self, exit_codes: dict[str, int | None] | None = None, failing_phase: str | None = None):
        self.exit_codes = exit_codes or {}
        self.failing_phase = failing_phase
        self.calls: list[Call] = []

    @property
    def subcommands(self) -> list[str]:
        return [c.subcommand for c in self.calls]

    def __call__(self, argv, *, env, cwd, stdout, stderr, timeout_s, on_poll=None) -> ProcessOutcome:
        call = Call(list(argv), dict(env), timeout_s)
        self.calls.append(call)
        sub = call.subcommand
        if sub in self.exit_codes and (sub != "run" or self._phase(call) == self.failing_phase):
            code = self.exit_codes[sub]
            return ProcessOutcome(code, code is None, 0.1)
        if sub == "run":
            return self._run_like_the_container(call, cwd, stdout, stderr, on_poll)
        if sub == "cp":
            Path(call.args[1]).write_text('{"resourceSpans": []}\n')
        return ProcessOutcome(0, False, 0.1)

    @staticmethod
    def _phase(call: Call) -> str:
        return next(a.split("=", 1)[1] for a in call.args if a.startswith("FAULTLIB_PHASE="))

    @staticmethod
    def _run_like_the_container(call, cwd, stdout, stderr, on_poll) -> ProcessOutcome:
        args, env, mounts = call.args, {}, {}
        for flag, value in zip(args, args[1:]):
            if flag == "--env":
                key, _, val = value.partition("=")
                env[key] = val
            elif flag == "--volume":
                source, _, target = value.rpartition(":")
                mounts[target] = source
        env["FAULTLIB_RUN_DIR"] = mounts[env["FAULTLIB_RUN_DIR"]]
        if env.get("OTEL_EXPORTER_OTLP_ENDPOINT") in RESOLVED:  # the network's name, resolved here
            env["OTEL_EXPORTER_OTLP_ENDPOINT"] = RESOLVED[env["OTEL_EXPORTER_OTLP_ENDPOINT"]]
        return run_process([sys.executable, str(Path(cwd) / "repro.py")], env={**os.environ, **env}, cwd=cwd,
                           stdout=stdout, stderr=stderr, timeout_s=60, on_poll=on_poll)


def _backend(docker: FakeDockerCli, **kwargs) -> ComposeBackend:
    return ComposeBackend(base_file=BASE, execute=docker, check_engine=lambda: None, **kwargs)


def _run(case_dir, tmp_path, backend, **kwargs):
    archive = FileArchive(tmp_path / "archive")
    record = Runner(archive, backend=backend).run(load_case(case_dir), **kwargs)
    return record, archive.root / record.case["id"] / record.run_id


def test_command_lines_for_a_catalog_case(tmp_path):
    case = load_case(REPO / "cases" / "fp16_overflow")
    plan = _backend(FakeDockerCli()).plan(case)
    assert plan.repro_service == "trainer"
    assert plan.support_services == ["minio", "otel-collector", "prometheus", "grafana"]
    name = project_name(case.id, "20261130T120048Z-3fa2c1")
    assert name == "faultlib-fp16_overflow-20261130t120048z-3fa2c1"
    project = ComposeProject(name, case.path, plan.files)
    head = ["docker", "compose", "--project-name", name, "--project-directory", str(case.path),
            "-f", str(BASE), "-f", str(case.path / "compose.yaml")]
    assert project.up(plan.support_services) == head + ["up", "--detach", "--wait", "minio", "otel-collector",
                                                        "prometheus", "grafana"]
    run_dir = tmp_path / "run"
    assert project.run("trainer", env={"FAULTLIB_PHASE": "faulted", "FAULTLIB_PARAMS": '{"a": "b c"}'},
                       run_dir=run_dir, user="1000:1000") == head + [
        "run", "--rm", "-T", "--user", "1000:1000", "--volume", f"{run_dir}:/faultlib/run",
        "--env", "FAULTLIB_PHASE=faulted", "--env", 'FAULTLIB_PARAMS={"a": "b c"}', "trainer"]
    assert project.stop("otel-collector") == head + ["stop", "otel-collector"]
    assert project.copy_out("otel-collector", "/var/lib/faultlib/otel/otlp.jsonl", run_dir / "c.jsonl") == head + [
        "cp", "otel-collector:/var/lib/faultlib/otel/otlp.jsonl", str(run_dir / "c.jsonl")]
    assert project.down() == head + ["down", "--volumes", "--remove-orphans"]


def test_a_run_brings_the_topology_up_runs_both_phases_and_tears_it_down(tiny_case, tmp_path):
    docker = FakeDockerCli()
    record, run_dir = _run(tiny_case(), tmp_path, _backend(docker, image="registry.example/trainer:2"))
    assert record.verdict is Verdict.PASSED, record.error
    assert record.backend == "compose"
    assert docker.subcommands == ["up", "run", "run", "stop", "cp", "down"]
    up, control, faulted = docker.calls[:3]
    assert up.args == ["--detach", "--wait", "minio", "otel-collector", "prometheus", "grafana"]
    assert project_name("tiny_case", record.run_id) == up.argv[3]
    for call, phase in ((control, "control"), (faulted, "faulted")):
        assert call.args[-1] == "tiny" and call.args[:3] == ["--rm", "-T", "--user"]
        assert f"FAULTLIB_PHASE={phase}" in call.args and f"FAULTLIB_RUN_ID={record.run_id}" in call.args
        assert "FAULTLIB_RUN_DIR=/faultlib/run" in call.args
        assert "OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318" in call.args
        source, target = call.args[call.args.index("--volume") + 1].rsplit(":", 1)
        assert target == "/faultlib/run" and Path(source).is_absolute() and Path(source).name == record.run_id
    for call in docker.calls:
        assert call.env["FAULTLIB_COMPOSE_DIR"] == str(BASE.parent)
        assert call.env["FAULTLIB_IMAGE"] == "registry.example/trainer:2"
    assert docker.calls[3].args == ["otel-collector"] and docker.calls[5].args == ["--volumes", "--remove-orphans"]
    assert COLLECTOR_EVIDENCE in {a.name for a in record.artifacts}
    log = (run_dir / "backend.log").read_text()
    assert log.index(" up --detach --wait ") < log.index(" down --volumes")
    stdout = (run_dir / layout.STDOUT).read_text()
    assert "# faultlib phase=control backend=compose" in stdout and "phase=faulted pid=" in stdout


def test_a_failing_phase_still_tears_down(tiny_case, tmp_path):
    docker = FakeDockerCli({"run": 1}, failing_phase="control")
    record, _ = _run(tiny_case(), tmp_path, _backend(docker))
    assert record.verdict is Verdict.ERROR and record.control.status is PhaseStatus.CRASHED
    assert docker.subcommands == ["up", "run", "stop", "cp", "down"]


def test_a_phase_that_times_out_still_tears_down(tiny_case, tmp_path):
    docker = FakeDockerCli({"run": None}, failing_phase="faulted")
    record, _ = _run(tiny_case(), tmp_path, _backend(docker), timeout_s=5)
    assert record.faulted.status is PhaseStatus.TIMEOUT and record.verdict is Verdict.ERROR
    assert docker.subcommands == ["up", "run", "run", "stop", "cp", "down"]
    assert docker.calls[1].timeout_s > 5, "the container start grace is missing"


def test_a_failing_up_raises_and_still_tears_down(tiny_case, tmp_path):
    docker = FakeDockerCli({"up": 1})
    with pytest.raises(BackendUnavailable, match=r"docker compose up of project faultlib-tiny_case-.* failed "
                                                 r"\(exit code 1\): see .*backend.log"):
        _run(tiny_case(), tmp_path, _backend(docker))
    assert docker.subcommands == ["up", "stop", "cp", "down"]
    [run_dir] = (tmp_path / "archive" / "tiny_case").iterdir()
    assert "up --detach --wait" in (run_dir / "backend.log").read_text()


def test_a_failing_down_says_how_to_clean_up(tiny_case, tmp_path):
    docker = FakeDockerCli({"down": 1})
    with pytest.raises(BackendUnavailable, match=r"remove the project by hand with `docker compose -p "
                                                 r"faultlib-tiny_case-\S+ down --volumes`"):
        _run(tiny_case(), tmp_path, _backend(docker))
    assert docker.subcommands == ["up", "run", "run", "stop", "cp", "down"]


def _case_with_services(tmp_path, services: dict, listed=None):
    data = tiny_case_data("multi_case")
    if listed is not None:
        data["topology"]["services"] = listed
    case_dir = write_case(tmp_path / "cases", data)
    (case_dir / "compose.yaml").write_text(yaml.safe_dump({"services": services}))
    return case_dir


def test_case_topology_problems_are_reported_before_any_command(tmp_path):
    docker = FakeDockerCli()
    two = {"client": {"image": "python:3.11-slim"}, "server": {"image": "python:3.11-slim"}}
    with pytest.raises(CaseError, match="name the one that runs the repro first in topology.services"):
        _run(_case_with_services(tmp_path / "a", two), tmp_path, _backend(docker))
    with pytest.raises(CaseError, match="topology.services names 'worker', which compose.yaml does not define"):
        _run(_case_with_services(tmp_path / "b", two, listed=["worker"]), tmp_path, _backend(docker))
    with pytest.raises(CaseError, match="'--privileged' is not a valid Compose service name"):
        _run(_case_with_services(tmp_path / "c", {"--privileged": {"image": "x"}}), tmp_path, _backend(docker))
    assert docker.calls == [] and not (tmp_path / "archive").exists()
    plan = _backend(docker).plan(load_case(_case_with_services(tmp_path / "d", two, listed=["server", "client"])))
    assert plan.repro_service == "server" and plan.support_services[-1] == "client"


def test_cli_without_a_docker_engine_exits_3_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    archive = tmp_path / "runs"
    proc = cli("run", str(REPO / "cases" / "fp16_overflow"), "--backend", "compose", "--archive", f"file://{archive}",
               cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    message = " ".join(proc.stderr.split())
    assert message.startswith("error: no Docker engine is reachable") and "use --backend local" in message
    assert "Traceback" not in proc.stderr
    assert not archive.exists(), "the run wrote evidence before finding out there is no engine"
