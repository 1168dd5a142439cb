"""The join a pipeline does, like pandas: which rows it drops, repeats or invents, and NaN keys that match.

``how`` is pandas' ``merge(how=...)`` (``inner``, ``left``, ``right``, ``outer``) and ``validate`` its
``merge(validate=...)`` (``one_to_one``, ``one_to_many``, ``many_to_one``, ``many_to_many``). Without
``validate`` the cardinality is inferred from the (normalised) keys: ``one_to_one`` when both sides are
unique, ``many_to_many`` when neither is, else the table the join keeps (``left`` for ``inner``/``left``/
``outer``, ``right`` for ``right``) is the "many" side and the other its lookup, which must be unique. So
a lookup that repeats keys multiplies the kept table's rows, the classic fan-out (a label table with
retried rows), and is reported; pass ``validate="one_to_many"`` when one row of the kept table should
meet several.

- ``duplicate_keys`` (warning) only where repeats break the cardinality: a side declared (or inferred)
  "one" that repeats a key (pandas' ``validate`` would raise ``MergeError``), or both sides repeating
  the same key (many-to-many: the join multiplies rows);
- ``unmatched_keys``: rows whose key the other side lacks. ``warning`` when the join drops them and they
  are records (a "many" side, or either side of a one-to-one or many-to-many join), ``info`` otherwise
  (a lookup table's unused entries, rows a left/outer join keeps with NaN columns);
- ``null_keys_match`` (error): rows with a missing key value on both sides. pandas matches NaN to NaN
  (and None, NA) in ``merge``, so every such left row meets every such right row: a left join can
  return more rows than its left side and attach unrelated records. The evidence gives the rows
  involved and the rows the join makes of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from faultlib.detect.data.alignment.report import DETECTOR, Side
from faultlib.findings import Finding, Severity

if TYPE_CHECKING:
    import pandas

    from faultlib.detect.data.alignment.keys import _KeyFrame

HOW = ("inner", "left", "right", "outer")
VALIDATE = ("one_to_one", "one_to_many", "many_to_one", "many_to_many")
EXAMPLES = 5


def _values(side: Side, cols: list[str], rows) -> list[Any]:
    from faultlib.detect.data.alignment.keys import _raw_key_values

    return _raw_key_values(side, cols, rows)


def cardinality(lid: "pandas.Series", rid: "pandas.Series", how: str, validate: str | None) -> dict[str, Any]:
    """The join's cardinality: ``{"validate", "inferred", "left_unique", "right_unique", "one": {side: bool}}``
    (``one[side]``: that side must not repeat a key). Inferred: ``one_to_one`` when both sides are unique,
    ``many_to_many`` when neither is, else the table the join keeps (left; right for ``how="right"``) is the
    "many" side and the other its lookup, which must be unique."""
    left_unique, right_unique = bool(lid.is_unique), bool(rid.is_unique)
    inferred = validate is None
    if inferred:
        if left_unique and right_unique:
            validate = "one_to_one"
        elif not (left_unique or right_unique):
            validate = "many_to_many"
        else:  # the side the join keeps is the "many" side, the other its lookup
            validate = "one_to_many" if how == "right" else "many_to_one"
    one = {"left": validate.startswith("one_"), "right": validate.endswith("_one")}
    return {"validate": validate, "inferred": inferred, "left_unique": left_unique, "right_unique": right_unique,
            "one": one}


def null_keys(kf: "_KeyFrame", steps: dict, how: str) -> list[Finding]:
    """``null_keys_match``: rows with a missing key value on both sides, matched to each other as pandas does."""
    import numpy as np

    if not (kf.null_left.any() and kf.null_right.any()):
        return []
    lk, rk = kf.keys(steps, shared_null=True)
    lrows, rrows = np.nonzero(kf.null_left)[0], np.nonzero(kf.null_right)[0]
    cl, cr = lk.iloc[lrows].value_counts(), rk.iloc[rrows].value_counts()
    common = cl.index.intersection(cr.index)
    if common.empty:
        return []
    pairs = int((cl[common].to_numpy() * cr[common].to_numpy()).sum())
    lin = lrows[lk.iloc[lrows].isin(common).to_numpy()]
    rin = rrows[rk.iloc[rrows].isin(common).to_numpy()]
    lcols, rcols = [a for a, _ in kf.pairs], [b for _, b in kf.pairs]
    added = pairs - lin.size                        # rows beyond one per involved left row
    examples = {"left": [{**kf.left.where(int(r)), "key": v} for r, v in zip(lin[:EXAMPLES], _values(kf.left, lcols, lin[:EXAMPLES]))],
                "right": [{**kf.right.where(int(r)), "key": v}
                          for r, v in zip(rin[:EXAMPLES], _values(kf.right, rcols, rin[:EXAMPLES]))]}
    first = examples["left"][0]
    return [Finding(
        DETECTOR, Severity.ERROR,
        f"{lin.size} rows of {kf.left.name} and {rin.size} of {kf.right.name} have a missing {' + '.join(lcols)} "
        f"(NaN/empty), and pandas' merge matches NaN to NaN: a {how} join pairs each with each, {pairs} rows "
        f"({added:+d} beyond one per left row) that attach unrelated records (e.g. {kf.left.name} row {first['index']}). "
        "Drop or fill the missing keys before the join (df.dropna(subset=keys)), or filter them out of both sides",
        {**kf.left.where(int(lin[0])), "column_name": lcols[0]},
        {"left_rows": int(lin.size), "right_rows": int(rin.size), "joined_rows": pairs, "rows_added": added,
         "row_multiplication": round(pairs / lin.size, 6), "left_null_rows": int(kf.null_left.sum()),
         "right_null_rows": int(kf.null_right.sum()), "rows": examples,
         "fix": "left.dropna(subset=keys).merge(right.dropna(subset=keys), ...)"},
        kind="null_keys_match")]


def unmatched(kf: "_KeyFrame", steps: dict, info: dict, how: str, card: dict[str, Any]) -> list[Finding]:
    """``unmatched_keys`` per side, graded by whether the join drops those rows and whether they are records."""
    import numpy as np

    lk, rk = kf.keys(steps)
    findings = []
    for side, other, keys, other_keys, cols, nulls, name in (
            (kf.left, kf.right, lk, rk, [a for a, _ in kf.pairs], kf.null_left, "left"),
            (kf.right, kf.left, rk, lk, [b for _, b in kf.pairs], kf.null_right, "right")):
        missing = ~keys.isin(other_keys).to_numpy()
        rows = np.nonzero(missing)[0]
        distinct = int(keys[missing & ~nulls].nunique())
        label = "left_only" if name == "left" else "right_only"
        info[f"{label}_rows"] = int(rows.size)
        info[f"{label}_keys"] = distinct
        info[f"{label}_null_rows"] = int(nulls.sum())
        if rows.size == 0:
            continue
        examples = _values(side, cols, rows[:5])
        info[f"{label}_examples"] = examples
        kept = how == "outer" or how == name or (how == "left" and name == "left")
        dropped = not kept
        records = not card["one"][name] or card["validate"] in ("one_to_one", "many_to_many")
        severe = dropped and records
        fate = ("the join drops them" if dropped else f"a {how} join keeps them with NaN in {other.name}'s columns")
        null_note = f", {int(nulls[rows].sum())} of them with a missing key" if nulls[rows].any() else ""
        findings.append(Finding(
            DETECTOR, Severity.WARNING if severe else Severity.INFO,
            f"{rows.size} rows of {side.name} ({distinct} keys{null_note}, {rows.size / len(keys):.1%}) have no key in "
            f"{other.name} even after normalisation, e.g. {', '.join(map(repr, examples[:3]))}: {fate}"
            + ("" if severe else f" ({'unused entries of the lookup side' if dropped else 'nothing lost'})"),
            {**side.where(int(rows[0])), "column_name": cols[0]},
            {"rows": int(rows.size), "keys": distinct, "fraction": round(rows.size / len(keys), 6), "examples": examples,
             "null_key_rows": int(nulls[rows].sum()), "dropped_by_join": dropped, "how": how},
            kind="unmatched_keys"))
    return findings


def duplicates(kf: "_KeyFrame", lid: "pandas.Series", rid: "pandas.Series", identity: list[str],
               time_sides: tuple[Any, Any] | None, how: str = "inner", validate: str | None = None
               ) -> tuple[dict, list[Finding]]:
    """Repeated identities per side, the join's cardinality and the fan-out of the join on them (identity: the
    normalised key, plus, with a timestamp, the fixed time rounded down to the tolerance). Repeats are findings
    only where they break the cardinality (module docstring)."""
    import numpy as np
    import pandas as pd

    counts_l, counts_r = lid.value_counts(), rid.value_counts()
    common = counts_l.index.intersection(counts_r.index)
    join_rows = int((counts_l[common].to_numpy() * counts_r[common].to_numpy()).sum())
    matched_l, matched_r = int(counts_l[common].sum()), int(counts_r[common].sum())
    mult = join_rows / matched_l if matched_l else 0.0
    card = cardinality(lid, rid, how, validate)
    join = {"identity": identity, "how": how, "validate": card["validate"], "validate_inferred": card["inferred"],
            "left_unique": card["left_unique"], "right_unique": card["right_unique"], "rows_inner": join_rows,
            "matched_left_rows": matched_l, "matched_right_rows": matched_r, "row_multiplication": round(mult, 6)}
    findings = []
    both = counts_l[common][(counts_l[common] > 1).to_numpy() & (counts_r[common] > 1).to_numpy()].index
    for side, ids, counts, other_counts, cols, name in (
            (kf.left, lid, counts_l, counts_r, [a for a, _ in kf.pairs], "left"),
            (kf.right, rid, counts_r, counts_l, [b for _, b in kf.pairs], "right")):
        dup = counts[counts > 1]
        if not card["one"][name]:   # a "many" side: only an inferred many-to-many's repeats that meet repeats
            dup = dup[dup.index.isin(both)] if card["inferred"] else dup.iloc[:0]
        if dup.empty:
            continue
        extra = int((dup - 1).sum())
        fanout = int((dup.reindex(other_counts.index.intersection(dup.index)) - 1).mul(
            other_counts.reindex(other_counts.index.intersection(dup.index))).sum())
        worst_ids = dup.sort_values(ascending=False, kind="stable").head(5)
        first_row = pd.Series(np.arange(len(ids)), index=ids.to_numpy()).groupby(level=0).first()
        rows = first_row.reindex(worst_ids.index).to_numpy(dtype="int64")
        values = _values(side, cols, rows)
        worst = [{"key": v, "count": int(c), "row": int(r)} for v, c, r in zip(values, worst_ids.to_numpy(), rows)]
        if time_sides is not None:
            column, frame_side = time_sides[0 if name == "left" else 1]
            for w in worst:
                w["time"] = str(frame_side.frame[column].iloc[w["row"]])
        why = (f"the join is {card['validate']}{' (inferred)' if card['inferred'] else ''}, so {side.name} must not "
               "repeat a key (pandas' validate= would raise MergeError)" if card["one"][name]
               else "both sides repeat these keys (many-to-many): every repeat meets every repeat")
        hint = (" If one row should meet several, say so: --validate one_to_many / many_to_one"
                if card["inferred"] and card["one"][name] else "")
        findings.append(Finding(
            DETECTOR, Severity.WARNING,
            f"{side.name} repeats {len(dup)} {' + '.join(identity)} values ({extra} extra rows, up to {int(dup.max())}x, "
            f"e.g. {worst[0]['key']!r}): {why}; a join on them gains {fanout} rows; the fixed inner join has "
            f"{join_rows} rows for {matched_l} matched left rows (x{mult:.3f}). Deduplicate (drop_duplicates on the "
            f"key) or aggregate first.{hint}",
            {**side.where(worst[0]["row"]), "column_name": cols[0]},
            {"duplicated_values": int(len(dup)), "extra_rows": extra, "max_count": int(dup.max()), "worst": worst,
             "join_rows_added": fanout, "rows_inner": join_rows, "row_multiplication": round(mult, 6),
             "validate": card["validate"], "validate_inferred": card["inferred"]},
            kind="duplicate_keys"))
    return {**join, "_card": card}, findings
