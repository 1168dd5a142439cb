"""``faultlib trace``: find the first NaN/inf in an unmodified script; with ``--asyncio``, the calls that
block its event loops."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import click
from rich.text import Text

from faultlib.cli.params import FiniteFloat
from faultlib.console import emit_json, state, stderr, stdout
from faultlib.outputs import output_dir, output_file
from faultlib.text import inline
from faultlib.trace.session import EXIT_CODES

TRACE_HELP = """Find the first NaN/inf in an unmodified script: faultlib trace -- python train.py ARGS.

Names the step, forward or backward, the innermost module, the op (aten::sqrt or SqrtBackward0)
and your source line, or says that the value was already in the input batch; writes a dump that
replays the step and its loss. The script runs twice (the second run, the replay, locates the
op; its output follows a separator line on stderr).

With --asyncio (faultlib trace --asyncio -- python server.py): the script runs once with a
watchdog on every asyncio event loop; each time a loop is blocked past --threshold-ms (default
50 ms, the W3C Long Tasks threshold) its stack is sampled, and the report names the function,
file, line and call that blocked it (exit code 1). No NaN checks then, and torch is not needed.

A torchrun world (faultlib trace -- torchrun --nproc-per-node 2 train.py ARGS, or python -m
torch.distributed.run ...): every rank is watched and its collectives checked; the report names
the rank that produced the value first and, for each other rank, the collective that brought it
(op, sequence number); the replay runs the world again. Per-rank results: DUMP_DIR/rank<R>.json.
A plain python script that starts its world with torch.multiprocessing.spawn is traced the same
way, rank by rank.

GradScaler misuse (clipping before scaler.unscale_, scaler.step without a scaled backward,
fp16 master weights, an eps that is 0 in the dtype) is listed as findings with your file and
line and the fix; it does not change the exit code.

