"""Does the target's kernel registry serve a node? Version and types, and function bodies recursively.

A node resolves to the newest schema of the *runtime's own* registry at or below the model's opset; a kernel
serves it under onnxruntime's rule (:meth:`~faultlib.detect.serving.onnx.registry.Kernel.serves`), and must
list the node's input/output types. When no kernel serves it and the ONNX specification defines the op as a
function (``Bernoulli``, ``CastLike``, ``Gelu``...), onnxruntime inlines the function body instead
(``onnxruntime/core/graph/graph.cc``, function inlining): then every node of that body needs a kernel in
turn, checked here the same way (the body comes from the installed ``onnx``'s C++ extension:
``OpSchema.function_body`` or its context-dependent builder at the node's opset, inlined with its inliner so
attribute references resolve, types from its shape inference).
"""

from __future__ import annotations

import re
from typing import Any

from faultlib.detect.serving.onnx.registry import KernelRegistry
from faultlib.detect.serving.onnx.schemas import (
    STANDARD_DOMAINS, NodeRef, has_function, is_variadic, shown, spec_index, type_str)
from faultlib.detect.serving.onnx.specdata import NeedsOnnx, messages, onnx_extension
from faultlib.detect.serving.onnx.valuetypes import type_proto, value_types_of_graph
from faultlib.findings import Finding

#: ops onnxruntime runs without a kernel: its graph constructor turns Constant nodes into initializers
#: (onnxruntime/core/graph/graph.cc)
NO_KERNEL_NEEDED = {("", "Constant")}
#: function bodies are expanded this deep at most (a body of a body of a body)
MAX_DEPTH = 4


def _homogeneous(param) -> bool:
    return bool(getattr(param, "is_homogeneous", getattr(param, "isHomogeneous", True)))


def bind_types(schema, node, types: dict[str, str]) -> dict[str, str]:
    """``{type parameter: type}`` of a node's inputs and outputs (``T`` -> ``tensor(float)``)."""
    binding: dict[str, str] = {}
    for formals, actuals in ((list(schema.inputs), list(node.input)), (list(schema.outputs), list(node.output))):
        for i, name in enumerate(actuals):
            if not name or name not in types or not formals:
                continue
            formal = formals[i] if i < len(formals) else (formals[-1] if is_variadic(formals[-1]) else None)
            if formal is not None and is_variadic(formal) and not _homogeneous(formal):
                continue  # Loop/Scan/If carry values of different types under one parameter
            param = type_str(formal) if formal is not None else ""
            if param and "(" not in param:  # a type parameter, not a fixed type like tensor(int64)
                binding.setdefault(param, types[name])
    return binding


class NoBody(LookupError):
    """The specification has no function body for the op at this opset (or for these inputs)."""


class BodyTypeError(Exception):
    """The function body does not type-check for the node's types (onnxruntime refuses the inlined body)."""


_TYPE_ERROR = re.compile(r"Type Error|TypeInferenceError|bound to different types|type .* is invalid", re.I)


def type_conflict(schema, node, types: dict[str, str]) -> str | None:
    """Why ``node``'s types do not fit ``schema`` (a type parameter bound to two types, or to one its constraint
    does not allow), as onnxruntime's graph resolution says it (``Graph::InferAndVerifyTypeMatch``); ``None``
    when they fit or are unknown."""
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    bound: dict[str, str] = {}
    for formals, actuals in ((list(schema.inputs), list(node.input)), (list(schema.outputs), list(node.output))):
        for i, name in enumerate(actuals):
            if not name or name not in types or not formals:
                continue
            formal = formals[i] if i < len(formals) else (formals[-1] if is_variadic(formals[-1]) else None)
            if formal is None or (is_variadic(formal) and not _homogeneous(formal)):
                continue
            param = type_str(formal)
            if "(" in param:
                continue
            if param in allowed and types[name] not in allowed[param]:
                return f"type {types[name]} of {name!r} is invalid for {param} of {node.op_type}"
            if bound.setdefault(param, types[name]) != types[name]:
                return f"type parameter {param} of {node.op_type} bound to {bound[param]} and {types[name]}"
    return None


