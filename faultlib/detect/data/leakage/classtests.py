"""A column compared between the label's classes by a two-sample test, for the static leakage analysis.

Gene-expression studies choose their genes by testing each one between the classes and keeping the significant
ones::

    sick, well = expr[labels == 1], expr[labels == 0]
    for gene in expr.columns:
        t, p = ttest_ind(sick[gene], well[gene])     # one gene's difference between the classes
        pvals.append((gene, p))
    chosen = [g for g, p in sorted(pvals, key=lambda r: r[1])[:20]]

A two-sample test of a column between the rows of one class and the rows of another is a univariate supervised
score: with two classes Student's t is the square root of the ANOVA F that scikit-learn's ``f_classif`` computes
per feature ("compute the ANOVA F-value for the provided sample", scikit-learn API reference), which
:mod:`~faultlib.detect.data.leakage.selectors` already reads as a fit of ``X`` with ``y``. The samples are cut by the
label (:mod:`~faultlib.detect.data.leakage.classfilters`), so the score read every row's label: the genes it keeps,
chosen on all samples before the split or the cross-validation, make the held-out error optimistic -- the selection
bias of Ambroise & McLachlan, "Selection bias in gene extraction on the basis of microarray gene-expression data",
PNAS 99(10), 2002, who show near-zero cross-validated error on random labels when the genes are chosen first.

Recognised: SciPy's two-sample and k-sample location and distribution tests (``scipy.stats.ttest_ind``,
``mannwhitneyu``, ``ranksums``, ``ks_2samp``, ``brunnermunzel``, ``f_oneway``, ``kruskal``, ``alexandergovern``;
SciPy reference: each takes the samples of the groups compared and returns the statistic and its p-value) when at
least two of the samples given are rows of one class of the same table. The fit saw the rows the classes were cut
from. A test between two tables that are no class cut (a feature before and after a treatment, the training
rows against the test rows in a drift check) is no label score and stays silent.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, Est, RowUnion, Rows, maybe_data, parts
from faultlib.pyflow.values import Tup

#: SciPy's tests of samples from two or more groups (``scipy.stats``): each returns (statistic, p-value)
_GROUP_TESTS = frozenset({"ttest_ind", "mannwhitneyu", "ranksums", "ks_2samp", "brunnermunzel", "f_oneway",
                          "kruskal", "alexandergovern"})


def _before_class(rows: Rows) -> Rows | None:
    """The rows a class cut was taken from (``expr`` of ``expr[labels == 1]``), ``None`` when no cut was made."""
    for i, step in enumerate(rows.steps):
        if step.kind == "filter" and step.part == "class":
            return Rows(rows.root, rows.steps[:i])
    return None


class ClassComparisons:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_fit``): a two-sample test of a
    column between the label's classes is a supervised score fitted on the rows the classes were cut from."""

    def _class_test_call(self, ref: Any, args: list[Any], node: ast.Call, frame: Any) -> Any:
        """``ttest_ind(sick[g], well[g])``: the pair (statistic, p-value), each carrying the fit; ``None`` when the
        call is no such test."""
        top = ref.module.split(".")[0]
        if ref.last not in _GROUP_TESTS or top not in ("scipy", "") or len(node.args) < 2 or any(
                isinstance(a, ast.Starred) for a in node.args):
            return None
        samples = [maybe_data(a) for a in args[:len(node.args)]]
        sources: list[Rows] = []
        for sample in samples:
            if sample is None:
                continue
            for part in parts(sample.rows):
                source = _before_class(part)
                if source is not None and source not in sources:
                    sources.append(source)
        cut = sum(1 for s in samples if s is not None and any(_before_class(p) for p in parts(s.rows)))
        if cut < 2 or not sources:
            return None
        rows = sources[0] if len(sources) == 1 else RowUnion(tuple(sources))
        taints = frozenset(f for s in samples if s is not None for f in s.taints)
        est = Est(f"{ref.last}()", "transformer", preprocessing=True, supervised=True)
        fit = self._fit(est, Data(rows, taints, False), True, ref.last, node, frame)  # type: ignore[attr-defined]
        score = Data(None, frozenset({fit}) if fit else frozenset(), False)
        return Tup((score, score))  # t, p = ttest_ind(...)


def result_field(result: Any, attr: str) -> Any:
    """``ttest_ind(a, b).pvalue`` / ``.statistic``: SciPy's tests return a result object whose fields are the
    statistic and the p-value (SciPy reference, ``TtestResult``, ``MannwhitneyuResult``: "statistic", "pvalue"), the
    same values a tuple unpacking gives; ``None`` for any other value or field."""
    if isinstance(result, Tup) and len(result.items) == 2 and attr in ("statistic", "pvalue") and all(
            isinstance(i, Data) for i in result.items):
        return result.items[0 if attr == "statistic" else 1]
    return None


__all__ = ["ClassComparisons", "result_field"]
