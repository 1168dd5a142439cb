"""Local embedding and reranking models of retrieval pipelines: sentence-transformers' ``CrossEncoder.rank`` and
FlagEmbedding's BGE models and rerankers, plus the Hugging Face cache scan.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`;
``SentenceTransformer`` and ``CrossEncoder`` construction are in :mod:`~faultlib.detect.serving.blocking.sdks`).
Each entry names the documentation of the call: building a model reads its weights, encoding and scoring run the
model in the calling thread (neither library has an async API).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"
CROSS_ENCODER = ("https://sbert.net/docs/package_reference/cross_encoder/cross_encoder.html (predict and rank run the "
                 "model over every pair)")
FLAG = ("https://github.com/FlagOpen/FlagEmbedding#usage (the model classes load their weights when built; encode and "
        "compute_score run the model)")
_FLAG_MODELS = ("BGEM3FlagModel", "FlagModel", "FlagReranker", "FlagLLMReranker", "LayerWiseFlagLLMReranker",
                "FlagICLModel", "FlagLLMModel", "FlagAutoModel", "FlagAutoReranker")
RERANKERS = Vocabulary(
    calls={
        **{f"FlagEmbedding.{c}": (F, FLAG) for c in _FLAG_MODELS},
        "huggingface_hub.scan_cache_dir": (F, "https://huggingface.co/docs/huggingface_hub/guides/manage-cache#scan-"
                                              "your-cache (walks the whole cache directory)"),
    },
    families=(
        Family(("sentence_transformers.CrossEncoder", "sentence_transformers.cross_encoder.CrossEncoder"),
               {"predict": C, "rank": C}, CROSS_ENCODER),
        Family(("FlagEmbedding",), {m: C for m in ("encode", "encode_queries", "encode_corpus", "compute_score",
                                                   "compute_lexical_matching_score", "colbert_score")}, FLAG,
               package=True, functions=False),
    ),
)
