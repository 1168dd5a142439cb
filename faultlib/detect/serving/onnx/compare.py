"""Semantic drift: run the same real input through the torch model and through onnxruntime, compare.

An op a runtime implements differently (an approximation, a different default, a precision change in a
fused kernel) leaves the graph valid and the session happy: only outputs show it. :func:`compare_outputs`
reports, per output, the largest absolute error and the largest relative error, and whether every element
is within ``atol + rtol * |torch|`` (``numpy.allclose`` semantics, torch as the reference).

Defaults: ``rtol=1e-3`` as ``torch.onnx.verification.VerificationOptions`` (PyTorch's own check of its
exporter); ``atol=1e-5`` (its 1e-7 is below float32 rounding of a sum of a few hundred products, which a
fused Gemm reorders). The relative error is taken over elements where ``|torch| > atol``; below that the
absolute error is the meaningful one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.detect.serving.onnx.load import LoadedModel
from faultlib.detect.serving.onnx.schemas import DETECTOR
from faultlib.errors import InputError, require
from faultlib.findings import Finding, Severity
from faultlib.readers import Limits, read_bytes
from faultlib.readers.npy import read_npy

DEFAULT_ATOL = 1e-5
DEFAULT_RTOL = 1e-3
MAX_SAMPLE_BYTES = 1 << 30


@dataclass(frozen=True)
class OutputDiff:
    """One output compared. Errors are ``None`` when shapes differ; they cover the elements finite on both
    sides, and ``nonfinite_mismatch`` counts elements NaN or inf on one side only."""

    name: str
    shape: list[int]
    torch_shape: list[int]
    max_abs_error: float | None
    max_rel_error: float | None
    allclose: bool
    nonfinite_mismatch: int = 0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Comparison:
    """torch vs onnxruntime on one input.

    Attributes:
        runtime: ``onnxruntime X.Y.Z``.
        input: ``{shape, dtype, cast_from}`` of the array fed to both.
        outputs: one :class:`OutputDiff` per output, in graph order.
        max_abs_error / max_rel_error: the largest over all outputs (``None`` when nothing was compared).
        findings: ``output_mismatch``, ``output_shape_mismatch`` or ``runtime_load_failed``.
    """

    runtime: str
    input: dict[str, Any]
    atol: float
    rtol: float
    outputs: list[OutputDiff] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def max_abs_error(self) -> float | None:
        values = [o.max_abs_error for o in self.outputs if o.max_abs_error is not None]
        return max(values) if values else None

    @property
    def max_rel_error(self) -> float | None:
        values = [o.max_rel_error for o in self.outputs if o.max_rel_error is not None]
        return max(values) if values else None

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {"runtime": self.runtime, "input": self.input, "atol": self.atol, "rtol": self.rtol,
                "max_abs_error": self.max_abs_error, "max_rel_error": self.max_rel_error, "ok": self.ok,
                "outputs": [o.to_json() for o in self.outputs]}


def load_sample(path: Path | str) -> Any:
    """A ``.npy`` array, read through the hardened reader with ``allow_pickle=False``.

    Raises:
        InputError: not ``.npy``, unreadable, pickled objects, or not a numeric array.
    """
    import numpy as np

    path = Path(path)
    if path.suffix.lower() != ".npy":
        raise InputError("--input: not a .npy file (save the sample with numpy.save)", path=path)
    data = read_bytes(path, limits=Limits(max_bytes=MAX_SAMPLE_BYTES))
    array = read_npy(data, path).copy()  # the tables' reader: a header whose shape contradicts the data is refused
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "biuf":
        raise InputError(f"holds {getattr(array, 'dtype', type(array))}, not numbers", path=path)
    return array


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flatten(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def _diff(name: str, got, want, atol: float, rtol: float) -> OutputDiff:
    import numpy as np

    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return OutputDiff(name, list(got.shape), list(want.shape), None, None, False)
    finite = np.isfinite(got) & np.isfinite(want)
    # a NaN or inf on one side only (or inf of another sign) is a mismatch the errors below cannot show
    nonfinite = int((~finite & ~((got == want) | (np.isnan(got) & np.isnan(want)))).sum())
    err = np.abs(got - want)[finite]
    ref = np.abs(want)[finite]
    big = ref > atol
    rel = float((err[big] / ref[big]).max()) if big.any() else 0.0
    close = nonfinite == 0 and bool(np.all(err <= atol + rtol * ref))
    return OutputDiff(name, list(got.shape), list(want.shape), float(err.max()) if err.size else 0.0, rel, close,
                      nonfinite)


def compare_outputs(loaded: LoadedModel, module: Any, sample: Any, *, atol: float = DEFAULT_ATOL,
                    rtol: float = DEFAULT_RTOL) -> Comparison:
    """Run ``sample`` through ``module`` (torch, ``eval()`` and ``no_grad``) and through the installed
    onnxruntime (CPU, the model's external data already loaded), and compare every output.

    Args:
        loaded: the model, loaded with ``load_external=True`` when it has external data.
        module: the torch model (any callable taking one tensor; outputs a tensor, or a tuple/list/dict of them).
        sample: a numpy array for the model's single graph input; a float array is cast to the input's
            float type (recorded as ``cast_from``).
        atol / rtol: tolerances, see the module docstring.

    Returns:
        A :class:`Comparison` (``runtime_load_failed`` when onnxruntime cannot load or run the model).

    Raises:
        InputError: the model has more than one graph input, or the sample's type cannot feed it.
        MissingDependency: onnxruntime or torch is not installed.
    """
    import numpy as np

    ort = require("onnxruntime", "onnx")
    torch = require("torch", "torch")
    from onnx import helper

    model = loaded.model
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    if len(inputs) != 1:
        raise InputError(f"the model has {len(inputs)} graph inputs ({', '.join(i.name for i in inputs)}); "
                         "--input feeds one array, so only one-input models can be compared", path=loaded.path)
    graph_input = inputs[0]
    want = np.dtype(helper.tensor_dtype_to_np_dtype(graph_input.type.tensor_type.elem_type))
    array = np.asarray(sample)
    cast_from = None
    if array.dtype != want:
        if array.dtype.kind == want.kind or (array.dtype.kind in "iu" and want.kind in "iu"):
            cast_from, array = str(array.dtype), array.astype(want)
        else:
            raise InputError(f"the sample is {array.dtype}; input {graph_input.name!r} takes {want}", path=loaded.path)
    runtime = f"onnxruntime {ort.__version__}"
    comparison = Comparison(runtime, {"name": graph_input.name, "shape": list(array.shape), "dtype": str(array.dtype),
                                      "cast_from": cast_from}, atol, rtol)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        got = session.run(None, {graph_input.name: array})
    except Exception as exc:  # noqa: BLE001 - onnxruntime's Fail/InvalidGraph/NotImplemented, translated here
        comparison.findings.append(Finding(DETECTOR, Severity.ERROR,
                                           f"{runtime} could not load or run the model: {str(exc)[:400]}",
                                           {"key": "comparison"}, {"runtime": runtime, "error": str(exc)[:2000]},
                                           kind="runtime_load_failed"))
        return comparison
    if hasattr(module, "eval"):
        module.eval()
    with torch.no_grad():
        reference = [t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)
                     for t in _flatten(module(torch.from_numpy(np.ascontiguousarray(array))))]
    names = [o.name for o in model.graph.output]
    if len(reference) != len(got):
        comparison.findings.append(Finding(DETECTOR, Severity.ERROR,
                                           f"torch returns {len(reference)} outputs, the model {len(got)}",
                                           {"key": "comparison"}, {"torch_outputs": len(reference),
                                                                   "onnx_outputs": len(got)},
                                           kind="output_shape_mismatch"))
    for name, mine, theirs in zip(names, got, reference):
        diff = _diff(name, mine, theirs, atol, rtol)
        comparison.outputs.append(diff)
        if diff.max_abs_error is None:
            comparison.findings.append(Finding(DETECTOR, Severity.ERROR,
                                               f"output {name!r} has shape {diff.shape} in onnxruntime, "
                                               f"{diff.torch_shape} in torch", {"key": name},
                                               {"shape": diff.shape, "torch_shape": diff.torch_shape},
                                               kind="output_shape_mismatch"))
        elif not diff.allclose:
            comparison.findings.append(Finding(DETECTOR, Severity.ERROR,
                                               f"output {name!r} drifts from torch: max abs error "
                                               f"{diff.max_abs_error:.3g}, max rel error {diff.max_rel_error:.3g}, "
                                               f"{diff.nonfinite_mismatch} NaN/inf on one side only "
                                               f"(atol {atol:g}, rtol {rtol:g})", {"key": name},
                                               {"max_abs_error": diff.max_abs_error,
                                                "max_rel_error": diff.max_rel_error,
                                                "nonfinite_mismatch": diff.nonfinite_mismatch, "atol": atol,
                                                "rtol": rtol},
                                               kind="output_mismatch"))
    return comparison
