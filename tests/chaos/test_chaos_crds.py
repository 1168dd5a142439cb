"""Validation of rendered Chaos Mesh objects against the real CRD schemas in ../shared/chaos-mesh-crds:
one example of every kind a case may name is accepted, broken ones are rejected, case errors point
at case.yaml, and the large Schedule and Workflow schemas are read only when needed, once."""

from __future__ import annotations

import shutil

import pytest
import yaml

from faultlib.cases import load_case
from faultlib.chaos import ChaosEntry, CrdSchemas, render_chaos, validate_case_chaos
from faultlib.chaos.crds import _validator
from faultlib.errors import CaseValidationError, FaultlibError
from tests.conftest import CRDS, needs_crds, tiny_case_data, write_case

RUN_ID = "20261130T120048Z-3fa2c1"

NETWORK_DELAY = {"action": "delay", "mode": "all", "duration": "30s",
                 "delay": {"latency": "400ms", "jitter": "100ms", "correlation": "25"}}
EXAMPLES = {
    "network-delay": ("NetworkChaos", NETWORK_DELAY),
    "pod-kill": ("PodChaos", {"action": "pod-kill", "mode": "one", "gracePeriod": 0}),
    "cpu-stress": ("StressChaos", {"mode": "one", "duration": "1m",
                                   "stressors": {"cpu": {"workers": 2, "load": 80},
                                                 "memory": {"workers": 1, "size": "256MB"}}}),
    "io-latency": ("IOChaos", {"action": "latency", "mode": "one", "volumePath": "/checkpoints",
                               "path": "/checkpoints/**",
                               "delay": "100ms", "percent": 50, "duration": "1m"}),
    "http-abort": ("HTTPChaos", {"mode": "all", "target": "Request", "port": 8081, "path": "/features*",
                                 "method": "GET", "abort": True, "duration": "1m"}),
    "clock-skew": ("TimeChaos", {"mode": "one", "timeOffset": "-10m", "clockIds": ["CLOCK_REALTIME"],
                                 "duration": "1m"}),
    "every-minute": ("Schedule", {"schedule": "@every 1m", "type": "NetworkChaos", "historyLimit": 3,
                                  "concurrencyPolicy": "Forbid", "networkChaos": NETWORK_DELAY}),
    "delay-then-kill": ("Workflow", {"entry": "entry", "templates": [
        {"name": "entry", "templateType": "Serial", "deadline": "5m", "children": ["delay", "kill"]},
        {"name": "delay", "templateType": "NetworkChaos", "deadline": "1m", "networkChaos": NETWORK_DELAY},
        {"name": "kill", "templateType": "PodChaos", "podChaos": {"action": "pod-kill", "mode": "one"}}]}),
}

pytestmark = needs_crds


@pytest.fixture(scope="module")
def schemas():
    return CrdSchemas(CRDS)


def _render(kind, name, spec):
    return render_chaos([ChaosEntry(kind, name, spec)], case_id="tiny_case", run_id=RUN_ID, namespace="ml")[0]


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_rendered_examples_are_valid(schemas, name):
    kind, spec = EXAMPLES[name]
    obj = _render(kind, name, spec)
    assert schemas.problems(obj) == []
    schemas.validate(obj)


@pytest.mark.parametrize("mutate, where, phrase", [
    (lambda o: o["spec"].update(action="teleport"), ("spec", "action"), "'teleport' is not one of"),
    (lambda o: o["spec"].pop("selector"), ("spec",), "'selector' is a required property"),
    (lambda o: o["spec"].pop("mode"), ("spec",), "'mode' is a required property"),
    (lambda o: o["spec"]["delay"].update(latency=400), ("spec", "delay", "latency"), "is not of type 'string'"),
    (lambda o: o["spec"].update(mode="most"), ("spec", "mode"), "'most' is not one of"),
])
def test_broken_objects_are_rejected(schemas, mutate, where, phrase):
    obj = _render("NetworkChaos", "delay", NETWORK_DELAY)
    mutate(obj)
    problems = schemas.problems(obj)
    assert any(p.path == where and phrase in p.message for p in problems), problems
    with pytest.raises(FaultlibError, match="does not match its CRD schema"):
        schemas.validate(obj)


