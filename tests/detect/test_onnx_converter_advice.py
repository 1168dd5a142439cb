"""When onnx.version_converter cannot take a model down to the target's opset, `check onnx` says why in words
and the node's finding does not promise the opposite: before, a Div-14 model for onnxruntime==1.2 got
"onnx.version_converter can rewrite the node" on the node and ended with the converter's raw
``(No Adapter From Version $14 for Div)``."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper as h  # noqa: E402

from faultlib.detect.serving.onnx import check_model, load_model, parse_target  # noqa: E402
from faultlib.detect.serving.onnx.check import converter_reason  # noqa: E402


def _ratio_model(path, opset: int) -> None:
    """y = a / b at ``opset`` (Div-14 from opset 14 on: bfloat16 support)."""
    graph = h.make_graph([h.make_node("Div", ["a", "b"], ["y"], name="ratio")], "ratio",
                         [h.make_tensor_value_info(n, T.FLOAT, [3]) for n in "ab"],
                         [h.make_tensor_value_info("y", T.FLOAT, [3])])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    model.ir_version = 7
    onnx.save(model, path)


def test_a_refused_downgrade_is_said_in_words_and_the_node_does_not_promise_it(tmp_path):
    _ratio_model(tmp_path / "ratio.onnx", 14)
    report = check_model(load_model(tmp_path / "ratio.onnx"), parse_target("onnxruntime==1.2"))
    assert report.fix["version_converter"]["ok"] is False
    assert report.fix["advice"] == ("onnx.version_converter cannot take the model down to opset 11: it has no adapter "
                                    "to convert Div from its opset-14 version to an older one; export again with "
                                    "opset_version=11")
    node = next(f for f in report.findings if f.kind == "op_unsupported_by_target")
    assert "can rewrite" not in node.message and "export with opset_version=11" in node.message, node.message


@pytest.mark.parametrize(("error", "words"), [
    ("No Adapter To Version $9 for Upsample", "it has no adapter to convert Upsample to its opset-9 version"),
    ("No Previous Version of Gelu", "Gelu has no older version to convert to"),
    ("something new", "it failed (something new)"),
])
def test_each_converter_refusal_reads_as_words(error, words):
    assert converter_reason(error) == words
