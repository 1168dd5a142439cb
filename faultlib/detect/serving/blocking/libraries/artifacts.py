"""Constructors and loaders that read a model or artifact when called: SentencePiece tokenizers, the ``rerankers``
package's rankers, docling v1's converter, diffusers' LoRA and adapter weights.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; docling's
conversion is in :mod:`~faultlib.detect.serving.blocking.libraries.documents`, diffusers' pipelines in
:mod:`~faultlib.detect.serving.blocking.libraries.models`). Each entry names the documentation of the call: the
model file is read (and downloaded from the Hub the first time) in the calling thread before the call returns.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

F = "blocking_file_io"

SENTENCEPIECE = ("https://github.com/google/sentencepiece/blob/master/python/README.md (SentencePieceProcessor("
                 "model_file=...) loads the model file when built; load/Load read it later)")
RERANKERS = ("https://github.com/AnswerDotAI/rerankers#usage (Reranker(...) and the ranker classes download the "
             "model the first time and load it when built)")
DOCLING_V1 = ("https://github.com/DS4SD/docling/blob/v1.20.0/docling/document_converter.py (docling 1.x: "
              "DocumentConverter(artifacts_path=None, pipeline_options=...) downloads the model artifacts from the "
              "Hub when no path is given and builds the layout and table models; 2.x builds them lazily and takes "
              "format_options instead)")
DIFFUSERS_LORA = ("https://huggingface.co/docs/diffusers/api/loaders/lora (load_lora_weights downloads the weights "
                  "from the Hub when given a repository and loads the safetensors into the pipeline's modules)")

_SENTENCEPIECE = ("sentencepiece.SentencePieceProcessor",)
_RANKERS = ("rerankers.Reranker", *(f"rerankers.models.{m}FlashRankRanker" for m in ("", "flashrank_ranker.")),
            *(f"rerankers.models.{m}TransformerRanker" for m in ("", "transformer_ranker.")),
            *(f"rerankers.models.{m}ColBERTRanker" for m in ("", "colbert_ranker.")))
_DOCLING = "docling.document_converter.DocumentConverter"

ARTIFACTS = Vocabulary(
    calls={
        "sentencepiece.SentencePieceProcessor": (F, SENTENCEPIECE),
        **{r: (F, RERANKERS) for r in _RANKERS},
        _DOCLING: (F, DOCLING_V1),
    },
    when={
        "sentencepiece.SentencePieceProcessor": BlocksWhen("model_file", position=0, test="given"),
        _DOCLING: BlocksWhen("pipeline_options", position=1, test="given"),
    },
    families=(
        Family(_SENTENCEPIECE, {"load": F, "Load": F}, SENTENCEPIECE),
        Family(("diffusers.",), {m: F for m in ("load_lora_weights", "load_textual_inversion", "load_ip_adapter")},
               DIFFUSERS_LORA, prefix=True),
    ),
    returns={"sentencepiece.SentencePieceProcessor": "sentencepiece.SentencePieceProcessor"},
)
