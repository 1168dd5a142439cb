"""The hardened JSON / JSON Lines reader."""

from __future__ import annotations

import time

import pytest

from faultlib.errors import InputError
from faultlib.readers import iter_json_lines, load_json
from faultlib.readers.files import Limits


@pytest.mark.parametrize("text,phrase", [
    ('{"a": NaN}', "NaN"), ('{"a": Infinity}', "Infinity"), ('[-Infinity]', "-Infinity"),
    ('{"a": 1e999}', "not finite"), ('{"a": -1E400}', "not finite"), ('{"a": 1, "a": 2}', "duplicate key 'a'"),
    ('{"a": 99999999999999999999}', "out of range"), ("9" * 6000, "out of range"), ('{"a": ', "invalid JSON")])
def test_json_that_is_not_plain_finite_data_is_refused(text, phrase):
    with pytest.raises(InputError) as info:
        load_json(text, "manifest.json")
    assert phrase in info.value.message and info.value.path == "manifest.json"


def test_deep_json_is_refused_quickly():
    started = time.perf_counter()
    for doc in ("[" * 200_000 + "]" * 200_000, '{"a":' * 100 + "1" + "}" * 100):
        with pytest.raises(InputError, match="levels deep"):
            load_json(doc, "x.json")
    assert time.perf_counter() - started < 2.0


def test_size_and_value_count_are_bounded():
    with pytest.raises(InputError, match="limit is 10"):
        load_json("[1, 2, 3, 4, 5]", "x.json", limits=Limits(max_bytes=10))
    with pytest.raises(InputError, match="more than 3 values"):
        load_json("[1, 2, 3, 4]", "x.json", limits=Limits(max_nodes=3))


def test_json_errors_carry_the_line():
    err = pytest.raises(InputError, load_json, '{\n  "a": 1,\n  "b": x\n}', "m.json").value
    assert err.line == 3
    err = pytest.raises(InputError, load_json, b'{"a": "\xff"}', "m.json", line=7).value
    assert err.line == 7 and "UTF-8" in err.message


def test_json_lines_report_each_bad_line_and_keep_going(tmp_path):
    path = tmp_path / "findings.jsonl"
    path.write_bytes(b'{"ok": 1}\n[1, 2]\n\n{"bad": \xff}\n{"nan": NaN}\n{"ok": 2}\n{"cut": ')
    lines = list(iter_json_lines(path))
    assert [(ln.number, ln.value) for ln in lines if ln.error is None] == [(1, {"ok": 1}), (2, [1, 2]), (6, {"ok": 2})]
    assert [ln.number for ln in lines if ln.error] == [4, 5, 7]
    assert all(ln.error.line == ln.number and ln.error.path == str(path) for ln in lines if ln.error)


def test_json_lines_bound_a_single_line_and_refuse_links(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b'{"a": "' + b"x" * 5000 + b'"}\n{"b": 1}\n')
    lines = list(iter_json_lines(path, limits=Limits(max_bytes=1000)))
    assert lines[0].error is not None and "longer than 1000 bytes" in lines[0].error.message
    assert lines[1].value == {"b": 1}
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    with pytest.raises(InputError, match="symbolic link"):
        list(iter_json_lines(link))
    assert list(iter_json_lines(tmp_path / "missing.jsonl")) == []


@pytest.mark.parametrize(("document", "line", "what"), [
    ('{\n  "format": 1,\n  "scale": NaN\n}', 3, "NaN"),
    ('[1,\n 2,\n "NaN is text here",\n 1e999]', 4, "1e999"),
    ('{"ids": [\n  1,\n  99999999999999999999999]}', 3, "out of range"),
    ('{"a":\n 1,\n "a": 2}', 3, "duplicate key 'a'"),
    # the inner object closes first, so its duplicate is the one the parser refuses
    ('{"a": 1,\n "a": {"b": 1,\n  "b": 2}}', 3, "duplicate key 'b'"),
    # a number is refused where it stands, before the object holding a duplicate closes
    ('{"a": 1, "a": 2,\n "b": -Infinity}', 2, "-Infinity"),
    ('{"s": "a \\" NaN \\\\",\n "t": Infinity}', 2, "Infinity"),
])
def test_a_refused_number_or_key_in_a_pretty_printed_document_names_its_line(document, line, what):
    """A pretty-printed fingerprint, trace or config with a NaN on line 3 said only `f.json: invalid JSON: NaN ...`
    (the parser's hooks are not told where they are); DESIGN: the message names the file and the line."""
    err = pytest.raises(InputError, load_json, document, "f.json").value
    assert err.line == line and what in err.message, f"{err.line}; {err.message}"


def test_nan_and_infinity_are_refused_unless_the_caller_keeps_them():
    text = '{"edges": [0, Infinity],\n "fill": -Infinity, "missing": NaN}'
    with pytest.raises(InputError, match="Infinity is not a JSON number") as exc:
        load_json(text, "c.json")
    assert exc.value.line == 1
    data = load_json(text, "c.json", nonfinite=True)
    assert data["edges"] == [0, float("inf")] and data["fill"] == float("-inf") and data["missing"] != data["missing"]
    with pytest.raises(InputError, match="out of range"):  # a literal beyond float stays refused
        load_json('{"x": 1e999}', "c.json", nonfinite=True)
    with pytest.raises(InputError, match="duplicate key 'x'") as exc:  # the line is the key's, not the NaN's
        load_json('{"a": NaN,\n "x": 1,\n "x": 2}', "c.json", nonfinite=True)
    assert exc.value.line == 3
