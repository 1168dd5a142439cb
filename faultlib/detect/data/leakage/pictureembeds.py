"""Manifold embeddings made to be looked at: a held-out name on their output is no sign that a model uses it.

A variable named for held-out rows (``te_emb = emb[len(X_train):]``) marks the fit that shaped it as *weakly*
reached (:meth:`.static.Analyzer._named`: rows set aside by name are meant to score a model). For the manifold
learners scikit-learn documents as visualisation tools that is no evidence: ``TSNE`` "is a tool to visualize
high-dimensional data" and has no ``transform`` (scikit-learn user guide, 2.2.9 t-distributed Stochastic Neighbor
Embedding; the same for ``MDS`` and ``SpectralEmbedding``: ``fit_transform`` only), and UMAP's documentation
presents it first for plotting ("How to use UMAP": ``umap.plot``). Code fits them on train and test rows stacked
to draw where the test rows fall (a chemical-space or applicability-domain figure), then slices the embedding
back into its train and test halves for two ``scatter`` calls. Only a strong reach (the embedding trains or is
scored by a model, or is saved) makes such a fit an alarm; otherwise it is reported as ``info`` (house: an
embedding fitted only for a figure is a note, wave 80).
"""

from __future__ import annotations

#: manifold learners used to draw data (class names; scikit-learn's ``sklearn.manifold`` and ``umap.UMAP``)
PICTURE_EMBEDDINGS = frozenset({"TSNE", "MDS", "SpectralEmbedding", "UMAP", "openTSNE", "TSNEEmbedding"})


def picture_embedding(estimator: str) -> bool:
    """``estimator`` (a fit's class name, possibly dotted) is a manifold learner for figures."""
    return estimator.rsplit(".", 1)[-1] in PICTURE_EMBEDDINGS


__all__ = ["PICTURE_EMBEDDINGS", "picture_embedding"]
