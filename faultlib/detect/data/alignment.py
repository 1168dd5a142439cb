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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from faultlib.remedies.keys import PANDAS, dtype_class, normalise_keys
from faultlib.remedies.clocks import clusters, find_zone, nearest, pair_by_key
from faultlib.remedies.times import (
    HOUR_NS, ParsedTimes, dst_symptoms, fixed_zone_name, local_time_zones, localize_ns, parse_times)
from faultlib.errors import InputError
from faultlib.findings import Finding, Severity

if TYPE_CHECKING:
    import numpy
    import pandas

DETECTOR = "align"
KINDS = {
    "key_dtype_mismatch": "key columns hold numbers on one side and text on the other (pandas refuses to merge them)",
    "key_whitespace": "keys match only after stripping leading/trailing whitespace",
    "key_case": "keys match only after folding case",
    "key_zero_padding": "keys match only after removing the zero padding of numeric ids",
    "duplicate_keys": "a side repeats a key (or key and time), so a join on it multiplies rows",
    "unmatched_keys": "rows whose key the other side lacks even after normalisation",
    "naive_vs_aware": "one side's timestamps carry no zone while the other side's do",
    "different_time_zones": "both sides' timestamps are zone-aware but written in different zones (informational)",
    "time_zone_offset": "a side's clock reads a fixed zone offset away: naive local time of a zone",
    "dst_local_time": "a side is naive local time with daylight-saving time (offset changes at the transitions; a "
                      "missing and a repeated hour)",
    "clock_offset": "rows whose clock reads a constant offset beyond the tolerance",
    "time_beyond_tolerance": "scattered rows further apart than the tolerance that no zone or offset explains",
}
QUARTER_NS = 15 * 60 * 1_000_000_000
WORST = 5
MS = 1_000_000
_STEP_KIND = {"strip_whitespace": "key_whitespace", "casefold": "key_case", "strip_leading_zeros": "key_zero_padding"}
_STEP_WORDS = {"strip_whitespace": "stripping whitespace", "casefold": "folding case",
               "strip_leading_zeros": "removing zero padding"}
_SEP = "\x1f"


@dataclass(frozen=True)
class Side:
    """One source: its table, its name in messages (a file path or ``LEFT``) and the line of row 0 in the
    file (2 for CSV with a header, 1 for JSON Lines, None when rows have no line)."""

    frame: Any
    name: str
    line_offset: int | None = None

    def where(self, row: int) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.name, "index": int(row)}
        if self.line_offset is not None:
            out["line"] = int(row) + self.line_offset
        return out


@dataclass(frozen=True)
class AlignmentReport:
    """What :func:`check_alignment` found.

    Attributes:
        findings: frozen findings with kinds of ``KINDS``.
        keys: key analysis (None without ``on``): per column dtypes, matched rows raw and after each
            normalisation step, the fix, rows on one side only.
        time: time analysis (None without ``time_col``): kinds and zones of both sides, pairs, offsets,
            matched within tolerance raw and after each fix, the zone and clock offsets found, worst rows.
        join: duplicates and fan-out of the fixed join (None without ``on``).
        left, right: ``{"name", "rows", "columns"}``.
    """

    findings: list[Finding]
    keys: dict[str, Any] | None
    time: dict[str, Any] | None
    join: dict[str, Any] | None
    left: dict[str, Any] = field(default_factory=dict)
    right: dict[str, Any] = field(default_factory=dict)

    def fields(self) -> dict[str, Any]:
        """The JSON fields of ``faultlib check align --json`` (without ``findings``)."""
        return {"left": self.left, "right": self.right, "keys": self.keys, "time": self.time, "join": self.join}


def parse_tolerance(text: str | int | float) -> int:
    """A tolerance like ``500ms``, ``2s``, ``1.5min``, ``1h`` as nanoseconds (a number alone is refused).

    Raises:
        InputError: no unit, not a duration, or negative.
    """
    import pandas as pd

    if isinstance(text, (int, float)) and not isinstance(text, bool):
        raise InputError(f"tolerance {text!r} has no unit: write e.g. 500ms, 2s or 1min", field="--tolerance")
    raw = str(text).strip()
    if not raw or raw[-1].isdigit() or raw[-1] == ".":
        raise InputError(f"tolerance {raw!r} has no unit: write e.g. 500ms, 2s or 1min", field="--tolerance")
    try:
        value = pd.Timedelta(raw)
    except (ValueError, TypeError):
        raise InputError(f"tolerance {raw!r} is not a duration: write e.g. 500ms, 2s or 1min",
                         field="--tolerance") from None
    if value < pd.Timedelta(0) or pd.isna(value):
        raise InputError(f"tolerance {raw!r} must be >= 0", field="--tolerance")
    return int(value.value)


