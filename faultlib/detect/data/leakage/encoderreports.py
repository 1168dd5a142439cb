"""What a supervised encoder written in the project reports, for the static leakage analysis.

Credit scorecards bin each feature and replace it by its weight of evidence, the log ratio of the share of goods
to the share of bads in its bin, and keep the features whose information value (the summed, weighted differences
of those shares) is high enough (Siddiqi, "Credit Risk Scorecards", Wiley 2006; Thomas, Edelman & Crook, "Credit
Scoring and Its Applications", SIAM 2002). Projects write the encoder themselves::

    encoder = WoEEncoder(bins=10).fit(X, y)              # per-bin event rates of the labels
    iv = encoder.get_iv_summary()                        # one information value per feature
    X = X[iv[iv["IV"] >= 0.02].index.tolist()]           # the features the labels chose
    for tr, va in StratifiedKFold(5).split(X, y): ...     # every validation fold's labels chose its features

The class is the project's; the analysis knows it by its name (an ``...Encoder`` learns from the rows it is fitted
on, :func:`.vocab.is_preprocessing`; ``WoEEncoder`` is also feature_engine's) but not its report method
(``get_iv_summary``, ``iv_table``, ``summary``): its value was unknown and the choice it makes was lost (issue 17
wave 88: a Home Credit scorecard kept the features of IV >= 0.02 over every row, then tuned and reported a
five-fold cross-validation).

A fitted estimator's attribute that tells what the fit found about the columns carries that fit
(``selector.scores_``, :func:`.scoring.selection`). :func:`encoder_report` reads a method the analysis does not know
(not a fit, a transform or an evaluation, which it reads first) of a transformer fitted with labels the same way:
what such an object reports after a supervised fit is what the labels said. A fit without labels (a scaler's
summary reports no label), a statistic written by hand and the methods that only set or copy are left unknown.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data, Est

#: methods that change or copy the estimator, or say nothing about what it learnt
_NOT_REPORTS = frozenset({"set_params", "get_params", "set_output", "save", "load", "to_json", "copy", "reset"})


def encoder_report(est: Est, name: str) -> Any:
    """The value of ``est.name(...)``, a method the analysis does not otherwise read, when ``est`` is a transformer
    fitted with labels (see the module docstring): the columns' report, carrying the fit; ``None`` otherwise."""
    fit = est.fit
    if est.category != "transformer" or fit is None or not fit.supervised or fit.handwritten or \
            name in _NOT_REPORTS or name.startswith("_"):
        return None
    return Data(None, frozenset({fit}), False)


__all__ = ["encoder_report"]
