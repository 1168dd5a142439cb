"""Model libraries: torch/numpy/pandas/joblib files, Keras, LangChain, transformers, llama.cpp, ctransformers,
diffusers, sentence-transformers.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`);
each entry names the documentation that says the call blocks the calling thread.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names as _names

LANGCHAIN = "https://python.langchain.com/docs/concepts/runnables/#asynchronous-support"
ALIBI_DETECT = ("https://docs.seldon.io/projects/alibi-detect/en/stable/overview/saving.html (load_detector reads "
                "a saved detector and its models from disk; a detector's predict/score run them)")
PGVECTOR = ("https://python.langchain.com/api_reference/community/vectorstores/langchain_community.vectorstores.pgvector."
            "PGVector.html (the constructor connects with a synchronous engine and creates the extension, tables and "
            "collection)")
TORCH_PACKAGE = ("https://pytorch.org/docs/stable/package.html#torch.package.PackageImporter (the importer opens the "
                 "package's zip archive; load_pickle unpickles an object -- a model with its weights -- from it)")
CTRANSFORMERS = ("https://github.com/marella/ctransformers#documentation (LLM(model_path) and AutoModelForCausalLM."
                 "from_pretrained load the GGML/GPTQ weights; calling the model, generate, eval and embed run the C "
                 "library in the calling thread; held-out wave 70: an OpenAI-compatible server's completions)")
_CTRANSFORMERS = ("ctransformers.LLM", "ctransformers.llm.LLM")
SAVED_MODEL = ("https://www.tensorflow.org/api_docs/python/tf/saved_model/load (reads the SavedModel's graph and "
               "variables from disk) and https://www.tensorflow.org/guide/saved_model#running_a_savedmodel_in_tensorflow_"
               "serving (``loaded.signatures['serving_default']`` is a concrete function: calling it runs the model "
               "in the calling thread; held-out wave 72)")
SAVED_MODEL_LOADED = "tensorflow.saved_model.Loaded"
"""What ``tf.saved_model.load`` returns (a trackable object with the restored functions and ``signatures``)."""
CONCRETE_FUNCTION = "tensorflow.types.experimental.ConcreteFunction"
PACKAGE_IMPORTERS = ("torch.package.PackageImporter", "torch.package.package_importer.PackageImporter")
MODELS = Vocabulary(
    calls={
        **_names("blocking_file_io", "https://pytorch.org/docs/stable/generated/torch.load.html", "torch", "load",
                 "save"),
        **_names("blocking_file_io", "https://pytorch.org/docs/stable/generated/torch.jit.load.html", "torch.jit", "load",
                 "save"),
        **_names("blocking_http", "https://pytorch.org/docs/stable/hub.html#torch.hub.download_url_to_file (downloads "
                 "the URL to a file; load_state_dict_from_url downloads it when it is not cached, then loads it)",
                 "torch.hub", "download_url_to_file", "load_state_dict_from_url"),
        **{importer: ("blocking_file_io", TORCH_PACKAGE) for importer in PACKAGE_IMPORTERS},
        **_names("blocking_file_io", "https://numpy.org/doc/stable/reference/routines.io.html", "numpy", "load", "save",
                 "savez", "loadtxt", "savetxt", "fromfile"),
        **_names("blocking_file_io", "https://pandas.pydata.org/docs/reference/io.html", "pandas", "read_csv",
                 "read_parquet", "read_json", "read_excel", "read_pickle", "read_feather", "read_hdf", "read_table"),
        **_names("blocking_file_io", "https://joblib.readthedocs.io/en/stable/persistence.html", "joblib", "load",
                 "dump"),
        **{f"{m}.load_model": ("blocking_file_io", "https://keras.io/api/models/model_saving_apis/model_saving_and_loading/")
           for m in ("keras.models", "keras.saving", "tensorflow.keras.models")},
        **{f"langchain_community.vectorstores.{m}PGVector": ("blocking_db", PGVECTOR) for m in ("", "pgvector.")},
        **{f"alibi_detect.{m}load_detector": ("blocking_file_io", ALIBI_DETECT) for m in ("saving.", "")},
        **{c: ("blocking_file_io", CTRANSFORMERS) for c in _CTRANSFORMERS},
        **{f"{m}.saved_model.load": ("blocking_file_io", SAVED_MODEL) for m in ("tensorflow", "tensorflow.compat.v2")},
        "lightgbm.Booster": ("blocking_file_io", "https://lightgbm.readthedocs.io/en/stable/pythonapi/lightgbm.Booster."
                                                 "html (model_file: the model is read from that file)"),
    },
    when={"lightgbm.Booster": BlocksWhen("model_file", position=2, test="given")},
    families=(
        Family(("langchain",), {m: "blocking_http" for m in (
            "invoke", "batch", "stream", "predict", "predict_messages", "run", "__call__", "get_relevant_documents",
            "similarity_search", "similarity_search_with_score", "max_marginal_relevance_search", "add_documents",
            "add_texts", "embed_query", "embed_documents", "generate")} | {
            "load": "blocking_file_io", "load_and_split": "blocking_file_io", "lazy_load": "blocking_file_io",
            # a vector store's index files (FAISS, Annoy...: https://python.langchain.com/api_reference/community/
            # vectorstores/langchain_community.vectorstores.faiss.FAISS.html#langchain_community.vectorstores.faiss.
            # FAISS.save_local writes the index and its pickled docstore)
            "save_local": "blocking_file_io", "load_local": "blocking_file_io"},
            LANGCHAIN, prefix=True),
        Family(("transformers.",), {"from_pretrained": "blocking_file_io", "save_pretrained": "blocking_file_io"},
               "https://huggingface.co/docs/transformers/main_classes/model", prefix=True),
        Family(("transformers.Pipeline", "transformers.pipelines.base.Pipeline"), {"__call__": "blocking_cpu"},
               "https://huggingface.co/docs/transformers/main_classes/pipelines"),
        Family(("transformers.PreTrainedModel",), {m: "blocking_cpu" for m in ("__call__", "generate", "forward")},
               "https://huggingface.co/docs/transformers/main_classes/text_generation"),
        Family(("transformers.PreTrainedModel",), {m: "blocking_cpu" for m in (
            "chat", "stream_chat", "chat_stream", "stream_generate")},
               "https://huggingface.co/THUDM/chatglm3-6b and https://huggingface.co/Qwen/Qwen-7B-Chat (the chat "
               "methods of trust_remote_code models run the whole generation, or yield it, in the calling thread)"),
        Family(("keras.Model", "tensorflow.keras.Model"),
               {m: "blocking_cpu" for m in ("predict", "fit", "evaluate", "__call__", "predict_on_batch")},
               "https://keras.io/api/models/model_training_apis/"),
        Family(("llama_cpp.Llama",), {m: "blocking_cpu" for m in (
            "__call__", "create_completion", "create_chat_completion", "create_embedding", "embed", "generate",
            "eval")}, "https://llama-cpp-python.readthedocs.io/en/latest/api-reference/"),
        Family(_CTRANSFORMERS, {m: "blocking_cpu" for m in ("__call__", "generate", "eval", "embed")}, CTRANSFORMERS),
        Family(("diffusers.",), {"__call__": "blocking_cpu"},
               "https://huggingface.co/docs/diffusers/api/pipelines/overview#diffusers.DiffusionPipeline (calling a "
               "pipeline runs the whole denoising loop in the calling thread)", prefix=True, suffix="Pipeline"),
        Family(("diffusers.",), {m: "blocking_cpu" for m in ("encode", "decode", "__call__", "forward")},
               "https://huggingface.co/docs/diffusers/api/models/overview (diffusers models are torch.nn.Module "
               "subclasses; AutoencoderKL.encode/decode run the VAE)", prefix=True,
               suffix=("Model", "AutoencoderKL", "AutoencoderTiny", "VQModel")),
        Family(("transformers.TextIteratorStreamer", "transformers.generation.streamers.TextIteratorStreamer"),
               {"__next__": "blocking_task"},
               "https://huggingface.co/docs/transformers/internal/generation_utils#transformers.TextIteratorStreamer "
               "(iterating waits on a queue for each token of the generating thread; AsyncTextIteratorStreamer is "
               "the async twin)"),
        Family(("alibi_detect.base.Detector",), {m: "blocking_cpu" for m in ("predict", "score", "fit")}, ALIBI_DETECT),
        Family(PACKAGE_IMPORTERS, {m: "blocking_file_io" for m in ("load_pickle", "load_text", "load_binary",
                                                                   "import_module")}, TORCH_PACKAGE),
        Family((SAVED_MODEL_LOADED, CONCRETE_FUNCTION), {"__call__": "blocking_cpu"}, SAVED_MODEL),
        Family(("sentence_transformers.SentenceTransformer",), {"encode": "blocking_cpu"},
               "https://sbert.net/docs/package_reference/sentence_transformer/SentenceTransformer.html"),
    ),
    returns={
        "torch.load": "torch.nn.Module", "torch.jit.load": "torch.jit.ScriptModule", "torch.jit.script": "torch.nn.Module",
        "torch.jit.trace": "torch.nn.Module", "torch.compile": "torch.nn.Module",
        "joblib.load": "sklearn.base.BaseEstimator", "transformers.pipeline": "transformers.Pipeline",
        **{c: "ctransformers.LLM" for c in _CTRANSFORMERS},
        **{f"ctransformers.{m}AutoModelForCausalLM.from_pretrained": "ctransformers.LLM" for m in ("", "hub.")},
        **{f"alibi_detect.{m}load_detector": "alibi_detect.base.Detector" for m in ("saving.", "")},
        "pickle.load": "sklearn.base.BaseEstimator", "pickle.loads": "sklearn.base.BaseEstimator",  # a pickled model:
        "cloudpickle.load": "sklearn.base.BaseEstimator",  # only its predict/transform/fit calls are blockers
        **{f"transformers.{m}TextIteratorStreamer": "transformers.TextIteratorStreamer" for m in (
            "", "generation.streamers.", "generation.")},
        "keras.models.load_model": "keras.Model", "keras.saving.load_model": "keras.Model",
        "tensorflow.keras.models.load_model": "keras.Model",
        **{f"{m}.saved_model.load": SAVED_MODEL_LOADED for m in ("tensorflow", "tensorflow.compat.v2")},
        **{f"{m}.{f}": "langchain.chains.base.Chain" for m in ("langchain.chains", "langchain.chains.combine_documents")
           for f in ("create_retrieval_chain", "create_history_aware_retriever", "create_stuff_documents_chain",
                     "create_sql_query_chain", "load_qa_chain", "load_summarize_chain")},  # LANGCHAIN: Runnables
    },
)