def _pair_names(items: Sequence[str | tuple[str, str]], left: Any, right: Any) -> list[tuple[str, str]]:
    out = []
    for item in items:
        if isinstance(item, tuple):
            out.append((str(item[0]), str(item[1])))
        elif "=" in item and not (item in left.columns and item in right.columns):
            a, _, b = item.partition("=")
            out.append((a, b))
        else:
            out.append((item, item))
    return out


def _validate(side: Side, columns: list[str]) -> None:
    import numpy as np

    from faultlib.readers.tables import require_columns

    require_columns(side.frame, columns, side.name)
    for column in columns:
        missing = side.frame[column].isna().to_numpy()
        if missing.any():
            row = int(np.argmax(missing))
            line = row + side.line_offset if side.line_offset is not None else None
            raise InputError(f"column {column!r} has no value at row {row} ({int(missing.sum())} rows are empty/NaN): "
                             "a key or timestamp cannot be missing; drop or fill those rows first", path=side.name,
                             line=line, field=column)


def _composite(columns: list["pandas.Series"]) -> "pandas.Series":
    out = columns[0].reset_index(drop=True)
    if len(columns) > 1:
        out = out.str.cat([c.reset_index(drop=True) for c in columns[1:]], sep=_SEP)
    return out


def _raw_key_values(side: Side, columns: list[str], rows: "numpy.ndarray") -> list[Any]:
    frame = side.frame.iloc[rows][columns]
    values = frame.to_numpy(dtype=object).tolist()
    return [_json_value(v[0]) if len(columns) == 1 else [_json_value(x) for x in v] for v in values]


def _json_value(v: Any) -> Any:
    import numpy as np

    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v != v:
        return None
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)


class _KeyFrame:
    """Normalised keys of both sides for a choice of steps per column, with match counts."""

    def __init__(self, left: Side, right: Side, pairs: list[tuple[str, str]]):
        self.left, self.right, self.pairs = left, right, pairs
        self._cache: dict[tuple, tuple] = {}

    def keys(self, steps: dict[int, tuple[str, ...]]) -> tuple["pandas.Series", "pandas.Series"]:
        token = tuple(sorted(steps.items()))
        if token not in self._cache:
            lk = _composite([normalise_keys(self.left.frame[a], steps.get(i, ())) for i, (a, _) in enumerate(self.pairs)])
            rk = _composite([normalise_keys(self.right.frame[b], steps.get(i, ())) for i, (_, b) in enumerate(self.pairs)])
            # object dtype: pandas' hash-table isin (the Arrow string isin loops in Python)
            self._cache[token] = (lk.astype(object), rk.astype(object))
        return self._cache[token]

    def matched(self, steps: dict[int, tuple[str, ...]]) -> tuple[int, int]:
        lk, rk = self.keys(steps)
        return int(lk.isin(rk).sum()), int(rk.isin(lk).sum())


def _raw_matches(left: Side, right: Side, pairs: list[tuple[str, str]]) -> tuple[int, str | None]:
    """Left rows a plain pandas merge on the raw columns matches, and pandas' refusal, if any."""
    import pandas as pd

    lcols, rcols = [a for a, _ in pairs], [b for _, b in pairs]
    try:
        pd.merge(left.frame[lcols].head(0), right.frame[rcols].head(0), left_on=lcols, right_on=rcols)
    except (ValueError, TypeError) as exc:
        return 0, str(exc).split(". If you wish")[0]
    lidx = pd.MultiIndex.from_frame(left.frame[lcols]) if len(lcols) > 1 else pd.Index(left.frame[lcols[0]])
    ridx = pd.MultiIndex.from_frame(right.frame[rcols]) if len(rcols) > 1 else pd.Index(right.frame[rcols[0]])
    try:
        return int(lidx.isin(ridx).sum()), None
    except (ValueError, TypeError) as exc:
        return 0, str(exc)


def _examples(kf: _KeyFrame, before: dict, after: dict, limit: int = 3) -> list[dict[str, Any]]:
    """Pairs of raw values that match after a step but not before it."""
    import numpy as np
    import pandas as pd

    lk0, rk0 = kf.keys(before)
    lk1, rk1 = kf.keys(after)
    candidates = np.nonzero((lk1.isin(rk1) & ~lk0.isin(rk0)).to_numpy())[0]
    newly = candidates[~lk1.iloc[candidates].duplicated().to_numpy()][:limit]  # one example per key
    if newly.size == 0:
        return []
    first_right = pd.Series(np.arange(len(rk1)), index=rk1.to_numpy()).groupby(level=0).first()
    rrows = first_right.reindex(lk1.iloc[newly].to_numpy()).to_numpy()
    lcols, rcols = [a for a, _ in kf.pairs], [b for _, b in kf.pairs]
    lvals = _raw_key_values(kf.left, lcols, newly)
    rvals = _raw_key_values(kf.right, rcols, rrows.astype(int))
    return [{"left": lv, "right": rv, "left_row": int(lr), "right_row": int(rr)}
            for lv, rv, lr, rr in zip(lvals, rvals, newly, rrows)]


