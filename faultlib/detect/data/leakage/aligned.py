"""Rows of different arrays made the same rows by one split: ``train_test_split(frame, texts, y)``.

scikit-learn's ``train_test_split(*arrays)`` takes one permutation of positions and cuts every array it is
given with it (the arrays must have the same length; API reference: "Split arrays or matrices into random
train and test subsets", ``*arrays``: "sequences of indexables with same length"). So ``frame_train`` and
``texts_train`` are the same rows (observations) in two column groups: a vectorizer fitted on
``texts_train`` saw every row of ``frame_train`` too, and a cross-validation over a matrix stacked
column-wise from both (``hstack([frame_train, tfidf.fit_transform(texts_train)])``, whose rows the analysis
names after the first block) holds out rows that shaped it. What came before the split does not matter:
the arrays cut together have the same length, so whatever selected them kept the same observations
(``essay = data[text_columns]`` read as a row selection is still the rows of ``data``).
"""

from __future__ import annotations

from faultlib.detect.data.leakage.values import Rows, RowSet, parts


def _aligned(fit: Rows, held: Rows) -> bool:
    """``held`` is (a selection of) the same part of the same split as ``fit``, of another array cut with it."""
    for i, step in enumerate(fit.steps):
        if step.kind != "split":
            continue
        rest = fit.steps[i:]
        for j, other in enumerate(held.steps):
            if other == step and held.steps[j:j + len(rest)] == rest:
                return True
    return False


def same_split_rows(fit_rows: RowSet | None, held_rows: RowSet | None) -> bool:
    """Some part of ``held_rows`` holds only rows of a part of ``fit_rows`` through a shared split step.

    Args:
        fit_rows: the rows a fit saw (``texts[split@10:train]``).
        held_rows: rows cross-validated or scored (``frame[split@10:train]``).
    Returns:
        True when a part of each descends from the same ``train_test_split`` call and part, and the held
        part's later selections extend the fit part's (the fit saw a superset of those positions).
    """
    return any(_aligned(f, h) for f in parts(fit_rows) for h in parts(held_rows))