def _function_body(node, version: int, opset: int, domain: str, types: dict[str, str]) -> tuple[list, dict, dict]:
    """``(body nodes, their opsets, value types)`` of the function ``node`` runs as.

    Built with onnx's C++ extension (:func:`~faultlib.detect.serving.onnx.specdata.onnx_extension`: the schema's
    function builders, the inliner, shape inference; what ``onnx.defs``/``onnx.inliner``/``onnx.shape_inference``
    call) and messages of ``node``'s own classes, as ``onnx.helper`` builds them.

    Raises:
        LookupError: the specification gives no body for these inputs (the message says why).
        NeedsOnnx: the extension does not load by itself.
    """
    extension = onnx_extension()
    classes = messages(node)
    try:  # the package's own schema: its function builders are what onnxruntime inlines
        schema = extension.defs.get_schema(node.op_type, version, domain)
    except extension.defs.SchemaError:
        schema = None
    if schema is None or int(schema.since_version) != version:
        raise LookupError(f"the installed onnx has no {node.op_type}-{version}")
    in_types = []
    for name in node.input:
        if name and name not in types:
            raise LookupError(f"the type of input {name!r} is unknown")
        known = getattr(types, "protos", {}).get(name) if name else None
        in_types.append(known if known is not None else type_proto(types[name], classes) if name
                        else classes.TypeProto())
    body = None
    def newest(versions: list[int]) -> int:  # the body for an opset is the newest one defined at or below it
        return max((v for v in versions if v <= opset), default=opset)

    defined_at = opset
    if getattr(schema, "has_context_dependent_function", False):
        defined_at = newest(list(schema.context_dependent_function_opset_versions))
        raw = schema.get_context_dependent_function_with_opset_version(
            defined_at, node.SerializeToString(), [t.SerializeToString() for t in in_types])
        if raw:
            body = classes.FunctionProto.FromString(raw)
    if (body is None or not body.node) and getattr(schema, "has_function", False):
        defined_at = newest(list(schema.function_opset_versions))
        raw = schema.get_function_with_opset_version(defined_at)
        if raw:
            body = classes.FunctionProto.FromString(raw)
    if body is None or not body.node:
        raise NoBody(f"the ONNX specification gives no function body for {node.op_type}-{version} at opset {opset}")
    # onnx's OpSchema::ValidateReferencedOpsInFuncton, which onnxruntime relies on: a body defined at opset f
    # serves opset N > f only if no op it uses got a new version in (f, N]
    for sub in body.node:
        if sub.domain in ("", "ai.onnx"):
            changed = [v for v in spec_index().versions("", sub.op_type) if defined_at < v <= opset]
            if changed:
                raise NoBody(f"the function body of {node.op_type} is defined at opset {defined_at} and uses "
                             f"{sub.op_type}, which changed at opset {changed[0]}: no body at opset {opset}")
    body.name, body.domain = f"{node.op_type}_body", "faultlib.expand"
    inputs = [_value_info(classes, f"i{k}", t) for k, t in enumerate(in_types) if node.input[k]]
    call = classes.NodeProto(op_type=body.name, input=[f"i{k}" if n else "" for k, n in enumerate(node.input)],
                             output=[f"o{k}" for k in range(len(node.output))], domain=body.domain)
    call.attribute.extend(node.attribute)
    imports = {o.domain: o.version for o in body.opset_import}
    imports.setdefault(domain, opset)
    model = classes.ModelProto(ir_version=classes.ir_version)  # onnx.helper.make_model + make_graph
    model.graph.node.append(call)
    model.graph.name = "expand"
    model.graph.input.extend(inputs)
    model.graph.output.extend(_value_info(classes, f"o{k}", classes.TypeProto()) for k in range(len(node.output)))
    model.opset_import.extend(classes.OperatorSetIdProto(domain=d, version=v)
                              for d, v in [*imports.items(), (body.domain, 1)])
    model.functions.append(body)
    flat = classes.ModelProto.FromString(extension.inliner.inline_local_functions(model.SerializeToString(), False))
    try:
        flat = classes.ModelProto.FromString(extension.shape_inference.infer_shapes(flat.SerializeToString(), True,
                                                                                     True, False))
    except Exception as exc:  # noqa: BLE001 - onnx's InferenceError/ValidationError
        if _TYPE_ERROR.search(str(exc)):
            raise BodyTypeError(str(exc).strip().splitlines()[-1][:300]) from None
        try:
            flat = classes.ModelProto.FromString(extension.shape_inference.infer_shapes(flat.SerializeToString(),
                                                                                         False, False, False))
        except Exception:  # noqa: BLE001 - types stay partial; kernels are still matched by version
            pass
    opsets = {("" if o.domain in ("", "ai.onnx") else o.domain): int(o.version) for o in flat.opset_import}
    body_types = value_types_of_graph(flat)
    for k, name in enumerate(node.input):
        if name and f"i{k}" not in body_types:
            body_types[f"i{k}"] = types[name]
            body_types.protos[f"i{k}"] = in_types[k]
    for sub in flat.graph.node:
        sub_domain = "" if sub.domain in ("", "ai.onnx") else sub.domain
        sub_schema = spec_index().resolve(sub_domain, sub.op_type, opsets.get(sub_domain, 0))
        conflict = type_conflict(sub_schema, sub, body_types) if sub_schema is not None else None
        if conflict:
            raise BodyTypeError(conflict)
    return list(flat.graph.node), opsets, body_types


