"""Why two sources do not join: key formats, duplicated keys, and clocks that disagree.

:func:`check_alignment` compares two tables on key columns (``on``) and/or a timestamp column
(``time_col``) and says, for each problem, the normalisation that fixes it and how many rows match
after it. Everything is vectorised pandas/numpy (no Python loop per row).

Keys (each key column is compared as text after :func:`faultlib.remedies.keys.normalise_keys`):

- ``key_dtype_mismatch`` (error): one side's keys are numbers and the other's text (pandas refuses to
  merge them; casting one side with ``astype(str)`` still misses ``42.0`` and padded ids);
- ``key_whitespace`` / ``key_case`` / ``key_zero_padding`` (error): rows match only once whitespace is
  stripped, case folded, or zero padding removed; each finding gives the match count before and after;
- ``duplicate_keys`` (warning): a side repeats a key (with a timestamp: a key and time), so a join
  fans out; the evidence gives the join's row count and the row multiplication;
- ``unmatched_keys`` (warning): rows whose key the other side lacks even after normalisation.

Time (each side read as written by :func:`faultlib.remedies.times.parse_times`; with keys, rows are paired by
key and by order within the key, in file order or time order, whichever pairs more consistently, so even
offsets of hours pair the right rows; without keys, each left row is compared with the right row nearest in
time, so only offsets under half the sampling interval show, while daylight-saving time still shows in a
naive side's own data):

- ``naive_vs_aware`` (warning, error when the naive values are not UTC): a side has values without a
  zone while the other side's have one (pandas refuses to compare them);
- ``different_time_zones`` (info): both sides are zone-aware but written in different zones (instants
  still compare correctly);
- ``time_zone_offset`` (error): a side's naive clock reads a fixed whole-zone offset away (it is local
  time of a zone without DST in the data's range);
- ``dst_local_time`` (error): a side is local wall-clock time with daylight-saving time: its offset
  changes by an hour at the zone's transitions, where its own data shows a missing and a repeated hour;
- ``clock_offset`` (error): a group of rows (or all) reads a constant offset beyond the tolerance;
- ``time_beyond_tolerance`` (warning): scattered pairs further apart than the tolerance that no zone or
  constant offset explains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from faultlib.detect.data.alignment.clock import analyse_time
from faultlib.detect.data.alignment.join import HOW, VALIDATE, duplicates, null_keys, unmatched
from faultlib.detect.data.alignment.keys import analyse_keys
from faultlib.detect.data.alignment.report import (DETECTOR, KINDS, SEP, AlignmentReport, Side, pair_names,
                                                   parse_tolerance, validate_columns)
from faultlib.errors import InputError
from faultlib.findings import Finding, Severity
from faultlib.remedies.times import parse_times

if TYPE_CHECKING:
    import pandas

__all__ = ["DETECTOR", "HOW", "KINDS", "VALIDATE", "AlignmentReport", "Side", "check_alignment", "parse_tolerance"]


#: how timestamp columns write a missing value as text (pandas' NaT and NaN, JSON's null, Python's None)
MISSING_WORDS = ("nat", "nan", "null", "none")


def _drop_missing_times(side: Side, column: str) -> tuple[Side, list[Finding]]:
    """``side`` without the rows that have no timestamp (empty, NaN/NaT, or :data:`MISSING_WORDS` as text; rows
    keep their numbers in locations), and the
    ``missing_timestamps`` finding that counts them."""
    import numpy as np

    values = side.frame[column]
    missing = values.isna().to_numpy(dtype=bool, copy=True)
    if values.dtype == object or str(values.dtype).startswith("string"):   # "NaT", "null" written as text
        words = values.astype("string").str.strip().str.lower().isin(MISSING_WORDS).fillna(False)
        missing |= words.to_numpy(dtype=bool)
    if not missing.any():
        return side, []
    rows = np.nonzero(missing)[0]
    kept = np.nonzero(~missing)[0]
    base = side.rows if side.rows is not None else np.arange(len(side.frame))
    finding = Finding(
        DETECTOR, Severity.WARNING,
        f"{rows.size} of {len(missing)} rows of {side.name} have no {column!r} (NaN/empty): they cannot be placed in "
        "time (pandas' merge_asof refuses null keys), so the time analysis leaves them out; drop or backfill them "
        "before an as-of join",
        {**side.where(int(rows[0])), "column_name": column},
        {"rows": int(rows.size), "fraction": round(rows.size / len(missing), 6),
         "first_rows": [int(base[r]) for r in rows[:5]]}, kind="missing_timestamps")
    frame = side.frame.iloc[kept].reset_index(drop=True)
    return Side(frame, side.name, side.line_offset, base[kept]), [finding]

def check_alignment(left: "pandas.DataFrame", right: "pandas.DataFrame", *, on: Sequence[str | tuple[str, str]] = (),
                    time_col: str | tuple[str, str] | None = None, tolerance: str | int = "1s",
                    left_name: str = "LEFT", right_name: str = "RIGHT", left_line_offset: int | None = None,
                    right_line_offset: int | None = None, how: str = "inner",
                    validate: str | None = None) -> AlignmentReport:
    """Why ``left`` and ``right`` do not join on ``on`` / ``time_col``, and what fixes it.

    Args:
        left, right: the two tables.
        on: key columns (one or a list): a name both have, ``(left_name, right_name)``, or ``"left_name=right_name"``.
        time_col: the timestamp column: a name both have, a pair, or ``"left=right"``.
        tolerance: how far apart two timestamps may be and still be the same moment: ``"500ms"``, ``"2s"``
            (a string with a unit) or nanoseconds (int). Default ``"1s"``.
        left_name, right_name: the sources' names in messages and locations (file paths in the CLI).
        left_line_offset, right_line_offset: line of row 0 in each file (2 for CSV with a header), for locations.
        how: the join the pipeline does, as pandas' ``merge(how=...)``: ``inner`` (default), ``left``, ``right``,
            ``outer``; it decides which unmatched rows are lost (see :mod:`~faultlib.detect.data.alignment.join`).
        validate: the cardinality the join must have, as pandas' ``merge(validate=...)``; ``None`` infers it.

    Returns:
        :class:`AlignmentReport`.

    Raises:
        InputError: neither ``on`` nor ``time_col``, a missing column (with the columns the file has), a
            value that is not a timestamp (with the row and line), a bad tolerance, ``how`` or ``validate``.
            Missing keys and timestamps are data: findings (``null_keys_match``, ``unmatched_keys``,
            ``missing_timestamps``), never errors.
    """
    import pandas as pd

    if not on and time_col is None:
        raise InputError("nothing to align: give key columns (--on KEY) and/or a timestamp column (--time-col COL)")
    if how not in HOW:
        raise InputError(f"how={how!r}: use one of {', '.join(HOW)}", field="--how")
    if validate is not None and validate not in VALIDATE:
        raise InputError(f"validate={validate!r}: use one of {', '.join(VALIDATE)}", field="--validate")
    tol = tolerance if isinstance(tolerance, int) and not isinstance(tolerance, bool) else parse_tolerance(tolerance)
    on = [on] if isinstance(on, str) else list(on)
    lside, rside = Side(left, left_name, left_line_offset), Side(right, right_name, right_line_offset)
    rows_in = (int(len(left)), int(len(right)))
    pairs = pair_names(on, left, right)
    times = pair_names([time_col], left, right)[0] if time_col is not None else None
    for side, cols in ((lside, [a for a, _ in pairs] + ([times[0]] if times else [])),
                       (rside, [b for _, b in pairs] + ([times[1]] if times else []))):
        validate_columns(side, cols)
    parsed = None
    findings: list[Finding] = []
    if times:
        kept_l, missing_l = _drop_missing_times(lside, times[0])
        kept_r, missing_r = _drop_missing_times(rside, times[1])
        findings += missing_l + missing_r
        if len(kept_l.frame) and len(kept_r.frame):
            lside, rside = kept_l, kept_r
            left, right = lside.frame, rside.frame
        else:  # a side without any timestamp: keys only
            times = None
    if times:
        parsed = (parse_times(left[times[0]], column=times[0], path=left_name, line_offset=left_line_offset),
                  parse_times(right[times[1]], column=times[1], path=right_name, line_offset=right_line_offset))
    keys_info = join = time_info = None
    kf = steps = None
    if pairs:
        keys_info, key_findings, kf, steps = analyse_keys(lside, rside, pairs)
        findings += key_findings
    if times:
        lk, rk = kf.keys(steps) if kf is not None else (None, None)
        time_info, time_findings, fixed = analyse_time(lside, rside, times, parsed, tol, lk, rk)
        findings += time_findings
    if pairs:
        lk, rk = kf.keys(steps)
        identity = [a for a, _ in pairs]
        if times:
            identity.append(times[0])
            bucket = max(tol, 1)
            lid = (lk + SEP + pd.Series(fixed[0] // bucket).astype("string")).rename("id")
            rid = (rk + SEP + pd.Series(fixed[1] // bucket).astype("string")).rename("id")
            join, dup_findings = duplicates(kf, lid, rid, identity, ((times[0], lside), (times[1], rside)), how, validate)
        else:
            lk2, rk2 = lk.rename("id"), rk.rename("id")
            join, dup_findings = duplicates(kf, lk2, rk2, identity, None, how, validate)
        card = join.pop("_card")
        findings += null_keys(kf, steps, how)
        findings += dup_findings
        findings += unmatched(kf, steps, keys_info, how, card)
    summary = lambda s, n: {"name": s.name, "rows": n, "columns": [str(c) for c in s.frame.columns]}  # noqa: E731
    return AlignmentReport(findings, keys_info, time_info, join, summary(lside, rows_in[0]), summary(rside, rows_in[1]))

