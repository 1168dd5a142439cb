"""Value types of an ONNX graph, spelt as onnxruntime spells them (``tensor(float)``, ``seq(tensor(int64))``),
and back to ``onnx.TypeProto``.

Not named ``types``: ``probe.py`` runs as a script from this directory, where a ``types.py`` would shadow the
standard library's module.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.serving.onnx.load import iter_graphs
from faultlib.detect.serving.onnx.specdata import data_type_name, is_onnx_free


def _type_string(type_proto) -> str | None:
    """onnxruntime's spelling of a value type: ``tensor(float)``, ``seq(tensor(int64))``."""
    which = type_proto.WhichOneof("value")
    if which == "tensor_type" and type_proto.tensor_type.elem_type:
        return f"tensor({data_type_name(type_proto, type_proto.tensor_type.elem_type).lower()})"
    if which == "sequence_type":
        inner = _type_string(type_proto.sequence_type.elem_type)
        return f"seq({inner})" if inner else None
    if which == "optional_type":
        inner = _type_string(type_proto.optional_type.elem_type)
        return f"optional({inner})" if inner else None
    return None


class TypeMap(dict):
    """``{value name: type string}``; ``protos`` keeps each value's ``onnx.TypeProto`` (with its shape), which a
    context-dependent function body needs (``CausalConvWithState`` builds its body from the input ranks)."""

    protos: dict[str, Any]


def value_types_of_graph(model) -> TypeMap:
    """``{value name: type}`` of the values ``model`` declares (initializers, inputs, outputs, value_info),
    subgraphs included. ``protos`` is filled for an ``onnx.ModelProto`` only (function bodies need it)."""
    protos = not is_onnx_free(model)
    if protos:
        from onnx import helper
    types = TypeMap()
    types.protos = {}
    for _, graph, _ in iter_graphs(model.graph):
        for t in graph.initializer:
            types[t.name] = f"tensor({data_type_name(t, t.data_type).lower()})"
            if protos:
                types.protos[t.name] = helper.make_tensor_type_proto(t.data_type, list(t.dims))
        for vi in [*graph.input, *graph.output, *graph.value_info]:
            found = _type_string(vi.type)
            if found:
                types[vi.name] = found
                types.protos[vi.name] = vi.type
    return types


def elem_type(type_str: str) -> int:
    """``onnx.TensorProto`` element type of ``float``, ``int64``..."""
    from onnx import TensorProto

    return TensorProto.DataType.Value(type_str.upper())


def type_proto(type_str: str) -> Any:
    """An ``onnx.TypeProto`` for ``tensor(float)``, ``seq(tensor(int64))``, ``optional(...)``, ``map(string,
    tensor(float))`` (shapes left unknown)."""
    from onnx import helper

    if type_str.startswith("tensor(") or type_str.startswith("sparse_tensor("):
        inner = type_str[type_str.index("(") + 1:-1]
        return helper.make_tensor_type_proto(elem_type(inner), None)
    if type_str.startswith("seq("):
        return helper.make_sequence_type_proto(type_proto(type_str[4:-1]))
    if type_str.startswith("optional("):
        return helper.make_optional_type_proto(type_proto(type_str[9:-1]))
    if type_str.startswith("map("):
        key, _, value = type_str[4:-1].partition(",")
        return helper.make_map_type_proto(elem_type(key.strip()), type_proto(value.strip()))
    raise ValueError(type_str)
