"""The compose backend: the repro runs in the case's service beside the base topology of
``compose/`` (MinIO, OpenTelemetry Collector, Prometheus, Grafana), brought up for the run and
torn down after it, also when a phase or the bring-up fails.

Every command is an argv list run without a shell; names taken from compose files (service
names) are checked against the Compose naming rule before they reach an argv. One run is one
Compose project, ``faultlib-<case id>-<run id>`` (lower case), so runs never share containers::

    docker compose --project-name P --project-directory CASE_DIR -f compose/compose.yaml -f CASE_DIR/compose.yaml
        up --detach --wait SUPPORT_SERVICES...            (session start; all but the repro service)
        run --rm -T --user UID:GID --volume RUN_DIR:/faultlib/run --env K=V ... REPRO_SERVICE   (each phase)
        stop otel-collector                               (session end: the collector flushes its file)
        cp otel-collector:/var/lib/faultlib/otel/otlp.jsonl RUN_DIR/collector/otlp.jsonl
        down --volumes --remove-orphans

The repro service is the first of ``topology.services`` in case.yaml, or the only service of the
case's compose file. It writes its evidence into the run directory (bind-mounted), reaches the
collector at ``OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318``, and whatever reached the
collector lands in the evidence as ``collector/otlp.jsonl`` (OTLP/JSON, one request per line).
The output of the compose commands themselves goes to ``backend.log``.

Compose resolves relative paths against the project directory (the case directory here), so the
base file names its own files through ``FAULTLIB_COMPOSE_DIR``, which this backend sets.
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Callable, Iterator

from faultlib.backends.base import Backend
from faultlib.backends.local import StepTail
from faultlib.processes import ProcessOutcome, run_process
from faultlib.errors import BackendUnavailable, CaseError, FaultlibError, require
from faultlib.evidence import layout

if TYPE_CHECKING:
    from faultlib.cases import Case, World

BASE_FILE = Path("compose") / "compose.yaml"
COLLECTOR_SERVICE = "otel-collector"
COLLECTOR_ENDPOINT = f"http://{COLLECTOR_SERVICE}:4318"
COLLECTOR_FILE = "/var/lib/faultlib/otel/otlp.jsonl"
COLLECTOR_EVIDENCE = "collector/otlp.jsonl"
BACKEND_LOG = "backend.log"
CONTAINER_RUN_DIR = "/faultlib/run"

UP_TIMEOUT_S = 900.0        # image pulls included
TEARDOWN_TIMEOUT_S = 300.0
RUN_START_GRACE_S = 120.0   # `run` may still pull the repro's image before the repro starts
ENGINE_TIMEOUT_S = 10

# the Compose specification's pattern for service names, minus a leading '-', which an argv would read as a flag
SERVICE_NAME = re.compile(r"^[a-zA-Z0-9._][a-zA-Z0-9._-]*$")
PROJECT_NAME_JUNK = re.compile(r"[^a-z0-9_-]")

#: ``execute(argv, *, env, cwd, stdout, stderr, timeout_s, on_poll=None) -> ProcessOutcome``, as
#: :func:`faultlib.processes.run_process`; tests pass a recorder
Execute = Callable[..., ProcessOutcome]


def check_docker_engine() -> None:
    """Ping the Docker engine the environment points at (``DOCKER_HOST`` or the default socket).

    Raises:
        MissingDependency: the docker SDK is not installed.
        BackendUnavailable: no engine answers (exit 3).
    """
    docker = require("docker", "docker")
    try:
        client = docker.from_env(timeout=ENGINE_TIMEOUT_S)
        try:
            client.ping()
        finally:
            client.close()
    except docker.errors.DockerException as exc:
        raise BackendUnavailable(
            f"no Docker engine is reachable ({exc}): the compose backend needs one; start Docker or point "
            "DOCKER_HOST at an engine, or use --backend local") from exc


def project_name(case_id: str, run_id: str) -> str:
    """The Compose project of one run: ``faultlib-fp16_overflow-20261130t120048z-3fa2c1``."""
    return PROJECT_NAME_JUNK.sub("-", f"faultlib-{case_id}-{run_id}".lower())


@dataclass(frozen=True)
class ComposeProject:
    """The ``docker compose`` command line of one run; every method returns an argv list.

    Attributes:
        name: the project name (``--project-name``).
        project_dir: the case directory (``--project-directory``): relative paths resolve against it.
        files: the base file, then the case's file (``-f`` each).
    """

    name: str
    project_dir: Path
    files: tuple[Path, ...]

    def command(self, *args: str) -> list[str]:
        argv = ["docker", "compose", "--project-name", self.name, "--project-directory", str(self.project_dir)]
        for path in self.files:
            argv += ["-f", str(path)]
        return argv + list(args)

    def up(self, services: list[str]) -> list[str]:
        return self.command("up", "--detach", "--wait", *services)

    def run(self, service: str, *, env: dict[str, str], run_dir: Path, user: str | None) -> list[str]:
        args = ["run", "--rm", "-T"]
        if user:
            args += ["--user", user]
        args += ["--volume", f"{run_dir}:{CONTAINER_RUN_DIR}"]
        for key, value in env.items():
            args += ["--env", f"{key}={value}"]
        return self.command(*args, service)

    def stop(self, service: str) -> list[str]:
        return self.command("stop", service)

    def copy_out(self, service: str, path: str, destination: Path) -> list[str]:
        return self.command("cp", f"{service}:{path}", str(destination))

    def down(self) -> list[str]:
        return self.command("down", "--volumes", "--remove-orphans")


def _services(path: Path) -> list[str]:
    from faultlib.readers import load_yaml_file

    data = load_yaml_file(path).data  # bounded, aliases capped, InputError (exit 2) with the line
    services = (data or {}).get("services") if isinstance(data, dict) else None
    if not isinstance(services, dict) or not services:
        raise CaseError("a compose file must define services", path=path, field="services")
    for name in services:
        if not isinstance(name, str) or not SERVICE_NAME.match(name):
            raise CaseError(f"service name {name!r} is not a valid Compose service name ([a-zA-Z0-9._-], not "
                            "starting with '-')", path=path, field=f"services.{name}")
    return list(services)


@dataclass(frozen=True)
class _Plan:
    project_dir: Path
    files: tuple[Path, ...]
    repro_service: str
    support_services: list[str]


class ComposeBackend(Backend):
    """Runs each phase with ``docker compose run`` inside the case's topology.

    Args:
        base_file: the base topology (default: ``compose/compose.yaml`` of the catalog's repository,
            i.e. beside the case's ``cases/`` directory, else under the working directory).
        image: the repro image, handed to the compose files as ``FAULTLIB_IMAGE`` (default: the
            case file's own default).
        execute: runs one argv (default :func:`faultlib.processes.run_process`).
        check_engine: raises :class:`BackendUnavailable` when no engine answers (default
            :func:`check_docker_engine`).
    """

    name = "compose"

    def __init__(self, *, base_file: str | Path | None = None, image: str | None = None,
                 execute: Execute = run_process, check_engine: Callable[[], None] = check_docker_engine):
        self.base_file = Path(base_file).resolve() if base_file else None
        self.image = image
        self.execute = execute
        self.check_engine = check_engine
        self._plan: _Plan | None = None
        self._project: ComposeProject | None = None

    # -- preflight ---------------------------------------------------------------------------------

    def _find_base(self, case: "Case") -> Path:
        if self.base_file:
            if not self.base_file.is_file():
                raise FaultlibError(f"base compose file not found: {self.base_file}")
            return self.base_file
        for root in (case.path.parent.parent, Path.cwd()):
            if (root / BASE_FILE).is_file():
                return (root / BASE_FILE).resolve()
        raise FaultlibError(f"the base topology {BASE_FILE} was not found beside the catalog of {case.path} nor "
                            "in the working directory: run from the faultlib repository root")

    def plan(self, case: "Case") -> _Plan:
        """Resolve the compose files and services of ``case`` (reads files, starts nothing).

        Raises:
            CaseError: a compose file is unreadable or names an invalid service, or the repro service is unclear.
            FaultlibError: the base topology is not found.
        """
        base = self._find_base(case)
        case_file = case.path / case.raw["topology"]["compose"]
        base_services, case_services = _services(base), _services(case_file)
        listed = case.raw["topology"].get("services") or []
        if listed:
            repro = listed[0]
        elif len(case_services) == 1:
            repro = case_services[0]
        else:
            raise CaseError(f"the compose file defines {len(case_services)} services ({', '.join(case_services)}): "
                            "name the one that runs the repro first in topology.services",
                            path=case.path / "case.yaml", field="topology.services")
        if repro not in case_services:
            raise CaseError(f"topology.services names {repro!r}, which {case_file.name} does not define "
                            f"({', '.join(case_services)})", path=case.path / "case.yaml", field="topology.services")
        support = [s for s in dict.fromkeys(base_services + case_services) if s != repro]
        return _Plan(case.path, (base, case_file), repro, support)

    def preflight(self, case: "Case") -> None:
        """Check the Docker engine first, then the compose files and services.

        Raises:
            BackendUnavailable: no Docker engine answers (exit 3).
            MissingDependency: the docker SDK is not installed.
            CaseError, FaultlibError: see :meth:`plan`; a distributed case (``repro.world``).
        """
        if case.world is not None:
            raise CaseError(f"{case.id}: a distributed case (repro.world, {case.world.ranks} ranks) runs with "
                            "--backend local (torchrun) or --backend kubernetes (a PyTorchJob), not compose")
        self.check_engine()
        self._plan = self.plan(case)

    # -- session -----------------------------------------------------------------------------------

    def _env(self) -> dict[str, str]:
        assert self._plan is not None
        env = {**os.environ, "FAULTLIB_COMPOSE_DIR": str(self._plan.files[0].parent)}
        if self.image:
            env["FAULTLIB_IMAGE"] = self.image
        return env

    def _call(self, argv: list[str], log: IO[bytes], timeout_s: float) -> ProcessOutcome:
        log.write(("$ " + " ".join(argv) + "\n").encode())
        log.flush()
        try:
            outcome = self.execute(argv, env=self._env(), cwd=self._plan.project_dir, stdout=log, stderr=log,
                                   timeout_s=timeout_s)
        except FileNotFoundError as exc:
            raise BackendUnavailable("the docker CLI is not installed (the compose backend runs `docker compose`): "
                                     "install Docker with the compose plugin, or use --backend local") from exc
        log.write(f"# exit code {outcome.exit_code}{' (timed out)' if outcome.timed_out else ''}\n".encode())
        log.flush()
        return outcome

    @contextmanager
    def session(self, case: "Case", *, run_id: str, run_dir: Path) -> Iterator[None]:
        """Bring the topology up (all services but the repro's) and tear it down on exit.

        Teardown stops the collector, copies its file into the evidence and removes the project
        with its volumes; it runs when a phase fails or the bring-up fails, too.

        Raises:
            BackendUnavailable: ``up`` failed or timed out, or ``down`` failed (the message names the
                project to remove by hand).
        """
        if self._plan is None or self._plan.project_dir != case.path:
            self.preflight(case)
        plan = self._plan
        project = ComposeProject(project_name(case.id, run_id), plan.project_dir, plan.files)
        self._project = project
        log_path = run_dir / BACKEND_LOG
        with open(log_path, "ab") as log:
            try:
                outcome = self._call(project.up(plan.support_services), log, UP_TIMEOUT_S)
                if outcome.exit_code != 0:
                    how = "timed out" if outcome.timed_out else f"exit code {outcome.exit_code}"
                    raise BackendUnavailable(f"docker compose up of project {project.name} failed ({how}): "
                                             f"see {log_path}")
                yield
            finally:
                in_flight = sys.exc_info()[0] is not None
                self._teardown(project, run_dir, log, log_path, raise_on_failure=not in_flight)

    def _teardown(self, project: ComposeProject, run_dir: Path, log: IO[bytes], log_path: Path, *,
                  raise_on_failure: bool) -> None:
        self._call(project.stop(COLLECTOR_SERVICE), log, TEARDOWN_TIMEOUT_S)
        destination = run_dir / COLLECTOR_EVIDENCE
        destination.parent.mkdir(parents=True, exist_ok=True)
        self._call(project.copy_out(COLLECTOR_SERVICE, COLLECTOR_FILE, destination), log, TEARDOWN_TIMEOUT_S)
        down = self._call(project.down(), log, TEARDOWN_TIMEOUT_S)
        if down.exit_code != 0 and raise_on_failure:
            raise BackendUnavailable(f"docker compose down failed (see {log_path}): remove the project by hand with "
                                     f"`docker compose -p {project.name} down --volumes`")

    # -- phases ------------------------------------------------------------------------------------

    def run_phase(self, *, script: Path, run_dir: Path, phase: str, env: dict[str, str], timeout_s: float,
                  on_step: Callable[[int, int | None], None], world: "World | None" = None) -> ProcessOutcome:
        """Run one phase in a fresh container of the repro service (``docker compose run --rm``).

        The run directory is bind-mounted at ``/faultlib/run`` and the container runs as the caller's
        uid:gid, so the evidence it writes belongs to the caller. ``timeout_s`` gets a grace of
        ``RUN_START_GRACE_S`` for the container to start; a phase killed at its timeout leaves its
        container to the teardown.

        Raises:
            FaultlibError: called outside :meth:`session`, or the run directory contains ``:``.
        """
        from faultlib.repro import ENV_RUN_DIR  # faultlib.repro loads the injector registry (jsonschema)

        if self._project is None or self._plan is None:
            raise FaultlibError("ComposeBackend.run_phase called outside session(): the runner enters "
                                "session(case, run_id=..., run_dir=...) first")
        if ":" in str(run_dir):
            raise FaultlibError(f"the run directory {run_dir} contains ':', which a Compose volume cannot mount: "
                                "use an archive path without ':'")
        container_env = {**env, ENV_RUN_DIR: CONTAINER_RUN_DIR, "OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR_ENDPOINT,
                         "PYTHONUNBUFFERED": "1", "HOME": "/tmp"}
        user = f"{os.getuid()}:{os.getgid()}" if hasattr(os, "getuid") else None
        argv = self._project.run(self._plan.repro_service, env=container_env, run_dir=run_dir.resolve(), user=user)
        tail = StepTail(run_dir / layout.TRACES, phase, on_step)
        with open(run_dir / layout.STDOUT, "ab") as out, open(run_dir / layout.STDERR, "ab") as err:
            for fh in (out, err):
                fh.write(f"# faultlib phase={phase} backend=compose project={self._project.name}\n".encode())
                fh.flush()
            try:
                outcome = self.execute(argv, env=self._env(), cwd=self._plan.project_dir, stdout=out, stderr=err,
                                       timeout_s=timeout_s + RUN_START_GRACE_S, on_poll=tail.poll)
            except FileNotFoundError as exc:
                raise BackendUnavailable("the docker CLI is not installed: install Docker with the compose plugin, "
                                         "or use --backend local") from exc
            note = (f"# faultlib: phase {phase} killed after {timeout_s:g} s (repro.timeout_s)\n"
                    if outcome.timed_out else f"# faultlib: phase {phase} exit code {outcome.exit_code}\n")
            err.write(note.encode())
        return outcome
