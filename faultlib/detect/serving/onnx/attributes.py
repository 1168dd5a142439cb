"""Attribute and input values an onnxruntime CPU kernel refuses although the schema allows them.

The schema and the kernel registry cannot show these: the kernel's constructor (at session creation) or its
``Compute`` (at the first run) refuses the value. Each rule below was measured on onnxruntime 1.32.0 and
1.16.3 (CPUExecutionProvider) with a one-node model; the source is the check that raises:

- ``RNN``/``GRU``/``LSTM`` with ``layout=1`` (batch-major): "Batchwise recurrent operations (layout == 1) are
  not supported" (``core/providers/cpu/rnn/rnn.h``, ``deep_cpu_gru.h``, ``lstm_base.h``: ``layout_ == 0``);
- ``ConvInteger`` with a per-channel ``w_zero_point`` (more than one element): "Non per-tensor quantization is
  not supported now" (``core/providers/cpu/quantization/conv_integer.cc``), at run time (1.16.3's process
  died on it);
- ``MatMulInteger`` with a per-row ``a_zero_point``: "IsScalarOr1ElementVector(a_zero_point)"
  (``core/providers/cpu/quantization/matmul_integer.cc``), at run time.

A zero point is judged only when it is an initializer or a ``Constant`` (its size is in the model); a value
computed at run time is not judged.
"""

from __future__ import annotations

from faultlib.detect.serving.onnx.schemas import NodeRef
from faultlib.findings import Finding

_RNN = {"RNN", "GRU", "LSTM"}
#: op -> (input index of the zero point, its name, the message's reason)
_PER_TENSOR = {"ConvInteger": (3, "w_zero_point", "Non per-tensor quantization is not supported now"),
               "MatMulInteger": (2, "a_zero_point", "a_zero_point must be a scalar or a 1-element vector")}


def constant_sizes(graph) -> dict[str, int]:
    """``{value name: element count}`` of the graph's initializers and ``Constant`` outputs."""
    sizes: dict[str, int] = {}
    for t in graph.initializer:
        count = 1
        for d in t.dims:
            count *= d
        sizes[t.name] = count
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            for a in node.attribute:
                if a.name == "value" and a.HasField("t"):
                    count = 1
                    for d in a.t.dims:
                        count *= d
                    sizes[node.output[0]] = count
    return sizes


def value_findings(node, ref: NodeRef, sizes: dict[str, int], rt: str) -> list[Finding]:
    """``attribute_value_unsupported`` (error) for the values listed in the module docstring."""
    if ref.domain != "":
        return []
    if ref.op in _RNN:
        layout = next((a.i for a in node.attribute if a.name == "layout"), 0)
        if layout != 0:
            return [ref.finding("attribute_value_unsupported", "error",
                                f"{rt}'s CPU {ref.op} kernel refuses layout={layout} at session creation (batchwise "
                                "recurrent operations are not supported): export with layout=0 (sequence-major) "
                                "and transpose around the node", runtime=rt, attribute="layout", value=layout)]
    if ref.op in _PER_TENSOR:
        index, name, reason = _PER_TENSOR[ref.op]
        given = node.input[index] if len(node.input) > index else ""
        if given and sizes.get(given, 1) > 1:
            return [ref.finding("attribute_value_unsupported", "error",
                                f"{rt}'s CPU {ref.op} kernel refuses a per-channel {name} ({sizes[given]} values) "
                                f"at the first run ({reason}): quantize per tensor, or use QLinearConv/"
                                "QLinearMatMul", runtime=rt, input=name, values=sizes[given])]
    return []
