"""``check onnx``'s summary counts nodes in words a reader expects: "1 node", "2 nodes", "10,000 nodes"."""

from __future__ import annotations

from faultlib.check.base import CheckResult
from faultlib.check.onnx import _summary


def _model(nodes: int) -> dict:
    return {"file": "m.onnx", "ir_version": 8, "opset_import": {"ai.onnx": 17}, "nodes": nodes, "producer": ""}


def test_one_model_of_one_node_is_one_node_and_many_are_grouped():
    for nodes, words in ((1, "1 node"), (2, "2 nodes"), (10_000, "10,000 nodes")):
        result = CheckResult("onnx", [], {"model": _model(nodes), "target": None, "level": "verified",
                                          "levels": {"verified": nodes}, "fix": None, "comparison": None})
        line = dict(_summary(result))["model"]
        assert line.endswith(f"opset ai.onnx 17, {words}"), line


def test_several_models_say_node_in_the_singular_too():
    models = [{"model": _model(1), "level": "verified", "findings": [], "worst": None, "target": None}]
    line = dict(_summary(CheckResult("onnx", [], {"models": models})))["m.onnx"]
    assert "1 node," in line and "1 nodes" not in line, line
