"""The shape of ``check align``'s answer: its kinds, the two sides, the report, and tolerances."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from faultlib.errors import InputError
from faultlib.findings import Finding

if TYPE_CHECKING:
    pass

DETECTOR = "align"
KINDS = {
    "key_dtype_mismatch": "key columns hold numbers on one side and text on the other (pandas refuses to merge them)",
    "key_whitespace": "keys match only after stripping leading/trailing whitespace",
    "key_case": "keys match only after folding case",
    "key_zero_padding": "keys match only after removing the zero padding of numeric ids",
    "duplicate_keys": "a side repeats a key (or key and time) where the join's cardinality forbids it (a lookup side, "
                      "or both sides: many-to-many), so the join multiplies rows",
    "unmatched_keys": "rows whose key the other side lacks even after normalisation (warning when the join drops "
                      "records, info for a lookup's unused entries or rows a left/outer join keeps)",
    "null_keys_match": "rows with a missing key on both sides: pandas' merge matches NaN to NaN, so they pair with "
                       "each other and attach unrelated records",
    "missing_timestamps": "rows without a timestamp, left out of the time analysis (merge_asof refuses them)",
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
STEP_KIND = {"strip_whitespace": "key_whitespace", "casefold": "key_case", "strip_leading_zeros": "key_zero_padding"}
STEP_WORDS = {"strip_whitespace": "stripping whitespace", "casefold": "folding case",
               "strip_leading_zeros": "removing zero padding"}
SEP = "\x1f"


@dataclass(frozen=True)
class Side:
    """One source: its table, its name in messages (a file path or ``LEFT``) and the line of row 0 in the
    file (2 for CSV with a header, 1 for JSON Lines, None when rows have no line)."""

    frame: Any
    name: str
    line_offset: int | None = None
    rows: Any = None
    """int ndarray: the file's row of each frame row, when rows were left out (missing timestamps)."""

    def where(self, row: int) -> dict[str, Any]:
        if self.rows is not None:
            row = int(self.rows[row])
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
    if pd.isna(value):  # 'nan' and 'NaT' parse as NaT, no duration at all
        raise InputError(f"tolerance {raw!r} is not a duration: write e.g. 500ms, 2s or 1min", field="--tolerance")
    if value < pd.Timedelta(0):
        raise InputError(f"tolerance {raw!r} must be >= 0", field="--tolerance")
    return int(value.value)


def pair_names(items: Sequence[str | tuple[str, str]], left: Any, right: Any) -> list[tuple[str, str]]:
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


def validate_columns(side: Side, columns: list[str]) -> None:
    """Refuse a column the file lacks (missing values in it are data, measured elsewhere)."""
    from faultlib.readers.tables import require_columns

    require_columns(side.frame, columns, side.name)