\b
Exit codes:
""" + "\n".join(textwrap.fill(meaning, 76, initial_indent=f"  {code:<6} ", subsequent_indent=" " * 9)
                for code, meaning in EXIT_CODES.items())


@click.command("trace", help=TRACE_HELP, context_settings={"ignore_unknown_options": True,
                                                         "allow_interspersed_args": False})
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object on stdout "
              "(the script's own stdout then goes to stderr).")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Also write the report to this file (checked before the script runs).")
@click.option("--continue", "keep_going", is_flag=True, help="Do not stop at the first non-finite value: "
              "count the steps that have one.")
@click.option("--dump-dir", type=click.Path(path_type=Path), default=None,
              help="Where to write dump.pt (default .faultlib/trace/<time>/).")
@click.option("--quiet-replay", is_flag=True, help="Hide the replay's stdout and stderr (the script's output "
              "then appears once).")
@click.option("--asyncio", "watch_loops", is_flag=True, help="Watch the script's asyncio event loops instead: "
              "report every call that blocked a loop past --threshold-ms (function, file, line, call).")
@click.option("--threshold-ms", type=FiniteFloat(1.0, 60_000.0, min_open=False), default=None, metavar="MS",
              help="With --asyncio: a loop this late is blocked, in ms (default 50, the W3C Long Tasks threshold).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def trace(as_json: bool, out: Path | None, keep_going: bool, dump_dir: Path | None, quiet_replay: bool,
          watch_loops: bool, threshold_ms: float | None, command: tuple[str, ...]) -> int:
    from faultlib.trace import trace_command

    state["json"] = as_json
    if watch_loops:
        given = [name for name, on in (("--continue", keep_going), ("--dump-dir", dump_dir is not None),
                                       ("--quiet-replay", quiet_replay)) if on]
        if given:
            raise click.UsageError(f"{', '.join(given)} go(es) with the NaN trace, not with --asyncio")
    elif threshold_ms is not None:
        raise click.UsageError("--threshold-ms goes with --asyncio")
    reads = tuple(arg for arg in command if arg.endswith(".py"))  # --out train.py would replace the script
    target = output_file(out, "--out", parents=True, reads=reads) if out is not None else None  # before it runs
    if dump_dir is not None:
        output_dir(dump_dir, "--dump-dir", create=False)  # no symbolic link on the way (faultlib.outputs' rule)
    if watch_loops:
        from faultlib.trace.loop import trace_asyncio

        report = trace_asyncio(list(command), threshold_ms=threshold_ms or 50.0,
                               stdout=sys.stderr if as_json else None)
    else:
        report = trace_command(list(command), keep_going=keep_going, dump_dir=dump_dir,
                              stdout=sys.stderr if as_json else None, quiet_replay=quiet_replay,
                              on_replay=_announce_replay)
    data = report.to_json()
    if target is not None:
        target.write_text(json.dumps(data, indent=2))
    if as_json:
        emit_json(data)
    elif watch_loops:
        _print_loop_trace(report)
    else:
        _print_trace(report)
    return report.exit_code


def _print_loop_trace(report) -> None:
    """The human report of ``trace --asyncio``: one row per blocking site, then the lag."""
    for note in report.notes:
        stderr.print(Text(f"note: {note}"))
    if report.reason is not None and report.first_block is None:
        stderr.print(Text(f"error: {_failure(report)}"))
    blocked = [f for f in report.findings if f.kind == "loop_blocked"]
    if blocked:
        from rich.table import Table

        table = Table(show_edge=False)
        for column in ("function", "where", "call", "blocks", "longest"):
            table.add_column(column, overflow="fold")
        for f in blocked:
            e = f.evidence
            table.add_row(Text(f.location["function"] or "?"), Text(inline(f"{f.location['file']}:{f.location['line']}")),
                          Text(e.get("call") or "-"), Text(str(e["blocks"])), Text(f"{e['max_blocked_ms']:.0f} ms"))
        stdout.print(table)
    it = report.iterations
    summary = (f"loop iterations P50 {it['p50_ms']:.1f} ms, P99 {it['p99_ms']:.1f} ms, max {it['max_ms']:.1f} ms "
               f"over {it['count']}" if it else "no loop iteration measured")
    verdict = (("blocked", "red") if blocked else ("ok", "green"))
    stdout.print(Text.assemble((verdict[0], verdict[1]), f": {report.loops} event loop(s) watched, threshold "
                               f"{report.threshold_ms:g} ms; {summary}"))


def _announce_replay(step: int, quiet: bool, from_step: int | None = None) -> None:
    """The separator between the first run's output and the replay's (stderr): the step the first run saw the value
    at (the report's step unless the replay finds it was written earlier, from ``from_step`` on: then both)."""
    then = "its output is hidden (--quiet-replay)" if quiet else "its output follows"
    since = f", searching from step {from_step} where it may have been written" if from_step not in (None, step) else ""
    sys.stdout.flush()  # whatever went to stdout before comes first, also when both streams share one pipe
    stderr.print(Text(f"──── faultlib trace: replaying the script to locate step {step}{since}; {then} ────"))
    sys.stderr.flush()  # before the replay's own output and the result table


def _print_findings(findings: list[dict]) -> None:
    """GradScaler and mixed-precision misuse: one row per kind and call site, then each fix as a note."""
    if not findings:
        return
    from rich.table import Table

    table = Table(title="GradScaler / mixed-precision misuse", show_edge=False)
    for column in ("kind", "where", "times", "first step"):
        table.add_column(column, overflow="fold")
    for f in findings:
        where = f["location"].get("file")
        where = f"{Path(where).name}:{f['location'].get('line')}" if where else "-"
        e = f["evidence"]
        table.add_row(Text(f["kind"]), Text(inline(where)), Text(str(e.get("count", 1))), Text(str(e.get("first_step", "-"))))
    stdout.print(table)
    for f in findings:
        stderr.print(Text(f"note: {f['severity']}: {f['message']}"))


def _print_children(report, shown: int = 10) -> None:
    """The children that did not end well (an exit code other than 0, a signal, no report), one line each, the first
    ``shown``; the JSON's ``children`` lists every child."""
    bad = [c for c in report.children or () if c.get("exit_code") not in (0, None) or c.get("why_not")]
    for child in bad[:shown]:
        code = child.get("exit_code")
        how = (f"killed by signal {-code}" if isinstance(code, int) and code < 0 else
               f"exit code {code}" if code is not None else "exit code not known")
        why = f" ({child['why_not']})" if child.get("why_not") else ""
        stderr.print(Text(inline(f"child pid {child['pid']}: {how}{why}: {' '.join(child.get('argv') or [])}")))
    if len(bad) > shown:
        stderr.print(Text(f"... and {len(bad) - shown} more child(ren): see `children` in --json"))


def _print_trace(report) -> None:
    for note in report.notes:
        stderr.print(Text(f"note: {note}"))
    _print_children(report)
    _print_findings(report.findings)
    if report.ok and report.nothing_watched:
        stdout.print(Text.assemble(("nothing watched", "yellow"), ": the script ran no model forward and no "
                                   "optimizer step in this process (see the note above)"))
        return
    if report.ok:
        processes = (report.watched or {}).get("processes", 1)
        stdout.print(Text.assemble(("ok", "green"), ": no non-finite value in any forward, backward or optimizer step"
                                   + (f" ({processes} processes traced)" if processes > 1 else "")))
        return
    if report.first_nonfinite is None:
        stderr.print(Text(f"error: {_failure(report)}; no non-finite value seen before it ended"))
        return
    first = report.first_nonfinite
    tensor = first.get("tensor") or {}
    kind = "NaN" if tensor.get("nan") else ("inf" if tensor else "non-finite value")
    rows = [("first non-finite", f"{kind} at step {first['step']}, {first['phase']}"
             + (f", rank {first['rank']}" if first.get("rank") is not None else ""))]
    if first.get("process"):
        rows.append(("process", f"child pid {first['process']['pid']}: {' '.join(first['process']['argv'] or [])}"))
    if first["source"] in ("input", "parameter"):
        where = "the input batch" if first["source"] == "input" else "the model's parameters"
        rows.append(("source", f"already in {where}: {first['input']}"
                     + (f" (batch {first['batch_index']})" if first["batch_index"] is not None else "")))
    if first.get("samples"):  # a DataLoader's batch: which rows, which dataset indices, which worker
        rows.append(("samples", _samples_text(first["samples"])))
    rows += [("module", first["module"] or "(outside any module)"), ("op", first["op"] or "-"),
             ("source line", f"{first['file']}:{first['line']}" if first["file"] else "-")]
    rows += _cause_rows(first)
    if tensor:
        finite = (f"finite range [{tensor['finite_min']:.4g}, {tensor['finite_max']:.4g}]"
                  if tensor["finite_min"] is not None else "no finite values")
        counts = f"{tensor['nan']} nan, {tensor['inf']} inf"
        rows.append(("tensor", f"{tensor['dtype']} {tensor['shape']}: {counts}, {finite}"))
    if report.replay_step is not None and report.replay_step != first["step"]:
        rows.append(("replay step", f"{report.replay_step} (a second run: not the answer)"))
    if report.tripped_steps > 1:
        rows.append(("steps with non-finite", str(report.tripped_steps)))
    rows += _rank_rows(report)
    rows.append(("dump", report.dump or "-"))
    if report.stopped_by_trace:
        rows.append(("script", "stopped by faultlib trace at the first non-finite value"))
    from rich.table import Table

    table = Table(show_header=False, show_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(Text(key), Text(inline(value)))  # a file or argv with a newline cannot split the row
    stdout.print(table)


def _rank_rows(report) -> list[tuple[str, str]]:
    """A torchrun world: the rank that produced the value, then how each other rank got it."""
    rows = []
    for row in report.ranks or ():
        got = row["received"]
        if row["rank"] == report.first_rank:
            what = f"produced it at step {row['step']} ({row['seen_in']})"
        elif got is not None:
            site = got["call_site"]
            where = f", {Path(site['file']).name}:{site['line']}" if site.get("file") else ""
            what = (f"received it through {got['op']} seq {got['seq']} (group {got['group']}) at step "
                    f"{got['step']}{where}")
        elif row["role"] == "producer":
            what = f"also produced one, at step {row['step']} ({row['seen_in']})"
        else:
            what = f"saw none ({row['end']})"
        rows.append((f"rank {row['rank']}", what))
    return rows


def _cause_rows(first: dict) -> list[tuple[str, str]]:
    """The kind when it is not a plain value, one step upstream, the optimizer's update, the gradients reached."""
    rows = []
    if (first.get("seen_in") or "").startswith(("buffer ", "parameter ")):  # no output showed it: the end-of-run check
        rows.append(("seen in", first["seen_in"]))
    if first.get("kind") == "grad_norm_overflow":
        rows.append(("kind", "grad_norm_overflow: the total gradient norm overflowed with every gradient finite; "
                             "clip_grad_norm_ scaled them all by max_norm / inf = 0 (the update was lost)"))
    for up in first.get("upstream") or []:
        rows.append((f"upstream: {up['what']}", str(up["count"]) if "count" in up else
                     f"{up['op']}" + (f" at {up['file']}:{up['line']}" if up.get("file") else "")
                     + (f", from buffer {up['from_buffer']}" if up.get("from_buffer") else "")
                     + (f" registered at {Path(up['buffer_file']).name}:{up['buffer_line']}"
                        if up.get("buffer_file") else "")))
    update = first.get("optimizer")
    if update:
        rows.append(("optimizer", f"{update['optimizer']}, param group {update['param_group']}, parameter "
                                  f"{update['parameter']} ({update['dtype']}, lr={update['lr']}, eps={update['eps']})"))
        rows.append(("cause", update["cause"] or "not a known one (eps, lr): see the op"))
    reached = first.get("gradients_reached")
    if reached and reached["count"]:
        rows.append(("gradients reached", f"{reached['count']} parameter(s): {', '.join(reached['parameters'])}"))
    return rows


def _samples_text(samples: dict) -> str:
    """``{"rows", "dataset_indices", "worker"}`` (:func:`faultlib.trace.loaders.samples_of`) in words."""
    text = f"batch row(s) {', '.join(map(str, samples['rows']))}"
    if samples.get("dataset_indices") is not None:
        text += f" = dataset index(es) {', '.join(map(str, samples['dataset_indices']))}"
    worker = samples.get("worker")
    return text + (f", DataLoader worker {worker}" if worker is not None else ", loaded in the main process")


def _failure(report) -> str:
    """How the script ended, in words, with trace's exit code (said once: a script's own code passes through)."""
    said = _ending(report)
    return said if said.endswith(f"exited with code {report.exit_code}") else f"{said} (exit code {report.exit_code})"


def _ending(report) -> str:
    reason = report.reason.value if report.reason else None
    if reason == "could_not_start":
        return f"the script could not start: {report.error}"
    if reason == "interrupted":
        return f"the script was interrupted ({report.error})"
    if report.error:
        return f"the script raised {report.error}"
    return f"the script exited with code {report.script_exit}"
