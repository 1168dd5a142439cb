"""Will this ONNX model run on that runtime? The whole static check, per node, without a session.

:func:`check_model` walks every node (subgraphs included) once:

1. against the ONNX specification at the model's imported opset (:mod:`~faultlib.detect.serving.onnx.schemas`),
   including the input and output types its schema allows (types from ``onnx.shape_inference``);
2. against the target (:mod:`~faultlib.detect.serving.onnx.targets`): the model's opset and IR version must not
   be newer than the runtime's; with a kernel registry (the installed onnxruntime's own, or a release table
   shipped with faultlib) each node must have a kernel for the version it resolves to and for its input and
   output types, matched as onnxruntime matches them (:mod:`~faultlib.detect.serving.onnx.kernels`: a function
   op without a kernel runs its body, whose nodes are checked in turn; float16 that onnxruntime computes in
   float32 is only info); with ``opset=N`` each node's resolved version must exist at opset ``N``;
3. when the model's opset is newer than the target's, ``onnx.version_converter`` is tried down to the
   target's opset, and the result says whether it works or what to do instead.

Each node and the model get a level (:data:`LEVELS`): ``blocked``, ``unverified``, ``likely``, ``verified``.

Cost: one pass over the nodes plus one shape inference; no weights are read. :func:`check_file` skips the
onnx package (shape inference, function bodies and the version converter run from its C++ extension alone).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.detect.serving.onnx.load import LoadedModel, iter_graphs, load_model
from faultlib.detect.serving.onnx.attributes import constant_sizes, value_findings
from faultlib.detect.serving.onnx.kernels import bind_types, kernel_findings
from faultlib.detect.serving.onnx.specdata import NeedsOnnx, is_onnx_free, onnx_extension
from faultlib.detect.serving.onnx.valuetypes import value_types_of_graph
from faultlib.detect.serving.onnx.schemas import (
    DETECTOR, STANDARD_DOMAINS, NodeRef, check_node, norm_domain, shown, spec_index)
from faultlib.detect.serving.onnx.targets import Target
from faultlib.findings import Finding, Severity

KINDS = {
    "model_opset_unsupported": "the model imports an opset (ai.onnx or ai.onnx.ml) newer than the target runtime "
                               "implements: the runtime refuses it",
    "ir_version_unsupported": "the model's ONNX IR version is newer than the target runtime loads",
    "op_unsupported_by_target": "the target has no kernel for this op at the version the node resolves to",
    "type_unsupported_by_target": "the target has kernels for this op and version, but none for the node's "
                                  "input/output types",
    "op_expanded_as_function": "the target has no kernel for this op, but the specification defines it as a "
                               "function of other ops, which onnxruntime runs instead (slower); every node of "
                               "the body has a kernel",
    "float16_cast_to_float": "the target's CPU has no float16 kernel for this op: onnxruntime inserts Casts and "
                             "computes it in float32 (slower; results rounded back to float16)",
    "type_not_in_schema": "an input or output type the op's schema at this opset does not allow (types are added "
                          "to ops at opset boundaries, e.g. bfloat16 at 13, int8/int32 for Relu at 14)",
    "no_onnx_backend": "the target (a Triton release) ships no ONNX Runtime backend at all",
    "op_newer_than_opset": "the op does not exist yet at the opset the model imports",
    "unknown_op": "the op is not in the ONNX specification for its (standard) domain",
    "domain_not_imported": "the node's domain has no opset_import entry in the model",
    "attribute_not_in_schema": "the node has an attribute its schema at this opset does not have (often one that "
                               "moved to an input, or back, at an opset boundary)",
    "missing_required_attribute": "the node lacks an attribute its schema requires",
    "input_count_out_of_range": "the node has more or fewer inputs than its schema at this opset allows (an input "
                                "that is an attribute at this opset, or the reverse)",
    "deprecated_op": "the op is deprecated at the model's opset: onnxruntime refuses it",
    "float16_cast_unsupported": "the target computes this float16 node in float32 through inserted Casts, which "
                                "fail below ai.onnx opset 6 (Cast-1 takes 'to' as a string)",
    "opset_unknown_to_onnx": "the model imports an opset newer than the installed onnx package knows: schema "
                             "checks used the newest it knows",
    "custom_op_unchecked": "an op of a custom domain; without the target's kernel registry it cannot be checked",
    "local_function_recursive": "a model-local function calls itself (directly or through others): it cannot be "
                                "inlined, and onnxruntime refuses the model (INVALID_GRAPH)",
    "attribute_value_unsupported": "an attribute or constant input value the target's kernel refuses although the "
                                   "schema allows it (RNN/GRU/LSTM layout=1, per-channel ConvInteger/MatMulInteger "
                                   "zero points)",
    "kernels_unverified": "no kernel registry or release table covers the target (onnxruntime not installed, or a "
                          "release without a shipped table): ops and types are unverified",
    "function_body_unsupported": "the target has no kernel for the op and runs its function body, but a node of "
                                 "that body has no kernel either (checked recursively)",
    "function_body_unverified": "the target runs the op's function body, which could not be built to check",
    "output_mismatch": "--compare-torch: onnxruntime's outputs differ from torch's beyond atol + rtol * |torch|",
    "output_shape_mismatch": "--compare-torch: onnxruntime's outputs have another count or shape than torch's",
    "runtime_load_failed": "--compare-torch: the installed onnxruntime could not load or run the model",
}


@dataclass
class OnnxReport:
    """What :func:`check_model` found.

    Attributes:
        findings: frozen findings, kinds from :data:`KINDS`, each located by ``node``/``op`` (model-level
            ones by ``key``: ``opset_import.<domain>`` or ``ir_version``).
        model: summary of the model (file, bytes, IR version, producer, opsets, op counts, external data).
        target: the target as JSON (``None`` when there is none).
        nodes_checked: nodes walked, subgraphs included.
        fix: when the model's opset is newer than the target's: ``{opset, version_converter: {ok, error},
            advice}``; else ``None``.
        level: the model's verdict, the worst of its nodes' and of the model-level findings (:data:`LEVELS`).
        nodes: ``[{node, op, domain, level}]`` for every node walked (subgraphs included).
    """

    findings: list[Finding] = field(default_factory=list)
    model: dict[str, Any] = field(default_factory=dict)
    target: dict[str, Any] | None = None
    nodes_checked: int = 0
    fix: dict[str, Any] | None = None
    level: str = "unverified"
    nodes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no finding is a warning or worse."""
        return not any(f.severity >= Severity.WARNING for f in self.findings)

    def kinds(self) -> list[str]:
        return sorted({f.kind for f in self.findings})

    def fields(self) -> dict[str, Any]:
        counts = {name: sum(n["level"] == name for n in self.nodes) for name in LEVELS}
        return {"model": self.model, "target": self.target, "level": self.level, "levels": counts,
                "nodes_checked": self.nodes_checked, "nodes": self.nodes, "fix": self.fix}