def _analyse_keys(left: Side, right: Side, pairs: list[tuple[str, str]]) -> tuple[dict, list[Finding], _KeyFrame, dict]:
    steps_all = ("strip_whitespace", "casefold", "strip_leading_zeros")
    kf = _KeyFrame(left, right, pairs)
    columns = []
    dtype_fix: dict[int, bool] = {}
    for i, (a, b) in enumerate(pairs):
        lc, rc = dtype_class(left.frame[a]), dtype_class(right.frame[b])
        dtype_fix[i] = lc != rc
        columns.append({"left": a, "right": b, "left_dtype": str(left.frame[a].dtype), "right_dtype": str(right.frame[b].dtype),
                        "left_kind": lc, "right_kind": rc})
    raw, refused = _raw_matches(left, right, pairs)
    full = {i: steps_all for i in range(len(pairs))}
    best = kf.matched(full)[0]
    needed: dict[int, list[str]] = {i: [] for i in range(len(pairs))}
    for i in range(len(pairs)):
        for step in steps_all:
            without = {**full, i: tuple(s for s in steps_all if s != step)}
            if kf.matched(without)[0] < best:
                needed[i].append(step)
    findings: list[Finding] = []
    chain = [{"step": "raw", "matched_left_rows": raw}]
    current: dict[int, tuple[str, ...]] = {i: () for i in range(len(pairs))}
    previous = raw
    for i, col in enumerate(columns):
        if dtype_fix[i]:
            after = kf.matched(current)[0]
            chain.append({"step": "to_string", "column": col["left"], "matched_left_rows": after})
            findings.append(Finding(
                DETECTOR, Severity.ERROR,
                f"key {col['left']!r} is {col['left_kind']} ({col['left_dtype']}) in {left.name} but "
                f"{col['right_kind']} ({col['right_dtype']}) in {right.name}: "
                + (f"pandas refuses to merge them ({refused}); " if refused else "")
                + f"{raw} of {len(left.frame)} rows match as written, {after} once both are compared as text "
                  "(faultlib.remedies.key_strings: integers without '.0')",
                {"file": right.name, "column_name": col["right"]},
                {"column": col, "matched_before": raw, "matched_after": after, "pandas_refuses": refused,
                 "fix": ["to_string"], "pandas": PANDAS["to_string"]},
                kind="key_dtype_mismatch"))
            previous = after
    if not any(dtype_fix.values()):
        previous = kf.matched(current)[0]
        if previous != raw:
            chain.append({"step": "to_string", "matched_left_rows": previous})
    for step in steps_all:
        for i, col in enumerate(columns):
            if step not in needed[i]:
                continue
            before = dict(current)
            current = {**current, i: current[i] + (step,)}
            after = kf.matched(current)[0]
            chain.append({"step": step, "column": col["left"], "matched_left_rows": after})
            examples = _examples(kf, before, current)
            shown = ", ".join(f"{e['left']!r} ~ {e['right']!r}" for e in examples)
            findings.append(Finding(
                DETECTOR, Severity.ERROR,
                f"key {col['left']!r}: {after - previous} more rows of {left.name} match {right.name} after "
                f"{_STEP_WORDS[step]} ({previous} -> {after} of {len(left.frame)}), e.g. {shown}",
                {"file": right.name, "column_name": col["right"]},
                {"column": col, "matched_before": previous, "matched_after": after, "examples": examples,
                 "fix": [step], "pandas": PANDAS[step]},
                kind=_STEP_KIND[step]))
            previous = after
    fix = {i: (("to_string",) if dtype_fix[i] else ()) + tuple(s for s in steps_all if s in needed[i])
           for i in range(len(pairs))}
    matched_left, matched_right = kf.matched(current)
    info = {"on": [list(p) for p in pairs], "columns": columns, "matched_left_rows_raw": raw,
            "pandas_refuses": refused, "steps": chain,
            "normalisation": {col["left"]: list(fix[i]) for i, col in enumerate(columns)},
            "matched_left_rows": matched_left, "matched_right_rows": matched_right,
            "left_rows": len(left.frame), "right_rows": len(right.frame)}
    return info, findings, kf, current


