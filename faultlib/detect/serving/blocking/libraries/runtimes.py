"""Inference runtimes that load or run a model in the calling thread: CTranslate2, vLLM's engines, HQQ, LMDeploy,
TensorRT-LLM's LLM API, fastText's native binding.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
libraries built on it, such as faster-whisper, are in :mod:`faultlib.detect.serving.blocking.libraries.speech`).
Building a ``Translator``/``Generator``/``Encoder``/``Whisper`` loads the converted model from its folder onto the
device; their batch methods (``translate_batch``, ``generate_batch``, ``score_batch``, ``forward_batch``, Whisper's
``generate``/``detect_language``/``encode``/``align``) run the model and return when it is done, in the calling
thread (``asynchronous=True`` is not followed: a finding there is read by its line). vLLM's
``AsyncLLMEngine.from_engine_args`` (and V1's ``AsyncLLM``) builds the engine before it returns -- loading the
weights and profiling memory in-process, or starting the engine-core process and waiting for it -- although the
engine it returns is async; the offline ``vllm.LLM`` loads the model when built and its ``generate``/``chat``/
``encode`` run the whole batch; ``EngineArgs.create_engine_config`` reads the model's config. HQQ's
``AutoHQQHFModel.from_quantized`` reads quantized weights and ``quantize_model`` quantizes every layer of a loaded
model. LMDeploy's ``pipeline(model_path)`` builds its inference engine -- loading the weights onto the device --
before it returns. DeepSparse's ``Pipeline`` (legacy and operator-based) runs pre-processing, the compiled engine
and post-processing when called, and its ``Engine`` runs the model in ``run``/``__call__``, all in the calling thread
(``run_async`` is the pipeline's coroutine); the engine is a native extension, so in DeepSparse's own repository the
entry is what tells (:mod:`~faultlib.detect.serving.blocking.own_libraries`). TensorRT-LLM's ``LLM(model=...)``
loads (or builds) the engine and the tokenizer before it returns, and its ``generate`` runs synchronously
(``generate_async`` is the awaitable twin); fastText's native ``fasttext_pybind.fasttext().loadModel(path)`` -- what
the Python wrapper's ``load_model`` calls -- reads the model file (held-out wave 75: a TTS engine and a language
detector loaded in async start-up). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

CT2 = "https://opennmt.net/CTranslate2/python/ctranslate2.{}.html (the constructor loads the model; {} run it)"

CTRANSLATE2 = {
    "Translator": ("translate_batch", "translate_iterable", "translate_file", "score_batch", "score_iterable",
                   "score_file", "generate_tokens"),
    "Generator": ("generate_batch", "generate_iterable", "generate_tokens", "score_batch", "score_iterable",
                  "forward_batch", "async_generate_tokens"),
    "Encoder": ("forward_batch",),
    "models.Whisper": ("generate", "detect_language", "encode", "align"),
}

VLLM_ENGINE = ("https://docs.vllm.ai/en/latest/api/vllm/engine/async_llm_engine.html (from_engine_args creates "
               "the engine, with its model executor, before returning)")
VLLM_LLM = ("https://docs.vllm.ai/en/latest/api/vllm/entrypoints/llm.html (LLM loads the model when built; "
            "generate/chat/encode run the batch to completion)")
VLLM_CONFIG = ("https://docs.vllm.ai/en/latest/api/vllm/engine/arg_utils.html (create_engine_config builds the "
               "VllmConfig: its ModelConfig reads the model's Hugging Face config, downloading it when not cached)")
HQQ = ("https://github.com/mobiusml/hqq#readme (AutoHQQHFModel.quantize_model quantizes a loaded model; "
       "from_quantized loads a quantized one from disk or the Hub)")

LMDEPLOY = ("https://lmdeploy.readthedocs.io/en/latest/llm/pipeline.html (pipeline(model_path) builds the engine, "
            "loading the model, before it returns)")

TRT_LLM = ("https://nvidia.github.io/TensorRT-LLM/llm-api/reference.html (LLM(model) loads the engine, or builds it "
           "from a checkpoint, and the tokenizer before it returns; generate runs the batch in synchronous mode, "
           "generate_async is the awaitable one)")
_TRT_LLMS = ("tensorrt_llm.LLM", "tensorrt_llm.llmapi.LLM", "tensorrt_llm.llmapi.llm.LLM",
             "tensorrt_llm._tensorrt_engine.LLM")
FASTTEXT_PYBIND = ("https://github.com/facebookresearch/fastText/blob/main/python/fasttext_module/fasttext/FastText.py "
                   "(the Python wrapper builds the native fasttext_pybind.fasttext() object and calls its loadModel(path), "
                   "which reads the .bin/.ftz model file; predict and the word/sentence vectors run the model)")
FASTTEXT_NATIVE = "fasttext_pybind.fasttext"
"""fastText's native binding class (a lower-case class name: its constructor builds an empty model)."""

DEEPSPARSE = ("https://github.com/neuralmagic/deepsparse#deepsparse-pipelines (pipeline(inputs) runs pre-processing, "
              "the engine and post-processing; Engine(model)(inputs) or engine.run(inputs) runs the compiled model, "
              "both in the calling thread)")
_DEEPSPARSE_PIPELINES = tuple(f"deepsparse.{m}Pipeline" for m in ("", "pipeline.", "legacy.", "legacy.pipeline."))
_DEEPSPARSE_ENGINES = ("deepsparse.Engine", "deepsparse.engine.Engine")

_ENGINES = ("vllm.AsyncLLMEngine", "vllm.engine.async_llm_engine.AsyncLLMEngine", "vllm.v1.engine.async_llm.AsyncLLM")
_HQQ = ("hqq.models.hf.base.AutoHQQHFModel", "hqq.models.hf.AutoHQQHFModel")
_ENGINE_ARGS = tuple(f"vllm.{m}{c}" for m in ("", "engine.arg_utils.") for c in ("EngineArgs", "AsyncEngineArgs"))

RUNTIMES = Vocabulary(
    calls={**{f"{e}.{m}": (F, VLLM_ENGINE) for e in _ENGINES for m in ("from_engine_args", "from_vllm_config")},
           **{f"{a}.create_engine_config": (F, VLLM_CONFIG) for a in _ENGINE_ARGS},
           **{f"{h}.from_quantized": (F, HQQ) for h in _HQQ},
           **{f"{h}.quantize_model": (C, HQQ) for h in _HQQ},
           **{f"lmdeploy.{m}pipeline": (F, LMDEPLOY) for m in ("", "api.")}},
    families=(*(
        Family((f"ctranslate2.{name}",), {"__init__": F, **{m: C for m in methods if not m.startswith("async")}},
               CT2.format(name, "/".join(methods[:2])))
        for name, methods in CTRANSLATE2.items()),
        Family(("vllm.LLM", "vllm.entrypoints.llm.LLM"), {"__init__": F, **{m: C for m in (
            "generate", "chat", "encode", "embed", "classify", "score", "beam_search")}}, VLLM_LLM),
        Family(_TRT_LLMS, {"__init__": F, "generate": C}, TRT_LLM),
        Family((FASTTEXT_NATIVE,), {"loadModel": F}, FASTTEXT_PYBIND),
        Family(_DEEPSPARSE_PIPELINES, {"__call__": C, "run": C}, DEEPSPARSE),
        Family(_DEEPSPARSE_ENGINES, {m: C for m in ("__call__", "run", "mapped_run", "timed_run", "benchmark")},
               DEEPSPARSE)),
    returns={FASTTEXT_NATIVE: FASTTEXT_NATIVE},
)
