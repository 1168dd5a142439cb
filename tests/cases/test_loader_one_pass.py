"""validate reports every problem in one pass, and notices ids a copied case kept."""

from __future__ import annotations

import shutil

import pytest

from faultlib.cases import load_case
from faultlib.errors import CaseValidationError
from tests.conftest import REPO, tiny_case_data, write_case


def test_schema_and_consistency_problems_are_reported_together(tmp_path):
    data = tiny_case_data()
    data["titel"] = data.pop("title")
    data["repro"]["timeout"] = data["repro"].pop("timeout_s")
    data["assertions"][0]["test"] = "test_not_there"
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    fields = [p.field for p in info.value.problems]
    assert "titel" in fields and "repro.timeout" in fields and "assertions[0].test" in fields
    assert all(p.line for p in info.value.problems)


@pytest.mark.skipif(not (REPO / "cases" / "nan_gradient").is_dir(), reason="needs the catalog's nan_gradient case")
def test_a_copied_case_with_the_old_ids_in_compose_yaml_fails_validate(tmp_path):
    copied = tmp_path / "my_new_case"
    shutil.copytree(REPO / "cases" / "nan_gradient", copied)
    text = (copied / "case.yaml").read_text().replace("id: nan_gradient", "id: my_new_case", 1)
    (copied / "case.yaml").write_text(text)
    with pytest.raises(CaseValidationError) as info:
        load_case(copied)
    messages = "\n".join(p.message for p in info.value.problems)
    assert "FAULTLIB_CASE_ID is 'nan_gradient'" in messages and "OTEL_SERVICE_NAME" in messages
    assert "faultlib-my-new-case" in messages
    compose = (copied / "compose.yaml").read_text().replace("nan_gradient", "my_new_case").replace(
        "faultlib-nan-gradient", "faultlib-my-new-case")
    (copied / "compose.yaml").write_text(compose)
    assert load_case(copied).id == "my_new_case"