def _value_info(classes, name: str, type_proto) -> Any:
    """``onnx.helper.make_value_info(name, type_proto)`` with ``classes``' ``ValueInfoProto``."""
    info = classes.ValueInfoProto(name=name)
    info.type.CopyFrom(type_proto)
    return info


def kernel_findings(node, ref: NodeRef, opsets: dict[str, int], registry: KernelRegistry, types: dict[str, str],
                    rt: str, depth: int = 0) -> list[Finding]:
    """The findings of ``node`` against ``registry``: none when a kernel serves it; ``op_unsupported_by_target`` /
    ``type_unsupported_by_target`` (errors) when none does and no function body runs instead;
    ``function_body_unsupported`` (error) when the body it runs as has such a node; ``op_expanded_as_function``
    (info) when the body is served; ``function_body_unverified`` (warning) when the body cannot be built;
    ``float16_cast_to_float`` (info)."""
    if (ref.domain, ref.op) in NO_KERNEL_NEEDED:
        return []
    versions = registry.schemas.get((ref.domain, ref.op))
    if not versions:
        return [ref.finding("op_unsupported_by_target", "error",
                            f"{rt} does not know {shown(ref.domain)}::{ref.op} at all (no schema, no kernel)",
                            runtime=rt)]
    opset = opsets.get(ref.domain, 0)
    schema = registry.resolve(ref.domain, ref.op, opset)
    if schema is None:
        return [ref.finding("op_unsupported_by_target", "error",
                            f"{rt} has {ref.op} only from {shown(ref.domain)} opset {versions[0][0]}; the model "
                            f"imports {opset}", runtime=rt, opset=opset, first_version=versions[0][0])]
    version = schema.since_version
    kernels = registry.serving(ref.domain, ref.op, version)
    spec = spec_index().at(ref.domain, ref.op, version) if ref.domain in STANDARD_DOMAINS else None
    by_function = spec is not None and has_function(spec)
    binding = bind_types(schema, node, types)

    def matches(wanted: dict[str, str]) -> bool:
        return any(all(t in k.types.get(p, (t,)) for p, t in wanted.items()) for k in kernels)

    if kernels and matches(binding):
        return []
    if kernels:
        as_float = {p: ("tensor(float)" if t == "tensor(float16)" else t) for p, t in binding.items()}
        if as_float != binding and matches(as_float):
            # onnxruntime/core/optimizer/insert_cast_transformer.cc: float16 nodes without a CPU kernel run in float32
            if opsets.get("", 0) < 6:  # the inserted Cast sets 'to' as an INT; Cast-1 (opsets 1-5) wants a STRING
                return [ref.finding("float16_cast_unsupported", "error",
                                    f"{rt} has no float16 kernel for {ref.op}-{version} and computes it in float32 "
                                    f"through inserted Casts, which fail at ai.onnx opset {opsets.get('', 0)} (Cast-1 "
                                    "takes 'to' as a string): the session is refused; import opset >= 6",
                                    runtime=rt, schema_version=version, types=binding)]
            return [ref.finding("float16_cast_to_float", "info",
                                f"{rt} has no float16 kernel for {ref.op}-{version}: it casts to float32 around it",
                                runtime=rt, schema_version=version, types=binding)]
    if by_function:
        return _body_findings(node, ref, version, opset, registry, types, rt, depth, binding)
    return _no_kernel(ref, version, registry, binding, rt)


