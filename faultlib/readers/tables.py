"""Tables from a user's file, by extension, with column types as written in the file.

Formats: ``.csv``, ``.tsv``, ``.json`` (a list of records, or ``{column: [values]}``), ``.jsonl`` /
``.ndjson`` (one record per line), ``.parquet`` (pyarrow), ``.npy`` (1-D, 2-D or structured) and
``.npz`` (one 1-D array per column, or a single 2-D array).

Text formats are read as strings first and each column's type is decided afterwards, so a
zero-padded id (``"007"``) stays a string and an integer column with a gap stays integer (pandas'
nullable ``Int64``) instead of silently becoming float. A JSON table's ``NaN`` and ``±Infinity`` (as Python's
``json.dumps`` writes them) are values, as ``nan``/``inf`` are in a CSV: data, never bad input. Every file goes through
:func:`faultlib.readers.files.read_bytes` (bounded, no symlinks) and every problem is an
:class:`~faultlib.errors.InputError` naming the file and, where it applies, the line or column.
"""

from __future__ import annotations

import csv
import io
import os
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from faultlib.errors import InputError, require
from faultlib.readers import budget
from faultlib.readers.files import Limits, MiB, decode_text, read_bytes
from faultlib.readers.jsondoc import iter_json_lines, load_json
from faultlib.readers.npy import read_npy, read_npz
from faultlib.readers.separators import check_separator
from faultlib.readers.sizes import env_bound

if TYPE_CHECKING:
    import pandas

TABLES = Limits(max_bytes=512 * MiB, max_depth=16, max_nodes=50_000_000)
#: ``FAULTLIB_MAX_TABLE_BYTES`` raises the largest table file read (default 512 MiB: a 10^7 x 10 float64
#: Parquet file is ~800 MB)
MAX_TABLE_BYTES_ENV = "FAULTLIB_MAX_TABLE_BYTES"
#: most columns a table may have (``FAULTLIB_MAX_COLUMNS`` raises it): 10^6 columns hung pandas past 120 s
MAX_COLUMNS = 10_000
#: longest column name a CSV/TSV header may hold (quotes included)
MAX_NAME_CHARS = 4096
#: the block a CSV/TSV is read in under a deadline (the budget is looked at between two)
BUDGET_BLOCK = 16 * MiB
FORMATS = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".parquet", ".npy", ".npz")
#: what decides a text column's type, in RE2 (pyarrow.compute runs them over a whole column at once: calling Python's
#: ``re`` once per cell took 2.6 us a cell, 30 s of a 2,000 x 3,000 table); ``$`` is the end of the text in RE2
_PADDED = r"^[+-]?0[0-9]"
_INT = r"^[+-]?(0|[1-9][0-9]*)$"
_FLOAT = r"^([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(nan|NaN|inf|Inf|infinity|Infinity))$"


def _pandas():
    return require("pandas", "data")


def _decide(series: "pandas.Series") -> "pandas.Series":
    """A column of strings (missing = NA) as Int64, float64 or string, as its values are written."""
    pa = require("pyarrow", "data")

    texts = pa.array(series.to_numpy(dtype=object, na_value=None), type=pa.string())
    return _typed(texts, series.name, lambda: series)


def _typed(texts, name: str, cells, decided: tuple[bool, bool, bool] | None = None) -> "pandas.Series":
    """A column of Arrow strings (missing = null) as Int64, float64 or string, as its values are written.

    Args:
        texts: the column's cells (a pyarrow string Array or ChunkedArray).
        name: the column's name.
        cells: returns the cells as a pandas object Series (missing = None or NaN), built only for the integer and
            text columns (a float column goes from Arrow to numpy without a Python object per cell).
        decided: ``(padded, integers, floats)`` where :func:`_patterns` already matched the column: some present
            cell zero-padded, every present cell an integer, every one a float.
    """
    pd = _pandas()
    pa = require("pyarrow", "data")
    import pyarrow.compute as pc

    if decided is None:
        present = texts.drop_null()
        if not len(present):
            return cells().astype("string")
        decided = (pc.any(pc.match_substring_regex(present, _PADDED)).as_py(),
                   pc.all(pc.match_substring_regex(present, _INT)).as_py(),
                   pc.all(pc.match_substring_regex(present, _FLOAT)).as_py())
    padded, integers, floats = decided
    if padded:
        return cells().astype("string")  # zero-padded ids ("007") stay strings
    if integers:
        series = cells()
        try:
            return pd.to_numeric(series).astype("Int64")
        except (OverflowError, ValueError, TypeError):  # beyond int64: kept as written
            return series.astype("string")
    if floats:
        try:  # Arrow's parser reads every spelling _FLOAT admits as Python's float() does (1e999 is inf)
            numbers = pc.cast(texts, pa.float64())
        except pa.ArrowInvalid:  # an older pyarrow that does not: Python's float(), one cell at a time
            numbers = pa.array([None if v is None else float(v) for v in texts.to_pylist()], type=pa.float64())
        return pd.Series(numbers.to_numpy(zero_copy_only=False), index=pd.RangeIndex(len(texts)), name=name,
                         dtype="float64")
    return cells().astype("string")


