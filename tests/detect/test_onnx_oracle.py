"""The runtime as oracle, on a seeded sample: one-node models generated from the installed onnx's schemas
(every op, version and input type), answered by the installed onnxruntime in a worker process, predicted by
`check_model` against the installed runtime's registry and against the shipped onnxruntime 1.16.3 table.
The whole set runs in benchmarks/onnx_oracle.py."""

from __future__ import annotations

import random
import sys

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from faultlib.detect.serving.onnx import oracle, parse_target  # noqa: E402

SAMPLE = 400


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FAULTLIB_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def sample():
    cases = [c for c in oracle.generate() if c.excluded is None]
    return random.Random(18).sample(cases, SAMPLE)


def test_check_onnx_agrees_with_the_installed_runtime_on_a_sample(sample):
    target = parse_target(None)
    worker = oracle.Worker(sys.executable)
    tally = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    wrong = []
    try:
        for case in sample:
            truth = oracle.classify(worker.ask(case.model.SerializeToString()))
            if truth.startswith("excluded:"):
                continue
            blocked, level, kinds = oracle.predict(case, target)
            refused = truth.startswith("refused:")
            tally[("t" if blocked == refused else "f") + ("p" if blocked else "n")] += 1
            assert level in ("blocked", "unverified", "verified")  # never "likely": this is the real registry
            if blocked != refused:
                wrong.append((case.key, truth, kinds, level))
    finally:
        worker.close()
    counted = sum(tally.values())
    assert counted >= SAMPLE // 2 and tally["tp"] + tally["fn"] >= 40, tally  # both classes well represented
    precision = tally["tp"] / (tally["tp"] + tally["fp"])
    recall = tally["tp"] / (tally["tp"] + tally["fn"])
    assert precision >= 0.98 and recall >= 0.95, f"{tally}; {wrong}"


def test_the_release_table_never_imports_that_runtime(sample):
    target = parse_target("onnxruntime==1.16.3")
    assert target.registry is not None and target.registry.verified is False
    levels = {oracle.predict(case, target)[1] for case in sample[:60]}
    assert "verified" not in levels and levels <= {"blocked", "unverified", "likely"}
    assert "onnxruntime" not in sys.modules or sys.modules["onnxruntime"].__version__ != "1.16.3"


def test_the_runtime_answers_are_sorted_into_compatibility_failures_and_others():
    assert oracle.classify({"stage": "ok", "error": None}) == "loads"
    no_kernel = "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Erf(13) node"
    assert oracle.classify({"stage": "session", "error": no_kernel}) == "refused:no_kernel"
    deprecated = "Error Op registered for Upsample is deprecated in domain_version of 10"
    assert oracle.classify({"stage": "session", "error": deprecated}) == "refused:deprecated"
    inference = "[ShapeInferenceError] Incompatible dimensions"
    assert oracle.classify({"stage": "session", "error": inference}) == "excluded:inference"
    assert oracle.classify({"stage": "run", "error": "Invalid input shape"}) == "excluded:run"
    assert oracle.classify({"stage": "binding", "error": "tensor(bfloat16)"}) == "excluded:binding"
    made_up = "Exception during initialization: Invalid direction value of 'a'"
    assert oracle.classify({"stage": "session", "error": made_up}) == "excluded:attribute_value"
