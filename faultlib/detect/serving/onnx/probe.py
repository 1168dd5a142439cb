"""Ask an onnxruntime whether it loads and runs a model: the oracle's runtime side.

This module imports only the standard library, numpy and onnxruntime (inside functions), so it also
runs as a worker script under another onnxruntime in its own virtual environment (onnxruntime 1.16.3
needs numpy < 2): ``python probe.py`` reads models from stdin (a 4-byte big-endian length, then the
serialized ``ModelProto``; length 0 ends; then a 4-byte length and an ``.npz`` of the inputs to feed, length 0
for generated inputs) and writes one JSON line per model to stdout:
``{"stage": "ok" | "session" | "run" | "binding", "error": str | null}``.

- ``session``: ``InferenceSession`` refused the model (what :func:`classify` sorts into compatibility
  failures and others);
- ``run``: the session was created, but ``run`` failed on every generated input shape;
- ``binding``: the session was created, but the Python binding cannot build an input of that type (numpy
  has no bfloat16, float8, int4...): run not tried.
"""

from __future__ import annotations

import json
import re
import struct
import sys
from typing import Any

#: data shapes tried, in order, for inputs of unknown rank (elementwise ops, then convolution-like ones)
SHAPES = ([2, 2], [1, 2, 3, 3], [2], [], [1, 2, 3], [1, 2, 2, 2, 2])

_NUMPY = {"float": "float32", "double": "float64", "float16": "float16", "int8": "int8", "int16": "int16",
          "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
          "uint64": "uint64", "bool": "bool", "string": "object"}


class BindingLimit(Exception):
    """The Python binding cannot make an input of this type."""


def _array(type_str: str, shape: list[int]) -> Any:
    import numpy as np

    m = re.fullmatch(r"tensor\((\w+)\)", type_str)
    if not m:
        raise BindingLimit(type_str)
    elem = m.group(1)
    if elem not in _NUMPY:
        raise BindingLimit(type_str)
    if elem == "string":
        return np.full(shape, "a", dtype=object)
    if elem == "bool":
        return np.ones(shape, dtype=bool)
    if elem in ("float", "double", "float16"):
        return np.full(shape, 0.5, dtype=_NUMPY[elem])
    return np.zeros(shape, dtype=_NUMPY[elem])


def _value(type_str: str, shape: list[int]) -> Any:
    if type_str.startswith("seq("):
        return [_array(type_str[4:-1], shape)]
    if type_str.startswith("optional("):
        return _value(type_str[9:-1], shape)
    if type_str.startswith("map("):
        key, _, value = type_str[4:-1].partition(",")
        if value.startswith("tensor("):
            return {("a" if key == "string" else 1): 0.5}
        raise BindingLimit(type_str)
    return _array(type_str, shape)


def _shape(declared: Any, fallback: list[int]) -> list[int]:
    if not isinstance(declared, list) or not declared and fallback:
        return fallback
    return [d if isinstance(d, int) and d >= 0 else 2 for d in declared]


def probe(model: bytes, feeds: dict[str, Any] | None = None) -> dict[str, Any]:
    """Whether the installed onnxruntime creates a CPU session for ``model`` and runs it on ``feeds`` or, without
    them, on generated inputs (0.5 for floats, 0 for integers, True, ``"a"``; inputs of unknown rank tried with
    each of :data:`SHAPES`).

    Returns:
        ``{"stage": "ok" | "session" | "run" | "binding", "error": str | None}`` (see the module docstring).
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    try:
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime's Fail/InvalidGraph/NotImplemented/InvalidArgument
        return {"stage": "session", "error": str(exc)[:2000]}
    if feeds is not None:
        try:
            session.run(None, feeds)
            return {"stage": "ok", "error": None}
        except Exception as exc:  # noqa: BLE001 - a kernel's own error on this input
            return {"stage": "run", "error": str(exc)[:2000]}
    error = None
    for fallback in SHAPES:
        try:
            feeds = {i.name: _value(i.type, _shape(i.shape, fallback)) for i in session.get_inputs()}
        except BindingLimit as exc:
            return {"stage": "binding", "error": f"the Python binding cannot feed {exc}"}
        try:
            session.run(None, feeds)
            return {"stage": "ok", "error": None}
        except Exception as exc:  # noqa: BLE001 - a kernel's own error on this input
            error = str(exc)[:2000]
    return {"stage": "run", "error": error}


def dump_registry(providers: tuple[str, ...] = ("CPUExecutionProvider",)) -> dict[str, Any]:
    """The installed onnxruntime's kernel and schema registries as JSON data (``python probe.py --registry``:
    how the release tables of :mod:`faultlib.detect.serving.onnx.registry` are measured).

    Source: ``onnxruntime.capi._pybind_state.get_all_opkernel_def`` and ``get_all_operator_schema`` (private API).
    """
    import onnxruntime as ort
    from onnxruntime.capi import _pybind_state as C

    def domain(d: str) -> str:
        return "" if d in ("", "ai.onnx") else d

    def params(formals: Any) -> list[list[Any]]:
        return [[p.name, p.typeStr, str(p.option).rsplit(".", 1)[-1], bool(p.isHomogeneous)] for p in formals]

    kernels = sorted(([domain(k.domain), k.op_name, int(k.version_range[0]), int(k.version_range[1]),
                       {p: sorted(t) for p, t in sorted(k.type_constraints.items())}, k.provider]
                      for k in C.get_all_opkernel_def() if k.provider in providers), key=json.dumps)
    schemas = sorted(([domain(s.domain), s.name, int(s.since_version), params(s.inputs), params(s.outputs)]
                      for s in C.get_all_operator_schema()), key=json.dumps)
    return {"onnxruntime": ort.__version__, "providers": list(providers), "kernels": kernels, "schemas": schemas}


def main() -> int:
    """The worker loop (see the module docstring); ``--registry`` prints :func:`dump_registry` instead."""
    if sys.argv[1:] == ["--registry"]:
        json.dump(dump_registry(), sys.stdout, separators=(",", ":"))
        return 0
    stdin, stdout = sys.stdin.buffer, sys.stdout
    while True:
        head = stdin.read(4)
        if len(head) < 4:
            return 0
        (size,) = struct.unpack(">I", head)
        if size == 0:
            return 0
        model = stdin.read(size)
        (npz,) = struct.unpack(">I", stdin.read(4))
        feeds = None
        if npz:
            import io

            import numpy as np

            with np.load(io.BytesIO(stdin.read(npz)), allow_pickle=False) as archive:
                feeds = {name: archive[name] for name in archive.files}
        result = probe(model, feeds)
        stdout.write(json.dumps(result) + "\n")
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