def test_broken_embedded_specs_are_rejected(schemas):
    schedule = _render("Schedule", "s", {**EXAMPLES["every-minute"][1], "networkChaos": {
        **NETWORK_DELAY, "action": "teleport"}})
    assert [p.path for p in schemas.problems(schedule)] == [("spec", "networkChaos", "action")]
    kind, workflow = EXAMPLES["delay-then-kill"]
    broken = {**workflow, "templates": [t for t in workflow["templates"] if t["name"] != "entry"]}
    broken["templates"][1] = {"name": "kill", "podChaos": {"action": "pod-kill", "mode": "one"}}  # no templateType
    problems = schemas.problems(_render(kind, "w", broken))
    assert any("'templateType' is a required property" in p.message for p in problems), problems


def test_a_bad_case_spec_is_reported_against_case_yaml(tmp_path, schemas):
    data = tiny_case_data("chaos_case")
    data["inject"]["kubernetes"] = {"twin": "PodChaos", "chaos": [
        {"kind": "PodChaos", "name": "trainer-kill", "spec": {"action": "pod-explode", "mode": "one"}}]}
    case = load_case(write_case(tmp_path, data))
    objects = render_chaos([ChaosEntry("PodChaos", "trainer-kill", {"action": "pod-explode", "mode": "one"})],
                           case_id=case.id, run_id=RUN_ID, namespace="ml")
    with pytest.raises(CaseValidationError) as info:
        validate_case_chaos(case, objects, schemas)
    [problem] = info.value.problems
    line = next(i for i, text in enumerate((case.path / "case.yaml").read_text().splitlines(), 1)
                if "pod-explode" in text)
    assert (problem.path, problem.line, problem.field) == (str(case.path / "case.yaml"), line,
                                                           "inject.kubernetes.chaos[0].spec.action")
    assert "PodChaos 'pod-explode' is not one of ['pod-kill', 'pod-failure', 'container-kill']" in problem.message


def test_a_missing_directory_or_kind_says_what_to_pass(tmp_path, schemas):
    with pytest.raises(FaultlibError, match="CRD directory not found.*--crd-dir"):
        CrdSchemas(tmp_path / "nowhere")
    with pytest.raises(FaultlibError, match="no CustomResourceDefinition of chaos-mesh.org kind PodChaos in "
                                            ".*--crd-dir"):
        CrdSchemas(tmp_path).problems(_render("PodChaos", "k", EXAMPLES["pod-kill"][1]))


def test_an_all_in_one_crd_manifest_works(tmp_path):
    docs = [yaml.safe_load((CRDS / f"chaos-mesh.org_{plural}.yaml").read_text())
            for plural in ("podchaos", "networkchaos")]
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump_all(docs))
    schemas = CrdSchemas(tmp_path)
    assert schemas.problems(_render("NetworkChaos", "d", NETWORK_DELAY)) == []
    assert schemas.problems(_render("PodChaos", "k", {"action": "pod-explode", "mode": "one"}))


def test_large_schemas_load_only_when_needed_and_once(tmp_path):
    for name in ("chaos-mesh.org_podchaos.yaml", "chaos-mesh.org_schedules.yaml"):
        shutil.copy(CRDS / name, tmp_path / name)
    (tmp_path / "chaos-mesh.org_workflows.yaml").write_text("spec: [this is: not: a CRD\n")  # unreadable on purpose
    schemas = CrdSchemas(tmp_path)
    assert schemas.problems(_render("PodChaos", "k", EXAMPLES["pod-kill"][1])) == []  # workflows untouched
    schedule = _render("Schedule", "s", EXAMPLES["every-minute"][1])
    misses = _validator.cache_info().misses
    for _ in range(3):
        assert schemas.problems(schedule) == []
    assert _validator.cache_info().misses == misses + 1, "the Schedule schema was loaded more than once"
