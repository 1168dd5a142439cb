"""Value types of an ONNX graph, spelt as onnxruntime spells them (``tensor(float)``, ``seq(tensor(int64))``),
and back to ``onnx.TypeProto``.

Not named ``types``: ``probe.py`` runs as a script from this directory, where a ``types.py`` would shadow the
standard library's module.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.serving.onnx.load import iter_graphs
from faultlib.detect.serving.onnx.specdata import Messages, data_type_name, messages


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
    subgraphs included, with each one's ``TypeProto`` in ``protos`` (of ``model``'s own message classes)."""
    classes = messages(model)
    types = TypeMap()
    types.protos = {}
    for _, graph, _ in iter_graphs(model.graph):
        for t in graph.initializer:
            types[t.name] = f"tensor({data_type_name(t, t.data_type).lower()})"
            types.protos[t.name] = tensor_type_proto(t.data_type, list(t.dims), classes)
        for vi in [*graph.input, *graph.output, *graph.value_info]:
            found = _type_string(vi.type)
            if found:
                types[vi.name] = found
                types.protos[vi.name] = vi.type
    return types


def tensor_type_proto(elem: int, dims: list[int] | None, classes: Messages) -> Any:
    """``onnx.helper.make_tensor_type_proto(elem, dims)`` (integer dims) with ``classes``' ``TypeProto``."""
    proto = classes.TypeProto()
    proto.tensor_type.elem_type = elem
    if dims is not None:
        shape = proto.tensor_type.shape
        shape.dim.extend([])  # as onnx.helper: an empty shape is present, not absent
        for d in dims:
            shape.dim.add().dim_value = d
    return proto


def elem_type(type_str: str, classes: Messages | None = None) -> int:
    """``onnx.TensorProto`` element type of ``float``, ``int64``... (``classes``: default the onnx package's)."""
    return (classes or messages()).data_types.Value(type_str.upper())


def type_proto(type_str: str, classes: Messages | None = None) -> Any:
    """An ``onnx.TypeProto`` (of ``classes``, default the onnx package's) for ``tensor(float)``,
    ``seq(tensor(int64))``, ``optional(...)``, ``map(string, tensor(float))`` (shapes left unknown), as
    ``onnx.helper.make_*_type_proto`` builds it."""
    classes = classes or messages()
    proto = classes.TypeProto()
    if type_str.startswith("tensor(") or type_str.startswith("sparse_tensor("):
        return tensor_type_proto(elem_type(type_str[type_str.index("(") + 1:-1], classes), None, classes)
    if type_str.startswith("seq("):
        proto.sequence_type.elem_type.CopyFrom(type_proto(type_str[4:-1], classes))
    elif type_str.startswith("optional("):
        proto.optional_type.elem_type.CopyFrom(type_proto(type_str[9:-1], classes))
    elif type_str.startswith("map("):
        key, _, value = type_str[4:-1].partition(",")
        proto.map_type.key_type = elem_type(key.strip(), classes)
        proto.map_type.value_type.CopyFrom(type_proto(value.strip(), classes))
    else:
        raise ValueError(type_str)
    return proto
