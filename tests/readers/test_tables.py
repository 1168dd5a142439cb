"""Delimited tables as the file writes them: a header's names are kept exactly, a name written twice and a row
wider than the header are bad input (exit 2, with the line), never a renamed column or a silent index."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.errors import InputError

pytest.importorskip("pandas")

from faultlib.readers.tables import read_table  # noqa: E402


def test_a_column_name_written_twice_is_refused_on_line_1(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,x,id\n1,2,3\n4,5,6\n")
    with pytest.raises(InputError, match=r"appear twice in the header: \['id'\]") as exc:
        read_table(path)
    assert exc.value.line == 1  # pandas alone would have read 'id' and 'id.1', a column the file does not have


def test_a_first_row_wider_than_the_header_is_refused_with_its_line(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("id\tx\n1\t2\n3\t4\t5\t6\n")
    with pytest.raises(InputError, match="more fields than the header's 2") as exc:
        read_table(path)
    assert exc.value.line == 3
    path.write_text("id\tx\n3\t4\t5\t6\n1\t2\n")  # pandas alone: the first two fields silently become the index
    with pytest.raises(InputError, match="more fields than the header's 2") as exc:
        read_table(path)
    assert exc.value.line == 2


def test_a_quoted_separator_in_a_name_is_one_column(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('"a,b",c\n1,2\n3,4\n')
    assert list(read_table(path).columns) == ["a,b", "c"]


CELLS = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=st.lists(CELLS, min_size=1, max_size=4),
       rows=st.lists(st.lists(CELLS, min_size=0, max_size=5), min_size=0, max_size=5))
def test_any_csv_is_read_as_written_or_refused_with_a_reason(tmp_path, header, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180: a CR or LF inside a field is quoted
    writer.writerow(header)
    writer.writerows(rows)
    path = tmp_path / "t.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8", "surrogatepass"))
    try:
        frame = read_table(path)
    except InputError as exc:
        assert exc.path and str(exc)
        return
    # read: the header's names exactly as written (no 'x.1' renames, no row fields turned into an index)
    # (an empty name is pandas' "Unnamed: <position>", as `DataFrame.to_csv` files with an index column expect)
    assert list(frame.columns) == [h or f"Unnamed: {i}" for i, h in enumerate(header)]
    assert len(set(header)) == len(header)
    assert frame.index.equals(__import__("pandas").RangeIndex(len(frame)))


def test_a_name_the_system_refuses_is_bad_input_not_a_traceback(tmp_path):
    """A NUL byte (from a document that names a file) and a name too long for the system: InputError."""
    from faultlib.readers.files import read_bytes
    from faultlib.readers.jsondoc import iter_json_lines
    from faultlib.readers.keypath import split_source

    with pytest.raises(InputError, match="NUL byte"):
        read_bytes(tmp_path / "a\x00b.json")
    with pytest.raises(InputError, match="NUL byte"):
        list(iter_json_lines(tmp_path / "a\x00b.jsonl"))
    with pytest.raises(InputError, match="too long"):
        read_bytes(tmp_path / ("x" * 5000))
    key = ".a" * 5000  # a key path longer than any file name: os.stat raised ENAMETOOLONG
    assert split_source(f"{tmp_path}/t.yaml#{key}") == (f"{tmp_path}/t.yaml", key)


@pytest.mark.parametrize("text, line", [
    ('id,a\n1,2\n"3,4\n5,6\n', 3),  # the quote opens on line 3 and swallows the rest
    ('id,a\n"one\ntwo",2\n5,6\n7,"8\n', 5),  # a closed quoted line break before it: pandas says 'row 3'
    ('id,a\n1,2\n\n\n3,"4\n', 5),  # blank lines before it
])
def test_a_quote_never_closed_is_refused_with_the_line_that_opens_it(tmp_path, text, line):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InputError, match="quoted field is never closed") as exc:
        read_table(path)
    assert exc.value.line == line


def test_closed_quotes_around_line_breaks_and_doubled_quotes_still_read(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('id,a\n1,"two\nlines"\n2,"say ""hi"""\n')
    assert list(read_table(path)["a"]) == ["two\nlines", 'say "hi"']


@pytest.mark.parametrize("name, text", [
    ("t.json", '[{"x": 1.5, "y": NaN}, {"x": Infinity, "y": 2.0}, {"x": -Infinity, "y": 3.0}]'),
    ("t.jsonl", '{"x": 1.5, "y": NaN}\n{"x": Infinity, "y": 2.0}\n{"x": -Infinity, "y": 3.0}\n'),
])
def test_nan_and_infinity_in_a_json_table_are_values_not_bad_input(tmp_path, name, text):
    path = tmp_path / name  # what json.dumps writes for float('nan') and float('inf'): data (DESIGN), never refused
    path.write_text(text)
    frame = read_table(path)
    assert list(frame["x"]) == [1.5, float("inf"), float("-inf")]
    assert frame["y"].isna().tolist() == [True, False, False]


def test_a_json_table_keeps_refusing_what_is_not_json(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('[{"x": 1e999}]')  # a literal beyond float is not a value anyone wrote on purpose
    with pytest.raises(InputError, match="out of range"):
        read_table(path)


@pytest.mark.parametrize(("name", "text", "found"), [
    ("scores.csv", "user;score\n7;0,5\n8;1,25\n", "semicolon"),
    ("scores.csv", "user\tscore\n7\t0.5\n8\t1.25\n", "tab"),
    ("scores.tsv", "user,score\n7,0.5\n8,1.25\n", "comma"),
])
def test_a_table_separated_otherwise_than_its_suffix_says_is_refused_on_line_1(tmp_path, name, text, found):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=f"one column that holds 1 {found}") as caught:
        read_table(path)
    assert caught.value.line == 1, f"{caught.value!r}"


def test_one_column_whose_name_holds_a_semicolon_and_rows_do_not_still_reads(tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text("note;v2\nshort\nlong text\n")
    frame = read_table(path)
    assert list(frame.columns) == ["note;v2"], f"{list(frame.columns)}"
    assert frame["note;v2"].tolist() == ["short", "long text"], f"{frame['note;v2'].tolist()}"


def test_a_header_name_too_long_to_be_a_name_is_refused_on_line_1(tmp_path):
    # a first line of 50 MB read as one column name took 40 s and 800 MB before any test; refused from the header
    from faultlib.readers.tables import MAX_NAME_CHARS

    path = tmp_path / "t.tsv"
    path.write_text("id\t" + "n" * (MAX_NAME_CHARS + 1) + "\n1\t2\n3\t4\n")
    with pytest.raises(InputError, match=f"has {MAX_NAME_CHARS + 1:,} characters") as exc:
        read_table(path)
    assert exc.value.line == 1 and exc.value.path == str(path)
    path.write_text("id\t" + "n" * MAX_NAME_CHARS + "\n1\t2\n3\t4\n")   # at the bound: read
    assert list(read_table(path).columns) == ["id", "n" * MAX_NAME_CHARS]
