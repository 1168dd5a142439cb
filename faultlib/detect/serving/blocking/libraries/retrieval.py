"""Local retrieval and language models loaded from disk: ColBERT's searcher and indexer, KenLM n-gram models.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
ColBERT's ``Searcher(index=...)`` reads the index and loads the checkpoint's encoder when built; ``search`` encodes
the query with that model and scores the index in the calling thread, ``Indexer.index`` encodes a whole collection.
``kenlm.Model(path)`` reads the ARPA or binary n-gram file when built (scoring a sentence afterwards is a lookup,
left out). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

F, C = "blocking_file_io", "blocking_cpu"

COLBERT = ("https://github.com/stanford-futuredata/ColBERT#searching (Searcher loads the index and the checkpoint; "
           "search encodes the query and ranks the passages) and #indexing (Indexer.index encodes the collection)")
KENLM = "https://github.com/kpu/kenlm#python-module (kenlm.Model(path) loads the ARPA or binary model file)"

_SEARCHERS = ("colbert.Searcher", "colbert.searcher.Searcher")
_INDEXERS = ("colbert.Indexer", "colbert.indexer.Indexer")

RETRIEVAL = Vocabulary(
    calls={},
    families=(
        Family(_SEARCHERS, {"__init__": F, "search": C, "search_all": C}, COLBERT),
        Family(_INDEXERS, {"index": C}, COLBERT),
        Family(("kenlm.Model", "kenlm.LanguageModel"), {"__init__": F}, KENLM),
    ),
    returns={},
)