def _unmatched(kf: _KeyFrame, steps: dict, info: dict) -> list[Finding]:
    import numpy as np

    lk, rk = kf.keys(steps)
    findings = []
    for side, other, keys, other_keys, cols in ((kf.left, kf.right, lk, rk, [a for a, _ in kf.pairs]),
                                                (kf.right, kf.left, rk, lk, [b for _, b in kf.pairs])):
        missing = ~keys.isin(other_keys).to_numpy()
        rows = np.nonzero(missing)[0]
        distinct = int(keys[missing].nunique())
        label = "left_only" if side is kf.left else "right_only"
        info[f"{label}_rows"] = int(rows.size)
        info[f"{label}_keys"] = distinct
        if rows.size == 0:
            continue
        examples = _raw_key_values(side, cols, rows[:5])
        info[f"{label}_examples"] = examples
        findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"{rows.size} rows of {side.name} ({distinct} keys, {rows.size / len(keys):.1%}) have no key in {other.name} "
            f"even after normalisation, e.g. {', '.join(map(repr, examples[:3]))}",
            {**side.where(int(rows[0])), "column_name": cols[0]},
            {"rows": int(rows.size), "keys": distinct, "fraction": round(rows.size / len(keys), 6), "examples": examples},
            kind="unmatched_keys"))
    return findings


def _duplicates(kf: _KeyFrame, lid: "pandas.Series", rid: "pandas.Series", identity: list[str],
                time_sides: tuple[Any, Any] | None) -> tuple[dict, list[Finding]]:
    """Repeated identities per side and the fan-out of an inner join on them (identity: the normalised key,
    plus, with a timestamp, the fixed time rounded down to the tolerance)."""
    import numpy as np
    import pandas as pd

    counts_l, counts_r = lid.value_counts(), rid.value_counts()
    common = counts_l.index.intersection(counts_r.index)
    join_rows = int((counts_l[common].to_numpy() * counts_r[common].to_numpy()).sum())
    matched_l, matched_r = int(counts_l[common].sum()), int(counts_r[common].sum())
    mult = join_rows / matched_l if matched_l else 0.0
    join = {"identity": identity, "rows_inner": join_rows, "matched_left_rows": matched_l,
            "matched_right_rows": matched_r, "row_multiplication": round(mult, 6)}
    findings = []
    for side, ids, counts, other_counts, cols in ((kf.left, lid, counts_l, counts_r, [a for a, _ in kf.pairs]),
                                                  (kf.right, rid, counts_r, counts_l, [b for _, b in kf.pairs])):
        dup = counts[counts > 1]
        if dup.empty:
            continue
        extra = int((dup - 1).sum())
        fanout = int((dup.reindex(other_counts.index.intersection(dup.index)) - 1).mul(
            other_counts.reindex(other_counts.index.intersection(dup.index))).sum())
        worst_ids = dup.sort_values(ascending=False, kind="stable").head(5)
        first_row = pd.Series(np.arange(len(ids)), index=ids.to_numpy()).groupby(level=0).first()
        rows = first_row.reindex(worst_ids.index).to_numpy(dtype="int64")
        values = _raw_key_values(side, cols, rows)
        worst = [{"key": v, "count": int(c), "row": int(r)} for v, c, r in zip(values, worst_ids.to_numpy(), rows)]
        if time_sides is not None:
            column, frame_side = time_sides[0 if side is kf.left else 1]
            for w in worst:
                w["time"] = str(frame_side.frame[column].iloc[w["row"]])
        findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"{side.name} repeats {len(dup)} {' + '.join(identity)} values ({extra} extra rows, up to {int(dup.max())}x, "
            f"e.g. {worst[0]['key']!r}): a join on them gains {fanout} rows; the fixed join has {join_rows} rows for "
            f"{matched_l} matched left rows (x{mult:.3f}). Deduplicate (drop_duplicates on the key) or aggregate first",
            {**side.where(worst[0]["row"]), "column_name": cols[0]},
            {"duplicated_values": int(len(dup)), "extra_rows": extra, "max_count": int(dup.max()), "worst": worst,
             "join_rows_added": fanout, "rows_inner": join_rows, "row_multiplication": round(mult, 6)},
            kind="duplicate_keys"))
    return join, findings



# -- time --------------------------------------------------------------------------------------------

def _fmt(ns: int) -> str:
    """A signed duration for messages: ``+1h``, ``-2h30m``, ``+1.500 s``, ``+250.0 ms``, ``0``."""
    if ns == 0:
        return "0"
    sign = "-" if ns < 0 else "+"
    ns = abs(int(ns))
    if ns >= HOUR_NS and ns % (QUARTER_NS) == 0:
        return f"{sign}{ns // HOUR_NS}h{(ns % HOUR_NS) // 60_000_000_000:02d}m" if ns % HOUR_NS else f"{sign}{ns // HOUR_NS}h"
    if ns >= 1_000_000_000:
        return f"{sign}{ns / 1e9:.3f} s"
    return f"{sign}{ns / MS:.1f} ms"


