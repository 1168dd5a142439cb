"""The runner: validate, run the control and the faulted phase, run the assertion suite,
write the run record and the manifest (last), publish to the archive.

Nothing runs before the case has been fully validated, its ``requires`` checked, and the
backend and the archive said they can take the run.
Evidence already written is never removed: a phase that crashes or hangs leaves its
partial spans, logs and output, and the run still gets ``run.json`` and a manifest. What a repro
leaves in the run directory cannot stop the run from finishing: evidence is read defensively and
what cannot be read or archived (a malformed line, a symlink, a FIFO, a name that is not UTF-8, a
file over the size limit) becomes a ``faultlib.runner`` finding with verdict ``error``
(:mod:`faultlib.evidence.finish`). Entries in the way of the runner's own files are renamed aside.

While it runs, the runner holds ``run.lock`` in the run directory (:mod:`faultlib.runlock`): a
runner killed with ``kill -9`` leaves it behind, its repro dies with it (``PR_SET_PDEATHSIG``),
and :func:`faultlib.runlock.finish_interrupted` finishes the run later with verdict
``interrupted``. Every process a phase started, including those that left its session, is
killed when the phase ends (:mod:`faultlib.processes.tree`).
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
from typing import Sequence

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from faultlib import runlock
from faultlib.archive import Archive
from faultlib.backends import Backend, get_backend
from faultlib.processes import ProcessOutcome, repro_environment, run_process
from faultlib.cases import Case
from faultlib.cases.suite_env import ENV_EVIDENCE, ENV_PHASES, ENV_SKIP, NO_CONTROL
from faultlib.cases.model import signal_name
from faultlib.errors import ArchiveError, CaseError, RunNotArchived
from faultlib.events import EventBus, RunListener
from faultlib.evidence import layout
from faultlib.evidence.finish import finish_run, write_metrics_om
from faultlib.evidence.problems import problem_from_claim
from faultlib.evidence.seal import claim, open_append, write_atomic
from faultlib.observability.evaluate import record_promql
from faultlib.readers.junit import read_junit
from faultlib.record import Attempt, PhaseResult, PhaseStatus, RunRecord, Verdict, fingerprint
from faultlib.repro import ENV_PARAMS, phase_env
from faultlib.text import first_line

ASSERTION_TIMEOUT_S = 300.0


def new_run_id(now: datetime | None = None) -> str:
    """Sortable run id: ``20261130T120048Z-3fa2c1`` (UTC time plus 24 random bits)."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def _cuda_usable() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


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
    devices = case.requires.get("devices") or []
    if "cuda" in devices and "cpu" not in devices and not _cuda_usable():
        raise CaseError("needs a CUDA device; none is usable here (torch.cuda.is_available() is False)", path=path,
                        field="requires.devices")


def _phase_result(outcome) -> PhaseResult:
    if outcome.timed_out:
        status = PhaseStatus.TIMEOUT
    else:
        status = PhaseStatus.OK if outcome.exit_code == 0 else PhaseStatus.CRASHED
    return PhaseResult(status=status, exit_code=outcome.exit_code, duration_s=outcome.duration_s)


def _junit_results(junit: Path, case: Case) -> tuple[list[str], list[str], list[str], list[dict[str, str]], bool]:
    """(passed ids, failed ids, skipped ids, failures, suite_ok) from pytest's JUnit XML; ids from
    ``case.assertions``. ``failures`` holds ``{"id", "test", "message"}`` per failed assertion: the test
    function that checks it and the first line of pytest's failure (or error) message.

    An assertion the suite never reported counts as failed."""
    by_test = {a.test: a.id for a in case.assertions}
    passed, failed, skipped, failures = [], [], [], []
    root = read_junit(junit)
    if root is None:
        return passed, failed, skipped, failures, False
    for tc in root.iter("testcase"):
        name = tc.get("name", "").split("[")[0]
        ident = by_test.get(name, name)
        bad = [child for child in tc if child.tag in ("failure", "error")]
        if bad:
            failed.append(ident)
            if ident not in {f["id"] for f in failures}:
                failures.append({"id": ident, "test": name,
                                 "message": first_line(bad[0].get("message") or bad[0].text) or bad[0].tag})
        elif any(child.tag == "skipped" for child in tc):
            skipped.append(ident)
        else:
            passed.append(ident)
    ran = {*passed, *failed, *skipped}
    missing = [a for a in case.assertions if a.id not in ran]
    failures += [{"id": a.id, "test": a.test, "message": f"the assertion suite did not report {a.test}"}
                 for a in missing]
    return passed, failed + [a.id for a in missing], skipped, failures, True


def _name_junit(junit: Path, case: Case) -> None:
    """Name each testcase ``case_id::assertion_id`` (classname: the case id), as CI systems show them,
    so the JUnit names are the assertion ids of case.yaml; the test function stays in ``file``."""
    by_test = {a.test: a.id for a in case.assertions}
    root = read_junit(junit)
    if root is None:
        return
    for tc in root.iter("testcase"):
        test = tc.get("name", "").split("[")[0]
        tc.set("name", f"{case.id}::{by_test.get(test, test)}")
        tc.set("classname", case.id)
        tc.set("file", f"test_case.py::{test}")
    write_atomic(junit.parent, junit.name, ET.tostring(root, encoding="utf-8", xml_declaration=True))