#: cells matched against the type patterns in one Arrow call (RE2 compiles a pattern per call: 1.5 ms, three times
#: a column, was most of the reading of 10,000 short columns)
PATTERN_BATCH_CELLS = 4_000_000


def _patterns(columns: list) -> list[tuple[bool, bool, bool] | None]:
    """For each column of Arrow strings (all of one length): ``(padded, integers, floats)`` over its present cells
    (see :func:`_typed`), or None for a column with no present cell. Columns are matched in batches of about
    :data:`PATTERN_BATCH_CELLS` cells, each pattern once per batch."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    out: list[tuple[bool, bool, bool] | None] = []
    rows = len(columns[0]) if columns else 0
    step = max(1, PATTERN_BATCH_CELLS // max(rows, 1))
    for start in range(0, len(columns), step):
        batch = columns[start:start + step]
        cells = pa.concat_arrays([chunk for column in batch for chunk in column.chunks])
        shape = (len(batch), rows)
        present = cells.is_valid().to_numpy(zero_copy_only=False).reshape(shape)

        def matched(pattern: str) -> np.ndarray:
            return pc.fill_null(pc.match_substring_regex(cells, pattern), False).to_numpy(
                zero_copy_only=False).reshape(shape)

        padded = matched(_PADDED).any(axis=1)
        integers = (matched(_INT) | ~present).all(axis=1)
        floats = (matched(_FLOAT) | ~present).all(axis=1)
        for j in range(len(batch)):
            out.append((bool(padded[j]), bool(integers[j]), bool(floats[j])) if present[j].any() else None)
    return out


def _check_columns(frame: "pandas.DataFrame", path: Path) -> "pandas.DataFrame":
    names = [str(c) for c in frame.columns]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise InputError(f"column names appear twice: {duplicated}", path=str(path))
    frame.columns = names
    limit = env_bound("FAULTLIB_MAX_COLUMNS", MAX_COLUMNS)
    if frame.shape[1] > limit:
        raise InputError(f"has {frame.shape[1]:,} columns, more than {limit:,} (set FAULTLIB_MAX_COLUMNS to raise the "
                         "limit)", path=str(path))
    if frame.shape[1] == 0:
        raise InputError("has no columns", path=str(path))
    return frame


def _check_width(header: str, path: Path, sep: str) -> None:
    """Refuse a header of more than :data:`MAX_COLUMNS` fields before pandas parses it (a cheap upper bound: the
    separators of the first line)."""
    limit = env_bound("FAULTLIB_MAX_COLUMNS", MAX_COLUMNS)
    columns = header.count(sep) + 1
    if columns > limit:
        raise InputError(f"its header has {columns:,} columns, more than {limit:,}: a table this wide is not read "
                         "(set FAULTLIB_MAX_COLUMNS to raise the limit)", path=str(path), line=1)
    longest = max(header.split(sep), key=len)  # a name of 50 MB took 40 s and 800 MB before any test
    if len(longest) > MAX_NAME_CHARS:
        raise InputError(f"a column name in its header has {len(longest):,} characters ({longest[:40]!r}...), more "
                         f"than {MAX_NAME_CHARS:,}: is the first line a header? shorten the name", path=str(path),
                         line=1)


def _delimited(data: bytes, path: Path, sep: str, deadline: float | None = None) -> "pandas.DataFrame":
    pd = _pandas()
    text = decode_text(data, path)
    if not text.strip():
        raise InputError("is empty: expected a header line and rows", path=str(path))
    start = re.match(r"\s*", text).end()   # the first line, without copying the text (130 MB: twice)
    end = text.find("\n", start)
    _check_width(text[start:end if end >= 0 else len(text)], path, sep)
    header = _header(text, sep)
    lines = _lines(text, start)
    check_separator(header, next(lines, ""), next(lines, ""), path, sep)
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:  # pandas would rename the second 'id' to 'id.1', a column the file does not have
        raise InputError(f"column names appear twice in the header: {twice}: rename one", path=str(path), line=1)
    fast = _arrow_delimited(data, header, sep, path, deadline)
    if fast is not None:
        return fast
    try:
        with warnings.catch_warnings():  # a row wider than the header: pandas warns (index_col=False), or silently
            warnings.simplefilter("error", pd.errors.ParserWarning)  # makes its first fields the index without it
            frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, na_values=[""],
                                engine="c", index_col=False)
    except pd.errors.ParserWarning:
        line = _first_wide_row(text, sep, len(header))
        raise InputError(f"a row has more fields than the header's {len(header)}: quote the field that holds a "
                         f"{'comma' if sep == ',' else 'tab'}, or add the missing column name", path=str(path),
                         line=line) from None
    except pd.errors.ParserError as exc:
        wide = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if wide:
            raise InputError(f"a row has more fields than the header's {wide.group(1)} ({wide.group(3)}): quote the "
                             f"field that holds a {'comma' if sep == ',' else 'tab'}, or add the missing column name",
                             path=str(path), line=int(wide.group(2))) from None
        if "EOF inside string" in str(exc):  # pandas counts that 'row' its own way (blank lines in, quoted breaks out)
            raise InputError("a quoted field is never closed: its '\"' opens here and every line after it is read "
                             "as part of one value: close the quote, or double a '\"' meant literally ('\"\"')",
                             path=str(path), line=_last_row_line(text, sep)) from None
        found = re.search(r"line (\d+)", str(exc))
        raise InputError(f"rows do not match the header: {exc}", path=str(path),
                         line=int(found.group(1)) if found else None) from None
    except pd.errors.EmptyDataError:
        raise InputError("is empty: expected a header line and rows", path=str(path)) from None
    frame = _check_columns(frame, path)
    return pd.DataFrame({name: _decide(frame[name]) for name in frame.columns}, index=frame.index)


def _arrow_delimited(data: bytes, header: list[str], sep: str, path: Path,
                     deadline: float | None = None) -> "pandas.DataFrame | None":
    """The table read by Arrow's CSV reader, every cell as text, then typed column by column (:func:`_typed`), or
    None where Arrow refuses the file or might read it otherwise than pandas does (a short or long row, any quote
    character, an unnamed column): pandas then reads it and says what is wrong, with the line.

    pandas with ``dtype=str`` holds one Python string per cell: 2,000 rows x 10,000 columns took 1.7 GB and most
    of a minute before the first test; Arrow keeps the cells in buffers (a tenth of the memory) and a float column
    reaches numpy without a Python object per cell. With a ``deadline``, read in blocks of :data:`BUDGET_BLOCK`
    bytes and stop between two with :class:`~faultlib.readers.budget.ReadCut` once it has passed."""
    if not header or not all(header) or b'"' in data:  # quoting: pandas' rules (a quote never closed, a literal one)
        return None
    pd = _pandas()
    pa = require("pyarrow", "data")
    from pyarrow import csv as pacsv

    body = pa.py_buffer(data)
    body = body.slice(3) if data.startswith(b"\xef\xbb\xbf") else body
    block = max(1 << 20, min(len(data) + 1, 1 << 30))  # one chunk a column: a chunk a MB made 130 x 10,000 arrays
    if deadline is not None:
        block = min(block, BUDGET_BLOCK)
    try:  # single-threaded: Arrow's CPU pool, once started, can abort the interpreter at exit (see read_table)
        reader = pacsv.open_csv(
            body, read_options=pacsv.ReadOptions(use_threads=False, block_size=block),
            parse_options=pacsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=True, escape_char=False,
                                             newlines_in_values=True, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={name: pa.string() for name in header},
                                                 null_values=[""], strings_can_be_null=True,
                                                 quoted_strings_can_be_null=True))
        batches = []
        while True:
            if len(batches) * block < len(data):  # bytes are left: the budget is looked at before each block
                budget.check(deadline, path, len(batches) * block, len(data), "bytes", header)
            try:
                batches.append(reader.read_next_batch())
            except StopIteration:
                break
        table = pa.Table.from_batches(batches, schema=reader.schema) if batches else reader.schema.empty_table()
    except (pa.ArrowException, ValueError, OSError):
        return None
    if table.column_names != header:
        return None
    columns = {}
    for name, texts, decided in zip(header, table.columns, _patterns(table.columns)):
        def cells(texts=texts, name=name) -> "pandas.Series":
            return pd.Series(texts.to_pylist(), index=pd.RangeIndex(len(texts)), name=name, dtype=object)

        columns[name] = cells().astype("string") if decided is None else _typed(texts, name, cells, decided)
    return pd.DataFrame(columns, index=pd.RangeIndex(table.num_rows))


def _header(text: str, sep: str) -> list[str]:
    """The header's column names as the file writes them (quoted names may hold the separator)."""
    try:  # line by line, ends kept: a quoted name may hold a line break, as in the rows
        return next(csv.reader(_lines(text, re.match(r"[\r\n]*", text).end()), delimiter=sep), [])
    except csv.Error:  # pandas reports what is wrong with the header, with its line
        return []


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lines(text: str, start: int = 0):
    """The lines of ``text`` from ``start``, each with its end (``\\r\\n``, ``\\n`` or ``\\r``), one at a time: the
    header of a 130 MB table is read without copying the table into a ``StringIO`` (4 bytes a character: 520 MB)."""
    for match in _LINE.finditer(text, start):
        yield match.group(0)


