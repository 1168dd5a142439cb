"""Time analysis of ``check align``: naive vs aware clocks, zones, daylight-saving time, constant offsets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from faultlib.detect.data.alignment.report import (
    DETECTOR,
    MS,
    QUARTER_NS,
    SEP,
    WORST,
    Side,
)
from faultlib.findings import Finding, Severity
from faultlib.remedies.clocks import clusters, find_zone, nearest, pair_by_key, zone_by_matches
from faultlib.remedies.times import (
    HOUR_NS,
    ParsedTimes,
    dst_symptoms,
    fixed_zone_name,
    local_time_zones,
    localize_ns,
)

if TYPE_CHECKING:
    import numpy

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
            row["key"] = str(lk.iloc[a]).replace(SEP, ",")
        if left.line_offset is not None:
            row["left_line"] = left.where(a)["line"]
        if right.line_offset is not None:
            row["right_line"] = right.where(b)["line"]
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


def _agreeing(offsets: "numpy.ndarray", tol: int) -> int:
    """Rows whose offsets agree with one constant offset (the largest cluster): what a zone fix must raise, since a
    constant skew left after it is fixed next."""
    found = clusters(offsets, tol, min_size=1)
    return found[0].size if found else 0


def _zone_by_matches(pl: ParsedTimes, pr: ParsedTimes, tol: int, info: dict) -> tuple | None:
    """Without keys and without DST symptoms: the side and zone whose localisation makes the most rows meet a row
    of the other side within ``tol``, when that beats reading the naive values as written by at least
    max(3, 1 %) rows (``info["zone_search"]`` keeps the ranking)."""
    import numpy as np

    best = None
    for name, p, q in (("left", pl, pr), ("right", pr, pl)):
        if p.naive_rows < 3:
            continue
        ranked = zone_by_matches(p.ns[~p.aware], q.ns, tol)
        as_written = dict(ranked).get("UTC", 0)
        top_zone, top = ranked[0]
        ties = tuple(z for z, c in ranked[1:] if c == top and not z.startswith("UTC"))
        info.setdefault("zone_search", {})[name] = {"as_written": as_written, "best": top_zone, "best_matched": top,
                                                   "ranking": [{"zone": z, "matched": c} for z, c in ranked[:5]]}
        if top_zone != "UTC" and top >= as_written + max(3, int(0.01 * p.naive_rows)) and (best is None or top > best[0]):
            best = (top, (top_zone, ties[:4], (), name, p.naive_rows, int(np.argmax(~p.aware))))
    return best[1] if best else None


def analyse_time(left: Side, right: Side, columns: tuple[str, str], parsed: tuple[ParsedTimes, ParsedTimes], tol: int,
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
    raw_off = off
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
        # irregular events: the zone whose localisation makes the most rows meet; regular sampling (every zone
        # ties): the zone whose DST transitions the naive side's own data shows
        zone_info = _zone_by_matches(pl, pr, tol, info)
        for name, p, q in (("left", pl, pr), ("right", pr, pl)) if zone_info is None else ():
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
        agree_before, agree_after = _agreeing(raw_off, tol), _agreeing(off, tol)
        if lk is None and agree_after <= agree_before:   # unkeyed: a zone that does not make more rows meet is not proposed
            info["zone_rejected"] = {"name": zone_name, "local_side": local, "matched_before": raw,
                                     "matched_after": after, "agreeing_before": agree_before,
                                     "agreeing_after": agree_after}
            fixed_l, fixed_r = pl.ns.copy(), pr.ns.copy()
            zone_info = None
            rrow, off = nearest(fixed_l, fixed_r)
            adj = off.copy()
    if zone_info is not None:
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