def _stats(offsets: "numpy.ndarray") -> dict[str, float] | None:
    import numpy as np

    if offsets.size == 0:
        return None
    q = np.percentile(offsets, [5, 50, 95])
    return {"min": float(offsets.min()) / MS, "p05": float(q[0]) / MS, "median": float(q[1]) / MS,
            "p95": float(q[2]) / MS, "max": float(offsets.max()) / MS}


def _worst(order_by: "numpy.ndarray", lrow, rrow, offsets, left: Side, right: Side, columns: tuple[str, str],
           lk=None) -> list[dict[str, Any]]:
    import numpy as np

    picks = np.argsort(-np.abs(order_by), kind="stable")[:WORST]
    out = []
    for i in picks:
        a, b = int(lrow[i]), int(rrow[i])
        row = {"left_row": a, "right_row": b, "left_time": str(left.frame[columns[0]].iloc[a]),
               "right_time": str(right.frame[columns[1]].iloc[b]), "offset_ms": float(offsets[i]) / MS}
        if lk is not None:
            row["key"] = str(lk.iloc[a]).replace(_SEP, ",")
        if left.line_offset is not None:
            row["left_line"] = a + left.line_offset
        if right.line_offset is not None:
            row["right_line"] = b + right.line_offset
        out.append(row)
    return out


def _zone_finding(zone_name: str, equivalent: tuple[str, ...], offsets: tuple[int, ...], side: Side, other: Side,
                  column: str, rows: int, first_row: int, scope: str, symptoms: list[dict], before: int, after: int,
                  of: int, unresolved: int, tol: int) -> Finding:
    hours = ", ".join(_fmt(o) for o in offsets)
    also = f" (or {', '.join(equivalent[:4])})" if equivalent else ""
    if zone_name.startswith("UTC"):
        hh, _, mm = zone_name[3:].partition(":")
        fix = f"(col - pd.Timedelta('{int(hh)}h{int(mm)}min')).dt.tz_localize('UTC')"
    else:
        fix = f"tz_localize('{zone_name}', ambiguous='infer', nonexistent='shift_forward').tz_convert('UTC')"
    seen = [s for s in symptoms if s["symptom"]]
    shows = "; ".join(
        ("no rows in the missing hour" if s["kind"] == "missing_hour" else f"{s['rows']} rows in the repeated hour")
        + f" {s['local_start']} ({s['neighbour_rows']:g}/h around)" for s in seen)
    dst = len(offsets) > 1
    message = (f"{rows} rows of {side.name} {column!r} are {'local wall-clock time of' if dst else 'naive local time at'} "
               f"{zone_name}{also}: they read {hours} from {other.name}"
               + (" switching at the daylight-saving transitions" if dst else "")
               + (f"; its own data shows it: {shows}" if shows else "")
               + f". Fix ({scope}): {fix}; pairs within {_fmt(tol).lstrip('+')}: {before} -> {after} of {of}"
               + (f" ({unresolved} repeated-hour rows could not be resolved by order)" if unresolved else ""))
    return Finding(DETECTOR, Severity.ERROR, message, {**side.where(first_row), "column_name": column},
                   {"zone": zone_name, "equivalent": list(equivalent), "offsets_h": [o / HOUR_NS for o in offsets],
                    "rows": rows, "scope": scope, "transitions": symptoms, "matched_before": before,
                    "matched_after": after, "pairs": of, "unresolved": unresolved, "fix": fix},
                   kind="dst_local_time" if dst else "time_zone_offset")