def _no_kernel(ref: NodeRef, version: int, registry: KernelRegistry, binding: dict[str, str], rt: str) -> list[Finding]:
    """``op_unsupported_by_target`` when no kernel serves the version, else ``type_unsupported_by_target``."""
    kernels = registry.serving(ref.domain, ref.op, version)
    if not kernels:
        ranges = sorted({(k.start, k.end) for k in registry.kernels.get((ref.domain, ref.op), [])})
        shown_ranges = ", ".join(f"{a}-{b if b < 2**31 - 1 else '(no end)'}" for a, b in ranges) or "none"
        return [ref.finding("op_unsupported_by_target", "error",
                            f"{rt} has no {', '.join(registry.providers)} kernel for {ref.op}-{version} "
                            f"(kernels: {shown_ranges}; a kernel without an end version serves only its start "
                            "version)", runtime=rt, schema_version=version, kernel_versions=[list(r) for r in ranges])]
    supported: dict[str, list[str]] = {}
    for k in kernels:
        for p, allowed in k.types.items():
            supported.setdefault(p, [])
            supported[p].extend(a for a in allowed if a not in supported[p])
    wanted = ", ".join(f"{p}={t}" for p, t in sorted(binding.items()))
    allowed = "; ".join(f"{p}: " + ", ".join(v) for p, v in sorted(supported.items()))
    return [ref.finding("type_unsupported_by_target", "error",
                        f"{rt} has {ref.op}-{version} kernels, none for {wanted} (supported: {allowed})",
                        runtime=rt, schema_version=version, types=binding, supported=supported)]


def _body_findings(node, ref: NodeRef, version: int, opset: int, registry: KernelRegistry, types: dict[str, str],
                   rt: str, depth: int, binding: dict[str, str]) -> list[Finding]:
    if depth >= MAX_DEPTH:
        return [ref.finding("function_body_unverified", "warning",
                            f"{ref.op}-{version} runs as a function body nested {depth} deep: not expanded further",
                            runtime=rt, schema_version=version)]
    try:
        body, body_opsets, body_types = _function_body(node, version, opset, ref.domain, types)
    except BodyTypeError as exc:
        return [ref.finding("function_body_unsupported", "error",
                            f"{rt} has no kernel for {ref.op}-{version} and runs its function body, which does not "
                            f"type-check for these types: {exc}", runtime=rt, schema_version=version, types=binding)]
    except NoBody:
        return _no_kernel(ref, version, registry, binding, rt)
    except NeedsOnnx:
        raise
    except Exception as exc:  # noqa: BLE001 - onnx's own errors building/inlining the body
        return [ref.finding("function_body_unverified", "warning",
                            f"{rt} has no kernel for {ref.op}-{version} and runs its function body, which could not "
                            f"be built to check ({str(exc)[:200]})", runtime=rt, schema_version=version)]
    inner: list[Finding] = []
    for i, sub in enumerate(body):
        sub_ref = NodeRef(f"{ref.node}/{sub.op_type}#{i}", sub.op_type,
                          "" if sub.domain in ("", "ai.onnx") else sub.domain, i)
        inner.extend(kernel_findings(sub, sub_ref, body_opsets, registry, body_types, rt, depth + 1))
    errors = [f for f in inner if f.severity.value in ("error", "critical")]
    if errors:
        first = errors[0]
        return [ref.finding("function_body_unsupported", "error",
                            f"{rt} has no kernel for {ref.op}-{version} and runs its function body, but the body's "
                            f"{first.location.get('op')} is not served: {first.message}", runtime=rt,
                            schema_version=version, body_op=first.location.get("op"), body_kind=first.kind)]
    unverified = [f for f in inner if f.kind == "function_body_unverified"]
    if unverified:
        return [ref.finding("function_body_unverified", "warning", unverified[0].message, runtime=rt,
                            schema_version=version)]
    return [ref.finding("op_expanded_as_function", "info",
                        f"{rt} has no {', '.join(registry.providers)} kernel for {ref.op}-{version}; it runs the op's "
                        f"function body ({', '.join(sorted({n.op_type for n in body}))}), every node of which it "
                        "serves", runtime=rt, schema_version=version)]