def value_types(model) -> dict[str, str]:
    """``{value name: type}`` for every value whose type is declared or inferred (``onnx.shape_inference``;
    when inference fails on a broken node, only the declared ones).

    Raises:
        NeedsOnnx: ``model`` was parsed without onnx and onnx's C++ extension does not load by itself.
    """
    if is_onnx_free(model):  # the same C++ inference on the same bytes, without the package
        try:
            raw = onnx_extension().shape_inference.infer_shapes(model.SerializeToString(), False, False, False)
            inferred = type(model).FromString(raw)
        except NeedsOnnx:
            raise
        except Exception:  # noqa: BLE001 - as below
            inferred = model
        return value_types_of_graph(inferred)
    import onnx

    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=False)
    except Exception:  # noqa: BLE001 - inference raises on the very nodes this check reports
        inferred = model
    return value_types_of_graph(inferred)


def _schema_type_findings(node, ref: NodeRef, schema, types: dict[str, str]) -> list[Finding]:
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    found = []
    for param, given in sorted(bind_types(schema, node, types).items()):
        if param in allowed and given not in allowed[param]:
            version = int(schema.since_version)
            later = [v for v in spec_index().versions(ref.domain, ref.op) if v > version and any(
                c.type_param_str == param and given in c.allowed_type_strs
                for c in spec_index().at(ref.domain, ref.op, v).type_constraints)]
            hint = f"; {ref.op}-{later[0]} (opset >= {later[0]}) allows it" if later else ""
            found.append(ref.finding("type_not_in_schema", "error",
                                     f"{ref.op}-{version} does not take {param}={given}{hint}", type_param=param,
                                     type=given, allowed=sorted(allowed[param]), schema_version=version,
                                     allowed_from_version=later[0] if later else None))
    return found