def _last_row_line(text: str, sep: str) -> int | None:
    """The line on which the file's last row starts, as :mod:`csv` splits rows (a quoted line break stays in its
    row); where a quote is never closed, that row is the one that opened it and ran to the end of the file.
    None where a field is over :mod:`csv`'s size limit (the row that hit it cannot be told)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    start, before = None, 0
    try:
        for _ in reader:
            start, before = before + 1, reader.line_num
    except csv.Error:
        return None
    return start


def _first_wide_row(text: str, sep: str, width: int) -> int | None:
    """The line of the first row with more than ``width`` fields (only read when pandas said there is one)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    try:
        for row in reader:
            if len(row) > width and reader.line_num > 1:
                return reader.line_num
    except csv.Error:
        return None
    return None


def _records(rows: list, path: Path) -> "pandas.DataFrame":
    pd = _pandas()
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(f"record {i} is a {type(row).__name__}, not an object of column: value", path=str(path),
                             field=f"[{i}]")
    return pd.DataFrame.from_records(rows)


def _json(data: bytes, path: Path) -> "pandas.DataFrame":
    pd = _pandas()
    doc = load_json(data, path, limits=TABLES, nonfinite=True)  # NaN, ±Infinity (json.dumps'): data, not errors
    if isinstance(doc, list):
        if not doc:
            raise InputError("is an empty list: no rows", path=str(path))
        return _records(doc, path)
    if isinstance(doc, dict) and doc and all(isinstance(v, list) for v in doc.values()):
        lengths = {k: len(v) for k, v in doc.items()}
        if len(set(lengths.values())) > 1:
            raise InputError(f"columns have different lengths: {lengths}", path=str(path))
        return pd.DataFrame(doc)
    raise InputError("must be a list of records or an object of equal-length column lists", path=str(path))


