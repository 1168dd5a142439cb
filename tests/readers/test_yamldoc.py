"""The hardened YAML reader: every kind of hostile YAML gives InputError with a line, fast."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from faultlib.errors import InputError
from faultlib.readers import Limits, load_yaml, load_yaml_file


def _laughs(levels: int, width: int = 9) -> str:
    """The classic alias bomb: ``width ** levels`` nodes from a few hundred bytes."""
    names = [f"l{i}" for i in range(levels + 1)]
    lines = [f"{names[0]}: &{names[0]} [" + ", ".join(['"lol"'] * width) + "]"]
    for prev, cur in zip(names, names[1:]):
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * width) + "]")
    return "\n".join(lines) + "\n"


def refused(text: str, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        load_yaml(text, "case.yaml", **kw)
    return info.value


@pytest.mark.parametrize("levels,width", [(9, 9), (30, 2), (6, 60)])
def test_alias_bombs_are_refused_in_bounded_time_and_memory(levels, width):
    text = _laughs(levels, width)
    assert len(text) < 4096
    tracemalloc.start()
    started = time.perf_counter()
    err = refused(text)
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "alias" in err.message and err.line is not None
    assert elapsed < 2.0 and peak < 50 * 2**20


def test_aliases_within_the_bound_still_work_and_merge_keys_merge():
    doc = load_yaml("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\nlist: [*b, *b]\n", "c.yaml")
    assert doc.data["use"] == {"x": 1, "y": 3}
    assert doc.data["list"] == [{"x": 1, "y": 2}] * 2


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a {b: *a}\n", "a: &a [1, [2, {c: *a}]]\n"])
def test_recursive_aliases_are_refused(text):
    err = refused(text)
    assert "recursive alias" in err.message and err.line == 1


@pytest.mark.parametrize("opener,closer", [("[", "]"), ("{a: ", "}")])
def test_deep_nesting_is_refused_before_the_recursive_composer(opener, closer):
    err = refused("x: " + opener * 20000 + closer * 20000 + "\n")
    assert "levels deep" in err.message and err.line == 1


def test_depth_limit_is_configurable():
    refused("a: [[[1]]]\n", limits=Limits(max_depth=3))
    assert load_yaml("a: [[1]]\n", "c.yaml", limits=Limits(max_depth=3)).data == {"a": [[1]]}


@pytest.mark.parametrize("text,key,line", [
    ("1: x\n", "1", 1), ("a: 1\ntrue: 3\n", "true", 2), ("~: 1\n", "~", 1), ("a:\n  b:\n    2.5: x\n", "2.5", 3),
    ("a: 1\nno: 2\n", "no", 2), ("null: 1\n", "null", 1)])
def test_keys_that_are_not_strings_are_refused_with_the_line(text, key, line):
    err = refused(text)
    assert f"key {key!r} is not a string" in err.message and err.line == line


def test_complex_keys_and_duplicate_keys_are_refused():
    assert "cannot be a key" in refused("? [a, b]\n: 1\n").message
    err = refused("repro:\n  seed: 1\n  seed: 2\n")
    assert "duplicate key 'seed'" in err.message and err.line == 3 and err.field == "repro.seed"


@pytest.mark.parametrize("value,kind", [
    ("2020-01-01", "timestamp"), ("2001-12-14t21:59:43.10-05:00", "timestamp"), ("!!binary aGVsbG8=", "binary"),
    ("!!python/object/apply:os.system [ls]", "python/object/apply:os.system"), ("!!str 1", None),
    ("!custom x", "!custom")])
def test_non_json_scalars_are_refused_with_field_and_line(value, kind):
    text = f"repro:\n  params:\n    when: {value}\n"
    if kind is None:  # an explicit !!str is a plain string
        assert load_yaml(text, "c.yaml").data["repro"]["params"]["when"] == "1"
        return
    err = refused(text)
    assert err.line == 3 and err.field == "repro.params.when" and "not allowed" in err.message


@pytest.mark.parametrize("value", [".nan", ".NaN", ".inf", "-.inf", "+.INF", "1.0e+400", "-1.5e+999"])
def test_non_finite_numbers_are_refused(value):
    err = refused(f"repro:\n  timeout_s: {value}\n")
    assert err.field == "repro.timeout_s" and err.line == 2
    assert "finite" in err.message


def test_huge_integers_are_refused():
    assert "out of range" in refused("seed: 123456789012345678901234567890\n").message


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\ufffe"])
def test_control_characters_are_refused_with_the_line(char):
    err = refused(f"id: ok\ntitle: bad{char}title\n")
    assert err.line == 2


def test_file_reader_checks_size_utf8_nul_and_symlinks(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 5000 + "\n")
    with pytest.raises(InputError, match="limit is 1000 bytes"):
        load_yaml_file(big, limits=Limits(max_bytes=1000))
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"id: ok\ntitle: caf\xe9\n")
    err = pytest.raises(InputError, load_yaml_file, latin).value
    assert "UTF-8" in err.message and err.line == 2
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"id: ok\n\x00\n")
    assert pytest.raises(InputError, load_yaml_file, nul).value.line == 2
    link = tmp_path / "link.yaml"
    link.symlink_to(latin)
    assert "symbolic link" in pytest.raises(InputError, load_yaml_file, link).value.message
    assert "directory" in pytest.raises(InputError, load_yaml_file, tmp_path).value.message


def test_file_reader_never_blocks_on_a_fifo(tmp_path):
    import os

    fifo = tmp_path / "case.yaml"
    os.mkfifo(fifo)
    started = time.perf_counter()
    with pytest.raises(InputError, match="not a regular file"):
        load_yaml_file(fifo)
    assert time.perf_counter() - started < 1.0


def test_lines_point_at_keys_for_schema_errors():
    doc = load_yaml("id: x\nrepro:\n  script: r.py\n  params:\n    lr: 0.1\n", "c.yaml")
    assert doc.line_of(["repro", "params", "lr"]) == 5
    assert doc.line_of(["repro", "missing"]) == 2


def test_integer_keys_only_where_asked():
    text = "id2label:\n  0: cat\n  1: dog\n"
    assert "not a string" in refused(text).message
    assert load_yaml(text, "labels.yaml", int_keys=True).data == {"id2label": {0: "cat", 1: "dog"}}
    assert "not a string" in refused("a:\n  true: x\n", int_keys=True).message


def test_non_finite_numbers_are_refused_unless_the_caller_keeps_them():
    text = "edges: [0, .inf]\nfill: -.inf\nmissing: .nan\n"
    with pytest.raises(InputError, match="non-finite number '.inf'") as exc:
        load_yaml("edges: [0, 1]\nfill: .inf\n", "c.yaml")
    assert exc.value.line == 2 and exc.value.field == "fill"
    data = load_yaml(text, "c.yaml", nonfinite=True).data
    assert data["edges"] == [0, float("inf")] and data["fill"] == float("-inf") and data["missing"] != data["missing"]
