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

NULL = "\x00null"
"""The token of a missing key value in normalised keys (no real key starts with NUL)."""

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


def null_rows(frame: "pandas.DataFrame", columns: list[str]) -> "numpy.ndarray":
    """Rows with a missing value (None, NaN, NA, empty cell) in any of ``columns``: bool ndarray."""
    return frame[columns].isna().any(axis=1).to_numpy(dtype=bool)


class _KeyFrame:
    """Normalised keys of both sides for a choice of steps per column, with match counts.

    A row with a missing key value gets a key of its own (``NULL`` + side + row), so it matches nothing and
    repeats nothing here; :func:`null_keys` measures what pandas does with those rows instead (it matches
    NaN to NaN)."""

    def __init__(self, left: Side, right: Side, pairs: list[tuple[str, str]]):
        self.left, self.right, self.pairs = left, right, pairs
        self.null_left = null_rows(left.frame, [a for a, _ in pairs])
        self.null_right = null_rows(right.frame, [b for _, b in pairs])
        self._cache: dict[tuple, tuple] = {}

    def keys(self, steps: dict[int, tuple[str, ...]], *, shared_null: bool = False
             ) -> tuple["pandas.Series", "pandas.Series"]:
        """Normalised composite keys of both sides (object Series); ``shared_null``: a missing value is the one
        token ``NULL`` on both sides (pandas' NaN-matches-NaN), else each null-keyed row is unique."""
        import numpy as np

        token = (tuple(sorted(steps.items())), shared_null)
        if token not in self._cache:
            out = []
            for side, nulls, names, tag in ((self.left, self.null_left, [a for a, _ in self.pairs], "l"),
                                            (self.right, self.null_right, [b for _, b in self.pairs], "r")):
                parts = [normalise_keys(side.frame[c], steps.get(i, ())).fillna(NULL) for i, c in enumerate(names)]
                key = _composite(parts).astype(object)  # object: pandas' hash-table isin (Arrow's loops in Python)
                if not shared_null and nulls.any():
                    rows = np.nonzero(nulls)[0]
                    key.iloc[rows] = [f"{NULL}{tag}{r}" for r in rows]
                out.append(key)
            self._cache[token] = (out[0], out[1])
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
    lframe = left.frame[lcols][~null_rows(left.frame, lcols)]    # null keys: measured by null_keys()
    rframe = right.frame[rcols][~null_rows(right.frame, rcols)]
    lidx = pd.MultiIndex.from_frame(lframe) if len(lcols) > 1 else pd.Index(lframe[lcols[0]])
    ridx = pd.MultiIndex.from_frame(rframe) if len(rcols) > 1 else pd.Index(rframe[rcols[0]])
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
