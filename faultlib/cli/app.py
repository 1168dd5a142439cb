"""The ``faultlib`` command line (click + rich). Heavy libraries load inside commands, never at import.

Exit codes: 0 passed / nothing found; 1 a case failed or a finding was raised; 2 bad usage
or bad input; 3 a backend or archive was unreachable.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from faultlib.text import printable  # noqa: F401 (the CLI modules import it from here)
from faultlib import __version__
from faultlib.cli.params import SEED, TIMEOUT_S
from faultlib.errors import CaseError, FaultlibError, RunNotArchived

def _console(*, to_stderr: bool) -> Console:
    """Paths and ids are never broken mid-name (soft wrap); piped output is 200 columns wide, not 80."""
    stream = sys.stderr if to_stderr else sys.stdout
    return Console(stderr=to_stderr, soft_wrap=True, width=None if stream.isatty() else 200)


stdout = _console(to_stderr=False)
stderr = _console(to_stderr=True)
_state = {"json": False, "debug": False}

DEFAULT_CASES = Path("cases")
CASE_DIR = click.Path(path_type=Path)


def _emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="faultlib")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def app(debug: bool) -> None:
    """Reproduce ML-system failures, catch them with detectors, and archive the evidence.

    Start with: faultlib run cases/fp16_overflow

    Exit codes: 0 passed, 1 failed (or a finding), 2 bad usage or input, 3 backend or archive unreachable.
    """
    _state["debug"] = debug


def _print_run_objects(case, backend, *, seed: int | None, timeout: float | None, control: bool,
                       as_json: bool) -> int:
    """``run --dry-run``: the Kubernetes objects of a run as YAML documents on stdout; no cluster needed."""
    from faultlib.backends.kube_manifests import to_yaml
    from faultlib.runner import new_run_id

    if backend.name != "kubernetes":
        raise click.UsageError("--dry-run prints the Kubernetes objects of a run: use it with --backend kubernetes")
    if as_json:
        raise click.UsageError("--dry-run prints YAML documents: leave out --json")
    objects = backend.render(case, run_id=new_run_id(), seed=seed, timeout_s=timeout, control=control)
    if backend.crd_dir is None and any(o["apiVersion"].startswith("chaos-mesh.org/") for o in objects):
        stderr.print("note: the Chaos Mesh objects were not validated: pass --crd-dir DIR (Chaos Mesh's "
                     "config/crd/bases) to validate them against the CRD schemas", markup=False, highlight=False)
    sys.stdout.write(to_yaml(objects))
    return 0


@app.command()
@click.argument("case_dir", type=CASE_DIR)
@click.option("--backend", type=click.Choice(["local", "compose", "kubernetes"]), default="local", show_default=True,
              help="Where the phases run.")
@click.option("--archive", metavar="URI", default=None,
              help="file://DIR or s3://BUCKET/PREFIX (default file://.faultlib/runs).")
@click.option("--no-control", is_flag=True, help="Skip the control run (and its false-positive check).")
@click.option("--seed", type=SEED, default=None, help="Override repro.seed (0 to 2**32-1).")
@click.option("--timeout", type=TIMEOUT_S, default=None, metavar="SECONDS",
              help="Per-phase timeout in seconds, finite, at most 86400 (default repro.timeout_s).")
@click.option("--prometheus", is_flag=True,
              help="Evaluate the case's PromQL with a real Prometheus over the run's metrics (promql.json; "
                   "needs promtool and prometheus: apt-get install -y --no-install-recommends prometheus; "
                   "exit 3 before the run when they are missing).")
@click.option("--json", "as_json", is_flag=True, help="Print the run record as one JSON object on stdout.")
@click.option("--dry-run", is_flag=True,
              help="kubernetes only: print the run's objects (archive Secret, ConfigMap, volume claim, topology "
                   "Deployments and Services, Jobs, Chaos Mesh objects) as YAML and exit.")
@click.option("--image", metavar="IMAGE", default=None,
              help="compose, kubernetes: the repro image (default faultlib/trainer:0.1).")
@click.option("--namespace", metavar="NS", default=None, help="kubernetes only: namespace of the run's objects, "
              "a DNS label (default 'default').")
@click.option("--crd-dir", type=click.Path(path_type=Path), default=None,
              help="kubernetes only: Chaos Mesh CRD manifests to validate the chaos objects against "
                   "(default: the API server's dry run).")
@click.option("--storage-class", metavar="CLASS", default=None,
              help="kubernetes only: StorageClass of the run's volume (default: the cluster's default class).")
@click.option("--volume-size", metavar="SIZE", default=None,
              help="kubernetes only: size of the run's volume, a Kubernetes quantity (default 1Gi).")
def run(case_dir: Path, backend: str, archive: str | None, no_control: bool, seed: int | None,
        timeout: float | None, prometheus: bool, as_json: bool, dry_run: bool, image: str | None,
        namespace: str | None, crd_dir: Path | None, storage_class: str | None, volume_size: str | None) -> int:
    """Run a case: control run, faulted run, assertion suite; archive the evidence.

    Exit code 0 when the verdict is passed, 1 when it is failed or error, 3 when it passed but the
    archive could not be reached (the evidence then waits in the local spool: faultlib archive flush URI).
    """
    from faultlib.archive import open_archive
    from faultlib.backends import get_backend
    from faultlib.cases import load_case
    from faultlib.cli.progress import RichProgress, print_summary
    from faultlib.record import Verdict
    from faultlib.runner import Runner

    _state["json"] = as_json
    case = load_case(case_dir)
    if prometheus and not dry_run:
        from faultlib.observability.prometheus import require_binaries

        require_binaries()  # exit 3 before the run, not a finding after it
    runner_backend = get_backend(backend, image=image, namespace=namespace, crd_dir=crd_dir,
                                 storage_class=storage_class, volume_size=volume_size, archive=archive)
    if dry_run:
        return _print_run_objects(case, runner_backend, seed=seed, timeout=timeout, control=not no_control,
                                  as_json=as_json)
    store = open_archive(archive)
    listener = None if as_json else RichProgress(stderr)
    not_archived = None
    try:
        record = Runner(store, backend=runner_backend, listener=listener).run(
            case, control=not no_control, seed=seed, timeout_s=timeout, prometheus=prometheus)
    except RunNotArchived as exc:  # the run is complete in the spool: report it, then say how to flush it
        record, not_archived = exc.record, exc
    if as_json:
        _emit_json(record.to_json())
    else:
        print_summary(stdout, record, str(not_archived.run_dir) if not_archived else record.archive_uri)
    verdict_code = 0 if record.verdict is Verdict.PASSED else 1
    if not_archived:
        stderr.print(f"error: {not_archived}", markup=False, highlight=False, soft_wrap=True)
        return verdict_code or not_archived.exit_code
    return verdict_code


@app.command("list")
@click.argument("cases_dir", type=CASE_DIR, default=DEFAULT_CASES)
@click.option("--fault-class", metavar="PREFIX", default=None, help="Only fault classes starting with PREFIX.")
@click.option("--json", "as_json", is_flag=True, help='Print {"cases": [...]} on stdout.')
def list_cases(cases_dir: Path, fault_class: str | None, as_json: bool) -> int:
    """List the catalog (default ./cases) as a table or JSON."""
    from faultlib.cases import discover, load_case
    _state["json"] = as_json
    if not cases_dir.is_dir():
        raise CaseError("catalog directory not found: pass the folder holding the case directories",
                        path=cases_dir)
    cases, broken = [], []
    for path in discover(cases_dir):
        try:
            case = load_case(path)
        except FaultlibError as exc:
            broken.append(exc)
            continue
        if fault_class and not case.fault_class.startswith(fault_class):
            continue
        cases.append(case)
    rows = [{"id": c.id, "version": c.version, "fault_class": c.fault_class, "severity": c.severity,
             "title": c.title, "path": str(c.path)} for c in cases]
    if as_json:
        _emit_json({"cases": rows, "invalid": [str(e) for e in broken]})
    else:
        table = Table(show_edge=False)
        for column in ("id", "version", "fault_class", "severity"):
            table.add_column(column, no_wrap=True)
        table.add_column("title")
        for row in rows:
            table.add_row(*(Text(str(row[k])) for k in ("id", "version", "fault_class", "severity", "title")))
        stdout.print(table)
        for exc in broken:
            stderr.print(f"invalid case: {printable(str(exc))}", markup=False, highlight=False)
    return 2 if broken else 0


@app.command()
@click.argument("case_dirs", nargs=-1, type=CASE_DIR)
@click.option("--archive", metavar="URI", default=None,
              help="Check spans and metrics against each case's last run in this archive "
                   "(default file://.faultlib/runs; no run there: not checked).")
@click.option("-v", "--verbose", is_flag=True,
              help="Also print, per case, what was not checked and the run it was checked against.")
@click.option("--json", "as_json", is_flag=True, help='Print {"ok", "cases": [...], "notes": [...]} on stdout.')
def validate(case_dirs: tuple[Path, ...], archive: str | None, verbose: bool, as_json: bool) -> int:
    """Validate case directories (default: every case in ./cases).

    Beyond the schema and the case's files, it proves the observability block: every PromQL query
    parses (promtool when installed, promql-parser always) and reads only declared metrics; every
    Grafana panel exists in the checked-in dashboard with the case's query (compose/grafana/dashboards
    beside the catalog) and has an id no other case of its family claims; every span and metric
    appears in the case's last archived run (when there is one).

    Prints every problem as file:line: field: message and exits 2 if there is one.
    """
    from faultlib.cases.loader import ValidationContext, discover, validate_case

    _state["json"] = as_json
    paths = [p for d in (case_dirs or [DEFAULT_CASES]) for p in (discover(d) or [d])]
    context = ValidationContext(archive)
    reports = [validate_case(path, context) for path in paths]
    bad = sum(not r.ok for r in reports)
    if as_json:
        _emit_json({"ok": not bad, "cases": [r.to_json() for r in reports], "notes": context.notes})
        return 2 if bad else 0
    for path, report in zip(paths, reports):
        for problem in report.problems:
            stderr.print(printable(problem.render()), markup=False, highlight=False)
        if report.ok:
            stdout.print(f"ok  {path}", markup=False, highlight=False)
        for note in report.notes if verbose else []:
            stderr.print(f"note: {path}: {printable(note)}", markup=False, highlight=False)
    for note in context.notes:
        stderr.print(f"note: {printable(note)}", markup=False, highlight=False)
    if bad:
        stderr.print(f"{bad} of {len(paths)} case(s) invalid", markup=False)
    return 2 if bad else 0


def _terminate(signum, _frame) -> None:
    """SIGTERM / SIGHUP (a CI cancel, a closed terminal) stop a run the way Ctrl-C does: the
    repro's process group is killed and the run is recorded with verdict error."""
    _state["signal"] = signum
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: maps errors to exit codes in one place."""
    import signal

    from faultlib.archive.credentials import secure_process

    if argv is None:  # the console script: archive keys leave the environment block before anything runs
        secure_process()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _terminate)
    try:
        code = app.main(args=argv, prog_name="faultlib", standalone_mode=False)
    except FaultlibError as exc:
        if _state["debug"]:
            raise
        if _state["json"]:
            _emit_json(exc.to_json())
        else:
            stderr.print(f"error: {printable(str(exc))}", markup=False, highlight=False)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        signum = _state.get("signal") or signal.SIGINT
        stderr.print(f"aborted by {signal.Signals(signum).name}; evidence written so far is kept", markup=False)
        sys.exit(128 + signum)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)


# each command group lives in its own module and registers itself on ``app`` when imported
from faultlib.cli import archive as _archive, check as _check, dashboards as _dashboards, new as _new, regress as _regress, shims as _shims, trace as _trace  # noqa: E402,F401,E501
from faultlib.cli import fingerprint as _fingerprint  # noqa: E402,F401
from faultlib.cli import regen as _regen  # noqa: E402,F401
