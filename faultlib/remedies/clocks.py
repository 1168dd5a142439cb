"""Comparing two sources' clocks: pair their rows, then explain the offsets between them.

The offset of a pair is ``right_time - left_time`` (ns) after :func:`faultlib.remedies.times.parse_times`.
Rows are paired by key (:func:`pair_by_key`: by order within each key, in file order or time order,
whichever pairs more consistently, so even an offset of hours pairs the right rows), or, without keys,
each left row with the right row nearest in time (:func:`nearest`: offsets larger than half the
sampling interval cannot be told from a shift by whole intervals without keys). :func:`find_zone` tells
whether whole-zone offsets follow a time zone's rules (a naive local clock, with or without DST);
:func:`clusters` groups what is left into constant clock offsets. All vectorised numpy/pandas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from faultlib.remedies.times import DST_ZONES, fixed_zone_name, zone_offsets

if TYPE_CHECKING:
    import numpy
    import pandas

QUARTER_NS = 15 * 60 * 1_000_000_000
MINUTE_NS = 60 * 1_000_000_000
HOUR_NS = 60 * MINUTE_NS
#: UTC offsets real zones use (ns, both signs where they exist): whole hours -12..+14 and the half and
#: three-quarter hours of India, Nepal, Iran, Afghanistan, Myanmar, Newfoundland, the Marquesas, central
#: Australia and Chatham
ZONE_OFFSETS = tuple(sorted({h * HOUR_NS for h in range(-12, 15) if h} | {
    int(m * MINUTE_NS) for m in (-570, -210, 210, 270, 330, 345, 390, 525, 570, 630, 765)}))


@dataclass(frozen=True)
class Pairs:
    """Rows of two sources taken to be the same event.

    Attributes:
        left_row, right_row: int64 ndarrays of 0-based row numbers.
        offset: int64 ndarray, ``right - left`` in ns.
        method: ``key+file_order``, ``key+time_order`` or ``nearest_time``.
    """

    left_row: Any
    right_row: Any
    offset: Any
    method: str

    def __len__(self) -> int:
        return int(self.offset.size)


@dataclass(frozen=True)
class Cluster:
    """Offsets within ``tolerance`` of their neighbours: ``center`` (median, ns), ``members`` (indices into
    the offsets given to :func:`clusters`)."""

    center: int
    members: Any

    @property
    def size(self) -> int:
        return int(self.members.size)


def clusters(values: "numpy.ndarray", tolerance: int, *, min_size: int) -> list[Cluster]:
    """Groups of ``values`` where consecutive sorted values are at most ``tolerance`` apart.

    Args:
        values: int64 ndarray (offsets in ns).
        tolerance: the largest gap inside a group (ns).
        min_size: the fewest members a group needs to be returned.

    Returns:
        :class:`Cluster` list, largest first.
    """
    import numpy as np

    values = np.asarray(values, dtype="int64")
    if values.size == 0:
        return []
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    cuts = np.nonzero(np.diff(ordered) > max(tolerance, 0))[0] + 1
    out = []
    for members in np.split(order, cuts):
        if members.size >= min_size:
            out.append(Cluster(int(np.median(values[members])), members))
    return sorted(out, key=lambda c: -c.size)


def consistency(offsets: "numpy.ndarray", tolerance: int) -> int:
    """How many offsets fall in a cluster of offsets that agree modulo 15 minutes (a pairing score)."""
    import numpy as np

    residual = offsets - np.round(offsets / QUARTER_NS).astype("int64") * QUARTER_NS
    min_size = max(3, int(0.01 * offsets.size))
    return sum(c.size for c in clusters(residual, tolerance, min_size=min_size))


def pair_by_key(lk: "pandas.Series", rk: "pandas.Series", tl: "numpy.ndarray", tr: "numpy.ndarray",
                tolerance: int) -> Pairs:
    """Pair rows with the same (normalised) key.

    Exact repeats of key and time are paired once. For keys with as many rows on both sides, the i-th
    row of the key on the left pairs with the i-th on the right, counting in file order or in time order
    (the order whose offsets agree best, see :func:`consistency`); for the other keys, each left row pairs
    with the right row of its key nearest in time.

    Args:
        lk, rk: normalised keys (strings), one per row.
        tl, tr: int64 ns timestamps, one per row.
        tolerance: ns, used to score the orders.

    Returns:
        :class:`Pairs` sorted by left row; keys present on one side only are not paired.
    """
    import numpy as np
    import pandas as pd

    left = pd.DataFrame({"k": lk.to_numpy(dtype=object), "t": tl, "row": np.arange(len(tl))}).drop_duplicates(["k", "t"])
    right = pd.DataFrame({"k": rk.to_numpy(dtype=object), "t": tr, "row": np.arange(len(tr))}).drop_duplicates(["k", "t"])
    cl, cr = left["k"].value_counts(), right["k"].value_counts()
    common = cl.index.intersection(cr.index)
    equal = common[cl.reindex(common).to_numpy() == cr.reindex(common).to_numpy()]
    le, re_ = left[left["k"].isin(equal)], right[right["k"].isin(equal)]
    candidates = []
    for method, sort in (("key+time_order", True), ("key+file_order", False)):
        a = le.sort_values(["k", "t"], kind="stable") if sort else le
        b = re_.sort_values(["k", "t"], kind="stable") if sort else re_
        a = a.assign(r=a.groupby("k", sort=False).cumcount())
        b = b.assign(r=b.groupby("k", sort=False).cumcount())
        merged = a.merge(b, on=["k", "r"], suffixes=("_l", "_r"))
        candidates.append((method, merged))
    scored = [(consistency((m["t_r"] - m["t_l"]).to_numpy(dtype="int64"), tolerance), -i, method, m)
              for i, (method, m) in enumerate(candidates)]
    _, _, method, merged = max(scored, key=lambda s: (s[0], s[1]))
    parts = [merged[["row_l", "row_r", "t_l", "t_r"]]]
    uneven = common.difference(equal)
    if len(uneven):
        lu = left[left["k"].isin(uneven)].rename(columns={"row": "row_l", "t": "t_l"}).sort_values("t_l", kind="stable")
        ru = right[right["k"].isin(uneven)].rename(columns={"row": "row_r", "t": "t_r"}).sort_values("t_r", kind="stable")
        near = pd.merge_asof(lu, ru, left_on="t_l", right_on="t_r", by="k", direction="nearest")
        parts.append(near.dropna(subset=["row_r"])[["row_l", "row_r", "t_l", "t_r"]])
    pairs = pd.concat(parts, ignore_index=True).sort_values("row_l", kind="stable")
    lrow = pairs["row_l"].to_numpy(dtype="int64")
    rrow = pairs["row_r"].to_numpy(dtype="int64")
    return Pairs(lrow, rrow, tr[rrow] - tl[lrow], method)


def nearest(tl: "numpy.ndarray", tr: "numpy.ndarray") -> tuple["numpy.ndarray", "numpy.ndarray"]:
    """For each left time, the right row nearest in time.

    Args:
        tl, tr: int64 ns timestamps of the left and right rows (any order).

    Returns:
        ``(right_row, offset)``: int64 ndarrays of ``len(tl)``: the nearest right row and ``right - left`` in ns.
    """
    import numpy as np

    order = np.argsort(tr, kind="stable")
    sorted_r = tr[order]
    pos = np.clip(np.searchsorted(sorted_r, tl), 1, max(sorted_r.size - 1, 1))
    before = np.clip(pos - 1, 0, sorted_r.size - 1)
    after = np.clip(pos, 0, sorted_r.size - 1)
    pick = np.where(np.abs(sorted_r[after] - tl) < np.abs(sorted_r[before] - tl), after, before)
    return order[pick], sorted_r[pick] - tl


@dataclass(frozen=True)
class ZoneMatch:
    """A time zone whose offsets explain the whole-zone offsets of paired rows.

    Attributes:
        zone: IANA name, or ``UTC+hh:mm`` for a fixed offset.
        local_side: ``left`` or ``right``: the side that wrote naive local time.
        explained: bool ndarray over the pairs: offset equals the zone's offset (to the quarter hour), including
            pairs with no offset where the zone has none (a DST zone's winter in Europe/London).
        predicted: int64 ndarray over the pairs: the offset the zone predicts (ns, signed as right - left).
        offsets: the distinct predicted offsets of the explained pairs (ns), sorted.
        equivalent: other candidate zones that explain exactly the same pairs.
    """

    zone: str
    local_side: str
    explained: Any
    predicted: Any
    offsets: tuple[int, ...]
    equivalent: tuple[str, ...]

    @property
    def has_dst(self) -> bool:
        return len(self.offsets) > 1


def find_zone(offsets: "numpy.ndarray", left_instants: "numpy.ndarray", right_instants: "numpy.ndarray",
              naive_left: "numpy.ndarray", naive_right: "numpy.ndarray", *, zones: tuple[str, ...] = DST_ZONES,
              min_rows: int = 3) -> ZoneMatch | None:
    """The zone (and side) whose UTC offsets explain the most zone-sized offsets (an offset a real zone uses,
    :data:`ZONE_OFFSETS`, to the quarter hour).

    Args:
        offsets: ``right - left`` per pair (ns).
        left_instants, right_instants: each pair's times (ns; for the side assumed correct, its UTC instant).
        naive_left, naive_right: per pair, whether that side's value was naive (a local clock must be naive).
        zones: DST zones to try, besides fixed offsets taken from the data.
        min_rows: fewest explained pairs to report a zone.

    Returns:
        The best :class:`ZoneMatch` (most pairs explained; then the side whose explained values are naive;
        then a fixed offset over a DST zone when one offset explains them, DST zones in ``zones`` order),
        or None when fewer than ``min_rows`` pairs are whole-zone offsets.
    """
    import numpy as np

    quarter = np.round(offsets / QUARTER_NS).astype("int64") * QUARTER_NS
    shifted = np.isin(quarter, ZONE_OFFSETS)   # a skew of 40 min is a clock problem, not a zone
    if shifted.sum() < min_rows:
        return None
    results = []
    for side, instants, sign, naive in (("right", left_instants, 1, naive_right), ("left", right_instants, -1, naive_left)):
        fixed = sorted({fixed_zone_name(sign * int(q)) for q in np.unique(quarter[shifted])})
        for rank, zone in enumerate([*fixed, *zones]):
            predicted = sign * zone_offsets(instants, zone)
            hit = shifted & (np.abs(quarter - predicted) < MINUTE_NS)
            count = int(hit.sum())
            if count < min_rows:
                continue
            # a DST zone is also right where it predicts no offset and there is none (London in winter)
            explained = hit | (~shifted & (predicted == 0))
            naive_share = float(naive[hit].mean())
            distinct = tuple(sorted({int(v) for v in np.unique(predicted[explained])}))
            preference = zone.startswith("UTC") if len(distinct) == 1 else not zone.startswith("UTC")
            results.append([[count, naive_share, int(explained.sum()), preference, -rank],
                            zone, side, explained, predicted, distinct])
    if not results:
        return None
    # when both sides are naive, prefer the side a named zone explains (America/Chicago over "UTC+05:00")
    named = {(r[2], r[0][0]) for r in results if not r[1].startswith("UTC")}
    for r in results:
        r[0].insert(2, (r[2], r[0][0]) in named)
    results.sort(key=lambda r: tuple(r[0]), reverse=True)
    _, zone, side, explained, predicted, distinct = results[0]
    same = tuple(r[1] for r in results[1:] if r[2] == side and r[1] != zone and np.array_equal(r[3], explained)
                 and not r[1].startswith("UTC"))
    return ZoneMatch(zone, side, explained, predicted, distinct, same)


def zone_by_matches(local_wall_ns: "numpy.ndarray", other_ns: "numpy.ndarray", tolerance: int, *,
                    zones: tuple[str, ...] = DST_ZONES) -> list[tuple[str, int]]:
    """Candidate zones of a naive clock ranked by how many of its rows meet a row of the other source within
    ``tolerance`` once localised there (each row compared with the other source's nearest row in time).

    Candidates: ``UTC``, every fixed offset of :data:`ZONE_OFFSETS` (``UTC+05:30``) and the DST zones
    ``zones``; a zone is localised with :func:`faultlib.remedies.times.localize_ns` (the repeated autumn hour
    resolved by row order, the missing spring hour shifted forward).

    Args:
        local_wall_ns: int64 wall clocks of the naive side (read as if UTC).
        other_ns: int64 instants (or wall clocks read as UTC) of the other side.
        tolerance: ns.
        zones: DST zones to try besides the fixed offsets.

    Returns:
        ``[(zone, matched_rows)]``, most matched first (fixed offsets before DST zones on a tie, so a range
        without a transition is not credited to a DST zone).
    """
    import numpy as np

    from faultlib.remedies.times import localize_ns

    if local_wall_ns.size == 0 or other_ns.size == 0:
        return []
    scored = []
    candidates = ["UTC", *(fixed_zone_name(o) for o in ZONE_OFFSETS), *zones]
    for rank, zone in enumerate(candidates):
        utc, _ = localize_ns(local_wall_ns, zone)
        matched = int((np.abs(nearest(utc, other_ns)[1]) <= tolerance).sum())
        scored.append((matched, -rank, zone))
    scored.sort(reverse=True)
    return [(zone, matched) for matched, _, zone in scored]
