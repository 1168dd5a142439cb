"""Timestamps from two sources on one clock: parsing as written, zone offsets, DST transitions.

A timestamp column may hold timezone-aware values (``2024-03-31T01:00:00Z``, ``...+02:00``, a tz-aware
Parquet column), naive ones (``2024-03-31 03:00:00``: a wall clock in some unknown zone), epoch numbers,
or a mix. :func:`parse_times` reads them without guessing: aware values become their UTC instant,
naive values keep their wall clock (read as if it were UTC) and are marked naive, so a caller can
tell a clock that is off by a zone offset or daylight-saving time from one that is merely skewed.

A source that writes local wall-clock time in a zone with daylight-saving time shows it in its own
data: at the spring transition an hour of wall-clock time does not exist (no rows in it), at the
autumn one an hour happens twice (twice the rows). :func:`dst_symptoms` counts both against the
neighbouring hours. :func:`to_utc` is the fix: aware values converted, naive ones localised in the
zone they were written in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from faultlib.errors import InputError

if TYPE_CHECKING:
    import numpy
    import pandas

NS_PER_S = 1_000_000_000
HOUR_NS = 3600 * NS_PER_S
#: zones with daylight-saving time tried when a source looks like local time (first match wins; zones that
#: follow the same rules over the data's range are reported beside it)
DST_ZONES = (
    "Europe/London", "Europe/Berlin", "Europe/Helsinki", "Europe/Lisbon", "Europe/Dublin", "Europe/Paris",
    "Europe/Madrid", "Europe/Amsterdam", "Europe/Warsaw", "Europe/Athens", "America/New_York", "America/Chicago",
    "America/Denver", "America/Los_Angeles", "America/Anchorage", "America/Halifax", "America/St_Johns",
    "America/Havana", "America/Santiago", "Australia/Sydney", "Australia/Adelaide", "Australia/Hobart",
    "Pacific/Auckland", "Asia/Jerusalem", "Asia/Beirut", "Africa/Cairo", "Pacific/Chatham",
)
_AWARE = r"(?:\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[zZ]|[+-]\d{2}(?::?\d{2})?|UTC|GMT))$"
_SUFFIX = r"([zZ]|[+-]\d{2}(?::?\d{2})?|UTC|GMT)$"
_EPOCH_UNITS = ((1e11, "s"), (1e14, "ms"), (1e17, "us"))


@dataclass(frozen=True)
class ParsedTimes:
    """One timestamp column, read as written.

    Attributes:
        ns: int64 ndarray, one value per row: the UTC instant (ns since the epoch) of aware values and
            epoch numbers; for naive values, the wall clock read as if it were UTC.
        aware: bool ndarray, True where the value carried a zone or offset (or was an epoch number).
        kind: ``aware``, ``naive``, ``mixed`` (both in one column) or ``epoch``.
        zones: the distinct zones or offsets of the aware values (``UTC``, ``+02:00``, ``Europe/Berlin``).
        epoch_unit: ``s``/``ms``/``us``/``ns`` for epoch numbers (chosen by magnitude), else None.
    """

    ns: Any
    aware: Any
    kind: str
    zones: tuple[str, ...]
    epoch_unit: str | None = None

    @property
    def naive_rows(self) -> int:
        return int((~self.aware).sum())


def _fail(message: str, path: Any, column: str, row: int | None, line_offset: int | None) -> InputError:
    where = f" at row {row}" if row is not None else ""
    line = row + line_offset if row is not None and line_offset is not None else None
    return InputError(f"column {column!r}{where}: {message}", path=str(path) if path is not None else None, line=line,
                      field=column)


def _to_ns(values: "pandas.Series", path: Any, column: str, line_offset: int | None) -> "numpy.ndarray":
    try:
        return values.dt.as_unit("ns").to_numpy(dtype="datetime64[ns]").view("int64")
    except (OverflowError, ValueError) as exc:
        raise _fail(f"a timestamp is out of the representable range (years 1677-2262): {exc}", path, column, None,
                    line_offset) from None


def _parse_strings(text: "pandas.Series", *, utc: bool) -> "pandas.Series":
    import pandas as pd

    for fmt in ("ISO8601", "mixed"):
        try:
            return pd.to_datetime(text, utc=utc, format=fmt, errors="coerce")
        except (ValueError, TypeError):
            continue
    return pd.Series(pd.NaT, index=text.index, dtype="datetime64[ns, UTC]" if utc else "datetime64[ns]")


def parse_times(series: "pandas.Series", *, column: str = "time", path: Any = None,
                line_offset: int | None = None) -> ParsedTimes:
    """Read a timestamp column as written (see the module docstring).

    Args:
        series: the column: datetime64 (naive or tz-aware), numbers (epoch s/ms/us/ns by magnitude) or strings.
        column: its name, for messages.
        path: the file it came from, for messages.
        line_offset: added to a 0-based row to give the file's line (2 for CSV with a header), when known.

    Returns:
        :class:`ParsedTimes`.

    Raises:
        InputError: a missing value, a value that is not a timestamp, or one out of range (names the file,
            column, row and line).
    """
    import numpy as np
    import pandas as pd

    missing = series.isna().to_numpy()
    if missing.any():
        row = int(np.argmax(missing))
        raise _fail("has no value (NaN/empty): every row needs a timestamp to align on", path, column, row, line_offset)
    kind = pd.api.types
    if kind.is_datetime64_any_dtype(series.dtype):
        tz = getattr(series.dt, "tz", None)
        if tz is None:
            return ParsedTimes(_to_ns(series, path, column, line_offset), np.zeros(len(series), bool), "naive", ())
        utc = series.dt.tz_convert("UTC")
        return ParsedTimes(_to_ns(utc, path, column, line_offset), np.ones(len(series), bool), "aware", (str(tz),))
    if kind.is_numeric_dtype(series.dtype) and not kind.is_bool_dtype(series.dtype):
        values = series.astype("float64").to_numpy()
        if not np.isfinite(values).all():
            row = int(np.argmax(~np.isfinite(values)))
            raise _fail("is not a finite number", path, column, row, line_offset)
        magnitude = float(np.abs(values).max())
        unit = next((u for bound, u in _EPOCH_UNITS if magnitude < bound), "ns")
        scale = {"s": NS_PER_S, "ms": 1_000_000, "us": 1_000, "ns": 1}[unit]
        if magnitude * scale >= 2**63:
            raise _fail("epoch numbers are out of range", path, column, None, line_offset)
        ns = np.round(values * scale).astype("int64")
        return ParsedTimes(ns, np.ones(len(series), bool), "epoch", ("UTC",), epoch_unit=unit)
    text = series.astype("string").str.strip()
    aware = text.str.contains(_AWARE, regex=True).fillna(False).to_numpy(dtype=bool)
    ns = np.zeros(len(text), dtype="int64")
    zones: tuple[str, ...] = ()
    for mask, utc in ((aware, True), (~aware, False)):
        if not mask.any():
            continue
        part = text[mask]
        parsed = _parse_strings(part.astype(object), utc=utc)
        bad = parsed.isna().to_numpy()
        if bad.any():
            row = int(np.nonzero(mask)[0][np.argmax(bad)])
            raise _fail(f"{str(part.iloc[int(np.argmax(bad))])[:40]!r} is not a timestamp", path, column, row,
                        line_offset)
        if utc:
            suffixes = part.str.extract(_SUFFIX, expand=False).str.upper().replace({"Z": "UTC", "GMT": "UTC",
                                                                                   "+00:00": "UTC", "+0000": "UTC"})
            zones = tuple(sorted(suffixes.dropna().unique()))
        ns[mask] = _to_ns(parsed, path, column, line_offset)
    kind_name = "aware" if aware.all() else "naive" if not aware.any() else "mixed"
    return ParsedTimes(ns, aware, kind_name, zones)


def zone_offsets(instants_ns: "numpy.ndarray", zone: str) -> "numpy.ndarray":
    """UTC offset of ``zone`` at each UTC instant.

    Args:
        instants_ns: int64 ndarray of UTC instants (ns since the epoch).
        zone: an IANA name (``Europe/Berlin``) or a fixed offset (``UTC+05:30``, ``UTC``).

    Returns:
        int64 ndarray of offsets in ns (local minus UTC: +1 h for Berlin in winter).
    """
    import numpy as np
    import pandas as pd

    fixed = _fixed_offset(zone)
    if fixed is not None:
        return np.full(len(instants_ns), fixed, dtype="int64")
    idx = pd.DatetimeIndex(np.asarray(instants_ns, dtype="int64").view("datetime64[ns]")).tz_localize("UTC")
    local = idx.tz_convert(zone).tz_localize(None).as_unit("ns").asi8
    return local - idx.tz_localize(None).as_unit("ns").asi8


def _fixed_offset(zone: str) -> int | None:
    if not zone.startswith("UTC") or zone == "UTC":
        return 0 if zone == "UTC" else None
    sign = -1 if zone[3] == "-" else 1
    hours, _, minutes = zone[4:].partition(":")
    return sign * (int(hours) * 3600 + int(minutes or 0) * 60) * NS_PER_S


def fixed_zone_name(offset_ns: int) -> str:
    """``UTC+01:00`` for an offset of one hour (``UTC`` for 0)."""
    if offset_ns == 0:
        return "UTC"
    minutes = abs(int(offset_ns)) // (60 * NS_PER_S)
    return f"UTC{'+' if offset_ns > 0 else '-'}{minutes // 60:02d}:{minutes % 60:02d}"


def transitions(zone: str, start_ns: int, end_ns: int) -> list[tuple[int, int, int]]:
    """``zone``'s offset changes between two UTC instants: ``(utc_ns, offset_before, offset_after)``,
    found on an hourly grid and refined to 15 minutes."""
    import numpy as np

    if _fixed_offset(zone) is not None:
        return []
    start = (int(start_ns) // HOUR_NS - 1) * HOUR_NS
    end = (int(end_ns) // HOUR_NS + 2) * HOUR_NS
    grid = np.arange(start, end + 1, HOUR_NS, dtype="int64")
    offsets = zone_offsets(grid, zone)
    out = []
    for i in np.nonzero(offsets[1:] != offsets[:-1])[0]:
        fine = grid[i] + np.arange(1, 5, dtype="int64") * (HOUR_NS // 4)
        after = zone_offsets(fine, zone)
        at = int(fine[int(np.argmax(after != offsets[i]))])
        out.append((at, int(offsets[i]), int(offsets[i + 1])))
    return out


def dst_symptoms(wall_ns: "numpy.ndarray", zone: str, *, min_neighbour_rows: float = 3.0) -> list[dict[str, Any]]:
    """What a naive column shows at each of ``zone``'s transitions within its range, were it written in
    ``zone``'s local time: an empty hour at a spring transition, a doubled one at an autumn transition.

    Args:
        wall_ns: the naive wall clocks (ns, read as if UTC), any order.
        zone: an IANA zone name.
        min_neighbour_rows: rows per hour the neighbouring hours need for a transition to count.

    Returns:
        One dict per transition: ``kind`` (``missing_hour``/``duplicated_hour``), ``local_start``,
        ``local_end`` (ISO wall clock), ``rows`` (in the window), ``neighbour_rows`` (per hour, mean of the
        hours before and after), ``symptom`` (the local-time pattern is there) and ``contradicts`` (enough
        data around and no pattern).
    """
    import numpy as np
    import pandas as pd

    wall = np.sort(np.asarray(wall_ns, dtype="int64"))
    if wall.size == 0:
        return []
    # the wall clock is at most ~15 h away from UTC: look for transitions over the widened range
    out = []
    for at, before, after in transitions(zone, int(wall[0]) - 15 * HOUR_NS, int(wall[-1]) + 15 * HOUR_NS):
        lo, hi = at + min(before, after), at + max(before, after)
        width = hi - lo
        count = lambda a, b: int(np.searchsorted(wall, b, "left") - np.searchsorted(wall, a, "left"))  # noqa: E731
        rows = count(lo, hi)
        sides = (count(lo - width, lo) * (HOUR_NS / width), count(hi, hi + width) * (HOUR_NS / width))
        neighbours = sum(sides) / 2
        per_hour_rows = rows * (HOUR_NS / width)
        enough = min(sides) >= min_neighbour_rows  # data on both sides: not the edge of the data
        if after > before:  # spring forward: [lo, hi) does not exist on the local clock
            kind, symptom = "missing_hour", enough and rows == 0
            contradicts = enough and per_hour_rows >= 0.5 * neighbours
        else:  # fall back: [lo, hi) happens twice on the local clock
            kind, symptom = "duplicated_hour", enough and per_hour_rows >= 1.6 * neighbours
            contradicts = enough and per_hour_rows <= 1.3 * neighbours
        if not (lo <= wall[-1] + width and hi >= wall[0] - width):
            continue
        iso = lambda v: pd.Timestamp(v, unit="ns").isoformat()  # noqa: E731
        out.append({"zone": zone, "kind": kind, "local_start": iso(lo), "local_end": iso(hi), "rows": rows,
                    "neighbour_rows": round(float(neighbours), 2), "symptom": bool(symptom),
                    "contradicts": bool(contradicts)})
    return out


def local_time_zones(wall_ns: "numpy.ndarray", zones: tuple[str, ...] = DST_ZONES) -> list[tuple[str, list[dict]]]:
    """The zones whose DST transitions a naive column shows.

    Args:
        wall_ns: naive wall clocks (ns, read as if UTC).
        zones: IANA zones to try, in order of preference.

    Returns:
        ``[(zone, symptoms)]`` for every zone with at least one symptom and no contradicted transition
        (see :func:`dst_symptoms`), in ``zones`` order; empty when none fits.
    """
    found = []
    for zone in zones:
        symptoms = dst_symptoms(wall_ns, zone)
        if any(s["symptom"] for s in symptoms) and not any(s["contradicts"] for s in symptoms):
            found.append((zone, symptoms))
    return found


def localize_ns(wall_ns: "numpy.ndarray", zone: str) -> tuple["numpy.ndarray", "numpy.ndarray"]:
    """UTC instants of naive wall clocks written in ``zone``, in the given (file) order.

    The repeated hour of an autumn transition is resolved by order (``ambiguous="infer"``: the clock
    going back marks the second pass); when pandas cannot infer it, those rows stay unresolved.
    Non-existent spring times are shifted forward.

    Returns:
        ``(utc_ns, unresolved)``: int64 instants (unresolved rows keep their wall clock read as UTC) and
        a bool mask of the rows that could not be resolved.
    """
    import numpy as np
    import pandas as pd

    fixed = _fixed_offset(zone)
    wall = np.asarray(wall_ns, dtype="int64")
    if fixed is not None:
        return wall - fixed, np.zeros(wall.size, dtype=bool)
    values = pd.Series(wall.view("datetime64[ns]"))
    try:
        local = values.dt.tz_localize(zone, ambiguous="infer", nonexistent="shift_forward")
    except (ValueError, TypeError):  # pytz/pandas AmbiguousTimeError subclasses ValueError
        local = values.dt.tz_localize(zone, ambiguous="NaT", nonexistent="shift_forward")
    unresolved = local.isna().to_numpy()
    utc = local.dt.tz_convert("UTC").dt.tz_localize(None)
    converted = utc.dt.as_unit("ns").to_numpy(dtype="datetime64[ns]").view("int64")
    return np.where(unresolved, wall, converted).astype("int64"), unresolved


def to_utc(series: "pandas.Series", *, naive_zone: str = "UTC") -> "pandas.Series":
    """A timestamp column as tz-aware UTC: aware values converted, naive ones localised in ``naive_zone``.

    Args:
        series: a column :func:`parse_times` accepts (strings, datetimes, epoch numbers, or a mix).
        naive_zone: the zone the naive values were written in: an IANA name (``Europe/Berlin``: the
            repeated autumn hour is resolved by row order) or ``UTC+hh:mm``. Default ``UTC``.

    Returns:
        ``datetime64[ns, UTC]`` Series with the same index; NaT where an ambiguous wall clock could not
        be resolved.

    Raises:
        InputError: values that are missing or not timestamps.
    """
    import numpy as np
    import pandas as pd

    parsed = parse_times(series, column=str(series.name or "time"))
    ns = parsed.ns.copy()
    naive = ~parsed.aware
    unresolved = np.zeros(len(ns), dtype=bool)
    if naive.any():
        fixed, bad = localize_ns(ns[naive], naive_zone)
        ns[naive] = fixed
        unresolved[np.nonzero(naive)[0][bad]] = True
    out = pd.Series(pd.DatetimeIndex(ns.view("datetime64[ns]")).tz_localize("UTC"), index=series.index)
    return out.mask(pd.Series(unresolved, index=series.index))
