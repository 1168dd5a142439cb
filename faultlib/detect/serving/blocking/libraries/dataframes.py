"""pandas: a DataFrame written to a file on the loop, and the frames ``read_*`` returns.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``DataFrame.to_csv(path)`` formats every row and writes the file in the calling thread ("Write object to a
comma-separated values (csv) file"); ``to_csv()`` with no path returns the text and touches no file, so each writer
blocks only when its target argument is given (a :class:`~faultlib.detect.serving.blocking.entries.BlocksWhen`;
a variable target may be a path). The readers (``pandas.read_csv`` ...) are in ``models.py``; what they return is a
``pandas.DataFrame``, so a frame read on the loop and written back there is followed.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

IO = "https://pandas.pydata.org/docs/reference/io.html"
# method -> the keyword of its target (its first positional argument in every pandas release since 1.0)
WRITERS = {"to_csv": "path_or_buf", "to_json": "path_or_buf", "to_parquet": "path", "to_excel": "excel_writer",
           "to_pickle": "path", "to_feather": "path", "to_hdf": "path_or_buf"}
READERS = ("read_csv", "read_parquet", "read_json", "read_excel", "read_pickle", "read_feather", "read_table")

DATAFRAMES = Vocabulary(
    calls={f"pandas.DataFrame.{m}": ("blocking_file_io", f"{IO} (DataFrame.{m})") for m in WRITERS},
    when={f"pandas.DataFrame.{m}": BlocksWhen(target, position=0, test="given") for m, target in WRITERS.items()},
    returns={f"pandas.{r}": "pandas.DataFrame" for r in READERS},
)
