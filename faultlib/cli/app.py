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

from faultlib import __version__
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


@app.group("archive")
def archive_app() -> None:
    """List, fetch and flush archived runs (file://DIR or s3://BUCKET/PREFIX)."""


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
    if backend.crd_dir is None and any(o["kind"] not in ("ConfigMap", "Job") for o in objects):
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
@click.option("--seed", type=int, default=None, help="Override repro.seed.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Per-phase timeout (default repro.timeout_s).")
@click.option("--json", "as_json", is_flag=True, help="Print the run record as one JSON object on stdout.")
@click.option("--dry-run", is_flag=True,
              help="kubernetes: print the run's objects (ConfigMap, Jobs, Chaos Mesh objects) as YAML and exit.")
@click.option("--image", metavar="IMAGE", default=None,
              help="compose, kubernetes: the repro image (default faultlib/trainer:0.1).")
@click.option("--namespace", metavar="NS", default=None, help="kubernetes: namespace of the run's objects "
              "(default 'default').")
@click.option("--crd-dir", type=click.Path(path_type=Path), default=None,
              help="kubernetes: Chaos Mesh CRD manifests to validate the chaos objects against "
                   "(default: the API server's dry run).")
def run(case_dir: Path, backend: str, archive: str | None, no_control: bool, seed: int | None,
        timeout: float | None, as_json: bool, dry_run: bool, image: str | None, namespace: str | None,
        crd_dir: Path | None) -> int:
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
    runner_backend = get_backend(backend, image=image, namespace=namespace, crd_dir=crd_dir)
    if dry_run:
        return _print_run_objects(case, runner_backend, seed=seed, timeout=timeout, control=not no_control,
                                  as_json=as_json)
    store = open_archive(archive)
    listener = None if as_json else RichProgress(stderr)
    not_archived = None
    try:
        record = Runner(store, backend=runner_backend, listener=listener).run(
            case, control=not no_control, seed=seed, timeout_s=timeout)
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


@app.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object on stdout "
              "(the script's own stdout then goes to stderr).")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None, help="Also write the report to this file.")
@click.option("--continue", "keep_going", is_flag=True, help="Do not stop at the first non-finite value: "
              "count the steps that have one.")
@click.option("--dump-dir", type=click.Path(path_type=Path), default=None,
              help="Where to write dump.pt (default .faultlib/trace/<time>/).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def trace(as_json: bool, out: Path | None, keep_going: bool, dump_dir: Path | None, command: tuple[str, ...]) -> int:
    """Find the first NaN/inf in an unmodified script: faultlib trace -- python train.py ARGS.

    Names the step, forward or backward, the innermost module, the op (aten::sqrt or
    SqrtBackward0) and your source line, and writes a dump to replay the step. Exit code 1 when
    a non-finite value was found, 0 when the run stayed finite, the script's own exit code when
    it failed for another reason, 2 when the script does not exist.
    """
    from faultlib.trace import trace_script

    _state["json"] = as_json
    report = trace_script(list(command), keep_going=keep_going, dump_dir=dump_dir,
                          stdout=sys.stderr if as_json else None)
    data = report.to_json()
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=2))
    if as_json:
        _emit_json(data)
    else:
        _print_trace(report)
    if not report.ok:
        return 1
    return report.script_exit


def _print_trace(report) -> None:
    for note in report.notes:
        stderr.print(f"note: {note}", markup=False, highlight=False)
    if report.ok:
        if report.script_exit:
            stderr.print(f"no non-finite value seen; the script exited with code {report.script_exit}",
                         markup=False)
        else:
            stdout.print("[green]ok[/]: no non-finite value in any forward, backward or optimizer step")
        return
    first = report.first_nonfinite
    tensor = first.get("tensor") or {}
    kind = "NaN" if tensor.get("nan") else "inf"
    module = first["module"] or "(outside any module)"
    table = Table(show_header=False, show_edge=False)
    table.add_column(style="bold")
    table.add_column()
    rows = [("first non-finite", f"{kind} at step {first['step']}, {first['phase']}"), ("module", module),
            ("op", str(first["op"])), ("source", f"{first['file']}:{first['line']}" if first["file"] else "-")]
    if tensor:
        finite = (f"finite range [{tensor['finite_min']:.4g}, {tensor['finite_max']:.4g}]"
                  if tensor["finite_min"] is not None else "no finite values")
        rows.append(("tensor", f"{tensor['dtype']} {tensor['shape']}: {tensor['nan']} nan, {tensor['inf']} inf, {finite}"))
    if report.tripped_steps > 1:
        rows.append(("steps with non-finite", str(report.tripped_steps)))
    rows.append(("dump", report.dump or "-"))
    for key, value in rows:
        table.add_row(key, value)
    stdout.print(table)


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
            table.add_row(row["id"], row["version"], row["fault_class"], row["severity"], row["title"])
        stdout.print(table)
        for exc in broken:
            stderr.print(f"invalid case: {exc}", markup=False, highlight=False)
    return 2 if broken else 0


