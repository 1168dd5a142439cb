"""Two inputs a user meets without meaning harm: a JSON file saved with a UTF-8 byte order mark (Windows editors,
PowerShell's ``Out-File``) reads like the same file without it, as text files already do; and Python source nested
past the parser's stack is bad input that says so, not an empty ``MemoryError:``."""

from __future__ import annotations

import pytest

from faultlib.errors import InputError
from faultlib.readers.jsondoc import load_json, load_json_file
from faultlib.readers.pysource import parse_python


def test_a_json_file_with_a_utf8_bom_reads_like_one_without(tmp_path):
    doc = '{"labels": ["cat", "dog"], "version": 2}'
    (tmp_path / "plain.json").write_text(doc, encoding="utf-8")
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + doc.encode())
    assert load_json_file(tmp_path / "bom.json") == load_json_file(tmp_path / "plain.json")
    assert load_json("\ufeff[1, 2]", "s.json") == [1, 2]


def test_a_bom_inside_the_document_is_still_invalid_json(tmp_path):
    (tmp_path / "twice.json").write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf[1]")
    with pytest.raises(InputError, match="invalid JSON"):
        load_json_file(tmp_path / "twice.json")


def test_lambdas_nested_past_the_parser_stack_are_named_as_too_deep():
    source = "scale = " + "lambda: " * 5000 + "1\n"
    with pytest.raises(InputError) as raised:
        parse_python(source, "deep.py")
    assert "nested too deeply" in raised.value.message and "MemoryError" not in raised.value.message
    assert raised.value.message.rstrip()[-1] not in ":", raised.value.message
