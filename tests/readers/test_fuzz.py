"""Property-based tests: for ANY input, the readers and the case loader either accept it or raise
the project's own InputError with a location, within a time bound (Hypothesis' deadline)."""

from __future__ import annotations

import datetime as dt
import json

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from faultlib.cases import load_case
from faultlib.errors import InputError
from faultlib.readers import load_json, load_yaml
from tests.conftest import tiny_case_data, write_case

FUZZ = settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
                    st.dates(), st.datetimes(), st.binary(max_size=8))
keys = st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.none(), st.floats())
documents = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                           st.dictionaries(keys, inner, max_size=4)), max_leaves=25)


def _yaml_text(value) -> str:
    """``value`` as YAML text, non-ASCII characters written as they are; escaped where PyYAML's emitter writes a
    text it reads back differently itself (NEL, U+0085, is a YAML 1.1 line break: ``'\x85'`` dumped raw inside
    single quotes is folded to a space on reading), so the text means ``value``."""
    text = yaml.dump(value, default_flow_style=None, allow_unicode=True)
    if "\x85" in text:
        return yaml.dump(value, default_flow_style=None, allow_unicode=False)
    return text


def _plain(value) -> bool:
    """True when ``value`` is made only of JSON values with string keys and finite numbers."""
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, (dt.date, bytes)):
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return -(1 << 63) <= value < (1 << 63)
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return True


@FUZZ
@given(documents)
@example("a\x85b")  # a YAML line break inside a string (found by Hypothesis in a suite run)
def test_yaml_documents_are_accepted_exactly_when_they_are_plain_json(value):
    text = _yaml_text(value)
    try:
        doc = load_yaml(text, "case.yaml")
    except InputError as exc:
        assert exc.path == "case.yaml" and (exc.line is not None or "invalid YAML" in exc.message)
        assert not _plain(value)
        return
    assert _plain(value)
    assert doc.data == value


@FUZZ
@given(st.text(max_size=300))
def test_any_text_is_accepted_or_refused_with_a_location(text):
    try:
        load_yaml(text, "case.yaml")
    except InputError as exc:
        assert exc.path == "case.yaml" and exc.message


@FUZZ
@given(st.integers(1, 12), st.integers(2, 40), st.booleans())
def test_alias_chains_of_any_shape_are_bounded(levels, width, recursive):
    lines = ['a0: &a0 ["x"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    if recursive:
        lines.append(f"r: &r [*a{levels}, *r]")
    text = "\n".join(lines) + "\n"
    try:
        load_yaml(text, "bomb.yaml")
    except InputError as exc:
        assert exc.line is not None
        assert "recursive alias" in exc.message or "nodes" in exc.message
        return
    assert not recursive and width ** levels <= 200_000


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_are_json_or_an_input_error(data):
    try:
        load_json(data, "x.json")
    except InputError as exc:
        assert exc.path == "x.json"


json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10)),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                           max_leaves=20)


@FUZZ
@given(json_values)
def test_json_round_trips_unless_a_number_is_not_finite(value):
    text = json.dumps(value)  # writes NaN / Infinity for non-finite floats
    try:
        assert load_json(text, "x.json") == value
    except InputError as exc:
        assert "NaN" in text or "Infinity" in text or "out of range" in exc.message


case_fields = st.sampled_from(["id", "version", "title", "repro", "inject", "observability", "assertions",
                               "requires", "topology", "severity", "fault_class"])


@FUZZ
@given(st.data())
def test_case_yaml_mutations_load_or_fail_with_file_and_line(tmp_path_factory, data):
    case = tiny_case_data()
    field = data.draw(case_fields)
    mutated = data.draw(documents)
    if data.draw(st.booleans()):
        case[field] = mutated
    else:
        node = case["repro"]
        node[data.draw(keys)] = mutated
    root = tmp_path_factory.mktemp("fuzz")
    case_dir = write_case(root, tiny_case_data())
    try:
        (case_dir / "case.yaml").write_text(_yaml_text(case))
    except (UnicodeEncodeError, ValueError):
        return
    try:
        load_case(case_dir)
    except InputError as exc:
        assert exc.path and exc.path.endswith("case.yaml")
        problems = getattr(exc, "problems", [exc])
        assert all(p.line is not None or "invalid YAML" in p.message for p in problems)