def _awareness(left: Side, right: Side, columns: tuple[str, str], pl: ParsedTimes, pr: ParsedTimes,
               local: str | None, matched: dict[str, int]) -> list[Finding]:
    import numpy as np

    findings = []
    for name, side, other, p, q, column in (("left", left, right, pl, pr, columns[0]),
                                            ("right", right, left, pr, pl, columns[1])):
        if p.naive_rows == 0 or not (q.aware.any() or p.aware.any()):
            continue
        first = int(np.argmax(~p.aware))
        zones = sorted(set(q.zones) | set(p.zones))
        where = f"while {'its other' if p.kind == 'mixed' else other.name + ' ' + repr(columns[1 if name == 'left' else 0])} values carry zones {zones}"
        hint = ("they are local time (see the dst_local_time / time_zone_offset finding)" if local == name
                else f"read as UTC, {matched.get('after_fix', matched['raw'])} of {matched['of']} pairs are within "
                     "tolerance: if they are UTC, tz_localize('UTC') them")
        findings.append(Finding(
            DETECTOR, Severity.ERROR if local == name else Severity.WARNING,
            f"{p.naive_rows} of {len(p.ns)} values of {side.name} {column!r} carry no zone {where}: pandas refuses to "
            f"compare or merge naive and aware timestamps; {hint}",
            {**side.where(first), "column_name": column},
            {"naive_rows": p.naive_rows, "aware_rows": int(p.aware.sum()), "zones": zones, "kind": p.kind},
            kind="naive_vs_aware"))
    if pl.naive_rows == 0 and pr.naive_rows == 0 and set(pl.zones) != set(pr.zones) and pl.zones and pr.zones:
        findings.append(Finding(
            DETECTOR, Severity.INFO,
            f"{left.name} writes {columns[0]!r} in {list(pl.zones)} and {right.name} {columns[1]!r} in {list(pr.zones)}: "
            "the instants compare correctly as long as both stay zone-aware (convert to UTC before dropping the zone)",
            {"file": right.name, "column_name": columns[1]},
            {"left_zones": list(pl.zones), "right_zones": list(pr.zones)}, kind="different_time_zones"))
    return findings