@app.command()
@click.argument("case_dirs", nargs=-1, type=CASE_DIR)
def validate(case_dirs: tuple[Path, ...]) -> int:
    """Validate case directories (default: every case in ./cases).

    Prints every problem as file:line: field: message and exits 2 if there is one.
    """
    from faultlib.cases import discover, load_case

    paths = [p for d in (case_dirs or [DEFAULT_CASES]) for p in (discover(d) or [d])]
    bad = 0
    for path in paths:
        try:
            load_case(path)
        except FaultlibError as exc:
            bad += 1
            stderr.print(str(exc), markup=False, highlight=False)
        else:
            stdout.print(f"ok  {path}", markup=False, highlight=False)
    if bad:
        stderr.print(f"{bad} of {len(paths)} case(s) invalid", markup=False)
    return 2 if bad else 0


@archive_app.command("ls")
@click.argument("uri", required=False)
@click.option("--json", "as_json", is_flag=True, help='Print {"runs": [...]} on stdout.')
def archive_ls(uri: str | None, as_json: bool) -> int:
    """List archived runs (default archive file://.faultlib/runs).

    A run without manifest.json is incomplete: killed, or still being written.
    """
    from faultlib.archive import open_archive

    _state["json"] = as_json
    runs = open_archive(uri).list_runs()
    if as_json:
        _emit_json({"runs": [r.to_json() for r in runs]})
        return 0
    table = Table(show_edge=False)
    for column in ("case", "run_id", "complete", "started_at", "verdict"):
        table.add_column(column, no_wrap=True)
    for r in runs:
        table.add_row(r.case, r.run_id, "yes" if r.complete else "[red]no[/]", r.started_at or "-", r.verdict or "-")
    stdout.print(table)
    return 0


@archive_app.command("get")
@click.argument("uri")
@click.argument("case_id")
@click.argument("run_id")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Write the run into OUT/CASE_ID/RUN_ID/.")
def archive_get(uri: str, case_id: str, run_id: str, out: Path) -> int:
    """Download a run and verify every file against its manifest (size and sha256).

    Exit code 2 when the run is incomplete or a file differs (the message names it), 3 when the store
    cannot be reached.
    """
    from faultlib.archive import open_archive

    run_dir = open_archive(uri).get(case_id, run_id, out)
    count = sum(1 for p in run_dir.rglob("*") if p.is_file())
    stdout.print(f"{case_id}/{run_id}: {count} files verified -> {run_dir}", markup=False, highlight=False)
    return 0


@archive_app.command("flush")
@click.argument("uri")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"flushed": [...], "uploaded_files": N, "incomplete": [...], "damaged": [...]}.')
def archive_flush(uri: str, as_json: bool) -> int:
    """Upload the runs waiting in the local spool for URI (left there when the store was down).

    Files the store already holds with the same size and sha256 are not sent again, so flushing
    twice uploads nothing the second time. Exit code 3 when the store cannot be reached (the runs
    stay spooled), 2 when a spooled run no longer matches its manifest (it is left alone).
    """
    from faultlib.archive import open_archive

    _state["json"] = as_json
    report = open_archive(uri).flush()
    if as_json:
        _emit_json(report.to_json())
    else:
        for run in report.flushed:
            stdout.print(f"flushed {run.case}/{run.run_id}: {run.uploaded} file(s) uploaded, "
                         f"{run.already_stored} already stored", markup=False, highlight=False)
        if not report.flushed:
            stdout.print("nothing to flush")
        for path in report.incomplete:
            stderr.print(f"skipped {path}: no manifest.json (killed or still running)", markup=False,
                         highlight=False)
    for path, problem in report.damaged:
        stderr.print(f"error: not flushed: {problem}", markup=False, highlight=False)
    return 2 if report.damaged else 0


def _terminate(signum, _frame) -> None:
    """SIGTERM / SIGHUP (a CI cancel, a closed terminal) stop a run the way Ctrl-C does: the
    repro's process group is killed and the run is recorded with verdict error."""
    _state["signal"] = signum
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: maps errors to exit codes in one place."""
    import signal

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
            stderr.print(f"error: {exc}", markup=False, highlight=False)
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
