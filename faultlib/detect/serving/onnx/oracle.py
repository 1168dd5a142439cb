"""The runtime as oracle: one-node models for every operator version and input type the ONNX spec defines.

:func:`generate` walks ``onnx.defs.get_all_schemas_with_history()`` (every domain the installed ``onnx``
defines) and, per schema, per type parameter and per type its constraint allows (the other parameters at
their first choice, ``tensor(float)`` when allowed), builds a model of one node: required inputs and
attributes only (attributes get a plain value of their type; ``to``/``dtype`` name the output type), the
op's ``since_version`` as the imported opset, the lowest IR version that opset needs, inputs of unknown
rank. :func:`classify` sorts what the runtime said (:func:`faultlib.detect.serving.onnx.probe.probe`) into
``loads``, ``refused`` (a compatibility failure: no kernel for the op, version or types, an opset or IR
version refused, an attribute refused) or an exclusion reason (shape or type inference on generated
inputs, a run that fails on generated data, a type the Python binding cannot feed, control flow whose
body is not generated). :func:`predict` is ``check_model``'s verdict on the same model; the two are
compared by ``benchmarks/onnx_oracle.py`` and, on a sample, by the test suite.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from faultlib.detect.serving.onnx.valuetypes import elem_type as _elem, type_proto
from faultlib.findings import Severity

#: exclusion reasons: not compatibility failures, so neither side of precision/recall
EXCLUDED = {
    "graph_attribute": "control flow: the op needs a body graph the generator does not write",
    "generator": "onnx.helper cannot build this one-node model",
    "inference": "shape or type inference refuses the generated inputs/attributes",
    "attribute_value": "a kernel refused the generator's made-up attribute values ('a', 1) or a Constant without "
                       "a value: not a compatibility question",
    "run": "the session was created but every generated input shape fails at run time",
    "binding": "the Python binding cannot feed this input type (numpy has no bfloat16, float8, int4...)",
    "crash": "the runtime process died on this model",
    "other": "a session error that names no compatibility reason",
}

_REFUSED = [
    ("no_kernel", re.compile(r"Could not find an implementation|NOT_IMPLEMENTED|not implemented", re.I)),
    ("op_unknown", re.compile(r"No Op registered|is not a registered function/op|No opset import for domain|"
                              r"Unrecognized (?:op|domain)|unknown op", re.I)),
    ("opset", re.compile(r"opset \d+ is under development|[Oo]pset .* (?:is )?not supported|Unsupported (?:model )?"
                         r"(?:IR|opset)|ir_version|IR version", re.I)),
    ("attribute", re.compile(r"Unrecognized attribute|attribute .* is not supported|not supported.*attribute", re.I)),
    ("deprecated", re.compile(r"is deprecated in domain_version")),
    ("type", re.compile(r"MLDataType for: .* is not currently registered")),
    ("function_body", re.compile(r"bound to different types|_inlfunc_")),
    ("float16_cast", re.compile(r"InsertedPrecisionFreeCast")),
]
#: errors that say the generator's made-up attribute values or missing "one of" attributes were refused
_GENERATED = re.compile(r"Exception during initialization|has no data attributes")
_INFERENCE = re.compile(r"ShapeInferenceError|TypeInferenceError|InferenceError|Node \(.*\) Op \(.*\) \[", re.I)


@dataclass(frozen=True)
class OracleCase:
    """One generated model: ``domain``/``op``-``version`` with its type parameters bound (``types``)."""

    domain: str
    op: str
    version: int
    types: dict[str, str]
    model: Any = field(compare=False, repr=False)
    excluded: str | None = None

    @property
    def key(self) -> str:
        types = ",".join(f"{p}={t}" for p, t in sorted(self.types.items()))
        return f"{self.domain or 'ai.onnx'}::{self.op}-{self.version}[{types}]"


def _attribute(name: str, attr: Any, binding: dict[str, str], outputs_only: set[str]) -> Any:
    from onnx import helper
    from onnx.defs import OpSchema

    kind = attr.type
    A = OpSchema.AttrType
    if name in ("to", "dtype") and kind == A.INT:
        wanted = next((binding[p] for p in sorted(outputs_only) if binding[p].startswith("tensor(")), "tensor(float)")
        return helper.make_attribute(name, _elem(wanted[7:-1]))
    if kind in (A.GRAPH, A.GRAPHS):
        raise LookupError("graph_attribute")
    values = {A.INT: 1, A.FLOAT: 1.0, A.STRING: "a", A.INTS: [1], A.FLOATS: [1.0], A.STRINGS: ["a"],
              A.TENSOR: None, A.TYPE_PROTO: None}
    if kind == A.TENSOR:
        return helper.make_attribute(name, helper.make_tensor(name, _elem("float"), [1], [1.0]))
    if kind == A.TYPE_PROTO:
        return helper.make_attribute(name, type_proto("tensor(float)"))
    if kind not in values:
        raise LookupError("generator")
    return helper.make_attribute(name, values[kind])


def _bindings(schema: Any) -> Iterator[dict[str, str]]:
    allowed = {c.type_param_str: list(c.allowed_type_strs) for c in schema.type_constraints}
    base = {p: ("tensor(float)" if "tensor(float)" in ts else ts[0]) for p, ts in allowed.items() if ts}
    seen: set[tuple] = set()
    for param, types in sorted(allowed.items()):
        for t in types:
            binding = {**base, param: t}
            key = tuple(sorted(binding.items()))
            if key not in seen:
                seen.add(key)
                yield binding
    if not allowed:
        yield {}


def _formal_type(param: Any, binding: dict[str, str]) -> str:
    return binding.get(param.type_str, param.type_str)


def build(schema: Any, binding: dict[str, str]) -> Any:
    """The one-node ``ModelProto`` of ``schema`` with type parameters ``binding``.

    Raises:
        LookupError: the generator cannot write it (its message is a key of :data:`EXCLUDED`).
    """
    from onnx import helper

    opt = "Optional"
    inputs = list(schema.inputs)
    last = max((i for i, p in enumerate(inputs) if opt not in str(p.option)), default=-1)
    names, graph_inputs = [], []
    for i, param in enumerate(inputs[:last + 1]):
        if opt in str(param.option):
            names.append("")
            continue
        name = f"x{i}"
        names.append(name)
        graph_inputs.append(helper.make_value_info(name, type_proto(_formal_type(param, binding))))
    outputs = list(schema.outputs)
    out_last = max((i for i, p in enumerate(outputs) if opt not in str(p.option)), default=0)
    out_names = [f"y{i}" for i in range(out_last + 1)]
    inputs_params = {p.type_str for p in inputs}
    outputs_only = {p.type_str for p in outputs if p.type_str in binding} - inputs_params
    attrs = [_attribute(n, a, binding, outputs_only) for n, a in sorted(schema.attributes.items()) if a.required]
    node = helper.make_node(schema.name, names, out_names, domain=schema.domain)
    node.attribute.extend(attrs)
    graph = helper.make_graph([node], "oracle", graph_inputs, [helper.make_value_info(n, helper.TypeProto())
                                                                for n in out_names])
    imports = [helper.make_opsetid(schema.domain, schema.since_version)]
    if schema.domain not in ("", "ai.onnx"):
        imports.append(helper.make_opsetid("", 13))
    model = helper.make_model(graph, opset_imports=imports, producer_name="faultlib-oracle")
    try:
        model.ir_version = helper.find_min_ir_version_for(list(model.opset_import), ignore_unknown=True)
    except Exception:  # noqa: BLE001 - an opset newer than onnx.helper's table: keep make_model's IR version
        pass
    return model


def generate(*, ops: set[str] | None = None) -> Iterator[OracleCase]:
    """Every (domain, op, since_version, type binding) of the installed ``onnx`` as an :class:`OracleCase`
    (``ops``: only these op names). Cases the generator cannot write carry ``excluded``."""
    import onnx.defs

    for schema in sorted(onnx.defs.get_all_schemas_with_history(),
                         key=lambda s: (s.domain, s.name, s.since_version)):
        if ops is not None and schema.name not in ops:
            continue
        for binding in _bindings(schema):
            try:
                model = build(schema, binding)
                excluded = None
            except LookupError as exc:
                model, excluded = None, str(exc.args[0]) if exc.args else "generator"
            except (ValueError, TypeError):
                model, excluded = None, "generator"
            yield OracleCase(schema.domain, schema.name, int(schema.since_version), binding, model, excluded)


def classify(result: dict[str, Any]) -> str:
    """``loads``, ``refused:<why>`` or ``excluded:<reason>`` from a :func:`~faultlib.detect.serving.onnx.probe.probe`
    result."""
    stage, error = result["stage"], result.get("error") or ""
    if stage == "ok":
        return "loads"
    if stage in ("binding", "crash"):
        return f"excluded:{stage}"
    for why, pattern in _REFUSED:
        if pattern.search(error) and not (why == "no_kernel" and _INFERENCE.search(error)):
            return f"refused:{why}"
    if stage == "run":
        return "excluded:run"
    if _GENERATED.search(error):
        return "excluded:attribute_value"
    if _INFERENCE.search(error):
        return "excluded:inference"
    return "excluded:other"


def predict(case: OracleCase, target: Any) -> tuple[bool, str, list[str]]:
    """``check_model``'s verdict on ``case``: ``(blocked, model level, error kinds)``."""
    from faultlib.detect.serving.onnx.check import check_model
    from faultlib.detect.serving.onnx.load import LoadedModel

    report = check_model(LoadedModel(Path(case.key), case.model, case.model.ByteSize()), target, try_fix=False)
    errors = sorted({f.kind for f in report.findings if f.severity >= Severity.ERROR})
    return bool(errors), report.level, errors


class Worker:
    """A :mod:`~faultlib.detect.serving.onnx.probe` worker process under ``python`` (that interpreter's
    onnxruntime answers); restarted when it dies (a crash answers ``{"stage": "crash"}``)."""

    def __init__(self, python: str):
        self.python = python
        self.proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen([self.python, str(Path(__file__).with_name("probe.py"))], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL)
        return self.proc

    def ask(self, model: bytes, npz: bytes = b"") -> dict:
        """The probe's answer for ``model`` (fed the ``.npz`` arrays ``npz``, else generated inputs)."""
        proc = self._start()
        try:
            proc.stdin.write(struct.pack(">I", len(model)) + model + struct.pack(">I", len(npz)) + npz)
            proc.stdin.flush()
            line = proc.stdout.readline()
        except BrokenPipeError:
            line = b""
        if not line:
            proc.kill()
            proc.wait()
            self.proc = None
            return {"stage": "crash", "error": "the worker died"}
        return json.loads(line)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.write(struct.pack(">I", 0))
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