def _jsonl(path: Path, limits: Limits = TABLES) -> "pandas.DataFrame":
    rows = []
    for line in iter_json_lines(path, limits=Limits(max_bytes=limits.max_bytes, max_depth=16), nonfinite=True):
        if line.error:
            raise line.error
        rows.append(line.value)
    if not rows:
        raise InputError("is empty: no records", path=str(path))
    return _records(rows, path)


def _numpy(data: bytes, path: Path, suffix: str) -> "pandas.DataFrame":
    pd = _pandas()
    if suffix == ".npz":
        arrays = read_npz(data, path)
        if len(arrays) == 1 and next(iter(arrays.values())).ndim == 2:
            loaded = next(iter(arrays.values()))
        else:
            bad = [n for n, a in arrays.items() if a.ndim != 1]
            if bad or not arrays:
                raise InputError(f"arrays {bad} are not 1-D: an .npz table holds one 1-D array per column",
                                 path=str(path))
            return pd.DataFrame(arrays)
    else:
        loaded = read_npy(data, path)
    if loaded.dtype.names:
        return pd.DataFrame({name: loaded[name] for name in loaded.dtype.names})
    if loaded.ndim == 1:
        return pd.DataFrame({"0": loaded})
    if loaded.ndim == 2:
        return pd.DataFrame(loaded, columns=[str(i) for i in range(loaded.shape[1])])
    raise InputError(f"has shape {loaded.shape}: a table is 1-D or 2-D", path=str(path))