def _table_findings(ref: NodeRef, schema, target: Target) -> list[Finding]:
    limit = target.max_opset.get(ref.domain)
    version = int(schema.since_version)
    if limit is None or version <= limit:
        return []
    older = [v for v in spec_index().versions(ref.domain, ref.op) if v <= limit]
    if older:
        how = (f"{ref.op}-{older[-1]} exists at opset {limit}: export with opset_version={limit}, or convert the "
               "model with onnx.version_converter where it has an adapter (the report's fix says whether it does)")
    else:
        how = (f"{ref.op} does not exist before opset {version}: export with opset_version={limit} so the exporter "
               "decomposes it (onnx.version_converter cannot)")
    return [ref.finding("op_unsupported_by_target", "error",
                        f"{ref.op}-{version} needs {shown(ref.domain)} opset >= {version}; {target.spec} implements "
                        f"up to {limit}. {how}", schema_version=version, target_opset=limit,
                        older_versions=older)]


#: onnx.version_converter's refusals (its convert.h), each in our words
_CONVERTER_REFUSALS = [
    (re.compile(r"No Adapter From Version \$?(?P<version>\d+) for (?P<op>\S+)"),
     "it has no adapter to convert {op} from its opset-{version} version to an older one"),
    (re.compile(r"No Adapter To Version \$?(?P<version>\d+) for (?P<op>\S+)"),
     "it has no adapter to convert {op} to its opset-{version} version"),
    (re.compile(r"No Previous Version of (?P<op>\S+)"),
     "{op} has no older version to convert to"),
]


def converter_reason(error: str | None) -> str:
    """Why ``onnx.version_converter`` refused, in words: ``No Adapter From Version $14 for Div`` becomes "it has
    no adapter to convert Div from its opset-14 version to an older one"; an unknown message is quoted."""
    for pattern, words in _CONVERTER_REFUSALS:
        match = pattern.search(error or "")
        if match:
            return words.format(**match.groupdict())
    return f"it failed ({error})"


def _try_converter(model, opset: int) -> dict[str, Any]:
    """``onnx.version_converter.convert_version(model, opset)``; for an onnx-free model, the C++ call it makes on
    the same bytes."""
    if is_onnx_free(model):
        extension = onnx_extension()

        def converter(m, v: int):
            return type(m).FromString(extension.version_converter.convert_version(m.SerializeToString(), v))
    else:
        from onnx.version_converter import convert_version as converter
    try:
        converted = converter(model, opset)
    except Exception as exc:  # noqa: BLE001 - the converter raises RuntimeError with the adapter's message
        return {"ok": False, "error": str(exc).splitlines()[-1].split("failed: ")[-1][:300]}
    return {"ok": True, "error": None, "opset": _opsets(converted).get("", opset)}


def _opsets(model) -> dict[str, int]:
    return {norm_domain(o.domain): int(o.version) for o in model.opset_import}


def _summary(loaded: LoadedModel) -> dict[str, Any]:
    model = loaded.model
    ops = Counter(n.op_type for _, g, _ in iter_graphs(model.graph) for n in g.node)
    return {"file": str(loaded.path), "bytes": loaded.size, "ir_version": int(model.ir_version),
            "producer": f"{model.producer_name} {model.producer_version}".strip() or None,
            "opset_import": {shown(d): v for d, v in loaded.opsets.items()}, "nodes": sum(ops.values()),
            "ops": dict(sorted(ops.items())), "external_data": [r.to_json() for r in loaded.external]}


#: verdict levels, worst first (as trtcheck grades TensorRT layers): ``blocked`` the target refuses it (an error
#: finding); ``unverified`` nothing the tool has covers it (a warning finding says why); ``likely`` covered by a
#: release table or the specification only; ``verified`` the installed onnxruntime's own kernel registry
LEVELS = ("blocked", "unverified", "likely", "verified")


def level_of(findings: list[Finding], default: str | None = None) -> str | None:
    """``blocked`` when a finding is an error or worse, ``unverified`` when one is a warning, else ``default``."""
    if any(f.severity >= Severity.ERROR for f in findings):
        return "blocked"
    if any(f.severity >= Severity.WARNING for f in findings):
        return "unverified"
    return default


def _default_level(target: Target | None) -> str:
    """A node no finding speaks against is ``verified`` by the installed registry, ``likely`` by a table."""
    if target is None or not target.has_onnx_backend:
        return "unverified"
    if target.registry is not None:
        return "verified" if target.registry.verified else "likely"
    return "likely" if target.kind == "opset" else "unverified"


