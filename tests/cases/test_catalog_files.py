"""Every catalog case's files validate against the real schemas they claim to follow."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from faultlib.cases import discover
from tests.conftest import REPO, SHARED

CASES = discover(REPO / "cases")
COMPOSE_SPEC = SHARED / "compose-spec" / "compose-spec.json"


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_compose_file_matches_the_compose_specification(case_dir):
    if not COMPOSE_SPEC.is_file():
        pytest.skip(f"Compose specification schema not found at {COMPOSE_SPEC}")
    spec = json.loads(COMPOSE_SPEC.read_text())
    compose = yaml.safe_load((case_dir / "compose.yaml").read_text())
    jsonschema.Draft7Validator(spec).validate(compose)


def test_compose_validation_rejects_a_broken_file():
    if not COMPOSE_SPEC.is_file():
        pytest.skip(f"Compose specification schema not found at {COMPOSE_SPEC}")
    spec = json.loads(COMPOSE_SPEC.read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(spec).validate({"services": {"x": {"restart_policy": 3}}})


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_grafana_panels_name_declared_queries_and_metrics(case_dir):
    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    obs = data["observability"]
    queries = {q["id"]: q["query"] for q in obs["promql"]}
    for panel in obs["grafana"]["panels"]:
        assert panel["query"] in queries
    for query in queries.values():
        assert any(metric in query for metric in obs.get("metrics", [])), query
