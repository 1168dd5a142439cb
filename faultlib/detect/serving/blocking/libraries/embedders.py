"""Embedding encoders of retrieval pipelines that the rest of the vocabulary does not describe: fastembed's ONNX
models and pinecone-text's dense encoders.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). Building
a fastembed model (``TextEmbedding(model_name)``, and its sparse, late-interaction, image and cross-encoder
siblings) downloads the model from the Hugging Face Hub on first use and loads the ONNX session; ``embed``,
``query_embed`` and ``passage_embed`` run it (they return a generator: the model runs as it is consumed, in the
consuming thread), ``rerank`` scores the pairs. pinecone-text's dense encoders (``OpenAIEncoder``,
``AzureOpenAIEncoder``, ``CohereEncoder``, ``JinaEncoder`` and their base ``BaseDenseEncoder``) send
``encode_documents``/``encode_queries`` to the provider's embeddings API with its synchronous client, and
``SentenceTransformerEncoder`` runs the model in the calling thread. Each entry names the documentation of the
call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F, H = "blocking_cpu", "blocking_file_io", "blocking_http"

FASTEMBED = ("https://qdrant.github.io/fastembed/ (the model classes download the model to cache_dir on first use "
             "and load its ONNX session when built; embed/query_embed/passage_embed run it as their result is "
             "consumed) and https://github.com/qdrant/fastembed#-quickstart")
PINECONE_TEXT = ("https://github.com/pinecone-io/pinecone-text#dense-encoding (OpenAIEncoder/CohereEncoder/JinaEncoder "
                 "call the provider's embeddings API with its synchronous client; SentenceTransformerEncoder runs "
                 "the model locally)")

_FASTEMBED_MODELS = ("TextEmbedding", "SparseTextEmbedding", "LateInteractionTextEmbedding", "ImageEmbedding",
                     "LateInteractionMultimodalEmbedding")
_FASTEMBED_MODULES = {"TextEmbedding": "text.text_embedding", "SparseTextEmbedding": "sparse.sparse_text_embedding",
                      "LateInteractionTextEmbedding": "late_interaction.late_interaction_text_embedding",
                      "ImageEmbedding": "image.image_embedding",
                      "LateInteractionMultimodalEmbedding":
                          "late_interaction_multimodal.late_interaction_multimodal_embedding"}
_RERANKERS = ("fastembed.rerank.cross_encoder.TextCrossEncoder", "fastembed.rerank.cross_encoder."
              "text_cross_encoder.TextCrossEncoder")
_DENSE = ("OpenAIEncoder", "AzureOpenAIEncoder", "CohereEncoder", "JinaEncoder")
_BASE = ("pinecone_text.dense.base_dense_ecoder.BaseDenseEncoder",  # the module's name is spelled so
         "pinecone_text.dense.BaseDenseEncoder")

EMBEDDERS = Vocabulary(
    calls={},
    families=(
        Family(tuple(n for m in _FASTEMBED_MODELS
                     for n in (f"fastembed.{m}", f"fastembed.{_FASTEMBED_MODULES[m]}.{m}")),
               {"__init__": F, "embed": C, "query_embed": C, "passage_embed": C}, FASTEMBED),
        Family(_RERANKERS, {"__init__": F, "rerank": C, "rerank_pairs": C}, FASTEMBED),
        Family((*_BASE, *(f"pinecone_text.dense.{c}" for c in _DENSE)),
               {"encode_documents": H, "encode_queries": H}, PINECONE_TEXT),
        Family(("pinecone_text.dense.SentenceTransformerEncoder",),
               {"__init__": F, "encode_documents": C, "encode_queries": C}, PINECONE_TEXT),
    ),
    returns={},
)