def unverified_kernels(why: str, spec: str | None) -> Finding:
    """The ``kernels_unverified`` warning: no registry or table covers the target's kernels."""
    return Finding(DETECTOR, Severity.WARNING, f"kernels unverified: {why}. Only the ONNX specification"
                   f"{'' if spec is None else ' and the release opset/IR version'} was checked", {"key": "target"},
                   {"target": spec}, kind="kernels_unverified")


def _recursive_functions(model) -> list[Finding]:
    """One ``local_function_recursive`` error per model-local function on a call cycle (``A`` calls ``B`` calls
    ``A``): nothing can inline it, and onnxruntime refuses such a model while every op of it looked served."""
    local = {(norm_domain(f.domain), f.name): f for f in model.functions}
    calls = {key: {(norm_domain(n.domain), n.op_type) for n in f.node} & local.keys() for key, f in local.items()}
    found = []
    for start in sorted(local):
        path, stack, seen = None, [(start, (start,))], set()
        while stack and path is None:  # depth-first from ``start``, each function once: back to start is a cycle
            key, trail = stack.pop()
            for callee in sorted(calls[key]):
                if callee == start:
                    path = trail + (start,)
                    break
                if callee not in seen:
                    seen.add(callee)
                    stack.append((callee, trail + (callee,)))
        if path is not None:
            shown_path = " -> ".join(f"{shown(d)}::{name}" for d, name in path)
            found.append(Finding(DETECTOR, Severity.ERROR,
                                 f"the model-local function {shown(start[0])}::{start[1]} calls itself "
                                 f"({shown_path}): it cannot be inlined, and onnxruntime refuses the model "
                                 "(INVALID_GRAPH); unroll the recursion", {"function": f"{shown(start[0])}::{start[1]}"},
                                 {"cycle": [f"{shown(d)}::{name}" for d, name in path]},
                                 kind="local_function_recursive"))
    return found


