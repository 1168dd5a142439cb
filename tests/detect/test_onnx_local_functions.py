"""A model-local function that calls itself (directly, or A -> B -> A) cannot be inlined: onnxruntime refuses the
model (INVALID_GRAPH), while `check onnx` graded it `likely` and said ok (exit 0). Now it is blocked, naming the
cycle; a local function that calls only standard ops is not."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from faultlib.detect.serving.onnx import check_file, parse_target  # noqa: E402

OPSETS = [helper.make_opsetid("", 17), helper.make_opsetid("mine", 1)]


def _model(path, functions: dict[str, str]):
    """A graph of one node ``mine::A`` and the local functions ``{name: op it calls}`` (``mine`` ops or Relu)."""
    fns = [helper.make_function("mine", name, ["a"], ["b"],
                                [helper.make_node(op, ["a"], ["b"], domain="" if op == "Relu" else "mine")], OPSETS)
           for name, op in functions.items()]
    graph = helper.make_graph([helper.make_node("A", ["x"], ["y"], domain="mine", name="a")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=OPSETS, functions=fns)
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


@pytest.mark.parametrize(("functions", "cycle"), [
    ({"A": "A"}, ["mine::A", "mine::A"]),
    ({"A": "B", "B": "A"}, ["mine::A", "mine::B", "mine::A"]),
])
def test_a_recursive_local_function_is_blocked_as_onnxruntime_refuses_it(tmp_path, functions, cycle):
    path = _model(tmp_path / "model.onnx", functions)
    ort = pytest.importorskip("onnxruntime")
    with pytest.raises(Exception, match="INVALID_GRAPH"):
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    _, report = check_file(path, parse_target("onnxruntime==1.16"))
    recursive = [f for f in report.findings if f.kind == "local_function_recursive"]
    assert recursive and recursive[0].evidence["cycle"] == cycle and recursive[0].severity.name == "ERROR"
    assert report.level == "blocked"


def test_a_local_function_of_standard_ops_is_not_recursive(tmp_path):
    path = _model(tmp_path / "model.onnx", {"A": "Relu"})
    _, report = check_file(path, parse_target("onnxruntime==1.16"))
    assert not [f for f in report.findings if f.kind == "local_function_recursive"]
    assert report.level != "blocked"
