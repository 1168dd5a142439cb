"""Static checks of each node against the ONNX operator specification (``onnx.defs`` schema history).

A node of a standard domain resolves to the newest schema version ``<=`` the model's imported opset for
that domain (the ONNX versioning rule, https://onnx.ai/onnx/repo-docs/Versioning.html#operator-versioning).
Against that schema it must exist (:data:`op_newer_than_opset` when the op only appears in a later
opset), carry only attributes the schema has, every required one, and a number of inputs within the
schema's range. Attributes and inputs moved at opset boundaries (``ReduceMean`` ``axes``: an attribute
up to -13, an input from -18; ``Split`` ``split``: an attribute up to -11, an input from -13) are named
with the version where they moved.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Iterable

from faultlib.findings import Finding, Severity

DETECTOR = "onnx"
STANDARD_DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview.training", "ai.onnx.preview")


def norm_domain(domain: str) -> str:
    """``ai.onnx`` and ``""`` are the same domain; returned as ``""``."""
    return "" if domain in ("", "ai.onnx") else domain


def shown(domain: str) -> str:
    return domain or "ai.onnx"


@dataclass(frozen=True)
class NodeRef:
    """Where a node is: ``node`` (its name, or ``#index`` when unnamed, prefixed with the subgraph path),
    its ``op`` type, ``domain`` and ``index`` in its graph."""

    node: str
    op: str
    domain: str
    index: int

    def location(self) -> dict[str, Any]:
        return {"node": self.node, "op": self.op, "index": self.index}

    def finding(self, kind: str, severity: str | Severity, message: str, **evidence: Any) -> Finding:
        return Finding(DETECTOR, Severity(severity), message, self.location(),
                       {"domain": shown(self.domain), **evidence}, kind=kind)


class SchemaIndex:
    """Every version of every operator schema of one registry, by ``(domain, op)``, ascending.

    Args:
        schemas: schema objects with ``domain``, ``name`` and ``since_version`` (``onnx.defs`` or
            onnxruntime's own registry).
    """

    def __init__(self, schemas: Iterable[Any]):
        self._by_op: dict[tuple[str, str], list[tuple[int, Any]]] = {}
        self.newest: dict[str, int] = {}
        for s in schemas:
            d = norm_domain(s.domain)
            self._by_op.setdefault((d, s.name), []).append((int(s.since_version), s))
            self.newest[d] = max(self.newest.get(d, 0), int(s.since_version))
        for versions in self._by_op.values():
            versions.sort(key=lambda v: v[0])

    def knows(self, domain: str, op: str) -> bool:
        return (norm_domain(domain), op) in self._by_op

    def versions(self, domain: str, op: str) -> list[int]:
        return [v for v, _ in self._by_op.get((norm_domain(domain), op), [])]

    def resolve(self, domain: str, op: str, opset: int) -> Any | None:
        """The schema a node of ``op`` resolves to in a model importing ``opset`` for ``domain`` (``None``: none
        before that opset)."""
        found = None
        for version, schema in self._by_op.get((norm_domain(domain), op), []):
            if version > opset:
                break
            found = schema
        return found

    def at(self, domain: str, op: str, version: int) -> Any | None:
        """The schema whose ``since_version`` is exactly ``version``."""
        return next((s for v, s in self._by_op.get((norm_domain(domain), op), []) if v == version), None)


@functools.cache
def spec_index() -> SchemaIndex:
    """The :class:`SchemaIndex` of the installed ``onnx`` package's specification, from the on-disk cache
    (:func:`~faultlib.detect.serving.onnx.specdata.spec_schemas`: no onnx import once cached)."""
    from faultlib.detect.serving.onnx.specdata import spec_schemas

    return SchemaIndex(spec_schemas())


def type_str(param: Any) -> str:
    """A formal parameter's type (``T``, ``tensor(int64)``), from onnx's or onnxruntime's schema object."""
    return getattr(param, "type_str", None) or getattr(param, "typeStr", "")


def is_variadic(param: Any) -> bool:
    return "Variadic" in str(param.option)


def has_function(schema: Any) -> bool:
    """Whether the spec defines ``schema`` as a function of other ops (a runtime may run its body)."""
    return bool(getattr(schema, "has_function", False) or getattr(schema, "has_context_dependent_function", False))


def _input_count(node) -> int:
    """Inputs given, ignoring omitted optional trailing ones (empty names)."""
    names = list(node.input)
    while names and not names[-1]:
        names.pop()
    return len(names)


def _attribute_history(index: SchemaIndex, ref: NodeRef, name: str, version: int) -> tuple[str, dict[str, Any]]:
    """Why attribute ``name`` is not in ``op``-``version``: where it was an attribute, where an input."""
    as_attr = [v for v in index.versions(ref.domain, ref.op) if name in index.at(ref.domain, ref.op, v).attributes]
    current = index.at(ref.domain, ref.op, version)
    inputs = [p.name for p in current.inputs]
    evidence: dict[str, Any] = {"attribute": name, "schema_version": version, "attribute_in_versions": as_attr}
    parts = []
    if name in inputs:
        evidence["input_index"] = inputs.index(name)
        parts.append(f"{ref.op}-{version} takes {name!r} as input {inputs.index(name)}")
    earlier = [v for v in as_attr if v < version]
    later = [v for v in as_attr if v > version]
    if earlier:
        parts.append(f"it was an attribute up to {ref.op}-{earlier[-1]}")
    if later:
        parts.append(f"it becomes an attribute at {ref.op}-{later[0]} (opset >= {later[0]})")
    return "; ".join(parts), evidence


def _input_hint(index: SchemaIndex, ref: NodeRef, version: int, given: int) -> str:
    """For an input count out of range: which version of the op takes that many inputs, and what they are."""
    fits = [v for v in index.versions(ref.domain, ref.op)
            if index.at(ref.domain, ref.op, v).min_input <= given <= index.at(ref.domain, ref.op, v).max_input]
    if not fits:
        return ""
    other = min(fits, key=lambda v: abs(v - version))
    names = [p.name for p in index.at(ref.domain, ref.op, other).inputs]
    current = index.at(ref.domain, ref.op, version)
    moved = [n for n in names if n in current.attributes]
    hint = f"; {ref.op}-{other} takes {given} ({', '.join(names)})"
    if moved:
        hint += f", where {ref.op}-{version} has {', '.join(repr(m) for m in moved)} as an attribute"
    return hint


def check_node(node, ref: NodeRef, opsets: dict[str, int], *, local_functions: set[tuple[str, str]],
               index: SchemaIndex | None = None) -> tuple[Any | None, list[Finding]]:
    """The spec schema ``node`` resolves to (``None`` when it resolves to none) and its static findings.

    Args:
        node: the ``onnx.NodeProto``.
        ref: where it is.
        opsets: the model's (or function's) ``{domain: version}`` imports.
        local_functions: ``(domain, name)`` of the model's own functions (not checked against the spec).
        index: the spec (default :func:`spec_index`).

    Returns:
        ``(schema or None, findings)`` with kinds ``domain_not_imported``, ``unknown_op``,
        ``op_newer_than_opset``, ``deprecated_op``, ``attribute_not_in_schema``,
        ``missing_required_attribute``, ``input_count_out_of_range``.
    """
    index = index or spec_index()
    domain = ref.domain
    if (domain, ref.op) in local_functions:
        return None, []
    if domain not in opsets:
        return None, [ref.finding("domain_not_imported", "error",
                                  f"{ref.op} is in domain {shown(domain)!r}, which the model does not import "
                                  "(no opset_import entry): runtimes refuse it", imported=sorted(map(shown, opsets)))]
    if domain not in STANDARD_DOMAINS:
        return None, []
    opset = opsets[domain]
    versions = index.versions(domain, ref.op)
    if not versions:
        return None, [ref.finding("unknown_op", "error",
                                  f"{ref.op} is not an operator of {shown(domain)} in the ONNX specification "
                                  "(misspelt, or a custom op that belongs in its own domain)")]
    schema = index.resolve(domain, ref.op, opset)
    if schema is None:
        return None, [ref.finding("op_newer_than_opset", "error",
                                  f"{ref.op} first appears in {shown(domain)} opset {versions[0]}; this model imports "
                                  f"opset {opset}, where it does not exist: import opset >= {versions[0]} or "
                                  "re-export so the op is decomposed", opset=opset, first_version=versions[0])]
    version = int(schema.since_version)
    found: list[Finding] = []
    if schema.deprecated:
        found.append(ref.finding("deprecated_op", "error",
                                 f"{ref.op}-{version} is deprecated in the ONNX specification at opset {opset}: "
                                 "onnxruntime refuses it ('Op registered for ... is deprecated'); import an older "
                                 "opset or replace the op", schema_version=version, opset=opset))
    given = {a.name for a in node.attribute}
    for name in sorted(given - set(schema.attributes)):
        why, evidence = _attribute_history(index, ref, name, version)
        found.append(ref.finding("attribute_not_in_schema", "error",
                                 f"{ref.op}-{version} (opset {opset}) has no attribute {name!r}"
                                 f"{': ' + why if why else ''}", opset=opset, **evidence))
    for name, attr in sorted(schema.attributes.items()):
        if attr.required and name not in given:
            found.append(ref.finding("missing_required_attribute", "error",
                                     f"{ref.op}-{version} requires attribute {name!r}, which the node lacks",
                                     attribute=name, schema_version=version, opset=opset))
    count = _input_count(node)
    if not schema.min_input <= count <= schema.max_input:
        bound = (f"at least {schema.min_input}" if count < schema.min_input else f"at most {schema.max_input}")
        found.append(ref.finding("input_count_out_of_range", "error",
                                 f"{ref.op}-{version} (opset {opset}) takes {bound} inputs, the node has {count}"
                                 f"{_input_hint(index, ref, version, count)}", inputs=count,
                                 min_inputs=int(schema.min_input), max_inputs=int(schema.max_input),
                                 schema_version=version, opset=opset))
    return schema, found
