"""The runner: validate, run the control and the faulted phase, run the assertion suite,
write the run record and the manifest (last), publish to the archive.

Nothing runs before the case has been fully validated and its ``requires`` checked.
Evidence already written is never removed: a phase that crashes or hangs leaves its
partial spans, logs and output, and the run still gets ``run.json`` and a manifest.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from faultlib.archive import Archive
from faultlib.evidence.seal import artifacts, write_manifest
from faultlib.backends import Backend, get_backend
from faultlib.backends.local import repro_environment, run_process
from faultlib.cases import Case
from faultlib.cases.fixture import ENV_EVIDENCE, ENV_PHASES
from faultlib.errors import ArchiveError, CaseError, RunNotArchived
from faultlib.events import EventBus, RunListener
from faultlib.evidence import layout
from faultlib.evidence.reader import read_findings
from faultlib.evidence.prom import exposition
from faultlib.cases.model import signal_name
from faultlib.record import Attempt, PhaseResult, PhaseStatus, RunRecord, Verdict, fingerprint
from faultlib.repro import ENV_PARAMS, phase_env

ASSERTION_TIMEOUT_S = 300.0


def new_run_id(now: datetime | None = None) -> str:
    """Sortable run id: ``20261130T120048Z-3fa2c1`` (UTC time plus 24 random bits)."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def check_requires(case: Case) -> None:
    """Raise :class:`CaseError` (exit 2) when this environment does not meet ``requires``."""
    path = case.path / "case.yaml"
    python = case.requires.get("python", "")
    try:
        if python and sys.version.split()[0] not in SpecifierSet(python):
            raise CaseError(f"needs Python {python}, this is {sys.version.split()[0]}", path=path,
                            field="requires.python")
        for name, spec in (case.requires.get("packages") or {}).items():
            try:
                version = metadata.version(name)
            except metadata.PackageNotFoundError:
                raise CaseError(f"package {name} is not installed: pip install '{name}{spec}'", path=path,
                                field=f"requires.packages.{name}") from None
            if version not in SpecifierSet(spec, prereleases=True):
                raise CaseError(f"needs {name}{spec}, found {version}: pip install '{name}{spec}'", path=path,
                                field=f"requires.packages.{name}")
    except InvalidSpecifier as exc:
        raise CaseError(f"invalid version specifier: {exc}", path=path, field="requires") from exc
    if "cuda" in (case.requires.get("devices") or []) and "cpu" not in case.requires["devices"]:
        raise CaseError("needs a CUDA device; none is usable here", path=path, field="requires.devices")


def _phase_result(outcome) -> PhaseResult:
    if outcome.timed_out:
        status = PhaseStatus.TIMEOUT
    else:
        status = PhaseStatus.OK if outcome.exit_code == 0 else PhaseStatus.CRASHED
    return PhaseResult(status=status, exit_code=outcome.exit_code, duration_s=outcome.duration_s)


def _junit_results(junit: Path, case: Case) -> tuple[list[str], list[str], bool]:
    """(passed ids, failed ids, suite_ok) from pytest's JUnit XML; ids from ``case.assertions``."""
    by_test = {a.test: a.id for a in case.assertions}
    passed, failed = [], []
    if not junit.is_file():
        return passed, failed, False
    try:
        root = ET.parse(junit).getroot()
    except ET.ParseError:
        return passed, failed, False
    for tc in root.iter("testcase"):
        name = tc.get("name", "").split("[")[0]
        ident = by_test.get(name, name)
        bad = any(child.tag in ("failure", "error") for child in tc)
        skipped = any(child.tag == "skipped" for child in tc)
        if bad:
            failed.append(ident)
        elif not skipped:
            passed.append(ident)
    ran = {*passed, *failed}
    missing = [a.id for a in case.assertions if a.id not in ran]
    return passed, failed + missing, True


def _write_error_junit(junit: Path, case: Case, message: str) -> None:
    suite = ET.Element("testsuite", name=case.id, tests=str(len(case.assertions)), errors=str(len(case.assertions)))
    for assertion in case.assertions:
        tc = ET.SubElement(suite, "testcase", classname=f"{case.id}.test_case", name=assertion.test)
        ET.SubElement(tc, "error", message=message)
    ET.ElementTree(suite).write(junit, encoding="utf-8", xml_declaration=True)