def _write_error_junit(junit: Path, case: Case, message: str) -> None:
    suite = ET.Element("testsuite", name=case.id, tests=str(len(case.assertions)), errors=str(len(case.assertions)))
    for assertion in case.assertions:
        tc = ET.SubElement(suite, "testcase", classname=case.id, name=f"{case.id}::{assertion.id}",
                           file=f"test_case.py::{assertion.test}")
        ET.SubElement(tc, "error", message=message)
    write_atomic(junit.parent, junit.name, ET.tostring(suite, encoding="utf-8", xml_declaration=True))


def run_assertion_suite(case: Case, run_dir: Path, status: dict[str, dict], *, junit: Path, output,
                        tests: Sequence[str] | None = None) -> ProcessOutcome:
    """Run ``case``'s assertion suite (its test_case.py under pytest, with :mod:`faultlib.cases.fixture`)
    on the evidence in ``run_dir``.

    Args:
        status: each phase's :meth:`PhaseResult.to_json` (``{"control": {...}, "faulted": {...}}``); a control
            whose status is ``skipped`` (``--no-control``) skips the ``when: before`` assertions and every
            test that reads the control's evidence.
        junit: where pytest writes its JUnit XML.
        output: an open binary file for pytest's output.
        tests: run only these test functions of test_case.py (default: every test).

    Returns:
        how the suite's process ended (pytest's exit code: 0 passed, 1 some failed; bounded by
        :data:`ASSERTION_TIMEOUT_S` seconds).

    pytest runs with its own plugins and :mod:`faultlib.cases.fixture` only: the plugins installed beside
    it are not loaded (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``), so what else the environment holds neither
    changes a case's verdict nor costs the suite its start (hypothesis' plugin imports hypothesis: about
    1 s of CPU per suite).
    """
    env = {**repro_environment(), ENV_EVIDENCE: str(run_dir), ENV_PHASES: json.dumps(status),
           ENV_PARAMS: json.dumps(case.params), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}  # pytest's rewritten test_case.py is not cached in the catalog (__pycache__)
    if status["control"].get("status") == PhaseStatus.SKIPPED.value:  # what needs the control is skipped
        env[ENV_SKIP] = json.dumps({a.test: NO_CONTROL for a in case.assertions if a.when == "before"})
    selected = [str(case.test_file)] if tests is None else [f"{case.test_file}::{test}" for test in tests]
    argv = [sys.executable, "-m", "pytest", *selected, "-p", "faultlib.cases.fixture",
            "-p", "no:cacheprovider",  # writes no .pytest_cache into the catalog
            "-c", os.devnull, "--rootdir", str(case.path), "-q",
            f"--junitxml={junit}", "-o", f"junit_suite_name={case.id}"]
    return run_process(argv, env=env, cwd=case.path, stdout=output, stderr=output, timeout_s=ASSERTION_TIMEOUT_S)


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
            timeout_s: float | None = None, prometheus: bool = False) -> RunRecord:
        """Run ``case``; returns the record (also written to ``run.json``).

        With ``prometheus``, the case's PromQL is evaluated by a real Prometheus over the run's metrics
        after the phases and before the assertion suite (``promql.json``,
        :mod:`faultlib.observability.evaluate`); when that fails the run gets a finding, not an exception.

        Raises:
            CaseError: ``requires`` not met (before anything is written).
            BackendUnavailable: the backend's engine or cluster cannot be reached (before anything is
                written), or it failed during the run (the evidence so far is kept, the run finished).
            ArchiveError: the archive's preflight says it cannot take the run (store unreachable:
                :class:`~faultlib.errors.ArchiveUnavailable`, exit 3; access denied, bad URI): before
                anything is written.
            RunNotArchived: the run finished but the archive did not take it (store unreachable,
                access denied); the evidence is complete in the archive's staging directory.
            KeyboardInterrupt: Ctrl-C, or SIGTERM/SIGHUP through the CLI: every process of the phase
                is killed, and the run is finished with verdict ``error`` before this propagates.
            OSError: the run directory cannot be written (disk full): the run stays incomplete, with
                ``run.lock``, for :func:`faultlib.runlock.finish_interrupted`.

        Malformed or hostile evidence never raises: it becomes findings and verdict ``error``.
        """
        check_requires(case)
        self.backend.preflight(case)  # engine / cluster reachable, backend inputs valid: before anything is written
        archive_preflight = getattr(self.archive, "preflight", None)
        if archive_preflight is not None:
            archive_preflight()  # the store can take the run: before anything is written
        self.events.case_loaded(case)
        started = time.monotonic()
        run_id = new_run_id()
        seed = case.seed if seed is None else seed
        timeout_s = timeout_s or case.timeout_s
        run_dir = self.archive.staging_dir(case.id, run_id)
        record = RunRecord(
            run_id=run_id, case={"id": case.id, "version": case.version, "path": str(case.path)},
            backend=self.backend.name, started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            seed=seed, fingerprint=fingerprint())
        record.archive_uri = self.archive.run_uri(case.id, run_id)
        plan = (tuple(p for p in layout.PHASES if control or p != "control"), tuple(a.id for a in case.assertions))
        runlock.acquire(run_dir, record, *plan)  # the first file of the run
        self.events.run_started(run_id, str(run_dir))
        try:
            with self.backend.session(case, run_id=run_id, run_dir=run_dir):  # torn down also on failure
                self._run_phases(case, record, run_dir, control=control, seed=seed, timeout_s=timeout_s,
                                 plan=plan)
            write_metrics_om(run_dir, record, case_id=case.id)  # both phases' time series, before anything reads it
            # after metrics.om (faultlib.evidence.openmetrics), before the suite: promql.json is claimed, then evaluated
            record.findings += [p.to_finding() for p in record_promql(case.promql, run_dir, evaluate=prometheus)]
            self._assertions(case, record, run_dir)
        except BaseException as exc:  # keep the evidence and say what happened, then re-raise
            reason = ("interrupted (Ctrl-C or SIGTERM)" if isinstance(exc, KeyboardInterrupt)
                      else f"runner failed: {type(exc).__name__}: {exc}")
            record.verdict, record.error = Verdict.ERROR, f"{reason}; the evidence so far is kept"
            try:
                runlock.ensure_junit(run_dir, record, plan[1], record.error)  # CI reads every run's junit.xml
                self._finish(case, record, run_dir, started)
            except RunNotArchived:
                pass  # the evidence waits in run_dir; the interruption is what the caller must see
            except BaseException as failed:  # cannot finish (disk full, a second Ctrl-C): run.lock stays
                exc.add_note(f"the run in {run_dir} could not be finished ({type(failed).__name__}: {failed}); "
                             "once this process has exited, `faultlib archive repair` finishes it "
                             "(faultlib.runlock.finish_interrupted)")
            raise
        self._finish(case, record, run_dir, started)
        return record

    def _run_phases(self, case: Case, record: RunRecord, run_dir: Path, *, control: bool, seed: int,
                    timeout_s: float, plan: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
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
            stops = result.status in (PhaseStatus.TIMEOUT, PhaseStatus.CRASHED)  # no later phase runs
            phases = plan[0][:plan[0].index(phase) + 1] if stops else plan[0]
            runlock.update(run_dir, record, phases, plan[1])  # a killed runner leaves this progress
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
            mirror = [{"shim": s.name, "params": s.params} for s in case.shims] if phase == "control" else None
            env = phase_env(run_dir=run_dir, run_id=record.run_id, case_id=case.id, phase=phase, seed=seed,
                            params=case.params, faults=shims, attempt=number, mirror=mirror)
            outcome = self.backend.run_phase(script=case.script, run_dir=run_dir, phase=phase, env=env,
                                             timeout_s=budget_s,
                                             on_step=lambda s, t, p=phase: self.events.step(p, s, t),
                                             world=case.world)
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
        for name in (layout.JUNIT, layout.ASSERTIONS_LOG):  # the suite's files: whatever a repro put there goes aside
            moved = claim(run_dir, name)
            if moved:
                record.findings.append(problem_from_claim(moved).to_finding())
        if record.error:
            record.verdict = Verdict.ERROR
            _write_error_junit(junit, case, record.error)
            record.assertions = {"passed": [], "failed": [a.id for a in case.assertions]}
            return
        self.events.assertions_started(len(case.assertions))
        status = {p: getattr(record, p).to_json() for p in layout.PHASES}
        with open_append(run_dir, layout.ASSERTIONS_LOG) as out:
            outcome = run_assertion_suite(case, run_dir, status, junit=junit, output=out)
        passed, failed, skipped, failures, suite_ok = _junit_results(junit, case)
        _name_junit(junit, case)
        record.assertions = {"passed": passed, "failed": failed, "skipped": skipped, "failures": failures}
        if outcome.timed_out or not suite_ok or outcome.exit_code not in (0, 1):
            record.verdict = Verdict.ERROR
            record.error = (f"assertion suite did not run cleanly (exit code {outcome.exit_code}): "
                            f"see {run_dir / layout.ASSERTIONS_LOG}")
        else:
            record.verdict = Verdict.PASSED if passed and not failed else Verdict.FAILED
        self.events.assertions_finished(passed, failed)

    def _finish(self, case: Case, record: RunRecord, run_dir: Path, started: float) -> None:
        record.duration_s = time.monotonic() - started
        finish_run(run_dir, record, case_id=case.id, exclude=(runlock.LOCK,))
        runlock.release(run_dir)
        try:
            self.archive.publish(run_dir, case.id, record.run_id)
        except ArchiveError as exc:  # nothing is lost: the record and the evidence are complete in run_dir
            self.events.run_finished(record)
            raise RunNotArchived(record, run_dir, exc) from exc
        self.events.archived(record.archive_uri)
        self.events.run_finished(record)