def read_table(path: Path | str, *, root: Path | str | None = None, deadline: float | None = None) -> "pandas.DataFrame":
    """Read a table (see the module docstring for formats and typing).

    Args:
        path: the file; its extension chooses the format.
        root: when given, the file must lie inside it (no symlinks below it).
        deadline: a ``time.monotonic()`` value: Parquet (between row groups) and a CSV/TSV Arrow reads (between
            blocks of :data:`BUDGET_BLOCK` bytes) stop once it has passed (:mod:`faultlib.readers.budget`).

    Returns:
        A DataFrame with string column names; at least one column and one row.

    Raises:
        InputError: unknown extension, unreadable or malformed file, empty table, duplicate
            column names, ragged rows (with the line).
        MissingDependency: pandas (``faultlib-ml[data]``) or, for Parquet, pyarrow is missing.
        ReadCut: ``deadline`` passed while the file was read.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    limits = TABLES
    if os.environ.get(MAX_TABLE_BYTES_ENV, "").strip():
        limits = Limits(max_bytes=env_bound(MAX_TABLE_BYTES_ENV, TABLES.max_bytes), max_depth=TABLES.max_depth,
                        max_nodes=TABLES.max_nodes)
    if suffix not in FORMATS:
        raise InputError(f"unknown table format {suffix or '(no extension)'!r}: use one of {', '.join(FORMATS)}",
                         path=str(path))
    if suffix in (".jsonl", ".ndjson"):
        frame = _jsonl(path if root is None else Path(root) / path, limits)
    else:
        data = read_bytes(path, limits=limits, root=root)
        if not data:
            raise InputError("is empty", path=str(path))
        if suffix in (".csv", ".tsv"):
            frame = _delimited(data, path, "," if suffix == ".csv" else "\t", deadline)
        elif suffix == ".json":
            frame = _json(data, path)
        elif suffix == ".parquet":
            pq = require("pyarrow.parquet", "data")
            try:
                # single-threaded: arrow's CPU pool, once started, can abort the interpreter at exit
                # ("terminate called without an active exception", about 1 run in 75 on 2 loaded cores)
                parquet = pq.ParquetFile(io.BytesIO(data))
                width, limit = len(parquet.schema_arrow.names), env_bound("FAULTLIB_MAX_COLUMNS", MAX_COLUMNS)
                if width > limit:
                    raise InputError(f"has {width:,} columns, more than {limit:,} (set FAULTLIB_MAX_COLUMNS to raise "
                                     "the limit)", path=str(path))
                groups, names = parquet.num_row_groups, parquet.schema_arrow.names
                parts = []
                for group in range(groups):
                    budget.check(deadline, path, group, groups, "row groups", names)
                    parts.append(parquet.read_row_group(group, use_threads=False))
                pa = require("pyarrow", "data")
                whole = pa.concat_tables(parts) if parts else parquet.schema_arrow.empty_table()
                frame = whole.to_pandas(use_threads=False)
            except (InputError, budget.ReadCut):
                raise
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a damaged file
                raise InputError(f"is not a readable Parquet file: {exc}", path=str(path)) from None
        else:
            frame = _numpy(data, path, suffix)
    frame = _check_columns(frame, path)
    if len(frame) == 0:
        raise InputError("has a header but no rows", path=str(path))
    return frame


def require_columns(frame: "pandas.DataFrame", columns: list[str], path: Path | str) -> None:
    """Raise InputError naming the missing columns and the ones the file has."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"has no column {', '.join(map(repr, missing))}; its columns are "
                         f"{', '.join(map(repr, frame.columns))}", path=str(path), field=missing[0])
