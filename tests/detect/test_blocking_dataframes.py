"""check blocking: a pandas DataFrame written to a file on the loop blocks; one formatted to text in memory does not
(the writers' ``BlocksWhen``: ``libraries/dataframes.py``). Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_a_frame_read_or_built_on_the_loop_and_written_to_a_path_blocks(tmp_path):
    found = flagged(tmp_path, """
        import io
        import pandas as pd

        async def export(rows, target):
            frame = pd.DataFrame(rows)
            frame.to_csv("export.csv", index=False)
            scored = pd.read_json(io.StringIO(frame.to_json()))
            scored.to_parquet(path="export.parquet")
            scored.to_excel(target)
    """)
    writes = {line for kind, line in found if kind == "blocking_file_io"}
    assert writes == {'frame.to_csv("export.csv", index=False)', 'scored.to_parquet(path="export.parquet")',
                      "scored.to_excel(target)"}


def test_a_frame_formatted_to_text_in_memory_is_silent(tmp_path):
    found = flagged(tmp_path, """
        import pandas as pd

        async def preview(rows):
            frame = pd.DataFrame(rows)
            return frame.to_csv(index=False), frame.to_json(orient="records"), frame.to_csv(None)
    """)
    assert found == set()
