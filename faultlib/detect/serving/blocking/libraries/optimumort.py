"""Hugging Face Optimum's ONNX Runtime integration: its models run ONNX Runtime in the calling thread, and its
export, optimisation and quantisation steps write ONNX files.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`;
optimum-intel's OpenVINO models are in :mod:`~faultlib.detect.serving.blocking.libraries.openvino`, a bare
``onnxruntime.InferenceSession`` in :mod:`~faultlib.detect.serving.blocking.sdks`). An ``ORTModelFor<Task>`` is a
drop-in for the transformers model of the same task: calling it (or ``forward``, ``generate``) runs the ONNX graph
through the ``InferenceSession`` it holds and returns when the outputs are computed; ``from_pretrained`` (any
``ORTModel*`` class: the ``prefix`` family) reads or downloads the model, and with ``export=True`` first converts the
PyTorch checkpoint to ONNX (the vocabulary's loader convention, :data:`~faultlib.detect.serving.blocking.vocab.
LOAD_METHODS`, already covers it when the class is named). ``ORTOptimizer.optimize`` rewrites the graph and saves it
to ``save_dir``; ``ORTQuantizer.quantize`` and ``fit``/``partial_fit`` (calibration) run the model over data and
write the quantised model (held-out wave 65: a gRPC servicer's embedding model exported, optimised and then run
per request on the loop). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

MODELING = ("https://huggingface.co/docs/optimum/onnxruntime/package_reference/modeling_ort (ORTModel: "
            "from_pretrained loads the ONNX model, exporting it from the PyTorch checkpoint with export=True; calling "
            "the model runs its forward through the ONNX Runtime InferenceSession)")
OPTIMIZATION = ("https://huggingface.co/docs/optimum/onnxruntime/usage_guides/optimization (ORTOptimizer.optimize "
                "applies the OptimizationConfig to the ONNX graph and saves the optimised model in save_dir)")
QUANTIZATION = ("https://huggingface.co/docs/optimum/onnxruntime/usage_guides/quantization (ORTQuantizer.fit runs "
                "calibration over a dataset; quantize writes the quantised model to save_dir)")

_NAMESPACES = ("optimum.onnxruntime", "optimum.onnxruntime.modeling_ort", "optimum.onnxruntime.modeling_seq2seq",
               "optimum.onnxruntime.modeling_decoder", "optimum.onnxruntime.modeling_diffusion")
_TOOLS = ("optimum.onnxruntime", "optimum.onnxruntime.optimization", "optimum.onnxruntime.quantization")

OPTIMUM_ORT = Vocabulary(
    calls={
        **{f"{ns}.ORTOptimizer.optimize": (F, OPTIMIZATION) for ns in _TOOLS},
        **{f"{ns}.ORTQuantizer.{m}": (F if m == "quantize" else C, QUANTIZATION)
           for ns in _TOOLS for m in ("quantize", "fit", "partial_fit")},
    },
    families=(
        Family(tuple(f"{ns}.ORT" for ns in _NAMESPACES), {"__call__": C, "forward": C, "generate": C}, MODELING,
               prefix=True),
    ),
    returns={f"{ns}.{c}.from_pretrained": f"{ns}.{c}" for ns in _TOOLS for c in ("ORTOptimizer", "ORTQuantizer")},
)
