"""case.yaml loading and validation: every error names file, line and field."""

from __future__ import annotations

import pytest
import yaml

from faultlib.cases import discover, load_case
from faultlib.errors import CaseError, CaseValidationError
from tests.conftest import REPO, tiny_case_data, write_case


def _write_raw(tmp_path, text: str):
    case_dir = write_case(tmp_path, tiny_case_data())
    (case_dir / "case.yaml").write_text(text)
    return case_dir


def _problem(exc: CaseValidationError, field: str) -> CaseError:
    matches = [p for p in exc.problems if p.field == field]
    assert matches, f"no problem for {field}: {[p.render() for p in exc.problems]}"
    return matches[0]


def test_catalog_cases_load():
    cases = [load_case(p) for p in discover(REPO / "cases")]
    assert "fp16_overflow" in {c.id for c in cases}
    fp16 = next(c for c in cases if c.id == "fp16_overflow")
    assert fp16.shims[0].name == "activation_scale"
    assert fp16.script.name == "repro.py" and fp16.timeout_s > 0


def test_missing_field_names_field_and_line(tmp_path):
    data = tiny_case_data()
    del data["repro"]["timeout_s"]
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    problem = _problem(info.value, "repro")
    assert "'timeout_s' is a required property" in problem.message
    lines = (case_dir / "case.yaml").read_text().splitlines()
    assert lines[problem.line - 1].startswith("repro:")
    assert problem.render().startswith(f"{case_dir / 'case.yaml'}:{problem.line}: repro:")


def test_wrong_type_points_at_the_value_line(tmp_path):
    data = tiny_case_data()
    data["repro"]["timeout_s"] = "soon"
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    problem = _problem(info.value, "repro.timeout_s")
    assert "'soon' is not of type 'number'" in problem.message
    assert "timeout_s: soon" in (case_dir / "case.yaml").read_text().splitlines()[problem.line - 1]


def test_unknown_key_is_an_error(tmp_path):
    data = tiny_case_data()
    data["repro"]["timeout"] = 5
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    problem = _problem(info.value, "repro.timeout")
    assert "unknown key 'timeout'; did you mean 'timeout_s'?" in problem.message
    assert "timeout: 5" in (case_dir / "case.yaml").read_text().splitlines()[problem.line - 1]


def test_bad_yaml_reports_line(tmp_path):
    case_dir = _write_raw(tmp_path, "id: tiny_case\nrepro: [unclosed\nversion: 1.0.0\n")
    with pytest.raises(CaseError) as info:
        load_case(case_dir)
    assert "invalid YAML" in str(info.value)
    assert info.value.line == 3


def test_not_a_mapping(tmp_path):
    case_dir = _write_raw(tmp_path, "- just\n- a list\n")
    with pytest.raises(CaseError, match="must be a mapping"):
        load_case(case_dir)


def test_unknown_shim_lists_registered_ones(tmp_path):
    data = tiny_case_data()
    data["inject"]["local"] = [{"shim": "nan_everywhere", "params": {}}]
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    problem = _problem(info.value, "inject.local[0].shim")
    assert "unknown shim 'nan_everywhere'" in problem.message and "activation_scale" in problem.message
    assert "nan_everywhere" in (case_dir / "case.yaml").read_text().splitlines()[problem.line - 1]


def test_shim_params_are_validated(tmp_path):
    data = tiny_case_data()
    data["inject"]["local"] = [{"shim": "activation_scale", "params": {"module": "0", "start_step": -1}}]
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    assert "minimum of 0" in _problem(info.value, "inject.local[0].params.start_step").message


def test_consistency_checks(tmp_path):
    data = tiny_case_data()
    data["assertions"][0]["test"] = "test_not_there"
    data["observability"]["grafana"]["panels"][0]["query"] = "nope"
    case_dir = write_case(tmp_path, data)
    (case_dir / "case.yaml").write_text(yaml.safe_dump({**data, "id": "other_name"}, sort_keys=False))
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    fields = {p.field for p in info.value.problems}
    assert {"id", "assertions[0].test", "observability.grafana.panels[0].query"} <= fields


def test_twin_null_needs_a_reason(tmp_path):
    data = tiny_case_data()
    data["inject"]["kubernetes"] = {"twin": None}
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    assert "'reason' is a required property" in _problem(info.value, "inject.kubernetes").message


def test_missing_directory_and_file(tmp_path):
    with pytest.raises(CaseError, match="case directory not found"):
        load_case(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CaseError, match="case.yaml not found"):
        load_case(tmp_path / "empty")


def test_script_must_stay_inside_the_case(tmp_path):
    data = tiny_case_data()
    data["repro"]["script"] = "../evil.py"
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    assert "does not match" in _problem(info.value, "repro.script").message


def test_a_test_function_no_assertion_declares_is_an_error_at_its_line(tmp_path):
    """pytest would run it, but run/regress/JUnit would not report it: one truth, case.yaml's assertions."""
    from tests.conftest import TINY_TEST

    suite = TINY_TEST + "\n\ndef _helper():\n    return 1\n\n\ndef test_added_but_not_declared(evidence):\n    assert True\n"
    case_dir = write_case(tmp_path, tiny_case_data(), test=suite)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    [problem] = info.value.problems
    line = suite.splitlines().index("def test_added_but_not_declared(evidence):") + 1
    assert problem.path.endswith("test_case.py") and problem.line == line
    assert "test_added_but_not_declared is not declared in case.yaml assertions" in problem.message


@pytest.mark.parametrize("body, words", [
    ("def test_a(evidence):\n    assert = 1\n", "is not valid Python (line 2"),
    ("def test_a(evidence):\n    total = 1" + " + 1" * 20000 + "\n", "nested too deeply for the parser"),
    ("def test_a(evidence):\n    w = " + "[" * 240 + "1" + "]" * 240 + "\n", "nested too deeply for the parser"),
], ids=["syntax_error", "chained_plus", "brackets"])
def test_a_test_suite_the_parser_cannot_read_is_named_in_the_static_checks_words(tmp_path, body, words):
    """test_case.py goes through readers.pysource like every other user Python file (it had its own ``ast.parse``:
    "syntax error: invalid syntax", "cannot parse (RecursionError): simplify the file")."""
    case_dir = write_case(tmp_path, tiny_case_data(), test=body)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    problem = next(p for p in info.value.problems if p.path.endswith("test_case.py"))
    assert words in problem.message, problem.render()
    assert "RecursionError" not in problem.message and "syntax error:" not in problem.message