def _analyse_time(left: Side, right: Side, columns: tuple[str, str], parsed: tuple[ParsedTimes, ParsedTimes], tol: int,
                  lk, rk) -> tuple[dict, list[Finding], tuple["numpy.ndarray", "numpy.ndarray"]]:
    import numpy as np

    pl, pr = parsed
    info: dict[str, Any] = {"left_column": columns[0], "right_column": columns[1], "tolerance_ms": tol / MS,
                            "left_kind": pl.kind, "right_kind": pr.kind, "left_zones": list(pl.zones),
                            "right_zones": list(pr.zones), "left_naive_rows": pl.naive_rows,
                            "right_naive_rows": pr.naive_rows, "epoch_unit": {"left": pl.epoch_unit, "right": pr.epoch_unit}}
    fixed_l, fixed_r = pl.ns.copy(), pr.ns.copy()
    findings: list[Finding] = []
    fixes: list[dict[str, Any]] = []
    local = None
    if lk is not None:
        pairs = pair_by_key(lk, rk, pl.ns, pr.ns, tol)
        lrow, rrow, off = pairs.left_row, pairs.right_row, pairs.offset
        info["pairing"] = pairs.method
    else:
        lrow = np.arange(pl.ns.size)
        rrow, off = nearest(pl.ns, pr.ns)
        info["pairing"] = "nearest_time"
    n = int(off.size)
    info["pairs"] = n
    info["offset_ms"] = _stats(off)
    raw = int((np.abs(off) <= tol).sum())
    matched = {"raw": raw, "of": n}
    info["worst_rows"] = _worst(off, lrow, rrow, off, left, right, columns, lk)
    zone_info = None
    adj = off.copy()
    if n and lk is not None:
        zone = find_zone(off, pl.ns[lrow], pr.ns[rrow], ~pl.aware[lrow], ~pr.aware[rrow], min_rows=max(3, int(0.01 * n)))
        if zone is not None:
            adj = off - np.where(zone.explained, zone.predicted, 0)
            zone_info = (zone.zone, zone.equivalent, zone.offsets, zone.local_side, int(zone.explained.sum()),
                         int((lrow if zone.local_side == "left" else rrow)[np.argmax(zone.explained)]))
    elif n:
        for name, p, q in (("left", pl, pr), ("right", pr, pl)):
            if p.naive_rows < 3:
                continue
            found = local_time_zones(p.ns[~p.aware])
            other = {z for z, _ in local_time_zones(q.ns[~q.aware])} if q.naive_rows >= 3 else set()
            found = [(z, s) for z, s in found if z not in other]
            if found:
                zone_name = found[0][0]
                zone_info = (zone_name, tuple(z for z, _ in found[1:]), (), name, p.naive_rows, int(np.argmax(~p.aware)))
                break
    if zone_info is not None:
        zone_name, equivalent, offsets, local, rows, first_row = zone_info
        p = pl if local == "left" else pr
        scope_mask = ~p.aware if p.kind == "mixed" else np.ones(p.ns.size, dtype=bool)
        scope = "naive rows" if p.kind == "mixed" else "all rows"
        corrected, unresolved = localize_ns(p.ns[scope_mask], zone_name)
        target = fixed_l if local == "left" else fixed_r
        target[scope_mask] = corrected
        symptoms = dst_symptoms(p.ns[scope_mask], zone_name) if not zone_name.startswith("UTC") else []
        if not offsets:  # unkeyed: the offsets the zone applied, signed as right - left
            sign = 1 if local == "right" else -1
            offsets = tuple(sorted({sign * int(v) for v in np.unique(p.ns[scope_mask] - corrected)}))
        if lk is None:
            rrow, off = nearest(fixed_l, fixed_r)
        else:
            off = fixed_r[rrow] - fixed_l[lrow]
        after = int((np.abs(off) <= tol).sum())
        matched["after_zone_fix"] = after
        side, other = (left, right) if local == "left" else (right, left)
        findings.append(_zone_finding(zone_name, equivalent, offsets, side, other, columns[0 if local == "left" else 1],
                                      rows, first_row, scope, symptoms, raw, after, n, int(unresolved.sum()), tol))
        fixes.append({"step": "localize", "side": local, "zone": zone_name, "scope": scope})
        info["zone"] = {"name": zone_name, "equivalent": list(equivalent), "local_side": local,
                        "offsets_h": [o / HOUR_NS for o in offsets], "rows": rows, "scope": scope,
                        "unresolved": int(unresolved.sum()), "transitions": symptoms}
        if lk is None:
            adj = off
    before = int((np.abs(off) <= tol).sum()) if zone_info is not None else raw
    min_size = max(3, int(0.01 * n))
    offsets_found: list[tuple[int, "numpy.ndarray"]] = []
    if n and lk is not None:
        offsets_found = [(c.center, c.members) for c in clusters(adj, tol, min_size=min_size) if abs(c.center) > tol]
    elif n:  # unkeyed: offsets between nearest rows (seen only when smaller than half the sampling interval)
        groups = clusters(off if zone_info is None else nearest(fixed_l, fixed_r)[1], tol, min_size=max(3, int(0.3 * n)))
        offsets_found = [(c.center, c.members) for c in groups[:1] if abs(c.center) > tol]
    def current() -> tuple["numpy.ndarray", "numpy.ndarray", "numpy.ndarray"]:
        if lk is not None:
            return lrow, rrow, fixed_r[rrow] - fixed_l[lrow]
        rows, offsets = nearest(fixed_l, fixed_r)
        return lrow, rows, offsets

    info["clock_offsets"] = []
    naive_r = ~pr.aware
    for center, members in offsets_found:
        if lk is None or members.size >= 0.9 * n:
            scope, mask = "all rows", np.ones(pr.ns.size, dtype=bool)
        elif pr.kind == "mixed" and naive_r[rrow[members]].mean() >= 0.95 and members.size >= 0.9 * naive_r[rrow].sum():
            scope, mask = "naive rows", naive_r.copy()
        else:
            scope, mask = "the rows of this group", np.zeros(pr.ns.size, dtype=bool)
            mask[rrow[members]] = True
        fixed_r[mask] -= center
        after = int((np.abs(current()[2]) <= tol).sum())
        quarter = round(center / QUARTER_NS) * QUARTER_NS
        is_zone = lk is None and abs(quarter) >= 2 * QUARTER_NS and abs(center - quarter) <= max(tol, 60_000_000_000)
        worst = _worst(adj[members], lrow[members], rrow[members], adj[members], left, right, columns, lk) \
            if lk is not None else []
        where = right.where(worst[0]["right_row"]) if worst else {"file": right.name}
        findings.append(Finding(
            DETECTOR, Severity.ERROR,
            f"{members.size} {'pairs' if lk is not None else 'rows'} ({scope} of {right.name}) read {_fmt(center)} from "
            f"{left.name}, beyond the {_fmt(tol).lstrip('+')} tolerance: {right.name}'s clock is "
            f"{'ahead' if center > 0 else 'behind'}"
            + (f" by a whole zone offset ({fixed_zone_name(quarter)})" if is_zone else "")
            + f". Fix: shift {columns[1]!r} by {_fmt(-center)} ({scope}); within tolerance: {before} -> {after} of {n}",
            {**where, "column_name": columns[1]},
            {"offset_ms": center / MS, "rows": int(members.size), "scope": scope, "matched_before": before,
             "matched_after": after, "worst_rows": worst},
            kind="time_zone_offset" if is_zone else "clock_offset"))
        fixes.append({"step": "shift", "side": "right", "by_ms": -center / MS, "scope": scope})
        info["clock_offsets"].append({"offset_ms": center / MS, "rows": int(members.size), "scope": scope})
        before = after
    if n:
        lrow_f, rrow_f, final = current()
        matched["after_fix"] = int((np.abs(final) <= tol).sum())
        stray = np.abs(final) > tol
        if lk is not None and stray.any():
            worst = _worst(np.where(stray, final, 0), lrow_f, rrow_f, final, left, right, columns, lk)
            findings.append(Finding(
                DETECTOR, Severity.WARNING,
                f"{int(stray.sum())} of {n} pairs are still further apart than {_fmt(tol).lstrip('+')} after the fixes "
                f"(worst {worst[0]['offset_ms']:+.1f} ms at {left.name} row {worst[0]['left_row']}): no zone or constant "
                "offset explains them",
                {**left.where(worst[0]["left_row"]), "column_name": columns[0]},
                {"pairs": int(stray.sum()), "worst_rows": worst}, kind="time_beyond_tolerance"))
    findings[:0] = _awareness(left, right, columns, pl, pr, local, matched)
    info["matched_within_tolerance"] = matched
    info["fix"] = fixes
    return info, findings, (fixed_l, fixed_r)


