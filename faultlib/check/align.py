"""``faultlib check align LEFT RIGHT --on KEY [--on KEY2] | --time-col COL [--tolerance 500ms]``.

Why two tables do not join, and the normalisation that fixes each problem with the match count after it:
key dtypes (int vs text), zero padding, whitespace, case, duplicated keys that fan a join out, keys on
one side only; naive vs zone-aware timestamps, different zones, a source written in local time with or
without daylight-saving time, and clock offsets beyond the tolerance. See
:mod:`faultlib.detect.data.alignment` for the kinds and how rows are paired.

LEFT and RIGHT are read by :func:`faultlib.readers.tables.read_table` (CSV, TSV, JSON, JSON Lines,
Parquet, NPY, NPZ) with types as written, so a zero-padded id stays text. A column named differently on
each side is given as ``LEFT_NAME=RIGHT_NAME`` (``--on id=patient_id``, ``--time-col ts=recorded_at``).

``--how`` (pandas' ``merge(how=)``, default ``inner``) and ``--validate`` (``merge(validate=)``, default
inferred) say which join the pipeline does, so a healthy many-to-one join stays quiet: repeats are
reported only where they break the cardinality, unmatched keys are ``info`` unless the join drops records.

Missing values are data: a NaN/empty key on both sides is the fault ``null_keys_match`` (pandas matches
NaN to NaN), a row without a timestamp is counted (``missing_timestamps``) and left out of the time analysis.

Exit codes: 0 when no finding reaches ``--fail-on``, 1 when one does, 2 for an unreadable or empty file,
a missing column (the message lists the file's columns), a value that is not a timestamp, or neither
``--on`` nor ``--time-col``.
"""

from __future__ import annotations

from pathlib import Path

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.detect.data.alignment.join import HOW, VALIDATE
from faultlib.errors import InputError

__getattr__ = lazy_kinds("faultlib.detect.data.alignment.report")
_LINE_OF_ROW_0 = {".csv": 2, ".tsv": 2, ".jsonl": 1, ".ndjson": 1}


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    lines = [("tables", f"{f['left']['name']} ({f['left']['rows']} rows), {f['right']['name']} ({f['right']['rows']} rows)")]
    keys = f.get("keys")
    if keys:
        chain = " -> ".join(f"{s['step']} {s['matched_left_rows']}" for s in keys["steps"])
        lines.append(("key matches (left rows)", f"{chain} of {keys['left_rows']}"))
        fix = {k: v for k, v in keys["normalisation"].items() if v}
        lines.append(("key normalisation", ", ".join(f"{k}: {' + '.join(v)}" for k, v in fix.items()) or "none needed"))
    join = f.get("join")
    if join:
        lines.append(("fixed join", f"{join['rows_inner']} rows for {join['matched_left_rows']} matched left rows "
                                    f"(x{join['row_multiplication']:.3f})"))
    time = f.get("time")
    if time:
        m = time["matched_within_tolerance"]
        steps = " -> ".join(f"{k} {v}" for k, v in m.items() if k != "of")
        lines.append(("time", f"{time['left_kind']} vs {time['right_kind']}, paired by {time['pairing']}: within "
                              f"{time['tolerance_ms']:g} ms {steps} of {m['of']}"))
        if time["fix"]:
            lines.append(("time fix", "; ".join(
                f"{s['step']} {s['side']} {s.get('zone') or format(s.get('by_ms'), '+g') + ' ms'} ({s['scope']})"
                for s in time["fix"])))
    return lines


@check_command("align", summary=_summary,
               help="Why two tables do not join on keys (--on) and/or timestamps (--time-col), and the normalisation "
                    "that fixes each problem with the match count after it.")
@click.argument("left", metavar="LEFT", type=click.Path(path_type=Path, dir_okay=True))
@click.argument("right", metavar="RIGHT", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--on", "on", multiple=True, metavar="KEY",
              help="Key column (repeat for a composite key); LEFT_NAME=RIGHT_NAME when the names differ.")
@click.option("--time-col", metavar="COL", help="Timestamp column; LEFT_NAME=RIGHT_NAME when the names differ.")
@click.option("--tolerance", default="1s", show_default=True,
              help="How far apart two timestamps may be and still match (500ms, 2s, 1min).")
@click.option("--how", type=click.Choice(HOW), default="inner", show_default=True,
              help="The join the pipeline does (pandas merge how=): decides which unmatched rows are lost.")
@click.option("--validate", type=click.Choice(VALIDATE), default=None,
              help="The cardinality the join must have (pandas merge validate=). Default: inferred (the table "
                   "the join keeps is the 'many' side, the other its lookup, which must be unique).")
def command(left: Path, right: Path, on: tuple[str, ...], time_col: str | None, tolerance: str, how: str,
            validate: str | None) -> CheckResult:
    """Compare LEFT and RIGHT (see the module docstring).

    Raises:
        InputError: unreadable or empty files, missing columns, a value that is not a timestamp, bad
            tolerance, or neither --on nor --time-col (exit 2).
    """
    from faultlib.detect.data.alignment import check_alignment, parse_tolerance
    from faultlib.readers.tables import read_table

    if not on and not time_col:
        raise InputError("give key columns (--on KEY, repeatable) and/or a timestamp column (--time-col COL)",
                         field="--on")
    tol = parse_tolerance(tolerance)
    frames = [read_table(path) for path in (left, right)]
    report = check_alignment(frames[0], frames[1], on=list(on), time_col=time_col, tolerance=tol,
                             left_name=str(left), right_name=str(right),
                             left_line_offset=_LINE_OF_ROW_0.get(left.suffix.lower()),
                             right_line_offset=_LINE_OF_ROW_0.get(right.suffix.lower()), how=how,
                             validate=validate)
    return CheckResult("align", report.findings, report.fields())
