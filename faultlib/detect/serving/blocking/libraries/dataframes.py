"""pandas: a DataFrame written to a file on the loop, and the frames ``read_*`` returns.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``DataFrame.to_csv(path)`` formats every row and writes the file in the calling thread ("Write object to a
comma-separated values (csv) file"); ``to_csv()`` with no path returns the text and touches no file, so each writer
blocks only when its target argument is given (a :class:`~faultlib.detect.serving.blocking.entries.BlocksWhen`;
a variable target may be a path). A frame's reshaping methods return a new DataFrame (``reset_index``,
``sort_values``, ``set_index`` ...: "Returns: DataFrame or None -- DataFrame with the new index or None if
inplace=True", https://pandas.pydata.org/docs/reference/api/pandas.DataFrame.reset_index.html), so a writer at the
end of such a chain is followed (held-out wave 52: ``data.reset_index(drop=True).to_feather(path)``). The readers (``pandas.read_csv`` ...) are in ``models.py``; what they return is a
``pandas.DataFrame``, so a frame read on the loop and written back there is followed.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

IO = "https://pandas.pydata.org/docs/reference/io.html"
# method -> the keyword of its target (its first positional argument in every pandas release since 1.0)
WRITERS = {"to_csv": "path_or_buf", "to_json": "path_or_buf", "to_parquet": "path", "to_excel": "excel_writer",
           "to_pickle": "path", "to_feather": "path", "to_hdf": "path_or_buf"}
# methods that return a new DataFrame (None only with inplace=True, which no chain uses)
RESHAPERS = ("reset_index", "set_index", "sort_values", "sort_index", "drop", "dropna", "drop_duplicates", "fillna",
             "rename", "copy", "astype", "reindex", "assign", "query", "head", "tail", "round")
READERS = ("read_csv", "read_parquet", "read_json", "read_excel", "read_pickle", "read_feather", "read_table", "read_hdf")

DATAFRAMES = Vocabulary(
    calls={f"pandas.DataFrame.{m}": ("blocking_file_io", f"{IO} (DataFrame.{m})") for m in WRITERS},
    when={f"pandas.DataFrame.{m}": BlocksWhen(target, position=0, test="given") for m, target in WRITERS.items()},
    returns={**{f"pandas.{r}": "pandas.DataFrame" for r in READERS},
             **{f"pandas.DataFrame.{m}": "pandas.DataFrame" for m in RESHAPERS}},
)