def check_alignment(left: "pandas.DataFrame", right: "pandas.DataFrame", *, on: Sequence[str | tuple[str, str]] = (),
                    time_col: str | tuple[str, str] | None = None, tolerance: str | int = "1s",
                    left_name: str = "LEFT", right_name: str = "RIGHT", left_line_offset: int | None = None,
                    right_line_offset: int | None = None) -> AlignmentReport:
    """Why ``left`` and ``right`` do not join on ``on`` / ``time_col``, and what fixes it.

    Args:
        left, right: the two tables.
        on: key columns (one or a list): a name both have, ``(left_name, right_name)``, or ``"left_name=right_name"``.
        time_col: the timestamp column: a name both have, a pair, or ``"left=right"``.
        tolerance: how far apart two timestamps may be and still be the same moment: ``"500ms"``, ``"2s"``
            (a string with a unit) or nanoseconds (int). Default ``"1s"``.
        left_name, right_name: the sources' names in messages and locations (file paths in the CLI).
        left_line_offset, right_line_offset: line of row 0 in each file (2 for CSV with a header), for locations.

    Returns:
        :class:`AlignmentReport`.

    Raises:
        InputError: neither ``on`` nor ``time_col``, a missing column (with the columns the file has), a
            missing key or timestamp (with the row and line), a value that is not a timestamp, or a bad tolerance.
    """
    import pandas as pd

    if not on and time_col is None:
        raise InputError("nothing to align: give key columns (--on KEY) and/or a timestamp column (--time-col COL)")
    tol = tolerance if isinstance(tolerance, int) and not isinstance(tolerance, bool) else parse_tolerance(tolerance)
    on = [on] if isinstance(on, str) else list(on)
    lside, rside = Side(left, left_name, left_line_offset), Side(right, right_name, right_line_offset)
    pairs = _pair_names(on, left, right)
    times = _pair_names([time_col], left, right)[0] if time_col is not None else None
    for side, cols in ((lside, [a for a, _ in pairs] + ([times[0]] if times else [])),
                       (rside, [b for _, b in pairs] + ([times[1]] if times else []))):
        _validate(side, cols)
    parsed = None
    if times:
        parsed = (parse_times(left[times[0]], column=times[0], path=left_name, line_offset=left_line_offset),
                  parse_times(right[times[1]], column=times[1], path=right_name, line_offset=right_line_offset))
    findings: list[Finding] = []
    keys_info = join = time_info = None
    kf = steps = None
    if pairs:
        keys_info, key_findings, kf, steps = _analyse_keys(lside, rside, pairs)
        findings += key_findings
    if times:
        lk, rk = kf.keys(steps) if kf is not None else (None, None)
        time_info, time_findings, fixed = _analyse_time(lside, rside, times, parsed, tol, lk, rk)
        findings += time_findings
    if pairs:
        lk, rk = kf.keys(steps)
        identity = [a for a, _ in pairs]
        if times:
            identity.append(times[0])
            bucket = max(tol, 1)
            lid = (lk + _SEP + pd.Series(fixed[0] // bucket).astype("string")).rename("id")
            rid = (rk + _SEP + pd.Series(fixed[1] // bucket).astype("string")).rename("id")
            join, dup_findings = _duplicates(kf, lid, rid, identity, ((times[0], lside), (times[1], rside)))
        else:
            lk2, rk2 = lk.rename("id"), rk.rename("id")
            join, dup_findings = _duplicates(kf, lk2, rk2, identity, None)
        findings += dup_findings
        findings += _unmatched(kf, steps, keys_info)
    summary = lambda s: {"name": s.name, "rows": int(len(s.frame)), "columns": [str(c) for c in s.frame.columns]}  # noqa: E731
    return AlignmentReport(findings, keys_info, time_info, join, summary(lside), summary(rside))
