"""The Chaos Mesh twins of the infra cases, rendered as faultlib renders them for a run and validated
against the real CRD schemas (../shared/chaos-mesh-crds)."""

from __future__ import annotations

import copy

import pytest

from faultlib.cases import load_case
from faultlib.chaos import CrdSchemas, LABEL_RUN_ID, chaos_entries, render_chaos, validate_case_chaos
from faultlib.errors import CaseValidationError
from tests.conftest import CRDS, REPO, needs_crds

RUN_ID = "20261130T120048Z-3fa2c1"

pytestmark = needs_crds


def rendered(case_id):
    case = load_case(REPO / "cases" / case_id)
    return case, render_chaos(chaos_entries(case), case_id=case.id, run_id=RUN_ID, namespace="ml")


def test_downstream_delay_is_a_valid_network_chaos():
    case, [obj] = rendered("downstream_timeout")
    validate_case_chaos(case, [obj], CrdSchemas(CRDS))
    assert obj["apiVersion"] == "chaos-mesh.org/v1alpha1" and obj["kind"] == "NetworkChaos"
    assert obj["metadata"]["name"] == "downstream-delay-3fa2c1"
    spec = obj["spec"]
    assert spec["action"] == "delay" and spec["direction"] == "to"
    assert spec["selector"] == {"labelSelectors": {"app": "feature-service"}}  # the case's own selector is kept
    assert spec["target"]["selector"] == {"labelSelectors": {"app": "model-service"}}
    shim = case.shims[0].params
    assert spec["delay"] == {"latency": f"{shim['latency_ms']}ms", "jitter": f"{shim['jitter_ms']}ms",
                             "correlation": "0"}, "the twin and the local shim must inject the same delay"


def test_trainer_kill_is_a_valid_pod_chaos_aimed_at_the_runs_pod():
    case, [obj] = rendered("preempted_training")
    validate_case_chaos(case, [obj], CrdSchemas(CRDS))
    spec = obj["spec"]
    assert obj["kind"] == "PodChaos" and spec["action"] == "pod-kill" and spec["gracePeriod"] == 0
    assert spec["mode"] == "one"
    assert spec["selector"]["labelSelectors"][LABEL_RUN_ID] == RUN_ID  # filled in by faultlib
    assert spec["selector"]["namespaces"] == ["ml"]


@pytest.mark.parametrize("case_id, mutate, phrase", [
    ("downstream_timeout", lambda s: s.update(action="slowdown"), "'slowdown' is not one of"),
    ("downstream_timeout", lambda s: s.update(direction="sideways"), "'sideways' is not one of"),
    ("downstream_timeout", lambda s: s["delay"].update(latency=400), "400 is not of type 'string'"),
    ("preempted_training", lambda s: s.update(gracePeriod="0"), "'0' is not of type 'integer'"),
    ("preempted_training", lambda s: s.update(mode="some"), "'some' is not one of"),
])
def test_a_broken_twin_is_reported_against_case_yaml(case_id, mutate, phrase):
    case, [obj] = rendered(case_id)
    broken = copy.deepcopy(obj)
    mutate(broken["spec"])
    with pytest.raises(CaseValidationError, match=phrase) as info:
        validate_case_chaos(case, [broken], CrdSchemas(CRDS))
    problem = info.value.problems[0]
    assert problem.field.startswith("inject.kubernetes.chaos[0].spec") and problem.line is not None
