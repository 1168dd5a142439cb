"""Python source is read as Python reads it (PEP 263): a coding declaration is honoured, what Python refuses is
bad input naming the line; never another exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.errors import InputError
from faultlib.readers import read_text

ENCODINGS = ["utf-8", "latin-1", "cp1252", "utf-8-sig"]


def test_a_latin1_declared_script_is_read_and_an_undeclared_one_is_refused_with_its_line(tmp_path):
    body = "# caf\u00e9\nimport time\n"
    (tmp_path / "declared.py").write_bytes(("# -*- coding: latin-1 -*-\n" + body).encode("latin-1"))
    assert read_text(tmp_path / "declared.py").endswith(body)
    (tmp_path / "undeclared.py").write_bytes(body.encode("latin-1"))
    with pytest.raises(InputError, match=r"undeclared.py:1: is not valid UTF-8 .*save it as UTF-8"):
        read_text(tmp_path / "undeclared.py")
    (tmp_path / "notes.txt").write_bytes(("# -*- coding: latin-1 -*-\n" + body).encode("latin-1"))
    with pytest.raises(InputError, match="is not valid UTF-8"):  # only Python files carry a declaration
        read_text(tmp_path / "notes.txt")


@pytest.mark.parametrize("data, phrase", [
    (b"# coding: klingon\nx = 1\n", "unknown encoding: klingon"),
    (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "a UTF-8 BOM and a declaration of another encoding"),
    # codecs that are no text encoding (a LookupError traceback from bytes.decode before), or not ASCII-compatible
    (b"# -*- coding: rot13 -*-\nx = 1\n", "not an encoding Python reads source in"),
    (b"# coding: hex\nx = 1\n", "not an encoding Python reads source in"),
    (b"# coding: utf-16\nx = 1\n", "not an encoding Python reads source in"),
])
def test_a_declaration_python_refuses_is_bad_input(tmp_path, data, phrase):
    (tmp_path / "s.py").write_bytes(data)
    with pytest.raises(InputError, match=phrase):
        read_text(tmp_path / "s.py")
    with pytest.raises(SyntaxError):
        compile(data, "s.py", "exec")


@settings(max_examples=50, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
       encoding=st.sampled_from(ENCODINGS), declare=st.booleans())
def test_property_python_source_is_decoded_as_its_declaration_says(tmp_path_factory, text, encoding, declare):
    head = f"# -*- coding: {encoding.removesuffix('-sig')} -*-\n" if declare else ""
    try:
        data = (head + "x = 1\n# " + text + "\n").encode(encoding)
    except UnicodeEncodeError:
        return
    path = tmp_path_factory.mktemp("src") / "s.py"
    path.write_bytes(data)
    declared = encoding if declare or encoding == "utf-8-sig" else "utf-8"  # a BOM declares UTF-8 too
    try:
        expected = data.decode(declared)
    except UnicodeDecodeError:  # Python 3.12 refuses these bytes too (3.11 let them pass inside a comment)
        expected = None
    try:
        got = read_text(path)
    except InputError:
        assert expected is None or "\x00" in text  # refused only what the declaration cannot decode (or a NUL)
        return
    assert got == expected.removeprefix("\ufeff")
