"""Rendering Chaos Mesh objects from case entries: metadata, labels, names, selectors."""

from __future__ import annotations

import copy

import pytest

from faultlib.cases import discover, load_case
from faultlib.chaos import (API_VERSION, ChaosEntry, CrdSchemas, chaos_entries, render_chaos, run_selector,
                            run_suffix, scope_selector)
from tests.conftest import CRDS, REPO, needs_crds

RUN_ID = "20261130T120048Z-3fa2c1"
CATALOG = discover(REPO / "cases")
DELAY = {"action": "delay", "mode": "all", "delay": {"latency": "200ms"}}
RUN_SELECTOR = {"namespaces": ["ml"],
                "labelSelectors": {"faultlib.dev/run-id": RUN_ID, "faultlib.dev/phase": "faulted"}}


def _render(*entries, **kwargs):
    return render_chaos(list(entries), case_id="downstream_timeout", run_id=RUN_ID, namespace="ml", **kwargs)


def test_metadata_names_and_labels():
    [obj] = _render(ChaosEntry("NetworkChaos", "downstream-delay", DELAY))
    assert obj["apiVersion"] == API_VERSION == "chaos-mesh.org/v1alpha1" and obj["kind"] == "NetworkChaos"
    assert obj["metadata"] == {"name": "downstream-delay-3fa2c1", "namespace": "ml", "labels": {
        "app.kubernetes.io/managed-by": "faultlib", "faultlib.dev/case": "downstream_timeout",
        "faultlib.dev/run-id": RUN_ID}}
    assert run_suffix(RUN_ID) == "3fa2c1"


def test_a_missing_selector_selects_the_runs_faulted_pods():
    [obj] = _render(ChaosEntry("NetworkChaos", "d", DELAY))
    assert obj["spec"]["selector"] == RUN_SELECTOR
    [obj] = _render(ChaosEntry("PodChaos", "kill", {"action": "pod-kill", "mode": "one"}),
                    pod_labels={"app": "trainer"})
    assert obj["spec"]["selector"]["labelSelectors"] == {**RUN_SELECTOR["labelSelectors"], "app": "trainer"}
    assert run_selector(namespace="ml", run_id=RUN_ID) == RUN_SELECTOR


def test_a_selector_the_case_wrote_keeps_its_conditions_is_scoped_to_the_run_and_the_case_is_not_mutated():
    spec = {**DELAY, "selector": {"labelSelectors": {"app": "feature-service"}},
            "target": {"mode": "all", "selector": {"namespaces": ["other"], "labelSelectors": {"app": "model-service"}}}}
    original = copy.deepcopy(spec)
    [obj] = _render(ChaosEntry("NetworkChaos", "d", spec))
    # the case's labels stay; the run's namespace (when none is named) and run-id label are added
    assert obj["spec"]["selector"] == {"namespaces": ["ml"],
                                       "labelSelectors": {"app": "feature-service", "faultlib.dev/run-id": RUN_ID}}
    assert obj["spec"]["target"]["selector"] == {"namespaces": ["other"], "labelSelectors": {
        "app": "model-service", "faultlib.dev/run-id": RUN_ID}}
    assert scope_selector({"labelSelectors": {"app": "x"}}, namespace="ml", run_id=RUN_ID) == \
        obj["spec"]["selector"] | {"labelSelectors": {"app": "x", "faultlib.dev/run-id": RUN_ID}}
    obj["spec"]["selector"]["labelSelectors"]["app"] = "changed"
    [bare] = _render(ChaosEntry("NetworkChaos", "d", DELAY))
    assert spec == original and "selector" not in DELAY and bare["spec"]["selector"] == RUN_SELECTOR


def test_selectors_are_filled_inside_schedules_and_workflows():
    schedule = {"schedule": "@every 1m", "type": "NetworkChaos", "historyLimit": 2, "concurrencyPolicy": "Forbid",
                "networkChaos": DELAY}
    workflow = {"entry": "entry", "templates": [
        {"name": "entry", "templateType": "Serial", "children": ["delay", "kill"]},
        {"name": "delay", "templateType": "NetworkChaos", "deadline": "30s", "networkChaos": DELAY},
        {"name": "kill", "templateType": "PodChaos", "podChaos": {"action": "pod-kill", "mode": "one",
                                                                  "selector": {"pods": {"ml": ["p-1"]}}}}]}
    sched, flow = _render(ChaosEntry("Schedule", "s", schedule), ChaosEntry("Workflow", "w", workflow))
    assert sched["spec"]["networkChaos"]["selector"] == RUN_SELECTOR and "selector" not in sched["spec"]
    templates = {t["name"]: t for t in flow["spec"]["templates"]}
    assert templates["delay"]["networkChaos"]["selector"] == RUN_SELECTOR
    assert templates["kill"]["podChaos"]["selector"] == {"pods": {"ml": ["p-1"]}, "namespaces": ["ml"],
                                                         "labelSelectors": {"faultlib.dev/run-id": RUN_ID}}
    assert "selector" not in templates["entry"]


@pytest.mark.parametrize("case_dir", CATALOG, ids=[c.name for c in CATALOG])
@needs_crds
def test_catalog_chaos_entries_render_into_objects_valid_against_the_real_crds(case_dir):
    case = load_case(case_dir)
    entries = chaos_entries(case)
    twin = case.raw["inject"]["kubernetes"]["twin"]
    assert (twin is None) == (entries == []), "a twin names chaos entries, no twin names none"
    objects = render_chaos(entries, case_id=case.id, run_id=RUN_ID, namespace="ml")
    assert [o["kind"] for o in objects] == [e.kind for e in entries]
    if twin is not None:
        assert twin in {o["kind"] for o in objects}
    schemas = CrdSchemas(CRDS)
    for obj in objects:
        assert [str(p) for p in schemas.problems(obj)] == [], obj["metadata"]["name"]
        assert obj["metadata"]["labels"]["faultlib.dev/case"] == case.id
