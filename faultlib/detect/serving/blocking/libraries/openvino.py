"""OpenVINO, OpenVINO GenAI and optimum-intel: reading and compiling a model, and running it.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). OpenVINO's
synchronous API runs inference in the calling thread: calling a ``CompiledModel``, ``InferRequest.infer`` (and
``wait`` after ``start_async``), a GenAI pipeline's ``generate``; reading and compiling a model reads the files and
builds the plugin's graph. Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

RUNTIME = ("https://docs.openvino.ai/2024/openvino-workflow/running-inference/integrate-openvino-with-your-"
           "application.html (read_model/compile_model read and compile the model; infer() and calling the compiled "
           "model run it synchronously; start_async + wait is the asynchronous form)")
GENAI = ("https://docs.openvino.ai/2024/openvino-workflow-generative/inference-with-genai.html (constructing a "
         "pipeline loads and compiles the model; generate runs the whole generation in the calling thread)")
OPTIMUM = ("https://huggingface.co/docs/optimum/en/intel/openvino/inference (OVModelFor*.from_pretrained reads and "
           "compiles the model; calling it or generate runs the OpenVINO inference in the calling thread)")

_NAMESPACES = ("openvino", "openvino.runtime")
_GENAI = tuple(f"openvino_genai.{p}" for p in ("LLMPipeline", "VLMPipeline", "WhisperPipeline", "Text2ImagePipeline",
                                               "Image2ImagePipeline", "InpaintingPipeline", "ContinuousBatchingPipeline",
                                               "Text2SpeechPipeline", "TextEmbeddingPipeline", "TextRerankPipeline"))

OPENVINO = Vocabulary(
    calls={
        **{f"{ns}.Core.{m}": (F, RUNTIME) for ns in _NAMESPACES for m in ("read_model", "compile_model",
                                                                          "import_model")},
        **{f"{ns}.compile_model": (F, RUNTIME) for ns in _NAMESPACES},
        **{name: (F, GENAI) for name in _GENAI},
    },
    families=(
        Family(tuple(f"{ns}.CompiledModel" for ns in _NAMESPACES), {"__call__": C, "infer_new_request": C}, RUNTIME),
        Family(tuple(f"{ns}.InferRequest" for ns in _NAMESPACES), {"infer": C, "wait": C, "wait_for": C}, RUNTIME),
        Family(_GENAI, {m: C for m in ("generate", "embed_documents", "embed_query", "rerank")}, GENAI),
        Family(("optimum.intel.OVModel", "optimum.intel.openvino.OVModel"), {"__call__": C, "forward": C, "generate": C},
               OPTIMUM, prefix=True),
    ),
    returns={
        **{f"{ns}.Core": f"{ns}.Core" for ns in _NAMESPACES},
        **{f"{ns}.Core.compile_model": f"{ns}.CompiledModel" for ns in _NAMESPACES},
        **{f"{ns}.compile_model": f"{ns}.CompiledModel" for ns in _NAMESPACES},
        **{f"{ns}.CompiledModel.create_infer_request": f"{ns}.InferRequest" for ns in _NAMESPACES},
        **{name: name for name in _GENAI},
    },
)
