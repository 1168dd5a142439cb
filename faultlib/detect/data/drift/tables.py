"""Two tables made comparable, column by column, or an :class:`~faultlib.errors.InputError` that says why not.

The drift tests compare a column of the reference with the same column of the current table, so
both must hold the same columns, each of one type in both (numeric, or categorical: text, booleans).
Every problem names the table (its file, when it came from one), the column and, where it applies,
the row and the file's line (CSV/TSV: row + 2 for the header; JSON Lines: row + 1).

Missing values (empty cells, None, NaN) and infinities are data, not errors: each :class:`ColumnPair`
holds the present, finite values for the distribution tests, and counts what is missing (the missing
share is tested on its own by :mod:`~faultlib.detect.data.drift.batch`). A column with no value at all on
one side takes the other side's type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from faultlib.errors import InputError

if TYPE_CHECKING:
    import pandas

NUMERIC = "numeric"
CATEGORICAL = "categorical"


@dataclass(frozen=True)
class ColumnPair:
    """One column of both tables, ready for the tests.

    Attributes:
        name: the column name.
        type: ``numeric`` (both float64 arrays) or ``categorical`` (both arrays of ``str``).
        reference: the present, finite values, shape ``(n_present,)``.
        current: shape ``(m_present,)``.
        reference_present, current_present: bool arrays over all rows (``None``: every row present).
        reference_missing, current_missing: ``{"null": int, "posinf": int, "neginf": int}`` rows without a
            usable value (empty/None/NaN, +inf, -inf).
    """

    name: str
    type: str
    reference: np.ndarray
    current: np.ndarray
    reference_present: np.ndarray | None = None
    current_present: np.ndarray | None = None
    reference_missing: dict[str, int] | None = None
    current_missing: dict[str, int] | None = None

    def rows(self, side: str) -> int:
        """All rows of ``side`` (``reference`` or ``current``), present or not."""
        mask = getattr(self, f"{side}_present")
        return int(mask.size) if mask is not None else int(getattr(self, side).size)

    def missing(self, side: str) -> int:
        """Rows of ``side`` without a usable value."""
        return self.rows(side) - int(getattr(self, side).size)


def _line(source: str, row: int) -> int | None:
    suffix = Path(source).suffix.lower()
    if suffix in (".csv", ".tsv"):
        return row + 2
    if suffix in (".jsonl", ".ndjson"):
        return row + 1
    return None


def _kind(series: "pandas.Series", source: str) -> str:
    """``numeric`` or ``categorical`` as the column's values are written (JSON may mix types)."""
    from pandas.api import types

    if types.is_bool_dtype(series.dtype):
        return CATEGORICAL
    if types.is_numeric_dtype(series.dtype):
        return NUMERIC
    if types.is_string_dtype(series.dtype) and not types.is_object_dtype(series.dtype):
        return CATEGORICAL
    kinds = set()
    for row, value in enumerate(series):
        if value is None or (isinstance(value, float) and np.isnan(value)):
            continue
        if isinstance(value, (bool, np.bool_, str)):
            kinds.add(CATEGORICAL)
        elif isinstance(value, (int, float, np.integer, np.floating)):
            kinds.add(NUMERIC)
        else:
            raise InputError(f"column {series.name!r} holds a {type(value).__name__} at row {row}: drift tests need "
                             "numbers or text in every cell", path=source, line=_line(source, row),
                             field=str(series.name))
        if len(kinds) > 1:
            raise InputError(f"column {series.name!r} mixes numbers and text (row {row} is {value!r}): give each "
                             "column one type", path=source, line=_line(source, row), field=str(series.name))
    return kinds.pop() if kinds else CATEGORICAL


def _values(series: "pandas.Series", kind: str) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """The present, finite values of a column, the mask of present rows, and the counts of what is missing."""
    from pandas.api import types

    numbers = types.is_numeric_dtype(series.dtype) and not types.is_bool_dtype(series.dtype)
    null = series.isna().to_numpy(dtype=bool, copy=True)
    posinf = neginf = np.zeros(len(series), dtype=bool)
    if kind == NUMERIC or numbers:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        posinf, neginf = values == np.inf, values == -np.inf
    present = ~(null | posinf | neginf)
    counts = {"null": int(null.sum()), "posinf": int(posinf.sum()), "neginf": int(neginf.sum())}
    if kind == NUMERIC:
        return (values if present.all() else values[present]), present, counts
    if numbers:  # numeric codes treated as categories: 3 and 3.0 are one category
        kept = values[present]
        return (np.asarray([str(int(v)) if v.is_integer() else repr(float(v)) for v in kept], dtype=object),
                present, counts)
    return np.asarray([str(v) for v in series.to_numpy(dtype=object)[present]], dtype=object), present, counts