class Runner:
    """Runs one case end to end.

    Args:
        archive: where the evidence goes.
        backend: ``local`` (default), ``compose``, ``kubernetes``, or a configured
            :class:`~faultlib.backends.Backend` (``get_backend(name, image=..., ...)``).
        listener: receives lifecycle events (progress display, logging).
    """

    def __init__(self, archive: Archive, *, backend: str | Backend = "local", listener: RunListener | None = None):
        self.archive = archive
        self.backend = get_backend(backend) if isinstance(backend, str) else backend
        self.events = EventBus(*([listener] if listener else []))

    def run(self, case: Case, *, control: bool = True, seed: int | None = None,
            timeout_s: float | None = None) -> RunRecord:
        """Run ``case``; returns the record (also written to ``run.json``).

        Raises:
            CaseError: ``requires`` not met (before anything is written).
            BackendUnavailable: the backend's engine or cluster cannot be reached (before anything is
                written), or it failed during the run (the evidence so far is kept).
            RunNotArchived: the run finished but the archive did not take it (store unreachable,
                access denied); the evidence is complete in the archive's staging directory.
        """
        check_requires(case)
        self.backend.preflight(case)  # engine / cluster reachable, backend inputs valid: before anything is written
        self.events.case_loaded(case)
        started = time.monotonic()
        run_id = new_run_id()
        seed = case.seed if seed is None else seed
        timeout_s = timeout_s or case.timeout_s
        run_dir = self.archive.staging_dir(case.id, run_id)
        record = RunRecord(
            run_id=run_id, case={"id": case.id, "version": case.version, "path": str(case.path)},
            backend=self.backend.name, started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            seed=seed, fingerprint=fingerprint(list((case.requires.get("packages") or {}).keys())))
        self.events.run_started(run_id, str(run_dir))
        try:
            with self.backend.session(case, run_id=run_id, run_dir=run_dir):  # torn down also on failure
                self._run_phases(case, record, run_dir, control=control, seed=seed, timeout_s=timeout_s)
            self._assertions(case, record, run_dir)
        except BaseException as exc:  # keep the evidence and say what happened, then re-raise
            reason = ("interrupted (Ctrl-C or SIGTERM)" if isinstance(exc, KeyboardInterrupt)
                      else f"runner failed: {type(exc).__name__}: {exc}")
            record.verdict, record.error = Verdict.ERROR, f"{reason}; the evidence so far is kept"
            try:
                self._finish(case, record, run_dir, started)
            except RunNotArchived:
                pass  # the evidence waits in run_dir; the interruption is what the caller must see
            raise
        self._finish(case, record, run_dir, started)
        return record

    def _run_phases(self, case: Case, record: RunRecord, run_dir: Path, *, control: bool, seed: int,
                    timeout_s: float) -> None:
        faults = [{"shim": s.name, "params": s.params} for s in case.shims]
        for phase in layout.PHASES:
            if phase == "control" and not control:
                continue
            shims = faults if phase == "faulted" else []
            self.events.phase_started(phase, [s["shim"] for s in shims])
            try:
                result = self._run_attempts(case, record, run_dir, phase=phase, shims=shims, seed=seed,
                                            timeout_s=timeout_s)
            except BaseException:
                setattr(record, phase, PhaseResult(status=PhaseStatus.INTERRUPTED))
                raise
            setattr(record, phase, result)
            self.events.phase_finished(phase, result)
            if result.status is PhaseStatus.TIMEOUT:
                source = "repro.timeout_s" if timeout_s == case.timeout_s else "--timeout"
                record.error = f"{phase} phase killed at its timeout of {timeout_s:g} s ({source})"
                return
            if result.status is PhaseStatus.CRASHED:
                how = (f"was killed by {signal_name(result.exit_code)}" if result.exit_code < 0
                       else f"exited with code {result.exit_code}")
                record.error = f"{phase} phase {how}: see {run_dir / layout.STDERR}"
                return

    def _run_attempts(self, case: Case, record: RunRecord, run_dir: Path, *, phase: str, shims: list[dict],
                      seed: int, timeout_s: float) -> PhaseResult:
        """Run one phase, restarting it while ``repro.restarts`` allows (a process ended by a listed
        signal). Every attempt appends to the same evidence and gets ``FAULTLIB_ATTEMPT``;
        ``timeout_s`` bounds all attempts together."""
        started = time.monotonic()
        attempts: list[Attempt] = []
        while True:
            number = len(attempts) + 1
            budget_s = timeout_s if number == 1 else timeout_s - (time.monotonic() - started)
            env = phase_env(run_dir=run_dir, run_id=record.run_id, case_id=case.id, phase=phase, seed=seed,
                            params=case.params, faults=shims, attempt=number)
            outcome = self.backend.run_phase(script=case.script, run_dir=run_dir, phase=phase, env=env,
                                             timeout_s=budget_s,
                                             on_step=lambda s, t, p=phase: self.events.step(p, s, t))
            attempts.append(Attempt(number, outcome.exit_code, signal_name(outcome.exit_code), outcome.duration_s))
            out_of_time = time.monotonic() - started >= timeout_s
            if outcome.timed_out or out_of_time or not case.restarts.allows(outcome.exit_code, number):
                break
            self.events.phase_restarted(phase, number, attempts[-1].signal)
        result = _phase_result(outcome)
        result.duration_s = time.monotonic() - started
        result.attempts = attempts
        return result

    def _assertions(self, case: Case, record: RunRecord, run_dir: Path) -> None:
        junit = run_dir / layout.JUNIT
        if record.error:
            record.verdict = Verdict.ERROR
            _write_error_junit(junit, case, record.error)
            record.assertions = {"passed": [], "failed": [a.id for a in case.assertions]}
            return
        self.events.assertions_started(len(case.assertions))
        status = {p: getattr(record, p).to_json() for p in layout.PHASES}
        env = {**repro_environment(), ENV_EVIDENCE: str(run_dir), ENV_PHASES: json.dumps(status),
               ENV_PARAMS: json.dumps(case.params)}
        argv = [sys.executable, "-m", "pytest", str(case.test_file), "-p", "faultlib.cases.fixture",
                "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(case.path), "-q",
                f"--junitxml={junit}", "-o", f"junit_suite_name={case.id}"]
        with open(run_dir / layout.ASSERTIONS_LOG, "ab") as out:
            outcome = run_process(argv, env=env, cwd=case.path, stdout=out, stderr=out,
                                  timeout_s=ASSERTION_TIMEOUT_S)
        passed, failed, suite_ok = _junit_results(junit, case)
        record.assertions = {"passed": passed, "failed": failed}
        if outcome.timed_out or not suite_ok or outcome.exit_code not in (0, 1):
            record.verdict = Verdict.ERROR
            record.error = (f"assertion suite did not run cleanly (exit code {outcome.exit_code}): "
                            f"see {run_dir / layout.ASSERTIONS_LOG}")
        else:
            record.verdict = Verdict.PASSED if not failed else Verdict.FAILED
        self.events.assertions_finished(passed, failed)

    def _finish(self, case: Case, record: RunRecord, run_dir: Path, started: float) -> None:
        for phase, findings in read_findings(run_dir).items():
            getattr(record, phase).findings = findings
        (run_dir / layout.METRICS_PROM).write_bytes(exposition(run_dir / layout.METRICS))
        for name in (layout.TRACES, layout.METRICS, layout.LOGS, layout.FINDINGS, layout.STDOUT, layout.STDERR):
            (run_dir / name).touch()  # every layout file exists, even when a phase died before writing it
        record.duration_s = time.monotonic() - started
        record.archive_uri = self.archive.run_uri(case.id, record.run_id)
        record.artifacts = artifacts(run_dir, exclude=(layout.RUN,))
        (run_dir / layout.RUN).write_text(json.dumps(record.to_json(), indent=2))
        write_manifest(run_dir, run_id=record.run_id, case_id=case.id)
        try:
            self.archive.publish(run_dir, case.id, record.run_id)
        except ArchiveError as exc:  # nothing is lost: the record and the evidence are complete in run_dir
            self.events.run_finished(record)
            raise RunNotArchived(record, run_dir, exc) from exc
        self.events.archived(record.archive_uri)
        self.events.run_finished(record)
