"""A number written with an exponent but no '.' (``1e3``) is text in YAML 1.1, the YAML that case.yaml is read as:
the schema error for a number field says so and what to write, for case.yaml and shim params alike."""

from __future__ import annotations

import jsonschema
import pytest
import yaml

from faultlib import schemas
from faultlib.cases import load_case
from faultlib.errors import CaseValidationError
from faultlib.inject.registry import param_errors
from tests.conftest import tiny_case_data, write_case


def _timeout_problem(tmp_path, written: str) -> str:
    case_dir = write_case(tmp_path, tiny_case_data())
    path = case_dir / "case.yaml"
    path.write_text(path.read_text().replace("timeout_s: 60", f"timeout_s: {written}"))
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    return next(p.message for p in info.value.problems if p.field == "repro.timeout_s")


@pytest.mark.parametrize("written, fix", [("1e3", "write 1.0e+3 or 1000"), ("1e308", "write 1.0e+308"),
                                          ("2.5e3", "write 2.5e+3 or 2500"), ("1e-2", "write 1.0e-2")])
def test_an_exponent_yaml_reads_as_text_says_what_to_write(tmp_path, written, fix):
    message = _timeout_problem(tmp_path, written)
    assert "is not of type" not in message and "YAML 1.1" in message and fix in message, message


@pytest.mark.parametrize("written", ["1.0e+3", "1000"])
def test_what_the_message_says_to_write_loads(tmp_path, written):
    case_dir = write_case(tmp_path, tiny_case_data())
    path = case_dir / "case.yaml"
    path.write_text(path.read_text().replace("timeout_s: 60", f"timeout_s: {written}"))
    assert load_case(case_dir).timeout_s == 1000


def test_other_text_in_a_number_field_keeps_the_schema_words(tmp_path):
    assert "'soon' is not of type 'number'" in _timeout_problem(tmp_path, "soon")


def test_shim_params_say_it_in_the_same_words():
    errors = dict((".".join(map(str, p)), m) for p, m in param_errors(
        "activation_scale", {"module": "0", "factor": "1e6", "start_step": "1e3", "steps": 8}))
    assert "YAML 1.1" in errors["factor"] and "write 1.0e+6 or 1000000" in errors["factor"], errors
    assert "write 1000" in errors["start_step"] and "1.0e+3" not in errors["start_step"], errors  # an integer


@pytest.mark.parametrize("text", ["1e3", "1e+3", "1.0e3", "-5E2", "1_000e2", ".5e3"])
def test_every_suggested_spelling_is_a_number_in_yaml_1_1(text):
    assert isinstance(yaml.safe_load(text), str)  # the premise: PyYAML's YAML 1.1 reads these as text
    error = next(jsonschema.Draft202012Validator({"type": "number"}).iter_errors(text))
    suggested = schemas.error_message(error).split(": write ")[1].split(" or ")
    assert all(yaml.safe_load(s) == float(text.replace("_", "")) for s in suggested), suggested