def align_tables(reference: "pandas.DataFrame", current: "pandas.DataFrame", *, columns: Sequence[str] | None = None,
                 categorical: Sequence[str] = (), reference_source: str = "reference",
                 current_source: str = "current") -> list[ColumnPair]:
    """The columns both tables must share, typed and checked.

    Args:
        reference: the reference table (the data the model was validated on), one row per sample.
        current: the table to compare with it.
        columns: the columns to compare; ``None`` = every column, which then must be the same set in
            both tables (order may differ).
        categorical: columns to treat as categorical even when they hold numbers (codes, ids).
        reference_source: the reference's file (or a name), used in error messages.
        current_source: the current table's file (or a name).

    Returns:
        One :class:`ColumnPair` per column, in the reference's column order (or ``columns``' order).

    Raises:
        InputError: a column missing from one table or present in only one (naming the file that
            lacks or has it), a column numeric in one table and text in the other, a column mixing
            numbers and text (naming the row and line), fewer than 2 rows. Missing and non-finite
            values are data (module docstring).
    """
    ref_cols, cur_cols = [str(c) for c in reference.columns], [str(c) for c in current.columns]
    if columns:
        wanted = list(dict.fromkeys(columns))
        for table, source, have in ((reference, reference_source, ref_cols), (current, current_source, cur_cols)):
            missing = [c for c in wanted if c not in have]
            if missing:
                raise InputError(f"has no column {', '.join(map(repr, missing))}; its columns are "
                                 f"{', '.join(map(repr, have))}", path=source, field=missing[0])
    else:
        only_ref = [c for c in ref_cols if c not in cur_cols]
        if only_ref:
            raise InputError(f"has no column {', '.join(map(repr, only_ref))}, which {reference_source} has: compare "
                             "tables with the same columns, or name the shared ones with --columns",
                             path=current_source, field=only_ref[0])
        only_cur = [c for c in cur_cols if c not in ref_cols]
        if only_cur:
            raise InputError(f"has column {', '.join(map(repr, only_cur))}, which {reference_source} lacks: compare "
                             "tables with the same columns, or name the shared ones with --columns",
                             path=current_source, field=only_cur[0])
        wanted = ref_cols
    unknown = [c for c in categorical if c not in wanted]
    if unknown:
        raise InputError(f"--categorical names {', '.join(map(repr, unknown))}, not among the compared columns "
                         f"{', '.join(map(repr, wanted))}", path=reference_source, field=unknown[0])
    for table, source in ((reference, reference_source), (current, current_source)):
        if len(table) < 2:
            raise InputError(f"has {len(table)} row(s): a drift test needs at least 2", path=source)
    pairs = []
    for name in wanted:
        ref_series, cur_series = reference[name], current[name]
        ref_kind, cur_kind = _kind(ref_series, reference_source), _kind(cur_series, current_source)
        if ref_series.isna().all():      # no value at all: the column's type is the other side's
            ref_kind = cur_kind
        elif cur_series.isna().all():
            cur_kind = ref_kind
        if name in categorical:
            ref_kind = cur_kind = CATEGORICAL
        elif ref_kind != cur_kind:
            raise InputError(f"column {name!r} is {cur_kind} here but {ref_kind} in {reference_source}: give it one "
                             "type in both (or pass --categorical for codes)", path=current_source, field=name)
        ref_values, ref_present, ref_missing = _values(ref_series, ref_kind)
        cur_values, cur_present, cur_missing = _values(cur_series, cur_kind)
        pairs.append(ColumnPair(name, ref_kind, ref_values, cur_values, ref_present, cur_present, ref_missing,
                                cur_missing))
    return pairs


#: a row key's name: ``id``, ``user_id``, ``row-index``, ``sessionKey``... (``userId``, ``userID``: camelCase only,
#: so ``paid`` and ``fluid`` are not), and ``Unnamed: 0``: the header pandas gives the index ``DataFrame.to_csv()``
#: writes by default (an empty name), 0..n-1 in each file, which a longer table shifts)
_KEY_NAME = re.compile(r"(?i:(^|[_\-. ])(id|idx|index|key|uuid)$)|[a-z0-9](Id|ID|Key)$|^Unnamed: \d+$")


#: fewest rows of each table for a run of consecutive integers to be taken for a row key without an id's name
MIN_KEY_ROWS = 10


def row_key(pair: ColumnPair, reference: "pandas.DataFrame", current: "pandas.DataFrame") -> bool:
    """Whether a column is a row key rather than a feature, decided by its values: integers with a distinct value
    in every row of both tables (nothing missing) that are either named like an id (``id``, ``user_id``,
    ``userId``...: hashed or sampled ids) or, in each table of at least :data:`MIN_KEY_ROWS` rows, a run of
    consecutive integers in any order (max - min + 1 = rows: a row number or an auto-increment id, whatever its
    name or position, e.g. an index written under an empty or blank header in the middle of a table)."""
    from pandas.api import types

    if pair.type != NUMERIC:
        return False
    runs = True
    for frame in (reference, current):
        column = frame[pair.name]
        if not types.is_integer_dtype(column.dtype) or column.isna().any() or not column.is_unique:
            return False
        runs = runs and len(column) >= MIN_KEY_ROWS and int(column.max()) - int(column.min()) + 1 == len(column)
    return runs or bool(_KEY_NAME.search(pair.name.strip()))
