"""ONNX operator compatibility: will an exported model load and compute the same on the runtime it ships to?

- :func:`load_model` reads an ``.onnx`` file through the hardened reader and refuses what is not an
  ONNX model (exit 2 in the CLI): not protobuf, truncated, corrupt, external data outside its directory;
- :func:`parse_target` turns ``onnxruntime==X.Y`` / ``triton==YY.MM`` / ``opset=N`` into a
  :class:`Target` (the installed onnxruntime's own kernel registry when it is that release, else the
  cited tables in :mod:`~faultlib.detect.serving.onnx.targets`);
- :func:`check_file` loads and checks a file without importing onnx where it can (the spec and the protobuf
  schema cached per onnx version, :mod:`~faultlib.detect.serving.onnx.specdata`), the same report as
  :func:`load_model` + :func:`check_model`;
- :func:`check_model` reports, per node (``location.node``, ``location.op``), every kind in
  :data:`KINDS`: ops newer than the imported opset, attributes and inputs the schema at that opset does
  not have, a model opset or IR version newer than the target's, ops and types the target has no kernel for;
- each node and the model get a level (``blocked`` / ``unverified`` / ``likely`` / ``verified``); kernels come
  from :mod:`~faultlib.detect.serving.onnx.registry` (the installed runtime's own registry, cached on disk, or a
  release table shipped in ``tables/``), matched by :mod:`~faultlib.detect.serving.onnx.kernels` as
  onnxruntime matches them (function bodies node by node), plus the values kernels refuse
  (:mod:`~faultlib.detect.serving.onnx.attributes`);
- :mod:`~faultlib.detect.serving.onnx.oracle` and :mod:`~faultlib.detect.serving.onnx.probe` put the runtime
  itself in the judge's seat (``benchmarks/onnx_oracle.py``);
- :func:`compare_outputs` runs a real input through torch and onnxruntime and reports max abs/rel error;
- :func:`downgrade` is the fix when the opset is too new: ``onnx.version_converter``, checked.

Used by ``faultlib check onnx`` (:mod:`faultlib.check.onnx`). Importing this package imports neither
onnx nor onnxruntime; each function loads what it needs and names ``pip install 'faultlib-ml[onnx]'``
when it is missing.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.serving.onnx.check import KINDS, OnnxReport, check_file, check_model, value_types
from faultlib.detect.serving.onnx.compare import (
    DEFAULT_ATOL, DEFAULT_RTOL, Comparison, OutputDiff, compare_outputs, load_sample)
from faultlib.detect.serving.onnx.load import ExternalRef, LoadedModel, load_model
from faultlib.detect.serving.onnx.targets import ORT_RELEASES, TRITON_RELEASES, KernelRegistry, Target, parse_target
from faultlib.errors import DetectorError

__all__ = ["DEFAULT_ATOL", "DEFAULT_RTOL", "KINDS", "ORT_RELEASES", "TRITON_RELEASES", "Comparison", "ExternalRef",
           "KernelRegistry", "LoadedModel", "OnnxReport", "OutputDiff", "Target", "check_file", "check_model",
           "compare_outputs", "downgrade", "load_model", "load_sample", "parse_target", "value_types"]


def downgrade(model: Any, opset: int) -> Any:
    """``model`` rewritten to ``ai.onnx`` ``opset`` with ``onnx.version_converter``, then ``onnx.checker``-checked.

    Args:
        model: an ``onnx.ModelProto``.
        opset: the target's opset (e.g. ``Target.max_opset[""]``).

    Returns:
        A new ``onnx.ModelProto``.

    Raises:
        DetectorError: the converter has no adapter for an op (``No Previous Version of Gelu exists``: export
            again at that opset instead, so the exporter decomposes the op) or its result fails the checker.
    """
    import onnx
    from onnx import version_converter

    try:
        converted = version_converter.convert_version(model, opset)
        onnx.checker.check_model(converted)
    except Exception as exc:  # noqa: BLE001 - RuntimeError / ValidationError from onnx's C++ side
        reason = str(exc).strip().splitlines()[-1].split("failed: ")[-1]
        raise DetectorError(f"onnx.version_converter cannot take this model to opset {opset}: {reason}; export it "
                            f"again with opset_version={opset}") from exc
    return converted
