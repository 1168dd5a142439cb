"""Key analysis of ``check align``: formats that differ, keys duplicated or unmatched after normalisation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from faultlib.detect.data.alignment.report import (
    DETECTOR,
    SEP,
    STEP_KIND,
    STEP_WORDS,
    Side,
)
from faultlib.findings import Finding, Severity
from faultlib.remedies.keys import PANDAS, dtype_class, normalise_keys

if TYPE_CHECKING:
    import numpy
    import pandas

def _composite(columns: list["pandas.Series"]) -> "pandas.Series":
    out = columns[0].reset_index(drop=True)
    if len(columns) > 1:
        out = out.str.cat([c.reset_index(drop=True) for c in columns[1:]], sep=SEP)
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


def analyse_keys(left: Side, right: Side, pairs: list[tuple[str, str]]) -> tuple[dict, list[Finding], _KeyFrame, dict]:
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
                f"{STEP_WORDS[step]} ({previous} -> {after} of {len(left.frame)}), e.g. {shown}",
                {"file": right.name, "column_name": col["right"]},
                {"column": col, "matched_before": previous, "matched_after": after, "examples": examples,
                 "fix": [step], "pandas": PANDAS[step]},
                kind=STEP_KIND[step]))
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


def unmatched(kf: _KeyFrame, steps: dict, info: dict) -> list[Finding]:
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


def duplicates(kf: _KeyFrame, lid: "pandas.Series", rid: "pandas.Series", identity: list[str],
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

