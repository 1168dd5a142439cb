"""``faultlib regen --since OLD``: re-run the cases a dependency change affects, re-verify those that pass.

Nothing runs and nothing is written before everything is read and checked: the old fingerprint
(a ``faultlib fingerprint`` file or a ``run.json``; unreadable or not a fingerprint: exit 2), the catalog,
the ``--traces`` file (exit 2 when it is not OTLP/JSON), the backend options and the output paths;
then the archive is checked once (unreachable: exit 3). The selected cases run through the regress
worker pool (same live table, ``--jobs``, ``--backend``, ``--archive``). Evidence already written is
never removed. A case.yaml is rewritten only for a case that passed, only in its ``version`` and
``verified_with`` fields, atomically, and only if nobody edited it while the case ran
(:mod:`faultlib.regen.rewrite`). ``--dry-run`` prints the selection and the case.yaml diffs that
would apply, and runs and writes nothing.

Exit codes: 0 every selected case passed and was updated (or nothing was selected); 1 a case no
longer reproduces, its control run raised a finding, or its case.yaml could not be updated; 2 bad
usage or input; 3 the backend or the archive could not be reached.

``--json`` prints one object: ``{"since": path, "diff": FingerprintDiff.to_json(), "known_changes":
[{package, version, summary, reference}], "selected": [{"case", "reasons": [{kind, name, old, new}]}],
"results": [{"case", "status" (updated|failed|skipped|unreachable), "verdict", "reason", "changes",
"known_changes", "control_findings", "run", "updated": {path, version: [old, new], verified_with} | null}],
"proposals": [{"edge", "endpoint", "shim", "chaos", "validated", "problems"}], "covered": [{parent,
child, cases}], "dry_run": bool, "exit_code": int}``; with ``--dry-run`` also ``"would_update":
[{"case", "version": [old, new], "diff", "error"}]`` and empty ``results``.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.text import Text

from faultlib.cli.root import CASE_DIR, DEFAULT_CASES
from faultlib.console import emit_json, state, stderr, stdout
from faultlib.text import printable
from faultlib.cli.regress import RegressProgress
from faultlib.outputs import output_file

_STATUS_STYLE = {"updated": "bold green", "would update": "green", "failed": "bold red", "skipped": "dim",
                 "unreachable": "bold yellow"}


def _text(value, style: str = "") -> Text:
    """Text of a fingerprint, trace or case value: control characters escaped, never markup."""
    return Text(_one_line(str(value)), style)


def _one_line(text: str) -> str:
    """``text`` made printable, its line breaks shown as ``\\n``: a fingerprint or trace value never starts a line."""
    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


def _line(console, *parts) -> None:
    """One line of ``parts`` (strings, or ``(string, style)``), control characters escaped."""
    safe = [(_one_line(p[0]), p[1]) if isinstance(p, tuple) else _one_line(str(p)) for p in parts]
    console.print(Text.assemble(*safe), highlight=False, soft_wrap=True)


def _print_selection(since: Path, diff, known, selection) -> None:
    from faultlib.regen.select import global_reasons

    everything = global_reasons(diff) if diff.selects_all() else []
    _line(stdout, f"since {since}: {len(diff.packages)} package(s) changed; {len(selection.cases)} of "
                  f"{selection.catalog_size} case(s) selected")
    for reason in everything:
        _line(stdout, ("every case: ", "bold"), str(reason))
    if not selection.cases:
        _line(stdout, "no case requires a changed package: nothing to re-run")
    for selected in selection.cases:
        own = [str(r) for r in selected.reasons if r.kind == "package"]
        _line(stdout, (selected.id, "bold"), ": ", "; ".join(own) or "(the change above)")
    for change in known:
        _line(stdout, "known change crossed: ", (f"{change.package} {change.version}", "bold"),
              f": {change.summary} ({change.reference})")


def _print_outcomes(outcomes) -> None:
    if not outcomes:
        return
    from rich.table import Table

    table = Table(show_edge=False)
    for column in ("case", "status", "verdict", "case.yaml / reason"):
        table.add_column(column, no_wrap=column != "case.yaml / reason")
    for outcome in outcomes:
        edit = outcome.edit
        what = (f"version {edit.old_version} -> {edit.new_version}, verified_with updated" if edit else
                (outcome.reason or "").splitlines()[0] if outcome.reason else "")
        table.add_row(_text(outcome.id), _text(outcome.status, _STATUS_STYLE.get(outcome.status, "")),
                      _text(outcome.verdict), _text(what))
    stdout.print(table)
    for outcome in outcomes:
        if outcome.status != "failed":
            continue
        _line(stdout, ("FAILED ", "bold red"), (outcome.id, "bold"), f": {(outcome.reason or '').splitlines()[0]}"
              if outcome.reason else "")
        for reason in outcome.selected.reasons:
            _line(stdout, f"  changed: {reason}")
        for change in outcome.known:
            _line(stdout, f"  known change: {change.package} {change.version}: {change.summary} ({change.reference})")
        if outcome.run:
            _line(stdout, f"  evidence: {outcome.run}")


def _print_proposals(found, crd_dir: Path | None) -> None:
    _line(stdout, f"traces {found.trace}: {found.graph.spans} span(s), {len(found.graph.edges)} call edge(s), "
                  f"{len(found.covered)} covered by the catalog, {len(found.proposals)} proposed injection point(s)")
    if not found.proposals:
        return
    from rich.table import Table

    table = Table(show_edge=False)
    for column in ("caller", "callee", "calls", "errors", "P99 (ms)", "local shim", "Chaos Mesh twin", "schema"):
        table.add_column(column, no_wrap=column in ("caller", "callee"))
    for p in found.proposals:
        (ps, po), (cs, co) = p.edge
        params = p.shim["params"]
        delay = p.chaos["spec"]["delay"]
        schema = {True: "valid", False: "INVALID", None: "not checked"}[p.validated]
        table.add_row(_text(f"{ps}/{po}"), _text(f"{cs}/{co}"), str(p.stats["count"]), str(p.stats["errors"]),
                      f"{p.stats['p99_ms']:.1f}",
                      _text(f"{p.shim['shim']} endpoint={params['endpoint']} latency_ms={params['latency_ms']}"),
                      _text(f"{p.chaos['kind']} {p.chaos['name']} {p.chaos['spec']['action']} {delay['latency']}"),
                      _text(schema, "green" if p.validated else "red" if p.validated is False else "dim"))
    stdout.print(table)
    for p in found.proposals:
        for problem in p.problems:
            _line(stdout, ("schema problem: ", "red"), f"{p.chaos['kind']} {p.chaos['name']}: {problem}")
    if crd_dir is None:
        _line(stdout, "note: the Chaos Mesh objects were not validated: pass --crd-dir DIR (Chaos Mesh's "
                      "config/crd/bases) to check them against the CRD schemas")
    _line(stdout, "nothing was written: `faultlib new NAME --from-trace TRACE` turns the trace's most suspicious "
                  "edge into a case")


@click.command("regen")
@click.option("--since", "since", type=click.Path(path_type=Path, dir_okay=False), required=True, metavar="OLD.json",
              help="The old fingerprint: a `faultlib fingerprint --out` file or a run.json.")
@click.option("--cases", "cases_dir", type=CASE_DIR, default=DEFAULT_CASES, show_default=True,
              help="The catalog: the folder holding the case directories.")
@click.option("--traces", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="NEW.json",
              help="OTLP/JSON traces: propose an injection point for every call edge no case covers.")
@click.option("--crd-dir", type=click.Path(path_type=Path), default=None,
              help="Chaos Mesh CRD manifests to validate the proposed objects against (and, with --backend "
                   "kubernetes, the runs' chaos objects).")
@click.option("--dry-run", is_flag=True, help="Print the selection and the case.yaml diffs that would apply; "
                                              "run nothing, write nothing.")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True, help="Cases run at once.")
@click.option("--backend", type=click.Choice(["local", "compose", "kubernetes"]), default="local", show_default=True,
              help="Where each case's phases run.")
@click.option("--archive", metavar="URI", default=None,
              help="file://DIR or s3://BUCKET/PREFIX (default file://.faultlib/runs); checked once before any "
                   "case runs.")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="FILE",
              help="Write JUnit XML of the re-run cases.")
@click.option("--report", "report_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              metavar="FILE.html", help="Write the HTML report of the re-run cases.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {since, diff, known_changes, selected, results, proposals, ...} on stdout.")
def regen(since: Path, cases_dir: Path, traces: Path | None, crd_dir: Path | None, dry_run: bool, jobs: int,
          backend: str, archive: str | None, junit_path: Path | None, report_path: Path | None, as_json: bool) -> int:
    """Re-run the cases whose required packages changed since OLD.json; re-verify those that pass.

    Selects every case whose requires.packages names a package whose version changed (all of them
    when Python, torch or CUDA changed), prints why, and the known behaviour changes the upgrade
    crosses. Each selected case then runs (control and faulted) as in `faultlib regress`. A case that
    passes gets verified_with (Python and its packages, as installed now) and a PATCH version bump in
    its case.yaml; a case that no longer reproduces, or whose control run raised a finding, is reported
    with the package changes it requires (exit 1).
    """
    from faultlib.archive import open_archive
    from faultlib.backends import get_backend
    from faultlib.fingerprint import collect, known_changes, load
    from faultlib.fingerprint import diff as fingerprint_diff
    from faultlib.readers import read_text
    from faultlib.regen import conclude, exit_code, propose, select
    from faultlib.regress import junit, report
    from faultlib.regress.plan import plan
    from faultlib.regress.pool import Pool, RunOptions

    state["json"] = as_json
    state["writes_evidence"] = True  # an interrupted run keeps what it wrote (said on Ctrl-C or SIGTERM)
    old = load(since)
    current = collect()
    diff = fingerprint_diff(old, current)
    known = known_changes(diff)
    catalog = plan(cases_dir)
    selection = select(catalog, diff)
    found = propose(traces, [p.case for p in catalog.cases if p.case], crd_dir=crd_dir) if traces else None
    out = {"since": str(since), "diff": diff.to_json(), "known_changes": [k.to_json() for k in known],
           "selected": [s.to_json() for s in selection.cases], "dry_run": dry_run, "results": [],
           "proposals": [p.to_json() for p in found.proposals] if found else [],
           "covered": found.to_json()["covered"] if found else []}
    if dry_run:
        return _dry_run(since, diff, known, selection, current, found, crd_dir, out, as_json)

    options = {"crd_dir": crd_dir if backend == "kubernetes" else None}
    get_backend(backend, archive=archive, **options)  # unknown or misapplied options: exit 2 before anything runs
    junit_out = output_file(junit_path, "--junit", parents=True, reads=(cases_dir,)) if junit_path else None
    report_out = output_file(report_path, "--report", parents=True, reads=(cases_dir,)) if report_path else None
    if not as_json:
        _print_selection(since, diff, known, selection)
    result, outcomes = None, []
    if selection.cases:
        open_archive(archive).preflight()  # once, before any case: unreachable is exit 3, unusable exit 2
        texts = {s.id: read_text(Path(s.planned.path) / "case.yaml") for s in selection.cases if s.planned.case}
        progress = RegressProgress(stderr)
        run_options = RunOptions(archive=archive, backend=backend, backend_options=options, control=True,
                                 report=True)
        try:
            result = Pool(selection.plan(catalog), run_options, jobs=jobs, listener=progress).run()
        finally:
            progress.close()
        if not result.interrupted:
            outcomes = conclude(selection, result, current, known, texts=texts)
        written = []
        if junit_out is not None:
            written.append(f"junit: {junit.write(junit_out, result)}")
        if report_out is not None:
            written.append(f"report: {report.write(report_out, result)}")
        for line in written:
            stderr.print(_text(line), highlight=False)
        if result.interrupted:
            raise KeyboardInterrupt  # the CLI reports it and exits 128 + the signal, as `faultlib regress` does
    code = exit_code(outcomes, result)
    out["results"] = [o.to_json() for o in outcomes]
    out["exit_code"] = code
    if as_json:
        emit_json(out)
        return code
    _print_outcomes(outcomes)
    if found is not None:
        _print_proposals(found, crd_dir)
    return code


def _dry_run(since: Path, diff, known, selection, current, found, crd_dir: Path | None, out: dict,
             as_json: bool) -> int:
    """``--dry-run``: the selection, the case.yaml diffs a pass would apply, the proposals; nothing runs or is
    written."""
    from faultlib.errors import FaultlibError
    from faultlib.regen import required_packages, update_case, verified_versions

    updates = []
    for selected in selection.cases:
        entry = {"case": selected.id, "diff": None, "version": None, "error": None}
        if selected.planned.case is None:
            entry["error"] = f"invalid case: {selected.planned.error}"
        else:
            try:
                edit = update_case(selected.planned.path,
                                   verified_versions(required_packages(selected.planned), current), dry_run=True)
                entry.update(diff=edit.diff(), version=[edit.old_version, edit.new_version])
            except FaultlibError as exc:
                entry["error"] = str(exc)
        updates.append(entry)
    out["would_update"] = updates
    out["exit_code"] = 0
    if as_json:
        emit_json(out)
        return 0
    _print_selection(since, diff, known, selection)
    for entry in updates:
        if entry["error"]:
            _line(stdout, (entry["case"], "bold"), (f": not updatable: {entry['error']}", "red"))
        else:
            _line(stdout, (entry["case"], "bold"), f": if it passes, version {entry['version'][0]} -> "
                                                   f"{entry['version'][1]}:")
            for line in entry["diff"].splitlines():  # a unified diff is read line by line: each one escaped alone
                stdout.print(_text(line), highlight=False, soft_wrap=True)
    if found is not None:
        _print_proposals(found, crd_dir)
    _line(stdout, "dry run: nothing was run or written")
    return 0