def check_model(loaded: LoadedModel, target: Target | None = None, *, try_fix: bool = True) -> OnnxReport:
    """Check a loaded model statically against the ONNX specification and ``target``.

    Args:
        loaded: from :func:`faultlib.detect.serving.onnx.load_model`.
        target: from :func:`faultlib.detect.serving.onnx.parse_target` (``None``: specification checks only).
        try_fix: when the model's opset is newer than the target's, try ``onnx.version_converter`` down to it.

    Returns:
        An :class:`OnnxReport`; kinds in :data:`KINDS`.
    """
    model = loaded.model
    opsets = loaded.opsets
    report = OnnxReport(model=_summary(loaded), target=target.to_json() if target else None)
    found = report.findings
    spec = spec_index()
    for domain, version in sorted(opsets.items()):
        if domain in STANDARD_DOMAINS and version > spec.newest.get(domain, version):
            found.append(Finding(DETECTOR, Severity.WARNING,
                                 f"the model imports {shown(domain)} opset {version}; the installed onnx package "
                                 f"knows up to {spec.newest[domain]}, so schemas were checked at that opset "
                                 "(pip install -U onnx)", {"key": f"opset_import.{shown(domain)}"},
                                 {"opset": version, "onnx_knows": spec.newest[domain]}, kind="opset_unknown_to_onnx"))
    rt = f"onnxruntime {target.registry.version}" if target and target.registry else None
    if target is not None:
        if not target.has_onnx_backend:
            found.append(Finding(DETECTOR, Severity.ERROR, f"{target.spec} ships no ONNX Runtime backend: no "
                                 "ONNX model runs on it; choose another release", {"key": "target"},
                                 {"source": target.source}, kind="no_onnx_backend"))
        for domain, version in sorted(opsets.items()):
            limit = target.max_opset.get(domain)
            if limit is not None and version > limit:
                found.append(Finding(DETECTOR, Severity.ERROR,
                                     f"the model imports {shown(domain)} opset {version}; {target.spec} implements up "
                                     f"to {limit} and refuses to load it", {"key": f"opset_import.{shown(domain)}"},
                                     {"opset": version, "target_opset": limit, "domain": shown(domain)},
                                     kind="model_opset_unsupported"))
        ir = int(model.ir_version)
        if target.max_ir_version is not None and ir > target.max_ir_version:
            limit = target.max_ir_version
            found.append(Finding(DETECTOR, Severity.ERROR,
                                 f"the model has IR version {ir}; {target.spec} loads "
                                 f"{f'up to {limit}' if limit else 'an older one'}: save it with an older onnx "
                                 "(model.ir_version can be lowered only if no newer IR feature is used)",
                                 {"key": "ir_version"}, {"ir_version": ir, "target_ir_version": limit},
                                 kind="ir_version_unsupported"))
    if target is not None and target.registry is None and target.kind != "opset" and target.has_onnx_backend:
        found.append(unverified_kernels(target.source, target.spec))
    found.extend(_recursive_functions(model))
    model_level = level_of(found)
    default_level = _default_level(target)
    local_functions = {(norm_domain(f.domain), f.name) for f in model.functions}
    types = value_types(model)
    for gpath, graph, _ in iter_graphs(model.graph):
        sizes = constant_sizes(graph)
        for index, node in enumerate(graph.node):
            report.nodes_checked += 1
            ref = NodeRef(f"{gpath}{node.name or '#' + str(index)}", node.op_type, norm_domain(node.domain), index)
            schema, node_findings = check_node(node, ref, opsets, local_functions=local_functions)
            node_findings += _schema_type_findings(node, ref, schema, types) if schema is not None else []
            spec_refused = any(f.severity >= Severity.ERROR for f in node_findings)
            if (ref.domain, ref.op) in local_functions or target is None or ref.domain not in opsets or spec_refused:
                pass  # a local function's nodes are checked where they are defined; a refused node needs no kernel
            elif target.registry is not None:
                # an op version newer than the target's opset: say so, with the export advice, before any kernel
                newer = _table_findings(ref, schema, target) if schema is not None else []
                node_findings += newer or kernel_findings(node, ref, opsets, target.registry, types, rt or "")
                node_findings += value_findings(node, ref, sizes, rt or "")
            elif schema is not None:
                node_findings += _table_findings(ref, schema, target)
            elif ref.domain not in STANDARD_DOMAINS:
                node_findings.append(ref.finding("custom_op_unchecked", "warning",
                                                 f"{shown(ref.domain)}::{ref.op} is a custom op; {target.spec} can "
                                                 "only be checked for it with its own kernel registry"))
            found.extend(node_findings)
            level = level_of(node_findings, default_level)
            report.nodes.append({"node": ref.node, "op": ref.op, "domain": shown(ref.domain), "level": level})
    levels = ([model_level] if model_level else []) + [n["level"] for n in report.nodes]
    report.level = min(levels or [default_level], key=LEVELS.index)
    limit = target.max_opset.get("") if target is not None else None
    if try_fix and limit is not None and opsets.get("", 0) > limit:
        converter = _try_converter(model, limit)
        advice = (f"onnx.version_converter.convert_version(model, {limit}) works: check and compare its outputs, "
                  f"or export with opset_version={limit}" if converter["ok"] else
                  f"onnx.version_converter cannot take the model down to opset {limit}: "
                  f"{converter_reason(converter['error'])}; export again with opset_version={limit}")
        report.fix = {"opset": limit, "version_converter": converter, "advice": advice}
    return report


def check_file(path: Path | str, target: Target | None = None, *, try_fix: bool = True) -> tuple[LoadedModel,
                                                                                                   OnnxReport]:
    """:func:`load_model` and :func:`check_model` without importing onnx when the model allows it.

    The file is parsed with ``google.protobuf`` and the cached descriptor, and checked against the cached
    specification (:mod:`~faultlib.detect.serving.onnx.specdata`); shape inference, function bodies and the
    version converter run from onnx's C++ extension alone. A model that needs the onnx package itself
    (:class:`~faultlib.detect.serving.onnx.specdata.NeedsOnnx`: bytes that do not parse, for onnx's own error
    message, or an extension that does not load by itself) is loaded and checked again the way that imports
    it. Both ways give the same report (``tests/detect/test_onnx_fast.py``).

    Returns:
        ``(loaded, report)``; ``loaded.onnx_free`` says which way it went.

    Raises:
        InputError, MissingDependency: as :func:`load_model`.
    """
    try:
        loaded = load_model(path, onnx_free=True)
        return loaded, check_model(loaded, target, try_fix=try_fix)
    except NeedsOnnx:
        loaded = load_model(path)
        return loaded, check_model(loaded, target, try_fix=try_fix)
