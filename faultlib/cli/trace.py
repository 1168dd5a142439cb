"""``faultlib trace``: find the first NaN/inf in an unmodified script."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.table import Table

from faultlib.cli.app import _emit_json, _state, app, stderr, stdout


@app.command("trace", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
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
